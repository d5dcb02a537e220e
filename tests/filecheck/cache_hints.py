# Cache-hinted loads and stores are inline PTX with the operator in the name (ld.global.cs.b32 ...) on the
# element's address converted to the global space; 8-bit values use a 32-bit register, float16 a 16-bit
# one, 2-D indices address as ary[i, j] does. nanosleep is nanosleep.u32; x.bit_count() is popc;
# math.nextafter of float32 is libdevice's __nv_nextafterf (inlined).
# RUN: %gpujit ptx %s -k loads --sig 'void(float32[::1], float32[::1], int8[::1], float64[:, ::1])' --arch sm_75 -o %t.ld.ptx
# RUN: FileCheck %s --check-prefix=LD < %t.ld.ptx
# RUN: %ptxas-all %t.ld.ptx
# RUN: %gpujit ptx %s -k stores --sig 'void(int64[::1], uint8[::1], float16[:, :], float16)' --arch sm_75 -o %t.st.ptx
# RUN: FileCheck %s --check-prefix=ST < %t.st.ptx
# RUN: %ptxas-all %t.st.ptx
# RUN: %gpujit ptx %s -k misc --sig 'void(uint64[::1], float32[::1], uint32)' --arch sm_75 -o %t.misc.ptx
# RUN: FileCheck %s --check-prefix=MISC < %t.misc.ptx
# RUN: %ptxas-all %t.misc.ptx
# RUN: %gpujit ptx %s -k misc --sig 'void(uint64[::1], float32[::1], uint32)' --emit typed | FileCheck %s --check-prefix=TYPED
from numba import cuda
import math


@cuda.jit
def loads(r, x, b, m):
    i = cuda.grid(1)
    r[i] = cuda.ldca(x, i) + cuda.ldcg(x, i + 1) + cuda.ldcs(x, i + 2) + cuda.ldlu(x, i + 3)
    r[i + 1] = cuda.ldcv(b, i)
    r[i + 2] = cuda.ldcs(m, (i, 1))


@cuda.jit
def stores(r, b, h, v):
    i = cuda.grid(1)
    cuda.stcg(r, i, 7)
    cuda.stcs(b, i, 3)
    cuda.stwb(h, (i, 2), v)
    cuda.stwt(r, -1, 9)


@cuda.jit
def misc(r, f, n):
    cuda.nanosleep(n)
    r[0] = r[1].bit_count()
    f[0] = math.nextafter(f[1], f[2])

# LD: .visible .entry {{.*}}loads
# LD-DAG: cvta.to.global.u64
# LD-DAG: ld.global.ca.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
# LD-DAG: ld.global.cg.b32
# LD-DAG: ld.global.cs.b32
# LD-DAG: ld.global.lu.b32
# LD-DAG: ld.global.cv.b8 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
# LD-DAG: ld.global.cs.b64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}];

# ST: .visible .entry {{.*}}stores
# ST-DAG: st.global.cg.b64 [%rd{{[0-9]+}}], %rd{{[0-9]+}};
# ST-DAG: st.global.cs.b8 [%rd{{[0-9]+}}], %r{{[0-9]+}};
# ST-DAG: st.global.wb.b16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
# ST-DAG: st.global.wt.b64

# MISC: .visible .entry {{.*}}misc
# MISC: nanosleep.u32 %r{{[0-9]+}};
# MISC: popc.b64

# TYPED: cuda.nanosleep<cuda.nanosleep>(n:uint32):void
# TYPED: r[1:int64]:uint64.bit_count<number.bit_count>():uint64
# TYPED: math.nextafter<math.nextafter>(f[1:int64]:float32, f[2:int64]:float32):float32
