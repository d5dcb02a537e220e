# Python's negative-index wrap (a[i] with i < 0 reads a[i + n]) is left out of an index that analysis finds
# never negative (ir/index_signs.h): a thread's grid index, a range() loop counter, sums and products of such.
# Any other signed index keeps it: a compare with zero and a select. Unoptimized LLVM IR shows what lowering
# emitted, before LLVM removes what it can prove itself.
# RUN: %gpujit ptx %s -k shift --sig 'float32[::1], float32[::1], int64' --index32 --emit llvm -O0 \
# RUN:   | FileCheck %s --check-prefix=SHIFT
# RUN: %gpujit ptx %s -k tiles --sig 'float32[:, ::1], float32[::1]' --index32 --emit llvm -O0 \
# RUN:   | FileCheck %s --check-prefix=TILES
# RUN: %gpujit ptx %s -k tiles --sig 'float32[:, ::1], float32[::1]' --index32 --arch sm_90 -o %t.ptx
# RUN: %ptxas-all %t.ptx
import gpujit as cuda


@cuda.jit
def shift(a, out, k):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] + a[i - k]

# The load of a[i] comes without a wrap; a[i - k] has one; the store to out[i] none.
# SHIFT-LABEL: define ptx_kernel
# SHIFT: [[I:%[0-9a-z.]+]] = trunc i64 %{{.*}} to i32
# SHIFT-NEXT: sext i32 [[I]] to i64
# SHIFT-NEXT: getelementptr
# SHIFT-NEXT: load float
# SHIFT: sub {{(nsw )?}}i64
# SHIFT: icmp slt i32 %{{.*}}, 0
# SHIFT: select i1
# SHIFT: load float
# SHIFT-NOT: icmp slt i32 %{{.*}}, 0
# SHIFT: store float


@cuda.jit
def tiles(a, out):
    row = cuda.blockIdx.x
    acc = 0.0
    for t in range(a.shape[1] // 32):
        acc += a[row, t * 32 + cuda.threadIdx.x]
    out[row] = acc

# No index of this kernel can be negative: no 32-bit compare with zero at all (the floor division's own
# sign tests are 64-bit).
# TILES-LABEL: define ptx_kernel
# TILES-NOT: icmp slt i32
# TILES: ret void
