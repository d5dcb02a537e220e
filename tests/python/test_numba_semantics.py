"""Builtins whose results follow numba-cuda's, bit for bit, where they differ from CPython's.

- round(x, ndigits) on a float: CPython's fallback algorithm, which numba-cuda uses (scale, round half away
  from zero, correct exact halves to even, scale back), so round(2.675, 2) is 2.68 here and in numba-cuda,
  2.67 in CPython (which rounds the exact decimal value).
- min/max of two floats: C's fmin/fmax, a NaN operand loses (numba-cuda calls libdevice's fmin/fmax); the
  PTX is one min/max instruction.
- a float constant next to a float32 value: float64 arithmetic rounded once on store, as numba (and C) type
  it, so x[i] * 0.1 matches numba-cuda's result bit for bit; the compiler issues a PerformanceWarning at the
  user's line (warn_float64=False silences it). Integer constants beside int32 values widen to int64.
"""

import inspect
import math
import warnings

import numpy as np
import pytest

import gpujit as gpu


def round_like_numba(x, ndigits):
    """The reference: CPython's fallback double_round, in Python."""
    if math.isinf(x) or math.isnan(x):
        return x
    if ndigits >= 0:
        pow1, pow2 = (10.0 ** (ndigits - 22), 1e22) if ndigits > 22 else (10.0**ndigits, 1.0)
        y = (x * pow1) * pow2
        if math.isinf(y):
            return x
    else:
        pow1 = 10.0 ** (-ndigits)
        y = x / pow1

    def half_away(v):
        return math.floor(v + 0.5) if v >= 0 else math.ceil(v - 0.5)

    z = half_away(y)
    if abs(y - z) == 0.5:
        z = 2.0 * half_away(y / 2.0)
    return (z / pow2) / pow1 if ndigits >= 0 else z * pow1


@gpu.jit
def round_digits(out, x, n):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = round(x[i], n)


@pytest.mark.parametrize("ndigits", [0, 1, 2, 3, -1, -2, 25])
def test_round_ndigits_matches_numba(ndigits):
    x = np.array([2.675, 0.125, 0.375, -1.5, 12345.6789, np.inf, -np.inf, np.nan, 1e300, 2.5, -0.5, 7.45])
    out = np.zeros_like(x)
    round_digits[1, 32](out, x, ndigits)
    want = np.array([round_like_numba(float(v), ndigits) for v in x])
    np.testing.assert_array_equal(out, want)


def test_round_ndigits_keeps_float32():
    x = np.array([1.23456, -2.5, 0.0625], np.float32)
    out = np.zeros_like(x)
    round_digits[1, 32](out, x, 2)
    want = np.array([round_like_numba(float(v), 2) for v in x]).astype(np.float32)
    np.testing.assert_array_equal(out, want)
    assert "float32" in round_digits.inspect_types(gpu.void(gpu.float32[::1], gpu.float32[::1], gpu.int64))


def test_round_ndigits_of_an_integer_is_an_error():
    @gpu.jit
    def bad(out, x):
        out[0] = round(x[0], 2)

    with pytest.raises(gpu.CompileError, match=r"round\(x, ndigits\) takes a float x"):
        bad[1, 1](np.zeros(1, np.int64), np.zeros(1, np.int64))


@gpu.jit
def builtin_pow(ints, floats, zs, i, n, x, z):
    ints[0] = pow(i, n)
    floats[0] = pow(x, n)
    floats[1] = pow(x, 0.5)
    zs[0] = pow(z, 3)
    zs[1] = pow(z, z)


def test_builtin_pow_is_the_operator():
    ints, floats, zs = np.zeros(1, np.int64), np.zeros(2), np.zeros(2, np.complex128)
    builtin_pow[1, 1](ints, floats, zs, 3, 5, 2.5, 1 + 2j)
    assert ints[0] == 3**5 and floats[0] == 2.5**5 and floats[1] == 2.5**0.5
    np.testing.assert_allclose(zs, [(1 + 2j) ** 3, (1 + 2j) ** (1 + 2j)], rtol=1e-13)


def test_builtin_pow_with_a_modulus_is_an_error():
    @gpu.jit
    def bad(out):
        out[0] = pow(2, 3, 5)

    with pytest.raises(gpu.CompileError, match=r"pow\(\) takes 2 arguments, got 3") as e:
        bad[1, 1](np.zeros(1, np.int64))
    assert "^" in str(e.value)


@gpu.jit
def extremes(lo, hi, a, b):
    i = gpu.grid(1)
    if i < a.size:
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])


def test_min_max_of_two_floats_are_fmin_fmax():
    a = np.array([1.0, np.nan, 3.0, np.nan, -0.5])
    b = np.array([2.0, 1.0, np.nan, np.nan, -0.25])
    lo, hi = np.zeros_like(a), np.zeros_like(a)
    extremes[1, 8](lo, hi, a, b)
    np.testing.assert_array_equal(lo, np.fmin(a, b))
    np.testing.assert_array_equal(hi, np.fmax(a, b))
    ptx = extremes.inspect_ptx(gpu.void(*[gpu.float64[::1]] * 4))
    assert "min.f64" in ptx and "max.f64" in ptx


def scale_by_tenth(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = x[i] * 0.1  # one operation: no multiply-add contraction to tell the backends apart


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(n for n, line in enumerate(lines) if text in line)


def _ignore_launch_warnings():
    """On a GPU these tests' small grids and NumPy arrays warn at the launch; they check the compiler's warning."""
    warnings.filterwarnings("ignore", "Grid size|Host array", gpu.PerformanceWarning)


def test_float_constants_make_float32_arithmetic_float64():
    x = (np.arange(4096, dtype=np.float32) * np.float32(1.37)).astype(np.float32)
    out = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpu.PerformanceWarning)
        gpu.jit(scale_by_tenth)[16, 256](x, out)
    wide = (x.astype(np.float64) * 0.1).astype(np.float32)
    narrow = x * np.float32(0.1)
    np.testing.assert_array_equal(out, wide)
    assert (out != narrow).any()  # the float32 computation rounds differently for some of these inputs


def test_float64_in_a_float32_kernel_warns_at_the_users_line():
    x = np.ones(8, np.float32)
    with pytest.warns(gpu.PerformanceWarning, match=r"the float64 constant 0\.1 makes this compute in float64") as w:
        gpu.jit(scale_by_tenth)[1, 8](x, np.zeros_like(x))
    w = [x for x in w if "float64" in str(x.message)]  # on a GPU the launch warns too (test_warnings.py)
    assert len(w) == 1  # once per compile, at the first such operation
    assert w[0].filename == __file__
    assert w[0].lineno == _line_of(scale_by_tenth, "x[i] * 0.1")
    assert "np.float32(0.1)" in str(w[0].message)


def test_float64_warning_is_off_for_float64_kernels_and_when_asked():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ignore_launch_warnings()
        x64 = np.ones(8)
        gpu.jit(scale_by_tenth)[1, 8](x64, np.zeros_like(x64))
        x = np.ones(8, np.float32)
        gpu.jit(warn_float64=False)(scale_by_tenth)[1, 8](x, np.zeros_like(x))


def test_float64_warning_as_error_stops_the_compile():
    x = np.ones(8, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpu.PerformanceWarning)
        _ignore_launch_warnings()
        with pytest.raises(gpu.PerformanceWarning, match="float64"):
            gpu.jit(scale_by_tenth)[1, 8](x, np.zeros_like(x))


def test_float32_constants_keep_a_kernel_float32():
    @gpu.jit
    def scale32(x, out):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = x[i] * np.float32(0.1)

    x = (np.arange(4096, dtype=np.float32) * np.float32(1.37)).astype(np.float32)
    out = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ignore_launch_warnings()
        scale32[16, 256](x, out)
    np.testing.assert_array_equal(out, x * np.float32(0.1))
    assert ".f64" not in scale32.inspect_ptx("void(float32[::1], float32[::1])")


def test_int_constants_widen_int32_to_int64():
    @gpu.jit
    def wrap(x, out):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = (x[i] + 1) // 2  # int64 arithmetic, as numba: no int32 overflow at the top of the range

    x = np.array([2**31 - 1, -(2**31), 7], np.int32)
    out = np.zeros(3, np.int64)
    wrap[1, 4](x, out)
    np.testing.assert_array_equal(out, (x.astype(np.int64) + 1) // 2)


def _add(r, x, y):
    r[0] = x + y


def test_explicit_signatures_take_the_best_fit_not_the_first():
    # numba rates each signature by its conversions (unsafe, then safe, then promoting ones) and takes the best.
    f = gpu.jit(["(float64[::1], float32, float32)", "(float64[::1], float64, float64)"])(_add)
    r = np.zeros(1)
    f[1, 1](r, np.float32(1), np.float32(2**-25))
    assert r[0] == 1.0  # float32 arithmetic
    f[1, 1](r, 1, 2**-25)
    assert r[0] == 1.0000000298023224  # int64 and float64 fit the float64 signature better

    @gpu.jit(["void(int64[::1], int8)", "void(int64[::1], int16)"])
    def store(r, x):
        r[0] = x

    r = np.zeros(1, np.int64)
    store[1, 1](r, np.uint8(255))  # uint8 -> int16 keeps every value, uint8 -> int8 does not
    assert r[0] == 255
    store[1, 1](r, np.int8(-3))
    assert r[0] == -3


def test_explicit_signatures_that_fit_equally_well_are_ambiguous():
    f = gpu.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                 "(float64[::1], int64, int64)"])(_add)
    with pytest.raises(TypeError, match=r"^Ambiguous overloading for kernel '_add' \(float64\[::1\], float64, float64\): "
                                        r"these signatures fit equally well:\n  \(float64\[::1\], float32, float64\)\n  "
                                        r"\(float64\[::1\], float64, float32\)\n"):
        f[1, 1](np.zeros(1), 1.0, 2.0)
    r = np.zeros(1)
    f[1, 1](r, np.float32(1.5), 2.0)  # exact for the first
    assert r[0] == 3.5


@gpu.jit
def numpy_operators(f, i, b, x, y, m, n):
    f[0] = np.add(x, y)
    f[1] = np.true_divide(m, n)  # int / int is float64, as the operator
    f[2] = np.fmax(x, np.nan)  # fmax: a NaN loses
    f[3] = np.remainder(-x, y)  # the divisor's sign, as Python's %
    i[0] = np.invert(m)
    i[1] = np.bitwise_and(m, n)
    i[2] = np.left_shift(m, 2)
    i[3] = np.floor_divide(-m, n)
    b[0] = np.less(x, y)
    b[1] = np.logical_not(n)
    b[2] = np.not_equal(m, n)
    b[3] = np.logical_and(m, x)  # the truth of each: 7 and 2.5 are true, 7 & 2 would be 2
    b[4] = np.logical_or(0, 0.0)
    b[5] = np.logical_xor(m, n)


def test_numpy_ufuncs_that_are_operators():
    f, i, b = np.zeros(4), np.zeros(4, np.int64), np.zeros(6, np.bool_)
    numpy_operators[1, 1](f, i, b, 2.5, 4.0, 7, 3)
    np.testing.assert_array_equal(f, [6.5, 7 / 3, 2.5, -2.5 % 4.0])
    np.testing.assert_array_equal(i, [~7, 7 & 3, 7 << 2, -7 // 3])
    np.testing.assert_array_equal(b, [True, False, True, True, False, False])


def test_numpy_operator_ufunc_errors_name_the_numpy_function():
    @gpu.jit
    def bad(out, t):
        out[0] = np.logical_and(t, 1)

    with pytest.raises(gpu.CompileError, match=r"np\.logical_and\(\) argument 1 must be a number"):
        bad[1, 1](np.zeros(1, np.bool_), (1, 2))
