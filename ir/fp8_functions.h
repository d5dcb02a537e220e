// numba-cuda's fp8 functions: `from numba.cuda._internal.cuda_fp8 import cvt_float_to_fp8, saturation_t ...`.
//
// CUDA's cuda_fp8.h as numba-cuda binds it: the conversions to the 8-bit storage of an fp8 value
// (cvt_float_to_fp8, cvt_double_to_fp8, cvt_bfloat16raw_to_fp8, cvt_float_to_e8m0 ...), their two-lane forms
// (cvt_float2_to_fp8x2 ... on a float32x2/float64x2, giving the two bytes as a uint16, the first lane low) and
// cvt_e8m0_to_bf16raw; and, beyond numba's set, the header's cvt_fp8_to_halfraw (numba binds no way from an
// e4m3/e5m2 byte to its value otherwise). The storage is a uint8 (uint16 for two lanes); a __nv_bfloat16_raw is a uint16x1 (its
// bits in `.x`). The saturation (saturation_t: NOSAT 0, SATFINITE 1), the interpretation
// (fp8_interpretation_t: E4M3 0, E5M2 1) and the rounding (cuda.bindings' cudaRoundMode: cudaRoundZero 1,
// cudaRoundPosInf 2) are integer arguments, as in C. The results are cuda_fp8.hpp's bit for bit: e4m3/e5m2
// round to nearest even; NOSAT sends an overflow to Inf (e5m2) or NaN (e4m3), SATFINITE to the largest finite
// value; e8m0 (a power of two, 2^-127 to 2^127, 0xFF is NaN) rounds toward zero or up.
//
// The fp8 types themselves (fp8_e4m3, fp8_e5m2, fp8_e8m0) are ScalarKinds (ir/types.h): fp8_e4m3(x) converts a
// number or bfloat16 with SATFINITE (e8m0: SATFINITE and rounding up), float32(f), int32(f), bfloat16(f) ...
// convert back; codegen/fp8_lowering.cpp emits both.
#pragma once

#include <string_view>
#include <vector>

#include "ir/builtins.h"
#include "ir/types.h"

namespace gpujit {

// clang-format off
enum class Fp8Op : uint8_t {
  ToFp8,    // a float32/float64/bfloat16_raw value (one or two lanes) -> e4m3/e5m2 storage (saturation, interpretation)
  ToE8m0,   // the same -> e8m0 storage (saturation, rounding)
  E8m0ToBf16Raw,  // uint8 e8m0 storage -> bfloat16_raw
  ToHalfRaw,      // e4m3/e5m2 storage (interpretation) -> the float16 bits, as a uint16x1 (__half_raw)
};
// clang-format on

struct Fp8Function {
  Fp8Op op;
  ScalarKind value;      // the first parameter's scalar type
  uint8_t value_lanes;   // 0: a scalar; 1, 2: a vector of that many lanes (uint16x1 is bfloat16_raw)
  ScalarKind result;     // uint8 or uint16 storage, or uint16 for bfloat16_raw
  uint8_t result_lanes;  // 0 or 1 (bfloat16_raw)
};

/// The builtin row of fp8.<name>, or nullptr.
const BuiltinInfo* find_fp8_builtin(std::string_view name);
/// What an Fp8 row computes.
const Fp8Function& fp8_function(const BuiltinInfo& row);
/// Every fp8 function's name, for "did you mean" suggestions and the docs.
std::vector<std::string_view> fp8_names();
/// The type of a parameter or result as a Type (scalar or vector).
Type fp8_value_type(ScalarKind k, uint8_t lanes);

}  // namespace gpujit
