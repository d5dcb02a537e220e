"""An External Memory Management plugin for the tests: device memory straight from the CUDA driver gpujit loaded
(cuMemAlloc_v2/cuMemFree_v2 through ctypes), so the same plugin works against a real GPU and the fake driver
(whose allocations are host memory it counts). It records what gpujit asks of it.

Imported by test_memory_managers.py and by the scripts it runs in fresh processes.
"""

import contextlib
import ctypes
import weakref

import gpujit as gpu


def driver_library():
    """The CUDA driver library gpujit loaded (the real one, or the fake the tests point it at)."""
    return ctypes.CDLL(gpu._core.driver_info()["cuda_driver"])


class DriverPlugin(gpu.HostOnlyCUDAMemoryManager):
    """Allocates with cuMemAlloc_v2 and frees with cuMemFree_v2 when gpujit drops the MemoryPointer."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lib = None  # loaded at the first memalloc: set_memory_manager makes an instance just to check it
        self.sizes = []  # every memalloc's size, in order
        self.live = {}  # address -> size, until freed
        self.initialized = False
        self.reset_calls = 0
        self.deferring = 0

    def initialize(self):
        self.initialized = True

    def memalloc(self, size):
        if not self.initialized:
            raise RuntimeError("memalloc before initialize")
        if self.lib is None:
            self.lib = driver_library()
        ptr = ctypes.c_uint64()
        code = self.lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(size))
        if code != 0:
            raise MemoryError(f"cuMemAlloc_v2 failed with {code}")
        self.sizes.append(size)
        self.live[ptr.value] = size
        live, lib, address = self.live, self.lib, ptr.value

        def free():
            live.pop(address)
            lib.cuMemFree_v2(ctypes.c_uint64(address))

        return gpu.MemoryPointer(weakref.proxy(self.context), ptr, size, finalizer=free)

    def get_memory_info(self):
        return gpu.MemoryInfo(free=32, total=64)

    def get_ipc_handle(self, memory):
        return f"plugin handle for 0x{memory.device_pointer_value:x}"

    def reset(self):
        super().reset()
        self.reset_calls += 1

    @contextlib.contextmanager
    def defer_cleanup(self):
        with super().defer_cleanup():
            self.deferring += 1
            try:
                yield
            finally:
                self.deferring -= 1

    @property
    def interface_version(self):
        return 1


_numba_memory_manager = DriverPlugin  # what NUMBA_CUDA_MEMORY_MANAGER=driver_memory_plugin makes numba (and gpujit) use
