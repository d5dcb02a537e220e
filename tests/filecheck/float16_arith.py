# float16 arrays load and store 16-bit values; float16 arithmetic stays in f16 (sm_53+ instructions), a
# float16 mixed with float32 widens with cvt.f32.f16, and a float32 result stored into float16 rounds with
# cvt.rn.f16.f32.
# RUN: %gpujit ptx %s -k axpy --sig 'void(float16[::1], float16[::1], float16[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=HALF < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k mixed --sig 'void(float16[::1], float32[::1], float16[::1])' --arch sm_75 -o %t.mixed.ptx
# RUN: FileCheck %s --check-prefix=MIXED < %t.mixed.ptx
# RUN: %ptxas-all %t.mixed.ptx
import gpujit as gpu


@gpu.jit
def axpy(x, y, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = x[i] * y[i] + x[i] - y[i] * 0.5

# HALF: .visible .entry {{.*}}axpy
# HALF: ld.global.{{.*}}b16
# HALF: {{fma.rn|mul.rn}}.f16
# HALF: st.global.b16
# HALF-NOT: .f32


@gpu.jit
def mixed(x, y, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]

# MIXED: .visible .entry {{.*}}mixed
# MIXED: cvt.f32.f16
# MIXED: add.{{(rn.)?}}f32
# MIXED: cvt.rn.f16.f32
