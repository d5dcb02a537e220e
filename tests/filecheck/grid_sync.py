# cg.this_grid().sync() is a grid barrier of our own: block barriers around thread 0's arrival on a counter
# in global memory (an atomic add) and its wait for the counter's top bit to flip, with device-scope fences.
# RUN: %gpujit ptx %s --sig 'void(int64[::1], int64[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
import gpujit as gpu


@gpu.jit
def rotate(a, out):
    g = gpu.cg.this_grid()
    i = gpu.grid(1)
    a[i] = i
    status = g.sync()
    out[i] = a[(i + 1) % a.size] + status

# CHECK: .global .align 4 .u32 gpujit_grid_barrier;
# CHECK: .visible .entry {{.*}}rotate
# CHECK: bar.sync 0;
# CHECK: membar.gl;
# CHECK: atom.{{.*}}global.add.u32 {{.*}}[gpujit_grid_barrier]
# CHECK: ld.{{.*}}global{{.*}}[gpujit_grid_barrier]
# CHECK: membar.gl;
# CHECK: bar.sync 0;
