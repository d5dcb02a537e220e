// Folding of compile-time constants: the arithmetic of ConstValues with the kernel's own semantics.
//
// A fold gives exactly what the lowered code would compute at run time: the operand and result types are
// those of ir/type_rules.h, integers wrap at their width, // and % follow Python's signs, float32 results
// are rounded to float32. Where the run-time result is not a plain value (division by zero, a negative
// integer exponent, a shift by 64 or more, a float out of an integer's range, float16 arithmetic) the fold
// gives nullopt and the expression stays a run-time computation.
#pragma once

#include <optional>

#include "frontend/ast.h"
#include "ir/typed_function.h"

namespace gpujit {

/// Converts a scalar constant to scalar kind `k` as a run-time cast would (int() truncation, wrapping).
std::optional<ConstValue> fold_cast(const ConstValue& v, ScalarKind k);
std::optional<ConstValue> fold_unary(UnaryOpKind op, const ConstValue& v);
std::optional<ConstValue> fold_binary(BinOpKind op, const ConstValue& a, const ConstValue& b);
std::optional<ConstValue> fold_compare(CmpOpKind op, const ConstValue& a, const ConstValue& b);
/// Python truthiness of a scalar constant; nullopt for tuples, None and strings.
std::optional<bool> const_truth(const ConstValue& v);

}  // namespace gpujit
