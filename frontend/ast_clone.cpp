// Deep copies of AST subtrees (frontend/ast_clone.h). Every node kind of frontend/ast.h is copied field by
// field; a kind added there without a case here is an internal error the first time it is copied.
#include "frontend/ast_clone.h"

namespace gpujit {

namespace {

ExprPtr opt(const ExprPtr& e, const CloneHooks& h) { return e ? clone_expr(*e, h) : nullptr; }

std::vector<ExprPtr> all(const std::vector<ExprPtr>& es, const CloneHooks& h) {
  std::vector<ExprPtr> out;
  for (const ExprPtr& e : es) out.push_back(clone_expr(*e, h));
  return out;
}

}  // namespace

StmtPtr clone_stmt(const Stmt& s, const CloneHooks& h) {
  switch (s.kind) {
    case StmtKind::Expr:
      return std::make_unique<ExprStmt>(s.range, clone_expr(*s.as<ExprStmt>()->value, h));
    case StmtKind::Assign: {
      const auto& a = *s.as<AssignStmt>();
      return std::make_unique<AssignStmt>(s.range, all(a.targets, h), clone_expr(*a.value, h));
    }
    case StmtKind::AugAssign: {
      const auto& a = *s.as<AugAssignStmt>();
      return std::make_unique<AugAssignStmt>(s.range, clone_expr(*a.target, h), a.op,
                                             clone_expr(*a.value, h));
    }
    case StmtKind::If: {
      const auto& i = *s.as<IfStmt>();
      return std::make_unique<IfStmt>(s.range, clone_expr(*i.test, h), clone_block(i.body, h),
                                      clone_block(i.orelse, h));
    }
    case StmtKind::For: {
      const auto& f = *s.as<ForStmt>();
      auto copy = std::make_unique<ForStmt>(s.range, clone_expr(*f.target, h), clone_expr(*f.iter, h),
                                            clone_block(f.body, h), clone_block(f.orelse, h));
      copy->literal_unroll = f.literal_unroll;
      return copy;
    }
    case StmtKind::While: {
      const auto& w = *s.as<WhileStmt>();
      return std::make_unique<WhileStmt>(s.range, clone_expr(*w.test, h), clone_block(w.body, h),
                                         clone_block(w.orelse, h));
    }
    case StmtKind::Break:
      return std::make_unique<BreakStmt>(s.range);
    case StmtKind::Continue:
      return std::make_unique<ContinueStmt>(s.range);
    case StmtKind::Return:
      return std::make_unique<ReturnStmt>(s.range, opt(s.as<ReturnStmt>()->value, h));
    case StmtKind::Pass:
      return std::make_unique<PassStmt>(s.range);
    case StmtKind::Raise:
      return std::make_unique<RaiseStmt>(s.range, opt(s.as<RaiseStmt>()->exc, h));
  }
  throw InternalError("clone_stmt: unknown statement kind");
}

ExprPtr clone_expr(const Expr& e, const CloneHooks& h) {
  if (h.expr) {
    if (ExprPtr r = h.expr(e)) return r;
  }
  switch (e.kind) {
    case ExprKind::Name: {
      const auto& n = *e.as<NameExpr>();
      if (h.name) {
        if (ExprPtr r = h.name(n)) return r;
      }
      return std::make_unique<NameExpr>(e.range, n.id);
    }
    case ExprKind::IntLit:
      return std::make_unique<IntLitExpr>(e.range, e.as<IntLitExpr>()->value);
    case ExprKind::FloatLit: {
      const auto& f = *e.as<FloatLitExpr>();
      return std::make_unique<FloatLitExpr>(e.range, f.value, f.imaginary);
    }
    case ExprKind::BoolLit:
      return std::make_unique<BoolLitExpr>(e.range, e.as<BoolLitExpr>()->value);
    case ExprKind::NoneLit:
      return std::make_unique<NoneLitExpr>(e.range);
    case ExprKind::StringLit: {
      const auto& s = *e.as<StringLitExpr>();
      return std::make_unique<StringLitExpr>(e.range, s.value, s.is_bytes);
    }
    case ExprKind::UnaryOp: {
      const auto& u = *e.as<UnaryOpExpr>();
      return std::make_unique<UnaryOpExpr>(e.range, u.op, clone_expr(*u.operand, h));
    }
    case ExprKind::BinOp: {
      const auto& b = *e.as<BinOpExpr>();
      auto copy = std::make_unique<BinOpExpr>(e.range, b.op, clone_expr(*b.lhs, h), clone_expr(*b.rhs, h));
      copy->op_range = b.op_range;
      return copy;
    }
    case ExprKind::BoolOp: {
      const auto& b = *e.as<BoolOpExpr>();
      return std::make_unique<BoolOpExpr>(e.range, b.op, all(b.values, h));
    }
    case ExprKind::Compare: {
      const auto& c = *e.as<CompareExpr>();
      return std::make_unique<CompareExpr>(e.range, clone_expr(*c.left, h), c.ops, all(c.comparators, h));
    }
    case ExprKind::Call: {
      const auto& c = *e.as<CallExpr>();
      std::vector<Keyword> keywords;
      for (const Keyword& k : c.keywords)
        keywords.push_back(Keyword{k.name, k.name_range, clone_expr(*k.value, h)});
      auto copy =
          std::make_unique<CallExpr>(e.range, clone_expr(*c.func, h), all(c.args, h), std::move(keywords));
      copy->starred = c.starred;
      return copy;
    }
    case ExprKind::Attribute: {
      const auto& a = *e.as<AttributeExpr>();
      return std::make_unique<AttributeExpr>(e.range, clone_expr(*a.value, h), a.attr, a.attr_range);
    }
    case ExprKind::Subscript: {
      const auto& s = *e.as<SubscriptExpr>();
      return std::make_unique<SubscriptExpr>(e.range, clone_expr(*s.value, h), clone_expr(*s.index, h));
    }
    case ExprKind::Slice: {
      const auto& s = *e.as<SliceExpr>();
      return std::make_unique<SliceExpr>(e.range, opt(s.lower, h), opt(s.upper, h), opt(s.step, h));
    }
    case ExprKind::Tuple: {
      const auto& t = *e.as<TupleExpr>();
      auto copy = std::make_unique<TupleExpr>(e.range, all(t.elts, h));
      copy->is_list = t.is_list;
      return copy;
    }
    case ExprKind::IfExp: {
      const auto& i = *e.as<IfExpExpr>();
      return std::make_unique<IfExpExpr>(e.range, clone_expr(*i.test, h), clone_expr(*i.body, h),
                                         clone_expr(*i.orelse, h));
    }
  }
  throw InternalError("clone_expr: unknown expression kind");
}

void clone_block(const Block& b, Block& out, const CloneHooks& h) {
  for (const StmtPtr& s : b) {
    if (h.stmt && h.stmt(*s, out)) continue;
    out.push_back(clone_stmt(*s, h));
  }
}

Block clone_block(const Block& b, const CloneHooks& h) {
  Block out;
  clone_block(b, out, h);
  return out;
}

}  // namespace gpujit
