# gpu.random's draws are numba's xoroshiro128+ step on generator i's state, an (s0, s1) record of numba's
# xoroshiro128p_dtype or row i of the same bytes as (n, 2) uint64: an add, rotates by 55 and 36 and a shift
# by 14, written back; the uniform float64 is (x >> 11) * 2**-53.
# RUN: %gpujit ptx %s --sig 'void(uint64[:, ::1], float64[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s --sig 'void(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)[::1], float64[::1])' --arch sm_75 -o %t.rec.ptx
# RUN: FileCheck %s < %t.rec.ptx
# RUN: %ptxas-all %t.rec.ptx
# RUN: not %gpujit ptx %s --sig 'void(float64[::1], float64[::1])' 2>&1 | FileCheck %s --check-prefix=BADSTATES
import gpujit as gpu
from gpujit.random import xoroshiro128p_uniform_float64


@gpu.jit
def draw(states, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = xoroshiro128p_uniform_float64(states, i)

# CHECK: .visible .entry {{.*}}draw
# CHECK: ld.global.b64 [[S0:%rd[0-9]+]], [[[S:%rd[0-9]+]]];
# CHECK-NEXT: ld.global.b64 [[S1:%rd[0-9]+]], [[[S]]+8];
# CHECK-DAG: add.s64 {{.*}}, [[S1]], [[S0]];
# CHECK-DAG: shl.b64 {{.*}}, 14;
# CHECK: st.global.b64 [[[S]]],
# CHECK: st.global.b64 [[[S]]+8],
# CHECK: shr.u64 {{.*}}, 11;
# CHECK-NEXT: cvt.rn.f64.u64
# CHECK-NEXT: mul.f64 {{.*}}, 0d3CA0000000000000;

# BADSTATES: error: xoroshiro128p_uniform_float64() takes the generator states made by gpu.random.create_xoroshiro128p_states() (a 1-D array of (s0, s1) uint64 records, or an (n, 2) uint64 array), got float64[::1]
