"""float16 in kernels against NumPy: np.float16 arrays and scalars as arguments, float16 arithmetic (each
operation rounded to float16, as NumPy does; a GPU may fuse a multiply-add into one f16 fma, which rounds
once, so results may differ by one float16 ulp there), conversions to and from other types, and the math
functions numba-cuda types for float16."""

import math

import numpy as np
import pytest

import gpujit as gpu


def f16_close(got, want, scale=None):
    """Equal within one float16 ulp of `want`, plus one of `scale` (the largest intermediate: a fused
    multiply-add skips the product's rounding, which cancellation can make larger than the result's ulp)."""
    got = got.astype(np.float64)
    want = want.astype(np.float64)
    bound = np.spacing(np.abs(want).astype(np.float16)).astype(np.float64)
    if scale is not None:
        bound += np.spacing(np.abs(scale).astype(np.float16)).astype(np.float64)
    assert np.all(np.abs(got - want) <= bound), (got, want)


@gpu.jit
def half_arith(a, b, s, out_mul, out_add, out_div, out_mixed):
    i = gpu.grid(1)
    if i < a.size:
        out_mul[i] = a[i] * b[i]
        out_add[i] = a[i] + b[i] * s
        out_div[i] = a[i] / b[i]
        out_mixed[i] = a[i] - 0.5 * b[i]


def test_float16_arrays_and_arithmetic_match_numpy():
    n = 500
    rng = np.random.default_rng(0)
    a = rng.uniform(-4, 4, n).astype(np.float16)
    b = rng.uniform(0.5, 3, n).astype(np.float16)
    s = np.float16(1.5)
    outs = [np.zeros(n, np.float16) for _ in range(4)]
    half_arith[4, 128](a, b, s, *outs)
    mul, add, div, mixed = outs
    np.testing.assert_array_equal(mul, a * b)
    f16_close(add, a + b * s, scale=b * s)
    np.testing.assert_array_equal(div, a / b)
    f16_close(mixed, a - np.float16(0.5) * b, scale=b)


@gpu.jit
def conversions(h, f, i, to_f32, to_f64, to_i32, from_f32, from_i64, from_f64):
    k = gpu.grid(1)
    if k < h.size:
        to_f32[k] = h[k]
        to_f64[k] = h[k]
        to_i32[k] = h[k]
        from_f32[k] = f[k]
        from_i64[k] = i[k]
        from_f64[k] = gpu.float16(f[k] * 1.0)


@np.errstate(over="ignore")
def test_conversions_round_like_numpy():
    n = 64
    h = np.linspace(-70000, 70000, n).astype(np.float16)  # includes +-inf beyond float16's range
    h[:4] = [np.float16(0.1), -np.float16(2.5), np.float16(65504), np.float16(6e-8)]
    f = np.random.default_rng(1).uniform(-1000, 1000, n).astype(np.float32)
    f[:3] = [np.float32(1.0009765625 + 2.0 ** -12), np.float32(1e-7), np.float32(70000.0)]
    ints = np.arange(-32, 32, dtype=np.int64) * 1001
    to_f32 = np.zeros(n, np.float32)
    to_f64 = np.zeros(n, np.float64)
    to_i32 = np.zeros(n, np.int32)
    from_f32, from_i64, from_f64 = (np.zeros(n, np.float16) for _ in range(3))
    conversions[1, n](h, f, ints, to_f32, to_f64, to_i32, from_f32, from_i64, from_f64)
    np.testing.assert_array_equal(to_f32, h.astype(np.float32))
    np.testing.assert_array_equal(to_f64, h.astype(np.float64))
    finite = np.isfinite(h)
    np.testing.assert_array_equal(to_i32[finite], np.trunc(h[finite]).astype(np.int32))
    np.testing.assert_array_equal(from_f32, f.astype(np.float16))
    np.testing.assert_array_equal(from_i64, ints.astype(np.float16))
    np.testing.assert_array_equal(from_f64, f.astype(np.float64).astype(np.float16))


@pytest.mark.parametrize("dtype, cvt", [(np.int8, "cvt.rn.f16.s8"), (np.uint8, "cvt.rn.f16.u8")])
def test_bytes_convert_to_float16_in_one_instruction(dtype, cvt):
    # PTX converts a byte straight to half (as nvcc and numba emit it); every value of the byte round-trips.
    @gpu.jit
    def to_half(a, out):
        i = gpu.grid(1)
        if i < a.size:
            out[i] = np.float16(a[i])

    info = np.iinfo(dtype)
    a = np.arange(info.min, info.max + 1).astype(dtype)
    out = np.zeros(a.size, np.float16)
    to_half[1, a.size](a, out)
    np.testing.assert_array_equal(out, a.astype(np.float16))
    sig = f"void({np.dtype(dtype).name}[::1], float16[::1])"
    assert cvt in to_half.inspect_ptx(sig)


@gpu.jit
def half_math(h, out):
    i = gpu.grid(1)
    if i < h.size:
        out[i, 0] = math.sqrt(h[i])
        out[i, 1] = math.exp(h[i])
        out[i, 2] = math.log(h[i])
        out[i, 3] = math.sin(h[i])
        out[i, 4] = math.floor(h[i] * 3)
        out[i, 5] = abs(-h[i])


def test_float16_math_functions():
    h = np.linspace(0.25, 4, 40).astype(np.float16)
    out = np.zeros((h.size, 6), np.float16)
    half_math[1, 64](h, out)
    wide = h.astype(np.float32)
    for k, want in enumerate([np.sqrt(wide), np.exp(wide), np.log(wide), np.sin(wide),
                              np.floor((h * np.float16(3)).astype(np.float32)), wide]):
        f16_close(out[:, k], want.astype(np.float16))


@gpu.jit
def accumulate(h, out):
    total = gpu.float16(0)
    for i in range(h.size):
        total += h[i]
    out[0] = total
    out[1] = total > h[0]


def test_float16_accumulates_in_float16():
    h = np.full(300, 0.1, np.float16)
    out = np.zeros(2, np.float16)
    accumulate[1, 1](h, out)
    want = np.float16(0)
    for v in h:
        want = np.float16(want + v)
    assert out[0] == want  # float16 rounding after every add stalls the sum well below 30
    assert out[0] < 30 and out[1] == 1


@pytest.mark.parametrize("value", [np.float16(2.5), 2.5])
def test_float16_scalar_argument(value):
    @gpu.jit
    def scale(x, s):
        i = gpu.grid(1)
        if i < x.size:
            x[i] = x[i] * s

    x = np.arange(8, dtype=np.float16)
    scale[1, 8](x, value)
    np.testing.assert_array_equal(x, np.arange(8, dtype=np.float16) * np.float16(2.5))
