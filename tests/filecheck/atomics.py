# cuda.atomic.* on global and shared arrays: one PTX atom instruction where the hardware has one (add, sub as
# an add of the negated value, integer min/max, bit ops, exch, 32-bit inc/dec, cas), a CAS loop where it has
# none (float max/min and nanmax/nanmin, 64-bit inc/dec). LLVM's address-space inference turns the generic
# pointers of shared arrays into .shared atomics.
# RUN: %gpujit ptx %s -k global_ops --sig 'void(float32[::1], float64[:, ::1], int32[::1], uint32[::1], int64[::1], uint64[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=GLOBAL < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k shared_ops --sig 'void(int32[::1], float32[::1])' --arch sm_75 -o %t.shared.ptx
# RUN: FileCheck %s --check-prefix=SHARED < %t.shared.ptx
# RUN: %ptxas-all %t.shared.ptx
# RUN: %gpujit ptx %s -k float_max --sig 'void(float32[::1], float32[::1])' --arch sm_75 -o %t.fmax.ptx
# RUN: FileCheck %s --check-prefix=FMAX < %t.fmax.ptx
# RUN: %ptxas-all %t.fmax.ptx
# RUN: not %gpujit ptx %s -k bad_inc --sig 'void(int32[::1])' 2>&1 | FileCheck %s --check-prefix=ERRINC
# RUN: not %gpujit ptx %s -k bad_and --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERRAND
# RUN: not %gpujit ptx %s -k bad_index --sig 'void(float32[:, ::1])' 2>&1 | FileCheck %s --check-prefix=ERRIDX
import gpujit as cuda


@cuda.jit
def global_ops(f32, f64, i32, u32, i64, u64):
    i = cuda.grid(1)
    r = cuda.atomic.add(f32, 0, 1.5)
    r += cuda.atomic.sub(f32, 1, 2.5)
    r += cuda.atomic.add(f64, (1, 2), 1.0)
    r += cuda.atomic.add(i32, i, 1)
    r += cuda.atomic.max(i32, 1, i)
    r += cuda.atomic.min(u64, 2, 7)
    r += cuda.atomic.nanmax(i64, 0, i)
    r += cuda.atomic.and_(u32, 0, 0xF0)
    r += cuda.atomic.or_(i64, 1, 3)
    r += cuda.atomic.xor(u32, 1, 0xFF)
    r += cuda.atomic.exch(i32, 2, 9)
    r += cuda.atomic.inc(u32, 2, 100)
    r += cuda.atomic.dec(u32, 3, 100)
    r += cuda.atomic.inc(u64, 3, 100)
    r += cuda.atomic.cas(i32, 3, 0, i)
    r += cuda.atomic.compare_and_swap(u64, 5, 6)
    r += cuda.atomic.nanmin(f64, (0, 0), 2.0)
    f32[2] = r


@cuda.jit
def shared_ops(bins, sums):
    hist = cuda.shared.array(16, cuda.int32)
    acc = cuda.shared.array(4, cuda.float32)
    t = cuda.threadIdx.x
    if t < 16:
        hist[t] = 0
    if t < 4:
        acc[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(hist, t % 16, 1)
    cuda.atomic.add(acc, t % 4, 0.25)
    cuda.atomic.cas(hist, 0, 0, -1)
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(bins, t, hist[t])
    if t < 4:
        cuda.atomic.add(sums, t, acc[t])


@cuda.jit
def float_max(a, out):
    out[0] = cuda.atomic.max(a, 0, out[1])


@cuda.jit
def bad_inc(a):
    cuda.atomic.inc(a, 0, 1)


@cuda.jit
def bad_and(a):
    cuda.atomic.and_(a, 0, 1)


@cuda.jit
def bad_index(a):
    cuda.atomic.add(a, 0, 1.0)

# GLOBAL: .visible .entry {{.*}}global_ops
# GLOBAL-DAG: atom.global.add.f32
# GLOBAL-DAG: atom.global.add.f64
# GLOBAL-DAG: atom.global.add.u32
# GLOBAL-DAG: atom.global.max.s32
# GLOBAL-DAG: atom.global.min.u64
# GLOBAL-DAG: atom.global.max.s64
# GLOBAL-DAG: atom.global.and.b32
# GLOBAL-DAG: atom.global.or.b64
# GLOBAL-DAG: atom.global.xor.b32
# GLOBAL-DAG: atom.global.exch.b32
# GLOBAL-DAG: atom.global.inc.u32
# GLOBAL-DAG: atom.global.dec.u32
# GLOBAL-DAG: atom{{(.relaxed.gpu)?}}.global.cas.b32
# GLOBAL-DAG: atom{{(.relaxed.gpu)?}}.global.cas.b64
# GLOBAL-NOT: atom.global.sub

# SHARED: .visible .entry {{.*}}shared_ops
# An atomic whose old value is unused is a `red` (reduction) instruction.
# SHARED-DAG: {{atom|red}}.shared.add.u32
# SHARED-DAG: {{atom|red}}.shared.add.f32
# SHARED-DAG: atom{{(.relaxed.gpu)?}}.shared.cas.b32
# SHARED-DAG: {{atom|red}}.global.add.u32
# SHARED-DAG: {{atom|red}}.global.add.f32

# numba's max: a NaN value or element stores nothing; otherwise a CAS loop runs while the element is smaller.
# FMAX: .visible .entry {{.*}}float_max
# FMAX: ld.{{(relaxed.gpu.)?}}global.b32
# FMAX: setp.nan.f32
# FMAX: setp.geu.f32
# FMAX: atom{{(.relaxed.gpu)?}}.global.cas.b32
# FMAX-NOT: atom.global.max

# ERRINC: error: cuda.atomic.inc() does not support arrays of int32 ('a' is an argument); it takes arrays of uint32 or uint64
# ERRAND: error: cuda.atomic.and_() does not support arrays of float32 ('a' is an argument); it takes arrays of int32, uint32, int64 or uint64
# ERRIDX: error: cuda.atomic.add() index must be a tuple of 2 integers for a 2-dimensional array, got int64
