# gpu.grid(1) is blockIdx.x * blockDim.x + threadIdx.x: it reads %ctaid.x, %ntid.x and %tid.x, and a float32
# vector add adds in float32.
# RUN: %gpujit ptx %s --sig 'void(float32[::1], float32[::1], float32[::1])' --emit llvm \
# RUN:   | FileCheck %s --check-prefix=LLVM
# RUN: %gpujit ptx %s --sig 'void(float32[::1], float32[::1], float32[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
import gpujit as gpu


@gpu.jit
def vadd(a, b, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

# LLVM-LABEL: define {{.*}}vadd
# LLVM-DAG: call {{.*}}@llvm.nvvm.read.ptx.sreg.ctaid.x()
# LLVM-DAG: call {{.*}}@llvm.nvvm.read.ptx.sreg.ntid.x()
# LLVM-DAG: call {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x()
# LLVM: fadd float
# LLVM: ret void

# PTX: .target sm_75
# PTX: .visible .entry {{.*}}vadd
# PTX-DAG: %ctaid.x;
# PTX-DAG: %ntid.x;
# PTX-DAG: %tid.x;
# PTX: add{{(\.rn)?}}.f32
# PTX: ret;
