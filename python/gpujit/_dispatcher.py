"""The jit decorator and the Python half of a kernel.

Dispatcher subclasses the C++ `_core.Dispatcher`, which owns the specializations, the caches and the whole
launch path: `kernel[blocks, threads](args)` never runs Python code from this file. The Python half holds
the user's function and, on the first compile only, reads its source and free names (`_source_args`).
"""

import operator
from collections import Counter, namedtuple

from . import _core
from ._signature import signature_text

# numba's dispatcher.stats: the on-disk cache's folder (None when cache=False or no folder can be written) and
# Counters of its hits and misses per signature.
CacheStats = namedtuple("CacheStats", ("cache_path", "cache_hits", "cache_misses"))


class Dispatcher(_core.Dispatcher):
    """A jitted kernel (or, with device=True, a device function callable from kernels)."""

    def __init__(self, pyfunc, device=False, fastmath=False, opt=3, lineinfo=False, debug=False, max_registers=0,
                 cache=False):
        code = pyfunc.__code__
        if code.co_flags & 0x0C:  # CO_VARARGS | CO_VARKEYWORDS
            raise TypeError(f"'{pyfunc.__name__}': kernels take positional parameters only (no *args, **kwargs)")
        params = code.co_varnames[: code.co_argcount]
        super().__init__(pyfunc.__name__, params, device, fastmath, opt, debug, lineinfo, max_registers, cache)
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

    @property
    def stats(self):
        """The on-disk cache's folder and its hits and misses per signature (numba's dispatcher.stats)."""
        s = self._stats
        return CacheStats(s["cache_path"], Counter(s["cache_hits"]), Counter(s["cache_misses"]))

    def _source_args(self):
        from ._source import source_args

        return source_args(self.py_func)

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<gpujit {kind} {self.__qualname__}>"

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """numba's kernel.forall(n): a 1-D launch with at least n threads."""
        tpb = tpb or 128
        return self[(ntasks + tpb - 1) // tpb, tpb, stream, sharedmem]


# numba-cuda's jit options. fastmath and opt change the code; debug compiles at opt 0 with bounds-checked
# array indexing (an out-of-bounds index raises IndexError on the CPU backend), boundscheck adds the checks
# alone; lineinfo puts source lines in the PTX, max_registers caps registers per thread, cache keeps compiled
# PTX on disk; the others (inline, forceinline, link, launch_bounds) are accepted so that numba-cuda code
# runs, and have no effect yet.
_OPTIONS = {"device", "fastmath", "opt", "lineinfo", "debug", "inline", "cache", "link", "max_registers",
            "boundscheck", "forceinline", "launch_bounds"}


def jit(func_or_sig=None, device=False, **options):
    """Compiles a function as a kernel, numba-cuda style.

    @jit                      lazy: one specialization per tuple of argument types, at first launch
    @jit(device=True)         a device function, callable from kernels
    @jit("void(float32[:])")  eager: compiled now for these signatures only (a list of them works too)
    @jit(fastmath=True)       approximate division, sqrt and denormals, as numba's fastmath
    @jit(debug=True)          bounds-checked indexing at opt 0 (boundscheck=True: the checks alone)
    @jit(lineinfo=True)       .file/.loc line information in the PTX, for profilers
    @jit(max_registers=32)    at most 32 registers per thread (.maxnreg)
    @jit(cache=True)          keep the compiled PTX on disk (__pycache__) for later processes
    """
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"jit() got unknown option(s): {', '.join(sorted(unknown))}")
    max_registers = _max_registers(options.get("max_registers"))
    opt = options.get("opt", 3)
    opt = 3 if opt is True else 0 if opt is False or options.get("debug") else int(opt)
    kwargs = {"device": device, "fastmath": bool(options.get("fastmath", False)), "opt": opt,
              "lineinfo": bool(options.get("lineinfo", False)),
              "debug": bool(options.get("debug", False) or options.get("boundscheck", False)),
              "max_registers": max_registers, "cache": bool(options.get("cache", False))}

    def factory(pyfunc):
        return Dispatcher(pyfunc, **kwargs)

    if callable(func_or_sig) and not _is_signature(func_or_sig):
        return factory(func_or_sig)
    if func_or_sig is None:
        return factory
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return _core.EagerDecorator(factory, [signature_text(s) for s in sigs])


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
    from ._types import ArrayType, DType, Signature

    return isinstance(obj, (Signature, DType, ArrayType)) or type(obj).__module__.startswith("numba")
