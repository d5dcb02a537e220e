"""numba-cuda's float16 intrinsics (cuda.fp16.*) against NumPy's float16, on the default backend."""

import numpy as np
import pytest

import gpujit as gpu
from gpujit import fp16

BINARY = {"hadd": np.add, "hsub": np.subtract, "hmul": np.multiply, "hdiv": np.divide,
          "hmax": np.fmax, "hmin": np.fmin}
COMPARE = {"heq": np.equal, "hne": np.not_equal, "hgt": np.greater, "hge": np.greater_equal,
           "hlt": np.less, "hle": np.less_equal}
MATH = {"hsin": np.sin, "hcos": np.cos, "hlog": np.log, "hlog2": np.log2, "hlog10": np.log10, "hexp": np.exp,
        "hexp2": np.exp2, "hexp10": lambda x: 10.0**x, "hsqrt": np.sqrt, "hrsqrt": lambda x: 1 / np.sqrt(x),
        "hrcp": lambda x: 1 / x, "hrint": np.rint, "htrunc": np.trunc, "hceil": np.ceil, "hfloor": np.floor,
        "hneg": np.negative, "habs": np.abs}


def kernel_for(name, nargs):
    fn = getattr(gpu.fp16, name)
    if nargs == 1:
        @gpu.jit
        def k(out, a, b):
            i = gpu.grid(1)
            if i < out.size:
                out[i] = fn(a[i])
    else:
        @gpu.jit
        def k(out, a, b):
            i = gpu.grid(1)
            if i < out.size:
                out[i] = fn(a[i], b[i])
    return k


A = np.array([0.5, 1.25, 2.0, 3.5, 0.125, 7.0], np.float16)
B = np.array([1.5, 1.25, 0.5, 4.0, np.nan, 2.0], np.float16)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    out = np.zeros_like(A)
    kernel_for(name, 2)[1, 8](out, A, B)
    np.testing.assert_array_equal(out, BINARY[name](A, B).astype(np.float16))


@pytest.mark.parametrize("name", sorted(COMPARE))
def test_comparisons(name):
    out = np.zeros(A.size, np.bool_)
    kernel_for(name, 2)[1, 8](out, A, B)
    np.testing.assert_array_equal(out, COMPARE[name](A, B))


@pytest.mark.parametrize("name", sorted(MATH))
def test_unary_math_rounds_once_to_float16(name):
    out = np.zeros_like(A)
    kernel_for(name, 1)[1, 8](out, A, B)
    with np.errstate(over="ignore"):  # 10 ** 7 is past float16's range: inf on both sides
        want = MATH[name](A.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float32), rtol=1e-3)


def test_hfma():
    @gpu.jit
    def k(out, a, b):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = fp16.hfma(a[i], b[i], a[i])

    out = np.zeros_like(A)
    k[1, 8](out, A, B)
    want = (A.astype(np.float64) * B.astype(np.float64) + A.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(out, want)


def test_unknown_fp16_function_is_an_error():
    @gpu.jit
    def k(out, a):
        out[0] = gpu.fp16.hsinx(a[0])

    with pytest.raises(gpu.CompileError, match="has no attribute 'hsinx'; did you mean 'hsin'"):
        k[1, 1](np.zeros(1, np.float16), np.zeros(1, np.float16))
