# Python identifiers may be Unicode; PTX symbols are ASCII. Each byte of a symbol outside [A-Za-z0-9_$] is
# written _xHH (UTF-8, lowercase hex): the kernel's entry, a device function (a call at -O0) and a captured
# constant array compile and assemble. Found by fuzz_compile: LLVM's PTX printer stopped the whole process
# ("Symbol name with unsupported characters") on a kernel named with a non-ASCII letter.
# RUN: %gpujit ptx %s -k größe --sig 'void(float32[::1])' --arch sm_75 -O0 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
import numpy as np

import gpujit as gpu

FAKTÖR = np.array([1.5, 2.5], dtype=np.float32)


@gpu.jit(device=True)
def verdoppeln_ß(x):
    return x * np.float32(2)


# CHECK-DAG: .func {{.*}}_gpujit_13verdoppeln__xc3_x9f_
# CHECK-DAG: .const {{.*}}const_FAKT_xc3_x96R
# CHECK-DAG: .entry _gpujit_gr_xc3_xb6_xc3_x9fe_
@gpu.jit
def größe(a):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = verdoppeln_ß(a[i]) * FAKTÖR[i % 2]
