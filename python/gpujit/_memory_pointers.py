"""numba-cuda's memory pointer classes: device (and mapped or pinned host) memory as External Memory Management
plugins hand it to gpujit, and as gpujit hands it to programs (a context's memalloc, an opened IPC handle).

A MemoryPointer owns its memory: a finalizer, when given, runs once the pointer is freed (`free()`) or
collected, which is when the plugin's allocator gets the memory back. gpujit's arrays hold whatever
`memalloc` returned (a MemoryPointer, an AutoFreePointer, or an OwnedPointer from `own()`), so the memory lives
exactly as long as the arrays over it; AutoFreePointer and OwnedPointer add numba's reference counting, which
plugins written after numba's own manager rely on (an allocation kept in a dict until its last OwnedPointer
dies).

Addresses are plain ints here: numba's are cuda-python's CUdeviceptr, which int() reads the same way; every
constructor accepts an int, a ctypes pointer or integer, or a CUdeviceptr (address_of()).
"""

import weakref
from collections import namedtuple

from . import _core

MemoryInfo = namedtuple("MemoryInfo", "free,total")
MemoryInfo.__doc__ = "Free and total device memory in bytes (numba's MemoryInfo)."

def address_of(pointer):
    """An address as an int, from what plugins pass for one: an int, a ctypes pointer or integer (`.value`,
    None for NULL), cuda-python's CUdeviceptr (int()), or a memory pointer object (its device_pointer_value)."""
    if pointer is None:
        return 0
    if isinstance(pointer, int):
        return pointer
    if hasattr(pointer, "device_pointer_value"):
        return pointer.device_pointer_value or 0
    value = getattr(pointer, "value", pointer)
    if value is None:
        return 0
    try:
        return int(value)
    except TypeError:
        raise TypeError(f"a device address must be an int, a ctypes pointer or a CUdeviceptr, "
                        f"not {type(pointer).__name__}") from None


# ---------------------------------------------------------------------------------------------------------
# Memory pointers


class MemoryPointer:
    """Device memory owned by this object (numba's MemoryPointer): `finalizer`, when given, runs once the object
    is freed (`free()`) or collected. `owner` keeps other memory alive, for views. `refct` counts the
    OwnedPointers (`own()`) still alive; the base class does not free on it, AutoFreePointer does."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.device_pointer = address_of(pointer)
        self.handle = self.device_pointer
        self.size = size
        self._cuda_memsize_ = size
        self.is_managed = finalizer is not None
        self.refct = 1
        self._owner = owner
        if finalizer is not None:
            self._finalizer = weakref.finalize(self, finalizer)

    @property
    def owner(self):
        return self if self._owner is None else self._owner

    def own(self):
        return OwnedPointer(weakref.proxy(self))

    def free(self):
        """Runs the finalizer now (the memory goes back to its allocator)."""
        if self.is_managed:
            if not self._finalizer.alive:
                raise RuntimeError("Freeing dead memory")
            self._finalizer()

    def memset(self, byte, count=None, stream=0):
        """Sets `count` bytes (all by default) to `byte`, in the order of `stream`."""
        import numpy as np

        count = self.size if count is None else count
        if count:
            view = _bytes_view(self.device_pointer, count, self)
            view.copy_to_device(np.full(count, byte, dtype=np.uint8), stream=stream)

    def view(self, start, stop=None):
        """The bytes [start, stop) of this memory. A view of memory this class owns is an OwnedPointer, which
        counts in the memory's refct (as numba's); a view of memory owned elsewhere keeps that owner."""
        stop = self.size if stop is None else stop
        size = stop - start
        if not self.device_pointer:
            if size != 0:
                raise RuntimeError("non-empty slice into empty slice")
            view = self
        else:
            if size < 0:
                raise RuntimeError("size cannot be negative")
            view = MemoryPointer(self.context, self.device_pointer + start, size, owner=self.owner)
        if isinstance(self.owner, (MemoryPointer, OwnedPointer)):
            return OwnedPointer(weakref.proxy(self.owner), view)
        return view

    @property
    def device_ctypes_pointer(self):
        import ctypes

        return ctypes.c_size_t(self.device_pointer)

    @property
    def device_pointer_value(self):
        return self.device_pointer or None

    def __repr__(self):
        return f"<{type(self).__name__} 0x{self.device_pointer:x} size={self.size}>"


class AutoFreePointer(MemoryPointer):
    """A MemoryPointer freed when its last OwnedPointer dies (or, with none made, when it is collected)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refct -= 1


class MappedMemory(AutoFreePointer):
    """Host memory mapped into the device's address space: `host_pointer` on the host, `device_pointer` for
    kernels (found from the host address, cuMemHostGetDevicePointer)."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        self.host_pointer = address_of(pointer)
        device_pointer = _core._mapped_pointer(context, self.host_pointer) if self.host_pointer else 0
        super().__init__(context, device_pointer, size, finalizer=finalizer)
        self.handle = self.host_pointer

    def own(self):
        return MappedOwnedPointer(weakref.proxy(self))


class PinnedMemory(_core._HostMemory):
    """Page-locked host memory that is not mapped into the device (numba's PinnedMemory); a buffer over the
    host memory (numpy.frombuffer, numpy.ndarray(buffer=...))."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        _core._HostMemory.__init__(self, address_of(pointer), size)
        self.context = context
        self.owned = owner
        self.size = size
        self.host_pointer = address_of(pointer)
        self.handle = self.host_pointer
        self.is_managed = finalizer is not None
        if finalizer is not None:
            self._finalizer = weakref.finalize(self, finalizer)

    def own(self):
        return self

    def free(self):
        if self.is_managed and self._finalizer.alive:
            self._finalizer()


class ManagedMemory(AutoFreePointer):
    """Managed (unified) memory: one address for the host and kernels."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        super().__init__(context, pointer, size, finalizer=finalizer)
        self.host_pointer = self.device_pointer

    def own(self):
        return ManagedOwnedPointer(weakref.proxy(self))


class OwnedPointer:
    """A counted reference to a MemoryPointer (or a view of it): the memory's refct goes down when this dies,
    and an AutoFreePointer is freed when it reaches 0. Other attributes are the view's."""

    def __init__(self, memptr, view=None):
        self._mem = memptr
        self._view = memptr if view is None else view
        mem = self._mem

        def release():
            try:
                mem.refct -= 1
                if mem.refct == 0:
                    mem.free()
            except ReferenceError:  # the memory was collected first
                pass

        mem.refct += 1
        weakref.finalize(self, release)
        self.device_ctypes_pointer = self._view.device_ctypes_pointer

    def __getattr__(self, name):
        return getattr(self._view, name)


class MappedOwnedPointer(OwnedPointer, _core._HostMemory):
    """An OwnedPointer of MappedMemory that is also a buffer over its host memory (numba's), so that
    `numpy.ndarray(n, dtype, buffer=ctx.memhostalloc(size, mapped=True))` is an array over it."""

    def __init__(self, memptr, view=None):
        _core._HostMemory.__init__(self, memptr.host_pointer, memptr.size)
        OwnedPointer.__init__(self, memptr, view)


class ManagedOwnedPointer(OwnedPointer, _core._HostMemory):
    """An OwnedPointer of ManagedMemory that is also a buffer over it, for the host."""

    def __init__(self, memptr, view=None):
        _core._HostMemory.__init__(self, memptr.host_pointer, memptr.size)
        OwnedPointer.__init__(self, memptr, view)


class _Described:
    """What `_core._as_cuda_array` reads to make a view: an interface dict, and the owner the view keeps alive."""

    __slots__ = ("__cuda_array_interface__", "owner")


def device_view(shape, strides, dtype, ptr, owner):
    """A DeviceArray of the current device over memory at `ptr` (element [0, ...]) that keeps `owner` alive."""
    d = _Described()
    d.__cuda_array_interface__ = {"shape": tuple(shape), "strides": tuple(strides), "typestr": dtype.str,
                                  "data": (ptr, False), "version": 3}
    d.owner = owner
    return _core._as_cuda_array(d)


def _bytes_view(ptr, count, owner):
    """A uint8 DeviceArray over `count` bytes at `ptr` that keeps `owner` alive."""
    import numpy as np

    return device_view((count,), (1,), np.dtype(np.uint8), ptr, owner)
