"""complex64 and complex128 in kernels against NumPy and Python's cmath: NumPy's interleaved layout for arrays,
two parameters for a scalar, arithmetic with numba's typing (complex64 stays complex64), abs/.real/.imag/
.conjugate(), complex(a, b), and the cmath functions numba-cuda supports."""

import cmath
import math

import numpy as np
import pytest

import gpujit as gpu

RTOL = {np.complex64: 2e-6, np.complex128: 1e-13}


def sample(n, dtype, seed=0, scale=2.0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-scale, scale, n) + 1j * rng.uniform(-scale, scale, n)).astype(dtype)


@gpu.jit
def arith(a, b, c, add, sub, mul, div, neg, sq):
    i = gpu.grid(1)
    if i < a.size:
        add[i] = a[i] + b[i] + c
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        div[i] = a[i] / b[i]
        neg[i] = -a[i]
        sq[i] = a[i] ** 2


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_arithmetic_matches_numpy(dtype):
    n = 200
    a, b = sample(n, dtype, 1), sample(n, dtype, 2)
    c = dtype(0.5 - 0.25j)
    outs = [np.zeros(n, dtype) for _ in range(6)]
    arith[2, 128](a, b, c, *outs)
    add, sub, mul, div, neg, sq = outs
    tol = RTOL[dtype]
    np.testing.assert_allclose(add, a + b + c, rtol=tol)
    np.testing.assert_allclose(sub, a - b, rtol=tol, atol=tol)
    np.testing.assert_allclose(mul, a * b, rtol=tol)
    np.testing.assert_allclose(div, a / b, rtol=4 * tol)
    np.testing.assert_array_equal(neg, -a)
    np.testing.assert_allclose(sq, a * a, rtol=tol)


@gpu.jit
def parts(z, x, re, im, conj, mod, built, mixed):
    i = gpu.grid(1)
    if i < z.size:
        re[i] = z[i].real
        im[i] = z[i].imag
        conj[i] = z[i].conjugate()
        mod[i] = abs(z[i])
        built[i] = complex(x[i], -x[i])
        mixed[i] = 2 * z[i] + x[i] - x[i].imag + x[i].real * 1.5


def test_parts_abs_conjugate_and_construction():
    n = 64
    z = sample(n, np.complex128, 3)
    x = np.linspace(-3, 3, n)
    re, im, mod = (np.zeros(n) for _ in range(3))
    conj, built, mixed = (np.zeros(n, np.complex128) for _ in range(3))
    parts[1, n](z, x, re, im, conj, mod, built, mixed)
    np.testing.assert_array_equal(re, z.real)
    np.testing.assert_array_equal(im, z.imag)
    np.testing.assert_array_equal(conj, z.conj())
    np.testing.assert_allclose(mod, np.abs(z), rtol=1e-15)
    np.testing.assert_array_equal(built, x - 1j * x)
    np.testing.assert_allclose(mixed, 2 * z + x + 1.5 * x, rtol=1e-15)


@gpu.jit
def compare(a, b, eq, ne, truth):
    i = gpu.grid(1)
    if i < a.size:
        eq[i] = a[i] == b[i]
        ne[i] = a[i] != b[i]
        truth[i] = bool(a[i])


def test_equality_and_truth():
    a = np.array([1 + 2j, 0j, np.nan + 0j, 3 - 1j, 0 + 1e-300j], np.complex128)
    b = np.array([1 + 2j, -0.0 + 0j, np.nan + 0j, 3 + 1j, 0j], np.complex128)
    eq, ne, truth = (np.zeros(a.size, np.bool_) for _ in range(3))
    compare[1, a.size](a, b, eq, ne, truth)
    np.testing.assert_array_equal(eq, a == b)
    np.testing.assert_array_equal(ne, a != b)
    np.testing.assert_array_equal(truth, a != 0)


@gpu.jit
def cmath_unary(z, out):
    i = gpu.grid(1)
    if i < z.shape[0]:
        v = z[i]
        out[i, 0] = cmath.sqrt(v)
        out[i, 1] = cmath.exp(v)
        out[i, 2] = cmath.log(v)
        out[i, 3] = cmath.log10(v)
        out[i, 4] = cmath.sin(v)
        out[i, 5] = cmath.cos(v)
        out[i, 6] = cmath.tan(v)
        out[i, 7] = cmath.asin(v)
        out[i, 8] = cmath.acos(v)
        out[i, 9] = cmath.atan(v)
        out[i, 10] = cmath.sinh(v)
        out[i, 11] = cmath.cosh(v)
        out[i, 12] = cmath.tanh(v)
        out[i, 13] = cmath.asinh(v)
        out[i, 14] = cmath.acosh(v)
        out[i, 15] = cmath.atanh(v)
        out[i, 16] = cmath.log(v, 2.0)


UNARY = [np.sqrt, np.exp, np.log, np.log10, np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh,
         np.cosh, np.tanh, np.arcsinh, np.arccosh, np.arctanh, lambda z: np.log(z) / np.log(2.0)]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cmath_functions_match_numpy(dtype):
    z = sample(300, dtype, 4)
    # Points on the axes and the branch cuts' sides, where the formulas must keep the sign of zero.
    z[:8] = np.array([0.5 + 0j, -0.5 + 0j, 0 + 0.5j, 0 - 0.5j, 2 + 0j, -2 + 1e-3j, 1e-4 + 1e-4j, -3 - 0j], dtype)
    out = np.zeros((z.size, len(UNARY)), dtype)
    cmath_unary[3, 128](z, out)
    wide = z.astype(np.complex128)
    tol = 8 * RTOL[dtype]
    for k, f in enumerate(UNARY):
        want = f(wide)
        np.testing.assert_allclose(out[:, k], want, rtol=tol, atol=tol * 10, err_msg=f"function {k}")


@gpu.jit
def cmath_misc(z, r, phi, phase, polar_r, polar_phi, rect, nan, inf, finite):
    i = gpu.grid(1)
    if i < z.size:
        phase[i] = cmath.phase(z[i])
        pr, pp = cmath.polar(z[i])
        polar_r[i] = pr
        polar_phi[i] = pp
        rect[i] = cmath.rect(r[i], phi[i])
        nan[i] = cmath.isnan(z[i])
        inf[i] = cmath.isinf(z[i])
        finite[i] = cmath.isfinite(z[i])


def test_phase_polar_rect_and_predicates():
    z = np.array([1 + 1j, -1 + 0j, -1 - 0j, 0j, complex(np.inf, 1), complex(1, np.nan), 3 - 4j], np.complex128)
    r = np.abs(z.real) + 1
    phi = np.linspace(-3, 3, z.size)
    phi[0] = 0.0
    phase, polar_r, polar_phi = (np.zeros(z.size) for _ in range(3))
    rect = np.zeros(z.size, np.complex128)
    nan, inf, finite = (np.zeros(z.size, np.bool_) for _ in range(3))
    cmath_misc[1, z.size](z, r, phi, phase, polar_r, polar_phi, rect, nan, inf, finite)
    np.testing.assert_allclose(phase, [cmath.phase(v) for v in z], rtol=1e-15)
    np.testing.assert_allclose(polar_r, [cmath.polar(v)[0] for v in z], rtol=1e-15)
    np.testing.assert_allclose(polar_phi, [cmath.polar(v)[1] for v in z], rtol=1e-15)
    np.testing.assert_allclose(rect, [cmath.rect(a, b) for a, b in zip(r, phi)], rtol=1e-15, atol=1e-15)
    np.testing.assert_array_equal(nan, [cmath.isnan(v) for v in z])
    np.testing.assert_array_equal(inf, [cmath.isinf(v) for v in z])
    np.testing.assert_array_equal(finite, [cmath.isfinite(v) for v in z])


@gpu.jit
def power(a, b, out):
    i = gpu.grid(1)
    if i < a.size:
        out[i] = a[i] ** b[i]


def test_complex_power_follows_python():
    a = sample(50, np.complex128, 5)
    b = sample(50, np.complex128, 6, scale=1.5)
    b[:4] = [0j, 2 + 0j, 0.5 + 0j, 1.5 + 0j]
    a[3] = 0j  # 0 ** positive real is 0
    out = np.zeros(50, np.complex128)
    power[1, 64](a, b, out)
    np.testing.assert_allclose(out, [complex(x) ** complex(y) for x, y in zip(a, b)], rtol=1e-12)


@gpu.jit
def scale_inplace(z, s):
    i = gpu.grid(1)
    if i < z.size:
        z[i] = z[i] * s


def test_complex64_stays_complex64_and_views_work():
    z = sample(32, np.complex64, 7)
    want = z * np.complex64(1 - 2j)
    view = np.zeros(64, np.complex64)
    view[::2] = z
    scale_inplace[1, 32](view[::2], np.complex64(1 - 2j))
    np.testing.assert_allclose(view[::2], want, rtol=RTOL[np.complex64])
    assert not view[1::2].any()
    typed = scale_inplace.inspect_types(signature="void(complex64[:], complex64)")
    assert "complex128" not in typed and "float64" not in typed


def test_math_functions_reject_complex_arguments():
    @gpu.jit
    def bad(z, out):
        out[0] = math.sqrt(z[0])

    with pytest.raises(gpu.CompileError, match="must be a number, got complex128"):
        bad[1, 1](np.zeros(1, np.complex128), np.zeros(1))


@gpu.jit
def phasors(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = cmath.exp(1j * x[i]) + 2.5j - 1e-3J * x[i]


def test_imaginary_literals():
    x = np.linspace(-4, 4, 50)
    out = np.zeros(50, np.complex128)
    phasors[1, 64](x, out)
    np.testing.assert_allclose(out, np.exp(1j * x) + 2.5j - 1e-3j * x, rtol=1e-14, atol=1e-15)


@gpu.jit
def cmath_all(z, out):
    i = gpu.grid(1)
    if i < z.size:
        out[i, 0] = cmath.exp(z[i])
        out[i, 1] = cmath.log(z[i])
        out[i, 2] = cmath.sqrt(z[i])
        out[i, 3] = cmath.sin(z[i])
        out[i, 4] = cmath.cos(z[i])
        out[i, 5] = cmath.tan(z[i])
        out[i, 6] = cmath.asin(z[i])
        out[i, 7] = cmath.acos(z[i])
        out[i, 8] = cmath.atan(z[i])
        out[i, 9] = cmath.sinh(z[i])
        out[i, 10] = cmath.cosh(z[i])
        out[i, 11] = cmath.tanh(z[i])
        out[i, 12] = cmath.asinh(z[i])
        out[i, 13] = cmath.acosh(z[i])
        out[i, 14] = cmath.atanh(z[i])
        out[i, 15] = cmath.log10(z[i])
        out[i, 16] = cmath.rect(z[i].real, z[i].imag)


CMATH_ALL = [cmath.exp, cmath.log, cmath.sqrt, cmath.sin, cmath.cos, cmath.tan, cmath.asin, cmath.acos, cmath.atan,
             cmath.sinh, cmath.cosh, cmath.tanh, cmath.asinh, cmath.acosh, cmath.atanh, cmath.log10,
             lambda z: cmath.rect(z.real, z.imag)]


def _same(got, want, rtol):
    """Equal to within rtol, with NaN equal to NaN and the sign of an exact zero or infinity kept."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if math.isnan(w):
            if not math.isnan(g):
                return False
        elif w == 0 or math.isinf(w):
            if g != w or math.copysign(1, g) != math.copysign(1, w):
                return False
        elif abs(g - w) > rtol * abs(w):
            return False
    return True


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cmath_at_infinities_and_nans_follows_cpython(dtype):
    parts = [-math.inf, -2.5, -1.0, -0.0, 0.0, 0.75, 1.0, math.pi, math.inf, math.nan]
    z = np.array([complex(x, y) for x in parts for y in parts], dtype)
    out = np.zeros((z.size, len(CMATH_ALL)), dtype)
    cmath_all[2, 64](z, out)
    rtol = 1e-5 if dtype == np.complex64 else 1e-13
    bad = []
    for i, v in enumerate(z.astype(np.complex128)):
        for k, f in enumerate(CMATH_ALL):
            try:
                want = f(complex(v))
            except (ValueError, OverflowError):
                continue  # CPython raises there (a domain error); a kernel cannot
            if not _same(complex(out[i, k]), want, rtol):
                bad.append((k, complex(v), complex(out[i, k]), want))
    assert not bad, bad[:10]


@gpu.jit
def parts_views(values, out):
    i, j = gpu.grid(2)
    if i < values.shape[0] and j < values.shape[1]:
        gpu.atomic.add(values.real, (i, j), 1)
        values.imag[i, j] = values.imag[i, j] * 2
        out[i, j] = values.real[i, j] - values.imag[i, j]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_and_imag_of_a_complex_array_are_views_of_its_memory(dtype):
    base = (np.arange(24) + 1j * np.arange(24) * 3).astype(dtype).reshape(4, 6)
    a = base[:, 1::2]  # a strided view, so the parts' strides come from the array's own
    want_values = a + 1 + 1j * a.imag
    part = np.float32 if dtype == np.complex64 else np.float64
    out = np.zeros(a.shape, part)
    parts_views[(1, 1), a.shape](a, out)
    np.testing.assert_array_equal(a, want_values)
    np.testing.assert_array_equal(out, a.real - a.imag)
    np.testing.assert_array_equal(base[:, ::2], (np.arange(24) + 1j * np.arange(24) * 3).astype(dtype).reshape(4, 6)[:, ::2])


def test_imag_of_a_real_array_is_a_compile_error_and_real_is_the_array():
    @gpu.jit
    def real_ok(x):
        x.real[0] = 5

    x = np.zeros(3)
    real_ok[1, 1](x)
    assert x[0] == 5

    @gpu.jit
    def imag_bad(x):
        x.imag[0] = 1

    with pytest.raises(gpu.CompileError, match=r"'float64\[::1\]' has no imaginary parts to view") as e:
        imag_bad[1, 1](x)
    assert e.value.lineno == imag_bad.__code__.co_firstlineno + 2  # the line after the decorator and def
