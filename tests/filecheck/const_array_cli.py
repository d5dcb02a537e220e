# const.array_like needs a NumPy array captured from Python; the CLI reads no module-level arrays, so it says
# so where the kernel uses one, naming the global (the PTX of constant arrays is checked from Python, in
# tests/python/test_kernel_language.py, and in tests/unit/codegen). Writing into a constant array is an
# error in any path.
# RUN: not %gpujit ptx %s -k smooth --sig 'void(float32[::1])' 2>&1 | FileCheck %s
import numpy as np

import gpujit as cuda

WEIGHTS = np.array([0.25, 0.5, 0.25], dtype=np.float32)


@cuda.jit
def smooth(out):
    w = cuda.const.array_like(WEIGHTS)
    out[0] = w[0]

# CHECK: error: global 'WEIGHTS' cannot be used in a kernel: its value is outside the kernel language (the gpujit CLI reads module-level numbers, tuples, dtypes and modules; global NumPy arrays for const.array_like are captured only when the kernel is compiled from Python)
