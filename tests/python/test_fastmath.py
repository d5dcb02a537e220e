"""fastmath=True as numba-cuda has it for float32: math.sin/cos/tan/exp/log/log2/log10/pow call libdevice's
fast variants (PTX's approximate instructions), tanh is tanh.approx.f32, division is div.approx.ftz.f32. The
PTX is compiled on any machine; the CPU backend keeps the precise functions, so results stay close."""

import math

import numpy as np
import pytest

import gpujit as gpu


# numba-cuda's fastmath for float32 math functions: libdevice's fast variants and PTX's approximate instructions.
@pytest.mark.parametrize("fn, fast", [
    (math.sin, ["sin.approx.ftz.f32 "]),
    (math.cos, ["cos.approx.ftz.f32 "]),
    (math.tan, ["sin.approx.ftz.f32 ", "cos.approx.ftz.f32 ", "div.approx.ftz.f32 "]),
    (math.tanh, ["tanh.approx.f32 "]),
    (math.log, ["lg2.approx.ftz.f32 ", "0f3F317218"]),
    (math.log2, ["lg2.approx.ftz.f32 "]),
    (math.log10, ["lg2.approx.ftz.f32 ", "0f3E9A209B"]),
])
def test_fastmath_float32_functions(fn, fast):
    def f(x):
        return fn(x)

    fast_ptx, _ = gpu.compile_ptx(f, (gpu.float32,), device=True, fastmath=True)
    precise_ptx, _ = gpu.compile_ptx(f, (gpu.float32,), device=True)
    assert all(s in fast_ptx for s in fast), fast_ptx
    assert fast[0] not in precise_ptx


def test_fastmath_exp():
    # Both use ex2.approx; the precise one refines its argument with an FMA, as numba's test checks.
    def f(x):
        return math.exp(x)

    fast_ptx, _ = gpu.compile_ptx(f, (gpu.float32,), device=True, fastmath=True)
    precise_ptx, _ = gpu.compile_ptx(f, (gpu.float32,), device=True)
    assert "ex2.approx.ftz.f32 " in fast_ptx and "fma.rn.f32 " not in fast_ptx
    assert "fma.rn.f32 " in precise_ptx


def test_fastmath_pow_and_division():
    def f(x, y):
        return math.pow(x, y) + x / y

    fast_ptx, _ = gpu.compile_ptx(f, (gpu.float32, gpu.float32), device=True, fastmath=True)
    precise_ptx, _ = gpu.compile_ptx(f, (gpu.float32, gpu.float32), device=True)
    assert "lg2.approx.ftz.f32 " in fast_ptx and "div.approx.ftz.f32 " in fast_ptx
    assert "lg2.approx.ftz.f32 " not in precise_ptx and "div.rn.f32" in precise_ptx


def test_fastmath_float64_stays_precise():
    def f(x):
        return math.sin(x)

    ptx, _ = gpu.compile_ptx(f, (gpu.float64,), device=True, fastmath=True)
    assert "sin.approx" not in ptx


def test_fastmath_kernel_results_stay_close():
    @gpu.jit(fastmath=True)
    def k(out, x):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = math.sin(x[i]) + math.exp(x[i]) + math.log(x[i] + np.float32(2)) + math.tanh(x[i])

    x = np.linspace(-1.5, 3, 64, dtype=np.float32)
    out = np.zeros_like(x)
    k[1, 64](out, x)
    expected = np.sin(x) + np.exp(x) + np.log(x + 2) + np.tanh(x)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
