"""numba's External Memory Management plugins on gpujit: every device allocation goes through the plugin's
memalloc and comes back when the array dies; the context's memory functions go through it; set_memory_manager
binds a plugin class to each device at its first use, and close() rebinds.

The plugin (driver_memory_plugin.py) allocates with the CUDA driver itself, so these tests run against a real GPU
(kernels then run on its memory) and against the fake driver (which records the launches instead).
"""

import ctypes
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import FAKE_LIB, u64
from driver_memory_plugin import DriverPlugin

import gpujit as gpu

HERE = Path(__file__).resolve().parent


@gpu.jit
def fill(a, v):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = v


def double(x):
    return np.float32(2) * x


def add(a, b):
    return a + b


@pytest.fixture
def plugin(cuda):
    """A DriverPlugin bound to the current CUDA device for the test, gpujit's own manager restored after."""
    ctx = gpu.current_context()
    initial = ctx.memory_manager
    p = DriverPlugin(context=ctx)
    ctx.memory_manager = p
    try:
        yield p
    finally:
        ctx.memory_manager = initial
    assert not p.live, f"the plugin's memory was not all given back: {p.live}"


def address(array):
    return array.device_ctypes_pointer.value


def test_every_array_allocation_goes_through_memalloc_and_back(plugin):
    a = gpu.to_device(np.arange(10, dtype=np.float64))
    b = gpu.device_array((3, 4), dtype=np.int32)
    c = gpu.device_array_like(np.zeros(5, np.float32))
    d = gpu.DeviceArray((2, 3), (8, 16), np.dtype(np.float64))  # numba's constructor, strided: 48 bytes spanned
    assert plugin.sizes == [80, 48, 20, 48]  # the bytes asked for, unrounded
    assert {address(a), address(b), address(c)} <= set(plugin.live)
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(10.0))
    del a, b
    assert len(plugin.live) == 2  # the first two went back when their arrays died
    del c, d
    assert not plugin.live


def test_a_view_keeps_the_plugins_memory_alive(plugin):
    a = gpu.to_device(np.arange(8, dtype=np.int64))
    view = a[2:6]
    del a
    assert len(plugin.live) == 1
    np.testing.assert_array_equal(view.copy_to_host(), [2, 3, 4, 5])
    del view
    assert not plugin.live


def test_a_kernel_takes_an_array_in_the_plugins_memory(plugin):
    d = gpu.device_array(64, dtype=np.float32)
    fill[1, 64](d, 2.0)
    gpu.synchronize()
    if FAKE_LIB is not None:
        from conftest import FakeDriver

        params = FakeDriver(FAKE_LIB).last_launch()[5]
        assert u64(params[0]) == address(d)
    else:
        np.testing.assert_array_equal(d.copy_to_host(), np.full(64, 2.0, np.float32))


def test_a_host_argument_is_copied_through_the_plugin_for_the_launch(plugin):
    host = np.zeros(32, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpu.PerformanceWarning)  # the copy of a NumPy argument
        fill[1, 32](host, 3.0)
    assert plugin.sizes == [host.nbytes]
    assert not plugin.live  # the temporary went back after the copy back
    if FAKE_LIB is None:
        np.testing.assert_array_equal(host, np.full(32, 3.0, np.float32))


def test_ufunc_outputs_and_reduce_temporaries_come_from_the_plugin(plugin):
    # reduce keeps one small counter per device and stream for good: made here first, from gpujit's memory.
    ctx = gpu.current_context()
    ctx.memory_manager = None
    gpu.reduce(add)(gpu.to_device(np.ones(4, np.float32)))
    ctx.memory_manager = plugin
    twice = gpu.vectorize(["float32(float32)"], target="cuda")(double)
    x = gpu.to_device(np.arange(100, dtype=np.float32))
    y = twice(x)
    assert plugin.sizes[-1] == 400 and address(y) in plugin.live
    before = len(plugin.sizes)
    total = gpu.reduce(add)(x)
    assert len(plugin.sizes) > before  # its partial results
    if FAKE_LIB is None:
        np.testing.assert_array_equal(y.copy_to_host(), 2 * np.arange(100, dtype=np.float32))
        assert total == np.arange(100, dtype=np.float32).sum()
    del x, y
    assert not plugin.live


def test_the_contexts_memory_functions_go_through_the_plugin(plugin):
    ctx = gpu.current_context()
    assert ctx.memory_manager is plugin and plugin.initialized
    assert ctx.get_memory_info() == gpu.MemoryInfo(free=32, total=64)
    with gpu.defer_cleanup():
        assert plugin.deferring == 1
    assert plugin.deferring == 0
    ctx.reset()
    assert plugin.reset_calls == 1
    d = gpu.device_array(2, dtype=np.int64)
    handle = d.get_ipc_handle()
    assert handle._ipc_handle == f"plugin handle for 0x{address(d):x}"
    mem = ctx.memalloc(100)
    assert plugin.sizes[-1] == 100 and mem.device_pointer in plugin.live
    del mem, handle, d


def test_putting_gpujits_manager_back_stops_the_plugin(cuda):
    ctx = gpu.current_context()
    initial = ctx.memory_manager
    assert isinstance(initial, gpu.cudadrv.driver.NumbaCUDAMemoryManager)
    assert not gpu._core._has_external_allocator(ctx)  # the default path has no hook set
    p = DriverPlugin(context=ctx)
    ctx.memory_manager = p
    kept = gpu.device_array(16)
    ctx.memory_manager = initial
    after = gpu.device_array(16)
    assert p.sizes == [128] and address(after) not in p.live
    np.testing.assert_array_equal(kept.shape, (16,))  # memory from the plugin stays valid after
    del kept
    assert not p.live


def test_set_memory_manager_checks_the_interface_version():
    class Version2(DriverPlugin):
        @property
        def interface_version(self):
            return 2

    with pytest.raises(RuntimeError, match="version 2 - version 1 required"):
        gpu.set_memory_manager(Version2)
    with pytest.raises(RuntimeError, match="requires a context"):
        DriverPlugin()


def test_errors_of_memalloc_reach_the_caller(plugin):
    in_use = gpu.allocator_stats().bytes_in_use

    def refuse(size):
        raise MemoryError(f"the pool has no {size} bytes")

    plugin.memalloc = refuse
    with pytest.raises(MemoryError, match="no 64 bytes"):
        gpu.device_array(8)
    plugin.memalloc = lambda size: "not a pointer"
    with pytest.raises(TypeError, match=r"memalloc\(64\) must return a MemoryPointer, not str"):
        gpu.device_array(8)
    plugin.memalloc = lambda size: gpu.MemoryPointer(None, 0x1000, size // 2)
    with pytest.raises(ValueError, match=r"memalloc\(64\) returned 32 bytes"):
        gpu.device_array(8)
    assert gpu.allocator_stats().bytes_in_use == in_use


def test_the_cpu_backend_keeps_its_own_allocator(cpu_backend):
    ctx = gpu.current_context()
    with pytest.raises(NotImplementedError, match="CPU backend's device allocates its own memory"):
        ctx.memory_manager = DriverPlugin(context=ctx)
    assert isinstance(ctx.memory_manager, gpu.cudadrv.driver.NumbaCUDAMemoryManager)
    ctx.memory_manager = None  # gpujit's own: accepted
    free, total = ctx.get_memory_info()
    assert 0 < free <= total


def test_memory_pointers_free_once_when_their_owners_are_gone():
    freed = []
    mp = gpu.MemoryPointer(None, ctypes.c_void_p(0x1000), 64, finalizer=lambda: freed.append("mp"))
    assert (mp.device_pointer_value, mp.size, mp.owner) == (0x1000, 64, mp)
    view = mp.view(16, 48)
    assert (view.device_pointer_value, view.size, view.owner) == (0x1010, 32, mp)
    del mp
    assert freed == []  # the view holds it
    del view
    assert freed == ["mp"]

    auto = gpu.cudadrv.driver.AutoFreePointer(None, 0x2000, 8, finalizer=lambda: freed.append("auto"))
    owned = [auto.own(), auto.own()]
    assert owned[0].device_pointer_value == 0x2000 and auto.refct == 2
    owned.pop()
    assert freed == ["mp"]
    owned.pop()  # the last owner: freed although `auto` itself lives on
    assert freed == ["mp", "auto"]
    with pytest.raises(RuntimeError, match="Freeing dead memory"):
        auto.free()
    for value in (0x3000, ctypes.c_uint64(0x3000), ctypes.c_void_p(0x3000)):
        assert gpu.MemoryPointer(None, value, 1).device_pointer == 0x3000


def run_script(body, extra_env=None):
    """Runs `body` in a fresh process on the CUDA backend of this session's driver; returns its stdout."""
    env = dict(os.environ, GPUJIT_DEVICE="cuda", PYTHONPATH=str(HERE))
    env.update(extra_env or {})
    script = "import numpy as np\nimport gpujit as gpu\nfrom driver_memory_plugin import DriverPlugin\n"
    out = subprocess.run([sys.executable, "-c", script + textwrap.dedent(body)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_set_memory_manager_binds_at_first_use_and_close_rebinds(cuda):
    out = run_script("""
        made = []
        class Recording(DriverPlugin):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                if self.context is not None:  # not set_memory_manager's instance, made to check the version
                    made.append(self)

        gpu.set_memory_manager(Recording)
        a = gpu.to_device(np.arange(4.0))           # the device's first use binds an instance
        plugin = gpu.current_context().memory_manager
        print(len(made), plugin is made[0], plugin.sizes, plugin.context == gpu.get_current_device())
        del a
        gpu.close()                                 # numba's cuda.close(): unbound, rebound at the next use
        b = gpu.device_array(3)
        print(len(made), made[1].sizes, made[0].reset_calls)
    """)
    assert out.split("\n")[:2] == ["1 True [32] True", "2 [24] 1"]


def test_a_device_in_use_keeps_its_manager_until_close(cuda):
    out = run_script("""
        a = gpu.device_array(2)                     # the device is in use: gpujit's own manager
        gpu.set_memory_manager(DriverPlugin)
        b = gpu.device_array(2)
        print(type(gpu.current_context().memory_manager).__name__)
        gpu.close()
        c = gpu.device_array(2)
        print(type(gpu.current_context().memory_manager).__name__, gpu.current_context().memory_manager.sizes)
    """)
    assert out.split("\n")[:2] == ["GpujitMemoryManager", "DriverPlugin [16]"]


def test_numba_cuda_memory_manager_names_the_plugins_module(cuda):
    out = run_script("""
        a = gpu.to_device(np.arange(4.0))
        print(type(gpu.current_context().memory_manager).__name__, gpu.current_context().memory_manager.sizes)
    """, {"NUMBA_CUDA_MEMORY_MANAGER": "driver_memory_plugin"})
    assert out.strip() == "DriverPlugin [32]"
    with pytest.raises(AssertionError, match="Failed to use memory manager from no_such_module"):
        run_script("gpu.device_array(1)", {"NUMBA_CUDA_MEMORY_MANAGER": "no_such_module"})


@pytest.mark.skipif(FAKE_LIB is None, reason="two devices: the fake driver's FAKECUDA_DEVICES")
def test_each_device_gets_its_own_instance_at_its_first_use(cuda):
    out = run_script("""
        gpu.device_array(1)                         # device 0 in use before
        gpu.set_memory_manager(DriverPlugin)
        with gpu.gpus[1]:
            d = gpu.device_array(5)
            print(type(gpu.current_context().memory_manager).__name__, gpu.current_context().memory_manager.sizes)
        print(type(gpu.current_context().memory_manager).__name__)
    """, {"FAKECUDA_DEVICES": "2"})
    assert out.split("\n")[:2] == ["DriverPlugin [40]", "GpujitMemoryManager"]


def test_set_memory_manager_leaves_the_cpu_backend_alone():
    out = run_script("""
        gpu.set_memory_manager(DriverPlugin)
        a = gpu.to_device(np.arange(3))
        print(gpu.current_context().backend, type(gpu.current_context().memory_manager).__name__)
    """, {"GPUJIT_DEVICE": "cpu"})
    assert out.strip() == "cpu GpujitMemoryManager"
