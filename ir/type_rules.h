// numba's typing rules for scalars: unification, the result and operand types of operators, truthiness and
// which conversions happen implicitly.
//
// The rules, and where they come from:
// - unify() (a variable assigned two types, the branches of `a if c else b`, min/max arguments) is NumPy's
//   promote_types: int32|int64 -> int64, int64|float32 -> float64, int16|float32 -> float32, uint64|int64
//   -> float64, bool|int8 -> int8. Arrays unify when dtype and ndim agree (C and any layout give any);
//   tuples unify elementwise.
// - Arithmetic (+ - * // % ** & | ^) on integers runs at 64 bits at least, as numba's integer_binop_cases:
//   int32 + int32 -> int64, uint8 + uint8 -> uint64, uint32 + int32 -> int64, and bool arithmetic gives
//   int64. A mix of uint64 and a signed integer runs in int64 (numba-cuda's operator cases; NumPy would
//   give float64); unify() still gives float64 for the two, as NumPy.
// - `/` is true division: integers give float64, float32 / float32 stays float32.
// - `**`: int ** int -> int64 (uint64 if both unsigned), float ** int keeps the float type (numba's
//   float32 ** int -> float32), otherwise the promoted float.
// - << and >> give int64 for a signed left operand and uint64 for an unsigned one; both operands run in it.
// - & | ^ on two bools stay bool; ~bool is `not` (numba follows NumPy there, not Python).
// - Comparisons run in unify(lhs, rhs) (no widening) and give bool.
// - Constants are typed as numba types them: a Python float constant (a literal, a folded constant
//   expression, a module constant, math.pi) is float64 and an int constant int64 in arithmetic, min/max,
//   math functions and `a if c else b`, so `x * 0.1` of a float32 x computes in float64 and rounds once
//   where it is stored, bit for bit as numba-cuda (and CUDA C). Semantic analysis warns once per kernel
//   when float64 arithmetic enters a kernel whose arrays are all float32 (ir/sema.cpp). Only in comparisons
//   does a ("weak") constant adapt to the other operand's type, where its value is exact there, so `x < 1`
//   compares in float32 and `x == 0.1` still in float64 as Python does.
// - Complex numbers: + - * / ** in promote_types of the operands (int64 or float64 with complex64 gives
//   complex128, float32 with complex64 stays complex64, and a weak constant beside a complex64 takes
//   float32, so `2.0 * z` stays complex64); no // % or bit operations; only == and != compare them; a
//   complex number has a truth value but converts to no real type (can_convert).
// - bfloat16 (numba.cuda.bf16.bfloat16, ml_dtypes' bfloat16) is a type of its own, as numba-cuda's
//   __nv_bfloat16: + - * / and unary - + of bfloat16 operands give bfloat16, comparisons of two bfloat16
//   values give bool, and it has a truth value; it never mixes with other numbers in an operator or unify()
//   (bfloat16 + float32 is an error naming the conversion), but converts to and from any real number or bool
//   where the destination type is fixed (a cast, an array store, a builtin's parameter), never to complex.
// - datetime64 and timedelta64 are not numbers: their operators are numba's (ir/datetime_rules.h), they
//   unify and convert implicitly only with their own type, and have no truth value.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/typed_function.h"
#include "ir/types.h"

namespace gpujit {

/// NumPy's promote_types for two scalar kinds (bool, integers, floats, complex).
ScalarKind promote_scalars(ScalarKind a, ScalarKind b);

/// The type a variable gets when assigned both `a` and `b`; invalid if they do not unify.
Type unify(const Type& a, const Type& b);

/// Whether a Python int/float constant is "weak" (adapts to the other operand's type; see above).
bool is_weak_constant(const ConstValue& c);

/// A typed operand: its type and, if it is a compile-time constant, its value (nullptr otherwise).
struct Operand {
  Type type;
  const ConstValue* constant = nullptr;
};

/// The outcome of typing an operation: the type operands are converted to, the result type, or an error
/// (then both types are invalid). `rhs_operand` is set when the right operand converts to a type of its own
/// (datetime64 and timedelta64 operations, ir/datetime_rules.h: a timedelta64 added to a datetime64, a
/// timedelta64 times an int64); `operand` is then the left one's.
struct OpTyping {
  Type operand;
  Type rhs_operand;
  Type result;
  std::string error;
  bool ok() const { return error.empty(); }
  /// What a BinOp records as its operand types: {operand}, or {operand, rhs_operand} when the right
  /// operand has a type of its own.
  std::vector<Type> operand_types() const {
    if (rhs_operand.is_valid()) return {operand, rhs_operand};
    return {operand};
  }
};

/// Types `lhs op rhs`. The error message names the operator and both types.
OpTyping type_binary(BinOpKind op, const Operand& lhs, const Operand& rhs);
/// Types `op operand` (-x, +x, ~x, not x).
OpTyping type_unary(UnaryOpKind op, const Type& operand);
/// Types one comparison `lhs op rhs` (==, !=, <, <=, >, >=); result bool.
OpTyping type_compare(CmpOpKind op, const Operand& lhs, const Operand& rhs);

/// The common type several operands are converted to (min, max, math functions of two arguments):
/// unify() with weak constants adapting. Invalid if the operands are not all numbers.
Type common_numeric_type(const std::vector<Operand>& operands);

/// Whether a value of type t has a truth value (`if t:`, `while t:`, `not t`, `and`/`or` operands).
bool has_truth_value(const Type& t);

/// Whether `from` converts implicitly to `to` where the destination's type is fixed: an array element
/// store (float64 -> float32 casts), an argument converted to a builtin's parameter type, a returned value.
/// Scalars convert to any scalar; arrays only to an array of the same dtype and ndim whose layout is any
/// or matches; tuples elementwise. An array never converts to a scalar nor a scalar to an array.
bool can_convert(const Type& from, const Type& to);

/// How a value converts to a parameter of a fixed type, as numba's typeconv ranks a conversion when it
/// picks one of several explicit signatures: exact, promote (a wider type of the same kind), safe (every
/// value kept: uint8 -> int16, int32 -> float64, float32 -> complex64), unsafe (values may change: int64 ->
/// float64, float -> int, narrowing), none (complex to real).
enum class ConversionRank { Exact, Promote, Safe, Unsafe, None };
ConversionRank scalar_conversion_rank(ScalarKind from, ScalarKind to);

/// How well arguments of types `args` fit parameters `params` (an explicit signature): the counts of unsafe,
/// safe and promoting conversions, compared in that order (fewer unsafe first). nullopt when the numbers of
/// arguments and parameters differ or an argument cannot be passed (an array of another dtype or rank, a C-layout parameter for an
/// any-layout array, tuples or records that differ).
std::optional<std::array<int, 3>> rate_signature(const std::vector<Type>& args, const std::vector<Type>& params);
/// One argument of rate_signature: how `arg` passes as a parameter of type `param` (not equal to it); nullopt
/// when it cannot (tuples and records pass only as exactly the parameter's type).
std::optional<ConversionRank> argument_rank(const Type& arg, const Type& param);
/// Counts `rank` into a rating (unsafe, safe, promoting); false for ConversionRank::None.
bool count_rank(ConversionRank rank, std::array<int, 3>& rating);

/// The float type math functions compute in for these arguments: float32 when every argument is float32
/// (or a weak constant, or a small integer beside a float32 argument), float16 likewise, else float64.
/// numba-cuda's Math_unary cases: int64 -> float64, float32 -> float32, float64 -> float64.
ScalarKind math_float_kind(const std::vector<Operand>& operands);

}  // namespace gpujit
