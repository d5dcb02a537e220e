"""Device functions that take functions, dtypes and constants as arguments, as numba-cuda code passes them.

numba specializes a device function on such arguments at compile time: an atomic operation or another
device function passed in is called, a dtype builds a shared array, and a constant given where the callee
needs one (a shared array's shape) is bound as a literal. Checked against NumPy on the default backend.
"""

import numpy as np
import pytest

import gpujit as gpu


@gpu.jit(device=True)
def apply_shared(out, values, op, dtype, n):
    tid = gpu.threadIdx.x
    sm = gpu.shared.array(n, dtype)
    if tid < n:
        sm[tid] = 0
    gpu.syncthreads()
    op(sm, tid % 4, values[tid])
    gpu.syncthreads()
    if tid < n:
        out[tid] = sm[tid]


@gpu.jit
def add_in_shared(out, values):
    apply_shared(out, values, gpu.atomic.add, gpu.uint32, 8)


@gpu.jit
def max_in_shared(out, values):
    apply_shared(out, values, gpu.atomic.max, gpu.uint32, 8)


@gpu.jit(device=True)
def twice(f, x):
    return f(f(x))


@gpu.jit(device=True)
def plus_three(x):
    return x + 3


@gpu.jit
def call_passed_function(out, x):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = twice(plus_three, x[i])


def test_atomic_and_dtype_and_shape_passed_to_a_device_function():
    values = np.arange(32, dtype=np.uint32)
    out = np.zeros(8, np.uint32)
    add_in_shared[1, 32](out, values)
    want = np.zeros(8, np.uint32)
    np.add.at(want, np.arange(32) % 4, values)
    np.testing.assert_array_equal(out, want)

    out = np.zeros(8, np.uint32)
    max_in_shared[1, 32](out, values)
    want = np.zeros(8, np.uint32)
    np.maximum.at(want, np.arange(32) % 4, values)
    np.testing.assert_array_equal(out, want)


def test_device_function_passed_to_a_device_function():
    x = np.arange(10, dtype=np.int64)
    out = np.zeros_like(x)
    call_passed_function[1, 16](out, x)
    np.testing.assert_array_equal(out, x + 6)


def test_constant_argument_stays_a_value_where_a_value_does():
    # The same device function called with a constant and with a variable: one result each, both right.
    @gpu.jit(device=True)
    def scale(x, k):
        return x * k

    @gpu.jit
    def kernel(out, x, k):
        out[0] = scale(x[0], 2)
        out[1] = scale(x[0], k)

    out = np.zeros(2, np.float32)
    kernel[1, 1](out, np.array([1.5], np.float32), np.int64(3))
    np.testing.assert_array_equal(out, [3.0, 4.5])


def test_a_function_is_not_a_value_outside_a_device_call():
    @gpu.jit
    def kernel(out):
        f = gpu.atomic.add
        out[0] = f

    with pytest.raises(gpu.CompileError, match="is a function; call it"):
        kernel[1, 1](np.zeros(1))


@gpu.jit(device=True)
def shared_2d_with_flag(ary, shape, dtype, wrap):
    # With wrap=False the wrapped index is never compiled: numba prunes a branch on a constant before
    # typing it, and here it would unify bin into a float64 tuple (uint64 with int64), not an index.
    tx = gpu.threadIdx.x
    ty = gpu.threadIdx.y
    sm = gpu.shared.array(shape, dtype)
    sm[tx, ty] = ary[tx, ty]
    gpu.syncthreads()
    bin = (tx, gpu.uint64(ty))
    if wrap:
        bin = (bin[0] % shape[0], bin[1] % shape[1])
    gpu.atomic.add(sm, bin, 1)
    gpu.syncthreads()
    ary[tx, ty] = sm[tx, ty]


DEBUG = False


def test_a_constant_flag_prunes_the_branch_it_turns_off():
    @gpu.jit("void(uint32[:, :])")
    def bump(ary):
        shared_2d_with_flag(ary, (4, 8), gpu.uint32, False)
        if DEBUG:
            print("never compiled", ary.no_such_attribute)

    a = np.arange(32, dtype=np.uint32).reshape(4, 8)
    expected = a + 1
    bump[1, (4, 8)](a)
    np.testing.assert_array_equal(a, expected)
    assert "not compiled: the condition is always false" in bump.inspect_types("void(uint32[:, :])")


def test_a_variable_only_a_dead_branch_assigns_is_unassigned():
    @gpu.jit
    def k(out):
        if DEBUG:
            z = 1
        out[0] = z

    with pytest.raises(gpu.CompileError, match="'z' is used before it is assigned a value"):
        k[1, 1](np.zeros(1, np.int64))
