"""Python builtins numba-cuda allows in kernels beyond the arithmetic ones: divmod, tuple(), sum(), min()/max() of a
tuple and bool() of a tuple, run on the CPU backend against Python's own builtins and NumPy."""

import itertools

import numpy as np
import pytest

import gpujit as cuda

INTS = [-7, -3, -1, 0, 1, 2, 5, 9, 2**40 + 3, -(2**40) - 5]
FLOATS = [-7.5, -3.0, -0.25, -0.0, 0.0, 0.75, 2.0, 5.5, 1e300, -1e-300]


@cuda.jit
def divmod_kernel(a, b, q, r):
    i = cuda.grid(1)
    if i < a.size:
        q[i], r[i] = divmod(a[i], b[i])


@cuda.jit
def floor_ops_kernel(a, b, q, r):
    i = cuda.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def pairs(values, dtype):
    a, b = zip(*itertools.product(values, values))
    return np.array(a, dtype), np.array(b, dtype)


def run(kernel, a, b, out_dtype):
    q, r = np.zeros(a.size, out_dtype), np.zeros(a.size, out_dtype)
    kernel[(a.size + 63) // 64, 64](a, b, q, r)
    return q, r


def test_divmod_of_integers_is_pythons_with_the_divisors_sign():
    a, b = pairs(INTS, np.int64)
    q, r = run(divmod_kernel, a, b, np.int64)
    for x, y, qi, ri in zip(a.tolist(), b.tolist(), q.tolist(), r.tolist()):
        if y != 0:
            assert (qi, ri) == divmod(x, y), (x, y)


def test_divmod_of_narrow_integers_computes_in_int64():
    @cuda.jit
    def k(a, b, out):
        q, r = divmod(a[0], b[0])  # int8 operands: numba's divmod has machine-integer cases only
        out[0], out[1] = q, r

    out = np.zeros(2, np.int64)
    k[1, 1](np.array([-128], np.int8), np.array([-1], np.int8), out)
    assert out.tolist() == [128, 0]  # no int8 wrap: the division ran in int64


def test_divmod_by_zero_is_what_floor_division_and_modulo_give():
    a, b = pairs(INTS, np.int64)
    zero = b == 0
    assert zero.any()
    q, r = run(divmod_kernel, a, b, np.int64)
    q2, r2 = run(floor_ops_kernel, a, b, np.int64)
    np.testing.assert_array_equal(q[zero], q2[zero])
    np.testing.assert_array_equal(r[zero], r2[zero])
    a, b = pairs(FLOATS, np.float64)
    q, r = run(divmod_kernel, a, b, np.float64)
    q2, r2 = run(floor_ops_kernel, a, b, np.float64)
    np.testing.assert_array_equal(q, q2)
    np.testing.assert_array_equal(r, r2)


def test_divmod_of_floats_is_pythons():
    a, b = pairs(FLOATS, np.float64)
    q, r = run(divmod_kernel, a, b, np.float64)
    for x, y, qi, ri in zip(a.tolist(), b.tolist(), q.tolist(), r.tolist()):
        if y != 0:
            eq, er = divmod(x, y)
            assert (qi, ri) == (eq, er) and np.signbit(ri) == np.signbit(er), (x, y, qi, ri)


def test_divmod_of_float32_stays_float32_as_numpys_divmod():
    a, b = pairs([v for v in FLOATS if abs(v) < 1e30], np.float32)
    keep = b != 0
    a, b = a[keep], b[keep]
    q, r = run(divmod_kernel, a, b, np.float32)
    eq, er = np.divmod(a, b)
    np.testing.assert_array_equal(q, eq)
    np.testing.assert_array_equal(r, er)


def test_divmod_by_zero_raises_under_debug():
    @cuda.jit(debug=True, opt=False)
    def k(a, out):
        out[0], out[1] = divmod(a[0], a[1])

    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        k[1, 1](np.array([3, 0]), np.zeros(2, np.int64))


def test_divmod_of_constants_folds():
    @cuda.jit
    def k(out):
        t = divmod(-7, 2)
        out[0], out[1] = t
        u = divmod(7.5, -2)
        out[2], out[3] = u

    out = np.zeros(4)
    k[1, 1](out)
    assert out.tolist() == [*divmod(-7, 2), *divmod(7.5, -2)]


def test_tuple_of_a_tuple_and_the_empty_tuple():
    @cuda.jit
    def k(x, out):
        t = tuple((x[0], x[1] * 2))
        e = tuple()
        out[0], out[1] = t
        out[2] = len(e)
        out[3] = bool(e)
        out[4] = bool(t)

    out = np.full(5, -1.0)
    k[1, 1](np.array([1.5, 2.0]), out)
    assert out.tolist() == [1.5, 4.0, 0, 0, 1]


def test_sum_of_tuples_adds_left_to_right_in_numbas_types():
    @cuda.jit
    def k(x, i, out, out32):
        out[0] = sum((x[0], x[1], x[2]))
        out[1] = sum((i[0], i[1]), 0.5)
        out[2] = sum((x[0], i[0], True))
        out[3] = sum((1, 2, 3))
        out[4] = sum(())
        out32[0] = sum((x[0], x[1]))  # float32 elements: the sum is float64 (0 + float32), stored as float32

    x = np.array([0.1, 0.2, 1e8], np.float32)
    i = np.array([3, -9], np.int32)
    out, out32 = np.zeros(5), np.zeros(1, np.float32)
    k[1, 1](x, i, out, out32)
    f = x.astype(np.float64)
    assert out.tolist() == [((0 + f[0]) + f[1]) + f[2], 0.5 + 3 - 9, f[0] + 3 + 1, 6, 0]
    assert out32[0] == np.float32(f[0] + f[1])


def test_sum_of_a_1d_array_is_numbas_loop():
    @cuda.jit
    def k(a, b, out):
        out[0] = sum(a)
        out[1] = sum(b)

    a = np.arange(10, dtype=np.float32) / 3
    b = np.array([120, 100, 50], np.int8)
    out = np.zeros(2)
    k[1, 1](a, b, out)
    acc = 0.0
    for v in a.astype(np.float64):
        acc += v
    assert out.tolist() == [acc, 270]  # int8 elements add in int64: no wrap


def test_min_and_max_of_a_tuple_keep_the_first_extreme():
    @cuda.jit
    def k(x, i, out):
        out[0] = min((x[0], x[1], x[2]))
        out[1] = max((x[0], x[1], x[2]))
        out[2] = min((x[3], x[0]))
        out[3] = min((x[0], x[3]))
        out[4] = max((i[0], i[1], 2.5))
        out[5] = min((x[1],))

    x = np.array([3.0, -1.0, 7.0, np.nan])
    out = np.zeros(6)
    k[1, 1](x, np.array([4, 1], np.int32), out)
    assert np.isnan(out[2])  # a NaN first stays, as CPython's min((nan, 3.0))
    assert out[[0, 1, 3, 4, 5]].tolist() == [-1.0, 7.0, 3.0, 4.0, -1.0]


@pytest.mark.parametrize("body, message", [
    ("out[0] = min(out)", r"min\(\) of one argument takes a non-empty tuple of numbers, got float64\[::1\].*use np.min"),
    ("out[0] = sum(out, 1)", r"sum\(a, start\) of an array is not supported"),
    ("out[0] = sum(1.5)", r"sum\(\) takes a tuple of numbers or a 1-D array of numbers, got float64"),
    ("out[0] = tuple(out)", r"tuple\(\) in a kernel takes a tuple, got float64\[::1\]"),
    ("out[0] = divmod(1j, 2)[0]", r"divmod\(a, b\) computes a // b and a % b"),
])
def test_misuses_are_compile_errors(tmp_path, body, message):
    source = tmp_path / "bad_builtin.py"
    source.write_text(f"import gpujit as cuda\n\n\n@cuda.jit\ndef k(out):\n    {body}\n")
    namespace = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    with pytest.raises(cuda.CompileError, match=message) as e:
        namespace["k"][1, 1](np.zeros(2))
    assert e.value.lineno == 6
