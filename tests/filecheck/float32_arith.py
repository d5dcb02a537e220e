# A float32 kernel computes in float32 only: float32 arguments and array elements stay float32, and an int
# literal mixed with float32 stays float32 (numba's literal rule), so no f64 instruction or conversion appears.
# RUN: %gpujit ptx %s --sig 'void(float32, float32[::1], float32[::1], float32[::1])' --emit llvm \
# RUN:   | FileCheck %s --check-prefix=LLVM
# RUN: %gpujit ptx %s --sig 'void(float32, float32[::1], float32[::1], float32[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
import gpujit as gpu


@gpu.jit
def saxpy2(a, x, y, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i] * 2 - 1

# LLVM-LABEL: define {{.*}}saxpy2
# LLVM-NOT: {{double|fpext|fptrunc}}
# LLVM: fmul float
# LLVM-NOT: {{double|fpext|fptrunc}}
# LLVM: ret void

# PTX: .visible .entry {{.*}}saxpy2
# PTX-NOT: .f64
# PTX: .f32
# PTX-NOT: .f64
# PTX: ret;
