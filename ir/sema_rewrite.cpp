// The rewrites semantic analysis asks for when it cannot type a construct in place (Rewrites, sema_internal.h):
// the function is copied with them made and analysed again from scratch. The copy's nodes keep the source
// ranges of the text they copy, so diagnostics point at the user's code.
//
// Spreading `*t` into a builtin's arguments: `complex(*cmath.polar(z))` becomes `complex(cmath.polar(z)[0],
// cmath.polar(z)[1])` once analysis knows t is a tuple of two. The builtins' typing and lowering take their
// arguments one expression each. t is then evaluated once per element instead of once, which gives the same
// result only because analysis first checks that t has no effects (FunctionAnalyzer::free_of_effects): a
// pure builtin gives the same value each time (and LLVM may merge the repeated calls).
//
// Unrolling `for x in literal_unroll(t)` over a tuple whose elements differ in type (numba versions the loop
// body per element type; gpujit keeps one type per variable, so it copies the body per element).
//
// The parser makes every loop over a tuple `$forN_0 = t; for $forN in range(len($forN_0)): x = $forN_0[$forN];
// body` (frontend/parser.cpp, parse_for). When analysis finds such a loop marked literal_unroll over a tuple
// of mixed types (FunctionAnalyzer::defer_unroll), it asks for a copy of the function in which the loop is
//
//     $forN_0 = t
//     x$N_0 = $forN_0[0]          one copy of the body per element k, where the counter is the constant k,
//     body (x as x$N_0)           so each indexes the tuple at a constant, and each binds its own loop
//     x$N_1 = $forN_0[1]          variables (the loop target and the parser's own '$' names inside the body)
//     body (x as x$N_1)           under names of its own, '$N_k' appended: they take each element's type.
//     ...
//     orelse
//
// A `continue` or `break` of the loop needs targets: each copy is then the body of a one-trip loop (`for
// $unrollN_k in range(1)`, which `continue` leaves), and a `break` sets `$unrollN_b` and leaves it, after which
// the enclosing one-trip loop `for $unrollN in range(1): ... else: orelse` is left too (skipping orelse, as a break
// skips a loop's else). Variables the body assigns that are not loop variables stay one variable each (one
// type for all copies), as anywhere in a function.
#include <fmt/format.h>

#include <algorithm>

#include "frontend/ast_clone.h"
#include "ir/sema_internal.h"

namespace gpujit {

namespace {

// Whether `b` holds a `break` (or a `continue`) of the loop it is the body of: not one of a nested loop.
bool leaves_loop(const Block& b, StmtKind kind) {
  for (const StmtPtr& s : b) {
    if (s->kind == kind) return true;
    if (const auto* i = s->as<IfStmt>()) {
      if (leaves_loop(i->body, kind) || leaves_loop(i->orelse, kind)) return true;
    }
  }
  return false;
}

ExprPtr name_expr(SourceRange at, const std::string& id) { return std::make_unique<NameExpr>(at, id); }

StmtPtr assign(SourceRange at, const std::string& id, ExprPtr value) {
  std::vector<ExprPtr> targets;
  targets.push_back(name_expr(at, id));
  return std::make_unique<AssignStmt>(at, std::move(targets), std::move(value));
}

// `for id in range(1): body [else: orelse]`.
StmtPtr one_trip(SourceRange at, const std::string& id, Block body, Block orelse) {
  std::vector<ExprPtr> args;
  args.push_back(std::make_unique<IntLitExpr>(at, 1));
  auto range =
      std::make_unique<CallExpr>(at, name_expr(at, "range"), std::move(args), std::vector<Keyword>{});
  return std::make_unique<ForStmt>(at, name_expr(at, id), std::move(range), std::move(body),
                                   std::move(orelse));
}

class Rewriter {
 public:
  explicit Rewriter(const Rewrites& rewrites) : loops_(rewrites.loops), star_calls_(rewrites.star_calls) {
    hooks_.stmt = [this](const Stmt& s, Block& out) { return expand(s, out); };
    hooks_.expr = [this](const Expr& e) { return spread(e, hooks_); };
  }
  const CloneHooks& hooks() const { return hooks_; }

 private:
  // f(a, *t) as f(a, t[0], t[1], ...), when analysis asked for it.
  ExprPtr spread(const Expr& e, const CloneHooks& h) {
    const auto* call = e.as<CallExpr>();
    auto it = call ? star_calls_.find(call) : star_calls_.end();
    if (it == star_calls_.end()) return nullptr;
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < call->args.size(); ++i) {
      const Expr& a = *call->args[i];
      auto n = it->second.find(i);
      if (n == it->second.end()) {
        args.push_back(clone_expr(a, h));
        continue;
      }
      for (size_t k = 0; k < n->second; ++k)
        args.push_back(std::make_unique<SubscriptExpr>(a.range, clone_expr(a, h),
                                                       std::make_unique<IntLitExpr>(a.range, k)));
    }
    std::vector<Keyword> keywords;
    for (const Keyword& k : call->keywords)
      keywords.push_back(Keyword{k.name, k.name_range, clone_expr(*k.value, h)});
    return std::make_unique<CallExpr>(e.range, clone_expr(*call->func, h), std::move(args),
                                      std::move(keywords));
  }

  bool expand(const Stmt& s, Block& out) {
    const auto* f = s.as<ForStmt>();
    auto it = f ? loops_.find(f) : loops_.end();
    if (it == loops_.end()) return false;
    const auto* counter = f->target->as<NameExpr>();
    const auto* first = f->body.empty() ? nullptr : f->body[0]->as<AssignStmt>();
    if (!counter || !first) throw InternalError("a literal_unroll loop without the parser's shape");
    // The iterable's binding, just copied: `$forN_0 = literal_unroll(t)` becomes `$forN_0 = t`, a tuple
    // that only constant indices read now.
    auto* bind = out.empty() ? nullptr : out.back()->as<AssignStmt>();
    auto* call = bind ? bind->value->as<CallExpr>() : nullptr;
    if (call && call->args.size() == 1) bind->value = std::move(call->args[0]);
    std::set<std::string> renamed;
    for (const ExprPtr& t : first->targets) collect_bound_names(*t, renamed);
    std::set<std::string> bound;  // the '$' names (the parser's) bound anywhere in the body, loops included
    collect_bound_names(f->body, bound);
    for (const std::string& n : bound)
      if (!n.empty() && n[0] == '$') renamed.insert(n);
    bool breaks = leaves_loop(f->body, StmtKind::Break);
    bool continues = leaves_loop(f->body, StmtKind::Continue);
    // Names of the copy's own, outside the `$forN...` the parser's iterables go by (sema.cpp checks those).
    const std::string own = "$unroll" + counter->id.substr(4);
    const std::string flag = own + "_b";
    SourceRange at = f->range;
    Block copies;
    if (breaks) out.push_back(assign(at, flag, std::make_unique<BoolLitExpr>(at, false)));
    for (size_t k = 0; k < it->second; ++k) {
      CloneHooks h;
      h.expr = [&](const Expr& e) { return spread(e, h); };
      h.name = [&, k](const NameExpr& n) -> ExprPtr {
        if (n.id == counter->id) return std::make_unique<IntLitExpr>(n.range, k);
        if (renamed.count(n.id))
          return name_expr(n.range, fmt::format("{}${}_{}", n.id, counter->id.substr(4), k));
        return nullptr;
      };
      // A `break` of this loop (not of one inside it) sets the flag first; nested loops copy as they are.
      h.stmt = [&](const Stmt& t, Block& into) -> bool {
        if (expand(t, into)) return true;
        if (t.kind == StmtKind::For || t.kind == StmtKind::While) {
          CloneHooks inner{h.expr, h.name, hooks_.stmt};
          into.push_back(clone_stmt(t, inner));
          return true;
        }
        if (t.kind != StmtKind::Break) return false;
        into.push_back(assign(t.range, flag, std::make_unique<BoolLitExpr>(t.range, true)));
        into.push_back(std::make_unique<BreakStmt>(t.range));
        return true;
      };
      Block body = clone_block(f->body, h);
      if (!breaks && !continues) {
        for (StmtPtr& b : body) copies.push_back(std::move(b));
        continue;
      }
      copies.push_back(one_trip(at, fmt::format("{}_{}", own, k), std::move(body), {}));
      if (breaks) {
        Block leave;
        leave.push_back(std::make_unique<BreakStmt>(at));
        copies.push_back(std::make_unique<IfStmt>(at, name_expr(at, flag), std::move(leave), Block{}));
      }
    }
    Block orelse = clone_block(f->orelse, hooks_);
    if (breaks) {
      out.push_back(one_trip(at, own, std::move(copies), std::move(orelse)));
      return true;
    }
    for (StmtPtr& b : copies) out.push_back(std::move(b));
    for (StmtPtr& b : orelse) out.push_back(std::move(b));
    return true;
  }

  const std::map<const ForStmt*, size_t>& loops_;
  const std::map<const CallExpr*, std::map<size_t, size_t>>& star_calls_;
  CloneHooks hooks_;
};

}  // namespace

std::shared_ptr<const FunctionDef> rewrite_function(const FunctionDef& def, const Rewrites& rewrites) {
  auto copy = std::make_shared<FunctionDef>();
  copy->name = def.name;
  copy->range = def.range;
  copy->name_range = def.name_range;
  for (const Param& p : def.params)
    copy->params.push_back(Param{p.name, p.range, p.default_value ? clone_expr(*p.default_value) : nullptr});
  if (def.vararg)
    copy->vararg = Param{def.vararg->name, def.vararg->range,
                         def.vararg->default_value ? clone_expr(*def.vararg->default_value) : nullptr};
  for (const ExprPtr& d : def.decorators) copy->decorators.push_back(clone_expr(*d));
  copy->docstring = def.docstring;
  copy->enclosing = def.enclosing;
  copy->file = def.file;
  copy->rewritten_from = &def.origin();
  Rewriter rewriter(rewrites);
  copy->body = clone_block(def.body, rewriter.hooks());
  return copy;
}

}  // namespace gpujit

namespace gpujit {

bool FunctionAnalyzer::free_of_effects(const Expr& e) {
  auto all = [&](const std::vector<ExprPtr>& es) {
    return std::all_of(es.begin(), es.end(), [&](const ExprPtr& x) { return free_of_effects(*x); });
  };
  switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit:
    case ExprKind::NoneLit:
    case ExprKind::StringLit:
      return true;
    case ExprKind::UnaryOp:
      return free_of_effects(*e.as<UnaryOpExpr>()->operand);
    case ExprKind::BinOp:
      return free_of_effects(*e.as<BinOpExpr>()->lhs) && free_of_effects(*e.as<BinOpExpr>()->rhs);
    case ExprKind::BoolOp:
      return all(e.as<BoolOpExpr>()->values);
    case ExprKind::Compare:
      return free_of_effects(*e.as<CompareExpr>()->left) && all(e.as<CompareExpr>()->comparators);
    case ExprKind::Attribute:
      return free_of_effects(*e.as<AttributeExpr>()->value);
    case ExprKind::Subscript:
      return free_of_effects(*e.as<SubscriptExpr>()->value) && free_of_effects(*e.as<SubscriptExpr>()->index);
    case ExprKind::Slice: {
      const auto& s = *e.as<SliceExpr>();
      for (const ExprPtr* p : {&s.lower, &s.upper, &s.step})
        if (*p && !free_of_effects(**p)) return false;
      return true;
    }
    case ExprKind::Tuple:
      return all(e.as<TupleExpr>()->elts);
    case ExprKind::IfExp: {
      const auto& i = *e.as<IfExpExpr>();
      return free_of_effects(*i.test) && free_of_effects(*i.body) && free_of_effects(*i.orelse);
    }
    case ExprKind::Call: {
      const auto& c = *e.as<CallExpr>();
      if (!all(c.args)) return false;
      for (const Keyword& k : c.keywords)
        if (!free_of_effects(*k.value)) return false;
      ExprResult callee = expr(*c.func);
      if (callee.what == ExprResult::What::DType || callee.what == ExprResult::What::Reduction) return true;
      if (callee.what != ExprResult::What::Builtin) return false;  // a device function may write memory
      switch (callee.builtin->scope) {
        case BuiltinScope::Python:
          return callee.builtin->typing != BuiltinTyping::Print;
        case BuiltinScope::Math:
        case BuiltinScope::Cmath:
        case BuiltinScope::Number:
        case BuiltinScope::Array:
        case BuiltinScope::Operator:
        case BuiltinScope::Numpy:
        case BuiltinScope::Libdevice:
        case BuiltinScope::Fp16:
        case BuiltinScope::Bf16:
        case BuiltinScope::Fp8:
          return true;
        case BuiltinScope::Kernel:
          return callee.builtin->lowering == BuiltinLowering::Grid;  // grid(), gridsize() read registers
        default:
          return false;  // atomics, barriers, random numbers, allocation
      }
    }
  }
  return false;
}

bool FunctionAnalyzer::defer_star_call(const CallExpr& e, const std::string& name) {
  std::map<size_t, size_t> lengths;
  bool ok = true;
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (!e.is_starred(i)) continue;
    ExprResult r = value(*e.args[i]);
    if (!r.is_value()) {
      ok = false;
    } else if (!r.type.is_tuple()) {
      error(e.args[i]->range, fmt::format("'*' unpacks a tuple into the arguments, got {}{}", r.type.str(),
                                          origin_of(*e.args[i])));
      ok = false;
    } else if (!free_of_effects(*e.args[i])) {
      error(e.args[i]->range,
            fmt::format("'*' unpacking into {}() takes a tuple without side effects (it is read once per "
                        "element); assign it to a variable first and unpack the variable",
                        name));
      ok = false;
    } else {
      lengths[i] = r.type.elements.size();
    }
  }
  if (!ok) {
    spec_.rewrites.star_calls.erase(&e);
    return false;
  }
  spec_.rewrites.star_calls[&e] = std::move(lengths);
  return true;
}

}  // namespace gpujit
