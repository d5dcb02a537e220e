"""numba's runtime functions around the context: the profiler, defer_cleanup, close and the device's reset,
pinned and mapped host arrays, the feature queries and KernelRuntimeError; on the CPU backend and, through the
fake driver, on the CUDA backend's driver calls."""

import threading

import numpy as np
import pytest
from conftest import FAKE_LIB

import gpujit as gpu


@gpu.jit
def add_one(a):
    i = gpu.grid(1)
    if i < a.size:
        a[i] += 1


def test_profiling_switches_the_drivers_profiler(fake):
    start, stop = fake.calls("cuProfilerStart"), fake.calls("cuProfilerStop")
    with gpu.profiling():
        assert fake.live("profiling") == 1
    assert fake.live("profiling") == 0
    gpu.profile_start()
    gpu.profile_stop()
    assert (fake.calls("cuProfilerStart") - start, fake.calls("cuProfilerStop") - stop) == (2, 2)


def test_profiling_stops_when_the_block_raises(fake):
    with pytest.raises(KeyError):
        with gpu.profiling():
            raise KeyError("inside")
    assert fake.live("profiling") == 0


def test_profiling_around_launches_on_the_cuda_backend(cuda):
    d = gpu.to_device(np.zeros(4))
    with gpu.profiling():
        add_one[1, 4](d)
    gpu.synchronize()


def test_profiling_does_nothing_on_the_cpu_backend(cpu_backend):
    with gpu.profiling():
        gpu.device_array(10)
    gpu.profile_start()
    gpu.profile_stop()


def test_defer_cleanup_keeps_cached_memory_until_the_block_ends(fake):
    gpu.empty_cache()
    gpu.device_array(1000)  # freed at once: its block is cached
    assert gpu.allocator_stats().bytes_cached > 0
    with gpu.defer_cleanup():
        with gpu.defer_cleanup():  # nested
            gpu.empty_cache()
        gpu.current_context().reset()
        assert gpu.allocator_stats().bytes_cached > 0
    live = fake.live("allocations")
    gpu.empty_cache()
    assert gpu.allocator_stats().bytes_cached == 0 and fake.live("allocations") < live


def test_running_out_of_memory_under_defer_cleanup_says_why(fake):
    gpu.device_array(1000)
    with gpu.defer_cleanup():
        fake.fail("cuMemAlloc_v2", 2)  # CUDA_ERROR_OUT_OF_MEMORY
        with pytest.raises(gpu.CudaAPIError, match="not given back to the driver, since defer_cleanup"):
            gpu.device_array(1 << 20)


def test_defer_cleanup_works_on_the_cpu_backend(cpu_backend):
    with gpu.defer_cleanup():
        a = gpu.to_device(np.arange(3))
        del a


def test_reset_gives_the_cached_blocks_back(cpu_backend):
    gpu.device_array(4096)
    assert gpu.allocator_stats().bytes_cached > 0
    gpu.current_context().reset()
    assert gpu.allocator_stats().bytes_cached == 0


def test_close_resets_and_the_next_use_starts_afresh(cpu_backend):
    kept = gpu.to_device(np.arange(4))
    gpu.device_array(4096)
    gpu.close()
    assert gpu.allocator_stats().bytes_cached == 0
    add_one[1, 4](kept)  # arrays and kernels made before stay valid (gpujit does not destroy the context)
    np.testing.assert_array_equal(kept.copy_to_host(), [1, 2, 3, 4])


def test_close_in_another_thread_forgets_only_that_threads_device(cpu_backend):
    errors = []

    def worker():
        try:
            for _ in range(2):
                gpu.select_device(0)
                gpu.close()
            gpu.get_current_device()
        except Exception as e:  # noqa: BLE001  reported below
            errors.append(e)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert errors == []


def test_pinned_registers_the_arrays_for_the_block(fake):
    a, b = np.zeros(100), np.ones((4, 4), np.float32)[:, ::2]
    registered = fake.live("registered")
    with gpu.pinned(a, b):
        assert fake.live("registered") == registered + 2
        d = gpu.to_device(a)
    assert fake.live("registered") == registered
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_pinning_memory_twice_is_the_drivers_error(fake):
    a = np.zeros(64)
    with gpu.pinned(a):
        with pytest.raises(gpu.CudaAPIError, match="HOST_MEMORY_ALREADY_REGISTERED.*page-locking 512 bytes"):
            with gpu.pinned(a):
                pass
    with gpu.pinned(a):  # unpinned after the block, so it pins again
        pass


def test_mapped_gives_device_arrays_over_the_host_memory(fake):
    a = np.arange(10, dtype=np.int32)
    with gpu.mapped(a) as d:
        assert d.shape == a.shape and d.dtype == a.dtype
        assert d.device_ctypes_pointer.value == a.ctypes.data  # the fake maps host memory at its address
        a[0] = 7
        np.testing.assert_array_equal(d.copy_to_host(), a)
    with gpu.mapped(a, np.zeros((2, 3))) as (d1, d2):
        assert d2.shape == (2, 3)
    assert fake.live("registered") == 0


def test_a_kernel_writes_a_mapped_array_in_place_on_the_cuda_backend(cuda):
    a = np.arange(64, dtype=np.float64)
    with gpu.mapped(a) as d:
        add_one[1, 64](d)
        gpu.synchronize()
    if FAKE_LIB is None:  # the fake driver runs no kernel
        np.testing.assert_array_equal(a, np.arange(64.0) + 1)
    with gpu.pinned(a):
        d = gpu.to_device(a)
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_a_kernel_writes_a_mapped_array_in_place_on_the_cpu_backend(cpu_backend):
    a = np.arange(16, dtype=np.float64)[::2]  # strided: mapped with its strides
    with gpu.mapped(a) as d:
        add_one[1, 8](d)
        gpu.synchronize()
    np.testing.assert_array_equal(a, np.arange(16.0)[::2] + 1)
    with gpu.pinned(a):
        pass


def test_mapped_takes_only_a_stream_keyword(cpu_backend):
    with pytest.raises(TypeError, match="only the keyword 'stream'"):
        with gpu.mapped(np.zeros(2), portable=True):
            pass
    with pytest.raises(TypeError, match="only NumPy arrays"):
        with gpu.pinned([1, 2]):
            pass
    with gpu.mapped(np.zeros(0)) as d:  # nothing to map
        assert d.shape == (0,)


def test_feature_queries(fake):
    assert gpu.is_float16_supported() is True
    dev = gpu.get_current_device()
    assert gpu.is_fp8_supported() == (tuple(dev.compute_capability) >= (8, 9))  # numba's answer (gpujit.fp8)
    assert dev.supports_fp8 == (tuple(dev.compute_capability) >= (8, 9))
    assert dev.supports_float16 and dev.device is dev


def test_kernel_runtime_error_is_numbas():
    e = gpu.KernelRuntimeError("boom", tid=[1, 0, 0], ctaid=[2, 0, 0])
    assert isinstance(e, RuntimeError) and (e.msg, e.tid, e.ctaid) == ("boom", [1, 0, 0], [2, 0, 0])
    assert str(e) == "An exception was raised in thread=[1, 0, 0] block=[2, 0, 0]\n\tboom"


def test_cudadrv_names_are_gpujits():
    from gpujit.cudadrv import devices, driver

    assert driver.MemoryPointer is gpu.MemoryPointer and driver.set_memory_manager is gpu.set_memory_manager
    assert driver.profiling is gpu.profiling and devices.reset is gpu.close
    assert devices.get_context() == gpu.get_current_device()


def _in_a_new_thread(work):
    """work()'s result or exception, run on a thread of its own (the fake's current context is per thread)."""
    out = {}

    def run():
        try:
            out["value"] = work()
        except BaseException as e:  # noqa: BLE001  handed back to the test
            out["error"] = e

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_a_non_primary_context_another_library_made_current_is_refused(fake):
    # numba-cuda refuses to work in a context it did not get as a device's primary one; so does gpujit, instead
    # of replacing the caller's context on the thread.
    import ctypes

    def third_party_context():
        ctx = ctypes.c_void_p()
        assert fake.lib.cuCtxCreate_v2(ctypes.byref(ctx), 0, 0) == 0  # and makes it current
        try:
            with pytest.raises(RuntimeError, match="non-primary CUDA context %x.*another library" % ctx.value):
                gpu.current_context()
            with pytest.raises(RuntimeError, match="non-primary CUDA context"):
                gpu.require_context(lambda: None)()
        finally:
            assert fake.lib.cuCtxDestroy_v2(ctx) == 0
        return gpu.current_context()  # no context current any more: the device's primary one is made current

    assert _in_a_new_thread(third_party_context) is not None


def test_a_primary_context_another_library_made_current_is_used(fake):
    import ctypes

    def third_party_primary():
        ctx = ctypes.c_void_p()
        assert fake.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
        assert fake.lib.cuCtxSetCurrent(ctx) == 0
        device = gpu.current_context()
        current = ctypes.c_void_p()
        assert fake.lib.cuCtxGetCurrent(ctypes.byref(current)) == 0
        return device, current.value == ctx.value

    device, kept = _in_a_new_thread(third_party_primary)
    assert device is not None and kept
