"""A script mixing kernels and host code, as the CLI meets them."""
import math
import numpy as np
from numba import cuda, float32 as f32
from numba.cuda import (
    grid,
    syncthreads,
)

TPB = 16
SCALE: float = 0.5
SHAPE = 4, 4
NAMES = ["a", "b"]
COUNTS = {name: 0 for name in NAMES}


class Trainer:
    def step(self):
        return [x * 2 for x in range(3)]


@cuda.jit(device=True)
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit
def scale(a):
    i = grid(1)
    if i < a.size:
        a[i] = clamp(a[i] * SCALE, 0.0, 1.0)
    syncthreads()


def host_helper(values):
    return sum(v for v in values)


if __name__ == "__main__":
    data = np.arange(TPB, dtype=np.float32)
    scale[1, TPB](data)
    print(f"done: {data}")
