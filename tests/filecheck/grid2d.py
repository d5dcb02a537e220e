# gpu.grid(2) reads the x and y special registers, and a 2-D array is passed as data pointer, two shapes and
# two strides (DESIGN.md's array ABI): three 2-D arrays are 15 parameters.
# RUN: %gpujit ptx %s --sig 'void(float32[:, ::1], float32[:, ::1], float32[:, ::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s --sig 'void(float32[:, :], float32[:, :], float32[:, :])' --arch sm_75 -o %t.any.ptx
# RUN: FileCheck %s < %t.any.ptx
# RUN: %ptxas-all %t.any.ptx
import gpujit as gpu


@gpu.jit
def add2d(a, b, out):
    x, y = gpu.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = a[x, y] + b[x, y]

# CHECK: .visible .entry {{.*}}add2d
# CHECK: _param_14
# CHECK-NOT: _param_15
# CHECK-DAG: %ctaid.x;
# CHECK-DAG: %ctaid.y;
# CHECK-DAG: %ntid.x;
# CHECK-DAG: %ntid.y;
# CHECK-DAG: %tid.x;
# CHECK-DAG: %tid.y;
# CHECK-NOT: %tid.z
# CHECK: add{{(\.rn)?}}.f32
