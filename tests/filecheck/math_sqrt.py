# math.sqrt on float32 is a single IEEE-rounded float32 square root (sqrt.rn.f32, as libdevice's __nv_sqrtf
# gives), not a float64 one; with --fastmath, or @jit(fastmath=True), it becomes the approximate sqrt.approx.
# RUN: %gpujit ptx %s -k root --sig 'void(float32[::1], float32[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k root --sig 'void(float32[::1], float32[::1])' --arch sm_75 --fastmath -o %t.fast.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.fast.ptx
# RUN: %ptxas-all %t.fast.ptx
# RUN: %gpujit ptx %s -k fast_root --sig 'void(float32[::1], float32[::1])' --arch sm_75 -o %t.decorated.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.decorated.ptx
# RUN: %ptxas-all %t.decorated.ptx
import math

import gpujit as gpu


@gpu.jit
def root(x, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = math.sqrt(x[i])


@gpu.jit(fastmath=True)
def fast_root(x, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = math.sqrt(x[i])

# PTX: .visible .entry {{.*}}root
# PTX-NOT: .f64
# PTX: sqrt.rn.f32
# PTX-NOT: .f64

# FAST: .visible .entry {{.*}}root
# FAST-NOT: sqrt.rn
# FAST: sqrt.approx{{.*}}.f32
