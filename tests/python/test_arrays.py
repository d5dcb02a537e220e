"""Device arrays, streams, events and devices, against whichever driver the session uses (conftest.py).

On the fake driver device memory is host memory, so every copy really happens and is checked; the `fake`
fixture additionally counts driver calls.
"""

import numpy as np
import pytest

import gpujit as gpu

pytestmark = pytest.mark.usefixtures("cuda")


def test_device_properties():
    dev = gpu.get_current_device()
    assert dev.id == 0
    major, minor = dev.compute_capability
    assert major >= 7
    assert dev.MULTIPROCESSOR_COUNT > 0
    assert dev.MAX_THREADS_PER_BLOCK == 1024
    free, total = dev.get_memory_info()
    assert 0 < free <= total
    assert gpu.select_device(0) == dev
    with pytest.raises(ValueError, match="no device 99"):
        gpu.select_device(99)


def test_round_trip_keeps_values_shape_and_layout():
    for a in (np.arange(12, dtype=np.float32).reshape(3, 4), np.asfortranarray(np.arange(6.0).reshape(2, 3)),
              np.array([True, False, True]), np.arange(5, dtype=np.complex64), np.zeros((0, 3), np.int16)):
        d = gpu.to_device(a)
        assert d.shape == a.shape and d.dtype == a.dtype
        assert d.strides == a.strides or a.size == 0
        assert d.size == a.size and d.ndim == a.ndim and d.nbytes == a.nbytes
        back = d.copy_to_host()
        np.testing.assert_array_equal(back, a)
        assert back.flags.f_contiguous == a.flags.f_contiguous


def test_strided_host_arrays_are_made_contiguous():
    a = np.arange(20, dtype=np.int32)[::2]
    d = gpu.to_device(a)
    assert d.is_c_contiguous()
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_copy_to_host_into_a_given_array_and_back_to_the_device():
    d = gpu.to_device(np.arange(8, dtype=np.float64))
    out = np.empty(8)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, np.arange(8))
    d.copy_to_device(np.full(8, 3.0))
    np.testing.assert_array_equal(d.copy_to_host(), np.full(8, 3.0))
    with pytest.raises(ValueError, match="shape or dtype"):
        d.copy_to_host(np.empty(7))


def test_device_array_and_like():
    d = gpu.device_array((4, 5), dtype=np.float32)
    assert d.shape == (4, 5) and d.dtype == np.float32 and d.is_c_contiguous()
    assert gpu.device_array(3).dtype == np.float64
    assert gpu.device_array(3, gpu.int8).dtype == np.int8
    like = gpu.device_array_like(np.zeros((2, 3), np.int32, order="F"))
    assert like.shape == (2, 3) and like.dtype == np.int32 and like.is_f_contiguous()
    assert gpu.device_array_like(d).shape == (4, 5)
    with pytest.raises(TypeError, match="not a supported dtype"):
        gpu.device_array(3, dtype=object)


def test_slicing_gives_views_of_the_same_memory():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    d = gpu.to_device(a)
    v = d[1:3, ::2]
    assert v.shape == (2, 3)
    assert not v.is_c_contiguous()
    np.testing.assert_array_equal(v.copy_to_host(), a[1:3, ::2])
    np.testing.assert_array_equal(d[2].copy_to_host(), a[2])
    np.testing.assert_array_equal(d[..., -1].copy_to_host(), a[..., -1])
    np.testing.assert_array_equal(d[::-1].copy_to_host(), a[::-1])
    assert d[1, 2] == a[1, 2]
    assert len(d) == 4
    row = d[3]
    assert row.__cuda_array_interface__["data"][0] == d.__cuda_array_interface__["data"][0] + 3 * 6 * 4
    with pytest.raises(IndexError):
        d[4]
    with pytest.raises(IndexError, match="too many indices"):
        d[1, 2, 3]


def test_setitem_writes_through_to_device_memory():
    d = gpu.to_device(np.zeros((3, 4), np.int64))
    d[1] = 7
    d[:, 3] = np.array([1, 2, 3])
    expected = np.zeros((3, 4), np.int64)
    expected[1] = 7
    expected[:, 3] = [1, 2, 3]
    np.testing.assert_array_equal(d.copy_to_host(), expected)


def test_reshape_and_ravel():
    d = gpu.to_device(np.arange(6, dtype=np.int32))
    np.testing.assert_array_equal(d.reshape(2, 3).copy_to_host(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(d.reshape((3, 2)).ravel().copy_to_host(), np.arange(6))
    with pytest.raises(ValueError, match="reshape changes the size of the array"):
        d.reshape(4)


def test_cuda_array_interface_out():
    d = gpu.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (2, 3) and cai["typestr"] == "<f4" and cai["strides"] is None
    assert cai["version"] == 3 and cai["data"][1] is False and cai["data"][0] != 0
    assert d[:, 1:].__cuda_array_interface__["strides"] == (12, 4)
    assert gpu.is_cuda_array(d)
    assert not gpu.is_cuda_array(np.zeros(2))


class _Foreign:
    """Another library's device array, seen only through the interface."""

    def __init__(self, cai, keep):
        self.__cuda_array_interface__ = cai
        self.keep = keep


def test_as_cuda_array_shares_memory():
    d = gpu.to_device(np.arange(4, dtype=np.int32))
    view = gpu.as_cuda_array(_Foreign(d.__cuda_array_interface__, d))
    assert view.shape == (4,) and view.dtype == np.int32
    view[0] = 42
    assert d.copy_to_host()[0] == 42
    with pytest.raises(TypeError, match="not a CUDA array"):
        gpu.as_cuda_array(np.zeros(3))


def test_dlpack_round_trip():
    d = gpu.to_device(np.arange(6, dtype=np.float64).reshape(3, 2))
    assert d.__dlpack_device__() == (2, 0)

    class Producer:
        def __dlpack__(self, stream=None):
            return d.__dlpack__()

    e = gpu.from_dlpack(Producer())
    assert e.shape == (3, 2) and e.dtype == np.float64 and e.strides == d.strides
    np.testing.assert_array_equal(e.copy_to_host(), d.copy_to_host())
    strided = gpu.from_dlpack(type("P", (), {"__dlpack__": lambda self, stream=None: d[:, 1].__dlpack__()})())
    np.testing.assert_array_equal(strided.copy_to_host(), np.arange(6.0).reshape(3, 2)[:, 1])


def test_streams_and_events():
    s = gpu.stream()
    d = gpu.to_device(np.arange(4.0), stream=s)
    out = d.copy_to_host(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out, np.arange(4.0))
    assert s.query()
    assert "default stream" in repr(gpu.default_stream())
    start, end = gpu.event(), gpu.event()
    start.record()
    end.record(s)
    end.synchronize()
    assert gpu.event_elapsed_time(start, end) >= 0
    assert start.elapsed_time(end) >= 0
    gpu.synchronize()


def test_pinned_array_is_a_numpy_array():
    p = gpu.pinned_array((3, 4), np.float32)
    assert isinstance(p, np.ndarray) and p.shape == (3, 4) and p.dtype == np.float32
    p[:] = 1.5
    np.testing.assert_array_equal(gpu.to_device(p).copy_to_host(), p)


def test_allocation_in_a_loop_reaches_the_driver_once(fake):
    gpu.device_array(1000, np.float32)  # warm the cache with this size
    before = fake.calls("cuMemAlloc_v2")
    for _ in range(100):
        d = gpu.device_array(1000, np.float32)
        del d
    assert fake.calls("cuMemAlloc_v2") == before
    stats = gpu.allocator_stats()
    assert stats.cache_hits >= 100


def test_driver_errors_name_the_call(fake):
    fake.fail("cuMemAlloc_v2", 1)  # CUDA_ERROR_INVALID_VALUE on the next allocation
    with pytest.raises(gpu.CudaAPIError, match=r"cuMemAlloc failed: CUDA_ERROR_INVALID_VALUE \(invalid argument\)") as e:
        gpu.device_array(123457, np.uint8)
    assert e.value.name == "CUDA_ERROR_INVALID_VALUE" and e.value.code == 1 and e.value.function == "cuMemAlloc"


def test_out_of_memory_empties_the_cache_and_retries(fake):
    gpu.device_array(5000, np.uint8)  # a cached block exists after this is freed
    fake.fail("cuMemAlloc_v2", 2)  # CUDA_ERROR_OUT_OF_MEMORY once
    d = gpu.device_array(777777, np.uint8)
    assert d.size == 777777
    assert gpu.allocator_stats().bytes_cached == 0
