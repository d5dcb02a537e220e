// Module-level NumPy arrays the CLI evaluates itself: `W = np.array([0.25, 0.5], dtype=np.float32)`.
//
// From Python, a global NumPy array a kernel names is captured from the running program. The CLI runs no
// Python, so ir/globals.cpp hands the calls it meets in module-level assignments to this file, which
// evaluates the literal forms with NumPy's own results (values, dtype inference, arange's fill) into a
// GlobalValue::ConstArray: np.array / np.asarray of (nested) lists and tuples of numbers, np.arange,
// np.zeros, np.ones, np.full with constant arguments, and .astype(dtype) / .reshape(shape) on any of
// them. Anything else is left to the Python API, with a reason that says so.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "frontend/ast.h"
#include "ir/typed_function.h"

namespace gpujit {

/// Folds an operand of a module-level value (ir/globals.cpp's folder); nullopt with *why set on failure.
using GlobalFolder = std::function<std::optional<GlobalValue>(const Expr&, std::string*)>;

/// Whether `name` is a numpy function evaluate_numpy_call() evaluates.
bool is_numpy_array_function(const std::string& name);

/// Evaluates `np.<function>(...)` (is_numpy_array_function(function) holds) into a ConstArray; nullopt with
/// *why set when an argument is not constant or the call is not one NumPy accepts.
std::optional<GlobalValue> evaluate_numpy_call(const CallExpr& call, const std::string& function,
                                               const GlobalFolder& fold, std::string* why);

/// Evaluates `array.astype(dtype)` or `array.reshape(shape)` on a ConstArray; nullopt with *why set when
/// `method` is another one or its arguments are not constant.
std::optional<GlobalValue> evaluate_array_method(const CallExpr& call, const GlobalValue& array,
                                                 const std::string& method, const GlobalFolder& fold,
                                                 std::string* why);

}  // namespace gpujit
