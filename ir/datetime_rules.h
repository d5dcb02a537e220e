// numba's typing of the operators on datetime64 and timedelta64 (numba-cuda's typing/npdatetime.py), for
// ir/type_rules.cpp, which hands over every operation that has such an operand.
//
// The operations and the unit each runs in (units: ir/datetime_types.h):
//   timedelta64 + - timedelta64   -> timedelta64 of the finer unit; the coarser must convert to it exactly
//                                    (numba's can_cast_timedelta_units: no years or months with days)
//   datetime64 + - timedelta64,   -> datetime64 of the finer unit; no timedelta of years or months beside
//   timedelta64 + datetime64         a datetime of weeks or finer
//   datetime64 - datetime64       -> timedelta64 of the finer unit (a year or month datetime converts to
//                                    the day it starts on)
//   timedelta64 * int, int * timedelta64, timedelta64 / int, timedelta64 // int
//                                 -> timedelta64 (the integer in int64; / and // truncate toward zero)
//   timedelta64 * float, float * timedelta64, timedelta64 / float, timedelta64 // float
//                                 -> timedelta64 (computed in the float's type, truncated toward zero)
//   timedelta64 / timedelta64     -> float64;  timedelta64 // timedelta64 -> int64 (floor, as NumPy)
//   -t, +t, abs(t) of a timedelta64 -> the same type
//   comparisons: two datetime64 of any units, two timedelta64 whose units convert one way -> bool
// Both operands convert to the operation's unit first (OpTyping::operand and rhs_operand say to which
// type); NaT in, NaT out (NaN for /, 0 for //); comparisons with NaT are false except != (numba's).
// Anything else, datetime64 + datetime64 among them, is an error that says what works instead.
#pragma once

#include "ir/type_rules.h"

namespace gpujit {

/// Types `lhs op rhs` where either operand is a datetime64 or timedelta64 scalar.
OpTyping type_npdatetime_binary(BinOpKind op, const Type& lhs, const Type& rhs);
/// Types -t, +t and ~t of a datetime64 or timedelta64 scalar (`not t` is an error of type_unary: no truth value).
OpTyping type_npdatetime_unary(UnaryOpKind op, const Type& operand);
/// Types a comparison where either operand is a datetime64 or timedelta64 scalar.
OpTyping type_npdatetime_compare(CmpOpKind op, const Type& lhs, const Type& rhs);

}  // namespace gpujit
