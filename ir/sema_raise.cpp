// Semantic analysis of `raise` in kernels and device functions.
//
// numba-cuda compiles `raise E` and `raise E(args)` when E is an exception class and the arguments are
// compile-time constants: the kernel records which raise ran, in which thread, and ends that thread; the
// launch then raises E(*args) on the host with the place prefixed to the message. gpujit does the same, so
// everything about the exception is known here: analysis turns each raise into one line of text, its
// *description*, which codegen embeds as a constant string and the runtime hands back to Python:
//
//     <class>\n<function>\n<file>\n<line>\n<args>
//
// <class> is "builtins.NAME" for Python's own exception classes, or the reference the Python shim gave a
// user class it described as a global (GlobalValue::Kind::ExceptionClass); <args> is the arguments as a
// Python tuple literal. python/gpujit/_exceptions.py reads it back.
#include <fmt/format.h>

#include "ir/sema_internal.h"

namespace gpujit {

namespace {

/// Python's built-in exception classes a kernel may raise by name.
constexpr const char* kBuiltinExceptions[] = {
    "Exception",         "ArithmeticError",     "AssertionError",     "IndexError",     "KeyError",
    "LookupError",       "OverflowError",       "RuntimeError",       "TypeError",      "ValueError",
    "ZeroDivisionError", "NotImplementedError", "FloatingPointError", "AttributeError",
};

/// A Python literal for a string: single-quoted with the escapes Python's repr uses.
std::string python_string(const std::string& s) {
  std::string out = "'";
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);  // UTF-8 bytes pass through: the text is decoded as UTF-8
        }
    }
  }
  return out + "'";
}

std::string python_literal(const ConstValue& v) {
  if (v.kind == ConstValue::Kind::String) return (v.is_bytes() ? "b" : "") + python_string(v.s);
  if (v.kind == ConstValue::Kind::Tuple) {
    std::string out = "(";
    for (const ConstValue& e : v.elements) out += python_literal(e) + ", ";
    if (v.elements.size() > 1) out.resize(out.size() - 2);  // one element keeps its comma: ('msg', )
    return out + ")";
  }
  return v.str();
}

/// "builtins.NAME" for a Python exception class a kernel may raise by name; empty for any other name.
std::string builtin_exception_reference(const std::string& name) {
  for (const char* n : kBuiltinExceptions) {
    if (name == n) return std::string("builtins.") + n;
  }
  return {};
}

}  // namespace

std::string raise_description(const std::string& reference, const std::string& function,
                              const std::string& file, unsigned line, const std::vector<ConstValue>& args) {
  return fmt::format("{}\n{}\n{}\n{}\n{}", reference, function, file, line,
                     python_literal(ConstValue::of_tuple(args)));
}

void FunctionAnalyzer::raise_stmt(const RaiseStmt& s) {
  if (!s.exc) {
    error(s.range, "a bare 'raise' (re-raising) is not supported in kernels; raise an exception class");
    return;
  }
  const Expr* cls = s.exc.get();
  const CallExpr* call = s.exc->as<CallExpr>();
  if (call) cls = call->func.get();
  std::string reference;
  if (const auto* n = cls->as<NameExpr>(); n && !is_local_name(n->id)) {
    auto g = program_.globals().find(n->id);
    if (g != program_.globals().end()) {
      if (g->second.kind == GlobalValue::Kind::ExceptionClass) reference = g->second.member;
    } else {
      reference = builtin_exception_reference(n->id);
    }
  }
  if (reference.empty()) {
    error(cls->range,
          "raise needs an exception class here, as in 'raise ValueError' or 'raise ValueError(\"msg\")'");
    return;
  }
  std::vector<ConstValue> args;
  if (call) {
    if (!call->keywords.empty()) {
      error(call->keywords.front().name_range,
            "an exception raised in a kernel takes positional arguments only");
      return;
    }
    for (const ExprPtr& a : call->args) {
      std::optional<ConstValue> c;
      if (const auto* str = a->as<StringLitExpr>()) {
        c = ConstValue::of_string(str->value, str->is_bytes);
      } else {
        ExprResult r = expr(*a);
        if (!r.ok()) return;
        if (r.constant()) c = *r.constant();
      }
      if (!c) {
        error(a->range,
              "the arguments of an exception raised in a kernel must be compile-time constants "
              "(numbers or strings)");
        return;
      }
      args.push_back(*c);
    }
  }
  if (!checking_) return;
  fn_.raises[&s] =
      raise_description(reference, def_.name, file_ ? file_->name() : "", s.range.begin.line, args);
}

}  // namespace gpujit
