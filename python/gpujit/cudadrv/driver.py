"""numba.cuda.cudadrv.driver's public names that programs use, bound to gpujit's objects (see __init__.py)."""

from .._ipc import GetIpcHandleMixin, IpcHandle, device_extents  # noqa: F401
from .._memory_manager import (BaseCUDAMemoryManager, GpujitMemoryManager,  # noqa: F401
                               HostOnlyCUDAMemoryManager, set_memory_manager)
from .._memory_pointers import (AutoFreePointer, ManagedMemory, MappedMemory, MemoryInfo,  # noqa: F401
                                MemoryPointer, OwnedPointer, PinnedMemory)
from .._runtime_api import profile_start, profile_stop, profiling  # noqa: F401
from ..errors import CudaAPIError, CudaSupportError  # noqa: F401

NumbaCUDAMemoryManager = GpujitMemoryManager  # numba's name for its own manager
