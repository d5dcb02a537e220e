# fastmath=True on float32 math functions, as numba-cuda: libdevice's fast variants, which are PTX's
# approximate instructions, and tanh.approx.f32 for tanh (PTX ISA 7.0: sm_80 and newer here; sm_75 keeps
# libdevice's tanhf). Without it, the precise libdevice functions.
# RUN: %gpujit ptx %s -k trig --sig 'void(float32[::1], float32[::1])' --arch sm_80 --fastmath -o %t.fast.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.fast.ptx
# RUN: %ptxas-all %t.fast.ptx
# RUN: %gpujit ptx %s -k trig --sig 'void(float32[::1], float32[::1])' --arch sm_75 --fastmath -o %t.sm75.ptx
# RUN: FileCheck %s --check-prefix=SM75 < %t.sm75.ptx
# RUN: %ptxas-all %t.sm75.ptx
# RUN: %gpujit ptx %s -k trig --sig 'void(float32[::1], float32[::1])' --arch sm_75 -o %t.precise.ptx
# RUN: FileCheck %s --check-prefix=PRECISE < %t.precise.ptx
# RUN: %ptxas-all %t.precise.ptx
# RUN: %gpujit ptx %s -k trig --sig 'void(float64[::1], float64[::1])' --arch sm_80 --fastmath -o %t.f64.ptx
# RUN: FileCheck %s --check-prefix=F64 < %t.f64.ptx
# RUN: %ptxas-all %t.f64.ptx
import math

import gpujit as gpu


@gpu.jit
def trig(x, out):
    i = gpu.grid(1)
    if i < out.size:
        v = x[i]
        out[i] = math.sin(v) + math.cos(v) + math.log2(v) + math.tanh(v) + math.pow(v, v) / v

# FAST-DAG: sin.approx.ftz.f32
# FAST-DAG: cos.approx.ftz.f32
# FAST-DAG: lg2.approx.ftz.f32
# FAST-DAG: tanh.approx.f32
# FAST-DAG: div.approx.ftz.f32

# SM75-NOT: tanh.approx
# SM75: sin.approx.ftz.f32
# SM75-NOT: tanh.approx

# PRECISE-NOT: sin.approx
# PRECISE-NOT: tanh.approx
# PRECISE: div.rn.f32
# PRECISE-NOT: sin.approx
# PRECISE-NOT: tanh.approx

# F64-NOT: {{sin|cos|tanh}}.approx
