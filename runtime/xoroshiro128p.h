// The initial states of gpu.random's xoroshiro128+ generators, made on the host as numba.cuda.random's
// create_xoroshiro128p_states() makes them, so that a kernel draws numba's sequences.
//
// Generator 0 starts from SplitMix64 of the seed (both words the same value), is advanced by
// subsequence_start jumps of 2**64 steps, and generator i is generator i - 1 jumped once more: the n
// generators walk disjoint stretches of one sequence. The jump is sequential (each state comes from the
// previous), 128 steps of the generator per state.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpujit::rt {

/// Fills `states` (2 * n words: s0, s1 of generator 0, then of generator 1, ...).
void init_xoroshiro128p_states(uint64_t* states, size_t n, uint64_t seed, uint64_t subsequence_start);

}  // namespace gpujit::rt
