# A float32 kernel computes in float32 only when its constants are float32 too: float32 arguments, array
# elements and gpu.float32(...) constants stay float32, so no f64 instruction or conversion appears. (A plain
# 2 or 0.5 is int64/float64 and makes the arithmetic float64, as in numba; tests/filecheck/float64_warning.py.)
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
        out[i] = a * x[i] + y[i] * gpu.float32(2) - gpu.float32(1)

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
