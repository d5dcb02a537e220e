// The functions of Python's `operator` module a kernel can call: `op = operator.add; op(a, b)`.
//
// Each is the operator it names, typed and lowered exactly as the operator written in place (add is `a + b`,
// truediv `a / b`, lt `a < b`, neg `-a`); the in-place forms (iadd ...) are the same on numbers, which are
// immutable. The rows are builtins of the Operator scope with id OperatorCall, kept here as libdevice's are
// in ir/libdevice_functions.cpp, so the main table (ir/builtins.cpp) stays one row per id. A row's `axis`
// holds the BinOpKind, CmpOpKind or UnaryOpKind its typing names.
#pragma once

#include <string_view>
#include <vector>

#include "ir/builtins.h"

namespace gpujit {

/// The builtin row of operator.<name>, or nullptr.
const BuiltinInfo* find_operator_builtin(std::string_view name);
/// Every supported name, for "did you mean" suggestions.
std::vector<std::string_view> operator_names();
/// The operator row of NumPy's ufunc `np.<name>` when it is a Python operator on scalars (np.add is
/// operator.add, np.less operator.lt, np.invert operator.invert), or nullptr.
const BuiltinInfo* find_numpy_operator(std::string_view name);
/// Those NumPy names, for the docs.
std::vector<std::string_view> numpy_operator_names();

}  // namespace gpujit
