// Deep copies of AST subtrees, for the passes that rewrite a function before analysing it again (the
// unrolling of a `literal_unroll` loop over a tuple of mixed types, `*t` spread into a builtin's arguments:
// ir/sema_rewrite.cpp).
//
// A copy keeps every node's source range, so diagnostics about it point at the user's text. Hooks let a
// caller change the copy as it is made: `expr` may return a replacement for any expression (it copies what
// it keeps itself, with clone_expr and these hooks), `name` one for a NameExpr (a renamed variable, a
// constant), and `stmt` may append its own statements in place of one (returning true) instead of the plain
// copy. Any hook may be empty.
#pragma once

#include <functional>

#include "frontend/ast.h"

namespace gpujit {

struct CloneHooks {
  std::function<ExprPtr(const Expr&)> expr;
  std::function<ExprPtr(const NameExpr&)> name;
  std::function<bool(const Stmt&, Block& out)> stmt;
};

ExprPtr clone_expr(const Expr& e, const CloneHooks& hooks = {});
/// A copy of `s` itself (hooks.stmt is not asked about `s`, only about the statements inside it).
StmtPtr clone_stmt(const Stmt& s, const CloneHooks& hooks = {});
/// Appends a copy of every statement of `b` to `out`.
void clone_block(const Block& b, Block& out, const CloneHooks& hooks = {});
Block clone_block(const Block& b, const CloneHooks& hooks = {});

}  // namespace gpujit
