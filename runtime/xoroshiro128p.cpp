// Initial states of gpu.random's generators (see xoroshiro128p.h).
#include "runtime/xoroshiro128p.h"

namespace gpujit::rt {

namespace {

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void step(uint64_t& s0, uint64_t& s1) {
  uint64_t t = s1 ^ s0;
  s0 = rotl(s0, 55) ^ t ^ (t << 14);
  s1 = rotl(t, 36);
}

/// Advances (s0, s1) by 2**64 steps: the jump polynomial of xoroshiro128+.
void jump(uint64_t& s0, uint64_t& s1) {
  static constexpr uint64_t kJump[2] = {0xBEAC0467EBA5FACBull, 0xD86B048B86AA9922ull};
  uint64_t j0 = 0, j1 = 0;
  for (uint64_t word : kJump) {
    for (int b = 0; b < 64; ++b) {
      if (word & (uint64_t{1} << b)) {
        j0 ^= s0;
        j1 ^= s1;
      }
      step(s0, s1);
    }
  }
  s0 = j0;
  s1 = j1;
}

}  // namespace

void init_xoroshiro128p_states(uint64_t* states, size_t n, uint64_t seed, uint64_t subsequence_start) {
  if (n == 0) return;
  // SplitMix64 of the seed, so that small seeds do not start predictable sequences.
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z = z ^ (z >> 31);
  uint64_t s0 = z, s1 = z;
  for (uint64_t i = 0; i < subsequence_start; ++i) jump(s0, s1);
  states[0] = s0;
  states[1] = s1;
  for (size_t i = 1; i < n; ++i) {
    jump(s0, s1);
    states[2 * i] = s0;
    states[2 * i + 1] = s1;
  }
}

}  // namespace gpujit::rt
