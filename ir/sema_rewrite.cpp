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
// type for all copies), as anywhere in a function. The copy is analysed again from scratch; its nodes keep
// the source ranges of the text they copy, so diagnostics point at the user's loop.
#include <fmt/format.h>

#include "frontend/ast_clone.h"
#include "ir/sema_internal.h"

namespace gpujit {

namespace {

void bound_names(const Expr& target, std::set<std::string>& out) {
  if (const auto* n = target.as<NameExpr>()) out.insert(n->id);
  if (const auto* t = target.as<TupleExpr>()) {
    for (const ExprPtr& e : t->elts) bound_names(*e, out);
  }
}

// The '$' names (the parser's) bound anywhere in `b`, loops included.
void parser_names(const Block& b, std::set<std::string>& out) {
  for (const StmtPtr& s : b) {
    std::set<std::string> names;
    if (const auto* a = s->as<AssignStmt>()) {
      for (const ExprPtr& t : a->targets) bound_names(*t, names);
    } else if (const auto* f = s->as<ForStmt>()) {
      bound_names(*f->target, names);
      parser_names(f->body, out);
      parser_names(f->orelse, out);
    } else if (const auto* w = s->as<WhileStmt>()) {
      parser_names(w->body, out);
      parser_names(w->orelse, out);
    } else if (const auto* i = s->as<IfStmt>()) {
      parser_names(i->body, out);
      parser_names(i->orelse, out);
    }
    for (const std::string& n : names)
      if (!n.empty() && n[0] == '$') out.insert(n);
  }
}

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
  auto range = std::make_unique<CallExpr>(at, name_expr(at, "range"), std::move(args), std::vector<Keyword>{});
  return std::make_unique<ForStmt>(at, name_expr(at, id), std::move(range), std::move(body), std::move(orelse));
}

class Unroller {
 public:
  explicit Unroller(const std::map<const ForStmt*, size_t>& loops) : loops_(loops) {
    hooks_.stmt = [this](const Stmt& s, Block& out) { return expand(s, out); };
  }
  const CloneHooks& hooks() const { return hooks_; }

 private:
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
    for (const ExprPtr& t : first->targets) bound_names(*t, renamed);
    parser_names(f->body, renamed);
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
      h.name = [&, k](const NameExpr& n) -> ExprPtr {
        if (n.id == counter->id) return std::make_unique<IntLitExpr>(n.range, k);
        if (renamed.count(n.id)) return name_expr(n.range, fmt::format("{}${}_{}", n.id, counter->id.substr(4), k));
        return nullptr;
      };
      // A `break` of this loop (not of one inside it) sets the flag first; nested loops copy as they are.
      h.stmt = [&](const Stmt& t, Block& into) -> bool {
        if (expand(t, into)) return true;
        if (t.kind == StmtKind::For || t.kind == StmtKind::While) {
          CloneHooks inner{h.name, hooks_.stmt};
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
  CloneHooks hooks_;
};

}  // namespace

std::shared_ptr<const FunctionDef> unroll_loops(const FunctionDef& def, const std::map<const ForStmt*, size_t>& loops) {
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
  Unroller unroller(loops);
  copy->body = clone_block(def.body, unroller.hooks());
  return copy;
}

}  // namespace gpujit
