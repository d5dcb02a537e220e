// Semantic analysis of recursive device functions.
//
// numba-cuda compiles a recursive device function only when its signature is given explicitly. gpujit
// specializes device functions lazily, per argument types, so a function that calls itself with its own
// argument types needs only its return type, and gets it the way any return type is found: from its return
// statements. Inference walks the body repeatedly anyway; while no return statement has given a type yet, a
// self-call is Unknown (like a variable not yet typed), and once a base case has (`return 1`), the
// self-call has that type and the walk goes on until the types settle (`return n * f(n - 1)` unifies with
// it). A function whose every return depends on its own call has no type to start from: that is an error
// asking for a base case or a signature, `@cuda.jit("int64(int64)", device=True)`, whose return type is
// then used (the arguments still specialize by their types). A base case that returns None starts the call
// at None; a value built around the call (`return (n, f(n - 1))`) then gets a deeper type on each pass,
// which never settles, and is reported as numba reports it ("return type ... does not converge").
//
// A self-call with other argument types is an ordinary call of another specialization (analysed nested);
// recursion through another function (f -> g -> f) is reported by device_call() as mutual recursion.
#include <fmt/format.h>

#include "ir/sema_internal.h"

namespace gpujit {

namespace {

bool returns_a_value(const Block& block) {
  for (const StmtPtr& s : block) {
    if (const auto* r = s->as<ReturnStmt>()) {
      if (r->value && r->value->kind != ExprKind::NoneLit) return true;
    } else if (const auto* i = s->as<IfStmt>()) {
      if (returns_a_value(i->body) || returns_a_value(i->orelse)) return true;
    } else if (const auto* f = s->as<ForStmt>()) {
      if (returns_a_value(f->body) || returns_a_value(f->orelse)) return true;
    } else if (const auto* w = s->as<WhileStmt>()) {
      if (returns_a_value(w->body) || returns_a_value(w->orelse)) return true;
    }
  }
  return false;
}

/// "jit" for gpu.jit, cuda.jit, numba.cuda.jit and jit.
bool names_jit(const Expr& e) {
  if (const auto* n = e.as<NameExpr>()) return n->id == "jit";
  if (const auto* a = e.as<AttributeExpr>()) return a->attr == "jit";
  return false;
}

}  // namespace

Type FunctionAnalyzer::declared_return_type(const FunctionDef& def) {
  for (const ExprPtr& d : def.decorators) {
    const auto* call = d->as<CallExpr>();
    if (!call || !names_jit(*call->func) || call->args.empty()) continue;
    const auto* text = call->args[0]->as<StringLitExpr>();
    if (!text) continue;
    std::string ignored;
    std::optional<Signature> sig = parse_signature(text->value, &ignored);
    if (sig && sig->ret.is_valid() && !sig->ret.is_void()) return sig->ret;
  }
  return Type::invalid();
}

ExprResult FunctionAnalyzer::self_call(const CallExpr& e, Specialization& self,
                                       const std::vector<Type>& types) {
  if (is_kernel_) {
    error(e.range,
          fmt::format("kernel '{}' cannot call itself; put the recursion in a device function it calls",
                      def_.name));
    return ExprResult::error();
  }
  if (checking_) {
    Symbol sym;
    sym.kind = Symbol::Kind::DeviceFunction;
    sym.name = def_.name;
    sym.callee = self.fn.get();
    fn_.symbols[e.func.get()] = sym;
    fn_.operand_types[&e] = types;
  }
  calls_itself_ = true;
  Type ret = declared_return_.is_valid() ? declared_return_ : return_type_;
  if (ret.is_valid()) return record(e, ExprResult::of_value(ret));
  if (!returns_a_value(def_.body)) return record(e, ExprResult::of_value(Type::void_()));
  // The only base case returns None: the call is None to start from, as numba types it, and the values built
  // from it show whether the type settles (return_stmt() reports one that grows with each call).
  if (bare_return_.valid()) return record(e, ExprResult::of_value(Type::none()));
  if (!checking_) return ExprResult::unknown();
  error(e.range,
        fmt::format("cannot type infer runaway recursion: every value recursive function '{}' returns "
                    "depends on this call; add a base case that returns without calling '{}', or "
                    "declare the signature, e.g. @cuda.jit(\"int64(int64)\", device=True)",
                    def_.name, def_.name));
  return ExprResult::error();
}

}  // namespace gpujit
