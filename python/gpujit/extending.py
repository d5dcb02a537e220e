"""gpujit.extending: numba's high-level extension API, for libraries whose functions kernels call.

    from gpujit.extending import overload, overload_method, overload_attribute, register_jitable, types

    def clip01(x): ...                       # a function of the library, callable on the host

    @overload(clip01)                        # target='generic' (the default) or 'cuda'; 'cpu' is not for kernels
    def _clip01(x):                          # the typing function: gets the argument types
        if isinstance(x, types.Float):
            def impl(x):                     # the implementation, compiled as a device function
                return min(max(x, 0.0), 1.0)
            return impl                      # None: these types are not this overload's

The typing function receives numba's type objects where numba is installed (numba.core.types), gpujit's own
otherwise (gpujit.extending.types, _overload_types.py); `types` here is whichever the typing function will see.
numba's own decorators (numba.extending.overload, numba.cuda.extending.overload, with target 'cuda' or
'generic') work the same: gpujit reads their registries. docs/extending.md has the whole story.

Layer "compiler inputs" of the Python package (docs/architecture.md).
"""

from . import _overload_types, _overloads

__all__ = ["overload", "overload_method", "overload_attribute", "register_jitable", "intrinsic", "types"]


def __getattr__(name):
    if name == "types":  # numba's types where numba is installed: what typing functions receive
        return _overloads._real_numba_types() or _overload_types
    raise AttributeError(f"module 'gpujit.extending' has no attribute '{name}'")


def overload(func, jit_options=None, strict=True, inline="never", prefer_literal=False, target="generic",
             **kwargs):
    """Marks the decorated function as the typing function of `func` in kernels (numba's @overload): it is
    called with the types of a call's arguments and returns the implementation, or None to decline."""
    if not callable(func):
        raise TypeError(f"overload() takes the function to implement, not {type(func).__name__}")
    target = _overloads.check_target(target)

    def decorate(typing_func):
        _overloads.register_function(func, _overloads.Overload(typing_func, target, prefer_literal, strict=strict))
        return typing_func

    return decorate


def overload_method(typ, attr, target="generic", prefer_literal=False, **kwargs):
    """Marks the decorated function as the typing function of the method `attr` of values of `typ` (a type
    class such as types.Array or types.Float, or one type): called with the receiver's type first."""
    target = _overloads.check_target(target)

    def decorate(typing_func):
        _overloads.register_member("method", attr,
                                   _overloads.Overload(typing_func, target, prefer_literal, typ, strict=False))
        return typing_func

    return decorate


def overload_attribute(typ, attr, target="generic", prefer_literal=False, **kwargs):
    """Marks the decorated function as the typing function of the attribute `attr` of values of `typ`: called
    with the value's type; its implementation takes the value and returns the attribute."""
    target = _overloads.check_target(target)

    def decorate(typing_func):
        _overloads.register_member("attribute", attr,
                                   _overloads.Overload(typing_func, target, prefer_literal, typ, strict=False))
        return typing_func

    return decorate


def register_jitable(*args, **kwargs):
    """A Python function that kernels may call as it is (numba's @register_jitable): `@register_jitable` or
    `@register_jitable(inline=...)`. The function stays callable on the host."""

    def wrap(fn):
        def typing(*types):
            return fn

        _overloads.register_function(fn, _overloads.Overload(typing, "generic", strict=False))
        return fn

    if args and not kwargs and len(args) == 1 and callable(args[0]):
        return wrap(args[0])
    return wrap


class _Intrinsic:
    """What @intrinsic makes: kernels call it; its typing and code generation callbacks run with numba-cuda's
    contexts where the call is compiled (_lowlevel.py, docs/extending.md)."""

    def __init__(self, func):
        self._defn = func
        self.__name__ = getattr(func, "__name__", "intrinsic")

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"intrinsic '{self.__name__}' can only be called from a kernel or device function")


def intrinsic(*args, **kwargs):
    """numba's @intrinsic: `defn(typingctx, *arg_types)` returns (signature, codegen), and
    `codegen(context, builder, signature, args)` emits the call's LLVM IR with llvmlite. Kernels call it; the
    callbacks run with numba-cuda's typing and lowering contexts, so they need numba-cuda installed (without it
    a call is a CompileError that says so). Scalar arguments and results only (docs/extending.md)."""
    if args and callable(args[0]) and len(args) == 1 and not kwargs:
        return _Intrinsic(args[0])
    return _Intrinsic
