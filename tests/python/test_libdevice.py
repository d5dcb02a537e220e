"""libdevice.* in kernels (numba-cuda's numba.cuda.libdevice) and compile_ptx, checked against NumPy.

Kernels run on the default backend (the GPU when there is one, else the CPU backend, where the libdevice
functions libm also has run); compile_ptx makes PTX on any machine.
"""

import math

import numpy as np
import pytest

import gpujit as gpu
from gpujit import libdevice


@gpu.jit
def sincos_frexp(s, c, frac, exp, x):
    i = gpu.grid(1)
    if i < x.size:
        sv, cv = libdevice.sincos(x[i])
        s[i] = sv
        c[i] = cv
        f, e = libdevice.frexp(x[i])
        frac[i] = f
        exp[i] = e


@gpu.jit
def float32_calls(out, x):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = libdevice.expf(x[i]) + libdevice.fmaxf(x[i], np.float32(0.5))


def test_results_through_pointers_come_back_as_a_tuple():
    x = np.linspace(-4.0, 4.0, 257)
    s, c, frac = (np.zeros_like(x) for _ in range(3))
    exp = np.zeros(x.size, np.int32)
    sincos_frexp[3, 128](s, c, frac, exp, x)
    want_frac, want_exp = np.frexp(x)
    np.testing.assert_allclose(s, np.sin(x), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(c, np.cos(x), rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(frac, want_frac)
    np.testing.assert_array_equal(exp, want_exp)


@gpu.jit
def math_frexp_modf(m, e, frac, whole, x):
    i = gpu.grid(1)
    if i < x.size:
        mv, ev = math.frexp(x[i])
        m[i] = mv
        e[i] = ev
        f, w = math.modf(x[i])
        frac[i] = f
        whole[i] = w


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_frexp_and_modf_are_libdevices_for_the_float_kind(dtype):
    x = np.array([0.0, 1.0, -3.75, 1e-30, 123456.789, 0.3, -2.5, np.inf], dtype)
    m, frac, whole = (np.zeros_like(x) for _ in range(3))
    e = np.zeros(x.size, np.int32)
    math_frexp_modf[1, 32](m, e, frac, whole, x)
    want_m, want_e = np.frexp(x)
    want_frac, want_whole = np.modf(x)
    np.testing.assert_array_equal(m, want_m)
    np.testing.assert_array_equal(e, want_e)
    np.testing.assert_array_equal(frac, want_frac)
    np.testing.assert_array_equal(whole, want_whole)
    # The float kind's own function: float32 stays float32 (frexpf, modff); the exponent is an int32.
    name = np.dtype(dtype).name
    sig = f"void({name}[::1], int32[::1], {name}[::1], {name}[::1], {name}[::1])"
    typemap = math_frexp_modf.overloads[sig]._type_annotation.typemap
    assert [str(typemap[v]) for v in ("mv", "ev", "f", "w")] == [name, "int32", name, name]


def test_math_frexp_of_a_non_number_is_an_error_at_the_call():
    @gpu.jit
    def bad(out, t):
        m, e = math.frexp(t)
        out[0] = m

    with pytest.raises(gpu.CompileError, match=r"math.frexp\(\) argument 1 must be a number, got UniTuple") as err:
        bad[1, 1](np.zeros(1), (1.0, 2.0))
    assert "^" in str(err.value)


def test_float32_functions_keep_float32():
    x = np.linspace(-2.0, 2.0, 100, dtype=np.float32)
    out = np.zeros_like(x)
    float32_calls[1, 128](out, x)
    np.testing.assert_allclose(out, np.exp(x) + np.maximum(x, np.float32(0.5)), rtol=2e-6)
    assert "float32" in float32_calls.inspect_types(gpu.void(gpu.float32[::1], gpu.float32[::1]))


def test_compile_ptx_returns_ptx_and_return_type():
    def kernel(r, a, b):
        i = gpu.grid(1)
        if i < r.size:
            r[i] = libdevice.popc(a[i]) + libdevice.sad(a[i], b[i], 3)

    ptx, resty = gpu.compile_ptx(kernel, (gpu.uint32[::1], gpu.int32[::1], gpu.int32[::1]))
    assert resty == gpu.void
    assert ".visible .entry" in ptx and "popc.b32" in ptx and "sad.s32" in ptx


def test_compile_ptx_refuses_what_it_does_not_do():
    def device_fn(x):
        return x + 1

    with pytest.raises(NotImplementedError, match="Unsupported output type: fatbin"):
        gpu.compile(device_fn, (gpu.float32,), device=True, output="fatbin")
    with pytest.raises(NotImplementedError, match="The C ABI is not supported for kernels"):
        gpu.compile(device_fn, (gpu.float32,), device=False, output="ltoir")


def test_unknown_libdevice_function_is_a_compile_error_at_the_call():
    @gpu.jit
    def bad(x):
        x[0] = libdevice.sinx(x[0])

    with pytest.raises(gpu.CompileError, match="has no attribute 'sinx'; did you mean 'sin'") as info:
        bad[1, 1](np.zeros(1))
    assert info.value.lineno == bad.py_func.__code__.co_firstlineno + 2


def test_libdevice_names_are_kernel_only_on_the_host():
    with pytest.raises(RuntimeError, match="only be called inside a kernel"):
        libdevice.sin(1.0)
