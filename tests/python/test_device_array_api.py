"""numba-cuda's DeviceNDArray API on gpujit's DeviceArray (python/gpujit/_device_array.py), with NumPy as the
oracle: `flags`, `alloc_size`, `gpu_data`, the `DeviceArray(shape, strides, dtype, gpu_data=...)` constructor,
`T`/`transpose`, `view(dtype)`, `split`, `squeeze`, `np.asarray`, `from_cuda_array_interface`. Views must
share memory with their base (a write through one is read through the other) and keep it alive.
"""

import gc

import numpy as np
import pytest

import gpujit as gpu


def test_flags_match_numpy_for_c_f_and_strided_arrays():
    c = np.zeros((4, 6))
    f = np.asfortranarray(c)
    for host, dev in ((c, gpu.to_device(c)), (f, gpu.to_device(f)), (c[:, ::2], gpu.to_device(c)[:, ::2]),
                      (c[1], gpu.to_device(c)[1])):
        flags = dev.flags
        assert flags["C_CONTIGUOUS"] == host.flags["C_CONTIGUOUS"]
        assert flags["F_CONTIGUOUS"] == host.flags["F_CONTIGUOUS"]
        assert flags.c_contiguous == host.flags.c_contiguous and flags.f_contiguous == host.flags.f_contiguous
        assert set(flags) == {"C_CONTIGUOUS", "F_CONTIGUOUS"}


def test_alloc_size_is_the_span_of_the_elements():
    d = gpu.to_device(np.arange(10.0))
    assert d.alloc_size == 80
    assert d[::2].alloc_size == 72  # 5 elements 16 bytes apart: 4 gaps and one element
    assert d[::-3].alloc_size == 80
    assert gpu.device_array(0).alloc_size == 0


def test_constructor_allocates_memory_with_the_given_strides():
    d = gpu.DeviceArray((3, 4), (8, 24), np.float32)
    assert isinstance(d, gpu.DeviceArray)
    assert (d.shape, d.strides, d.dtype) == ((3, 4), (8, 24), np.dtype(np.float32))
    assert d.alloc_size == 2 * 8 + 3 * 24 + 4
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    d[:] = host
    np.testing.assert_array_equal(d.copy_to_host(), host)
    assert gpu.DeviceNDArray(5, 8, "int64").shape == (5,)


def test_constructor_over_gpu_data_shares_memory():
    base = gpu.to_device(np.arange(12, dtype=np.int64))
    view = gpu.DeviceArray((3, 4), (32, 8), np.int64, gpu_data=base.gpu_data)
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(12).reshape(3, 4))
    view[1, 2] = -1
    assert base.copy_to_host()[6] == -1
    tail = gpu.DeviceArray((4,), (8,), np.int64, gpu_data=base.gpu_data.view(64))
    np.testing.assert_array_equal(tail.copy_to_host(), [8, 9, 10, 11])


def test_constructor_rejects_bad_descriptions():
    with pytest.raises(ValueError, match="strides"):
        gpu.DeviceArray((3, 4), (8,), np.float64)
    with pytest.raises(TypeError, match="integers"):
        gpu.DeviceArray((3.5,), (8,), np.float64)
    small = gpu.device_array(4)
    with pytest.raises(ValueError, match="spans 64 bytes"):
        gpu.DeviceArray((8,), (8,), np.float64, gpu_data=small.gpu_data)
    with pytest.raises(TypeError, match="DeviceMemory"):
        gpu.DeviceArray((4,), (8,), np.float64, gpu_data=12345)
    with pytest.raises(ValueError, match="outside"):
        small.gpu_data.view(8, 64)


def test_views_keep_their_memory_alive():
    view = gpu.DeviceArray((4,), (8,), np.float64, gpu_data=gpu.to_device(np.arange(4.0)).gpu_data)
    reinterpreted = gpu.to_device(np.arange(4, dtype=np.int64)).view(np.uint8)
    gc.collect()
    for _ in range(8):
        gpu.to_device(np.full(64, 7.0))  # would reuse the freed blocks if the views had let go
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(4.0))
    np.testing.assert_array_equal(reinterpreted.copy_to_host(), np.arange(4, dtype=np.int64).view(np.uint8))


def test_transpose_of_2d_arrays_and_views_matches_numpy():
    a = np.arange(120, dtype=np.int64).reshape(10, 12)
    d = gpu.to_device(a)
    for host, dev in ((a, d), (a[::2, ::3], d[::2, ::3]), (a[:, 1:7], d[:, 1:7])):
        t = dev.T
        assert t.shape == host.T.shape
        assert t.flags["C_CONTIGUOUS"]  # numba-cuda's transpose is a new C-ordered array, not a view
        np.testing.assert_array_equal(t.copy_to_host(), host.T)
    c = (np.arange(6) + 1j * np.arange(6)).reshape(2, 3)
    np.testing.assert_array_equal(gpu.to_device(c).transpose((1, 0)).copy_to_host(), c.T)


def test_transpose_identity_and_1d_return_the_array_itself():
    d = gpu.to_device(np.zeros((2, 3)))
    assert d.transpose((0, 1)) is d
    v = gpu.to_device(np.arange(4.0))
    assert v.T is v


def test_transpose_rejects_bad_axes_in_numbas_words():
    d = gpu.to_device(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"^invalid axes list \(0, 0\)$"):
        d.transpose((0, 0))
    with pytest.raises(ValueError, match=r"^invalid axes list \(0, 1, 2\)$"):
        d.transpose((0, 1, 2))
    with pytest.raises(ValueError, match=r"^invalid axes list \(1,\)$"):
        gpu.to_device(np.zeros(3)).transpose((1,))
    with pytest.raises(NotImplementedError, match="^transposing a non-2D DeviceNDArray isn't supported$"):
        gpu.to_device(np.zeros((2, 3, 4))).T
    three = gpu.to_device(np.zeros((2, 3, 4)))
    assert three.transpose((0, 1, 2)) is three


def test_view_reinterprets_without_copying():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    d = gpu.to_device(a)
    for dtype in (np.float32, np.int64, np.uint8, np.int16):
        v = d.view(dtype)
        assert (v.shape, v.strides) == (a.view(dtype).shape, a.view(dtype).strides)
        np.testing.assert_array_equal(v.copy_to_host(), a.view(dtype))
    d.view(np.uint8)[0, 0] = 0xFF
    assert d.copy_to_host()[0, 0] == 0xFF


def test_view_rejects_what_numpy_rejects():
    d = gpu.to_device(np.arange(6, dtype=np.int32).reshape(2, 3))
    with pytest.raises(ValueError, match="^When changing to a larger dtype, its size must be a divisor of the total "
                                         "size in bytes of the last axis of the array.$"):
        d.view(np.int64)  # a row of 12 bytes is not a whole number of int64s
    with pytest.raises(ValueError, match="^To change to a dtype of a different size, the last axis must be contiguous"):
        d[:, ::2].view(np.int16)
    # NumPy's rule: only the last axis must be contiguous
    a = np.arange(24, dtype=np.int16).reshape(4, 6)
    np.testing.assert_array_equal(gpu.to_device(a)[::2].view(np.int32).copy_to_host(), a[::2].view(np.int32))


def test_split_yields_views_of_consecutive_pieces():
    a = np.arange(10.0)
    d = gpu.to_device(a)
    pieces = list(d.split(4))
    assert [p.shape for p in pieces] == [(4,), (4,), (2,)]
    for piece, expected in zip(pieces, np.split(a, [4, 8])):
        np.testing.assert_array_equal(piece.copy_to_host(), expected)
    pieces[1][0] = -1.0
    assert d.copy_to_host()[4] == -1.0
    with pytest.raises(ValueError, match="1-D"):
        gpu.to_device(np.zeros((2, 2))).split(1)
    with pytest.raises(ValueError, match="unit stride"):
        d[::2].split(1)


def test_squeeze_matches_numpy():
    a = np.arange(6.0).reshape(1, 3, 1, 2)
    d = gpu.to_device(a)
    for axis in (None, 0, 2, (0, 2), -2):
        s = d.squeeze(axis)
        assert (s.shape, s.strides) == (a.squeeze(axis).shape, a.squeeze(axis).strides)
        np.testing.assert_array_equal(s.copy_to_host(), a.squeeze(axis))
    with pytest.raises(ValueError, match="length is 3"):
        d.squeeze(1)


def test_numpy_asarray_copies_to_the_host():
    a = np.arange(5, dtype=np.int16)
    d = gpu.to_device(a)
    np.testing.assert_array_equal(np.asarray(d), a)
    assert np.asarray(d, dtype=np.float64).dtype == np.float64


def test_from_cuda_array_interface_views_the_described_memory():
    a = np.arange(10, dtype=np.int64).reshape(2, 5)
    d = gpu.to_device(a)
    desc = dict(d.__cuda_array_interface__)
    desc["strides"] = (8, 16)
    desc["shape"] = (5, 2)
    view = gpu.from_cuda_array_interface(desc, owner=d)
    np.testing.assert_array_equal(view.copy_to_host(), np.lib.stride_tricks.as_strided(a, (5, 2), (8, 16)))
    desc["mask"] = d
    with pytest.raises(NotImplementedError, match="Masked"):
        gpu.from_cuda_array_interface(desc)


def _like_cases():
    c = np.zeros((10, 12))
    f = np.asfortranarray(c)
    return [c, f, c[::2, ::2], f[::2, ::2], f[::2, ::2].T, np.zeros((3, 4, 5))[:, ::2, 1:]]


@pytest.mark.parametrize("like", [gpu.device_array_like, gpu.pinned_array_like, gpu.mapped_array_like])
def test_like_constructors_keep_the_order_of_the_strides_as_numpy_empty_like(like):
    for host in _like_cases():
        for source in (host, gpu.to_device(host) if host.flags.c_contiguous or host.flags.f_contiguous else host):
            got, want = like(source), np.empty_like(host)
            assert (got.shape, got.strides, got.dtype) == (want.shape, want.strides, want.dtype)
            assert got.flags["C_CONTIGUOUS"] == want.flags["C_CONTIGUOUS"]
            assert got.flags["F_CONTIGUOUS"] == want.flags["F_CONTIGUOUS"]


def test_a_kernel_writes_a_mapped_array_in_place():
    @gpu.jit
    def fill(a):
        i, j = gpu.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] += 10 * i + j

    m = gpu.mapped_array((4, 5), np.int32, order="F")
    assert isinstance(m, np.ndarray) and m.flags.f_contiguous
    m[:] = 1
    fill[(1, 1), (4, 5)](m[::2])
    want = np.ones((4, 5), np.int32)
    want[::2] += (10 * np.arange(2)[:, None] + np.arange(5))
    np.testing.assert_array_equal(m, want)
    assert not hasattr(m + 1, "__cuda_array_interface__")  # NumPy's result is ordinary memory


def test_a_kernel_writes_a_managed_array_in_place():
    @gpu.jit
    def scale(a, factor):
        i = gpu.grid(1)
        if i < a.size:
            a[i] *= factor

    m = gpu.managed_array(10, np.float32)
    assert isinstance(m, np.ndarray) and m.shape == (10,) and m.dtype == np.float32
    m[:] = np.arange(10)
    scale[1, 16](m, 3)
    gpu.synchronize()
    np.testing.assert_array_equal(m, 3 * np.arange(10, dtype=np.float32))
    iface = m.__cuda_array_interface__
    assert iface["data"][0] == m.__array_interface__["data"][0]  # one address for the host and the device
    assert iface["stream"] is None
    stream = gpu.stream()
    assert gpu.managed_array((2, 3), np.int64, stream=stream).__cuda_array_interface__["stream"] == int(stream.handle)
    host_attached = gpu.managed_array(4, np.float32, attach_global=False)  # CU_MEM_ATTACH_HOST, as numba's
    host_attached[:] = 1
    scale[1, 4](host_attached, 2)
    gpu.synchronize()
    np.testing.assert_array_equal(host_attached, [2, 2, 2, 2])


class _Foreign:
    """Another library's array: only its __cuda_array_interface__, as numba's ForeignArray."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def test_the_interface_names_the_arrays_stream_or_none_for_the_default_stream():
    assert gpu.device_array(4).__cuda_array_interface__["stream"] is None
    assert gpu.mapped_array(4).__cuda_array_interface__["stream"] is None
    s = gpu.stream()
    assert gpu.device_array(4, stream=s).__cuda_array_interface__["stream"] == int(s.handle)
    assert gpu.mapped_array(4, stream=s).__cuda_array_interface__["stream"] == int(s.handle)


def test_a_consumed_array_takes_the_producers_stream_and_waits_for_it(monkeypatch):
    s = gpu.stream()
    calls = []
    real = gpu.Stream.synchronize
    monkeypatch.setattr(gpu.Stream, "synchronize", lambda self: calls.append(int(self.handle)) or real(self))
    plain = gpu.as_cuda_array(_Foreign(gpu.device_array(4)))
    assert plain.stream == 0 and calls == []
    wrapped = gpu.as_cuda_array(_Foreign(gpu.device_array(4, stream=s)))
    assert wrapped.stream.external and int(wrapped.stream.handle) == int(s.handle)
    assert calls == [int(s.handle)]
    gpu.as_cuda_array(_Foreign(gpu.device_array(4, stream=s)), sync=False)
    assert calls == [int(s.handle)]
    monkeypatch.setattr(gpu.config, "CUDA_ARRAY_INTERFACE_SYNC", 0)
    gpu.as_cuda_array(_Foreign(gpu.device_array(4, stream=s)))
    assert calls == [int(s.handle)]
    assert not s.external  # gpujit's own stream


def test_a_launch_waits_for_the_stream_each_foreign_argument_names(monkeypatch):
    @gpu.jit
    def add_one(x, y):
        i = gpu.grid(1)
        if i < x.size:
            x[i] += 1
            y[i] += 1

    s1, s2 = gpu.stream(), gpu.stream()
    a, b = gpu.to_device(np.zeros(4), stream=s1), gpu.to_device(np.zeros(4), stream=s2)
    s1.synchronize()
    s2.synchronize()
    calls = []
    real = gpu.Stream.synchronize
    monkeypatch.setattr(gpu.Stream, "synchronize", lambda self: calls.append(int(self.handle)) or real(self))
    add_one[1, 4](_Foreign(a), _Foreign(b))
    assert sorted(calls) == sorted([int(s1.handle), int(s2.handle)])
    np.testing.assert_array_equal(a.copy_to_host(), np.ones(4))
    calls.clear()
    add_one[1, 4](_Foreign(gpu.device_array(4)), _Foreign(gpu.device_array(4)))  # no stream: nothing to wait for
    assert calls == []
    monkeypatch.setattr(gpu.config, "CUDA_ARRAY_INTERFACE_SYNC", 0)
    add_one[1, 4](_Foreign(a), _Foreign(b))
    assert calls == []


def test_an_interface_stream_of_zero_is_refused():
    desc = dict(gpu.device_array(4).__cuda_array_interface__, stream=0)
    with pytest.raises(ValueError, match="stream"):
        gpu.from_cuda_array_interface(desc)


def test_aligned_and_packed_records_of_equal_layout_are_different_signatures():
    packed = np.dtype([("x", np.float16), ("y", np.float16)])
    aligned = np.dtype([("x", np.float16), ("y", np.float16)], align=True)
    assert packed == aligned  # NumPy compares them equal; numba's Record types differ

    @gpu.jit
    def f(a):
        pass

    f[1, 1](gpu.to_device(np.zeros(1, dtype=packed)))
    f[1, 1](gpu.to_device(np.zeros(1, dtype=aligned)))
    assert len(f.signatures) == 2 and f.signatures[0] != f.signatures[1]


def test_stream_auto_synchronize_waits_at_the_end_of_the_block():
    s = gpu.stream()
    host = np.arange(8.0)
    with s.auto_synchronize() as same:
        assert same is s
        d = gpu.to_device(host, stream=s)
        out = np.zeros_like(host)
        d.copy_to_host(out, stream=s)
    np.testing.assert_array_equal(out, host)
