"""literal_unroll over tuples whose elements differ in type: the loop body is compiled once per element, as
numba versions it (ir/sema_unroll.cpp). NumPy is the oracle."""

import numpy as np
import pytest

import gpujit as gpu
from gpujit.errors import CompileError

# Ranks, dtypes and sizes differ: a 1-d, a 2-d, an int, a 0-d and an empty array.
MIXED = (
    np.array([1.0, 0.0, -0.0, np.nan]),
    np.array([[1.5, 0.0], [2.0, -3.0]]),
    np.array([3, 0, 4], dtype=np.int64),
    np.array(0),
    np.array([], dtype=np.float64),
)


@gpu.jit
def reductions(all_out, any_out, count_out):
    i = 0
    for arr in gpu.literal_unroll(MIXED):
        all_out[i] = np.all(arr)
        any_out[i] = np.any(arr)
        count_out[i] = np.count_nonzero(arr)
        i += 1


def test_all_any_count_nonzero_over_mixed_arrays():
    n = len(MIXED)
    all_out, any_out = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    count_out = np.zeros(n, np.intp)
    reductions[1, 1](all_out, any_out, count_out)
    np.testing.assert_array_equal(all_out, [np.all(a) for a in MIXED])
    np.testing.assert_array_equal(any_out, [np.any(a) for a in MIXED])
    np.testing.assert_array_equal(count_out, [np.count_nonzero(a) for a in MIXED])


def test_each_copy_sees_its_element_type():
    @gpu.jit
    def k(out):
        i = 0
        for arr in gpu.literal_unroll(MIXED):
            if arr.ndim == 2:
                out[i] = arr[1, 1] + arr.shape[1]  # only the 2-d copy indexes with two subscripts
            else:
                out[i] = arr.size * 10
            i += 1

    out = np.zeros(len(MIXED))
    k[1, 1](out)
    np.testing.assert_array_equal(out, [40.0, -1.0, 30.0, 10.0, 0.0])


def test_continue_break_and_else():
    @gpu.jit
    def k(out):
        i = 0
        for arr in gpu.literal_unroll(MIXED):
            i += 1
            if arr.size == 3:
                continue  # skips the int array, on to the 0-d one
            if arr.ndim == 0:
                break  # leaves the loop: the empty array is never reached
            out[i] = arr.size
        else:
            out[0] = -1.0  # a break skips the else
        out[6] = i

    out = np.zeros(7)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [0.0, 4.0, 4.0, 0.0, 0.0, 0.0, 4.0])

    @gpu.jit
    def no_break(out):
        for arr in gpu.literal_unroll(MIXED):
            if arr.size == 0:
                continue
            out[1] += arr.size
        else:
            out[0] = -1.0

    out = np.zeros(2)
    no_break[1, 1](out)
    np.testing.assert_array_equal(out, [-1.0, 4 + 4 + 3 + 1])


FIRST, SECOND = MIXED[:3], MIXED[1:4]


def test_nested_unrolled_loops():
    @gpu.jit
    def k(out):
        n = 0
        for a in gpu.literal_unroll(FIRST):
            for b in gpu.literal_unroll(SECOND):
                out[n] = a.ndim * 10 + b.ndim + a.size
                n += 1

    out = np.zeros(9)
    k[1, 1](out)
    expected = [a.ndim * 10 + b.ndim + a.size for a in FIRST for b in SECOND]
    np.testing.assert_array_equal(out, expected)


def test_tuple_arguments_in_a_device_function():
    @gpu.jit(device=True)
    def total(arrays, numbers):
        s = 0.0
        for x in gpu.literal_unroll(arrays):
            s += np.sum(x)
        for x in gpu.literal_unroll(numbers):  # one loop variable name: each loop's copies have their own
            s += x
        return s

    @gpu.jit
    def k(out, a, b, numbers):
        out[0] = total((a, b), numbers)

    a, b = np.arange(4.0), np.ones((2, 3), np.int32)
    out = np.zeros(1)
    k[1, 1](out, a, b, (2.5, 3, True))
    assert out[0] == a.sum() + b.sum() + 2.5 + 3 + 1


def test_errors_name_the_users_variable_and_line():
    @gpu.jit
    def k(out):
        for arr in gpu.literal_unroll(MIXED):
            out[0] = arr.nbytes_typo

    with pytest.raises(CompileError) as e:
        k[1, 1](np.zeros(1))
    message = str(e.value)
    assert "'float64[:, ::1]' has no attribute 'nbytes_typo' ('arr' was assigned at line" in message
    assert "arr$" not in message

    @gpu.jit
    def enumerated(out):
        for i, arr in enumerate(gpu.literal_unroll(MIXED)):
            out[i] = arr.size

    with pytest.raises(CompileError) as e:
        enumerated[1, 1](np.zeros(5))
    assert "is supported only as the iterable of a for loop" in str(e.value)


FLOAT32S = (np.ones(3, np.float32), np.ones((2, 2), np.float32))


def test_the_float64_warning_survives_the_unrolling():
    # The function is analysed twice (once before the loop is unrolled); the warning is the second analysis'.
    @gpu.jit
    def k(out):
        out[1] = out[1] * 0.5
        for a in gpu.literal_unroll(FLOAT32S):
            out[0] += a.sum()

    out = np.ones(2, np.float32)
    with pytest.warns(gpu.PerformanceWarning, match=r"the float64 constant 0\.5 makes this compute in float64") as w:
        k[1, 1](out)
    assert len([x for x in w if "float64" in str(x.message)]) == 1
    np.testing.assert_array_equal(out, [1.0 + 3 + 4, 0.5])
