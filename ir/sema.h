// Semantic analysis: type inference and checking of a kernel and every device function it calls.
//
// analyze() specializes the kernel for its argument types. Each function is analysed in two phases: type
// inference walks the body repeatedly, unifying every assignment into its variable's one type with numba's
// rules (ir/type_rules.h), until no variable's type changes (loop-carried variables need a second pass);
// then a checking pass walks the body once more with the final types, reports errors and fills the side
// tables of TypedFunction. A device function is analysed for the argument types at each call site (one
// specialization per distinct argument types); its return type is the unification of its return
// statements. Recursion is reported as an error.
//
// Invariants of a program analyze() returns (codegen relies on them and never infers types):
// - every value expression has a type in expr_types, every name/attribute/callee a symbol;
// - every conversion codegen must make (to a variable's type, an operand type, an array element's dtype,
//   a builtin's argument type, a function's return type) passes can_convert();
// - TypedProgram::functions lists callees before callers and the kernel last.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "ir/overloads.h"
#include "ir/typed_function.h"
#include "ir/types.h"

namespace gpujit {

/// What analyze() compiles its function as. A kernel returns nothing; a device entry (numba's
/// compile_ptx(device=True)) is the function on its own, analysed as a device function: its return type is
/// `return_type` when that is valid and not void (each returned value converts to it), else inferred.
struct EntrySpec {
  bool device = false;
  Type return_type;
};

/// Analyses `kernel` for `arg_types`. Reports user errors (including the syntax errors stored in the
/// kernel's and its device functions' FunctionDef::errors) to `diags` and returns nullptr if there were any.
/// With `warn_float64`, also warns (once) when float64 arithmetic enters a kernel whose floating-point
/// arrays are all float32 or float16: a float constant or a Python float argument next to a float32 value
/// computes in float64, as numba types it, which is correct but rarely what a float32 kernel means.
/// `overloads` answers the calls of Overloaded globals and the members @overload_method/@overload_attribute
/// declare (ir/overloads.h); null: there are none.
std::unique_ptr<TypedProgram> analyze(const FunctionDef& kernel, const std::vector<Type>& arg_types,
                                      const GlobalEnv& globals, Diagnostics& diags, bool warn_float64 = false,
                                      const EntrySpec& entry = {}, OverloadResolver* overloads = nullptr);

/// The branch an `if` takes at compile time, when its test folded to a constant: true for the body, false for
/// the else block; nullopt when it is decided at run time. As numba prunes dead branches before typing, the
/// other block is not analysed (it may be ill-typed for these arguments: `if neg_idx:` with neg_idx=False)
/// and nothing of it is lowered.
std::optional<bool> static_branch(const TypedFunction& fn, const IfStmt& s);

/// The typed function as text, for `--emit typed` and golden tests: its signature, every variable's type,
/// then the body with every expression annotated with its type (and conversions written `as T`).
std::string dump_typed(const TypedFunction& fn);
/// Every function of the program, callees first, separated by blank lines.
std::string dump_typed(const TypedProgram& program);

}  // namespace gpujit
