# gpu.assume_aligned(ary, 16) (a gpujit extension) promises that ary's data starts at a multiple of 16 bytes:
# four neighbouring float32 loads at an index that is a multiple of 4 become one ld.global.v4; without the
# promise they stay four scalar loads. The promise is an llvm.assume, so it costs no instruction.
# RUN: %gpujit ptx %s -k aligned --sig 'void(float32[::1], float32[::1])' --arch sm_80 -o %t.aligned.ptx
# RUN: FileCheck %s --check-prefix=ALIGNED < %t.aligned.ptx
# RUN: %ptxas-all %t.aligned.ptx
# RUN: %gpujit ptx %s -k plain --sig 'void(float32[::1], float32[::1])' --arch sm_80 -o %t.plain.ptx
# RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.ptx
# RUN: %gpujit ptx %s -k aligned --sig 'void(float32[::1], float32[::1])' --emit llvm | FileCheck %s --check-prefix=IR
import numpy as np
import gpujit as gpu


@gpu.jit
def aligned(x, out):
    gpu.assume_aligned(x, 16)
    i = np.uint64(gpu.grid(1)) * np.uint64(4)
    out[gpu.grid(1)] = x[i] + x[i + np.uint64(1)] + x[i + np.uint64(2)] + x[i + np.uint64(3)]


@gpu.jit
def plain(x, out):
    i = np.uint64(gpu.grid(1)) * np.uint64(4)
    out[gpu.grid(1)] = x[i] + x[i + np.uint64(1)] + x[i + np.uint64(2)] + x[i + np.uint64(3)]

# ALIGNED: ld.global.v4.{{[bf]}}32
# ALIGNED-NOT: ld.global.{{[bf]}}32
# PLAIN-NOT: ld.global.v4
# PLAIN-COUNT-4: ld.global.{{[bf]}}32
# IR: call void @llvm.assume(i1 true) [ "align"(ptr %{{.*}}, i64 16) ]
