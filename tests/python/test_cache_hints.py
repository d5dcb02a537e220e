"""numba-cuda's cache-hinted loads and stores (cuda.ldca ... cuda.stwt), int.bit_count(), cuda.nanosleep and
math.nextafter, against NumPy, on the default backend (the CPU backend here, the GPU where there is one);
the PTX checks compile for the GPU without running."""

import linecache
import math

import numpy as np
import pytest

import gpujit as cuda

LOADS = [(cuda.ldca, "ca"), (cuda.ldcg, "cg"), (cuda.ldcs, "cs"), (cuda.ldlu, "lu"), (cuda.ldcv, "cv")]
STORES = [(cuda.stcg, "cg"), (cuda.stcs, "cs"), (cuda.stwb, "wb"), (cuda.stwt, "wt")]
DTYPES = [np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("load,op", LOADS)
def test_loads_read_each_element_and_use_the_cache_operator(load, op, dtype):
    @cuda.jit
    def copy(r, x):
        for i in range(len(r)):
            r[i] = load(x, i)

    x = np.arange(5).astype(dtype)
    r = np.zeros_like(x)
    copy[1, 1](r, x)
    np.testing.assert_array_equal(r, x)
    sig = f"void({np.dtype(dtype).name}[::1], {np.dtype(dtype).name}[::1])"
    assert f"ld.global.{op}.b{8 * np.dtype(dtype).itemsize}" in copy.inspect_ptx(sig)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("store,op", STORES)
def test_stores_write_each_element_of_a_2d_array(store, op, dtype):
    @cuda.jit
    def copy(r, x):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                store(r, (i, j), x[i, j])

    x = np.arange(12).reshape(3, 4).astype(dtype)
    r = np.zeros_like(x)
    copy[1, 1](r, x)
    np.testing.assert_array_equal(r, x)
    sig = f"void({np.dtype(dtype).name}[:, ::1], {np.dtype(dtype).name}[:, ::1])"
    assert f"st.global.{op}.b{8 * np.dtype(dtype).itemsize}" in copy.inspect_ptx(sig)


def test_negative_indices_wrap_and_values_convert_to_the_dtype():
    @cuda.jit
    def k(r, x):
        cuda.stcs(r, -1, cuda.ldcg(x, (-1, 0)) + 0.75)
        r[0] = cuda.ldcv(x, (0, -1))

    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    r = np.zeros(3, np.int32)
    k[1, 1](r, x)
    np.testing.assert_array_equal(r, [2, 0, 3])


def test_a_shared_array_is_an_error_at_the_argument():
    @cuda.jit
    def bad(out):
        s = cuda.shared.array(32, np.float32)
        out[0] = cuda.ldcs(s, 0)

    with pytest.raises(cuda.CompileError, match="'s' is in shared memory, which ld.global cannot address") as e:
        bad[1, 1](np.zeros(1, np.float32))
    line = bad.py_func.__code__.co_firstlineno + 3
    assert e.value.lineno == line
    assert e.value.col == linecache.getline(__file__, line).index("s, 0") + 1


def test_a_complex_array_is_an_error_in_numbas_words():
    @cuda.jit
    def bad(r, x):
        r[0] = cuda.ldcs(x, 0)

    with pytest.raises(cuda.CompileError, match="ldcs requires array of integer or float type, got complex64"):
        bad[1, 1](np.zeros(1, np.complex64), np.zeros(1, np.complex64))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint32, np.int64])
def test_bit_count_counts_the_set_bits(dtype):
    values = np.array([0, 1, 0x5A, np.iinfo(dtype).max], dtype=dtype)

    @cuda.jit
    def counts(out, xs):
        i = cuda.grid(1)
        if i < xs.size:
            out[i] = xs[i].bit_count()

    out = np.zeros(values.size, np.int32)
    counts[1, 32](out, values)
    np.testing.assert_array_equal(out, [bin(int(v)).count("1") for v in values])


def test_nanosleep_returns_and_the_loop_goes_on():
    @cuda.jit
    def k(out, ns):
        cuda.nanosleep(32)
        cuda.nanosleep(ns)
        out[0] = 1

    out = np.zeros(1, np.int32)
    k[1, 1](out, np.uint32(100))
    assert out[0] == 1
    assert k.inspect_ptx("void(int32[::1], uint32)").count("nanosleep.u32") == 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_steps_one_ulp_as_numpy(dtype):
    @cuda.jit
    def k(out, x, y):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = math.nextafter(x[i], y[i])

    x = np.array([1.0, 1.0, 0.0, -2.5, np.inf], dtype)
    y = np.array([2.0, 0.0, -1.0, -2.5, 0.0], dtype)
    out = np.zeros_like(x)
    k[1, 32](out, x, y)
    np.testing.assert_array_equal(out, np.nextafter(x, y))
