"""bfloat16 in kernels (gpujit.bf16, numba.cuda.bf16): the type, its conversions in every rounding mode, its
operators and the cuda.bf16 functions, on the default backend, against bit patterns computed here in Python
(exact integer arithmetic) and against ml_dtypes' bfloat16 where it is installed; and the PTX for sm_90."""

import math
from fractions import Fraction

import numpy as np
import pytest

import gpujit as gpu
from gpujit.bf16 import (bfloat16, bfloat16_as_int16, bfloat16_to_float32, bfloat16_to_int16_rd,
                         bfloat16_to_int16_rn, bfloat16_to_int16_ru, bfloat16_to_int16_rz, bfloat16_to_uint8_rz,
                         float32_to_bfloat16_rd, float32_to_bfloat16_rn, float32_to_bfloat16_ru,
                         float32_to_bfloat16_rz, float64_to_bfloat16, habs, hadd_sat, hequ, hfma, hfma_relu,
                         hadd_rn, hisinf, hisnan, hmax, hmax_nan, hmin_nan, hmul_rn, hmul_sat, hne, hneu, hsqrt,
                         hsub_rn, int16_as_bfloat16,
                         int64_to_bfloat16_rd, int64_to_bfloat16_rn, int64_to_bfloat16_ru, int64_to_bfloat16_rz,
                         ll2bfloat16_rn, uint64_to_bfloat16_rn)


def bf16_bits(value, mode="rn"):
    """The bfloat16 bits of a finite number (int, float or Fraction) rounded in `mode`, computed exactly."""
    x = Fraction(value)
    sign = 0x8000 if x < 0 else 0
    m = abs(x)
    if m == 0:
        return sign
    e = math.floor(math.log2(m))
    while Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    e = max(e, -126)  # subnormals keep the spacing of the smallest exponent
    scaled = m / Fraction(2) ** (e - 7)  # 8 significant bits above the point
    q, r = divmod(scaled, 1)
    q = int(q)
    away = {"rz": False, "ru": r > 0 and not sign, "rd": r > 0 and bool(sign),
            "rn": r > Fraction(1, 2) or (r == Fraction(1, 2) and q % 2 == 1)}[mode]
    q += away
    biased = e + 127 if q >= 128 else 0  # a subnormal has no implicit bit
    bits = (biased << 7) + (q - 128 if q >= 128 else q)
    return sign | min(bits, 0x7f80)


def as_int16(bits):
    return np.array([bits], np.uint16).view(np.int16)[0]


@gpu.jit
def from_f32_modes(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i, 0] = bfloat16_as_int16(float32_to_bfloat16_rn(x[i]))
        out[i, 1] = bfloat16_as_int16(float32_to_bfloat16_rz(x[i]))
        out[i, 2] = bfloat16_as_int16(float32_to_bfloat16_rd(x[i]))
        out[i, 3] = bfloat16_as_int16(float32_to_bfloat16_ru(x[i]))
        out[i, 4] = bfloat16_as_int16(bfloat16(x[i]))


def test_float32_to_bfloat16_in_each_rounding_mode():
    x = np.array([1.5, 1.00390625, 1.01171875, -1.00390625, -1.01171875, 1.0 + 2.0**-20, -(1.0 + 2.0**-20),
                  3.0e38, -3.0e38, 1e-40, 0.0], np.float32)
    out = np.zeros((x.size, 5), np.int16)
    from_f32_modes[1, 32](x, out)
    for i, v in enumerate(x):
        for j, mode in enumerate(["rn", "rz", "rd", "ru", "rn"]):
            assert out[i, j] == as_int16(bf16_bits(float(v), mode)), (v, mode)


@gpu.jit
def from_int64_modes(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i, 0] = bfloat16_as_int16(int64_to_bfloat16_rn(x[i]))
        out[i, 1] = bfloat16_as_int16(int64_to_bfloat16_rz(x[i]))
        out[i, 2] = bfloat16_as_int16(int64_to_bfloat16_rd(x[i]))
        out[i, 3] = bfloat16_as_int16(int64_to_bfloat16_ru(x[i]))
        out[i, 4] = bfloat16_as_int16(bfloat16(x[i]))
        out[i, 5] = bfloat16_as_int16(ll2bfloat16_rn(x[i]))


def test_int64_to_bfloat16_rounds_once_in_each_mode():
    # 2**40 + 2**32 + 1 is just above a tie of bfloat16: through float32 it would round to the even side.
    x = np.array([789, -789, 2**40 + 2**32 + 1, -(2**40 + 2**32 + 1), 2**40 + 2**32, 255, 257, 259, 0,
                  2**63 - 1, -2**63, 1, -1], np.int64)
    out = np.zeros((x.size, 6), np.int16)
    from_int64_modes[1, 32](x, out)
    for i, v in enumerate(x):
        for j, mode in enumerate(["rn", "rz", "rd", "ru", "rn", "rn"]):
            assert out[i, j] == as_int16(bf16_bits(int(v), mode)), (v, mode)


@gpu.jit
def from_uint64(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = bfloat16_as_int16(uint64_to_bfloat16_rn(x[i]))


def test_uint64_to_bfloat16():
    x = np.array([2**64 - 1, 2**63 + 2**55, 3], np.uint64)
    out = np.zeros(x.size, np.int16)
    from_uint64[1, 32](x, out)
    assert list(out) == [as_int16(bf16_bits(int(v))) for v in x]


@gpu.jit
def from_f64(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i, 0] = bfloat16_as_int16(bfloat16(x[i]))
        out[i, 1] = bfloat16_as_int16(float64_to_bfloat16(x[i]))


def test_float64_to_bfloat16_rounds_once():
    # Through float32 first, 1 + 2**-8 + 2**-30 becomes the tie 1 + 2**-8 and then 1.0; rounded once it is
    # above the tie and goes up to 1 + 2**-7.
    x = np.array([1 + 2.0**-8 + 2.0**-30, -(1 + 2.0**-8 + 2.0**-30), 3.14, 1e300, 1e-300], np.float64)
    out = np.zeros((x.size, 2), np.int16)
    from_f64[1, 32](x, out)
    for i, v in enumerate(x):
        want = as_int16(bf16_bits(Fraction(float(v)))) if abs(v) < 1e39 else as_int16(0x7f80)
        assert out[i, 0] == want and out[i, 1] == want, v
    assert out[0, 0] == as_int16(0x3f81)


@gpu.jit
def to_ints(bits, out, small):
    i = gpu.grid(1)
    if i < bits.size:
        b = int16_as_bfloat16(bits[i])
        out[i, 0] = bfloat16_to_int16_rn(b)
        out[i, 1] = bfloat16_to_int16_rz(b)
        out[i, 2] = bfloat16_to_int16_rd(b)
        out[i, 3] = bfloat16_to_int16_ru(b)
        out[i, 4] = int(b)
        small[i] = bfloat16_to_uint8_rz(b)


def test_bfloat16_to_integers_round_and_saturate():
    values = [1.5, -1.5, 2.5, -2.5, 0.75, 1e6, -1e6, float("nan")]
    bits = np.array([as_int16(0x7fc0) if math.isnan(v) else as_int16(bf16_bits(v)) for v in values], np.int16)
    out = np.zeros((len(values), 5), np.int16)
    small = np.zeros(len(values), np.uint8)
    to_ints[1, 32](bits, out, small)
    want = [[2, 1, 1, 2, 1], [-2, -1, -2, -1, -1], [2, 2, 2, 3, 2], [-2, -2, -3, -2, -2], [1, 0, 0, 1, 0],
            [32767] * 5, [-32768] * 4 + [-32768], [0, 0, 0, 0, 0]]
    np.testing.assert_array_equal(out[:, :4], np.array(want)[:, :4])
    assert list(out[:5, 4]) == [1, -1, 2, -2, 0]
    assert list(small) == [1, 0, 2, 0, 0, 255, 0, 0]


@gpu.jit
def operators(a, b, out, flags):
    i = gpu.grid(1)
    if i < a.size:
        x = bfloat16(a[i])
        y = bfloat16(b[i])
        out[i, 0] = float32(x + y)
        out[i, 1] = float32(x - y)
        out[i, 2] = float32(x * y)
        out[i, 3] = float32(x / y)
        out[i, 4] = float32(-x)
        out[i, 5] = float32(hfma(x, y, x))
        out[i, 6] = float32(math.sqrt(x))
        out[i, 7] = bfloat16_to_float32(hsqrt(habs(x)))
        flags[i, 0] = x < y
        flags[i, 1] = x == y
        flags[i, 2] = x != y
        flags[i, 3] = hne(x, y)
        flags[i, 4] = hneu(x, y)
        flags[i, 5] = hequ(x, y)
        flags[i, 6] = hisnan(x)
        flags[i, 7] = bool(x)


def bf16_round(values):
    """Numbers rounded to bfloat16 once (to nearest even), as float32."""
    return np.array([np.array([bf16_bits(Fraction(float(v))) << 16], np.uint32).view(np.float32)[0]
                     if np.isfinite(v) else v for v in np.asarray(values, np.float64)], np.float32)


def test_operators_round_each_result_to_bfloat16():
    a = np.array([1.25, 3.14159, -2.5, 100.0, 0.0, 7.0, np.nan], np.float32)
    b = np.array([-2.5, 2.71828, -2.5, 3.0, 1.0, 0.1, 1.0], np.float32)
    out = np.zeros((a.size, 8), np.float32)
    flags = np.zeros((a.size, 8), np.bool_)
    operators[1, 32](a, b, out, flags)
    x, y = bf16_round(a).astype(np.float64), bf16_round(b).astype(np.float64)  # exact sums and products
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out[:, 0], bf16_round(x + y))
        np.testing.assert_array_equal(out[:, 1], bf16_round(x - y))
        np.testing.assert_array_equal(out[:, 2], bf16_round(x * y))
        np.testing.assert_array_equal(out[:, 3], bf16_round(x / y))
        np.testing.assert_array_equal(out[:, 4], (-x).astype(np.float32))
        np.testing.assert_array_equal(out[:, 5], bf16_round(x * y + x))
        np.testing.assert_array_equal(out[:, 6], bf16_round(np.sqrt(x)))
        np.testing.assert_array_equal(out[:, 7], bf16_round(np.sqrt(np.abs(x))))
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(flags[:, 0], x < y)
        np.testing.assert_array_equal(flags[:, 1], x == y)
        np.testing.assert_array_equal(flags[:, 2], x != y)
        np.testing.assert_array_equal(flags[:, 3], (x != y) & ~np.isnan(x) & ~np.isnan(y))
        np.testing.assert_array_equal(flags[:, 4], x != y)
        np.testing.assert_array_equal(flags[:, 5], (x == y) | np.isnan(x) | np.isnan(y))
        np.testing.assert_array_equal(flags[:, 6], np.isnan(x))
        np.testing.assert_array_equal(flags[:, 7], x != 0)


@gpu.jit
def special(out, iout):
    nan = bfloat16(float("nan"))
    two = bfloat16(2.0)
    out[0] = float32(hadd_sat(bfloat16(1.5), bfloat16(0.75)))
    out[1] = float32(hmul_sat(bfloat16(-1.5), two))
    out[2] = float32(hadd_sat(nan, two))
    out[3] = float32(hfma_relu(bfloat16(-1.5), two, bfloat16(0.0)))
    out[4] = float32(hfma_relu(bfloat16(1.5), two, bfloat16(0.25)))
    out[5] = float32(hmax(nan, two))
    out[6] = float32(hmax_nan(nan, two))
    out[7] = float32(hmin_nan(two, nan))
    iout[0] = hisinf(bfloat16(float("inf")))
    iout[1] = hisinf(bfloat16(-float("inf")))
    iout[2] = hisinf(two)
    iout[3] = hisinf(bfloat16(1e39))  # rounds to infinity


def test_saturation_relu_nan_and_inf_functions():
    out = np.zeros(8, np.float32)
    iout = np.zeros(4, np.int32)
    special[1, 1](out, iout)
    assert list(out[:6]) == [1.0, 0.0, 0.0, 0.0, 3.25, 2.0]
    assert np.isnan(out[6]) and np.isnan(out[7])
    assert list(iout) == [1, -1, 0, 1]


@gpu.jit
def math_kernel(out):
    x = bfloat16(3.14)
    out[0] = float32(math.trunc(x))
    out[1] = float32(math.ceil(x))
    out[2] = float32(math.floor(x))
    out[3] = float32(math.exp(x))
    out[4] = float32(math.exp2(x))
    out[5] = float32(math.log(x))
    out[6] = float32(math.sin(x))
    out[7] = float32(math.tanh(x))


def test_math_functions_of_bfloat16_give_bfloat16():
    out = np.zeros(8, np.float32)
    math_kernel[1, 1](out)
    x = 3.140625  # bfloat16(3.14)
    want = [3.0, 4.0, 3.0, math.exp(x), 2**x, math.log(x), math.sin(x), math.tanh(x)]
    np.testing.assert_array_equal(out, bf16_round(want))


def test_mixing_bfloat16_with_other_types_is_an_error():
    @gpu.jit
    def mixed(out, a):
        out[0] = float32(bfloat16(a[0]) + a[0])

    with pytest.raises(gpu.CompileError, match=r"unsupported operand types for \+: 'bfloat16' and 'float32'.*"
                                               r"convert the other with bfloat16\(x\)"):
        mixed[1, 1](np.zeros(1, np.float32), np.ones(1, np.float32))

    @gpu.jit
    def no_atan(out):
        out[0] = float32(math.atan(bfloat16(1.0)))

    with pytest.raises(gpu.CompileError, match=r"math.atan\(\) does not take a bfloat16 argument"):
        no_atan[1, 1](np.zeros(1, np.float32))

    @gpu.jit
    def no_float32_compare(out, a):
        out[0] = bfloat16(a[0]) < a[0]

    with pytest.raises(gpu.CompileError, match=r"cannot compare 'bfloat16' and 'float32'"):
        no_float32_compare[1, 1](np.zeros(1, np.bool_), np.ones(1, np.float32))


def add_bf16(out, a, b):
    out[0] = float32(bfloat16(a[0]) * bfloat16(b[0]) + bfloat16(a[0]))


float32 = gpu.float32


def test_ptx_uses_bf16_instructions_on_sm_90_and_needs_sm_80():
    sig = "void(float32[::1], float32[::1], float32[::1])"
    ptx, _ = gpu.compile_ptx(add_bf16, sig, cc=(9, 0))
    assert "cvt.rn.bf16.f32" in ptx
    assert "fma.rn.bf16" in ptx or ("mul.rn.bf16" in ptx and "add.rn.bf16" in ptx)
    ptx80, _ = gpu.compile_ptx(add_bf16, sig, cc=(8, 0))
    assert "bf16" in ptx80
    with pytest.raises(gpu.CompileError, match=r"bfloat16 needs a GPU of compute capability 8.0 or newer"):
        gpu.compile_ptx(add_bf16, sig, cc=(7, 5))


def rn_forms(out, a, b):
    x = bfloat16(a[0])
    y = bfloat16(b[0])
    out[0] = float32(hadd_rn(hmul_rn(x, y), x))
    out[1] = float32(hsub_rn(x, y))


def test_rn_forms_are_not_contracted():
    sig = "void(float32[::1], float32[::1], float32[::1])"
    ptx, _ = gpu.compile_ptx(rn_forms, sig, cc=(9, 0))
    # the product and the sum are two roundings, never one fused x * y + x
    assert ptx.count("fma.rn.bf16") == 3, ptx
    kernel = gpu.jit(rn_forms)
    out = np.zeros(2, np.float32)
    x = 1.0234375  # 1 + 3 * 2**-7: x * x + x is 2.0625 rounded twice, 2.078125 fused
    kernel[1, 1](out, np.array([x], np.float32), np.array([x], np.float32))
    assert list(out) == [2.0625, 0.0]


def test_host_side_names():
    assert gpu.is_bfloat16_supported() in (True, False)
    if gpu._core.backend_name() == "cpu":
        assert gpu.is_bfloat16_supported()
    with pytest.raises(RuntimeError, match="only be called inside a kernel"):
        gpu.bf16.hadd(1, 2)
    assert str(bfloat16) == "bfloat16"
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert bfloat16(3.14) == ml_dtypes.bfloat16(3.14)


@gpu.jit
def float_of_strings(out):
    out[0] = float("nan")
    out[1] = float("-inf")
    out[2] = float(" Infinity ")
    out[3] = float("1.5")


def test_float_of_a_string_constant():
    # numba folds float("nan") and friends; numba-cuda's bfloat16 tests make NaN and inf so.
    out = np.zeros(4, np.float64)
    float_of_strings[1, 1](out)
    assert np.isnan(out[0]) and list(out[1:]) == [-np.inf, np.inf, 1.5]

    @gpu.jit
    def bad(out):
        out[0] = float("one")

    with pytest.raises(gpu.CompileError, match=r"float\(\) of a string takes a number, 'nan', 'inf'"):
        bad[1, 1](np.zeros(1))


def test_bfloat16_arrays_say_what_to_pass_instead():
    ml_dtypes = pytest.importorskip("ml_dtypes")

    @gpu.jit
    def read(a, out):
        out[0] = float32(a[0])

    with pytest.raises(TypeError, match=r"arrays of bfloat16 cannot be passed to kernels yet; pass float32"):
        read[1, 1](np.ones(2, ml_dtypes.bfloat16), np.zeros(1, np.float32))
