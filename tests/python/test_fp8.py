"""fp8 in kernels (gpujit.fp8; numba.cuda._internal.cuda_fp8): the e4m3, e5m2 and e8m0 types, their conversions
and the cvt_* functions, on the default backend, bit for bit against a reference written here from the formats'
definitions (not from CUDA's code): every one of the 256 bytes of each format decoded, and float32/float64
values encoded with each saturation, interpretation and rounding mode; and the PTX for sm_89+ (PTX's cvt
instructions) and for older targets (the software conversions), assembled by ptxas."""

import math
import os
import shutil
import subprocess

import numpy as np
import pytest

import gpujit as gpu
from gpujit.bf16 import bfloat16
from gpujit.fp8 import (cudaRoundMode, cvt_bfloat16raw_to_e8m0, cvt_bfloat16raw_to_fp8, cvt_double2_to_fp8x2,
                        cvt_double_to_e8m0, cvt_double_to_fp8, cvt_e8m0_to_bf16raw, cvt_float2_to_e8m0x2,
                        cvt_float2_to_fp8x2, cvt_float_to_e8m0, cvt_float_to_fp8, cvt_fp8_to_halfraw,
                        fp8_e4m3, fp8_e5m2, fp8_e8m0, fp8_interpretation_t, saturation_t)

NOSAT, SATFINITE = saturation_t.NOSAT, saturation_t.SATFINITE
E4M3, E5M2 = fp8_interpretation_t.E4M3, fp8_interpretation_t.E5M2
RZ, RU = cudaRoundMode.cudaRoundZero, cudaRoundMode.cudaRoundPosInf

# ---- the reference: the formats as their definitions give them ----

FORMATS = {  # exponent bits, mantissa bits, bias; e4m3 has no Inf and one NaN per sign (S.1111.111)
    E4M3: (4, 3, 7),
    E5M2: (5, 2, 15),
}


def ref_decode(byte, fmt):
    """The value of an e4m3/e5m2 byte: NaN, +-inf, or sign * mantissa * 2^exponent, as a Python float."""
    ebits, mbits, bias = FORMATS[fmt]
    sign = -1.0 if byte & 0x80 else 1.0
    exp = (byte >> mbits) & ((1 << ebits) - 1)
    frac = byte & ((1 << mbits) - 1)
    if fmt == E4M3 and byte & 0x7F == 0x7F:
        return math.nan
    if fmt == E5M2 and exp == 31:
        return sign * math.inf if frac == 0 else math.nan
    if exp == 0:
        return sign * math.ldexp(frac, 1 - bias - mbits)
    return sign * math.ldexp((1 << mbits) | frac, exp - bias - mbits)


def max_code(fmt):
    return 0x7E if fmt == E4M3 else 0x7B


def grid(fmt):
    """The finite magnitudes by code 0..max, and one more: the value the next code would have were it finite."""
    ebits, mbits, bias = FORMATS[fmt]
    values = [ref_decode(c, fmt) if c != 0x7F or fmt != E4M3 else 480.0 for c in range(max_code(fmt) + 1)]
    values.append(math.ldexp(1, (1 << ebits) - 1 - bias) if fmt == E5M2 else 480.0)  # 65536 / 480
    return np.array(values)


def ref_encode(x, fmt, sat, nan_byte):
    """The byte of a finite or infinite float (a Python float, exact): round to nearest, ties to the even code;
    beyond the largest finite value SATFINITE gives it, NOSAT gives Inf (e5m2) or NaN (e4m3)."""
    if math.isnan(x):
        return nan_byte
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    g = grid(fmt)
    top = max_code(fmt)
    if a >= g[-1]:
        code = top + 1
    else:
        hi = int(np.searchsorted(g, a, side="left"))
        if g[hi] == a:
            code = hi
        else:
            lo = hi - 1
            mid = (g[lo] + g[hi]) / 2  # exact: the values have at most 4 significant bits
            code = lo if a < mid else hi if a > mid else (lo if lo % 2 == 0 else hi)
    if code > top:
        code = top if sat == SATFINITE else (0x7F if fmt == E4M3 else 0x7C)
    return sign | code


def ref_e8m0(x, sat, rounding):
    """The e8m0 byte of a float: the power of two at or below |x| (toward zero) or at or above it (up), biased by
    127 and kept within 2^-127..2^127; the sign is dropped; 0xFF is NaN (and NOSAT's overflow)."""
    if math.isnan(x):
        return 0xFF
    a = abs(x)
    if math.isinf(a):
        return 0xFE if sat == SATFINITE else 0xFF
    if a == 0:
        return 0
    m, e = math.frexp(a)  # a = m * 2^e, 0.5 <= m < 1
    if rounding == RZ:
        return min(max(e - 1 + 127, 0), 0xFE)
    if a <= 2.0 ** -127:
        return 0
    code = (e - 1 if m == 0.5 else e) + 127
    if code >= 0xFF:
        return 0xFE if sat == SATFINITE else 0xFF
    return code


def float32_sweep():
    """float32 values at and around every e4m3/e5m2 value and midpoint, over and under the ranges, and a spread."""
    vals = set()
    for fmt in (E4M3, E5M2):
        g = grid(fmt)
        points = list(g) + [(g[i] + g[i + 1]) / 2 for i in range(len(g) - 1)]
        for p in points:
            f = np.float32(p)
            vals.update([f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(0))])
    rng = np.random.default_rng(8)
    spread = (rng.standard_normal(3000) * np.exp2(rng.integers(-30, 30, 3000))).astype(np.float32)
    vals.update(spread.tolist())
    vals.update(np.float32(v) for v in (0.0, 1e-45, 1e-40, 2.0 ** -126, 1e20, 3.4e38, np.inf, 2.0 ** 127,
                                        np.nextafter(np.float32(2.0 ** 127), np.float32(np.inf))))
    vals = np.array(sorted(float(v) for v in vals if not np.isnan(v)), dtype=np.float32)
    return np.concatenate([vals, -vals, np.array([np.nan, -np.nan], dtype=np.float32)])


def float64_sweep():
    vals = []
    for fmt in (E4M3, E5M2):
        g = grid(fmt)
        for p in list(g) + [(g[i] + g[i + 1]) / 2 for i in range(len(g) - 1)]:
            vals += [p, np.nextafter(p, np.inf), np.nextafter(p, 0.0)]
    vals += [1e300, 2.0 ** 128, 2.0 ** 127 * (1 + 2.0 ** -40), 2.0 ** -127, 2.0 ** -127 * (1 + 2.0 ** -40), 1e-310,
             3e-40, np.inf]
    vals = np.array(sorted(set(vals)), dtype=np.float64)
    return np.concatenate([vals, -vals, [np.nan]])


# ---- kernels ----

@gpu.jit
def encode_float(x, out, sat, interp):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = cvt_float_to_fp8(x[i], sat, interp)


@gpu.jit
def encode_double(x, out, sat, interp):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = cvt_double_to_fp8(x[i], sat, interp)


@gpu.jit
def to_half_bits(out, interp):
    i = gpu.grid(1)
    if i < 256:
        out[i] = cvt_fp8_to_halfraw(gpu.uint8(i), interp).x


@gpu.jit
def e8m0_float(x, out, sat, rounding):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = cvt_float_to_e8m0(x[i], sat, rounding)


@gpu.jit
def e8m0_double(x, out, sat, rounding):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = cvt_double_to_e8m0(x[i], sat, rounding)


def launch(kernel, n, *args):
    kernel[(n + 127) // 128, 128](*args)


@pytest.mark.parametrize("fmt", [E4M3, E5M2])
def test_every_byte_decodes(fmt):
    out = np.zeros(256, np.uint16)
    launch(to_half_bits, 256, out, fmt)
    got = out.view(np.float16).astype(np.float64)
    want = np.array([ref_decode(b, fmt) for b in range(256)])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok])
    # Signed zeros and the canonical NaN (0x7FFF, sign dropped), bit for bit.
    assert out[0] == 0 and out[0x80] == 0x8000
    assert all(out[b] == 0x7FFF for b in range(256) if math.isnan(want[b]))


def test_every_e8m0_byte_decodes():
    @gpu.jit
    def kernel(out, bits):
        i = gpu.grid(1)
        if i < 256:
            raw = cvt_e8m0_to_bf16raw(gpu.uint8(i))
            bits[i] = raw.x
            out[i] = gpu.float64(fp8_e8m0(gpu.float64(2.0) ** (i - 127)))  # constructor and conversion back

    out = np.zeros(256, np.float64)
    bits = np.zeros(256, np.uint16)
    launch(kernel, 256, out, bits)
    values = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    for b in range(255):
        assert values[b] == 2.0 ** (b - 127), b
        assert out[b] == 2.0 ** (b - 127), b
    assert bits[255] == 0x7FFF and bits[0] == 0x0040


@pytest.mark.parametrize("fmt", [E4M3, E5M2])
@pytest.mark.parametrize("sat", [NOSAT, SATFINITE])
def test_float32_encodes(fmt, sat):
    x = float32_sweep()
    out = np.zeros(x.size, np.uint8)
    launch(encode_float, x.size, x, out, sat, fmt)
    want = np.array([ref_encode(float(v), fmt, sat, 0x7F) for v in x], np.uint8)
    bad = np.nonzero(out != want)[0]
    assert bad.size == 0, [(float(x[i]), hex(out[i]), hex(want[i])) for i in bad[:10]]


@pytest.mark.parametrize("fmt", [E4M3, E5M2])
@pytest.mark.parametrize("sat", [NOSAT, SATFINITE])
def test_float64_encodes(fmt, sat):
    x = float64_sweep()
    out = np.zeros(x.size, np.uint8)
    launch(encode_double, x.size, x, out, sat, fmt)
    nan_byte = 0x7F if fmt == E4M3 else 0x7E  # NumPy's NaN: a quiet NaN whose next mantissa bit is 0
    want = np.array([ref_encode(float(v), fmt, sat, nan_byte) for v in x], np.uint8)
    bad = np.nonzero(out != want)[0]
    assert bad.size == 0, [(float(x[i]), hex(out[i]), hex(want[i])) for i in bad[:10]]


@pytest.mark.parametrize("sat", [NOSAT, SATFINITE])
@pytest.mark.parametrize("rounding", [RZ, RU])
def test_e8m0_encodes(sat, rounding):
    x32 = np.concatenate([float32_sweep(), np.float32([2.0 ** -127, 1.5 * 2.0 ** -127, 2.0 ** -149])])
    out = np.zeros(x32.size, np.uint8)
    launch(e8m0_float, x32.size, x32, out, sat, rounding)
    want = np.array([ref_e8m0(float(v), sat, rounding) for v in x32], np.uint8)
    bad = np.nonzero(out != want)[0]
    assert bad.size == 0, [(float(x32[i]), hex(out[i]), hex(want[i])) for i in bad[:10]]
    x64 = float64_sweep()
    out = np.zeros(x64.size, np.uint8)
    launch(e8m0_double, x64.size, x64, out, sat, rounding)
    # A double beyond float32's range keeps float32's largest exponent toward zero (CUDA narrows it first).
    want = np.array([min(ref_e8m0(float(v), sat, rounding), 0xFE) if rounding == RZ and np.isfinite(v)
                     else ref_e8m0(float(v), sat, rounding) for v in x64], np.uint8)
    bad = np.nonzero(out != want)[0]
    assert bad.size == 0, [(float(x64[i]), hex(out[i]), hex(want[i])) for i in bad[:10]]


def test_bfloat16_raw_and_two_lane_forms():
    @gpu.jit
    def kernel(x, out16, out8):
        raw = cvt_e8m0_to_bf16raw(gpu.uint8(130))  # 8.0
        out8[0] = cvt_bfloat16raw_to_fp8(raw, saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        out8[1] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        big = cvt_e8m0_to_bf16raw(gpu.uint8(254))  # 2^127
        out8[2] = cvt_bfloat16raw_to_fp8(big, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out8[3] = cvt_bfloat16raw_to_fp8(big, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        out16[0] = cvt_float2_to_fp8x2(gpu.float32x2(x[0], x[1]), saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out16[1] = cvt_double2_to_fp8x2(gpu.float64x2(x[0], x[1]), saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        out16[2] = cvt_float2_to_e8m0x2(gpu.float32x2(x[0], x[1]), saturation_t.SATFINITE,
                                        cudaRoundMode.cudaRoundPosInf)

    x = np.array([1.5, -1000.0], np.float32)
    out16 = np.zeros(3, np.uint16)
    out8 = np.zeros(4, np.uint8)
    kernel[1, 1](x, out16, out8)
    assert list(out8) == [ref_encode(8.0, E4M3, NOSAT, 0), 130, 0x7B, 0x7C]
    assert out16[0] == ref_encode(1.5, E4M3, SATFINITE, 0) | ref_encode(-1000.0, E4M3, SATFINITE, 0) << 8
    assert out16[1] == ref_encode(1.5, E5M2, NOSAT, 0) | ref_encode(-1000.0, E5M2, NOSAT, 0) << 8
    assert out16[2] == ref_e8m0(1.5, SATFINITE, RU) | ref_e8m0(-1000.0, SATFINITE, RU) << 8


def test_types_convert_both_ways():
    @gpu.jit
    def kernel(x, f32, f16, f64, bf, i32, u8, i8, i64):
        i = gpu.grid(1)
        if i < x.size:
            a = fp8_e4m3(x[i])
            b = fp8_e5m2(x[i])
            c = fp8_e8m0(x[i])
            f32[i, 0], f32[i, 1], f32[i, 2] = gpu.float32(a), gpu.float32(b), gpu.float32(c)
            f16[i, 0], f16[i, 1] = gpu.float16(a), gpu.float16(b)
            f64[i, 0], f64[i, 1] = gpu.float64(a), gpu.float64(b)
            bf[i, 0] = gpu.float32(bfloat16(a))
            bf[i, 1] = gpu.float32(bfloat16(b))
            i32[i, 0], i32[i, 1] = gpu.int32(a), gpu.int32(b)
            u8[i, 0], u8[i, 1] = gpu.uint8(a), gpu.uint8(b)
            i8[i, 0], i8[i, 1] = gpu.int8(a), gpu.int8(b)
            i64[i, 0] = gpu.int64(fp8_e5m2(bfloat16(x[i])))
            i64[i, 1] = gpu.int64(fp8_e4m3(gpu.int16(x[i])))

    x = np.array([1.0, 2.5, -6.0, 300.0, -1e6, 0.0, 1e-3, np.nan, 57344.0, 255.9], np.float32)
    n = x.size
    f32, f16, f64, bf = (np.zeros((n, 3), np.float32), np.zeros((n, 2), np.float16), np.zeros((n, 2)),
                         np.zeros((n, 2), np.float32))
    i32, u8, i8, i64 = (np.zeros((n, 2), np.int32), np.zeros((n, 2), np.uint8), np.zeros((n, 2), np.int8),
                        np.zeros((n, 2), np.int64))
    kernel[1, 32](x, f32, f16, f64, bf, i32, u8, i8, i64)
    for k, v in enumerate(x.tolist()):
        a = ref_decode(ref_encode(v, E4M3, SATFINITE, 0x7F), E4M3)
        b = ref_decode(ref_encode(v, E5M2, SATFINITE, 0x7F), E5M2)
        c = ref_e8m0(v, SATFINITE, RU)
        c = math.nan if c == 0xFF else 2.0 ** (c - 127)
        for got, want in ((f32[k, 0], a), (f32[k, 1], b), (f32[k, 2], c), (f16[k, 0], a), (f16[k, 1], b),
                          (f64[k, 0], a), (f64[k, 1], b), (bf[k, 0], a), (bf[k, 1], b)):
            assert (math.isnan(want) and math.isnan(got)) or got == np.float32(want), (v, got, want)

        def sat_int(value, lo, hi):
            return 0 if math.isnan(value) else int(min(max(math.trunc(value), lo), hi))

        assert list(i32[k]) == [sat_int(a, -2 ** 31, 2 ** 31 - 1), sat_int(b, -2 ** 31, 2 ** 31 - 1)], v
        assert list(u8[k]) == [sat_int(a, 0, 255), sat_int(b, 0, 255)], v
        assert list(i8[k]) == [sat_int(a, -128, 127), sat_int(b, -128, 127)], v


def test_e8m0_from_integers_rounds_up_to_a_power_of_two():
    @gpu.jit
    def kernel(x, out):
        i = gpu.grid(1)
        if i < x.size:
            out[i, 0] = gpu.float64(fp8_e8m0(x[i]))
            out[i, 1] = gpu.float64(fp8_e8m0(gpu.int32(x[i] % 1000000)))

    x = np.array([0, 1, 2, 3, 4, 5, 1000, 2 ** 40, 2 ** 40 + 1, 2 ** 40 - 1, -(2 ** 62) - 5, -2 ** 63, 999999],
                 np.int64)
    out = np.zeros((x.size, 2))
    kernel[1, 32](x, out)
    for k, v in enumerate(x.tolist()):
        for got, value in ((out[k, 0], v), (out[k, 1], int(np.int32(v % 1000000)))):
            want = 2.0 ** -127 if value == 0 else 2.0 ** (abs(value) - 1).bit_length()  # the power of two >= |v|
            assert got == want, (value, got, want)


def test_fp8_values_have_no_operators():
    @gpu.jit
    def add(out, x):
        out[0] = gpu.float32(fp8_e4m3(x[0]) + fp8_e4m3(x[0]))

    with pytest.raises(gpu.CompileError, match="fp8_e4m3"):
        add[1, 1](np.zeros(1, np.float32), np.ones(1, np.float32))

    @gpu.jit
    def from_bool(out):
        out[0] = gpu.float32(fp8_e5m2(True))

    with pytest.raises(gpu.CompileError, match=r"fp8_e5m2\(\) converts a number"):
        from_bool[1, 1](np.zeros(1, np.float32))


def test_bad_cvt_arguments_are_compile_errors():
    @gpu.jit
    def kernel(out, x):
        out[0] = cvt_float_to_fp8(x[0], 1.5, fp8_interpretation_t.E4M3)

    with pytest.raises(gpu.CompileError, match=r"cvt_float_to_fp8\(\) argument 2 must be an integer"):
        kernel[1, 1](np.zeros(1, np.uint8), np.ones(1, np.float32))

    @gpu.jit
    def raw(out, x):
        out[0] = cvt_bfloat16raw_to_fp8(x[0], saturation_t.NOSAT, fp8_interpretation_t.E4M3)

    with pytest.raises(gpu.CompileError, match="bfloat16_raw"):
        raw[1, 1](np.zeros(1, np.uint8), np.ones(1, np.uint16))


def test_host_calls_say_where_fp8_works():
    with pytest.raises(TypeError, match="inside a kernel"):
        fp8_e4m3(1.0)
    with pytest.raises(RuntimeError, match="inside a kernel"):
        cvt_float_to_fp8(1.0, 0, 0)
    assert gpu.is_fp8_supported() is True or gpu.get_current_device().compute_capability < (8, 9)


PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.isfile("/usr/local/cuda/bin/ptxas") else None)


def fp8_roundtrip(out, x, b):
    out[0] = cvt_float_to_fp8(x[0], saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
    out[1] = cvt_float_to_fp8(x[0], saturation_t.NOSAT, fp8_interpretation_t.E5M2)
    x[1] = gpu.float32(fp8_e5m2(x[0])) + gpu.float32(fp8_e4m3(x[0]))
    x[2] = gpu.float32(fp8_e8m0(x[0]))
    b[0] = cvt_e8m0_to_bf16raw(out[0]).x


@pytest.mark.skipif(PTXAS is None, reason="needs ptxas (the CUDA toolkit)")
@pytest.mark.parametrize("cc", [(9, 0), (8, 9), (8, 0)])
def test_ptx_uses_cvt_on_sm_90_and_assembles(cc, tmp_path):
    sig = gpu.void(gpu.uint8[:], gpu.float32[:], gpu.uint16[:])
    ptx, _ = gpu.compile_ptx(fp8_roundtrip, sig, cc=cc)
    has_cvt = "cvt.rn.satfinite.e4m3x2.f32" in ptx and "cvt.rn.f16x2.e5m2x2" in ptx
    version = next(line.split()[1] for line in ptx.splitlines() if line.startswith(".version"))
    # sm_89 has the instructions from PTX ISA 8.1 on; gpujit's PTX for sm_89 may be older, then software.
    assert has_cvt == (cc >= (9, 0) or (cc == (8, 9) and float(version) >= 8.1)), ptx
    path = tmp_path / "fp8.ptx"
    path.write_text(ptx)
    arch = f"sm_{cc[0]}{cc[1]}"
    proc = subprocess.run([PTXAS, f"-arch={arch}", str(path), "-o", str(tmp_path / "fp8.cubin")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_module_attributes_and_device_functions():
    @gpu.jit(device=True)
    def passthrough(v):  # an fp8 value goes into and out of a device function as itself
        return v

    @gpu.jit
    def kernel(out, x):
        out[0] = gpu.float32(passthrough(gpu.fp8.fp8_e5m2(x[0])))
        out[1] = gpu.fp8.cvt_float_to_fp8(x[0], saturation_t.SATFINITE, fp8_interpretation_t.E5M2)

    out = np.zeros(2, np.float32)
    kernel[1, 1](out, np.array([3.3], np.float32))
    assert out[0] == ref_decode(ref_encode(3.3, E5M2, SATFINITE, 0), E5M2)
    assert out[1] == ref_encode(float(np.float32(3.3)), E5M2, SATFINITE, 0)


def test_kernels_take_no_fp8_arguments():
    @gpu.jit("void(fp8_e4m3, float32[:])")
    def kernel(a, out):
        out[0] = gpu.float32(a)

    with pytest.raises(TypeError, match="cannot take a fp8_e4m3 argument"):
        kernel[1, 1](1.5, np.zeros(1, np.float32))
