"""numba.cuda.cudadrv.driver's public names that programs use, bound to gpujit's objects (see __init__.py)."""

from .._driver_object import driver  # noqa: F401  the object of the driver's functions (its copies)
from .._driver_memory import (device_ctypes_pointer, device_memory_depends, device_memory_size,  # noqa: F401
                              device_memset, device_pointer, device_to_device, device_to_host, host_memory_extents,
                              host_memory_size, host_pointer, host_to_device, is_device_memory,
                              require_device_memory)
from .._ipc import GetIpcHandleMixin, IpcHandle, device_extents  # noqa: F401
from .._memory_manager import (BaseCUDAMemoryManager, GpujitMemoryManager,  # noqa: F401
                               HostOnlyCUDAMemoryManager, set_memory_manager)
from .._memory_pointers import (AutoFreePointer, ManagedMemory, ManagedOwnedPointer, MappedMemory,  # noqa: F401
                                MappedOwnedPointer, MemoryInfo, MemoryPointer, OwnedPointer, PinnedMemory)
from .._runtime_api import profile_start, profile_stop, profiling  # noqa: F401
from ..errors import CudaAPIError, CudaSupportError  # noqa: F401

NumbaCUDAMemoryManager = GpujitMemoryManager  # numba's name for its own manager
