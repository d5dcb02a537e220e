"""Whole-array reductions inside kernels (np.sum(a), a.max(), np.nanmean(a) ...) against NumPy, captured
tuples of arrays, and literal_unroll over them."""

import warnings

import numpy as np
import pytest

import gpujit as gpu
from gpujit.errors import CompileError

NAN, INF = float("nan"), float("inf")

CASES = [
    np.array([1.0, 2.0, 0.0, -0.0, 1.0, -1.5]),
    np.array([-1.5, 2.5, INF]),
    np.array([-1.5, 2.5, INF, -INF]),
    np.array([NAN, -1.5, 2.5, NAN, 3.0]),
    np.array([NAN, NAN]),
]

FUNCTIONS = ["sum", "prod", "mean", "var", "std", "min", "max", "nansum", "nanprod", "nanmean", "nanvar",
             "nanstd", "nanmin", "nanmax", "all", "any", "count_nonzero"]


def reducer(name):
    ns = {"np": np}
    exec(f"def k(a, out):\n    out[0] = np.{name}(a)\n", ns)
    return gpu.jit(ns["k"])


@pytest.mark.parametrize("name", FUNCTIONS)
def test_reductions_of_float64_match_numpy(name):
    k = reducer(name)
    for a in CASES:
        out = np.zeros(1)
        k[1, 1](a, out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy warns of all-NaN slices and empty means
            want = getattr(np, name)(a)
        np.testing.assert_allclose(out[0], want, rtol=1e-15, err_msg=f"np.{name}({a})")


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64, np.bool_, np.float32])
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "min", "max", "all", "any", "count_nonzero"])
def test_reductions_of_other_dtypes_use_numpys_result_type(name, dtype):
    a = np.array([[3, 1, 2], [1, 0, 5]], dtype=dtype)
    k = reducer(name)
    want = getattr(np, name)(a)
    out = np.zeros(1, dtype=np.result_type(want))
    k[1, 1](a, out)
    np.testing.assert_allclose(out[0], want, rtol=1e-6)


@gpu.jit
def methods(a, out):
    out[0] = a.sum()
    out[1] = a.prod()
    out[2] = a.mean()
    out[3] = a.var()
    out[4] = a.std()
    out[5] = a.min()
    out[6] = a.max()
    out[7] = a.all()
    out[8] = a.any()


def test_array_methods_and_strided_views():
    base = np.linspace(-2, 3, 24).reshape(4, 6)
    for a in (base, base[:, ::2], base[::-1]):
        out = np.zeros(9)
        methods[1, 1](a, out)
        want = [a.sum(), a.prod(), a.mean(), a.var(), a.std(), a.min(), a.max(), a.all(), a.any()]
        np.testing.assert_allclose(out, want, rtol=1e-13)


@gpu.jit
def row_sums(a, out):
    i = gpu.grid(1)
    if i < a.shape[0]:
        out[i] = np.sum(a[i])


def test_each_thread_reduces_its_own_row():
    a = np.arange(40, dtype=np.float32).reshape(8, 5)
    out = np.zeros(8, np.float32)
    row_sums[1, 8](a, out)
    np.testing.assert_array_equal(out, a.sum(axis=1))


def test_complex_sum_mean_var():
    a = np.array([1 + 2j, -0.5 + 1j, 3 - 1j])

    @gpu.jit
    def k(a, out, var):
        out[0] = np.sum(a)
        out[1] = np.mean(a)
        var[0] = np.var(a)

    out, var = np.zeros(2, np.complex128), np.zeros(1)
    k[1, 1](a, out, var)
    np.testing.assert_allclose(out, [a.sum(), a.mean()])
    np.testing.assert_allclose(var[0], np.var(a))


ARRAYS = (np.array([1.0, 2.0, 3.5]), np.array([-1.0]), np.array([NAN, 4.0]))


@gpu.jit
def over_tuple(out):
    i = 0
    for arr in gpu.literal_unroll(ARRAYS):
        out[i] = np.nansum(arr) + arr.size
        i += 1


def test_literal_unroll_over_a_captured_tuple_of_arrays():
    out = np.zeros(3)
    over_tuple[1, 1](out)
    np.testing.assert_array_equal(out, [np.nansum(a) + a.size for a in ARRAYS])


MIXED = (np.array([1.0, 2.0]), np.array([[1.0, 2.0]]))


def test_literal_unroll_over_differing_types_outside_a_loop_of_its_own_is_a_clear_error():
    # `for arr in literal_unroll(MIXED)` unrolls (tests/python/test_literal_unroll.py); enumerate() of it
    # would index the tuple with a variable.
    @gpu.jit
    def k(out):
        for i, arr in enumerate(gpu.literal_unroll(MIXED)):
            out[i] = arr.sum()

    with pytest.raises(CompileError) as e:
        k[1, 1](np.zeros(2))
    assert "literal_unroll() over a tuple whose elements differ in type" in str(e.value)


def test_reduction_errors_are_clear():
    @gpu.jit
    def axis(a, out):
        out[0] = np.sum(a, 0)

    with pytest.raises(CompileError) as e:
        axis[1, 1](np.zeros((2, 2)), np.zeros(1))
    assert "np.sum() takes one array in a kernel" in str(e.value)

    @gpu.jit
    def scalar(x, out):
        out[0] = np.max(x)

    with pytest.raises(CompileError) as e:
        scalar[1, 1](1.5, np.zeros(1))
    assert "np.max() reduces an array of numbers, got float64" in str(e.value)

    @gpu.jit
    def complex_max(a, out):
        out[0] = a.max()

    with pytest.raises(CompileError) as e:
        complex_max[1, 1](np.zeros(2, np.complex64), np.zeros(1, np.complex64))
    assert "np.max() of complex numbers is not supported" in str(e.value)
