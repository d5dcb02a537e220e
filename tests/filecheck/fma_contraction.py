# a * b + c contracts to one fma when optimizing, as nvcc -fmad=true and numba-cuda do; at -O0 (opt=False,
# debug=True) each operation rounds on its own, as NVVM does at -opt=0.
# RUN: %gpujit ptx %s --kernel muladd --sig 'void(float64[::1], float64, float64, float64)' -o %t.ptx
# RUN: FileCheck %s --check-prefix=OPT < %t.ptx
# RUN: %gpujit ptx %s --kernel muladd --sig 'void(float64[::1], float64, float64, float64)' -O0 -o %t0.ptx
# RUN: FileCheck %s --check-prefix=NOOPT < %t0.ptx
# RUN: %gpujit ptx %s --kernel fmuladd --device --sig 'float64(float64, float64, float64)' -O0 -o %td.ptx
# RUN: FileCheck %s --check-prefix=NOOPT < %td.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %ptxas-all %t0.ptx
# RUN: %ptxas-all %td.ptx
import gpujit as gpu


@gpu.jit(device=True)
def fmuladd(x, y, z):
    return x * y + z


@gpu.jit
def muladd(r, x, y, z):
    r[0] = x * y + z

# OPT: fma.rn.f64
# NOOPT-NOT: fma.rn.f64
# NOOPT: mul.rn.f64
# NOOPT-NOT: fma.rn.f64
# NOOPT: add.rn.f64
# NOOPT-NOT: fma.rn.f64
