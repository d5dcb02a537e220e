// bfloat16 bit patterns on the host: rounding a float or double to bfloat16 and widening one back.
//
// bfloat16 is the top half of an IEEE float32: 1 sign bit, 8 exponent bits, 7 fraction bits. Rounding is to
// nearest, ties to even, the rounding of CUDA's __float2bfloat16 and __double2bfloat16 (and of NVPTX's
// cvt.rn.bf16.f32/f64), and NaN becomes the canonical NaN 0x7fff as CUDA's conversions give it. A double is
// rounded once, not through float32: it goes to float32 rounding to odd (exact when it fits, else the odd
// neighbour), which a second rounding to the 8 bits of bfloat16 then makes correct (codegen/bf16_lowering.cpp
// emits the same steps for the CPU backend). The Python boundary uses these for bfloat16 scalars.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gpujit {

inline uint16_t bfloat16_from_float(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return 0x7fff;
  uint32_t rest = bits & 0xffffu, hi = bits >> 16;
  bool up = rest > 0x8000u || (rest == 0x8000u && (hi & 1u));
  return static_cast<uint16_t>(hi + (up ? 1u : 0u));  // a carry moves into the exponent, up to infinity
}

inline uint16_t bfloat16_from_double(double d) {
  if (std::isnan(d)) return 0x7fff;
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if ((bits & 1u) == 0) {  // rounded to the even neighbour: take the odd one on d's side
      bool away = std::fabs(d) > std::fabs(static_cast<double>(f));
      bits = away ? bits + 1 : bits - 1;
      std::memcpy(&f, &bits, 4);
    }
  }
  return bfloat16_from_float(f);
}

inline float bfloat16_to_float(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace gpujit
