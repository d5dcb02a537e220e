# Shared, dynamic shared and local arrays: every constant shape form (a literal, a module constant, a tuple
# of them, 1 to 3 dimensions) and several dtypes each get a `.shared` array of their own size; shape 0 is the
# block's dynamic shared memory, one `.extern .shared` symbol every such array starts at, sized by
# %dynamic_smem_size; local.array is per-thread `.local` memory.
# RUN: %gpujit ptx %s -k static_shapes --sig 'void(float32[::1], int64[::1])' --arch sm_75 -o %t.static.ptx
# RUN: FileCheck %s --check-prefix=STATIC < %t.static.ptx
# RUN: %ptxas-all %t.static.ptx
# RUN: %gpujit ptx %s -k dynamic --sig 'void(float32[::1], int32[::1])' --arch sm_75 -o %t.dyn.ptx
# RUN: FileCheck %s --check-prefix=DYN < %t.dyn.ptx
# RUN: %ptxas-all %t.dyn.ptx
# RUN: %gpujit ptx %s -k per_thread --sig 'void(float64[::1], int64)' --arch sm_75 -o %t.local.ptx
# RUN: FileCheck %s --check-prefix=LOCAL < %t.local.ptx
# RUN: %ptxas-all %t.local.ptx
# RUN: not %gpujit ptx %s -k bad_shape --sig 'void(float32[::1], int64)' 2>&1 | FileCheck %s --check-prefix=ERR
# RUN: not %gpujit ptx %s -k bad_local --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERRLOCAL
import numpy as np

import gpujit as cuda
from gpujit import float64, int16

N = 32
SHAPE = (4, N)


@cuda.jit
def static_shapes(out, counts):
    a = cuda.shared.array(N, np.float32)
    b = cuda.shared.array(SHAPE, dtype=float64)
    c = cuda.shared.array((2, 3, N), int16)
    d = cuda.shared.array(shape=(N, N + 1), dtype=cuda.uint8)
    t = cuda.threadIdx.x
    a[t] = t
    b[t % 4, t] = 2.0 * t
    c[1, 2, t] = t
    d[t, t + 1] = 1
    cuda.syncthreads()
    out[t] = a[N - 1 - t] + b[0, t] + c[1, 2, t] + d[t, t + 1]
    counts[0] = len(a) + b.size + c.shape[2]


@cuda.jit
def dynamic(out, bits):
    f = cuda.shared.array(0, np.float32)
    i = cuda.shared.array(shape=0, dtype=np.int32)
    t = cuda.threadIdx.x
    f[t] = out[t]
    cuda.syncthreads()
    bits[t] = i[t]
    if t == 0:
        bits[len(bits) - 1] = len(i)


@cuda.jit
def per_thread(out, k):
    acc = cuda.local.array(16, np.float64)
    grid = cuda.local.array((2, 8), float64)
    for j in range(16):
        acc[j] = j * 0.5
        grid[j // 8, j % 8] = acc[j]
    out[cuda.grid(1)] = acc[k % 16] + grid[1, k % 8]


@cuda.jit
def bad_shape(out, n):
    a = cuda.shared.array(n, np.float32)
    out[0] = a[0]


@cuda.jit
def bad_local(out):
    a = cuda.local.array(0, np.float32)
    out[0] = a[0]

# Four static arrays, each its size: 32 float32, 4x32 float64, 2x3x32 int16, 32x33 uint8. (LLVM declares a
# shared array one function uses inside that function.)
# STATIC-DAG: .shared .align 16 .b8 {{.*}}[128];
# STATIC-DAG: .shared .align 16 .b8 {{.*}}[1024];
# STATIC-DAG: .shared .align 16 .b8 {{.*}}[384];
# STATIC-DAG: .shared .align 16 .b8 {{.*}}[1056];
# STATIC: st.shared.b32
# STATIC: st.shared.b64
# STATIC: st.shared.b16
# STATIC: st.shared.b8
# STATIC: bar.sync 0;
# len(a) + b.size + c.shape[2] folds to 32 + 128 + 32.
# STATIC: st.global.b64 [{{%rd[0-9]+}}], 192;

# Both dynamic arrays are the one extern symbol; their extent is %dynamic_smem_size / itemsize.
# DYN: .extern .shared .align 16 .b8 gpujit_dynamic_shared[];
# DYN-NOT: .shared .align 16 .b8 shared
# DYN: mov.b64 [[BASE:%rd[0-9]+]], gpujit_dynamic_shared;
# DYN: st.shared.b32
# DYN: ld.shared.b32
# DYN: %dynamic_smem_size

# LOCAL: .local .align {{(8|16)}} .b8 __local_depot0[256];
# LOCAL: st.local
# LOCAL: ld.local.b64

# ERR: error: shared.array shape must be a compile-time constant; 'n' is an argument
# ERRLOCAL: error: local.array shape must be positive, got 0
