"""Exceptions raised in kernels (numba-cuda's `raise` and debug-mode ZeroDivisionError), on the CPU backend.

A `raise E` or `raise E("msg")` ends the thread that runs it and the launch raises E on the host, with
numba-cuda's message: "In function 'k', file F, line N, tid=[x, y, z] ctaid=[x, y, z]: msg". Under
debug=True a division by zero raises ZeroDivisionError and the thread stops there."""

import re

import numpy as np
import pytest

import gpujit as gpu


pytestmark = pytest.mark.usefixtures("cpu_backend")


class MyError(Exception):
    pass


def test_a_builtin_exception_class_is_raised_after_the_launch():
    @gpu.jit(debug=True, opt=False)
    def k(flag, out):
        if flag:
            raise ValueError
        out[0] = 1

    out = np.zeros(1)
    k[1, 1](0, out)
    assert out[0] == 1
    with pytest.raises(ValueError) as info:
        k[1, 1](1, out)
    assert re.match(r"In function 'k', file .*test_kernel_exceptions\.py, line \d+, tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]$",
                    str(info.value))


def test_a_user_class_with_a_message_names_thread_and_block():
    @gpu.jit("void(int32, float64[:])", debug=True, opt=False)
    def k(x, out):
        if gpu.grid(1) == 5:
            if x == 1:
                raise MyError
            raise MyError("foo", 2)
        out[gpu.grid(1)] = x

    out = np.zeros(8)
    with pytest.raises(MyError) as info:
        k[2, 4](2, out)
    assert str(info.value.args[0]).endswith("tid=[1, 0, 0] ctaid=[1, 0, 0]: foo")
    assert info.value.args[1] == 2
    with pytest.raises(MyError):
        k[2, 4](1, out)


def test_a_class_defined_in_a_function_and_a_raise_in_a_device_function():
    class LocalError(RuntimeError):
        pass

    @gpu.jit(device=True)
    def check(v):
        if v < 0:
            raise LocalError("negative")
        return v

    @gpu.jit
    def k(a):
        a[0] = check(a[0])

    k[1, 1](np.ones(1))
    with pytest.raises(LocalError, match="In function 'check'.*: negative"):
        k[1, 1](-np.ones(1))


def test_raise_errors_are_compile_errors():
    @gpu.jit
    def not_a_class(a):
        raise a

    @gpu.jit
    def not_constant(a):
        raise ValueError(a[0])

    @gpu.jit
    def bare(a):
        raise

    with pytest.raises(gpu.CompileError, match="raise needs an exception class"):
        not_a_class[1, 1](np.zeros(1))
    with pytest.raises(gpu.CompileError, match="must be compile-time constants"):
        not_constant[1, 1](np.zeros(1))
    with pytest.raises(gpu.CompileError, match="bare 'raise'"):
        bare[1, 1](np.zeros(1))


def test_division_by_zero_raises_under_debug_and_stops_the_thread():
    @gpu.jit(debug=True, opt=False)
    def f(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    @gpu.jit(debug=True, opt=False)
    def g(r, x, y):
        r[0] = y[0] // x[0]

    r = np.zeros(2)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        f[1, 1](r, np.zeros(1), np.ones(1))
    assert list(r) == [0, 0]
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        g[1, 1](np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1, np.int64))


def test_without_debug_division_by_zero_follows_numpy():
    @gpu.jit
    def f(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    r = np.zeros(2)
    f[1, 1](r, np.zeros(1), np.ones(1))
    assert np.isinf(r[0]) and r[1] == 1


def test_fastmath_float32_division_skips_the_debug_zero_check():
    # numba-cuda divides float32 by float32 with the fast approximate divide under fastmath, unchecked even with
    # debug=True; float64 division and float32 floor division keep the check.
    def quotient(r, x, y):
        r[0] = x / y

    def floor_quotient(r, x, y):
        r[0] = x // y

    f32 = (gpu.float32[::1], gpu.float32, gpu.float32)
    f64 = (gpu.float64[::1], gpu.float64, gpu.float64)
    r = np.zeros(1, np.float32)
    gpu.jit(f32, fastmath=True, debug=True, opt=False)(quotient)[1, 1](r, 10.0, 0.0)
    assert np.isinf(r[0])
    r[0] = 0
    x = np.zeros(1, np.float32)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        gpu.jit(f32, debug=True, opt=False)(quotient)[1, 1](r, 10.0, 0.0)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        gpu.jit(f64, fastmath=True, debug=True, opt=False)(quotient)[1, 1](np.zeros(1), 10.0, 0.0)
    with pytest.raises(ZeroDivisionError, match="float floor division by zero"):
        gpu.jit(f32, fastmath=True, debug=True, opt=False)(floor_quotient)[1, 1](x, 10.0, 0.0)
