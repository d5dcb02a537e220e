"""isinstance(x, classes) in kernels and device functions (docs/language.md, "isinstance"): decided at compile
time from x's type with numba's rules, so the branch not taken is never typed."""

import numpy as np
import pytest

import gpujit as gpu


@gpu.jit(device=True)
def describe(x):
    # Each branch is typed only for the arguments that reach it: x[0] would not type for a number.
    if isinstance(x, tuple):
        return x[0] * 100
    elif isinstance(x, (float, np.float32)):
        return -1
    elif isinstance(x, int):
        return 1
    else:
        return 0


def test_python_classes_follow_numba():
    @gpu.jit
    def k(out, i64, i32, f64, f32, b, c):
        out[0] = isinstance(i64, int)
        out[1] = isinstance(i32, int)  # numba: only int64 is an `int`
        out[2] = isinstance(f64, float)
        out[3] = isinstance(f32, float)  # only float64 is a `float`
        out[4] = isinstance(b, bool)
        out[5] = isinstance(b, int)  # a bool is no int64
        out[6] = isinstance(c, complex)
        out[7] = isinstance(f64, (int, float))
        out[8] = isinstance((i64, f64), tuple)

    out = np.zeros(9, dtype=np.int64)
    k[1, 1](out, 1, np.int32(2), 1.5, np.float32(2.5), True, 1j)
    np.testing.assert_array_equal(out, [1, 0, 1, 0, 1, 0, 1, 1, 1])


def test_dtypes_match_their_own_type():
    @gpu.jit
    def k(out, a, i32, f32):
        out[0] = isinstance(i32, np.int32)
        out[1] = isinstance(i32, np.int64)
        out[2] = isinstance(f32, gpu.float32)
        out[3] = isinstance(a[0], np.float64)
        out[4] = isinstance(a, np.float64)  # an array is no float64

    out = np.zeros(5, dtype=np.int64)
    k[1, 1](out, np.ones(2), np.int32(1), np.float32(1))
    np.testing.assert_array_equal(out, [1, 0, 1, 1, 0])


def test_dead_branch_is_not_typed():
    @gpu.jit
    def k(out, i, f, i32):
        out[0] = describe(i)
        out[1] = describe(f)
        out[2] = describe((7, 8))
        out[3] = describe(i32)
        out[4] = describe(np.float32(f))

    out = np.zeros(5, dtype=np.int64)
    k[1, 1](out, 3, 2.0, np.int32(1))
    np.testing.assert_array_equal(out, [1, -1, 700, 0, -1])


def test_unsupported_variable_type_is_an_error():
    rec = np.dtype([("a", np.int32)])

    @gpu.jit
    def k(out, r):
        out[0] = isinstance(r[0], int)

    with pytest.raises(gpu.CompileError, match=r'isinstance\(\) does not support variables of type "Record'):
        k[1, 1](np.zeros(1, dtype=np.int64), np.zeros(1, dtype=rec))


def test_a_non_class_is_an_error():
    @gpu.jit
    def k(out, x):
        out[0] = isinstance(x, x)

    with pytest.raises(gpu.CompileError, match=r"isinstance\(\) takes a class .* or a tuple of them; 'x' is none"):
        k[1, 1](np.zeros(1, dtype=np.int64), 1)


def test_wrong_arity_is_an_error():
    @gpu.jit
    def k(out, x):
        out[0] = isinstance(x)

    with pytest.raises(gpu.CompileError, match=r"isinstance\(\) takes 2 arguments"):
        k[1, 1](np.zeros(1, dtype=np.int64), 1)
