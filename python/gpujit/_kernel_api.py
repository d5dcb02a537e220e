"""The kernel-side names of the gpujit namespace: grid, threadIdx.x, shared.array, atomic.add...

Inside a kernel these are compiled (the compiler's builtins table, ir/builtins.cpp, is the one list; these
objects are made from it), so numba-cuda code that says `cuda.threadIdx.x` runs unchanged with
`import gpujit as cuda`. They exist as Python objects so that such code can name them at module level
(`from gpujit import grid`, `syncthreads = cuda.syncthreads`); calling one on the host raises an error that
says it only works inside a kernel.

The package's own kernels (_device_array's transpose, the reductions, the ufuncs' loops) name this module as
their `gpu` or `gpujit`: in a kernel any module of the package is the gpujit namespace (_source.describe
reads it by its name), and this one lies below them, where the package root, which imports them, does not.

Layer "base" of the Python package (docs/architecture.md): imports no module of the package.
"""


class KernelFunction:
    """A function that only exists inside kernels."""

    __slots__ = ("_gpujit_builtin", "__name__", "__qualname__")

    def __init__(self, namespace, name):
        qual = f"{namespace}.{name}" if namespace else name
        self._gpujit_builtin = ("gpujit", qual)
        self.__name__ = name
        self.__qualname__ = qual

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"gpujit.{self.__qualname__}() can only be called inside a kernel or device function")

    def __repr__(self):
        return f"<gpujit kernel function {self.__qualname__}>"


class KernelNamespace:
    """threadIdx, blockIdx, shared, atomic ...: a namespace of kernel-only names."""

    def __init__(self, name):
        self._gpujit_builtin = ("gpujit", name)
        self._name = name

    def __repr__(self):
        return f"<gpujit kernel namespace {self._name}>"


class KernelValue:
    """A value that only exists inside kernels (threadIdx.x, laneid, warpsize)."""

    __slots__ = ("_gpujit_builtin", "_qualname")

    def __init__(self, namespace, name):
        self._qualname = f"{namespace}.{name}" if namespace else name
        self._gpujit_builtin = ("gpujit", self._qualname)

    def __repr__(self):
        return f"<gpujit kernel value {self._qualname}>"


def build(builtins):
    """The names to export, from _core.kernel_builtins(): (namespace, name, callable, supported) rows."""
    names = {}
    for namespace, name, is_callable, _supported in builtins:
        target = names
        if namespace:
            ns = names.get(namespace)
            if ns is None:
                ns = names[namespace] = KernelNamespace(namespace)
            target = ns.__dict__
        target[name] = KernelFunction(namespace, name) if is_callable else KernelValue(namespace, name)
    return names
