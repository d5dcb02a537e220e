"""Device arrays captured from a kernel's globals, as numba-cuda captures them.

A global holding a DeviceArray (or any object with __cuda_array_interface__) is compiled in by its address,
shape and strides, at the kernel's first compile: the kernel reads and writes that memory without it being
passed, and keeps the array alive. Runs on the default backend.
"""

import gc

import numpy as np
import pytest

import gpujit as gpu

TABLE = gpu.to_device(np.arange(10, dtype=np.float32))
ROWS = gpu.to_device(np.arange(24, dtype=np.int64).reshape(4, 6))


@gpu.jit(device=True)
def table_at(i):
    return TABLE[i]


def test_a_kernel_reads_a_captured_array_through_a_device_function():
    @gpu.jit
    def read(out):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = table_at(i) * np.float32(2)

    out = np.zeros(10, np.float32)
    read[1, 16](out)
    np.testing.assert_array_equal(out, np.arange(10, dtype=np.float32) * 2)


def test_a_captured_array_is_written_in_place_and_kept_alive():
    target = gpu.to_device(np.zeros(5, np.int32))

    @gpu.jit
    def fill():
        i = gpu.grid(1)
        if i < target.size:
            target[i] = i + 1

    fill[1, 8]()
    kept = target
    del target  # the kernel's closure and its compiled code still hold the array
    gc.collect()
    fill[1, 8]()
    np.testing.assert_array_equal(kept.copy_to_host(), [1, 2, 3, 4, 5])


def test_strided_views_and_foreign_arrays_are_captured_with_their_strides():
    class Foreign:  # exports another library's device memory through the CUDA array interface only
        def __init__(self, arr):
            self._arr = arr
            self.__cuda_array_interface__ = arr.__cuda_array_interface__

    column = ROWS[:, 1]  # a strided view: 4 elements, 48 bytes apart
    foreign = Foreign(ROWS)

    @gpu.jit
    def gather(out):
        i = gpu.grid(1)
        if i < column.size:
            out[i] = column[i] + foreign[i, 5] * 100

    out = np.zeros(4, np.int64)
    gather[1, 4](out)
    host = np.arange(24).reshape(4, 6)
    np.testing.assert_array_equal(out, host[:, 1] + host[:, 5] * 100)


def test_zero_dimensional_captured_arrays_read_with_an_empty_index():
    device_scalar = gpu.to_device(np.array(3.0))
    host_scalar = np.array(5, dtype=np.int32)
    pair = (np.array(7.0), np.array(11.0))

    @gpu.jit
    def use(out):
        out[()] = device_scalar[()] * 2 + host_scalar[()] + pair[0][()] + pair[1][()]

    out = np.zeros((), np.float64)
    use[1, 1](out)
    assert out[()] == 3.0 * 2 + 5 + 7 + 11


def test_code_holding_an_address_is_never_cached(tmp_path, monkeypatch):
    # numba-cuda refuses to cache a kernel that captures a device array (its address is this process's only)
    # with a PicklingError; nothing is written.
    import pickle

    monkeypatch.setenv("GPUJIT_CACHE_DIR", str(tmp_path))

    @gpu.jit(cache=True)
    def read(out):
        out[0] = TABLE[3]

    @gpu.jit(cache=True)
    def plain(out):
        out[0] = 3

    sig = "void(float32[::1])"
    with pytest.raises(pickle.PicklingError, match="global device arrays"):
        read.inspect_ptx(sig)
    with pytest.raises(pickle.PicklingError, match="global device arrays"):
        read[1, 1](np.zeros(1, np.float32))  # on every backend
    plain.inspect_ptx(sig)
    entries = sorted(p.name for p in tmp_path.iterdir())
    assert len(entries) == 1 and ".plain." in entries[0]


COMPLEX_TABLE = (np.arange(6) * (1 + 2j)).astype(np.complex64).reshape(3, 2)


def test_complex_constant_arrays():
    @gpu.jit
    def read(out):
        c = gpu.const.array_like(COMPLEX_TABLE)
        out[0] = c[2, 1]
        out[1] = COMPLEX_TABLE[1, 0]

    out = np.zeros(2, np.complex64)
    read[1, 1](out)
    np.testing.assert_array_equal(out, [COMPLEX_TABLE[2, 1], COMPLEX_TABLE[1, 0]])
