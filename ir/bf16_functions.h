// numba-cuda's bfloat16 functions: `from numba.cuda.bf16 import hadd, hsqrt, float32_to_bfloat16_rz ...`.
//
// The names are numba.cuda.bf16's: the arithmetic and comparison intrinsics of CUDA's cuda_bf16.h without
// their leading underscores (hadd, hfma_sat, hmax_nan, hequ ...), the math functions (hsin, hexp2, htrunc
// ...), the conversions under NumPy-style names (float32_to_bfloat16_rz, bfloat16_to_int16_rd,
// uint64_to_bfloat16_ru, bfloat16_as_int16 ...) and under CUDA's (float2bfloat16_rz, bfloat162short_rd,
// ull2bfloat16_ru, bfloat16_as_short ...). Each function has fixed parameter and result types; arguments
// convert to the parameter types as in a C call. Arithmetic rounds once to bfloat16 (nearest even); the
// math functions compute in float32 and round once, as cuda_bf16.h's do; the _rn/_rz/_rd/_ru conversions
// round to nearest even, toward zero, down and up. The rows are builtins of the Bf16 scope with id
// Bf16Call, kept here as the fp16 ones are; codegen dispatches on bf16_function(row).op
// (codegen/bf16_lowering.cpp).
#pragma once

#include <string_view>
#include <vector>

#include "ir/builtins.h"
#include "ir/types.h"

namespace gpujit {

// clang-format off
enum class Bf16Op : uint8_t {
  Add, Sub, Mul, Div,            // plain: may fuse into an fma (NVPTX does); _rn (Nearest): never
  AddSat, SubSat, MulSat,        // the result clamped to [0, 1], NaN to 0
  Fma, FmaSat, FmaRelu,          // a * b + c rounded once; _sat clamps as above, _relu sends negatives to 0
  Neg, Abs,
  Eq, Ne, Ge, Gt, Le, Lt,        // ordered: false when an operand is NaN
  Equ, Neu, Geu, Gtu, Leu, Ltu,  // unordered: true when an operand is NaN
  Max, Min,                      // a NaN operand loses
  MaxNan, MinNan,                // a NaN operand wins
  IsNan,                         // -> bool
  IsInf,                         // -> int32: 1 for +inf, -1 for -inf, else 0
  Math,                          // `f32`, a libdevice float32 function, on the value in float32
  Trunc, Ceil, Floor, Rint, Sqrt, Rsqrt, Rcp,
  FromFloat,                     // float32/float64 -> bfloat16 with `rounding`
  FromInt,                       // an integer -> bfloat16 with `rounding`
  ToInt,                         // bfloat16 -> an integer with `rounding`, saturating, NaN to 0
  ToFloat,                       // bfloat16 -> float32 (exact)
  AsBits,                        // bfloat16 -> int16/uint16 holding its bits
  FromBits,                      // int16/uint16 bits -> bfloat16
};
// clang-format on

enum class Bf16Rounding : uint8_t { None, Nearest, Zero, Down, Up };

struct Bf16Function {
  Bf16Op op;
  Bf16Rounding rounding;
  ScalarKind param;  // every parameter's type
  ScalarKind result;
  const char* f32;  // Math: the libdevice float32 function
};

/// The builtin row of bf16.<name> (either spelling), or nullptr.
const BuiltinInfo* find_bf16_builtin(std::string_view name);
/// What a Bf16 row computes.
const Bf16Function& bf16_function(const BuiltinInfo& row);
/// Every bf16 function's name (both spellings), for "did you mean" suggestions and the docs.
std::vector<std::string_view> bf16_names();
/// The bf16 function math.<f> is on a bfloat16 argument (numba-cuda overloads math.trunc, ceil, floor,
/// sqrt, log, log10, cos, sin, tanh, exp, exp2 so), or nullptr.
const BuiltinInfo* bf16_math_builtin(BuiltinId math_id);

}  // namespace gpujit
