"""`x in t` and `x not in t` with a tuple t, as numba-cuda runs them (its seq_contains_impl): true when x == some
element, each element compared under that pair's own '==' rules (an int32 with an int64 constant, an int with a
float); an empty tuple contains nothing. Any other right operand (an array, a number) is a compile error that
says what `in` takes. Run on the CPU backend, with NumPy/Python as the oracle."""

import numpy as np
import pytest

import gpujit as gpu

pytestmark = pytest.mark.usefixtures("cpu_backend")


def test_in_a_literal_tuple_of_constants():
    @gpu.jit
    def k(inp, out):
        i = gpu.grid(1)
        if i < inp.size:
            out[i] = 1 if inp[i] in (2, 3) else 3

    inp = np.arange(6, dtype=np.int32)
    out = np.zeros(6, dtype=np.int32)
    k[1, 8](inp, out)
    np.testing.assert_array_equal(out, [1 if v in (2, 3) else 3 for v in inp])


def test_not_in_and_a_tuple_held_in_a_variable_or_passed_as_an_argument():
    @gpu.jit
    def k(inp, allowed, out):
        i = gpu.grid(1)
        if i < inp.size:
            odd = (1, 3, 5)
            out[i, 0] = inp[i] not in odd
            out[i, 1] = inp[i] in allowed

    inp = np.arange(7, dtype=np.int64)
    out = np.zeros((7, 2), dtype=np.bool_)
    k[1, 8](inp, (0, 6), out)
    np.testing.assert_array_equal(out[:, 0], [v not in (1, 3, 5) for v in inp])
    np.testing.assert_array_equal(out[:, 1], [v in (0, 6) for v in inp])


def test_mixed_element_types_compare_by_value_and_the_empty_tuple_contains_nothing():
    @gpu.jit
    def k(x, out):
        out[0] = x in (1, 2.5, np.float32(4.0))
        out[1] = x in ()
        out[2] = x not in ()
        out[3] = x in (True,)  # True == 1

    for x in [1.0, 2.5, 4.0, 3.0]:
        out = np.zeros(4, dtype=np.bool_)
        k[1, 1](x, out)
        assert list(out) == [x in (1, 2.5, 4.0), False, True, x == 1], x


def test_nan_is_in_no_tuple_because_elements_are_compared_with_equals():
    @gpu.jit
    def k(x, out):
        out[0] = x in (x, 1.0)

    out = np.ones(1, dtype=np.bool_)
    k[1, 1](np.nan, out)
    assert not out[0]
    k[1, 1](2.0, out)
    assert out[0]


def test_in_inside_a_condition_and_in_a_device_function():
    @gpu.jit(device=True)
    def is_vowel_code(c):
        return c in (97, 101, 105, 111, 117)

    @gpu.jit
    def k(codes, out):
        i = gpu.grid(1)
        if i < codes.size and is_vowel_code(codes[i]):
            out[i] = 1

    codes = np.frombuffer(b"gpujit debug", dtype=np.uint8).astype(np.int32)
    out = np.zeros(codes.size, dtype=np.int32)
    k[1, 16](codes, out)
    np.testing.assert_array_equal(out, [1 if chr(c) in "aeiou" else 0 for c in codes])


def test_in_over_something_that_is_not_a_tuple_is_a_compile_error_naming_the_fix():
    @gpu.jit
    def k(x, arr):
        arr[0] = x in arr

    with pytest.raises(gpu.CompileError) as info:
        k.compile("void(int64, int64[::1])")
    err = info.value
    assert "'in' needs a tuple on its right, got 'int64[::1]'" in str(err)
    assert err.lineno == k.py_func.__code__.co_firstlineno + 2
    assert err.col == 18


def test_an_element_that_cannot_be_compared_is_a_compile_error():
    @gpu.jit
    def k(x, arr):
        arr[0] = x in (1, arr)

    with pytest.raises(gpu.CompileError) as info:
        k.compile("void(int64, int64[::1])")
    assert "'in' compares 'int64' with each element of" in str(info.value)
