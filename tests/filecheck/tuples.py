# Tuples: built, unpacked, indexed by constants (negative ones too) and by run-time indices into a uniform
# tuple, len() folded to a constant, returned from device functions, and passed as kernel arguments, where a
# tuple is flattened into one parameter per element (the array ABI's rule for aggregates).
# RUN: %gpujit ptx %s -k use_tuples --sig 'void(float64[::1], UniTuple(float32, 2), Tuple(int64, float64))' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k use_tuples --sig 'void(float64[::1], UniTuple(float32, 2), Tuple(int64, float64))' --emit typed | FileCheck %s --check-prefix=TYPED
# RUN: not %gpujit ptx %s -k bad_index --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERR
import gpujit as cuda


@cuda.jit(device=True)
def divmod_(a, b):
    return a // b, a % b


@cuda.jit
def use_tuples(out, pair, mixed):
    i = cuda.grid(1)
    q, r = divmod_(i, 3)
    t = (q, r, 2.5)
    first, second = pair
    n, scale = mixed
    out[0] = t[0] + t[-1] + len(t) + first * second
    out[1] = n * scale + mixed[0] + pair[i % 2]
    a, (b, c) = 1, (2, 3)
    out[2] = a + b + c + len(pair)


@cuda.jit
def bad_index(out):
    t = (1, 2.0)
    out[0] = t[2]

# An array is 3 parameters (data, shape, stride); each tuple element is one more.
# CHECK: .visible .entry {{.*}}use_tuples_{{[0-9a-f]+}}(
# CHECK: .param .f32 {{.*}}_param_3,
# CHECK: .param .f32 {{.*}}_param_4,
# CHECK: .param .u64 {{.*}}_param_5,
# CHECK: .param .f64 {{.*}}_param_6
# CHECK-NOT: _param_7

# TYPED: kernel use_tuples(out: float64[::1], pair: UniTuple(float32, 2), mixed: Tuple(int64, float64)) -> void
# TYPED: t: Tuple(int64, int64, float64)
# TYPED: (q:int64, r:int64):UniTuple(int64, 2) = divmod_<device {{.*}}>(i:int64, 3:int64):UniTuple(int64, 2)

# ERR: error: tuple index 2 is out of range for a tuple of 2 elements
