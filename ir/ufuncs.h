// NumPy's ufuncs applied to arrays inside a kernel: `np.sin(a, out)`, `np.add(a, b, out=c)`,
// `np.greater(x, 0.5, mask)`.
//
// A call of a NumPy ufunc with an array operand or an output array is an elementwise loop, run by the
// calling thread, over the output's elements (numba-cuda compiles the same thing; nothing is allocated, so
// the output array is required). Inputs broadcast against the output as NumPy's rules say: an input of
// lower rank lines up with the output's last axes, and an axis of length 1 repeats. Scalars repeat too.
//
// The element loop is NumPy's, not Python's: its types come from NumPy's type resolution (the promoted
// type of the inputs; integers go through float64 for the math functions, small integers through float32),
// and comparisons, maximum/minimum, logical and bitwise functions have NumPy's meaning on every type:
// complex numbers order lexicographically, maximum and minimum propagate NaN while fmax and fmin drop it,
// and an int64 compares exactly against a uint64. The result converts into the output's dtype under
// NumPy's default casting rule, 'same_kind'.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/builtins.h"
#include "ir/types.h"

namespace gpujit {

enum class UfuncKind : uint8_t {
  Math,        // a real function with a math row (sin, log, arctan2, hypot) and, where cmath has it, a complex one
  Arithmetic,  // add, subtract, multiply, true_divide, floor_divide, remainder, power: `op` is a BinOpKind
  Compare,     // equal, less, ...: `op` is a CmpOpKind; the result is bool
  Logical,     // logical_and/or/xor on the operands' truth: `op` is a BinOpKind (BitAnd, BitOr, BitXor)
  LogicalNot,  // logical_not
  Bitwise,     // bitwise_and/or/xor, left_shift, right_shift: `op` is a BinOpKind; integers and bools
  Invert,      // invert, bitwise_not
  Extremum,    // maximum, minimum (NaN wins), fmax, fmin (NaN loses)
  Negate,      // negative, positive: `op` is a UnaryOpKind
  Absolute,    // absolute, abs, fabs: a complex operand gives its modulus
  Predicate,   // isnan (op 0), isinf (1), isfinite (2): the result is bool
  Angle,       // deg2rad/radians (op 0), rad2deg/degrees (op 1)
};

enum class Extremum : uint8_t { Maximum, Minimum, Fmax, Fmin };

struct UfuncInfo {
  const char* name;  // NumPy's name
  uint8_t nin;       // inputs; every ufunc here has one output
  UfuncKind kind;
  uint8_t op = 0;                                  // BinOpKind, CmpOpKind, UnaryOpKind or Extremum
  BuiltinId real = BuiltinId::Nan;                 // Math: the math row (its libdevice functions)
  std::optional<BuiltinId> complex = std::nullopt;  // Math: the cmath row, when complex operands are allowed
};

/// The NumPy ufunc of that name, or nullptr.
const UfuncInfo* find_ufunc(std::string_view name);

/// The types one element of a ufunc call is computed in: every input converts to `operand` (for Logical,
/// LogicalNot and Predicate the input's own type is kept: `operand` is not used), the element function
/// yields `result`, which converts to the output's dtype.
struct UfuncLoop {
  ScalarKind operand = ScalarKind::Float64;
  ScalarKind result = ScalarKind::Float64;
  /// Compare of an int64 with a uint64 (either order): compared exactly, as NumPy 1.25 and later do,
  /// rather than through float64.
  bool mixed_sign_compare = false;
  std::string error;  // why these inputs have no loop ("np.bitwise_and() takes integers or booleans ...")
  bool ok() const { return error.empty(); }
};

/// NumPy's loop for `u` over inputs of these element kinds.
UfuncLoop resolve_ufunc(const UfuncInfo& u, const std::vector<ScalarKind>& inputs);

/// Whether NumPy's casting='same_kind' lets a ufunc write a `from` result into a `to` array.
bool same_kind_cast(ScalarKind from, ScalarKind to);

/// The names of every ufunc, for docs and suggestions.
std::vector<std::string_view> ufunc_names();

// --- Reductions of a whole array: np.sum(a), a.max(), np.nanmean(a) ----------------------------------------
//
// Each is a loop over every element of the array, in the calling thread, computed as numba does it: sums
// and products accumulate in order from 0 and 1; mean is the sum over the size; var is the mean of
// |x - mean|^2 (a second pass) and std its square root; min and max return NaN if any element is NaN; the nan*
// variants skip NaNs (nanmin/nanmax of only NaNs is NaN, nanmean is the mean of the rest). No axis: a kernel
// cannot allocate the array an axis reduction returns.

enum class ReductionKind : uint8_t { Sum, Prod, Mean, Var, Std, Min, Max, All, Any, CountNonzero };

struct ArrayReduction {
  const char* name;   // NumPy's function; arrays have the same method except for nan* and count_nonzero
  ReductionKind kind;
  bool skip_nan;      // the nan* variant
  bool method;        // also a method of arrays: a.sum()
};

/// The reduction NumPy names `name` (np.sum, np.amax, np.nanmean ...), or nullptr.
const ArrayReduction* find_reduction(std::string_view name);

/// The type NumPy's reduction of an array of `element` returns, or an error.
struct ReductionLoop {
  ScalarKind accumulate = ScalarKind::Float64;  // the type elements convert to and the loop adds in
  ScalarKind result = ScalarKind::Float64;
  std::string error;
  bool ok() const { return error.empty(); }
};
ReductionLoop resolve_reduction(const ArrayReduction& r, ScalarKind element);

}  // namespace gpujit
