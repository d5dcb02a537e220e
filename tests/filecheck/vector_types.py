# CUDA vector types and numba's Dim3: a vector is one LLVM vector value, so a device function takes and returns
# it as one .param of its size (loaded and stored as a v4 where the lanes fit), at -O0 where no inlining hides
# the call; odd lane counts and byte lanes assemble too. The typed dump spells the types as numba does.
# RUN: %gpujit ptx %s -k use_vectors --sig 'void(float32[::1], float32[::1])' --arch sm_75 -O0 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k odd_lanes --sig 'void(int64[::1], int64[::1])' --arch sm_75 -O0 -o %t.odd.ptx
# RUN: %ptxas-all %t.odd.ptx
# RUN: %gpujit ptx %s -k odd_lanes --sig 'void(int64[::1], int64[::1])' --arch sm_75 -o %t.odd3.ptx
# RUN: %ptxas-all %t.odd3.ptx
# RUN: %gpujit ptx %s -k odd_lanes --sig 'void(int64[::1], int64[::1])' --emit typed | FileCheck %s --check-prefix=TYPED
# RUN: not %gpujit ptx %s -k bad_lane --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERR
import gpujit as cuda


@cuda.jit(device=True)
def scale(v, s):
    return cuda.float32x4(v.x * s, v.y * s, v.z * s, v.w * s)


@cuda.jit
def use_vectors(out, x):
    i = cuda.grid(1)
    v = scale(cuda.float32x4(cuda.float2(x[i], 1.0), 2.0, 3.0), cuda.float32(2.0))
    out[i] = v.x + v.w


@cuda.jit(device=True)
def bytes3(v):
    return cuda.uchar3(v.z, v.y, v.x)


@cuda.jit(device=True)
def longs3(v):
    return cuda.longlong3(v.y, v.z, v.x)


@cuda.jit
def odd_lanes(out, x):
    b = bytes3(cuda.uint8x3(x[0], x[1], x[2]))
    n = longs3(cuda.int64x3(x[0], x[1], x[2]))
    t = cuda.threadIdx
    out[0] = b.x + n.y + cuda.short1(x[0]).x + t.z


@cuda.jit
def bad_lane(out):
    v = cuda.float32x2(1, 2)
    out[0] = v.z

# CHECK: .func (.param .align 16 .b8 func_retval0[16]) _gpujit_5scale_{{[0-9a-f]+}}(
# CHECK-NEXT: .param .align 16 .b8 _gpujit_5scale_{{[0-9a-f]+}}_param_0[16],
# CHECK: ld.param.v4.b32 {{.*}}_param_0];
# CHECK: st.param.v4.b32 [func_retval0]
# CHECK: .entry _gpujit_use_vectors_
# CHECK: st.param.v4.b32 [param0], {%r{{[0-9]+}}, 0f3F800000, 0f40000000, 0f40400000};
# CHECK: call.uni (retval0), _gpujit_5scale_
# CHECK: ld.param.v4.b32 {{.*}}[retval0];

# TYPED: device bytes3(v: uint8x3) -> uint8x3
# TYPED: return cuda.uchar3<cuda.uchar3>(v.z:uint8, v.y:uint8, v.x:uint8):uint8x3
# TYPED: device longs3(v: int64x3) -> int64x3
# TYPED: t: Dim3
# TYPED: b:uint8x3 = bytes3<device {{.*}}>(cuda.uint8x3<cuda.uint8x3>(x[0:int64]:int64->uint8,
# TYPED: t:Dim3 = cuda.threadIdx:Dim3

# ERR: vector_types.py:49:16: error: 'float32x2' has no attribute 'z'; its lanes are 'x' and 'y' ('v' was assigned at line 48)
