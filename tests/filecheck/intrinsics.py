# numba-cuda's integer and float intrinsics, each its PTX instruction: popc, brev, clz (32 and 64 bits), ffs
# from brev + clz, fma.rn, selp; cbrt calls libdevice. The typed dump shows numba's result types: popc and clz
# keep the operand's type, ffs gives uint32, brev uint32 for 32-bit operands.
# RUN: %gpujit ptx %s -k bits --sig 'void(uint32[::1], int64[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=BITS < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k bits --sig 'void(uint32[::1], int64[::1])' --emit typed | FileCheck %s --check-prefix=TYPED
# RUN: %gpujit ptx %s -k floats --sig 'void(float32[::1], float64[::1])' --arch sm_75 -o %t.f.ptx
# RUN: FileCheck %s --check-prefix=FLOATS < %t.f.ptx
# RUN: %ptxas-all %t.f.ptx
# RUN: %gpujit ptx %s -k floats --sig 'void(float32[::1], float64[::1])' --emit typed | FileCheck %s --check-prefix=FLOATS-TYPED
# RUN: not %gpujit ptx %s -k bad_popc --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERR
import gpujit as cuda


@cuda.jit
def bits(u, w):
    i = cuda.grid(1)
    x = u[i]
    y = w[i]
    u[i] = cuda.popc(x) + cuda.brev(x) + cuda.clz(x) + cuda.ffs(x)
    w[i] = cuda.popc(y) + cuda.clz(y) + cuda.ffs(y)
    w[i + 1] = cuda.selp(y > 0, y, -y)


@cuda.jit
def floats(f, d):
    i = cuda.grid(1)
    f[i] = cuda.fma(f[i], f[i + 1], 1.0) + cuda.cbrt(f[i])
    d[i] = cuda.fma(d[i], 2.0, d[i + 1]) + cuda.cbrt(d[i]) + cuda.selp(d[i] > 0.0, 1.0, 2.0)


@cuda.jit
def bad_popc(f):
    f[0] = cuda.popc(f[0])

# BITS: .visible .entry {{.*}}bits
# BITS-DAG: popc.b32
# BITS-DAG: brev.b32
# BITS-DAG: clz.b32
# BITS-DAG: popc.b64
# BITS-DAG: clz.b64
# BITS-DAG: {{selp.b64|max.s64|abs.s64}}

# TYPED: cuda.popc<cuda.popc>(x:uint32):uint32
# TYPED: cuda.brev<cuda.brev>(x:uint32):uint32
# TYPED: cuda.clz<cuda.clz>(x:uint32):uint32
# TYPED: cuda.ffs<cuda.ffs>(x:uint32):uint32
# TYPED: cuda.popc<cuda.popc>(y:int64):int64
# TYPED: cuda.clz<cuda.clz>(y:int64):int64
# TYPED: cuda.ffs<cuda.ffs>(y:int64):uint32
# TYPED: cuda.selp<cuda.selp>((y:int64 > 0:int64):bool, y:int64, (-y:int64):int64):int64

# fma with float32 operands (and weak constants) stays float32; cbrt is libdevice's, inlined.
# FLOATS: .visible .entry {{.*}}floats
# FLOATS-DAG: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0f3F800000;
# FLOATS-DAG: fma.rn.f64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 0d4000000000000000, {{%rd[0-9]+}};
# fma(float32, float32, 1.0) takes numba-cuda's float64 case: the float64 constant counts.
# FLOATS-TYPED: cuda.fma<cuda.fma>(f[i:int64]:float32->float64, f[(i:int64 + 1:int64):int64]:float32->float64, 1.0:float64):float64
# FLOATS-TYPED: cuda.cbrt<cuda.cbrt>(f[i:int64]:float32):float32
# FLOATS-TYPED: cuda.cbrt<cuda.cbrt>(d[i:int64]:float64):float64

# ERR: error: cuda.popc() argument 1 must be an integer, got float32
