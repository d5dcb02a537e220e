"""numba's memory objects and driver memory functions on gpujit: memalloc's counted pointers and their views,
mapped, pinned and managed memory as host buffers, and gpujit.cudadrv.driver's copies, memset and extents;
on the CPU backend and, through the fake driver, the CUDA backend. The drop-in mode's bridge of gpujit's
driver errors to numba's classes is tested at the end."""

import ctypes
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpujit as gpu
from gpujit.cudadrv import driver


@pytest.fixture(params=["cpu", "fake"])
def ctx(request):
    request.getfixturevalue("cpu_backend" if request.param == "cpu" else "cuda")
    return gpu.current_context()


def test_memalloc_is_counted_device_memory(ctx):
    m = ctx.memalloc(1024)
    assert driver.is_device_memory(m) and m.refct == 1
    assert isinstance(m.device_ctypes_pointer, ctypes.c_size_t)
    v1 = m.view(16)
    assert m.refct == 2 and int(v1.owner.handle) == int(m.handle)
    assert int(v1.handle) - 16 == int(m.handle) and v1.size == 1024 - 16
    v2 = v1.view(16)
    assert m.refct == 3 and int(v2.handle) - 32 == int(m.handle)
    del v2
    assert m.refct == 2
    del v1
    assert m.refct == 1


def test_memalloc_memory_returns_to_the_allocator(ctx):
    before = gpu.allocator_stats().bytes_in_use
    m = ctx.memalloc(4096)
    assert gpu.allocator_stats().bytes_in_use >= before + 4096
    del m
    assert gpu.allocator_stats().bytes_in_use == before


def test_a_view_of_foreign_memory_keeps_its_owner(ctx):
    freed = []
    owner = driver.MemoryPointer(ctx, 0x1000, 64, finalizer=lambda: freed.append(1))
    view = owner.view(8, 24)
    assert isinstance(view, driver.OwnedPointer) and view.size == 16 and owner.refct == 2
    del owner
    assert freed == []  # the view holds only a weak proxy; the owner's own reference frees it
    del view


def test_mapped_memory_is_a_host_buffer(ctx):
    mem = ctx.memhostalloc(32, mapped=True)
    ary = np.ndarray(32, dtype=np.uint8, buffer=mem)
    driver.device_memset(mem, 0xAB, 32)
    assert (ary == 0xAB).all()
    ary.fill(7)
    out = np.empty_like(ary)
    driver.device_to_host(out, mem, 32)
    assert (out == 7).all()


def test_pinned_and_managed_memory_are_host_buffers(ctx):
    pinned = ctx.memhostalloc(16)
    a = np.frombuffer(pinned, dtype=np.uint8)
    a[:] = 3
    assert a.size == 16 and bytes(memoryview(pinned)) == b"\x03" * 16
    managed = ctx.memallocmanaged(24)
    m = np.ndarray(3, dtype=np.int64, buffer=managed)
    m[:] = [1, 2, 3]
    back = np.empty(3, np.int64)
    driver.device_to_host(back, managed, 24)
    assert back.tolist() == [1, 2, 3]


def test_copies_between_host_and_device_memory(ctx):
    host = np.arange(100, dtype=np.uint32)
    dev1, dev2 = ctx.memalloc(host.nbytes), ctx.memalloc(host.nbytes)
    driver.host_to_device(dev1, host, host.nbytes)
    driver.device_to_device(dev2, dev1, host.nbytes)
    out = np.zeros_like(host)
    driver.device_to_host(out, dev2, host.nbytes, stream=gpu.stream())
    gpu.synchronize()
    np.testing.assert_array_equal(out, host)


def test_memset_and_size_of_arrays(ctx):
    d = gpu.to_device(np.full(10, 123, np.uint32))
    assert driver.device_memory_size(d) == 40
    driver.device_memset(d, 0, driver.device_memory_size(d))
    assert d.copy_to_host().tolist() == [0] * 10
    mapped = gpu.mapped_array(10, dtype=np.uint32)
    mapped.fill(5)
    driver.device_memset(mapped, 0x01, driver.device_memory_size(mapped))
    assert (mapped == 0x01010101).all()


def test_host_memory_extents():
    a = np.arange(100)
    assert driver.host_memory_extents(a) == (a.ctypes.data, a.ctypes.data + 800)
    f = np.asfortranarray(np.arange(100).reshape(2, 50))
    assert driver.host_memory_size(f) == 800
    assert driver.host_memory_size(np.asarray(np.uint32(1))) == 4
    assert driver.host_memory_size(a[::-2]) == 792

    class Pair(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]

    assert driver.host_memory_size(Pair(1, 2)) == 8
    assert driver.host_memory_size(ctypes.c_double(1.0)) == 8
    assert driver.host_pointer(1234) == 1234


def test_bad_memory_arguments_say_what_is_wrong(ctx):
    with pytest.raises(TypeError, match="not a CUDA memory object: ndarray"):
        driver.device_memset(np.zeros(4), 0, 4)
    with pytest.raises(ValueError, match="size must be 0 or more bytes"):
        driver.device_memset(ctx.memalloc(4), 0, -1)
    frozen = np.zeros(4, np.uint8)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        driver.device_to_host(frozen, ctx.memalloc(4), 4)


def test_detect_says_cuda_devices(capsys, cpu_backend):
    assert gpu.detect()
    assert "CUDA devices" in capsys.readouterr().out


@pytest.mark.skipif(__import__("importlib").util.find_spec("numba_cuda") is None,
                    reason="numba-cuda is not installed")
def test_drop_in_driver_errors_are_numbas_classes():
    code = textwrap.dedent("""
        import gpujit
        gpujit.install_numba_shim()
        from numba import cuda
        from numba.cuda.cudadrv.driver import CudaAPIError, driver as numba_driver
        from numba.cuda.cudadrv.error import CudaSupportError
        from numba.cuda.cudadrv import driver
        import numpy as np
        try:
            gpujit.select_device("cuda")
        except CudaSupportError as e:
            print("support", isinstance(e, gpujit.CudaSupportError), bool(e.msg))
        m = cuda.current_context().memalloc(8)
        print("functions", driver.device_memset is gpujit.cudadrv.driver.device_memset)
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUJIT_TEST_FAKE")}
    env.update(GPUJIT_DEVICE="cpu", GPUJIT_CUDA_DRIVER="/nonexistent/libcuda.so")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "functions True" in out.stdout
    assert "support True True" in out.stdout
