"""numba.cuda.cudadrv's names that programs reach as `cuda.cudadrv.driver.X` or `cuda.cudadrv.devices.X`
(an External Memory Management plugin's MemoryPointer and AutoFreePointer, device_extents, devices.reset),
for programs that say `import gpujit as cuda`. The objects are gpujit's own (gpujit._memory_manager, _ipc,
_runtime_api)."""

from . import devices, driver  # noqa: F401
