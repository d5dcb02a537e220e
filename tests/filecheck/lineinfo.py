# Line information (--lineinfo, or lineinfo=True on the decorator): `.loc FILE LINE COLUMN` before the
# instructions of each statement, device functions inlined with their own lines, and one `.file` naming this
# .py file; line tables only (no .debug_info), as nvcc -lineinfo, and ptxas still assembles the PTX. Without
# the option there are no line directives at all.
# RUN: %gpujit ptx %s -k saxpy --sig 'float32, float32[::1], float32[::1], float32[::1]' --lineinfo --arch sm_75 \
# RUN:   -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k saxpy --sig 'float32, float32[::1], float32[::1], float32[::1]' --arch sm_75 \
# RUN:   | FileCheck %s --check-prefix=NOLINES
# RUN: %gpujit ptx %s -k decorated --sig 'float64[::1]' --arch sm_90 -o %t.decorated.ptx
# RUN: FileCheck %s --check-prefix=DECORATOR < %t.decorated.ptx
# RUN: %ptxas-all %t.decorated.ptx
import gpujit as gpu


@gpu.jit(device=True)
def clamp(x):
    return min(max(x, 0.0), 1.0)


@gpu.jit
def saxpy(a, x, y, out):
    i = gpu.grid(1)                      # CHECK: .loc [[F:[0-9]+]] [[@LINE]] 5
    if i < out.size:                     # CHECK: .loc [[F]] [[@LINE]] 5
        out[i] = clamp(a * x[i] + y[i])  # CHECK: .loc [[F]] [[@LINE]] 9
# The inlined device function's statement keeps its line.
# CHECK: .loc [[F]] [[@LINE-9]] 5
# CHECK-NOT: .section .debug_info
# CHECK: .file [[F]] "{{.*}}/lineinfo.py"

# NOLINES-NOT: .loc
# NOLINES-NOT: .file


@gpu.jit(lineinfo=True)
def decorated(a):
    i = gpu.grid(1)
    for k in range(4):
        a[i] += k                        # DECORATOR: .loc [[F:[0-9]+]] [[@LINE]] 9
# DECORATOR: .file [[F]] "{{.*}}/lineinfo.py"
