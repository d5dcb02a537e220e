"""Estimates pi by throwing random points at the unit square, one xoroshiro128+ stream per thread.

A numba-cuda program as its users write it: run it unchanged on gpujit with `python -m gpujit run
examples/numba_programs/monte_carlo_pi.py` (on the GPU when there is one, on the CPU backend otherwise).
"""

import math

import numpy as np
from numba import cuda, float32, int64
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

THREADS_PER_BLOCK = 128
BLOCKS = 32
SAMPLES_PER_THREAD = 256


@cuda.jit
def count_hits(rng_states, samples, hits):
    # Each block sums its threads' hits in shared memory, then adds the sum to the total with one atomic.
    block_hits = cuda.shared.array(1, dtype=int64)
    if cuda.threadIdx.x == 0:
        block_hits[0] = 0
    cuda.syncthreads()

    tid = cuda.grid(1)
    inside = 0
    for _ in range(samples):
        x = xoroshiro128p_uniform_float32(rng_states, tid)
        y = xoroshiro128p_uniform_float32(rng_states, tid)
        if x * x + y * y <= float32(1.0):
            inside += 1
    cuda.atomic.add(block_hits, 0, inside)
    cuda.syncthreads()

    if cuda.threadIdx.x == 0:
        cuda.atomic.add(hits, 0, block_hits[0])


def main():
    threads = THREADS_PER_BLOCK * BLOCKS
    rng_states = create_xoroshiro128p_states(threads, seed=2026)
    hits = cuda.to_device(np.zeros(1, dtype=np.int64))
    count_hits[BLOCKS, THREADS_PER_BLOCK](rng_states, SAMPLES_PER_THREAD, hits)
    total = threads * SAMPLES_PER_THREAD
    estimate = 4.0 * hits.copy_to_host()[0] / total
    # The estimate's standard error is about 1.64 / sqrt(total), 0.0016 here: 0.01 is over six of them.
    assert abs(estimate - math.pi) < 0.01, estimate
    print(f"pi is about {estimate:.4f} from {total} samples")
    print("OK")


if __name__ == "__main__":
    main()
