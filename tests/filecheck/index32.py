# Index arithmetic. An array that spans under 2 GiB (--index32, what a launch from Python chooses for such
# arrays) passes its shapes and strides as 32-bit parameters and is indexed in 32-bit arithmetic, as CUDA C
# indexed with `int` is: one mad.lo.s32 and one widening multiply per address. Any other array keeps 64-bit
# math, but its extents carry a range (below 2**62) that lets LLVM prove a grid-stride index non-negative,
# so `data[i]` has no negative-index wrap. Shared arrays are always indexed in 32 bits.
# RUN: %gpujit ptx %s -k transpose --sig 'float32[:, ::1], float32[:, ::1]' --index32 --arch sm_90 -o %t32.ptx
# RUN: FileCheck %s --check-prefix=T32 < %t32.ptx
# RUN: %ptxas-all %t32.ptx
# RUN: %gpujit ptx %s -k transpose --sig 'float32[:, ::1], float32[:, ::1]' --arch sm_90 -o %t64.ptx
# RUN: FileCheck %s --check-prefix=T64 < %t64.ptx
# RUN: %ptxas-all %t64.ptx
# RUN: %gpujit ptx %s -k strided --sig 'float32[:, :], float32[:, :]' --index32 --emit llvm \
# RUN:   | FileCheck %s --check-prefix=STRIDED
# RUN: %gpujit ptx %s -k histogram --sig 'int32[::1], int32[::1]' --emit llvm \
# RUN:   | FileCheck %s --check-prefix=HIST
# RUN: %gpujit ptx %s -k histogram --sig 'int32[::1], int32[::1]' --index32 --arch sm_90 -o %th.ptx
# RUN: %ptxas-all %th.ptx
import gpujit as cuda
import numpy as np

TILE = 32


@cuda.jit
def transpose(a, out):
    tile = cuda.shared.array((TILE, TILE + 1), np.float32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    if y < a.shape[0] and x < a.shape[1]:
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]

# T32: .entry {{.*}}transpose
# T32: .param .u32 {{.*}}_param_1,
# T32: .param .u32 {{.*}}_param_2,
# T32: mad.lo.s32 [[OFF:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
# T32: mul.wide.{{[su]}}32 {{%rd[0-9]+}}, [[OFF]], 4;
# T32: ld.global.b32
# T32-NOT: mul.lo.s64
# T32-NOT: mad.lo.s64
# T32: st.global.b32

# T64: .entry {{.*}}transpose
# T64: .param .u64 {{.*}}_param_1,
# The shared tile is indexed in 32 bits even here.
# T64: mad.lo.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 33,
# T64: mul.lo.s64

@cuda.jit
def strided(a, out):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        out[x, y] = a[x, y]

# STRIDED: define ptx_kernel void @{{.*}}(ptr {{.*}}%a{{[0-9]*}}, i32 range(i32 0, -2147483648) %a.shape0, i32 range(i32 0, -2147483648) %a.shape1, i32 %a.stride0, i32 %a.stride1,
# STRIDED: mul nsw i32 {{.*}}%a.stride0
# STRIDED: mul nsw i32 {{.*}}%a.stride1


@cuda.jit
def histogram(data, bins):
    local = cuda.shared.array(256, np.int32)
    t = cuda.threadIdx.x
    local[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < data.size:
        cuda.atomic.add(local, data[i], 1)
        i += stride
    cuda.syncthreads()
    cuda.atomic.add(bins, t, local[t])

# HIST: define ptx_kernel void @{{.*}}(ptr {{.*}}%data{{[0-9]*}}, i64 range(i64 0, 4611686018427387904) %data.shape0,
# The grid-stride index is proven non-negative: data[i] loads without a wrap; the bin index (a value read
# from memory) keeps it, in 32 bits.
# HIST: while.body:
# HIST-NEXT: %i.{{[0-9]+}} = phi i64
# HIST-NEXT: getelementptr inbounds nuw i32, ptr %data{{[0-9]*}}, i64 %i.
# HIST-NEXT: load i32
# HIST: atomicrmw add ptr
# HIST: add nuw nsw i64 %i.
