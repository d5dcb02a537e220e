# Warp shuffles lower to shfl.sync with numba-cuda's operands: clamp 31 for idx/down/xor and 0 for up, the
# mask as given; a 64-bit value (int64, float64) is two 32-bit shuffles, a float one shuffles its bits.
# RUN: %gpujit ptx %s -k reduce --sig 'void(float32[::1], float32[::1])' --arch sm_75 -o %t.f32.ptx
# RUN: FileCheck %s --check-prefix=F32 < %t.f32.ptx
# RUN: %ptxas-all %t.f32.ptx
# RUN: %gpujit ptx %s -k modes --sig 'void(int64[::1], int32)' --arch sm_75 -o %t.modes.ptx
# RUN: FileCheck %s --check-prefix=MODES < %t.modes.ptx
# RUN: %ptxas-all %t.modes.ptx
# RUN: %gpujit ptx %s -k modes --sig 'void(float64[::1], int32)' --arch sm_75 -o %t.f64.ptx
# RUN: FileCheck %s --check-prefix=F64 < %t.f64.ptx
# RUN: %ptxas-all %t.f64.ptx
# RUN: not %gpujit ptx %s -k modes --sig 'void(float16[::1], int32)' 2>&1 | FileCheck %s --check-prefix=BADTYPE
import gpujit as gpu


@gpu.jit
def reduce(x, out):
    i = gpu.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += gpu.shfl_down_sync(0xffffffff, v, offset)
        offset //= 2
    if gpu.laneid == 0:
        out[i // 32] = v

# F32: .visible .entry {{.*}}reduce
# F32: shfl.sync.down.b32 {{.*}}, 16, 31, -1;
# F32: shfl.sync.down.b32 {{.*}}, 8, 31, -1;
# F32: shfl.sync.down.b32 {{.*}}, 1, 31, -1;
# F32-NOT: .f64


@gpu.jit
def modes(a, lane):
    i = gpu.grid(1)
    v = a[i]
    v = gpu.shfl_sync(0x0000ffff, v, lane)
    v = gpu.shfl_up_sync(0xffffffff, v, 2)
    v = gpu.shfl_xor_sync(0xffffffff, v, 4)
    a[i] = v

# MODES: .visible .entry {{.*}}modes
# MODES-COUNT-2: shfl.sync.idx.b32 {{.*}}, 31, 65535;
# MODES-COUNT-2: shfl.sync.up.b32 {{.*}}, 2, 0, -1;
# MODES-COUNT-2: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;

# F64: .visible .entry {{.*}}modes
# F64: ld.global.b64
# F64-COUNT-2: shfl.sync.idx.b32
# F64-NOT: .f64

# BADTYPE: error: gpu.shfl_sync() shuffles 32- and 64-bit integers and floats, got float16
