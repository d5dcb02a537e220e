"""Tuples of numbers as kernel arguments, launched from Python.

A tuple is typed element by element as numba types it (int -> int64, float -> float64, bool -> bool, a NumPy
scalar -> its dtype; all alike gives a UniTuple, else a Tuple), is part of the specialization key (so (1, 2)
and (1.5, 2.5) compile two kernels) and is passed flattened, one parameter per element. A tuple may hold
arrays too (each passed as an array argument is, NumPy arrays copied in and back); anything else in a tuple
is refused with a TypeError naming the kernel and the parameter.
"""

import struct

import numpy as np
import pytest

import gpujit as gpu


@gpu.jit
def fill_range(out, bounds):
    i = gpu.grid(1)
    if i == 0:
        lo, hi = bounds
        for j in range(lo, hi):
            out[j] = j * 10


def test_unituple_of_ints_as_loop_bounds():
    out = np.zeros(8, np.int64)
    fill_range[1, 32](out, (2, 5))
    np.testing.assert_array_equal(out, [0, 0, 20, 30, 40, 0, 0, 0])
    assert fill_range.signatures == ["(int64[::1], UniTuple(int64, 2))"]


def test_tuple_elements_as_indices():
    @gpu.jit
    def pick(out, src, idx):
        i = gpu.grid(1)
        if i < 3:
            out[i] = src[idx[i]]

    src = np.arange(10, dtype=np.float64) * 1.5
    out = np.zeros(3)
    pick[1, 32](out, src, (7, 0, 4))
    np.testing.assert_array_equal(out, src[[7, 0, 4]])


def test_heterogeneous_tuple():
    @gpu.jit
    def scale(out, params):
        i = gpu.grid(1)
        factor, n = params
        if i < n:
            out[i] = factor * i + params[1]

    out = np.zeros(6)
    scale[1, 32](out, (0.5, 4))
    np.testing.assert_array_equal(out, [4.0, 4.5, 5.0, 5.5, 0.0, 0.0])
    assert scale.signatures == ["(float64[::1], Tuple(float64, int64))"]


def test_same_kernel_specializes_on_tuple_element_types_and_length():
    @gpu.jit
    def total(out, t):
        if gpu.grid(1) == 0:
            s = 0.0
            for j in range(len(t)):
                s += t[j]
            out[0] = s

    out = np.zeros(1)
    total[1, 1](out, (1, 2))
    assert out[0] == 3.0
    total[1, 1](out, (1.5, 2.5))
    assert out[0] == 4.0
    total[1, 1](out, (1, 2, 4))
    assert out[0] == 7.0
    total[1, 1](out, (3, 4))  # the first specialization again, from the cache
    assert out[0] == 7.0
    assert total._stats["compiled"] == 3
    assert sorted(total.signatures) == sorted([
        "(float64[::1], UniTuple(int64, 2))",
        "(float64[::1], UniTuple(float64, 2))",
        "(float64[::1], UniTuple(int64, 3))",
    ])


def test_numpy_scalars_bools_and_nested_tuples():
    @gpu.jit
    def mix(out, t):
        if gpu.grid(1) == 0:
            a, (flag, b) = t
            out[0] = a + b if flag else a - b

    out = np.zeros(1, np.float32)
    mix[1, 1](out, (np.float32(2.5), (True, np.int16(3))))
    assert out[0] == 5.5
    mix[1, 1](out, (np.float32(2.5), (False, np.int16(3))))
    assert out[0] == -0.5
    assert mix.signatures == ["(float32[::1], Tuple(float32, Tuple(bool, int16)))"]


def test_tuple_of_arrays_is_passed_and_written_back():
    @gpu.jit
    def k(t):
        i = gpu.grid(1)
        if i < len(t[0]):
            t[0][i] = t[1][i] + t[2][i]

    n = 10
    x0, x1 = np.zeros(n), np.ones(n)
    x2 = gpu.to_device(np.arange(n, dtype=np.float64))
    k[1, n]((x0, x1, x2))  # host arrays are copied in and back, as plain arguments are
    np.testing.assert_array_equal(x0, 1 + np.arange(n))
    assert k.signatures == ["(UniTuple(float64[::1], 3))"]


def test_tuple_of_many_arrays():
    # More arrays than the kernel has parameters: each still gets its own view for the launch.
    @gpu.jit
    def k(out, t):
        i = gpu.grid(1)
        out[i] = t[0][i] + t[5][i] + t[11][i]

    arrays = tuple(np.full(4, float(j)) for j in range(12))
    out = np.zeros(4)
    k[1, 4](out, arrays)
    np.testing.assert_array_equal(out, np.full(4, 16.0))


def test_tuple_mixing_arrays_numbers_and_tuples():
    @gpu.jit
    def k(r, x):
        r[0] = x[0][1]
        r[1] = x[1]
        r[2] = x[2][0] + x[2][1]

    r = np.zeros(3, np.int64)
    k[1, 1](r, (2 * np.arange(2), 10, (4, 3)))
    np.testing.assert_array_equal(r, [2, 10, 7])


def test_tuple_holding_an_unsupported_object_is_a_type_error():
    @gpu.jit
    def k(out, t):
        pass

    with pytest.raises(TypeError, match=r"kernel 'k': argument 't' \(position 2\) has unsupported type 'object'"):
        k[1, 1](np.zeros(1), (1.0, object()))


def test_tuple_elements_are_packed_one_parameter_each(fake):
    @gpu.jit
    def k(x, t, y):
        pass

    k[1, 1](np.int32(5), (1.5, 7, np.float32(0.25)), 9)
    params = fake.last_launch()[5]
    assert len(params) == 5
    assert struct.unpack("<i", params[0])[0] == 5
    assert struct.unpack("<d", params[1])[0] == 1.5
    assert struct.unpack("<q", params[2])[0] == 7
    assert struct.unpack("<f", params[3])[0] == 0.25
    assert struct.unpack("<q", params[4])[0] == 9


def test_explicit_tuple_signature_converts_elements():
    @gpu.jit("void(float64[::1], UniTuple(float64, 2))")
    def add(out, t):
        out[0] = t[0] + t[1]

    out = np.zeros(1)
    add[1, 1](out, (1, 2))
    assert out[0] == 3.0
    with pytest.raises(TypeError, match="No matching definition for argument type"):
        add[1, 1](out, (1, 2, 3))


def test_tuple_types_read_and_print_in_numbas_spelling():
    # Eager signatures take numba's constructors (and its repr, 'UniTuple(int64 x 2)'); gpujit prints tuple
    # types back the same way: in kernel.signatures, in the message of a launch that fits none, in errors.
    @gpu.jit(["void(float64[::1], Tuple(int64, float32))", "void(float64[::1], UniTuple(int64 x 2))"])
    def pick(out, t):
        out[0] = t[0] + t[1]

    assert sorted(pick.signatures) == ["(float64[::1], Tuple(int64, float32))",
                                       "(float64[::1], UniTuple(int64, 2))"]
    out = np.zeros(1)
    pick[1, 1](out, (1, 2))
    assert out[0] == 3.0
    with pytest.raises(TypeError) as e:
        pick[1, 1](out, (1, 2, 3))
    assert "UniTuple(int64, 3)" in str(e.value) and "Tuple(int64, float32)" in str(e.value)

    @gpu.jit
    def bad(out, t):
        out[0] = t

    with pytest.raises(gpu.CompileError, match=r"of type UniTuple\(int64, 2\) into an element of type float64"):
        bad[1, 1](out, (1, 2))


def test_tuple_holding_a_record_is_a_type_error():
    @gpu.jit
    def k(out, t):
        pass

    rec = np.zeros(1, np.dtype([("a", np.int32)]))[0]
    with pytest.raises(TypeError, match=r"argument 't' \(position 2\) is a tuple whose element 0 is a record"):
        k[1, 1](np.zeros(1), (rec, 1.0))
