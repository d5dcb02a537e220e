"""Device functions that take `*args` (docs/language.md, "Device functions"): the extra arguments arrive as one
tuple, each call's arity and argument types make a specialization of their own, and `f(*t)` unpacks a tuple
into a call's positional arguments (a builtin's too)."""

import cmath
import math

import numpy as np
import pytest

import gpujit as gpu
import gpujit.extending  # noqa: F401  gpu.extending.overload


@gpu.jit(device=True)
def total(*args):
    s = 0
    for i in range(len(args)):  # a tuple of one type: indexed at run time
        s += args[i]
    return s


@gpu.jit
def apply(func, *args):  # a jit function called from a kernel is a device function, as in numba
    return func(*args)


@gpu.jit(device=True)
def add2(a, b):
    return a + b


@gpu.jit(device=True)
def neg(a):
    return -a


@gpu.jit(device=True)
def count_and_first(first, *rest):
    if len(rest) == 0:  # len of the tuple is a constant: the dead branch is not typed
        return first
    else:
        return first + rest[0] * len(rest)


@gpu.jit(device=True)
def typed_sum(*args):
    a, b = args  # unpacked: the elements keep their own types
    return a + b


def test_varying_arity_and_types():
    @gpu.jit
    def k(out, x, y):
        out[0] = total(x, 1)
        out[1] = total(x)
        out[2] = total(x, y, 3)
        out[3] = total(1.5, 2.25)  # another specialization: a tuple of floats

    out = np.zeros(4)
    k[1, 1](out, 10, 20)
    np.testing.assert_array_equal(out, [11, 10, 33, 3.75])


def test_unpack_into_a_call():
    @gpu.jit
    def k(out, x, y):
        out[0] = apply(add2, x, y)
        out[1] = apply(neg, x)
        t = (x, y)
        out[2] = add2(*t)
        out[3] = apply(add2, *t)

    out = np.zeros(4, dtype=np.int64)
    k[1, 1](out, 7, 5)
    np.testing.assert_array_equal(out, [12, -7, 12, 12])


def test_named_parameter_before_star_args():
    @gpu.jit
    def k(out, x):
        out[0] = count_and_first(x)
        out[1] = count_and_first(x, 2)
        out[2] = count_and_first(x, 3, 100)

    out = np.zeros(3, dtype=np.int64)
    k[1, 1](out, 4)
    np.testing.assert_array_equal(out, [4, 6, 10])


def test_mixed_element_types():
    @gpu.jit
    def k(out, x):
        out[0] = typed_sum(x, 0.5)

    out = np.zeros(1)
    k[1, 1](out, np.int32(3))
    np.testing.assert_array_equal(out, [3.5])


def test_star_args_specializations_are_distinct():
    @gpu.jit(device=True)
    def arity(*args):
        return len(args)

    @gpu.jit
    def k(out):
        out[0] = arity()
        out[1] = arity(1)
        out[2] = arity(1, 2.0)
        out[3] = arity(1, 2, 3)

    out = np.zeros(4, dtype=np.int64)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [0, 1, 2, 3])


def test_kernel_with_star_args_is_an_error():
    @gpu.jit
    def k(out, *args):
        out[0] = 1

    with pytest.raises(gpu.CompileError, match=r"kernel 'k' takes '\*args'; a kernel's arguments are fixed"):
        k[1, 1](np.zeros(1))


def test_kwargs_parameter_is_refused():
    def f(*args, **kwargs):
        return 0

    with pytest.raises(TypeError, match="take no \\*\\*kwargs"):
        gpu.jit(device=True)(f)


def test_unpacking_a_non_tuple_is_an_error():
    @gpu.jit
    def k(out, x):
        out[0] = total(*x)

    with pytest.raises(gpu.CompileError, match=r"'\*' unpacks a tuple into the arguments, got int64"):
        k[1, 1](np.zeros(1), 3)


def test_unpacking_into_builtins():
    @gpu.jit
    def k(out, x, y, z):
        t = (x, y)
        out[0] = max(*t)
        out[1] = min(1.5, *t, *(y, 0.25))  # several starred arguments among plain ones
        w = complex(*cmath.polar(z))  # a builtin's tuple result, unpacked into another builtin
        out[2] = w.real
        out[3] = w.imag
        out[4] = math.hypot(*gpu.grid(2))  # grid(2) is (0, 0) in a 1x1 launch

    out = np.zeros(5)
    k[1, 1](out, 1.0, 2.0, 3.0 - 4.0j)
    r, phi = cmath.polar(3.0 - 4.0j)
    np.testing.assert_array_equal(out, [2.0, 0.25, r, phi, 0.0])


def test_unpacking_an_expression_with_effects_into_a_builtin_is_an_error():
    @gpu.jit
    def k(out, a):
        out[0] = max(*(gpu.atomic.add(a, 0, 1), 2))

    with pytest.raises(gpu.CompileError, match=r"'\*' unpacking into max\(\) takes a tuple without side effects"):
        k[1, 1](np.zeros(1), np.zeros(1, dtype=np.int64))


def test_too_few_arguments_before_star_args():
    @gpu.jit
    def k(out):
        out[0] = count_and_first()

    with pytest.raises(gpu.CompileError, match=r"count_and_first\(\) takes at least 1 argument, got 0"):
        k[1, 1](np.zeros(1, dtype=np.int64))


def test_function_through_star_args_is_an_error():
    @gpu.jit
    def k(out, x):
        out[0] = total(x, neg)

    with pytest.raises(gpu.CompileError, match=r"would go into '\*args', which holds values only"):
        k[1, 1](np.zeros(1, dtype=np.int64), 1)


def test_keyword_only_parameters_are_refused():
    @gpu.jit(device=True)
    def f(*args, scale):
        return scale

    @gpu.jit
    def k(out):
        out[0] = f(1, 2)

    with pytest.raises(gpu.CompileError, match="keyword-only"):
        k[1, 1](np.zeros(1))


def spread(*args):
    """A library function with *args: its @overload implementation takes *args too."""


@gpu.extending.overload(spread)
def _spread(*args):
    n = len(args)  # the typing function sees each argument's type

    def impl(*args):
        s = 0
        for i in range(len(args)):
            s += args[i]
        return s + n * 1000

    return impl


def test_overload_implementation_with_star_args():
    @gpu.jit
    def k(out, x):
        out[0] = spread(x, x)
        out[1] = spread(x)

    out = np.zeros(2, dtype=np.int64)
    k[1, 1](out, 3)
    np.testing.assert_array_equal(out, [2006, 1003])
