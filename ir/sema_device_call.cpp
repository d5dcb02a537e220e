// Semantic analysis of calls of device functions (part of part three, ir/sema_call.cpp, which types the
// callee and the arguments first). A device function is specialized for the types of the arguments at each
// call: one Specialization per distinct list. Compile-time arguments (functions, dtypes, default values a
// call leaves out, constants the callee needs as literals) are typed None and bound in the callee instead.
// A callee with `*args` takes its extra arguments as one tuple, the last entry of its signature, so that
// every arity and every combination of types is a specialization of its own, as in numba; a call may unpack
// a tuple into positional arguments with `f(*t)` (the elements are typed one by one, in ir/sema_call.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "ir/sema_internal.h"
#include "ir/type_rules.h"

namespace gpujit {

namespace {

// "takes 2 arguments", "takes at least 1 argument", "takes no arguments" (sema_call.cpp words it the same).
std::string takes_text(size_t n, bool at_least) {
  if (n == 0 && !at_least) return "takes no arguments";
  return fmt::format("takes {}{} argument{}", at_least ? "at least " : "", n, n == 1 ? "" : "s");
}

}  // namespace

const Signature* FunctionAnalyzer::declared_signature(const CallExpr& e, const FunctionDef& callee,
                                                      const std::vector<Signature>& signatures,
                                                      std::vector<Type>& types) {
  // numba's choice among explicit signatures: fewest unsafe conversions, then fewest safe ones, then fewest
  // promotions; of two rated alike the first declared wins (numba resolves that ambiguity too, issue 8307).
  const Signature* best = nullptr;
  std::array<int, 3> best_rating{};
  for (const Signature& sig : signatures) {
    std::optional<std::array<int, 3>> r = rate_signature(types, sig.params);
    if (r && (!best || *r < best_rating)) {
      best = &sig;
      best_rating = *r;
    }
  }
  if (!best) {
    auto list = [](const std::vector<Type>& ts) {
      std::string s;
      for (const Type& t : ts) s += (s.empty() ? "" : ", ") + t.str();
      return "(" + s + ")";
    };
    std::string declared;
    for (const Signature& sig : signatures) declared += (declared.empty() ? "" : ", ") + list(sig.params);
    // numba's words first ("Invalid use of type(...) with parameters (...)"), then what would be accepted.
    error(e.range, fmt::format("Invalid use of type(device function '{}') with parameters {}: it was declared "
                               "with the signatures {} only, and the arguments convert to none of them",
                               callee.name, list(types), declared));
    return nullptr;
  }
  // Arrays keep their own type (a C-contiguous array passes to an any-layout parameter unchanged); scalars
  // convert to the parameter's type at the call.
  for (size_t i = 0; i < types.size(); ++i) {
    if (!types[i].is_array()) types[i] = best->params[i];
  }
  return best;
}

ExprResult FunctionAnalyzer::device_call(const CallExpr& e, const FunctionDef& callee,
                                         const std::vector<ExprResult>& args,
                                         const std::vector<Signature>* signatures, const Closure* closure) {
  // Functions and dtypes are compile-time arguments: the callee is specialized on them and they pass
  // nothing at run time (their parameter is typed None).
  // Parameters the call leaves out take their default values (sema_overload.cpp).
  const size_t fixed = callee.params.size();
  if (callee.vararg && signatures) {
    error(e.range, fmt::format("'{}' takes '*{}' and cannot also be declared with signatures; leave the "
                               "signatures out, and each call specializes it",
                               callee.name, callee.vararg->name));
    return ExprResult::error();
  }
  if (args.size() < callee.params.size() && callee.params[args.size()].default_value) {
    std::vector<ExprResult> filled = args;
    for (size_t i = args.size(); i < callee.params.size(); ++i) {
      std::optional<ExprResult> d = default_argument(e, callee, i);
      if (!d) return ExprResult::error();
      filled.push_back(*d);
    }
    return device_call(e, callee, filled, signatures, closure);
  }
  std::vector<Type> types;
  std::map<size_t, ExprResult> statics;
  std::vector<Type> extra;  // the arguments `*args` gathers
  for (size_t i = 0; i < args.size(); ++i) {
    if (i >= fixed && callee.vararg) {
      if (!args[i].is_value()) {
        error(e.range, fmt::format("argument {} of {}() would go into '*{}', which holds values only; a "
                                   "function or a dtype passes as a named parameter",
                                   i + 1, callee.name, callee.vararg->name));
        return ExprResult::error();
      }
      extra.push_back(args[i].type);
    } else if (args[i].is_value() && !args[i].omitted) {
      types.push_back(args[i].type);
    } else {
      types.push_back(Type::none());
      statics.emplace(i, args[i]);
    }
  }
  if (types.size() != fixed || (!callee.vararg && args.size() != fixed)) {
    error(e.range, fmt::format("{}() {}, got {}", callee.name, takes_text(fixed, callee.vararg.has_value()),
                               args.size()));
    return ExprResult::error();
  }
  if (callee.vararg) types.push_back(Type::tuple_of(std::move(extra)));
  const Signature* declared = nullptr;
  if (signatures && statics.empty()) {
    declared = declared_signature(e, callee, *signatures, types);
    if (!declared) return ExprResult::error();
  }
  Specialization* s = program_.specialize(callee, types, false, statics, closure);
  // numba types constant arguments as literals where the callee needs a constant (a shared array's shape,
  // a dtype): if the callee fails with its constants as values, it is tried with them bound at compile time.
  // Not for recursion, where constant arguments would make a new specialization at every level.
  bool recursive = std::count(program_.stack().begin(), program_.stack().end(), &callee) > 0;
  if (s && s->done && s->diags.has_errors() && !recursive) {
    std::map<size_t, ExprResult> literal = statics;
    std::vector<Type> literal_types = types;
    for (size_t i = 0; i < fixed && i < args.size(); ++i) {
      if (args[i].constant() && args[i].constant()->kind != ConstValue::Kind::String) {
        literal.emplace(i, args[i]);
        literal_types[i] = Type::none();
      }
    }
    if (literal.size() > statics.size()) {
      Specialization* with_literals = program_.specialize(callee, literal_types, false, literal, closure);
      auto clean = [](const Specialization* spec) {
        if (!spec || !spec->done || spec->diags.has_errors() || spec->fn->mangled_name.empty()) return false;
        if (!spec->fn->signature.ret.is_valid()) return false;
        return std::none_of(spec->callees.begin(), spec->callees.end(),
                            [](const Specialization* c) { return c->diags.has_errors(); });
      };
      if (clean(with_literals)) {
        s = with_literals;
        types = literal_types;
      }
    }
  }
  if (!s) {
    std::string now;
    for (const Type& t : types) now += (now.empty() ? "" : ", ") + t.str();
    error(e.range, fmt::format("the recursive calls of '{}' keep changing their argument types (now {}); "
                               "call it with arguments of the types it was called with",
                               callee.name, now));
    return ExprResult::error();
  }
  if (!s->done) {
    // A call of a function still being analysed: the function itself (sema_recursion.cpp), or one further
    // up the chain of calls, which is mutual recursion.
    if (s == &spec_) return self_call(e, *s, types);
    std::string chain;
    bool in_cycle = false;
    for (const FunctionDef* f : program_.stack()) {
      if (f == &callee) in_cycle = true;
      if (in_cycle) chain += f->name + " -> ";
    }
    error(e.range, fmt::format("mutual recursion is not supported: {}{}; only a function that calls itself "
                               "may recurse",
                               chain, callee.name));
    return ExprResult::error();
  }
  if (checking_) {
    note_device_call(*e.func, *s, callee.name);
    fn_.operand_types[&e] = types;
  }
  const Type& ret = s->fn->signature.ret;
  if (s->diags.has_errors()) return ExprResult::error();  // the callee's own errors say why
  if (!s->fn->mangled_name.empty() && ret.is_valid()) {
    // A declared return type is what the call gives, the returned value converted to it (numba's cast).
    if (declared && !declared->ret.is_void() && !ret.is_void() && can_convert(ret, declared->ret))
      return record(e, ExprResult::of_value(declared->ret));
    return record(e, ExprResult::of_value(ret));
  }
  // The callee failed before it could be typed; its own errors say why.
  return ExprResult::error();
}

void FunctionAnalyzer::note_device_call(const Expr& at, Specialization& s, const std::string& name) {
  if (std::find(spec_.callees.begin(), spec_.callees.end(), &s) == spec_.callees.end()) {
    spec_.callees.push_back(&s);
    fn_.callees.push_back(s.fn.get());
  }
  Symbol sym;
  sym.kind = Symbol::Kind::DeviceFunction;
  sym.name = name;
  sym.callee = s.fn.get();
  fn_.symbols[&at] = sym;
}

}  // namespace gpujit
