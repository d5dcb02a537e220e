"""CUDA IPC: device memory of one process opened by another on the same machine (numba-cuda's IPC API, Linux).

    h = d_arr.get_ipc_handle()        # an IpcArrayHandle: pickle it, send it to another process
    with h as d_view:                 # there: a DeviceArray over the first process's memory
        out = d_view.copy_to_host()   # (the handle is closed when the block ends)

    with gpujit.open_ipc_array(handle_bytes, shape, dtype) as d_view: ...   # from the raw 64 bytes

A handle names the driver allocation that holds the array (cuIpcGetMemHandle of its base, found with
cuMemGetAddressRange) and the array's offset into it: gpujit's caching allocator hands out whole driver
allocations, so a handle never exposes memory of another array. The memory stays valid in the other process
for as long as the first one keeps the array alive (IpcHandle.base holds it in the first process). A handle
opens only in another process, as CUDA requires (IpcHandle.open refuses one whose `base` is set, numba's
check); where the other process's device cannot access the source device's memory directly, `open` copies it
(open_staged). On the CPU backend there is no IPC (a device's memory is the process's own): the calls raise
CudaSupportError; on an OS other than Linux, OSError as in numba.
"""

import contextlib
import sys

from . import _core
from ._memory_pointers import MemoryPointer, address_of, device_view
from .errors import CudaSupportError


def require_ipc(device):
    """Raises the error numba programs expect when `device` cannot share memory with other processes."""
    if not sys.platform.startswith("linux"):
        raise OSError("OS does not support CUDA IPC")
    if device.backend == "cpu":
        raise CudaSupportError("CUDA IPC needs a CUDA device: the CPU backend's device memory is this process's "
                               "own memory, which another process cannot open; select a CUDA device "
                               "(gpujit.select_device('cuda')) to share arrays between processes")


class IpcMemHandle:
    """The driver's 64-byte IPC handle (cuda-python's CUipcMemHandle, as numba's IpcHandle.handle): `reserved`."""

    __slots__ = ("reserved",)

    def __init__(self, reserved):
        data = bytes(b & 0xFF for b in reserved) if not isinstance(reserved, (bytes, bytearray)) else bytes(reserved)
        if len(data) != 64:
            raise ValueError(f"a CUDA IPC handle has 64 bytes, not {len(data)}")
        self.reserved = data

    def __eq__(self, other):
        return isinstance(other, IpcMemHandle) and other.reserved == self.reserved

    def __hash__(self):
        return hash(self.reserved)

    def __reduce__(self):
        return (IpcMemHandle, (self.reserved,))

    def __repr__(self):
        return f"<IpcMemHandle {self.reserved[:8].hex()}...>"


def _shape_tuple(shape):
    """A shape as a tuple of ints: an int (a NumPy integer too) or a sequence of them."""
    if hasattr(shape, "__index__"):
        return (int(shape),)
    return tuple(int(n) for n in shape)


def _device_of(context):
    """The gpujit device a numba context argument names: a Device itself, or an object wrapping one in its
    `device` attribute (numba's Context, which programs get from cuda.devices.get_context(), has one)."""
    if isinstance(context, _core.Device):
        return context
    device = getattr(context, "device", None)
    if isinstance(device, _core.Device):
        return device
    raise TypeError(f"an IPC handle opens on a device or a context of one, not {type(context).__name__}")


def _device_by_identity(identity):
    for device in _core.list_devices():
        if device.get_device_identity() == identity:
            return device
    raise RuntimeError(f"No device of {identity} is found. Target device may not be visible in this process.")


class IpcHandle:
    """An IPC handle to device memory (numba's IpcHandle): picklable; `open(context)` in another process gives
    a MemoryPointer there, `close()` releases it.

    base: the MemoryPointer (or array memory) it was made from, kept alive; None in a copy (after pickling).
    handle: the IpcMemHandle. size: bytes from `offset`. source_info: the source device's identity (a dict of
    its PCI domain, bus and device ids). offset: where the memory starts in the driver allocation.
    """

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = handle if isinstance(handle, IpcMemHandle) else IpcMemHandle(getattr(handle, "reserved", handle))
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._opened = None  # (the device it was opened on, the base address mapped there), while open
        self._staged = False

    def _sentry_source_info(self):
        if self.source_info is None:
            raise RuntimeError("IPC handle doesn't have source info")

    def can_access_peer(self, context):
        """Whether the device `context` can use the source device's memory directly."""
        self._sentry_source_info()
        context = _device_of(context)
        if self.source_info == context.get_device_identity():
            return True
        return context.can_access_peer(_device_by_identity(self.source_info))

    def open_direct(self, context):
        """Maps the memory into this process on `context` (cuIpcOpenMemHandle); a MemoryPointer at `offset`."""
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        context = _device_of(context)
        require_ipc(context)
        base = _core._open_ipc_handle(context, self.handle.reserved)
        self._opened = (context, base)
        return MemoryPointer(context, base, self.offset + self.size).view(self.offset)

    def open_staged(self, context):
        """Opens the memory on its source device and copies it to new memory of `context` (for devices that
        cannot access each other's memory); closes the source at once."""
        self._sentry_source_info()
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        context = _device_of(context)
        import numpy as np

        source = _device_by_identity(self.source_info)
        with source:
            src = device_view((self.size,), (1,), np.dtype(np.uint8), self.open_direct(source).device_pointer, None)
        try:
            with context:
                copy = _core.device_array(self.size, dtype=np.uint8)
                copy.copy_to_device(src)
                copy.device.synchronize()
        finally:
            with source:
                self.close()
        self._opened, self._staged = (context, None), True
        return MemoryPointer(context, copy.device_ctypes_pointer.value or 0, self.size, owner=copy)

    def open(self, context):
        """The memory in this process, on device `context`: mapped directly where the device can access the
        source device's memory (open_direct), else copied (open_staged)."""
        if self.source_info is None or self.can_access_peer(context):
            return self.open_direct(context)
        return self.open_staged(context)

    def open_array(self, context, shape, dtype, strides=None):
        """open(), as a DeviceArray of `shape` and `dtype` (C-contiguous unless `strides` is given)."""
        import numpy as np

        dtype = np.dtype(dtype)
        shape = _shape_tuple(shape)
        if strides is None:
            strides, step = [], dtype.itemsize
            for n in reversed(shape):
                strides.insert(0, step)
                step *= max(n, 1)
        strides = _shape_tuple(strides)
        memory = self.open(context)
        with context:
            return device_view(shape, strides, dtype, memory.device_pointer, memory)

    def close(self):
        """Unmaps the memory opened here (cuIpcCloseMemHandle); arrays over it must not be used after."""
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        device, base = self._opened
        self._opened = None
        if not self._staged:
            _core._close_ipc_handle(device, base)
        self._staged = False

    def __reduce__(self):
        return (_rebuild_ipc_handle, (self.handle.reserved, self.size, self.source_info, self.offset))

    def __repr__(self):
        return f"<IpcHandle size={self.size} offset={self.offset} source={self.source_info}>"


def _rebuild_ipc_handle(reserved, size, source_info, offset):
    return IpcHandle(None, IpcMemHandle(reserved), size, source_info, offset=offset)


class IpcArrayHandle:
    """A DeviceArray's IPC handle (numba's IpcArrayHandle): picklable; in another process `open()` gives a
    DeviceArray sharing the array's memory and `close()` releases it; `with handle as array:` does both."""

    def __init__(self, ipc_handle, array_desc):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self):
        desc = self._array_desc
        return self._ipc_handle.open_array(_core.get_current_device(), desc["shape"], desc["dtype"],
                                           desc["strides"])

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


def _array_ipc_handle(self):
    """An IpcArrayHandle another process opens to use this array's memory (Linux, CUDA devices)."""
    device = self.device if self.device is not None else _core.get_current_device()
    handle = device.get_ipc_handle(self.gpu_data)
    return IpcArrayHandle(handle, dict(shape=self.shape, strides=self.strides, dtype=self.dtype))


class GetIpcHandleMixin:
    """get_ipc_handle() for memory the CUDA driver allocated: the handle of the allocation that holds it
    (cuMemGetAddressRange, cuIpcGetMemHandle), with the memory's offset into it."""

    def get_ipc_handle(self, memory):
        device = self.context
        require_ipc(device)
        ptr = address_of(memory)
        handle, base, _ = _core._ipc_handle(device, ptr)
        return IpcHandle(memory, IpcMemHandle(handle), memory.size, device.get_device_identity(),
                         offset=ptr - base)


def get_ipc_handle_of(manager, memory):
    """numba's Context.get_ipc_handle, through the device's memory manager (a plugin's own, if one is bound)."""
    if not sys.platform.startswith("linux"):
        raise OSError("OS does not support CUDA IPC")
    return manager.get_ipc_handle(memory)


def open_ipc_handle_on(device, handle, size):
    """numba's Context.open_ipc_handle: a MemoryPointer over another process's memory (closed by the caller)."""
    require_ipc(device)
    reserved = handle.reserved if isinstance(handle, IpcMemHandle) else IpcMemHandle(handle).reserved
    return MemoryPointer(device, _core._open_ipc_handle(device, reserved), size)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """Opens an IPC handle given as its 64 bytes (bytes, or a sequence of ints) as a DeviceArray of `shape`
    and `dtype` (C-contiguous unless `strides` is given), starting `offset` bytes into the allocation; the
    handle is closed when the block ends."""
    import numpy as np

    dtype = np.dtype(dtype)
    count = 1
    for n in _shape_tuple(shape):
        count *= n
    ipc = IpcHandle(None, IpcMemHandle(handle), count * dtype.itemsize, offset=offset)
    array = ipc.open_array(_core.get_current_device(), shape=shape, dtype=dtype, strides=strides)
    try:
        yield array
    finally:
        ipc.close()


def device_extents(devmem):
    """(start, end) of the driver allocation holding `devmem` (a MemoryPointer, an array's gpu_data or an
    address) on the current device: numba's device_extents (cuMemGetAddressRange)."""
    device = _core.get_current_device()
    if device.backend == "cpu":
        raise CudaSupportError("device_extents needs a CUDA device: the CPU backend keeps no table of allocations")
    base, size = _core._address_range(device, address_of(devmem))
    return base, base + size


_core.DeviceArray.get_ipc_handle = _array_ipc_handle
