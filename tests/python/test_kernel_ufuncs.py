"""NumPy ufuncs over arrays inside kernels: np.sin(a, out), np.add(a, b, out=c). Each call is a loop over
the output's elements run by the calling thread, with NumPy's broadcasting, NumPy's loop types (complex order,
NaN rules of maximum/fmax, exact int64/uint64 comparison) and NumPy's 'same_kind' casting into the output,
checked here against NumPy itself."""

import numpy as np
import pytest

import gpujit as gpu
from gpujit.errors import CompileError


def run1(fn, *args):
    """Launches fn with one thread, as numba-cuda's own ufunc tests do."""
    fn[1, 1](*args)


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "arcsin", "arctan", "sinh", "tanh", "arcsinh",
                                  "exp", "log", "log2", "log10", "sqrt", "deg2rad", "rad2deg"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_math_matches_numpy(name, dtype):
    ns = {"np": np}
    exec(f"def k(a, out):\n    np.{name}(a, out)\n", ns)
    k = gpu.jit(ns["k"])
    a = np.linspace(0.1, 0.9, 12).astype(dtype).reshape(3, 4)
    out = np.zeros_like(a)
    run1(k, a, out)
    np.testing.assert_allclose(out, getattr(np, name)(a), rtol=1e-6 if dtype == np.float32 else 1e-13)


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
                                  "arcsinh", "arccosh", "arctanh", "exp", "log", "log2", "log10", "sqrt"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_math_matches_numpy(name, dtype):
    ns = {"np": np}
    exec(f"def k(a, out):\n    np.{name}(a, out)\n", ns)
    k = gpu.jit(ns["k"])
    a = np.array([-0.5 - 0.5j, 0.0, 0.5 + 0.5j, 1.5 - 2j], dtype=dtype)
    out = np.zeros_like(a)
    run1(k, a, out)
    np.testing.assert_allclose(out, getattr(np, name)(a), rtol=2e-6 if dtype == np.complex64 else 1e-13,
                               atol=1e-7)


@gpu.jit
def binary_ops(a, b, add, sub, mul, div, fdiv, mod, atan2, hyp):
    np.add(a, b, add)
    np.subtract(a, b, sub)
    np.multiply(a, b, out=mul)
    np.true_divide(a, b, div)
    np.floor_divide(a, b, fdiv)
    np.remainder(a, b, mod)
    np.arctan2(a, b, atan2)
    np.hypot(a, b, hyp)


def test_binary_ops_broadcast_a_row_and_a_scalar():
    a = np.linspace(-3, 3, 12).reshape(3, 4)
    b = np.array([0.5, -1.5, 2.0, 3.25])  # one row, repeated over a's rows
    outs = [np.zeros_like(a) for _ in range(8)]
    run1(binary_ops, a, b, *outs)
    for got, fn in zip(outs, [np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide,
                              np.remainder, np.arctan2, np.hypot]):
        np.testing.assert_allclose(got, fn(a, b), rtol=1e-13)
    # A scalar operand repeats over every element.
    outs = [np.zeros_like(a) for _ in range(8)]
    run1(binary_ops, a, 1.25, *outs)
    np.testing.assert_allclose(outs[0], a + 1.25)
    np.testing.assert_allclose(outs[4], np.floor_divide(a, 1.25))


@gpu.jit
def axis_of_one(a, b, out):
    np.add(a, b, out)


def test_axis_of_length_one_repeats():
    a = np.arange(3.0).reshape(3, 1)
    b = np.arange(4.0).reshape(1, 4)
    out = np.zeros((3, 4))
    run1(axis_of_one, a, b, out)
    np.testing.assert_array_equal(out, a + b)


@gpu.jit
def compare_all(a, b, gt, ge, lt, le, eq, ne):
    np.greater(a, b, gt)
    np.greater_equal(a, b, ge)
    np.less(a, b, lt)
    np.less_equal(a, b, le)
    np.equal(a, b, eq)
    np.not_equal(a, b, ne)


FUNCS = [np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal]


def test_complex_numbers_compare_in_numpy_order():
    a = np.array([1 + 2j, 1 + 2j, 1 + 2j, 2 - 5j, np.nan + 0j], dtype=np.complex128)
    b = np.array([1 + 3j, 1 + 2j, 0 + 9j, 2 - 6j, 1 + 0j], dtype=np.complex128)
    outs = [np.zeros(a.size, np.bool_) for _ in FUNCS]
    run1(compare_all, a, b, *outs)
    for got, fn in zip(outs, FUNCS):
        np.testing.assert_array_equal(got, fn(a, b), err_msg=fn.__name__)


def test_int64_against_uint64_is_exact():
    # Through float64 (Python's rule) 2**63 - 1 and 2**63 would compare equal; NumPy compares exactly.
    a = np.array([-1, -1, 0, 2**63 - 1, 5], dtype=np.int64)
    b = np.array([0, 2**64 - 1, 0, 2**63, 5], dtype=np.uint64)
    outs = [np.zeros(a.size, np.bool_) for _ in FUNCS]
    run1(compare_all, a, b, *outs)
    for got, fn in zip(outs, FUNCS):
        np.testing.assert_array_equal(got, fn(a, b), err_msg=fn.__name__)
    outs = [np.zeros(a.size, np.bool_) for _ in FUNCS]
    run1(compare_all, b, a, *outs)
    for got, fn in zip(outs, FUNCS):
        np.testing.assert_array_equal(got, fn(b, a), err_msg=fn.__name__ + " (uint64, int64)")


@gpu.jit
def extrema(a, b, mx, mn, fmx, fmn):
    np.maximum(a, b, mx)
    np.minimum(a, b, mn)
    np.fmax(a, b, fmx)
    np.fmin(a, b, fmn)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_maximum_propagates_nan_and_fmax_drops_it(dtype):
    a = np.array([1.0, np.nan, 3.0, np.nan, -0.5], dtype=dtype)
    b = np.array([2.0, 1.0, np.nan, np.nan, -0.25], dtype=dtype)
    if dtype == np.complex128:
        a = a + np.array([0, 0, 1j, 0, 2j])
        b = b + np.array([0, 0, 0, 0, -2j])
    outs = [np.zeros_like(a) for _ in range(4)]
    run1(extrema, a, b, *outs)
    for got, fn in zip(outs, [np.maximum, np.minimum, np.fmax, np.fmin]):
        np.testing.assert_array_equal(got, fn(a, b), err_msg=fn.__name__)


@gpu.jit
def logic_and_bits(a, b, land, lor, lxor, lnot, band, bor, bxor, inv):
    np.logical_and(a, b, land)
    np.logical_or(a, b, lor)
    np.logical_xor(a, b, lxor)
    np.logical_not(a, lnot)
    np.bitwise_and(a, b, band)
    np.bitwise_or(a, b, bor)
    np.bitwise_xor(a, b, bxor)
    np.invert(a, inv)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_])
def test_logical_and_bitwise(dtype):
    a = np.array([0, 1, 1, 0, 1, 0], dtype=dtype) if dtype == np.bool_ else np.array([0, 3, 5, 0, 7, 12], dtype)
    b = np.array([0, 0, 1, 1, 1, 0], dtype=dtype) if dtype == np.bool_ else np.array([0, 0, 6, 9, 1, 4], dtype)
    outs = [np.zeros(a.size, np.bool_) for _ in range(4)] + [np.zeros_like(a) for _ in range(4)]
    run1(logic_and_bits, a, b, *outs)
    want = [np.logical_and(a, b), np.logical_or(a, b), np.logical_xor(a, b), np.logical_not(a),
            np.bitwise_and(a, b), np.bitwise_or(a, b), np.bitwise_xor(a, b), np.invert(a)]
    for got, w in zip(outs, want):
        np.testing.assert_array_equal(got, w)


@gpu.jit
def into_other_dtype(a, out_int, out_complex):
    np.greater(a, 0.5, out_int)  # bool into int32: 'same_kind' allows it
    np.sin(a, out_complex)


def test_results_convert_into_the_output_dtype():
    a = np.linspace(0, 1, 5)
    oi, oc = np.zeros(5, np.int32), np.zeros(5, np.complex128)
    run1(into_other_dtype, a, oi, oc)
    np.testing.assert_array_equal(oi, (a > 0.5).astype(np.int32))
    np.testing.assert_allclose(oc, np.sin(a))


@gpu.jit
def scalar_in_array_out(x, out):
    np.cos(x, out)


def test_scalar_input_fills_the_output():
    out = np.zeros(3, np.float32)
    run1(scalar_in_array_out, np.float32(0.5), out)
    np.testing.assert_allclose(out, np.full(3, np.cos(np.float32(0.5))), rtol=1e-6)


@gpu.jit
def returns_out(a, out, total):
    r = np.negative(a, out)
    total[0] = r[0] + r[1]


def test_the_call_returns_the_output_array():
    a = np.array([1.0, 2.0])
    out, total = np.zeros(2), np.zeros(1)
    run1(returns_out, a, out, total)
    assert total[0] == -3.0


@gpu.jit
def per_thread_rows(a, out):
    i = gpu.grid(1)
    if i < a.shape[0]:
        np.sqrt(a[i], out[i])


def test_each_thread_can_map_its_own_row():
    a = np.arange(24, dtype=np.float32).reshape(6, 4)
    out = np.zeros_like(a)
    per_thread_rows[1, 8](a, out)
    np.testing.assert_allclose(out, np.sqrt(a), rtol=1e-6)


def test_fortran_and_strided_arrays():
    a = np.asfortranarray(np.linspace(0, 1, 12).reshape(3, 4))
    out = np.zeros((3, 4))
    run1(axis_of_one, a, a[::1, ::1], out)
    np.testing.assert_allclose(out, 2 * a)
    b = np.linspace(0, 1, 24).reshape(3, 8)[:, ::2]
    out = np.zeros((3, 4))
    run1(axis_of_one, b, 1.0, out)
    np.testing.assert_allclose(out, b + 1.0)


def compile_error(src, *args):
    ns = {"np": np}
    exec(src, ns)
    k = gpu.jit(ns["k"])
    with pytest.raises(CompileError) as e:
        run1(k, *args)
    return str(e.value)


def test_an_array_without_an_output_is_refused_clearly():
    msg = compile_error("def k(a, out):\n    out[0] = np.sin(a)[0]\n", np.zeros(3), np.zeros(3))
    assert "np.sin() of an array needs an output array" in msg
    assert "np.sin(x, out)" in msg


def test_a_narrowing_output_is_refused_as_numpy_does():
    msg = compile_error("def k(a, out):\n    np.sin(a, out)\n", np.zeros(3), np.zeros(3, np.int32))
    assert "cannot write its float64 result into the int32 output array" in msg
    assert "same_kind" in msg


def test_inputs_of_higher_rank_than_the_output_are_refused():
    msg = compile_error("def k(a, out):\n    np.add(a, a, out)\n", np.zeros((2, 3)), np.zeros(3))
    assert "input 1 has 2 dimensions, more than the output array's 1" in msg


def test_bitwise_of_floats_is_refused():
    msg = compile_error("def k(a, out):\n    np.bitwise_and(a, a, out)\n", np.zeros(3), np.zeros(3))
    assert "np.bitwise_and() takes integers or booleans, got float64, float64" in msg


def test_a_scalar_output_and_unknown_keywords_are_refused():
    msg = compile_error("def k(a, out):\n    np.sin(a, out[0])\n", np.zeros(3), np.zeros(3))
    assert "writes its result into an array of numbers" in msg
    msg = compile_error("def k(a, out):\n    np.sin(a, out, where=True)\n", np.zeros(3), np.zeros(3))
    assert "unexpected keyword argument 'where'" in msg
