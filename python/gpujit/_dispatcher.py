"""The jit decorator and the Python half of a kernel.

Dispatcher subclasses the C++ `_core.Dispatcher`, which owns the specializations, the caches and the whole
launch path: `kernel[blocks, threads](args)` never runs Python code from this file. The Python half holds
the user's function and, on the first compile only, reads its source and free names (`_source_args`).
"""

from . import _core
from ._signature import signature_text


class Dispatcher(_core.Dispatcher):
    """A jitted kernel (or, with device=True, a device function callable from kernels)."""

    def __init__(self, pyfunc, device=False, fastmath=False, opt=3, lineinfo=False, debug=False):
        code = pyfunc.__code__
        if code.co_flags & 0x0C:  # CO_VARARGS | CO_VARKEYWORDS
            raise TypeError(f"'{pyfunc.__name__}': kernels take positional parameters only (no *args, **kwargs)")
        params = code.co_varnames[: code.co_argcount]
        super().__init__(pyfunc.__name__, params, device, fastmath, opt, debug)
        self.py_func = pyfunc
        self.__name__ = pyfunc.__name__
        self.__qualname__ = getattr(pyfunc, "__qualname__", pyfunc.__name__)
        self.__doc__ = pyfunc.__doc__
        self.__module__ = pyfunc.__module__
        self.__wrapped__ = pyfunc
        self.device = device
        self.lineinfo = lineinfo
        self.debug = debug

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
# alone; the others are accepted so that numba-cuda code runs, and have no effect yet.
_OPTIONS = {"device", "fastmath", "opt", "lineinfo", "debug", "inline", "cache", "link", "max_registers",
            "boundscheck", "forceinline", "launch_bounds"}


def jit(func_or_sig=None, device=False, **options):
    """Compiles a function as a kernel, numba-cuda style.

    @jit                      lazy: one specialization per tuple of argument types, at first launch
    @jit(device=True)         a device function, callable from kernels
    @jit("void(float32[:])")  eager: compiled now for these signatures only (a list of them works too)
    @jit(fastmath=True)       approximate division, sqrt and denormals, as numba's fastmath
    @jit(debug=True)          bounds-checked indexing at opt 0 (boundscheck=True: the checks alone)
    """
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"jit() got unknown option(s): {', '.join(sorted(unknown))}")
    opt = options.get("opt", 3)
    opt = 3 if opt is True else 0 if opt is False or options.get("debug") else int(opt)
    kwargs = {"device": device, "fastmath": bool(options.get("fastmath", False)), "opt": opt,
              "lineinfo": bool(options.get("lineinfo", False)),
              "debug": bool(options.get("debug", False) or options.get("boundscheck", False))}

    def factory(pyfunc):
        return Dispatcher(pyfunc, **kwargs)

    if callable(func_or_sig) and not _is_signature(func_or_sig):
        return factory(func_or_sig)
    if func_or_sig is None:
        return factory
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return _core.EagerDecorator(factory, [signature_text(s) for s in sigs])


def _is_signature(obj):
    from ._types import ArrayType, DType, Signature

    return isinstance(obj, (Signature, DType, ArrayType)) or type(obj).__module__.startswith("numba")
