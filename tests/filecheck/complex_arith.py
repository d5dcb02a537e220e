# complex64 arrays are NumPy's interleaved (re, im) float pairs and complex64 arithmetic stays in float32;
# a complex scalar argument is two parameters; cmath functions are real math on the parts (libdevice).
# RUN: %gpujit ptx %s -k arith --sig 'void(complex64[::1], complex64[::1], complex64, complex64[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=ARITH < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k funcs --sig 'void(complex128[::1], float64[::1])' --arch sm_75 -o %t.funcs.ptx
# RUN: FileCheck %s --check-prefix=FUNCS < %t.funcs.ptx
# RUN: %ptxas-all %t.funcs.ptx
# RUN: %gpujit ptx %s -k funcs --sig 'void(complex128[::1], float64[::1])' --emit typed | FileCheck %s --check-prefix=TYPED
# RUN: not %gpujit ptx %s -k ordered --sig 'void(complex64[::1])' 2>&1 | FileCheck %s --check-prefix=ORDER
import cmath

import gpujit as gpu


@gpu.jit
def arith(a, b, c, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = (a[i] * b[i] - c) / (b[i] + gpu.float32(2.0)) + a[i].conjugate()

# ARITH: .visible .entry {{.*}}arith_{{.*}}(
# ARITH: .param .f32 {{.*}}_param_6,
# ARITH-NEXT: .param .f32 {{.*}}_param_7,
# ARITH: ld.global.b32 {{.*}}, [[[A:%rd[0-9]+]]];
# ARITH-NEXT: ld.global.b32 {{.*}}, [[[A]]+4];
# ARITH: div.rn.f32
# ARITH: st.global.b32 [[[OUT:%rd[0-9]+]]],
# ARITH-NEXT: st.global.b32 [[[OUT]]+4],
# ARITH-NOT: .f64


@gpu.jit
def funcs(z, out):
    i = gpu.grid(1)
    if i < out.size:
        w = cmath.sqrt(z[i]) * cmath.exp(z[i]) + cmath.sin(z[i])
        r, phi = cmath.polar(w)
        out[i] = abs(w) + cmath.phase(w) + r + phi + w.real + w.imag + cmath.isfinite(w)
        z[i] = cmath.rect(r, phi) + complex(phi, r) * 1j

# FUNCS: .visible .entry {{.*}}funcs
# FUNCS: ld.global.b64 {{.*}}, [[[Z:%rd[0-9]+]]];
# FUNCS-NEXT: ld.global.b64 {{.*}}, [[[Z]]+8];
# FUNCS: sqrt.rn.f64
# FUNCS: st.global.b64 [[[Z]]],
# FUNCS-NEXT: st.global.b64 [[[Z]]+8],

# TYPED-DAG: w: complex128
# TYPED-DAG: r: float64
# TYPED-DAG: 1.0j:complex128

# ORDER: error: complex numbers cannot be ordered with '<'; compare their .real, .imag or abs()


@gpu.jit
def ordered(z):
    if z[0] < z[1]:
        z[0] = 0
