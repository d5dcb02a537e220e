"""Module setup and teardown callbacks of linked code (numba-cuda's LinkableCode setup_callback/teardown_callback).

    def setup(module):      # module.handle: the CUlibrary the kernel runs from (cuLibraryGetGlobal works on it)
        ...
    lib = gpu.CUSource(source, setup_callback=setup, teardown_callback=teardown)

    @gpu.jit(link=[lib])    # or gpu.declare_device(name, sig, link=[lib]), called from the kernel
    def kernel(...): ...

numba-cuda's contract, kept here: each time a kernel that links the code is loaded onto a device (once per
specialization and device; launches after that find it loaded), every setup callback of its link inputs is called
with a handle of the loaded module (a ModuleHandle; a cuda.core ObjectCode where cuda.core is imported, as numba
gives), before the first launch, and once only however many threads launch it at the same time
(python/src/module_callbacks.h). The teardown callbacks get the same handle when the module is unloaded: at a
context reset (current_context().reset(), cuda.close()), when the kernel is garbage-collected, or at interpreter
exit, whichever comes first, and only once.

An exception from a setup callback propagates out of the launch; the module is then unloaded (its teardown
callbacks are not called) and the next launch loads it and calls the setup callbacks again. An exception from a
teardown callback is printed to stderr and ignored, as from any finalizer.

The binding calls _on_load for each load of a kernel with link inputs; the inputs arrive as (kind, name, data,
options) descriptions and are matched against the code objects registered by _linking.link_description. Two code
objects of the same kind, name and data are one link input, so the callbacks of both run.

Nothing of this is set up until the first code object with callbacks is registered (`import gpujit` pays for
none of it): then the binding's load hook, the context-reset hook and the exit hook are installed.

Layer "compiler inputs" of the Python package (docs/architecture.md): imports _memory_manager (at the first
registration) and the core.
"""

import sys
import weakref

from . import _core

# (kind, name, data as bytes) -> the code objects with callbacks that describe so. Held strongly: a kernel can be
# loaded (again, on another device) as long as it lives, and `jit(link=[CUSource(..., setup_callback=f)])` keeps
# no other reference; so a code object with callbacks, once linked, lives as long as the process.
_registered = {}
# (backend, device ordinal) -> the _Loaded records of the modules loaded there whose teardowns are still due.
_loaded = {}


def _key(kind, name, data):
    return (kind, str(name), data.encode() if isinstance(data, str) else bytes(data))


def register(item, description):
    """Notes a code object with callbacks (link_description calls this) under its description."""
    if not _installed:
        _install()
    items = _registered.setdefault(_key(*description[:3]), [])
    if not any(i is item for i in items):
        items.append(item)


class ModuleHandle:
    """A loaded module as its setup and teardown callbacks see it: `handle` (an int) is the CUlibrary a linked
    kernel was loaded as on a CUDA device (numba-cuda's ObjectCode.handle: cuLibraryGetGlobal and the like work
    on it), the CUmodule on a driver older than CUDA 12.0, and a number unique while the module is loaded on
    gpujit's CPU backend; `device` is the device it was loaded on."""

    def __repr__(self):
        return f"<gpujit module {self.handle:#x} on {self.device.name}>"

    def __hash__(self):
        return hash(self.handle)


_handle_class = None


def _make_handle(handle, device):
    """A ModuleHandle; where cuda.core is imported, of a subclass of its ObjectCode (numba gives an ObjectCode),
    whose handle is the module's. Its other ObjectCode methods are not available."""
    global _handle_class
    core = sys.modules.get("cuda.core")
    if _handle_class is None or (core is not None and not issubclass(_handle_class, getattr(core, "ObjectCode"))):
        object_code = getattr(core, "ObjectCode", None) if core is not None else None
        if object_code is not None:
            _handle_class = type("ModuleHandle", (ModuleHandle, object_code),
                                 {"handle": property(lambda self: self._gpujit_handle), "__doc__": ModuleHandle.__doc__})
        else:
            _handle_class = type("ModuleHandle", (ModuleHandle,),
                                 {"handle": property(lambda self: self._gpujit_handle), "__doc__": ModuleHandle.__doc__})
    module = _handle_class.__new__(_handle_class)
    module._gpujit_handle = handle
    module.device = device
    return module


class _Loaded:
    """One loaded module whose teardown callbacks are due: run once, by whichever unload comes first."""

    def __init__(self, dispatcher, module, teardowns):
        self.dispatcher = weakref.ref(dispatcher)
        self.module = module
        self.teardowns = teardowns

    def teardown(self):
        teardowns, self.teardowns = self.teardowns, ()
        for f in teardowns:
            try:
                f(self.module)
            except Exception:
                sys.excepthook(*sys.exc_info())


def _device_key(device):
    return (device.backend, device.id)


def _on_load(dispatcher, device, handle, link_inputs):
    """The binding's hook: a kernel of `dispatcher` that links `link_inputs` was just loaded on `device`."""
    setups, teardowns = [], []
    for description in link_inputs:
        for item in _registered.get(_key(*description[:3]), ()):
            if getattr(item, "setup_callback", None):
                setups.append(item.setup_callback)
            if getattr(item, "teardown_callback", None):
                teardowns.append(item.teardown_callback)
    if not setups and not teardowns:
        return
    module = _make_handle(handle, device)
    for f in setups:
        f(module)
    # Recorded even without teardowns, so that a context reset unloads the module and the next launch sets up
    # a fresh one.
    record = _Loaded(dispatcher, module, teardowns)
    _loaded.setdefault(_device_key(device), []).append(record)
    if teardowns:  # the kernel's modules are unloaded with it
        weakref.finalize(dispatcher, record.teardown)


def unload_modules(device):
    """A context reset of `device`: the teardown callbacks of the modules loaded there, then the modules
    unloaded (the kernels load them again, and call the setup callbacks, at their next launch)."""
    for record in _loaded.pop(_device_key(device), ()):
        record.teardown()
        dispatcher = record.dispatcher()
        if dispatcher is not None:
            _core._unload_kernels(dispatcher, device)


def unload_dispatcher(dispatcher):
    """`dispatcher` drops its loaded kernels (Dispatcher.recompile): the teardown callbacks of the modules it
    loaded, on every device, before the core unloads them."""
    for key, records in _loaded.items():
        keep = []
        for record in records:
            if record.dispatcher() is dispatcher:
                record.teardown()
            else:
                keep.append(record)
        _loaded[key] = keep


def _teardown_all():
    for records in list(_loaded.values()):
        for record in records:
            record.teardown()
    _loaded.clear()


_installed = False
_original_reset = None


def _reset(device):
    unload_modules(device)
    _original_reset(device)


def _install():
    """Hooks this module in: the binding calls _on_load at each load of a kernel with link inputs, numba's
    Context.reset() and cuda.close() (which reset every used device through _memory_manager._reset) unload the
    modules first, and the teardowns still due run at exit."""
    global _installed, _original_reset
    import atexit

    from . import _memory_manager

    _original_reset = _memory_manager._reset
    _reset.__doc__ = _original_reset.__doc__
    _memory_manager._reset = _reset
    _memory_manager.Device.reset = _reset
    _core._set_module_hook(_on_load)
    atexit.register(_teardown_all)
    _installed = True
