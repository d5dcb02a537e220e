# bfloat16 on sm_90 uses the native bf16 instructions: arithmetic stays in b16 registers (add.bf16, mul.bf16,
# fma.rn.bf16, setp.*.bf16), float32 rounds with cvt.rn.bf16.f32, float64 with cvt.rn.bf16.f64 (one rounding)
# and a bfloat16 widens with cvt.f32.bf16. Below sm_80 bfloat16 is an error, as numba-cuda's
# is_bfloat16_supported says.
# RUN: %gpujit ptx %s -k arith --sig 'void(float32[::1], float64[::1], float32[::1])' --arch sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=SM90 < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k arith --sig 'void(float32[::1], float64[::1], float32[::1])' --arch sm_80 -o %t.80.ptx
# RUN: %ptxas-all %t.80.ptx
# RUN: not %gpujit ptx %s -k arith --sig 'void(float32[::1], float64[::1], float32[::1])' --arch sm_75 2>&1 | FileCheck %s --check-prefix=SM75
import math

import gpujit as gpu
from gpujit.bf16 import bfloat16, hfma


@gpu.jit
def arith(x, d, out):
    i = gpu.grid(1)
    if i < out.size:
        a = bfloat16(x[i])
        b = bfloat16(d[i])
        c = a + b
        if c > a:
            c = hfma(a, b, c)
        out[i] = gpu.float32(c * b)

# SM90: .visible .entry {{.*}}arith
# SM90-DAG: cvt.rn.bf16.f32
# SM90-DAG: cvt.rn.bf16.f64
# SM90-DAG: add{{(\.rn)?}}.bf16
# SM90-DAG: setp.{{.*}}bf16
# SM90-DAG: fma.rn.bf16
# SM90-DAG: mul{{(\.rn)?}}.bf16
# SM90-DAG: cvt.f32.bf16
# SM75: error: bfloat16 needs a GPU of compute capability 8.0 or newer (sm_80); this kernel is compiled for sm_75
