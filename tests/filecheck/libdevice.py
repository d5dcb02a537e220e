# libdevice.* calls the libdevice function of that name with its C prototype's types: sad and popc on int32
# become single instructions, byte_perm a prmt; sincos and frexp return their pointer results as a tuple
# (the bitcode is linked in and inlined: the outputs are plain stores).
# RUN: %gpujit ptx %s -k ints --sig 'void(uint32[::1], int32[::1], int32[::1])' --arch sm_75 -o %t.ints.ptx
# RUN: FileCheck %s --check-prefix=INTS < %t.ints.ptx
# RUN: %ptxas-all %t.ints.ptx
# RUN: %gpujit ptx %s -k outs --sig 'void(float64[::1], float64[::1], int32[::1], float64[::1])' --arch sm_75 -o %t.outs.ptx
# RUN: FileCheck %s --check-prefix=OUTS < %t.outs.ptx
# RUN: %ptxas-all %t.outs.ptx
# RUN: not %gpujit ptx %s -k unknown --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
from numba import cuda
from numba.cuda import libdevice


@cuda.jit
def ints(r, a, b):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = libdevice.sad(a[i], b[i], 7) + libdevice.popc(a[i]) + libdevice.byte_perm(a[i], b[i], r[i])


@cuda.jit
def outs(s, c, e, x):
    i = cuda.grid(1)
    if i < x.size:
        sv, cv = libdevice.sincos(x[i])
        frac, exp = libdevice.frexp(x[i])
        s[i] = sv + frac
        c[i] = cv
        e[i] = exp


@cuda.jit
def unknown(x):
    x[0] = libdevice.sinx(x[0])

# INTS: .visible .entry {{.*}}ints
# INTS-DAG: popc.b32
# INTS-DAG: sad.s32
# INTS-DAG: prmt.b32

# OUTS: .visible .entry {{.*}}outs
# OUTS: st.global.b64
# OUTS: st.global.b64
# OUTS: st.global.b32

# UNKNOWN: libdevice.py:[[@LINE-12]]:22: error: module 'numba.cuda.libdevice' has no attribute 'sinx'; did you mean 'sin'?
