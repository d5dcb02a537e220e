"""a.copy() in a kernel (ir/sema_array_method.cpp): a captured global array is copied into the calling
thread's local memory, a C-contiguous array of its dtype and shape that the kernel may write without
touching the original. NumPy is the oracle."""

import numpy as np
import pytest

import gpujit as gpu

REVERSED = np.array([1, 2, 3, 7])[::-1]  # captured as a C-contiguous constant array
GRID = np.arange(6.0).reshape(2, 3)
PAIRS = np.array([1 + 2j, -3.5j])


def test_a_copy_of_a_captured_array_reads_its_values():
    @gpu.jit
    def k(out):
        q = REVERSED.copy()
        for i in range(len(out)):
            out[i] = q[i]

    out = np.zeros(len(REVERSED))
    k[1, 1](out)
    np.testing.assert_array_equal(out, REVERSED)


def test_the_copy_is_writable_and_private_to_each_thread():
    @gpu.jit
    def k(out, changed):
        i = gpu.grid(1)
        q = GRID.copy()
        q[1, 2] = i  # each thread writes its own copy
        q[0, 0] += 100
        changed[i] = q[1, 2] + q[0, 0]
        out[i] = GRID[1, 2] + GRID[0, 0]  # the original is unchanged
        if i == 0:
            out[4] = q.shape[0] * 10 + q.shape[1]

    out, changed = np.zeros(5), np.zeros(4)
    k[1, 4](out, changed)
    np.testing.assert_array_equal(out, [5.0, 5.0, 5.0, 5.0, 23.0])
    np.testing.assert_array_equal(changed, [100.0, 101.0, 102.0, 103.0])


def test_a_copy_of_a_complex_array():
    @gpu.jit
    def k(out):
        q = PAIRS.copy()
        q[0] = q[0] * 2
        out[0] = q[0]
        out[1] = q[1]

    out = np.zeros(2, np.complex128)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [2 + 4j, -3.5j])


def test_a_copy_of_an_argument_is_a_clear_error():
    @gpu.jit
    def k(a, out):
        q = a.copy()
        out[0] = q[0]

    with pytest.raises(gpu.CompileError, match=r"a\.copy\(\) of float64\[::1\] \('a' is an argument\) needs an "
                                               r"allocation.*cuda\.local\.array of a constant shape"):
        k[1, 1](np.zeros(3), np.zeros(1))
