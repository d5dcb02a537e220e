"""The jit decorator and the Python half of a kernel.

Dispatcher subclasses the C++ `_core.Dispatcher`, which owns the specializations, the caches and the whole
launch path: `kernel[blocks, threads](args)` never runs Python code from this file. The Python half holds
the user's function and, on the first compile only, reads its source and free names (`_source_args`).
It also gives numba-cuda's introspection API a view of the core's specializations: `overloads` (one
Overload per signature), `specialize`, `compile`, the per-kernel resource figures, and pickling.

Layer "dispatcher" of the Python package (docs/architecture.md): imports the compiler inputs and base.
"""

import operator
import os
import sys
import warnings
from collections import Counter, namedtuple

from . import _core
from ._arg_hints import prepare_args
from ._ptx_tools import ptx_arch
from ._ptx_tools import ptx_function_name as _ptx_function_name, resource_figures as _resource_figures
from ._ptx_tools import sass_cfg_of as _sass_cfg_of, sass_of as _sass_of
from ._signature import ArgTypes, SignatureDict, _return_type, signature_text, type_for_user, type_of_value
from ._source import _code_names, source_args
from . import config
from . import launchconfig
from ._types import ArrayType, DType, Signature
from .errors import InvalidConfigWarning

# numba's dispatcher.stats: the on-disk cache's folder (None when cache=False or no folder can be written) and
# Counters of its hits and misses per signature.
CacheStats = namedtuple("CacheStats", ("cache_path", "cache_hits", "cache_misses"))


_warm_up_started = False


def start_warm_up():
    """Starts the compiler's one-time initialisation on a background thread (compiler/warm_up.h), once per
    process, so that the first kernel compiles as fast as later ones; GPUJIT_WARM_UP=0 turns it off. The first
    Dispatcher made calls it: a kernel's definition comes well before its first launch, and a process that
    defines no kernel (`import gpujit` alone, a script that only copies arrays) neither runs the warm-up nor
    waits for it at exit, which is most of `import gpujit`'s time in a short process otherwise."""
    global _warm_up_started
    _warm_up_started = True
    if os.environ.get("GPUJIT_WARM_UP", "1") != "0":
        import atexit

        _core._start_warm_up()
        atexit.register(_core._wait_warm_up)


class Dispatcher(_core.Dispatcher):
    """A jitted kernel (or, with device=True, a device function callable from kernels)."""

    def __init__(self, pyfunc, device=False, fastmath=False, opt=3, lineinfo=False, debug=False, max_registers=0,
                 cache=False, warn_float64=True, launch_bounds=None, debug_info=False, lto=False, targetoptions=None):
        if not _warm_up_started:
            start_warm_up()
        code = pyfunc.__code__
        if code.co_flags & 0x08:  # CO_VARKEYWORDS; *args (CO_VARARGS) is a device function's (docs/language.md)
            raise TypeError(f"'{pyfunc.__name__}': kernels and device functions take no **kwargs")
        params = code.co_varnames[: code.co_argcount]
        link = (targetoptions or {}).get("link")
        super().__init__(pyfunc.__name__, params, device, fastmath, opt, debug, lineinfo, max_registers, cache,
                         warn_float64, _launch_bounds(launch_bounds), debug_info,
                         link=_link_descriptions(link) if link else None, lto=bool(lto))
        self._extensions = list((targetoptions or {}).get("extensions") or ())
        self._set_extensions(self._extensions)
        self.py_func = pyfunc
        self.__name__ = pyfunc.__name__
        self.__qualname__ = getattr(pyfunc, "__qualname__", pyfunc.__name__)
        self.__doc__ = pyfunc.__doc__
        self.__module__ = pyfunc.__module__
        self.__wrapped__ = pyfunc
        self.device = device
        self.lineinfo = lineinfo
        self.debug = debug
        self.max_registers = max_registers or None
        self.cache = cache
        # What jit() was given, kept to rebuild this dispatcher (pickling, specialize) as numba does.
        self.targetoptions = dict(targetoptions) if targetoptions is not None else {
            "device": device, "fastmath": fastmath, "opt": opt, "lineinfo": lineinfo, "debug": debug,
            "max_registers": max_registers or None, "cache": cache, "warn_float64": warn_float64}
        self._specialized = False
        self.specializations = {}
        self._overloads = {}
        self._device_results = {}
        self._as_device = None  # a device=True twin, for the library of a specialization kernels called
        self._lto_twin = None  # an lto=True twin, whose compiles carry the NVVM IR (inspect_lto_ptx)
        self._lto_ptx_cache = {}  # (signature, cc) -> inspect_lto_ptx's answer
        # numba's launch-config sensitivity (gpujit/launchconfig.py): whether a compile of this kernel called
        # mark_launch_config_sensitive(), the signatures compiled so, the launch configuration (key) this
        # dispatcher's own compiles are for, and one dispatcher per other launch configuration.
        self._launch_config_sensitive = False
        self._lcs_signatures = set()
        self._launch_config_default_key = None
        self._launch_config_specializations = {}

    def __setattr__(self, name, value):
        # A `_compile_for_args` of the instance's own is a hook launches must call when they compile: the
        # dispatcher becomes a _LaunchConfigDispatcher, whose launches go through Python (the C++ launch path
        # calls no Python when it compiles).
        super().__setattr__(name, value)
        if name == "_compile_for_args" and type(self) is Dispatcher:
            self.__class__ = _LaunchConfigDispatcher
            self._set_compile_hook(_launch_compile_hook)

    def __delattr__(self, name):
        super().__delattr__(name)
        if name == "_compile_for_args" and type(self) is _LaunchConfigDispatcher and not self._launch_config_sensitive:
            self.__class__ = Dispatcher
            self._set_compile_hook(None)

    def mark_launch_config_sensitive(self):
        """Marks the compile running now (one a launch of this dispatcher triggered) as depending on the launch
        configuration: the kernel is then compiled once per launch configuration. RuntimeError outside such a
        compile, or during the compile of another dispatcher's launch."""
        cfg = launchconfig.ensure_current_launch_config()
        if cfg.dispatcher is not self:
            raise RuntimeError("mark_launch_config_sensitive() must be called on the dispatcher whose launch is "
                               f"compiling ({cfg.dispatcher!r}), not on {self!r}")
        cfg._kernel_launch_config_sensitive = True

    def _has_signature(self, key):
        return any(ArgTypes(text) == key for text in self.signatures)

    @property
    def __code__(self):
        return self.py_func.__code__

    @property
    def specialized(self):
        """Whether this dispatcher runs one signature only (jit with one signature, or specialize())."""
        return self._specialized

    @property
    def extensions(self):
        """numba's argument extensions: objects whose prepare_args(ty, val, stream=, retr=) each launch runs
        over every argument (gpujit/_arg_hints.py); append to this list to add one."""
        return self._extensions

    @property
    def overloads(self):
        """One Overload per compiled or declared signature, keyed by its argument types (numba's dispatcher
        keys them the same way: tuples of types; text such as "(float32[::1])" finds an entry too)."""
        out = SignatureDict()
        for text in self.signatures:
            key = ArgTypes(text)
            if key not in self._overloads:
                self._overloads[key] = Overload(self, key)
            out[key] = self._overloads[key]
        return out

    def compile(self, sig):
        """Compiles the kernel for `sig` (any signature spelling) now and returns its Overload."""
        if self.device:
            raise NotImplementedError(
                f"'{self.__name__}' is a device function: gpujit compiles it into the kernels that call it, "
                f"not on its own")
        if self._specialized:
            return next(iter(self.overloads.values()))
        key = ArgTypes(sig)
        if self._launch_config_sensitive and not self._has_signature(key):
            # A new compile of a kernel that depends on its launch configuration needs one.
            launchconfig.ensure_current_launch_config()
        self.inspect_ptx("void" + key.text)
        return self.overloads[key]

    def recompile(self):
        """numba's Dispatcher.recompile(): compiles every signature compiled so far again, from the function's
        source and the values its globals have now (a compiled kernel keeps the values it was compiled with
        until then). With cache=True the new code is written to the disk cache, under a key of its own (the
        globals' values are part of gpujit's cache key). A device function's code is compiled into the kernels
        that call it: those kernels keep theirs until they are recompiled."""
        texts = [] if self.device else list(self.signatures)
        callbacks = sys.modules.get("gpujit._module_callbacks")  # loaded with the first code that has them
        if callbacks is not None:
            callbacks.unload_dispatcher(self)  # numba's teardown callbacks of the modules unloaded here
        _core._forget_compiled(self)
        self._overloads.clear()
        for text in texts:
            self.compile(text)

    def compile_device(self, args, return_type=None):
        """numba's compile_device(argtypes): a device function compiled on its own for these argument types, with
        numba's ABI (what inspect_llvm(args) and inspect_asm(args) show). Returns a DeviceCompileResult whose
        fndesc.mangled_name is the function's symbol there. `return_type` is accepted as numba's argument; the
        return type is inferred."""
        if not self.device:
            raise RuntimeError(f"Cannot compile '{self.__name__}' as a device function: it is a kernel "
                               "(jit without device=True); use compile(sig)")
        key = ArgTypes(tuple(args) if isinstance(args, list) else args)
        found = self._device_results.get(key)
        if found is None:
            ptx, ret = self._compile_entry("void" + key.text, True, "numba", "", "")[:2]
            found = DeviceCompileResult(self, key, _ptx_function_name(ptx), _return_type(ret, args))
            self._device_results[key] = found
        return found

    def inspect_types(self, signature=None, file=None, pretty=False):
        """The typed dump of each compiled signature (or of `signature`). With `file`, written there, each
        headed by the function's name and argument types, as numba's inspect_types(file=) prints them, and
        None is returned; `pretty` (numba's HTML output) is accepted and ignored."""
        result = super().inspect_types(signature)
        if file is None:
            return result
        texts = {ArgTypes(signature): result} if signature is not None else result
        for key, text in texts.items():
            file.write(f"{self.__qualname__} {getattr(key, 'text', key)}\n{'-' * 80}\n{text}\n")
        return None

    def inspect_sass(self, signature=None):
        """The SASS of the kernel (cuobjdump of the cubin ptxas makes from its PTX for the current device's
        architecture): for `signature`, else a dict per compiled signature, as inspect_ptx."""
        if self.device:
            raise RuntimeError("Cannot inspect SASS of a device function")
        if signature is not None:
            return _sass_of(self.inspect_ptx(signature))
        return SignatureDict((k, _sass_of(ptx)) for k, ptx in self.inspect_ptx().items())

    def inspect_sass_cfg(self, signature=None):
        """The control-flow graph of the kernel's SASS as Graphviz DOT text (`nvdisasm -cfg` of the cubin ptxas
        makes from its PTX): for `signature`, else a dict per compiled signature. RuntimeError naming nvdisasm
        where there is none."""
        if self.device:
            raise RuntimeError("Cannot inspect SASS of a device function")
        if signature is not None:
            return _sass_cfg_of(self.inspect_ptx(signature))
        return SignatureDict((k, _sass_cfg_of(ptx)) for k, ptx in self.inspect_ptx().items())

    def _compile_for_args(self, *args):
        """Compiles for the types these argument values have at a launch (numba's hook of the same name).

        The launch path of `kernel[...]` is C++ and does not call this one; a `_compile_for_args` set on the
        instance makes the dispatcher a _LaunchConfigDispatcher, whose launches call it when they compile."""
        return self.compile(tuple(type_of_value(a) for a in args))

    def inspect_lto_ptx(self, signature=None, cc=None):
        """numba's link-time-optimized PTX: for `signature`, else a dict per compiled signature, as inspect_ptx.

        A kernel that links external code (declare_device, link=) is written as NVVM IR, compiled to LTO-IR by
        libNVVM and linked with its inputs (CUDA C compiled to LTO-IR by NVRTC) by nvJitLink with -lto -ptx: the
        PTX of the whole program, its CUDA C functions inlined where LTO inlined them. For the architecture `cc`
        ((major, minor)), else the kernel's PTX's (the current device's, or sm_80); no GPU is needed. Where the
        kernel cannot take part as LTO-IR (a construct the writer cannot write, no libNVVM) its PTX comes back
        with a PerformanceWarning saying why. A kernel without external code is its PTX: gpujit links device
        functions and libdevice as LLVM IR and optimizes them together already."""
        if self.device:
            return self.inspect_ptx(signature)
        if signature is not None:
            return self._lto_ptx("void" + ArgTypes(signature).text, cc)
        return SignatureDict((key, overload.inspect_lto_ptx(cc)) for key, overload in self.overloads.items())

    def _lto_ptx(self, signature, cc):
        """inspect_lto_ptx for one signature ("void(...)"), kept per signature and architecture."""
        key = (signature, tuple(cc) if cc else None)
        if key in self._lto_ptx_cache:
            return self._lto_ptx_cache[key]
        arch = f"sm_{int(cc[0])}{int(cc[1])}{cc[2] if len(cc) > 2 and cc[2] else ''}" if cc else ""
        if self._lto_twin is None:
            kwargs = dict(_dispatcher_kwargs(self.targetoptions), lto=True)
            self._lto_twin = Dispatcher(self.py_func, **kwargs, targetoptions=self.targetoptions)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the writer's failure comes back below as the reason
            ptx, _, link, entry, nvvm_ir, error = self._lto_twin._compile_entry(
                signature, True, "kernel", "", arch, _launch_bounds(self.targetoptions.get("launch_bounds")))
        if link:
            from ._cuda_c import _ensure_search_dirs

            _ensure_search_dirs()
            linked, why = _core._link_kernel(ptx, entry + ".ptx", link, arch or ptx_arch(ptx), True, nvvm_ir, error,
                                             True)
            if linked is None:
                from .errors import PerformanceWarning

                warnings.warn(f"inspect_lto_ptx: the kernel cannot take part in an LTO link, so this is its PTX "
                              f"before the link: {why}", PerformanceWarning, stacklevel=3)
            else:
                ptx = linked
        self._lto_ptx_cache[key] = ptx
        return ptx

    def typeof_pyval(self, value):
        return ArgTypes((type_of_value(value),))[0]

    def specialize(self, *args):
        """A new dispatcher compiled for the types of `args` (values, or types) only; one per type tuple."""
        if self._specialized:
            raise RuntimeError("Dispatcher already specialized")
        key = (_compute_capability(), ArgTypes(tuple(type_of_value(a) for a in args)))
        found = self.specializations.get(key)
        if found is None:
            found = Dispatcher(self.py_func, **_dispatcher_kwargs(self.targetoptions),
                               targetoptions=self.targetoptions)
            found._compile(signature_text(key[1]))
            found._specialized = True
            self.specializations[key] = found
        return found

    def _per_overload(self, figure, signature):
        """numba's get_*(signature): one overload's figure, the only one's, or a dict of all of them."""
        if signature is not None:
            return getattr(self.overloads[signature], figure)
        if self._specialized:
            return getattr(next(iter(self.overloads.values())), figure)
        return SignatureDict((k, getattr(o, figure)) for k, o in self.overloads.items())

    def get_regs_per_thread(self, signature=None):
        """Registers per thread, as ptxas allocates them for the kernel's PTX."""
        return self._per_overload("regs_per_thread", signature)

    def get_shared_mem_per_block(self, signature=None):
        """Bytes of static shared memory per block (dynamic shared memory is set at launch)."""
        return self._per_overload("shared_mem_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        """Bytes of local memory (stack frame) per thread."""
        return self._per_overload("local_mem_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        """Bytes of constant memory the kernel's module declares (const.array_like, format strings)."""
        return self._per_overload("const_mem_size", signature)

    def get_max_threads_per_block(self, signature=None):
        """The largest block the kernel can launch with, given its registers."""
        return self._per_overload("max_threads_per_block", signature)

    def __reduce__(self):
        """Pickles as numba does: by reference where the module holds this dispatcher under its name, else as
        the function (by value where the pickler can, as cloudpickle does) and the jit options."""
        module = sys.modules.get(self.__module__)
        target = module
        for part in self.__qualname__.split("."):
            target = getattr(target, part, None)
        if target is self:
            return self.__qualname__
        return _rebuild, (_picklable_function(self.py_func), self.targetoptions)

    @property
    def stats(self):
        """The on-disk cache's folder and its hits and misses per signature (numba's dispatcher.stats)."""
        s = self._stats
        return CacheStats(s["cache_path"], Counter(s["cache_hits"]), Counter(s["cache_misses"]))

    def _source_args(self):
        return source_args(self.py_func, Dispatcher, debug=bool(self.targetoptions.get("debug")))

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<gpujit {kind} {self.__qualname__}>"

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """numba's kernel.forall(n): a 1-D launch with at least n threads; with n == 0, a call that launches
        nothing (a grid of no blocks is not a launch the driver accepts)."""
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
        if ntasks == 0:
            return _no_work
        tpb = tpb or 128
        return self[(ntasks + tpb - 1) // tpb, tpb, stream, sharedmem]


class _LaunchConfigDispatcher(Dispatcher):
    """A dispatcher whose launches compile through Python: one with a `_compile_for_args` of its own, or whose
    kernel is launch-config sensitive. Every launch of it, through any `kernel[...]` made before or after it
    became one, calls _launch_compile_hook first (the core's compile hook, DispatcherState::compile_hook)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._set_compile_hook(_launch_compile_hook)

    def _launch_target(self, launcher):
        """The dispatcher a launch with `launcher`'s configuration compiles in: this one, or for a
        launch-config-sensitive kernel, the one kept for that configuration."""
        if not self._launch_config_sensitive:
            return self
        key = (launcher.griddim, launcher.blockdim, launcher.sharedmem)
        if self._launch_config_default_key is None:
            self._launch_config_default_key = key
        if key == self._launch_config_default_key:
            return self
        found = self._launch_config_specializations.get(key)
        if found is None:
            found = _LaunchConfigDispatcher(self.py_func, **_dispatcher_kwargs(self.targetoptions),
                                            targetoptions=self.targetoptions)
            found._launch_config_sensitive = True
            found._launch_config_default_key = key
            found._extensions[:] = self._extensions
            self._launch_config_specializations[key] = found
        return found


def _launch_compile_hook(dispatcher, launcher, args):
    """What a launch of a _LaunchConfigDispatcher runs first: when the arguments' types are not compiled yet,
    `_compile_for_args(*args)` with the launch configuration set for the thread (launchconfig), noting a
    compile that marked itself launch-config sensitive. Returns the dispatcher the core launches in."""
    target = dispatcher._launch_target(launcher)
    try:
        key = None if target._extensions else ArgTypes(tuple(type_of_value(a) for a in args))
    except Exception:  # a value only the core's launch path reads: it reports it
        key = None
    if key is not None and not target._specialized and not target._has_signature(key):
        cfg = launchconfig.LaunchConfig(target, launcher.griddim, launcher.blockdim, launcher.stream,
                                        launcher.sharedmem, args)
        with launchconfig.active_launch_config(cfg):
            target._compile_for_args(*args)
        if cfg._kernel_launch_config_sensitive:
            target._lcs_signatures.add(key.text)
            if not target._launch_config_sensitive:
                target._launch_config_sensitive = True
                target._launch_config_default_key = (cfg.griddim, cfg.blockdim, cfg.sharedmem)
    return target


# The device functions @overload implementations become (_overloads.py, which sits below this module). It is
# imported with a first kernel that needs it, after this module, and takes the class from here then; one
# imported before this module gets it now.
if __package__ + "._overloads" in sys.modules:
    sys.modules[__package__ + "._overloads"].set_dispatcher_class(Dispatcher)


def _link_descriptions(link):
    from ._linking import link_descriptions  # linking loads with a first link=, not at `import gpujit`

    return link_descriptions(link)


# numba-cuda's jit options. fastmath and opt change the code; debug compiles at opt 0 with bounds-checked
# array indexing (an out-of-bounds index raises IndexError on the CPU backend), boundscheck adds the checks
# alone; lineinfo puts source lines in the PTX, max_registers caps registers per thread, cache keeps compiled
# PTX on disk; launch_bounds puts .maxntid/.minnctapersm/.maxclusterrank on a kernel's entry, and a launch with
# more threads per block than its bound fails as the driver fails it (CUDA_ERROR_INVALID_VALUE, on the cpu
# backend too); a device function's inline ('always'/True, 'never'/False, or a cost model) inlines its calls
# before LLVM's optimizer (inspect_llvm shows them gone) and forceinline=True marks it alwaysinline for LLVM
# (gpujit/_source.py, codegen/lowering.cpp); link= is code linked with a kernel (paths or code objects,
# _linking.py); lto=True links a kernel that calls CUDA C as LTO-IR, written as NVVM IR and compiled by libNVVM, so
# that nvJitLink inlines the CUDA C functions (docs/cuda_c.md); shared_memory_carveout is accepted so that
# numba-cuda code runs, and has no effect yet (its values are checked as numba checks them).
# _dbg_optnone (numba's, for debugging the compiler's output) compiles at optimization level 0; debug left out
# takes config.CUDA_DEBUGINFO_DEFAULT. extensions are numba's prepare_args hooks, run over the arguments of each
# launch (_arg_hints.py). warn_float64 is gpujit's own: False silences the PerformanceWarning for float64
# arithmetic in a float32 kernel.
_OPTIONS = {"device", "fastmath", "opt", "lineinfo", "debug", "inline", "cache", "link", "max_registers",
            "boundscheck", "forceinline", "launch_bounds", "lto", "shared_memory_carveout", "extensions",
            "warn_float64", "_dbg_optnone"}


def jit(func_or_sig=None, device=False, **options):
    """Compiles a function as a kernel, numba-cuda style.

    @jit                      lazy: one specialization per tuple of argument types, at first launch
    @jit(device=True)         a device function, callable from kernels
    @jit("void(float32[:])")  eager: compiled now for these signatures only (a list of them works too)
    @jit(fastmath=True)       approximate division, sqrt and denormals, as numba's fastmath
    @jit(debug=True)          bounds-checked indexing at opt 0 and DWARF line tables in the PTX for cuda-gdb
                              (boundscheck=True: the checks alone)
    @jit(lineinfo=True)       .file/.loc line information in the PTX, for profilers
    @jit(max_registers=32)    at most 32 registers per thread (.maxnreg)
    @jit(launch_bounds=256)   at most 256 threads per block (.maxntid); (256, 2[, 4]) adds min blocks per SM
                              (.minnctapersm) and max blocks per cluster (.maxclusterrank)
    @jit(cache=True)          keep the compiled PTX on disk (__pycache__) for later processes
    @jit(warn_float64=False)  no PerformanceWarning when float64 arithmetic enters a float32 kernel
    """
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"jit() got unknown option(s): {', '.join(sorted(unknown))}")
    if options.get("debug") is None:
        # numba's default for debug: config.CUDA_DEBUGINFO_DEFAULT (NUMBA_CUDA_DEBUGINFO), read at decoration.
        options["debug"] = bool(config.CUDA_DEBUGINFO_DEFAULT)
    if options.pop("_dbg_optnone", False):
        # numba's switch that keeps LLVM from optimizing a debug build: gpujit compiles it at level 0.
        options["opt"] = False
    if options.get("shared_memory_carveout") is not None:
        _check_carveout(options["shared_memory_carveout"])
    _check_inline(options.get("inline", "never"))
    _launch_bounds(options.get("launch_bounds"))  # its errors at the decorator, as numba's
    if options.get("lto"):
        _check_nvjitlink()
    if options.get("cache") and options.get("link"):
        # numba-cuda cannot cache code that links external files, and says so in these words.
        raise RuntimeError("Cannot pickle CUDACodeLibrary with linking files: a kernel that links external code "
                           "(jit(link=[...])) cannot be cached on disk; drop cache=True or link=")
    options["opt"] = default_opt(options.get("debug"), options.get("opt"), stacklevel=2)
    if options.get("debug") and options.get("lineinfo"):
        # numba's words: debug's DWARF already holds the line table, and lineinfo alone leaves codegen as it is.
        warnings.warn("debug and lineinfo are mutually exclusive. Use debug to get full debug info (this disables "
                      "some optimizations), or lineinfo for line info only with code generation unaffected.",
                      InvalidConfigWarning, stacklevel=2)
    kwargs = dispatcher_options(device, options)

    # targetoptions keeps launch_bounds as the user spelled it (numba's does); Dispatcher normalises it.
    targetoptions = dict(kwargs, **{k: v for k, v in options.items() if k not in kwargs})
    # One signature (not a list of them) makes a specialized dispatcher, as in numba.
    specialized = func_or_sig is not None and not isinstance(func_or_sig, list)

    def factory(pyfunc):
        dispatcher = Dispatcher(pyfunc, **kwargs, targetoptions=targetoptions)
        dispatcher._specialized = specialized
        if options.get("link"):  # an eager compile: NVRTC's errors and warnings now, as numba's (docs/cuda_c.md)
            from ._linking import check_cuda_c

            check_cuda_c(_link_descriptions(options["link"]), stacklevel=3)
        return dispatcher

    if callable(func_or_sig) and not _is_signature(func_or_sig):
        return Dispatcher(func_or_sig, **kwargs, targetoptions=targetoptions)
    if func_or_sig is None:
        return lambda pyfunc: Dispatcher(pyfunc, **kwargs, targetoptions=targetoptions)
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return _core.EagerDecorator(factory, [signature_text(s) for s in sigs])


def _check_nvjitlink():
    """jit(lto=True) links with nvJitLink's -lto: numba's RuntimeError, at the decorator, where it cannot load."""
    from ._cuda_c import _ensure_search_dirs  # the pip wheels' folders too

    _ensure_search_dirs()
    library = _core._toolkit_library(False)  # loads nvJitLink: only for lto=True
    if isinstance(library, str):
        raise RuntimeError(f"LTO requires nvjitlink, which is not available or not sufficiently recent (>=12.3): "
                           f"{library}")


def default_opt(debug, opt, stacklevel):
    """opt= as numba reads it: left out (None), config.OPT (NUMBA_OPT, 3 unless set) at the time of the call.
    debug with opt warns, as numba's does (NVVM cannot debug optimized code); in gpujit debug simply wins."""
    if opt is None:
        opt = int(config.OPT)
        opt_text = f"{opt} (config.OPT, the default)"
    else:
        opt_text = repr(opt)
    if debug and opt not in (False, 0):
        warnings.warn(f"jit(debug=True, opt={opt_text}): debug compiles at optimization level 0, so opt is "
                      "ignored (debugging optimized code is not supported by CUDA); pass opt=False, or "
                      "boundscheck=True instead of debug for bounds checks at full optimization",
                      InvalidConfigWarning, stacklevel=stacklevel + 1)
    return opt


def dispatcher_options(device, options):
    """The Dispatcher constructor's arguments for jit's options (`opt=True` is 3, debug compiles at 0, ...)."""
    opt = options.get("opt", 3)
    opt = 0 if opt is False or options.get("debug") else 3 if opt is True else int(opt)
    return {"device": device, "fastmath": bool(options.get("fastmath", False)), "opt": opt,
            "lineinfo": bool(options.get("lineinfo", False)),
            "debug": bool(options.get("debug", False) or options.get("boundscheck", False)),
            "max_registers": _max_registers(options.get("max_registers")), "cache": bool(options.get("cache", False)),
            "warn_float64": bool(options.get("warn_float64", True)),
            "launch_bounds": options.get("launch_bounds"),
            "debug_info": bool(options.get("debug", False)), "lto": bool(options.get("lto", False))}


def _check_inline(inline):
    """numba's inline values: 'always' or 'never' (or True/False), or a cost model callable."""
    if inline in ("always", "never") or isinstance(inline, bool) or callable(inline):
        return
    raise ValueError(f"kwarg 'inline' must be one of the strings 'always' or 'never', or it can be a callable "
                     f"that returns True/False; got {inline!r}")


def _check_carveout(carveout):
    """numba's shared_memory_carveout values: a percentage of shared memory, -1 (the driver's choice) or a name."""
    if isinstance(carveout, str):
        if carveout.lower() not in ("default", "maxl1", "maxshared"):
            raise ValueError(f"Invalid carveout value: {carveout}; it must be -1 to 100 or one of 'default', "
                             f"'MaxL1', 'MaxShared'")
    elif isinstance(carveout, int) and not isinstance(carveout, bool):
        if not -1 <= carveout <= 100:
            raise ValueError(f"shared_memory_carveout must be between -1 and 100, not {carveout}")
    else:
        raise TypeError(f"shared_memory_carveout must be str or int, not {type(carveout).__name__}")


def _no_work(*args):
    """kernel.forall(0)(...): no tasks, so nothing runs."""


def _launch_bounds(bounds):
    """numba's launch_bounds (max threads per block, then optionally min blocks per SM and max blocks per
    cluster, as an int or a tuple of one to three positive ints) as the core's (max_threads, min_blocks,
    max_cluster_rank), 0 for each one left out."""
    if bounds is None:
        return (0, 0, 0)
    values = (bounds,) if isinstance(bounds, int) and not isinstance(bounds, bool) else bounds
    if isinstance(values, list):
        values = tuple(values)
    if not isinstance(values, tuple) or not values:
        raise TypeError(f"launch_bounds must be an int or a tuple of ints, not {type(bounds).__name__}")
    if len(values) > 3:
        raise ValueError(f"Got {len(values)} launch bounds: {bounds}. A maximum of three are supported: "
                         "(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        raise ValueError(f"launch_bounds must be positive ints, not {bounds}")
    return values + (0,) * (3 - len(values))


def _dispatcher_kwargs(targetoptions):
    """The Dispatcher constructor's arguments among jit's options."""
    names = ("device", "fastmath", "opt", "lineinfo", "debug", "max_registers", "cache", "warn_float64",
             "launch_bounds", "debug_info", "lto")
    kwargs = {k: targetoptions[k] for k in names if k in targetoptions}
    kwargs["max_registers"] = kwargs.get("max_registers") or 0
    return kwargs


def _prepare_args(extensions, args, stream):
    """The launch path's call into the kernel's extensions (python/src/dispatcher.cpp)."""
    return prepare_args(extensions, args, stream)


def _rebuild(py_func, targetoptions):
    """Unpickles a dispatcher: the same function under the same jit options, compiled again when launched."""
    if isinstance(py_func, _FunctionByValue):
        py_func = py_func.function()
    return Dispatcher(py_func, **_dispatcher_kwargs(targetoptions), targetoptions=targetoptions)


def _picklable_function(fn):
    """`fn` itself where pickle finds it by name (a module-level function), else the function by value."""
    module = sys.modules.get(fn.__module__)
    target = module
    for part in fn.__qualname__.split("."):
        target = getattr(target, part, None)
    return fn if target is fn else _FunctionByValue(fn)


class _FunctionByValue:
    """A kernel's Python function pickled by value, as cloudpickle pickles a local function for numba: its code
    (marshal: the same Python reads it back), the globals it names (modules by name, other values by pickle,
    so device functions it calls travel the same way), its closure and defaults, and its source lines, which
    gpujit compiles from: put in linecache where the loading process cannot read the file."""

    def __init__(self, fn):
        import linecache
        import marshal
        import types

        code = fn.__code__
        glob = fn.__globals__
        self.code = marshal.dumps(code)
        self.names = (fn.__name__, fn.__qualname__, fn.__module__)
        self.defaults = fn.__defaults__
        self.modules, self.values = {}, {}
        for name in _code_names(code, set()):
            if name not in glob:
                continue  # a builtin, or an attribute name
            value = glob[name]
            if isinstance(value, types.ModuleType):
                self.modules[name] = value.__name__
            else:
                self.values[name] = value
        self.closure = tuple(cell.cell_contents for cell in fn.__closure__ or ())
        self.lines = linecache.getlines(code.co_filename, glob)

    def function(self):
        import builtins
        import importlib
        import linecache
        import marshal
        import types

        code = marshal.loads(self.code)
        name, qualname, module = self.names
        glob = {"__name__": module, "__builtins__": builtins}
        glob.update({k: importlib.import_module(m) for k, m in self.modules.items()})
        glob.update(self.values)
        cells = tuple(types.CellType(v) for v in self.closure) or None
        fn = types.FunctionType(code, glob, name, self.defaults, cells)
        fn.__qualname__ = qualname
        fn.__module__ = module
        if self.lines and not linecache.getlines(code.co_filename):
            linecache.cache[code.co_filename] = (sum(map(len, self.lines)), None, list(self.lines), code.co_filename)
        return fn


def _compute_capability():
    try:
        return tuple(_core.get_current_device().compute_capability)
    except Exception:  # no device at all: specializations are still told apart by their types
        return None


# The most registers a thread can have: the largest .maxnreg ptxas honours.
_MAX_REGISTERS = 255


def _max_registers(value):
    """max_registers as the binding takes it: 0 for no limit (None), else an int from 1 to 255."""
    if value is None:
        return 0
    try:
        count = operator.index(value)  # ints and NumPy integers, not floats or strings
    except TypeError:
        count = None
    if count is None or isinstance(value, bool):
        raise TypeError(f"max_registers must be an int (registers per thread) or None, not {type(value).__name__}")
    if not 1 <= count <= _MAX_REGISTERS:
        raise ValueError(f"max_registers must be between 1 and {_MAX_REGISTERS} registers per thread, not {count}")
    return count


def _is_signature(obj):
    return isinstance(obj, (Signature, DType, ArrayType)) or type(obj).__module__.startswith("numba")


class Overload:
    """One specialization of a kernel: numba's compiled kernel object, as far as its users read one.

    The core exposes no resource figures of a loaded kernel, so they are read where they are decided: the
    registers, static shared memory and stack frame from `ptxas -v` on the kernel's PTX (for the PTX's
    target, the architecture the driver would compile it for), the constant memory from the `.const`
    variables the PTX declares, and the largest block from the registers by the CUDA occupancy rule
    (64K registers per block, allocated per warp in units of 256).
    """

    def __init__(self, dispatcher, argtypes):
        self._dispatcher = dispatcher
        self.argument_types = argtypes
        self._figures = None

    def __repr__(self):
        return f"<gpujit overload {self._dispatcher.__qualname__}{self.argument_types.text}>"

    @property
    def signature(self):
        return "void" + self.argument_types.text

    @property
    def launch_config_sensitive(self):
        """Whether its compile called mark_launch_config_sensitive() (gpujit/launchconfig.py)."""
        return self.argument_types.text in self._dispatcher._lcs_signatures

    def inspect_asm(self, cc=None):
        """The PTX (for the current device; `cc` is accepted as numba's argument)."""
        return self._dispatcher.inspect_ptx(self.signature)

    def inspect_sass(self):
        """The kernel's SASS (Dispatcher.inspect_sass)."""
        return self._dispatcher.inspect_sass(self.signature)

    def inspect_sass_cfg(self):
        """The control-flow graph of the kernel's SASS, DOT text (Dispatcher.inspect_sass_cfg)."""
        return self._dispatcher.inspect_sass_cfg(self.signature)

    def inspect_lto_ptx(self, cc=None):
        """numba's link-time-optimized PTX: the kernel's PTX, or with external code its PTX after an LTO link with
        it (Dispatcher.inspect_lto_ptx)."""
        return self._dispatcher.inspect_lto_ptx(self.signature, cc)

    def inspect_llvm(self):
        return self._dispatcher.inspect_llvm(self.signature)

    def inspect_types(self):
        return self._dispatcher.inspect_types(self.signature)

    @property
    def cooperative(self):
        """Whether the kernel uses cg.this_grid().sync(), so that every launch of it is a cooperative one."""
        return self._dispatcher._cooperative(self.signature)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of shape `blockdim` (threads, or a tuple of up to three extents) a cooperative launch
        of this kernel may have on the current device, with `dynsmemsize` bytes of dynamic shared memory per
        block: the blocks that fit on a multiprocessor at once times the multiprocessors (numba's method)."""
        dims = tuple(blockdim) if isinstance(blockdim, (tuple, list)) else (blockdim,)
        if not 1 <= len(dims) <= 3:
            raise ValueError(f"blockdim must be an int or a tuple of 1 to 3 ints, not {blockdim!r}")
        threads = 1
        for d in dims:
            threads *= operator.index(d)
        return self._dispatcher._max_cooperative_grid_blocks(self.signature, threads, operator.index(dynsmemsize))

    @property
    def _codelibrary(self):
        """numba's code library, as far as its users read one: the files linked into the kernel (none: gpujit
        links device code as LLVM IR, and a grid barrier needs no cudadevrt)."""
        return _CodeLibrary()

    @property
    def library(self):
        """numba's code library of this specialization, as far as its users read one: get_llvm_str() and
        get_asm_str() give the kernel's LLVM IR and PTX, or for a device function its code compiled on its own
        with numba's ABI (Dispatcher.compile_device: an int status returned, 0, and the result stored through
        a pointer)."""
        return _OverloadLibrary(self)

    @property
    def _type_annotation(self):
        """numba's record of the typing (tests read `.typemap`): here the kernel's typed dump, read back."""
        return TypeAnnotation(self.inspect_types())

    def _figure(self, name):
        if self._figures is None:
            self._figures = _resource_figures(self.inspect_asm())
        return self._figures[name]

    regs_per_thread = property(lambda self: self._figure("regs"))
    shared_mem_per_block = property(lambda self: self._figure("shared"))
    local_mem_per_thread = property(lambda self: self._figure("local"))
    const_mem_size = property(lambda self: self._figure("const"))
    max_threads_per_block = property(lambda self: self._figure("max_threads"))


class _CodeLibrary:
    _linking_files = ()


class _OverloadLibrary(_CodeLibrary):
    def __init__(self, overload):
        self._overload = overload

    def _compiled(self):
        d = self._overload._dispatcher
        key = self._overload.argument_types
        if d.device:
            return d.compile_device(key)
        if key.text in d._called_signatures:
            # A plain @jit function a kernel called as a device function (numba allows it): compiled so, by a
            # device dispatcher of the same function.
            if d._as_device is None:
                kwargs = dict(_dispatcher_kwargs(d.targetoptions), device=True)
                d._as_device = Dispatcher(d.py_func, **kwargs, targetoptions=d.targetoptions)
            return d._as_device.compile_device(key)
        return self._overload

    def get_llvm_str(self):
        return self._compiled().inspect_llvm()

    def get_asm_str(self, cc=None):
        return self._compiled().inspect_asm()


class DeviceCompileResult:
    """A device function compiled on its own (Dispatcher.compile_device), as far as numba's users read numba's
    CompileResult: `fndesc.mangled_name` (its symbol in the PTX and LLVM IR), `signature`, `argument_types`
    and `return_type`."""

    def __init__(self, dispatcher, argtypes, mangled_name, return_type):
        self._dispatcher = dispatcher
        self.argument_types = argtypes
        self.return_type = return_type
        self.fndesc = _FunctionDescriptor(dispatcher.__name__, dispatcher.__qualname__, mangled_name, argtypes,
                                          return_type)

    @property
    def signature(self):
        return f"{self.return_type}{self.argument_types.text}"

    def inspect_llvm(self):
        return self._dispatcher.inspect_llvm(self.argument_types)

    def inspect_asm(self, cc=None):
        return self._dispatcher.inspect_ptx(self.argument_types)

    def __repr__(self):
        return f"<gpujit device function {self.fndesc.qualname}{self.argument_types.text}>"


_FunctionDescriptor = namedtuple("FunctionDescriptor", ("name", "qualname", "mangled_name", "argtypes", "restype"))

class TypeAnnotation:
    """The types semantic analysis gave a kernel's variables, as numba's Overload._type_annotation offers them.

    `typemap` maps each parameter and local of the kernel (not of the device functions it calls) to its type,
    read from the `locals:` section of the typed dump (inspect_types): gpujit's type objects (`gpujit.int32`,
    `gpujit.float32[:, ::1]`), or the text for types that have none (tuples); numba's type objects instead when
    numba is imported, since numba-cuda code compares them with numba's. str() is the whole dump.
    """

    def __init__(self, dump):
        self.text = dump
        self.typemap = _kernel_locals(dump, "numba" in sys.modules)

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"<gpujit TypeAnnotation of {len(self.typemap)} variables>"


def _kernel_locals(dump, numba_types):
    """{name: type} from the kernel's `locals:` section of a typed dump (an indented `name: type` per line)."""
    lines = iter(dump.splitlines())
    if not any(line.startswith("kernel ") for line in lines):
        return {}
    if not any(line.strip() == "locals:" for line in lines):
        return {}
    typemap = {}
    for line in lines:
        if not line.startswith("    "):
            break
        name, _, text = line.strip().partition(": ")
        typemap[name] = type_for_user(text, numba_types)
    return typemap
