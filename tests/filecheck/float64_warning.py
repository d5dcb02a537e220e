# A float constant next to a float32 value computes in float64, as numba (and C) type it, and the compiler
# says so once, at the first such operation, with the fix. The PTX is still written (exit 0) and does the
# multiplication in f64. A kernel with a float64 array gets no warning: float64 is what it asks for.
# RUN: %gpujit ptx %s --kernel scale --sig 'void(float32[::1])' -o %t.ptx 2> %t.err
# RUN: FileCheck %s --check-prefix=WARN --strict-whitespace < %t.err
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s --kernel scale --sig 'void(float64[::1])' -o %t64.ptx 2> %t64.err
# RUN: test ! -s %t64.err
import gpujit as gpu


@gpu.jit
def scale(x):
    i = gpu.grid(1)
    if i < x.size:
        x[i] = x[i] * 0.1 + 2.5
# WARN: float64_warning.py:[[@LINE-1]]:21: warning: float64 arithmetic in a float32 kernel: the float64 constant 0.1 makes this compute in float64, as numba types it; write np.float32(0.1) to stay in float32, or pass warn_float64=False to jit()
# WARN-NEXT: {{^}}        x[i] = x[i] * 0.1 + 2.5{{$}}
# WARN-NEXT: {{^                    \^$}}
# WARN-NOT: warning

# PTX: .visible .entry {{.*}}scale
# PTX: cvt.f64.f32
# PTX: {{mul|fma}}.rn.f64
# PTX: cvt.rn.f32.f64
