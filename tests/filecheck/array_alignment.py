# shared.array and local.array take numba-cuda's alignment=N: N a constant power of two, the array's base
# aligned to at least N bytes (`.align N` on its `.shared` symbol; the `.local` depot takes the largest
# alignment of its arrays). Without alignment= an array keeps the default of 16; an alignment below the
# default keeps the default. The dynamic shared symbol takes the largest alignment any of its arrays asks.
# A non-constant, non-power-of-two or too large alignment is an error pointing at the argument.
# RUN: %gpujit ptx %s -k aligned_shared --sig 'void(float64[::1])' --arch sm_75 -o %t.shared.ptx
# RUN: FileCheck %s --check-prefix=SHARED < %t.shared.ptx
# RUN: %ptxas-all %t.shared.ptx
# RUN: %gpujit ptx %s -k aligned_dynamic --sig 'void(float32[::1])' --arch sm_75 -o %t.dyn.ptx
# RUN: FileCheck %s --check-prefix=DYN < %t.dyn.ptx
# RUN: %ptxas-all %t.dyn.ptx
# RUN: %gpujit ptx %s -k aligned_local --sig 'void(float64[::1], int64)' --arch sm_75 -o %t.local.ptx
# RUN: FileCheck %s --check-prefix=LOCAL < %t.local.ptx
# RUN: %ptxas-all %t.local.ptx
# RUN: %gpujit ptx %s -k aligned_shared --sig 'void(float64[::1])' --emit typed | FileCheck %s --check-prefix=TYPED
# RUN: not %gpujit ptx %s -k not_constant --sig 'void(float32[::1], int64)' 2>&1 | FileCheck %s --check-prefix=ERRCONST
# RUN: not %gpujit ptx %s -k not_power --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERRPOW
# RUN: not %gpujit ptx %s -k not_integer --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERRINT
# RUN: not %gpujit ptx %s -k too_large --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERRBIG
import numpy as np

import gpujit as cuda

ALIGN = 128


@cuda.jit
def aligned_shared(out):
    small = cuda.shared.array(3, np.uint8)
    wide = cuda.shared.array(32, np.float64, alignment=256)
    named = cuda.shared.array(shape=(2, 4), dtype=np.float32, alignment=ALIGN)
    low = cuda.shared.array(5, np.int16, alignment=4)
    default = cuda.shared.array(7, np.int32, alignment=None)
    t = cuda.threadIdx.x
    small[t % 3] = t
    wide[t] = t
    named[t % 2, t % 4] = t
    low[t % 5] = t
    default[t % 7] = t
    cuda.syncthreads()
    out[t] = small[0] + wide[t] + named[1, 3] + low[4] + default[6]


@cuda.jit
def aligned_dynamic(out):
    a = cuda.shared.array(0, np.float32, alignment=64)
    b = cuda.shared.array(0, np.float64, 512)
    t = cuda.threadIdx.x
    a[t] = out[t]
    cuda.syncthreads()
    out[t] = b[t] + len(a)


@cuda.jit
def aligned_local(out, k):
    acc = cuda.local.array(16, np.float64, alignment=64)
    for j in range(16):
        acc[j] = j * 0.5
    out[cuda.grid(1)] = acc[k % 16]


@cuda.jit
def not_constant(out, n):
    a = cuda.shared.array(4, np.float32, alignment=n)
    out[0] = a[0]


@cuda.jit
def not_power(out):
    a = cuda.local.array(4, np.float32, alignment=24)
    out[0] = a[0]


@cuda.jit
def not_integer(out):
    a = cuda.shared.array(4, np.float32, alignment=16.0)
    out[0] = a[0]


@cuda.jit
def too_large(out):
    a = cuda.shared.array(4, np.float32, alignment=4096)
    out[0] = a[0]

# SHARED-DAG: .shared .align 16 .b8 {{.*}}[3];
# SHARED-DAG: .shared .align 256 .b8 {{.*}}[256];
# SHARED-DAG: .shared .align 128 .b8 {{.*}}[32];
# SHARED-DAG: .shared .align 16 .b8 {{.*}}[10];
# SHARED-DAG: .shared .align 16 .b8 {{.*}}[28];
# SHARED: bar.sync 0;

# DYN: .extern .shared .align 512 .b8 gpujit_dynamic_shared[];
# DYN: %dynamic_smem_size

# LOCAL: .local .align 64 .b8 __local_depot0[128];

# TYPED: small:uint8[::1] = cuda.shared.array<cuda.shared.array>(3:int64, np.uint8) shape=(3):uint8[::1]
# TYPED: wide:float64[::1] = cuda.shared.array<cuda.shared.array>(32:int64, np.float64, alignment=256:int64) shape=(32) align=256:float64[::1]
# TYPED: named:float32[:, ::1] = cuda.shared.array<cuda.shared.array>(shape=(2:int64, 4:int64):UniTuple(int64, 2)=(2, 4), dtype=np.float32, alignment=ALIGN:int64=128) shape=(2, 4) align=128:float32[:, ::1]
# TYPED: low:int16[::1] = cuda.shared.array<cuda.shared.array>(5:int64, np.int16, alignment=4:int64) shape=(5) align=4:int16[::1]
# TYPED: default:int32[::1] = cuda.shared.array<cuda.shared.array>(7:int64, np.int32, alignment=None:none) shape=(7):int32[::1]

# ERRCONST: array_alignment.py:64:52: error: shared.array alignment must be a compile-time constant; 'n' is an argument
# ERRPOW: array_alignment.py:70:51: error: local.array alignment must be a power of two (a constant integer such as 16), got 24
# ERRINT: array_alignment.py:76:52: error: shared.array alignment must be a power of two (a constant integer such as 16), got 16.0
# ERRBIG: array_alignment.py:82:52: error: shared.array alignment must be at most 1024 bytes, got 4096
