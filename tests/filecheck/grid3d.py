# gpu.grid(3) reads all three axes of the special registers, z included.
# RUN: %gpujit ptx %s --sig 'void(int32[:, :, ::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s --sig 'void(int32[:, :, ::1])' --emit llvm | FileCheck %s --check-prefix=LLVM
import gpujit as gpu


@gpu.jit
def fill3d(out):
    x, y, z = gpu.grid(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = x * 10000 + y * 100 + z

# CHECK: .visible .entry {{.*}}fill3d
# CHECK-DAG: %ctaid.z;
# CHECK-DAG: %ntid.z;
# CHECK-DAG: %tid.z;
# CHECK-DAG: %ctaid.y;
# CHECK-DAG: %tid.x;
# CHECK: st.global{{.*}}.{{u|b|s}}32

# LLVM-LABEL: define {{.*}}fill3d
# LLVM-DAG: @llvm.nvvm.read.ptx.sreg.tid.z()
# LLVM-DAG: @llvm.nvvm.read.ptx.sreg.ntid.z()
# LLVM-DAG: @llvm.nvvm.read.ptx.sreg.ctaid.z()
