// A readable, stable text form of the AST, for `gpujit --emit ast`, golden tests and debugging.
//
// One node per line, children indented two spaces under their parent, each line ending in the node's start
// position as @line:col. A child's role in its parent comes first where it is not obvious (`target`,
// `value`, `test`, `body`...). Blocks are a role line (`body`, `orelse`) with their statements under it,
// except a function's body, whose statements sit directly under the FunctionDef line. A function's syntax
// errors follow its body as `error @line:col message` lines. The format is covered by golden files in
// tests/unit/frontend/data; changing it means regenerating them (GPUJIT_UPDATE_GOLDEN=1).
//
//   FunctionDef saxpy (a, x, y, out) @2:1
//     decorator Attribute jit @1:2
//       Name gpu @1:2
//     Assign @3:5
//       target Name i @3:5
//       value Call @3:9
//         func Attribute grid @3:9
//           Name gpu @3:9
//         arg IntLit 1 @3:18
#pragma once

#include <string>

#include "frontend/ast.h"

namespace gpujit {

/// Dumps one function, its decorators, docstring, body and syntax errors.
std::string dump_ast(const FunctionDef& fn);
/// Dumps a module: file-level errors, imports, globals, then every function.
std::string dump_module(const Module& module);
/// Dumps one expression (a single line when it has no children), for tests and other stages' dumps.
std::string dump_expr(const Expr& e, int indent = 0);

}  // namespace gpujit
