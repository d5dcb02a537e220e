# libdevice's float32 functions that take a square root inside (hypotf here) use the correctly rounded
# sqrt.rn.f32 without fastmath, as nvcc and NVVM do by default (__nvvm_reflect("__CUDA_PREC_SQRT") is 1),
# and sqrt.approx with fastmath. LLVM's NVVMReflect pass does not read this one from the module, so gpujit
# answers it when it links libdevice; before, every such function took the approximate square root.
# RUN: %gpujit ptx %s -k hyp --sig 'void(float32[::1], float32[::1])' --arch sm_80 -o %t.precise.ptx
# RUN: FileCheck %s --check-prefix=PRECISE < %t.precise.ptx
# RUN: %ptxas-all %t.precise.ptx
# RUN: %gpujit ptx %s -k hyp --sig 'void(float32[::1], float32[::1])' --arch sm_80 --fastmath -o %t.fast.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.fast.ptx
# RUN: %ptxas-all %t.fast.ptx
import math

import gpujit as gpu


@gpu.jit
def hyp(x, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = math.hypot(x[i], out[i])

# PRECISE-NOT: sqrt.approx
# PRECISE: sqrt.rn.f32
# PRECISE-NOT: sqrt.approx

# FAST: sqrt.approx.ftz.f32
