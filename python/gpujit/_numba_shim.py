"""The drop-in mode: a numba-cuda program runs on gpujit with no edit (docs/compat.md, "Moving a numba-cuda program").

    python -m gpujit run program.py ARGS      # or `gpujit run program.py ARGS`
    gpujit.install_numba_shim()               # a program that opts in itself, before it imports numba.cuda

install_numba_shim() puts an import hook first on sys.meta_path. What a program then gets from `numba.cuda` depends
on what is installed:

- numba-cuda (or numba's own CUDA target) is installed: `numba.cuda` and its modules import as they always do, and
  as each module of _HOOKS finishes executing, every public name gpujit also defines is rebound on it to gpujit's
  (`jit`, `to_device`, `grid`, `shared`, `atomic`, the random generators, `vectorize`, ...). Nothing of numba's
  compiler then runs for a kernel. Names gpujit lacks stay numba's; numba's scalar types (`numba.float32`) stay
  numba's too, since gpujit reads them in signatures and kernels; numba's CPU `@jit` stays numba's.
  numba's TypingError and NumbaPerformanceWarning catch gpujit's CompileError and PerformanceWarning: gpujit raises
  and warns with classes made here that derive from both.
- neither is installed: `numba`, `numba.cuda` and the submodules a program imports (`numba.cuda.random`,
  `numba.cuda.cudadrv.devicearray`, `numba.types`, `numba.core.errors`, ...) are modules made here of gpujit's
  objects, and `numba.jit`/`numba.njit` leave a function as plain Python (which kernels can still call as a device
  function).

Either way `numba.vectorize` and `numba.guvectorize` with `target='cuda'` make gpujit's ufuncs.

This module is the package's top layer: it imports the package root, and only the root (install_numba_shim) and
__main__ import it.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

_state = {"active": False, "mode": None, "finder": None}

# numba.cuda names that gpujit has under another name.
_RENAMED = {"DeviceNDArray": "DeviceArray"}
# numba.cuda.cudadrv.devicearray's record and helper functions, which gpujit._device_array has.
_DEVICEARRAY_NAMES = ("DeviceRecord", "from_record_like", "from_array_like", "auto_device")
# numba.cuda names that stay numba's: its configuration (forwarded to gpujit.config below), its type namespaces, its
# driver package and test support, its random module (bound name by name below) and its driver error classes.
_KEEP = {"config", "types", "cudadrv", "testing", "tests", "random", "CudaSupportError", "CudaAPIError",
         "extending",  # numba's extension API stays numba's: gpujit reads its registries (docs/extending.md)
         "libdevice"}  # numba's stubs, which numba-cuda's math lowering calls (_lowlevel.py runs it); kernels
                       # compile numba.cuda.libdevice's functions as gpujit.libdevice's
# numba.cuda.compiler's public functions, which programs also import from there.
_COMPILER_NAMES = ("compile", "compile_all", "compile_ptx", "compile_for_current_device",
                   "compile_ptx_for_current_device")
# Names of numba.cuda.cudadrv.driver that a program (an External Memory Management plugin, say) imports from there.
_DRIVER_NAMES = ("BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager", "GetIpcHandleMixin", "MemoryPointer",
                 "MemoryInfo", "IpcHandle", "set_memory_manager", "Stream", "Event")
# The launch switches numba's config module has and gpujit.config follows.
_FORWARDED = ("CUDA_LOW_OCCUPANCY_WARNINGS", "CUDA_WARN_ON_IMPLICIT_COPY", "CUDA_ARRAY_INTERFACE_SYNC",
              "CUDA_DEALLOCS_COUNT", "CUDA_DEALLOCS_RATIO", "CUDA_DEBUGINFO_DEFAULT", "OPT")


def numba_shim_active():
    """Whether install_numba_shim() has run in this process (`gpujit run` runs it before the program)."""
    return _state["active"]


def numba_shim_mode():
    """None when the shim is off; 'numba-cuda' when it binds an installed numba.cuda to gpujit; 'standalone' when
    `numba` and `numba.cuda` are gpujit's own modules (no numba installed)."""
    return _state["mode"]


def install_numba_shim(standalone=None):
    """Makes `import numba.cuda` (and `from numba import cuda`) give gpujit in this process; idempotent.

    Call it before the program imports names from numba.cuda (`from numba.cuda import jit` copies the name it finds).
    `standalone=None` binds an installed numba-cuda when there is one and makes gpujit's own `numba` modules when
    there is none; True makes gpujit's own modules even where numba is installed (refused once numba is imported);
    False requires an installed numba-cuda. Returns the mode: 'numba-cuda' or 'standalone'.
    """
    if _state["active"]:
        if standalone is not None and (_state["mode"] == "standalone") != bool(standalone):
            raise RuntimeError(f"the numba shim is already installed in '{_state['mode']}' mode")
        return _state["mode"]
    installed = _numba_cuda_installed()
    if standalone is None:
        standalone = not installed
    if standalone:
        if "numba" in sys.modules and getattr(sys.modules["numba"], "__gpujit_shim__", False) is False:
            raise RuntimeError("numba is already imported in this process: gpujit's standalone numba modules can "
                               "only be installed before the first `import numba`")
        _install_standalone()
        mode = "standalone"
    else:
        if not installed:
            raise ImportError("install_numba_shim(standalone=False) needs numba-cuda installed (pip install numba-cuda)")
        finder = _BindingFinder()
        sys.meta_path.insert(0, finder)
        _state["finder"] = finder
        for name in list(_HOOKS):  # modules a program imported before the shim are bound now
            module = sys.modules.get(name)
            if module is not None:
                _HOOKS[name](module)
        mode = "numba-cuda"
    _state["active"] = True
    _state["mode"] = mode
    return mode


def _numba_cuda_installed():
    """Whether `import numba.cuda` would find a real module, without importing anything."""
    try:
        numba = importlib.machinery.PathFinder.find_spec("numba")
    except (ImportError, ValueError):
        return False
    if numba is None:
        return False
    if importlib.machinery.PathFinder.find_spec("numba_cuda") is not None:
        return True
    locations = list(numba.submodule_search_locations or ())
    return importlib.machinery.PathFinder.find_spec("numba.cuda", locations) is not None


def _gpujit():
    import gpujit

    return gpujit


# ---- numba-cuda installed: its modules are bound to gpujit as they load ----


class _HookedLoader(importlib.abc.Loader):
    """A module's own loader, followed by the binding of gpujit's names onto the module it made."""

    def __init__(self, loader, hook):
        self._loader = loader
        self._hook = hook

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # The module keeps its real loader (inspect, linecache and pickle read it); only the hook is added.
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._hook(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _BindingFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for the modules of _HOOKS it asks the finders after it, then wraps their loader."""

    def find_spec(self, fullname, path, target=None):
        hook = _HOOKS.get(fullname)
        if hook is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _HookedLoader(spec.loader, hook)
                return spec
        return None


def _bind(module, source, names):
    """Sets on `module` each of `names` that `source` defines, but numba's scalar types and _KEEP's names."""
    gpujit = _gpujit()
    type_objects = (gpujit.DType, gpujit.ArrayType, gpujit.Signature, type(gpujit.void))
    for name in names:
        if name.startswith("_") or name in _KEEP:
            continue
        value = getattr(source, _RENAMED.get(name, name), None)
        if value is None or isinstance(value, type_objects):
            continue  # numba's scalar types stay: gpujit reads them in signatures and kernels
        setattr(module, name, value)


def _bind_numba(numba):
    """`numba` itself: vectorize/guvectorize with target='cuda' make gpujit's ufuncs; without numba (numba-cuda
    alone makes `numba` a namespace package) its scalar types are gpujit's."""
    gpujit = _gpujit()
    for name in ("vectorize", "guvectorize"):
        setattr(numba, name, _ufunc_decorator(name, getattr(numba, name, None), getattr(gpujit, name)))
    if not hasattr(numba, "float32"):
        for name, value in _dtype_names(gpujit).items():
            setattr(numba, name, value)


def _bind_cuda(cuda):
    gpujit = _gpujit()
    _bind(cuda, gpujit, set(dir(cuda)) | set(_RENAMED))
    # numba.cuda.bf16 is gpujit's: numba's own module builds its bindings with NVRTC at import.
    sys.modules["numba.cuda.bf16"] = gpujit.bf16
    cuda.bf16 = gpujit.bf16
    _give_bf16_registries(gpujit.bf16)
    compiler = sys.modules.get("numba.cuda.compiler")
    if compiler is not None:
        _bind(compiler, gpujit, _COMPILER_NAMES)
    # With numba installed, numba-cuda's config module is numba's own numba.core.config, put in place without an
    # import of its own name: bound here.
    config = getattr(cuda, "config", None)
    if isinstance(config, types.ModuleType) and not isinstance(config, _ForwardingConfig):
        _bind_config(config)


def _give_bf16_registries(module):
    """numba-cuda's typing and target contexts install numba.cuda.bf16's registries when made (a library's
    CUDATypingContext().refresh(), say): empty ones on gpujit's module, which stands in for numba's (gpujit's
    compiler types the bfloat16 functions itself)."""
    try:
        from numba.cuda.core.imputils import Registry as TargetRegistry
        from numba.cuda.typing.templates import Registry as TypingRegistry
    except ImportError:
        return
    if not hasattr(module, "__dict__") or "typing_registry" in vars(module):
        return
    module.typing_registry = TypingRegistry()
    module.target_registry = TargetRegistry()


# numba-cuda's bfloat16 math functions under their cuda_bf16.h names in numba.cuda._internal.cuda_bf16.
_BF16_MATH = ("htrunc", "hceil", "hfloor", "hrint", "hsqrt", "hrsqrt", "hrcp", "hlog", "hlog2", "hlog10", "hcos",
              "hsin", "hexp", "hexp2", "hexp10", "htanh", "htanh_approx")


def _bind_cuda_bf16(module):
    """numba.cuda._internal.cuda_bf16, the cuda_bf16.h bindings numba.cuda.bf16 re-exports (and its tests import
    directly): `nv_bfloat16` is gpujit's bfloat16, and each function (`htrunc`, `__hadd`, `__float2bfloat16_rz`
    ...) gpujit's bf16 function of the same name without the leading underscores."""
    bf16 = _gpujit().bf16
    module.nv_bfloat16 = bf16.bfloat16
    for name, value in list(vars(module).items()):
        if not isinstance(value, types.FunctionType):
            continue
        if name in _BF16_MATH or (name.startswith("__") and not name.endswith("__")):
            setattr(module, name, getattr(bf16, name.lstrip("_")))


def _bind_cuda_fp8(module):
    """numba.cuda._internal.cuda_fp8 (cuda_fp8.h): its fp8 types and cvt_* functions are gpujit.fp8's; its
    saturation_t and fp8_interpretation_t stay numba's IntEnums (kernels read their members as integers)."""
    fp8 = importlib.import_module("gpujit.fp8")
    for name in ("fp8_e4m3", "fp8_e5m2", "fp8_e8m0") + fp8._FUNCTIONS:
        if hasattr(module, name):  # cvt_fp8_to_halfraw is gpujit's only
            setattr(module, name, getattr(fp8, name))


def _bind_api(module):
    """numba.cuda.api: the capability queries its tests import from there."""
    gpujit = _gpujit()
    for name in ("is_fp8_supported", "is_bfloat16_supported", "is_float16_supported"):
        if hasattr(module, name) and hasattr(gpujit, name):
            setattr(module, name, getattr(gpujit, name))


def _bind_launchconfig(module):
    """numba.cuda.launchconfig: the launch configuration a launch-triggered compile reads is gpujit's
    (gpujit/launchconfig.py), set by gpujit's launches."""
    _bind(module, importlib.import_module("gpujit.launchconfig"), dir(module))


def _bind_random(module):
    _bind(module, importlib.import_module("gpujit.random"), dir(module))


def _bind_devicearray(module):
    gpujit = _gpujit()
    module.DeviceNDArray = gpujit.DeviceArray
    if hasattr(gpujit, "is_cuda_ndarray"):
        module.is_cuda_ndarray = gpujit.is_cuda_ndarray
    device_array = importlib.import_module("gpujit._device_array")
    for name in _DEVICEARRAY_NAMES:
        setattr(module, name, getattr(device_array, name))


def _bind_driver(module):
    """numba.cuda.cudadrv.driver: the memory-manager plugin interface, the memory pointer classes and the rest of
    gpujit.cudadrv.driver that numba's module also has, and numba's Stream and Event classes."""
    gpujit = _gpujit()
    module.LinkerError = gpujit.errors.LinkerError  # a link= input missing or not linkable (gpujit/_linking.py)
    ours = importlib.import_module("gpujit.cudadrv.driver")
    for name in _DRIVER_NAMES:
        if hasattr(gpujit, name):
            setattr(module, name, getattr(gpujit, name))
    for name in dir(ours):
        if not name.startswith("_") and name not in _KEEP and name != "driver" and hasattr(module, name) \
                and not isinstance(getattr(ours, name), types.ModuleType):
            setattr(module, name, getattr(ours, name))
    # numba's driver object stays numba's, but a program's replacement of its host<->device copies reaches
    # gpujit's copies (gpujit/_driver_object.py).
    driver_object = importlib.import_module("gpujit._driver_object")
    if getattr(module, "driver", None) is not driver_object.driver:
        driver_object.driver._fall_back_to(getattr(module, "driver", None))
        module.driver = driver_object.driver
    _refresh_error_classes()  # gpujit's driver errors become numba's CudaAPIError too


def _bind_compiler(module):
    _bind(module, _gpujit(), _COMPILER_NAMES)


def _bind_config(module):
    """numba's config module stays numba's, but the launch switches gpujit also has follow it: a program that sets
    `numba.cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0` switches gpujit's warning."""
    gpujit = _gpujit()
    module.__class__ = _ForwardingConfig
    for name in _FORWARDED:
        if hasattr(module, name):
            setattr(gpujit.config, name, getattr(module, name))


class _ForwardingConfig(types.ModuleType):
    # A module's __class__ can only become a class with the same layout: a plain subclass of ModuleType.
    """numba's config module, whose launch switches are also set on gpujit.config."""

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in _FORWARDED:
            setattr(_gpujit().config, name, value)


def _bind_errors(module):
    """numba's error modules: gpujit's CompileError and PerformanceWarning become subclasses of numba's TypingError
    and NumbaPerformanceWarning too, so a program catching numba's catches gpujit's."""
    del module
    _refresh_error_classes()


def _refresh_error_classes():
    gpujit = _gpujit()
    modules = [sys.modules[n] for n in ("numba.core.errors", "numba.cuda.core.errors") if n in sys.modules]
    typing = tuple(dict.fromkeys(m.TypingError for m in modules if hasattr(m, "TypingError")))
    perf = tuple(dict.fromkeys(m.NumbaPerformanceWarning for m in modules if hasattr(m, "NumbaPerformanceWarning")))
    config = tuple(dict.fromkeys(m.NumbaInvalidConfigWarning for m in modules
                                 if hasattr(m, "NumbaInvalidConfigWarning")))
    compile_error = gpujit.CompileError
    if typing:
        compile_error = type("CompileError", (gpujit.CompileError,) + typing,
                             {"__init__": _compile_error_init, "__module__": "gpujit.errors",
                              "__doc__": gpujit.CompileError.__doc__})
    performance = gpujit.PerformanceWarning
    if perf:
        performance = type("PerformanceWarning", (gpujit.PerformanceWarning,) + perf,
                           {"__init__": _warning_init, "__module__": "gpujit.errors",
                            "__doc__": gpujit.PerformanceWarning.__doc__})
    invalid_config = gpujit.InvalidConfigWarning
    if config:
        invalid_config = type("InvalidConfigWarning", (gpujit.InvalidConfigWarning,) + config,
                              {"__init__": _warning_init, "__module__": "gpujit.errors",
                               "__doc__": gpujit.InvalidConfigWarning.__doc__})
    # The debug-info warning is numba's own class when numba is there: numba's programs and tests compare the
    # warning's category with NumbaDebugInfoWarning itself, and only a debug=True compile issues it.
    debug_info = [m.NumbaDebugInfoWarning for m in modules if hasattr(m, "NumbaDebugInfoWarning")]
    gpujit._source.DebugInfoWarning = debug_info[-1] if debug_info else gpujit.errors.DebugInfoWarning
    support_error, api_error = _driver_error_classes(gpujit)
    gpujit._core._set_error_classes(compile_error, support_error, api_error, _launch_error_class(gpujit))
    # Errors from a worker process pickle by name and come back as these (gpujit.errors.CudaError.__reduce__).
    raised = gpujit.errors._raised
    raised.clear()
    for cls in (support_error, api_error, _forked_error_class(gpujit)):
        if cls is not getattr(gpujit.errors, cls.__name__):
            raised[cls.__name__] = cls
    gpujit._core._set_warning_class(performance)
    gpujit._dispatcher.InvalidConfigWarning = invalid_config


def _driver_error_classes(gpujit):
    """gpujit's CudaSupportError and CudaAPIError as the runtime raises them: with numba-cuda's driver modules
    loaded, classes that also derive from numba's CudaSupportError (an ImportError) and CudaAPIError, so that
    `except numba.cuda.cudadrv.driver.CudaAPIError` catches gpujit's driver errors; with cuda.core loaded, the
    CudaAPIError derives from its CUDAError too, which numba-cuda raises where cuda.core calls the driver (a
    launch)."""
    error = sys.modules.get("numba.cuda.cudadrv.error")
    driver = sys.modules.get("numba.cuda.cudadrv.driver")
    support, api = gpujit.CudaSupportError, gpujit.CudaAPIError
    numba_support = getattr(error, "CudaSupportError", None)
    api_bases = tuple(c for c in (getattr(driver, "CudaAPIError", None), _cuda_core_error())
                      if isinstance(c, type) and not issubclass(api, c))
    body = {"__init__": _driver_error_init, "__str__": Exception.__str__, "__module__": "gpujit.errors"}
    if isinstance(numba_support, type) and not issubclass(support, numba_support):
        support = type("CudaSupportError", (support, numba_support), dict(body, __doc__=support.__doc__))
    if api_bases:
        api = type("CudaAPIError", (api,) + api_bases, dict(body, __doc__=api.__doc__))
    return support, api


def _forked_error_class(gpujit):
    """gpujit's CudaDriverError (a process forked after CUDA was initialized), with numba-cuda's error module
    loaded a class that also derives from numba's CudaDriverError, which numba raises for it."""
    numba_error = getattr(sys.modules.get("numba.cuda.cudadrv.error"), "CudaDriverError", None)
    ours = gpujit.errors.CudaDriverError
    if not isinstance(numba_error, type) or issubclass(ours, numba_error):
        return ours
    return type("CudaDriverError", (ours, numba_error),
                {"__init__": _driver_error_init, "__str__": Exception.__str__, "__module__": "gpujit.errors",
                 "__doc__": ours.__doc__})


def _cuda_core_error():
    """cuda.core's CUDAError where cuda.core is loaded (numba-cuda's driver module imports it), else None."""
    return getattr(sys.modules.get("cuda.core._utils.cuda_utils"), "CUDAError", None)


def _launch_error_class(gpujit):
    """gpujit's LaunchError as the runtime raises it: with cuda.core loaded (numba-cuda's driver imports it), a
    class that also derives from cuda.core's CUDAError, whose message starts with the driver's CUDA error name.
    numba-cuda launches through cuda.core, so a launch the device cannot run is the driver's refusal there:
    CUDAError "CUDA_ERROR_INVALID_VALUE: ..." (too many threads, a zero dimension, too much shared memory)."""
    cuda_error = _cuda_core_error()
    launch = gpujit.LaunchError
    if not isinstance(cuda_error, type) or issubclass(launch, cuda_error):
        return launch
    return type("LaunchError", (launch, cuda_error), {"__init__": _launch_error_init, "__module__": "gpujit.errors",
                                                      "__doc__": launch.__doc__})


def _launch_error_init(self, *args):
    message = str(args[0]) if args else ""
    if not message.startswith(_INVALID_VALUE):
        message = f"{_INVALID_VALUE}: {message}"
    Exception.__init__(self, message)


_INVALID_VALUE = "CUDA_ERROR_INVALID_VALUE"


def _driver_error_init(self, *args):
    # numba's classes read `msg` (and CudaAPIError prints "[code] msg"); gpujit's message is kept as is.
    Exception.__init__(self, *args)
    self.msg = str(args[0]) if args else ""


def _compile_error_init(self, message, filename=None, lineno=None, col=None):
    # numba's NumbaError.__init__ would rewrite the message with its highlighting; gpujit's message is kept as is,
    # and numba's attributes (msg, loc) are there for code that reads them.
    Exception.__init__(self, message)
    self.message = self.msg = message
    self.filename, self.lineno, self.col = filename, lineno, col
    self.loc = None


def _warning_init(self, *args):
    Warning.__init__(self, *args)
    self.msg = args[0] if args else ""
    self.loc = None


_HOOKS = {
    "numba": _bind_numba,
    "numba.cuda": _bind_cuda,
    "numba.cuda.random": _bind_random,
    "numba.cuda.api": _bind_api,
    "numba.cuda._internal.cuda_bf16": _bind_cuda_bf16,
    "numba.cuda._internal.cuda_fp8": _bind_cuda_fp8,
    "numba.cuda.compiler": _bind_compiler,
    "numba.cuda.cudadrv.devicearray": _bind_devicearray,
    "numba.cuda.cudadrv.driver": _bind_driver,
    "numba.cuda.cudadrv.error": _bind_errors,
    "numba.cuda.core.config": _bind_config,
    "numba.cuda.launchconfig": _bind_launchconfig,
    "numba.core.errors": _bind_errors,
    "numba.cuda.core.errors": _bind_errors,
}


def _ufunc_decorator(name, numba_decorator, ours):
    """numba.vectorize / numba.guvectorize: gpujit's for target='cuda', numba's for any other target."""

    def decorator(*args, **kwargs):
        if kwargs.get("target") in ("cuda", "gpu"):
            return ours(*args, **kwargs)
        if numba_decorator is None:
            raise NotImplementedError(f"numba.{name}(target={kwargs.get('target', 'cpu')!r}) needs numba installed; "
                                      f"gpujit's drop-in mode runs target='cuda' only")
        return numba_decorator(*args, **kwargs)

    decorator.__name__ = decorator.__qualname__ = name
    decorator.__doc__ = f"numba.{name}: gpujit's {name} for target='cuda', numba's own for other targets."
    decorator.__wrapped__ = numba_decorator if numba_decorator is not None else ours
    return decorator


# ---- no numba installed: gpujit's own numba modules ----


def _dtype_names(gpujit):
    names = {}
    for name, value in vars(gpujit).items():
        if not name.startswith("_") and (isinstance(value, gpujit.DType) or value is gpujit.void):
            names[name] = value
    return names


class _StandaloneModule(types.ModuleType):
    """A module of gpujit's standalone numba: an attribute it lacks is an AttributeError naming the drop-in mode."""

    __gpujit_shim__ = True

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}': numba is not installed here, "
                             f"and gpujit's drop-in mode does not provide {self.__name__}.{name} "
                             "(docs/compat.md, \"Moving a numba-cuda program\")")


class _CudaModule(_StandaloneModule):
    """`numba.cuda` as gpujit's standalone numba makes it: gpujit's namespace under numba.cuda's name."""

    def __getattr__(self, name):
        gpujit = _gpujit()
        value = getattr(gpujit, _RENAMED.get(name, name), _MISSING)
        if value is _MISSING or name.startswith("_"):
            return _StandaloneModule.__getattr__(self, name)
        return value

    def __dir__(self):
        return sorted(set(super().__dir__()) | {n for n in dir(_gpujit()) if not n.startswith("_")})


_MISSING = object()


def _module(name, cls=_StandaloneModule, package=False, doc=None, **attrs):
    module = cls(name, doc)
    module.__gpujit_shim__ = True
    if package:
        module.__path__ = []  # a package: `import numba.cuda.cudadrv.devicearray` looks its children up here
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=package)
    for key, value in attrs.items():
        setattr(module, key, value)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], child, module)
    return module


class CPUDispatcher:
    """What numba.jit / numba.njit make without numba: the function runs as plain Python on the host, and a kernel
    that calls it compiles its Python function as a device function, as numba-cuda does with a numba CPU function
    (gpujit._source reads numba's CPUDispatcher by its class name and `py_func`; this one stands in for it)."""

    def __init__(self, py_func):
        self.py_func = py_func
        self.__name__ = getattr(py_func, "__name__", "function")
        self.__qualname__ = getattr(py_func, "__qualname__", self.__name__)
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)

    def __repr__(self):
        return f"<plain-Python CPUDispatcher({self.py_func!r}) of gpujit's drop-in numba>"


CPUDispatcher.__module__ = "numba.core.registry"  # numba's module for the class, which gpujit._source checks


def _plain_python_jit(*args, **kwargs):
    """numba.jit / numba.njit without numba (CPUDispatcher above); options and signatures are accepted and
    ignored: the host code is not compiled."""
    if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], (str, list, tuple)):
        return CPUDispatcher(args[0])
    return CPUDispatcher


def _install_standalone():
    gpujit = _gpujit()
    dtypes = _dtype_names(gpujit)
    errors = _module("numba.core.errors", TypingError=gpujit.CompileError, NumbaError=gpujit.CompileError,
                     NumbaPerformanceWarning=gpujit.PerformanceWarning,
                     NumbaInvalidConfigWarning=gpujit.InvalidConfigWarning,
                     NumbaWarning=UserWarning)
    numba_types = _module("numba.types", doc="numba's scalar types, as gpujit's dtypes", **dtypes)
    numba = _module("numba", package=True, doc="gpujit's drop-in numba (no numba installed)",
                    types=numba_types, jit=_plain_python_jit, njit=_plain_python_jit,
                    vectorize=_ufunc_decorator("vectorize", None, gpujit.vectorize),
                    guvectorize=_ufunc_decorator("guvectorize", None, gpujit.guvectorize),
                    prange=range, **dtypes)
    core = _module("numba.core", package=True, errors=errors, types=numba_types)
    sys.modules["numba.core.errors"] = errors
    sys.modules["numba.core.types"] = numba_types
    numba.core = core
    random = importlib.import_module("gpujit.random")
    cuda = _module("numba.cuda", _CudaModule, package=True, doc="gpujit, as numba.cuda (drop-in mode)",
                   types=numba_types, config=gpujit.config, random=random, libdevice=gpujit.libdevice,
                   fp16=gpujit.fp16, bf16=gpujit.bf16)
    for name, module in (("numba.cuda.random", random), ("numba.cuda.libdevice", gpujit.libdevice),
                         ("numba.cuda.fp16", gpujit.fp16), ("numba.cuda.bf16", gpujit.bf16),
                         ("numba.cuda.config", gpujit.config), ("numba.cuda.types", numba_types),
                         ("numba.cuda.launchconfig", importlib.import_module("gpujit.launchconfig")),
                         ("numba.cuda.extending", gpujit.extending), ("numba.extending", gpujit.extending)):
        sys.modules[name] = module
    _module("numba.cuda.compiler", **{n: getattr(gpujit, n) for n in _COMPILER_NAMES})
    cudadrv = _module("numba.cuda.cudadrv", package=True)
    device_array = importlib.import_module("gpujit._device_array")
    _module("numba.cuda.cudadrv.devicearray", DeviceNDArray=gpujit.DeviceArray,
            **{n: getattr(gpujit, n) for n in ("is_cuda_ndarray",) if hasattr(gpujit, n)},
            **{n: getattr(device_array, n) for n in _DEVICEARRAY_NAMES})
    driver = importlib.import_module("gpujit.cudadrv.driver")
    names = {n: getattr(driver, n) for n in dir(driver) if not n.startswith("_")}
    names.update({n: getattr(gpujit, n) for n in _DRIVER_NAMES if hasattr(gpujit, n)})
    names.update(CudaAPIError=gpujit.CudaAPIError, CudaSupportError=gpujit.CudaSupportError)
    _module("numba.cuda.cudadrv.driver", **names)
    _module("numba.cuda.cudadrv.devices", **{n: getattr(gpujit.cudadrv.devices, n)
                                              for n in dir(gpujit.cudadrv.devices) if not n.startswith("_")})
    cuda.cudadrv = cudadrv
    numba.cuda = cuda
