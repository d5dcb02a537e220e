"""numba-cuda's External Memory Management (EMM) plugin interface, on gpujit's devices.

A plugin is a class (usually a subclass of HostOnlyCUDAMemoryManager) whose `memalloc(size)` returns a
MemoryPointer that owns device memory made by another library (RMM, CuPy's pool...). `set_memory_manager(cls)`
names the class; from then on each CUDA device gets an instance, `cls(context=device)`, the first time a thread
makes the device current (numba: when the device's context is made), and every device array gpujit allocates
there takes its memory from `memalloc`: to_device, device_array, device_array_like, the copies of host arrays
around a launch, the ufuncs' outputs and reduce's temporaries (they all allocate through rt::DeviceBuffer, whose
one hook is python/src/memory_api.cpp). The array holds what memalloc returned and drops it when it dies, which
runs the pointer's finalizer: the plugin frees the memory then, or whenever it chooses.

As in numba:
- A device already in use when set_memory_manager is called keeps its manager; `gpujit.close()` (numba's
  cuda.close()) makes each device bind the class set then at its next use. Assigning `current_context()
  .memory_manager = plugin(context=ctx)` replaces one device's manager at once (numba's tests do this).
- NUMBA_CUDA_MEMORY_MANAGER=module names a module whose `_numba_memory_manager` is the class, imported at the
  first use of a CUDA device (RuntimeError "Failed to use memory manager from module" if that fails).
- The plugin's `interface_version` must be 1 (checked by set_memory_manager); `initialize()` runs before the
  first memalloc; `get_memory_info()`, `reset()`, `defer_cleanup()` and `get_ipc_handle()` of the context
  (gpujit's device object) go through the plugin.
- The host memory of a HostOnlyCUDAMemoryManager (memhostalloc, mempin, memallocmanaged) is gpujit's.

Where gpujit differs: the CPU backend runs kernels on the host and has no use for a plugin's device memory, so
its device keeps its own allocator (assigning a plugin to it raises), as numba's simulator has no EMM;
`pinned_array`, `mapped_array` and `managed_array` allocate gpujit's own host memory, not the plugin's
memhostalloc; and a MemoryPointer's addresses are plain ints (numba's are cuda-python's CUdeviceptr, which
converts with int() the same way).
"""

import contextlib
from abc import ABCMeta, abstractmethod

from . import _core
from ._deallocations import DeviceDeallocations, PendingDeallocs
from ._ipc import GetIpcHandleMixin, get_ipc_handle_of, open_ipc_handle_on
from ._memory_pointers import (AutoFreePointer, ManagedMemory, MappedMemory, MemoryInfo, PinnedMemory,
                               address_of)

_SUPPORTED_EMM_INTERFACE_VERSION = 1

# ---------------------------------------------------------------------------------------------------------
# The plugin interface


class BaseCUDAMemoryManager(metaclass=ABCMeta):
    """The interface an EMM plugin implements (numba's BaseCUDAMemoryManager); `context` is the device."""

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    @abstractmethod
    def memalloc(self, size):
        """A MemoryPointer owning `size` bytes of device memory."""

    @abstractmethod
    def memhostalloc(self, size, mapped, portable, wc):
        """Page-locked host memory: MappedMemory when `mapped`, else PinnedMemory."""

    @abstractmethod
    def mempin(self, owner, pointer, size, mapped):
        """Page-locks existing host memory (owned by `owner`) in place: MappedMemory or PinnedMemory."""

    @abstractmethod
    def initialize(self):
        """Readies the plugin for its device; called before its first memalloc."""

    @abstractmethod
    def get_ipc_handle(self, memory):
        """An IpcHandle for the memory of a MemoryPointer."""

    @abstractmethod
    def get_memory_info(self):
        """MemoryInfo(free, total); may raise NotImplementedError (a pool allocator)."""

    @abstractmethod
    def reset(self):
        """Frees everything the plugin allocated on its device."""

    @abstractmethod
    def defer_cleanup(self):
        """A context manager during which the plugin defers freeing memory."""

    @property
    @abstractmethod
    def interface_version(self):
        """The version of this interface the plugin implements: 1."""


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """A plugin base that implements the host allocations with gpujit's own memory, so a plugin implements
    only device memory (memalloc, get_memory_info, get_ipc_handle, initialize, interface_version). A plugin
    that overrides reset or defer_cleanup calls this class's too (super())."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allocations = {}
        self.deallocations = PendingDeallocs()

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        import numpy as np

        with _current(self.context):
            buf = _core._pinned_buffer(size)
        host = np.frombuffer(buf, dtype=np.uint8).ctypes.data
        if mapped:
            # Kept in `allocations` until its last OwnedPointer dies; then the buffer goes with it.
            allocations = self.allocations
            mem = MappedMemory(self.context, host, size, owner=buf, finalizer=lambda: allocations.pop(host, None))
            allocations[host] = mem
            return mem.own()
        return PinnedMemory(self.context, host, size, owner=buf)

    def mempin(self, owner, pointer, size, mapped=False):
        device, host = self.context, address_of(pointer)
        _core._register_host(device, host, size, mapped)
        allocations = self.allocations

        def unpin():
            # At once, not deferred: pinning the same memory again must work right after (numba does the same).
            allocations.pop(host, None)
            _core._unregister_host(device, host)

        if mapped:
            mem = MappedMemory(device, host, size, owner=owner, finalizer=unpin)
            allocations[host] = mem
            return mem.own()
        return PinnedMemory(device, host, size, owner=owner, finalizer=unpin)

    def memallocmanaged(self, size, attach_global=True):
        import numpy as np

        with _current(self.context):
            buf = _core._managed_buffer(size, bool(attach_global))
        ptr = np.frombuffer(buf, dtype=np.uint8).ctypes.data
        allocations = self.allocations
        mem = ManagedMemory(self.context, ptr, size, owner=buf, finalizer=lambda: allocations.pop(ptr, None))
        allocations[ptr] = mem
        return mem.own()

    def reset(self):
        self.allocations.clear()
        self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self):
        with self.deallocations.disable():
            yield


class GpujitMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """gpujit's own memory management, as a manager object (numba's NumbaCUDAMemoryManager): what a device's
    `memory_manager` is when no plugin is bound. Arrays do not allocate through it (they use the caching
    allocator directly); it answers programs that call the context's memory functions, and assigning it as a
    device's memory_manager puts the device back on gpujit's own allocator. Its `deallocations` is the
    caching allocator's queue of pending frees on the device (gpujit._deallocations)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.context is not None:
            self.deallocations = DeviceDeallocations(self.context)

    def initialize(self):
        pass

    def memalloc(self, size):
        # From the caching allocator itself: a plugin deriving from this class calls it through super(), and
        # an array's allocation would come back to that plugin.
        memory = _core._own_device_memory(self.context, size)
        # As numba's: an AutoFreePointer kept in `allocations` until its last OwnedPointer dies; then the
        # memory goes back to the caching allocator (into the queue of pending frees).
        address, allocations = memory.address, self.allocations
        mem = AutoFreePointer(self.context, address, size, finalizer=lambda: allocations.pop(address, memory))
        allocations[address] = mem
        return mem.own()

    def get_memory_info(self):
        return MemoryInfo(*_device_memory_info(self.context))

    def reset(self):
        super().reset()
        _core._release_cached(self.context)

    @contextlib.contextmanager
    def defer_cleanup(self):
        with super().defer_cleanup():
            _core._defer_release(self.context, True)
            try:
                yield
            finally:
                _core._defer_release(self.context, False)

    @property
    def interface_version(self):
        return _SUPPORTED_EMM_INTERFACE_VERSION


# ---------------------------------------------------------------------------------------------------------
# Binding plugins to devices

_state = {"class": None, "hooked": False, "from_environment": None}
_plugins = {}  # device -> the plugin bound to it (absent: gpujit's own allocator)
_own = {}  # device -> its GpujitMemoryManager, made when a program asks for it
_device_memory_info = _core.Device.get_memory_info  # the device's own (the driver's) figures


@contextlib.contextmanager
def _current(device):
    """`device` is the calling thread's current device for the block (allocations go to the current one)."""
    with device:
        yield


def _in(device, make):
    """make(), with `device` current."""
    with _current(device):
        return make()


def set_memory_manager(mm_plugin):
    """Makes `mm_plugin` (an EMM plugin class) the memory manager of every CUDA device first used from now on.
    Raises RuntimeError if the plugin implements another version of the interface than 1."""
    version = mm_plugin(context=None).interface_version
    if version != _SUPPORTED_EMM_INTERFACE_VERSION:
        raise RuntimeError(f"EMM Plugin interface has version {version} - version "
                           f"{_SUPPORTED_EMM_INTERFACE_VERSION} required")
    _state["class"] = mm_plugin
    if not _state["hooked"]:
        _core._set_first_use_hook(_first_use)
        _state["hooked"] = True


def _first_use(device):
    """The runtime's first-use hook: binds the plugin class set now, if any, to a CUDA device."""
    if device.backend == "cpu":
        return
    if _state["class"] is None and _state["from_environment"]:
        _state["from_environment"] = None
        _set_from_environment()
    cls = _state["class"]
    if cls is not None:
        _bind(device, cls(context=device))


def _set_from_environment():
    """numba's NUMBA_CUDA_MEMORY_MANAGER: the module named there, imported, gives `_numba_memory_manager`."""
    import importlib
    import os

    name = os.environ.get("NUMBA_CUDA_MEMORY_MANAGER")
    try:
        set_memory_manager(importlib.import_module(name)._numba_memory_manager)
    except Exception as e:
        raise RuntimeError(f"Failed to use memory manager from {name} (NUMBA_CUDA_MEMORY_MANAGER): {e}") from e


def _hook_environment():
    """With NUMBA_CUDA_MEMORY_MANAGER set (to anything but 'default'), its plugin is bound at each CUDA device's
    first use, as numba does; the module is imported then, not when gpujit is."""
    import os

    if os.environ.get("NUMBA_CUDA_MEMORY_MANAGER", "default") != "default":
        _state["from_environment"] = True
        _core._set_first_use_hook(_first_use)
        _state["hooked"] = True


def _allocator(plugin):
    def allocate(size):
        memory = plugin.memalloc(size)
        try:
            address = address_of(memory)
        except (TypeError, ValueError):
            raise TypeError(f"{type(plugin).__name__}.memalloc({size}) must return a MemoryPointer, not "
                            f"{type(memory).__name__}") from None
        got = getattr(memory, "size", size)
        if got is not None and got < size:
            raise ValueError(f"{type(plugin).__name__}.memalloc({size}) returned {got} bytes")
        return address, memory

    return allocate


def _bind(device, plugin):
    plugin.initialize()
    _plugins[device] = plugin
    _core._set_external_allocator(device, _allocator(plugin))


def _unbind(device):
    _plugins.pop(device, None)
    _core._set_external_allocator(device, None)


def plugin_of(device):
    """The plugin bound to `device`, or None when it uses gpujit's own allocator."""
    return _plugins.get(device)


def manager_of(device):
    """`device`'s memory manager: its plugin, or its GpujitMemoryManager."""
    plugin = _plugins.get(device)
    if plugin is not None:
        return plugin
    own = _own.get(device)
    if own is None:
        own = _own[device] = GpujitMemoryManager(context=device)
    return own


def _set_manager(device, manager):
    if manager is None or isinstance(manager, GpujitMemoryManager):
        _unbind(device)
        return
    if device.backend == "cpu":
        raise NotImplementedError(
            "the CPU backend's device allocates its own memory: kernels run on the host and could not use an "
            "External Memory Management plugin's device memory (numba's simulator has no EMM either); "
            "select a CUDA device (gpujit.select_device('cuda')) to use one")
    _bind(device, manager)


@contextlib.contextmanager
def _defer_cleanup(device):
    plugin = _plugins.get(device)
    with plugin.defer_cleanup() if plugin is not None else contextlib.nullcontext():
        _core._defer_release(device, True)
        try:
            yield
        finally:
            _core._defer_release(device, False)


def _reset(device):
    """numba's Context.reset(): the manager frees what it allocated; gpujit's cache gives its blocks back."""
    plugin = _plugins.get(device)
    if plugin is not None:
        plugin.reset()  # then gpujit's cache, which may hold blocks from before the plugin was bound
        _core._release_cached(device)
    else:
        manager_of(device).reset()


def close_devices():
    """numba's cuda.close() in the main thread: every used device is reset, its plugin unbound, and each
    device binds the plugin class set now at its next use."""
    for device in _core._used_devices():
        _reset(device)
        _unbind(device)
    _core._reset_devices()


def _primary_context(device):
    """numba's device.get_primary_context(): gpujit's device is numba's context, so the device itself, its CUDA
    context (the primary context) made current on the calling thread if none is, as current_context() does."""
    _core._push_context_if_none(device)
    return device


# The context API numba's programs call on `current_context()` (gpujit's device object).
Device = _core.Device
Device.memory_manager = property(manager_of, _set_manager,
                                 doc="The device's memory manager: an EMM plugin, or gpujit's own.")
Device.device = property(lambda self: self, doc="The device itself (numba's context.device).")
Device.get_memory_info = lambda self: manager_of(self).get_memory_info()
Device.get_memory_info.__doc__ = "MemoryInfo(free, total) in bytes, as the device's memory manager reports it."
Device.reset = _reset
Device.create_stream = lambda self: _in(self, _core.stream)
Device.create_stream.__doc__ = "A new stream on the device (numba's context.create_stream())."
Device.create_event = lambda self, timing=True: _in(self, lambda: _core.event(timing))
Device.create_event.__doc__ = "A new event on the device; `timing`: it records time (numba's create_event())."
Device.handle = property(lambda self: _core._context_handle(self),
                         doc="The device's CUDA context (its primary context) as an int; None on the CPU backend.")
Device.deallocations = property(lambda self: manager_of(self).deallocations,
                                doc="The queue of pending frees of the device's memory manager (numba's).")
Device.defer_cleanup = _defer_cleanup
Device.prepare_for_use = lambda self: manager_of(self).initialize()
Device.memalloc = lambda self, size: manager_of(self).memalloc(size)
Device.memhostalloc = (lambda self, size, mapped=False, portable=False, wc=False:
                       manager_of(self).memhostalloc(size, mapped, portable, wc))
Device.mempin = lambda self, owner, pointer, size, mapped=False: manager_of(self).mempin(owner, pointer, size, mapped)
Device.memallocmanaged = lambda self, size, attach_global=True: manager_of(self).memallocmanaged(size, attach_global)
Device.get_ipc_handle = lambda self, memory: get_ipc_handle_of(manager_of(self), memory)
Device.open_ipc_handle = open_ipc_handle_on
Device.get_device_identity = lambda self: {"pci_domain_id": self.PCI_DOMAIN_ID, "pci_bus_id": self.PCI_BUS_ID,
                                           "pci_device_id": self.PCI_DEVICE_ID}
Device.get_primary_context = _primary_context
Device.supports_float16 = property(lambda self: self.backend == "cpu" or tuple(self.compute_capability) >= (5, 3))
Device.supports_bfloat16 = property(lambda self: self.backend == "cpu" or tuple(self.compute_capability) >= (8, 0))
Device.supports_fp8 = property(lambda self: self.backend != "cpu" and tuple(self.compute_capability) >= (8, 9),
                               doc="Whether the hardware has fp8 (compute capability 8.9 or newer); gpujit's "
                                   "kernels have no fp8 types, see is_fp8_supported().")
_hook_environment()
