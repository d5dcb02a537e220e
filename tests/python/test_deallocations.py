"""numba's queue of pending frees (a context's `deallocations`) on gpujit's caching allocator, its limits in
gpujit.config, defer_cleanup() holding it, the context's create_stream/create_event/handle, and the drop-in
mode taking numba's limits; on the CPU backend and, through the fake driver, the CUDA backend."""

import ctypes
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import gpujit as gpu


@pytest.fixture
def limits():
    """Restores the queue's limits after the test."""
    count, ratio = gpu.config.CUDA_DEALLOCS_COUNT, gpu.config.CUDA_DEALLOCS_RATIO
    yield gpu.config
    gpu.config.CUDA_DEALLOCS_COUNT, gpu.config.CUDA_DEALLOCS_RATIO = count, ratio


@pytest.fixture(params=["cpu", "fake"])
def backend(request):
    """Each test on the CPU backend and on the CUDA backend (the fake driver here, or a GPU)."""
    request.getfixturevalue("cpu_backend" if request.param == "cpu" else "cuda")
    queue = gpu.current_context().deallocations
    gpu.empty_cache()  # flushes the queue too: no block of an earlier test is reused here
    return queue


def test_gpujit_reuses_a_freed_block_at_once_by_default(backend):
    assert gpu.config.CUDA_DEALLOCS_COUNT == 0
    a = gpu.device_array(100, np.uint8)
    address = a.device_ctypes_pointer.value
    del a
    assert len(backend) == 0
    b = gpu.device_array(100, np.uint8)
    assert b.device_ctypes_pointer.value == address


def test_the_queue_flushes_past_its_count(backend, limits):
    limits.CUDA_DEALLOCS_COUNT = 3
    for i in range(3):
        gpu.to_device(np.arange(2))
        assert len(backend) == i + 1
    assert backend._size == 3 * 16  # the bytes asked for, not the allocator's rounded blocks
    gpu.to_device(np.arange(2))
    assert len(backend) == 0 and backend._size == 0


def test_a_pending_block_is_not_reused_until_the_queue_flushes(backend, limits):
    limits.CUDA_DEALLOCS_COUNT = 5
    a = gpu.device_array(64, np.uint8)
    address = a.device_ctypes_pointer.value
    del a
    assert len(backend) == 1
    b = gpu.device_array(64, np.uint8)
    assert b.device_ctypes_pointer.value != address
    backend.clear()
    c = gpu.device_array(64, np.uint8)
    assert c.device_ctypes_pointer.value == address


def test_the_queue_flushes_past_its_share_of_memory(backend, limits):
    limits.CUDA_DEALLOCS_COUNT = 100
    total = gpu.current_context().get_memory_info().total
    limits.CUDA_DEALLOCS_RATIO = 10_000 / total
    assert abs(backend._max_pending_bytes - 10_000) <= 1
    gpu.device_array(6000, np.uint8)
    gpu.device_array(backend._max_pending_bytes - backend._size, np.uint8)
    assert len(backend) == 2
    gpu.device_array(1, np.uint8)
    assert len(backend) == 0


def test_defer_cleanup_holds_the_queue_until_the_block_ends(backend):
    kept = gpu.to_device(np.arange(5))
    with gpu.defer_cleanup():
        with gpu.defer_cleanup():
            gpu.to_device(np.arange(5))
            del kept
            assert len(backend) == 2 and backend.is_disabled
            backend.clear()
            assert len(backend) == 2
        backend.clear()
        assert len(backend) == 2
    assert not backend.is_disabled and len(backend) == 2
    backend.clear()
    assert len(backend) == 0


def test_defer_cleanup_holds_the_queue_when_the_block_raises(backend):
    with pytest.raises(KeyError):
        with gpu.defer_cleanup():
            gpu.to_device(np.arange(5))
            raise KeyError("inside")
    assert len(backend) == 1 and not backend.is_disabled
    backend.clear()
    assert len(backend) == 0


def test_add_item_queues_a_python_release(backend, limits):
    limits.CUDA_DEALLOCS_COUNT = 2
    released = []
    backend.add_item(released.append, "first", 10)
    assert len(backend) == 1 and backend._size == 10 and released == []
    backend.clear()
    assert released == ["first"] and len(backend) == 0
    for name in ("a", "b", "c"):  # the third passes the count: all run
        backend.add_item(released.append, name)
    assert released == ["first", "a", "b", "c"]


def test_the_context_and_its_manager_share_the_queue(backend):
    ctx = gpu.current_context()
    assert ctx.memory_manager.deallocations is ctx.deallocations
    assert ctx.deallocations.memory_capacity == ctx.total_memory


def test_limits_refuse_negative_values(limits):
    with pytest.raises(ValueError, match="CUDA_DEALLOCS_COUNT must be 0 or more"):
        limits.CUDA_DEALLOCS_COUNT = -1
    with pytest.raises(ValueError, match="CUDA_DEALLOCS_RATIO must be 0 or more"):
        limits.CUDA_DEALLOCS_RATIO = -0.5
    assert limits.CUDA_DEALLOCS_COUNT == 0


def test_create_stream_and_event_on_the_context(backend):
    ctx = gpu.current_context()
    stream = ctx.create_stream()
    event = ctx.create_event()
    event.record(stream)
    event.synchronize()
    d = gpu.to_device(np.arange(4), stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4))
    del stream, event


def test_context_handle(cpu_backend):
    assert gpu.current_context().handle is None  # the CPU backend has no CUDA context


def test_context_handle_is_the_primary_context(cuda):
    handle = gpu.current_context().handle
    assert isinstance(handle, int) and handle != 0


def test_with_gpus_leaves_the_threads_context_as_it_found_it(fake):
    slot = ctypes.c_void_p()

    def bound():
        assert fake.lib.cuCtxGetCurrent(ctypes.byref(slot)) == 0
        return slot.value or 0

    handle = gpu.current_context().handle
    assert bound() == handle
    with gpu.gpus[0]:
        pass
    assert bound() == handle  # a context bound before the block is bound after it
    fake.lib.cuCtxSetCurrent(None)  # a thread with no context, as after another library popped its own
    with gpu.gpus[0]:
        assert bound() == handle
    assert bound() == 0  # numba's gpus[i] leaves no context behind
    np.testing.assert_array_equal(gpu.to_device(np.arange(3)).copy_to_host(), np.arange(3))  # bound again
    assert bound() == handle


def test_current_context_makes_the_context_current_on_a_thread_without_one(fake):
    # numba's current_context() pushes the device's context when the thread has none (here: a thread that left a
    # `with cuda.gpus[0]` block it entered with none, or a new thread); a `with cuda.gpus[0]` after it then
    # restores that context (numba-cuda's test_gpus_context_manager_restores_previous_context).
    slot = ctypes.c_void_p()

    def bound():
        assert fake.lib.cuCtxGetCurrent(ctypes.byref(slot)) == 0
        return slot.value or 0

    handle = gpu.current_context().handle
    fake.lib.cuCtxSetCurrent(None)
    with gpu.gpus[0]:
        pass
    assert bound() == 0
    assert gpu.current_context().handle == handle and bound() == handle
    with gpu.gpus[0]:
        pass
    assert bound() == handle
    seen = []

    def thread():
        seen.append(bound())
        gpu.current_context()
        seen.append(bound())

    t = threading.Thread(target=thread)
    t.start()
    t.join()
    assert seen == [0, handle]


def _run(code, env):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GPUJIT_MAX_PENDING", "NUMBA_CUDA_MAX"))}
    full.update(env, GPUJIT_DEVICE="cpu")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full, timeout=300)


def test_limits_from_the_environment():
    code = "import gpujit; print(gpujit.config.CUDA_DEALLOCS_COUNT, gpujit.config.CUDA_DEALLOCS_RATIO)"
    out = _run(code, {"NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT": "7", "GPUJIT_MAX_PENDING_DEALLOCS_RATIO": "0.5"})
    assert out.stdout.split() == ["7", "0.5"], out.stderr
    out = _run(code, {"GPUJIT_MAX_PENDING_DEALLOCS_COUNT": "many"})
    assert out.returncode != 0
    assert "GPUJIT_MAX_PENDING_DEALLOCS_COUNT='many' must be an integer of 0 or more" in out.stderr


@pytest.mark.skipif(sys.modules.get("numba_cuda") is None and
                    __import__("importlib").util.find_spec("numba_cuda") is None,
                    reason="numba-cuda is not installed")
def test_drop_in_mode_takes_numbas_limits():
    out = _run("""
        import gpujit
        gpujit.install_numba_shim()
        import numpy as np
        from numba import cuda
        from numba.cuda.core import config
        print(gpujit.config.CUDA_DEALLOCS_COUNT)
        deallocs = cuda.current_context().memory_manager.deallocations
        deallocs.clear()
        for i in range(config.CUDA_DEALLOCS_COUNT):
            cuda.to_device(np.arange(1))
        print(len(deallocs))
        cuda.to_device(np.arange(1))
        print(len(deallocs))
        config.CUDA_DEALLOCS_COUNT = 2
        print(gpujit.config.CUDA_DEALLOCS_COUNT)
    """, {})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["10", "10", "0", "2"]
