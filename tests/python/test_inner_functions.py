"""Inner functions (docs/language.md, "Inner functions"): a `def` inside a kernel or device function is a
compile-time function value, called or passed by its name and specialized per call like a device function;
it reads the enclosing function's constants, compile-time arguments and functions, and nothing else. Also
keyword arguments at calls of device functions."""

import numpy as np
import pytest

import gpujit as gpu

G = 100


@gpu.jit
def apply(func, *args):
    return func(*args)


@gpu.jit(device=True)
def scaled(x, scale=2, shift=0):
    return x * scale + shift


def run1(kernel, *args, dtype=np.int64, n=1):
    out = np.zeros(n, dtype=dtype)
    kernel[1, 1](out, *args)
    return out


def test_inner_function_called_and_passed():
    @gpu.jit
    def k(out, x):
        y = 10

        def inner(z):
            return y + z + G

        out[0] = inner(x)
        out[1] = apply(inner, 6)

    assert list(run1(k, 5, n=2)) == [115, 116]


def test_inner_function_specialized_per_argument_types():
    @gpu.jit
    def k(out, x):
        def twice(v):
            return v + v

        out[0] = twice(x)
        out[1] = twice(1.25)

    assert list(run1(k, 3, dtype=np.float64, n=2)) == [6.0, 2.5]


def test_nested_inner_functions_and_siblings():
    @gpu.jit(device=True)
    def outer():
        def ten():
            return 10

        def call_it(f):
            return f()

        def deeper():
            def one():
                return 1

            return one() + ten()

        return call_it(ten) + deeper()

    @gpu.jit
    def k(out):
        out[0] = outer()

    assert run1(k)[0] == 21


def test_inner_function_defaults_and_keywords():
    @gpu.jit
    def k(out):
        t = 12

        def inner(a, b, c, d1=123, d2=456):
            return d1 + d2 + t + a + b + c

        out[0] = inner(1, 2, 5, 91, 53)
        out[1] = inner(1, 2, 4)
        out[2] = inner(1, 2, 3, d2=1000)
        out[3] = apply(inner, 1, 2, 3, 73)

    assert list(run1(k, n=4)) == [164, 598, 1141, 547]


def test_keyword_arguments_of_a_device_function():
    @gpu.jit
    def k(out, x):
        out[0] = scaled(x, shift=1)
        out[1] = scaled(x, shift=1, scale=3)
        out[2] = scaled(scale=4, x=x)

    assert list(run1(k, 5, n=3)) == [11, 16, 20]


def test_keyword_errors():
    @gpu.jit
    def unknown(out, x):
        out[0] = scaled(x, factor=2)

    with pytest.raises(gpu.CompileError, match=r"scaled\(\) got an unexpected keyword argument 'factor'"):
        run1(unknown, 1)

    @gpu.jit
    def twice(out, x):
        out[0] = scaled(x, x=2)

    with pytest.raises(gpu.CompileError, match=r"scaled\(\) got multiple values for argument 'x'"):
        run1(twice, 1)

    @gpu.jit
    def missing(out, x):
        out[0] = scaled(shift=x)

    with pytest.raises(gpu.CompileError, match=r"scaled\(\) missing required argument 'x'"):
        run1(missing, 1)


def test_capturing_an_argument_is_an_error():
    @gpu.jit
    def k(out, x):
        def inner(v):
            return v + x

        out[0] = inner(1)

    with pytest.raises(gpu.CompileError,
                       match=r"Cannot capture the non-constant value associated with variable 'x': it is an "
                             r"argument of 'k'"):
        run1(k, 1)


def test_capturing_a_non_constant_is_an_error():
    @gpu.jit
    def k(out, x):
        z = x + 1

        def inner(v):
            return v + z

        out[0] = inner(1)

    with pytest.raises(gpu.CompileError, match=r"Cannot capture the non-constant value associated with "
                                               r"variable 'z'"):
        run1(k, 1)


def test_capturing_a_variable_with_several_definitions_is_an_error():
    @gpu.jit
    def k(out, c):
        if c:
            x = 3
        else:
            x = 6

        def inner(y):
            return y + x

        out[0] = inner(1)

    with pytest.raises(gpu.CompileError, match=r"Cannot capture a constant value for variable 'x' as there are "
                                               r"multiple definitions present"):
        run1(k, 1)


def test_two_definitions_of_one_inner_function_is_an_error():
    @gpu.jit
    def k(out, c):
        if c:
            def inner(y):
                return y + 1
        else:
            def inner(y):
                return y + 2
        out[0] = inner(1)

    with pytest.raises(gpu.CompileError, match=r"'k' defines it at lines \d+ and \d+"):
        run1(k, 1)
