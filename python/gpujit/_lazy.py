"""What `import gpujit` leaves for first use (issue 31; benchmarks/import_time.py, docs/python.md).

Each module the package imports costs a file lookup, a read and its top-level code, a fraction of a
millisecond that adds up over three dozen modules. Most programs never need the modules named here: CUDA C
and linking, the ufunc and reduction machinery, the kernel namespaces a program imports by name (fp16, bf16,
fp8, libdevice, random), the extension API, the External Memory Management plugin interface, IPC, numba's
cudadrv names and the runtime functions around the context. The package root resolves their public names at
first use through a module __getattr__ (PEP 562) driven by PUBLIC; `dir(gpujit)` lists them as before, and
`from gpujit import X` works alike.

Two of those modules also add methods to the binding's classes when imported: _memory_manager to Device
(numba's context API: memory_manager, memalloc, reset...) and _ipc to DeviceArray (get_ipc_handle). Until
then, install_class_stubs() leaves a LoadOnUse descriptor under each such name, which imports the module (the
module then puts its own attributes in their place) and hands the access on; tests/python/test_import_cost.py
checks that the names here and the modules' own stay the same.

Layer "base" of the Python package: imports only modules of its layer, and those only when an attribute is used.
"""

import importlib
import os
import sys

# Public name of the package root -> the module (relative to the package) that defines it. A name whose module
# is the attribute itself (gpujit.fp16) maps to the module with attribute None.
_BY_MODULE = {
    "_compile": ("compile", "compile_all", "compile_for_current_device", "compile_ptx",
                 "compile_ptx_for_current_device"),
    "_linking": ("LTOIR", "Archive", "CUSource", "Cubin", "Fatbin", "LinkableCode", "Object", "PTXSource",
                 "declare_device"),
    "_module_callbacks": ("ModuleHandle",),
    "ufunc": ("guvectorize", "vectorize"),
    "reduction": ("Reduce", "reduce"),
    "_host_memory": ("device_array_like", "managed_array", "mapped_array", "mapped_array_like", "pinned_array",
                     "pinned_array_like"),
    "_memory_manager": ("BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager", "set_memory_manager"),
    "_memory_pointers": ("MappedMemory", "MemoryInfo", "MemoryPointer", "PinnedMemory"),
    "_ipc": ("GetIpcHandleMixin", "IpcHandle", "open_ipc_array"),
    "_runtime_api": ("close", "defer_cleanup", "is_float16_supported", "is_fp8_supported", "mapped", "pinned",
                     "profile_start", "profile_stop", "profiling"),
    "_cuda_c": ("RawKernel", "SourceModule", "compile_cuda_c", "link_cuda", "nvrtc_compile", "toolkit_libraries"),
}
_SUBMODULES = ("random", "extending", "bf16", "fp8", "fp16", "libdevice", "cudadrv", "ufunc", "reduction")

PUBLIC = {name: (module, name) for module, names in _BY_MODULE.items() for name in names}
PUBLIC.update({name: (name, None) for name in _SUBMODULES})

# The binding's classes' attributes that a module adds when imported: class name -> (module, names).
CLASS_ATTRIBUTES = {
    "Device": ("_memory_manager", (
        "memory_manager", "device", "get_memory_info", "reset", "create_stream", "create_event", "handle",
        "deallocations", "defer_cleanup", "prepare_for_use", "memalloc", "memhostalloc", "mempin",
        "memallocmanaged", "get_ipc_handle", "open_ipc_handle", "get_device_identity", "get_primary_context",
        "supports_float16", "supports_bfloat16", "supports_fp8")),
    "DeviceArray": ("_ipc", ("get_ipc_handle",)),
}


def resolve(package, name, namespace=None):
    """The package root's attribute `name`, imported now (its module __getattr__, `namespace` its globals);
    AttributeError for a name that is neither here nor in the package. `__all__` is asked for by
    `from gpujit import *` alone: every public name, the ones left to first use too, as the star import took
    them all when the root imported every module (it imports them now)."""
    if name == "__all__" and namespace is not None:
        return sorted({n for n in namespace if not n.startswith("_")} | set(PUBLIC))
    where = PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module, attribute = where
    loaded = importlib.import_module("." + module, package)
    return loaded if attribute is None else getattr(loaded, attribute)


class LoadOnUse:
    """A class attribute that a module of the package defines when imported: the first access (read, write or
    call) imports it, which replaces this descriptor on the class with the real attribute, and goes on to that.
    While the module is being imported, a read gives the binding's own attribute of that name, if the class had
    one (_memory_manager keeps the driver's get_memory_info before it puts the manager's in its place)."""

    __slots__ = ("package", "module", "cls", "name", "original")

    def __init__(self, package, module, cls, name):
        self.package, self.module, self.cls, self.name = package, module, cls, name
        self.original = cls.__dict__.get(name)

    def _loaded(self):
        """Imports the module; False while the class still holds this descriptor (the module is being imported)."""
        importlib.import_module("." + self.module, self.package)
        return self.cls.__dict__.get(self.name) is not self

    def _missing(self):
        return AttributeError(f"'{self.cls.__name__}' object has no attribute '{self.name}' (yet: "
                              f"{self.package}.{self.module} defines it)")

    def __get__(self, instance, owner=None):
        if self._loaded():
            return getattr(instance if instance is not None else self.cls, self.name)
        if self.original is None:
            raise self._missing()
        return self.original.__get__(instance, self.cls)

    def __set__(self, instance, value):
        if self._loaded():
            setattr(instance, self.name, value)
        elif hasattr(type(self.original), "__set__"):
            self.original.__set__(instance, value)
        else:
            raise self._missing()


def install_class_stubs(package, core):
    """Puts a LoadOnUse under each name of CLASS_ATTRIBUTES on the binding's classes (`core`, gpujit._core).
    NUMBA_CUDA_MEMORY_MANAGER names a plugin that must be bound at each CUDA device's first use: then
    _memory_manager is imported now, as before, to hook that first use."""
    for cls_name, (module, names) in CLASS_ATTRIBUTES.items():
        if f"{package}.{module}" in sys.modules:  # importlib.reload(gpujit): the module's own are in place
            continue
        cls = getattr(core, cls_name)
        for name in names:
            setattr(cls, name, LoadOnUse(package, module, cls, name))
    if os.environ.get("NUMBA_CUDA_MEMORY_MANAGER", "default") != "default":
        importlib.import_module("._memory_manager", package)
