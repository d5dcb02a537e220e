"""Functions of Python's operator module called in kernels (`op = operator.add; op(a, b)`), as numba-cuda
allows: each is the operator it names, typed and computed as if written in place. Checked against NumPy."""

import operator

import numpy as np
import pytest

import gpujit as gpu


def apply_binary(op):
    @gpu.jit
    def kernel(out, a, b):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = op(a[i], b[i])

    return kernel


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                                operator.mod, operator.pow, operator.iadd, operator.imul])
def test_binary_float_operators(op):
    a = np.linspace(0.5, 4.0, 16)
    b = np.linspace(1.0, 2.5, 16)
    out = np.zeros_like(a)
    apply_binary(op)[1, 16](out, a, b)
    np.testing.assert_allclose(out, op(a, b), rtol=1e-15)


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift,
                                operator.floordiv, operator.mod])
def test_binary_integer_operators(op):
    a = np.arange(-8, 8, dtype=np.int64)
    b = np.array([1, 2, 3] * 5 + [1], dtype=np.int64)
    out = np.zeros_like(a)
    apply_binary(op)[1, 16](out, a, b)
    np.testing.assert_array_equal(out, op(a, b))


@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne])
def test_comparisons_give_bools(op):
    a = np.array([1.0, 2.0, 3.0, np.nan])
    b = np.array([2.0, 2.0, 1.0, 1.0])
    out = np.zeros(4, np.bool_)
    apply_binary(op)[1, 4](out, a, b)
    np.testing.assert_array_equal(out, op(a, b))


@pytest.mark.parametrize("op", [operator.neg, operator.pos, operator.invert, operator.not_])
def test_unary_operators(op):
    @gpu.jit
    def kernel(out, a):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = op(a[i])

    a = np.array([-3, 0, 5], np.int32)
    out = np.zeros_like(a)
    kernel[1, 4](out, a)
    want = np.logical_not(a).astype(np.int32) if op is operator.not_ else op(a)
    np.testing.assert_array_equal(out, want)


def test_unsupported_operator_function_is_a_clear_error():
    op = operator.matmul

    @gpu.jit
    def kernel(out, a):
        out[0] = op(a[0], a[0])

    with pytest.raises(gpu.CompileError, match="module 'operator' has no attribute 'matmul'"):
        kernel[1, 1](np.zeros(1), np.ones(1))
