"""CUDA IPC (numba's get_ipc_handle, IpcHandle, open_ipc_array): handles made, pickled, opened and closed.

Against the fake driver a handle opens in the process that made it (the fake's memory is that process's heap;
a real driver refuses this), so these tests open a pickled copy in-process and check every driver call; the
test marked `gpu` opens one in another process on a real GPU, as numba-cuda's own IPC tests do.
"""

import concurrent.futures
import multiprocessing
import pickle

import numpy as np
import pytest
from conftest import FAKE_LIB

import gpujit as gpu


@pytest.fixture
def fake_ipc(fake):
    yield fake
    assert fake.live("ipc_opened") == 0, "an IPC handle was left open"


def test_an_array_handle_pickles_and_opens_as_the_array(fake_ipc):
    d = gpu.to_device(np.arange(10, dtype=np.int64))
    handle = d.get_ipc_handle()
    copy = pickle.loads(pickle.dumps(handle))
    with copy as opened:
        assert fake_ipc.live("ipc_opened") == 1
        assert opened.shape == (10,) and opened.dtype == np.int64
        np.testing.assert_array_equal(opened.copy_to_host(), np.arange(10))
        with pytest.raises(ValueError, match="IpcHandle is already opened"):
            copy.open()
    assert fake_ipc.calls("cuIpcOpenMemHandle_v2") >= 1 and fake_ipc.calls("cuIpcCloseMemHandle") >= 1


@pytest.mark.parametrize("index", [slice(3, None), slice(3, 8), slice(None, 8), (slice(1, 3), slice(None, None, 2))])
def test_a_view_opens_at_its_offset_into_the_allocation(fake_ipc, index):
    host = np.arange(40, dtype=np.float32).reshape(4, 10) if isinstance(index, tuple) else np.arange(10.0)
    view = gpu.to_device(host)[index]
    with pickle.loads(pickle.dumps(view.get_ipc_handle())) as opened:
        np.testing.assert_array_equal(opened.copy_to_host(), host[index])


def test_the_contexts_handle_has_numbas_attributes(fake_ipc):
    d = gpu.to_device(np.arange(6, dtype=np.int32))
    ctx = gpu.current_context()
    ipch = ctx.get_ipc_handle(d[2:].gpu_data)
    assert ipch.base is not None and ipch.size == 16 and ipch.offset == 8
    assert len(ipch.handle.reserved) == 64
    assert set(ipch.source_info) == {"pci_domain_id", "pci_bus_id", "pci_device_id"}
    with pytest.raises(ValueError, match="opening IpcHandle from original process"):
        ipch.open(ctx)
    rebuilt = pickle.loads(pickle.dumps(ipch))
    assert rebuilt.base is None and rebuilt.size == ipch.size and rebuilt.handle.reserved == ipch.handle.reserved
    opened = rebuilt.open_array(ctx, shape=4, dtype=np.int32)
    np.testing.assert_array_equal(opened.copy_to_host(), [2, 3, 4, 5])
    rebuilt.close()
    with pytest.raises(ValueError, match="IpcHandle not opened"):
        rebuilt.close()


def test_open_ipc_array_takes_the_raw_bytes(fake_ipc):
    d = gpu.to_device(np.arange(12, dtype=np.float64))
    raw = gpu.current_context().get_ipc_handle(d.gpu_data).handle.reserved
    for form in (raw, tuple(raw), [b - 256 if b > 127 else b for b in raw]):  # bytes, ints, c_byte values
        with gpu.open_ipc_array(form, shape=[3, 2], dtype=np.float64, offset=16) as opened:
            np.testing.assert_array_equal(opened.copy_to_host(), np.arange(2, 8.0).reshape(3, 2))
    with gpu.open_ipc_array(raw, shape=np.int64(12), dtype=np.float64) as opened:  # a NumPy integer shape
        np.testing.assert_array_equal(opened.copy_to_host(), np.arange(12.0))
    with pytest.raises(ValueError, match="64 bytes, not 3"):
        with gpu.open_ipc_array(b"abc", shape=1, dtype=np.int8):
            pass


def test_device_extents_is_the_allocation(fake_ipc):
    d = gpu.to_device(np.arange(100, dtype=np.uint8))
    start, end = gpu.cudadrv.driver.device_extents(d[10:20].gpu_data)
    base = d.device_ctypes_pointer.value
    assert start == base and end - start >= 100  # the caching allocator's whole block


def test_a_driver_failure_names_the_call(fake_ipc):
    d = gpu.to_device(np.arange(4))
    fake_ipc.fail("cuIpcGetMemHandle", 1)
    with pytest.raises(gpu.CudaAPIError, match="cuIpcGetMemHandle failed.*making an IPC handle"):
        d.get_ipc_handle()


def test_the_cpu_backend_has_no_ipc(cpu_backend):
    d = gpu.to_device(np.arange(4))
    with pytest.raises(gpu.CudaSupportError, match="CUDA IPC needs a CUDA device"):
        d.get_ipc_handle()
    with pytest.raises(gpu.CudaSupportError, match="CUDA IPC needs a CUDA device"):
        with gpu.open_ipc_array(bytes(64), shape=4, dtype=np.int64):
            pass


def _open_in_child(handle):
    import gpujit

    with handle as array:
        return array.copy_to_host()


@pytest.mark.gpu
def test_another_process_reads_the_array(cuda):
    assert FAKE_LIB is None
    host = np.random.default_rng(1).random(1000)
    d = gpu.to_device(host)
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        np.testing.assert_array_equal(pool.submit(_open_in_child, d.get_ipc_handle()).result(timeout=120), host)
        np.testing.assert_array_equal(pool.submit(_open_in_child, d[100:300].get_ipc_handle()).result(timeout=120),
                                      host[100:300])


class _WrappedContext:
    """A context as numba's are: not a device, but one in its `device` attribute."""

    def __init__(self, device):
        self.device = device


def test_a_handle_opens_staged_on_a_wrapped_context(fake_ipc):
    d = gpu.to_device(np.arange(10, dtype=np.intp))
    rebuilt = pickle.loads(pickle.dumps(gpu.current_context().get_ipc_handle(d.gpu_data)))
    ptr = rebuilt.open_staged(_WrappedContext(gpu.current_context()))
    host = np.zeros(10, dtype=np.intp)
    gpu.cudadrv.driver.device_to_host(host, ptr, size=rebuilt.size)
    np.testing.assert_array_equal(host, np.arange(10))
    rebuilt.close()
    assert rebuilt.can_access_peer(_WrappedContext(gpu.current_context()))
    with pytest.raises(TypeError, match="opens on a device or a context of one, not object"):
        rebuilt.open(object())
