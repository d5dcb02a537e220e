"""CUDA's libdevice functions for kernels: `from gpujit import libdevice`, then `libdevice.sincos(x)`.

The same namespace as numba-cuda's `numba.cuda.libdevice`: every function of libdevice.10.bc by its name
without `__nv_`, with the types of its C prototype; results written through pointers come back as a tuple
(`s, c = libdevice.sincos(x)`). The compiler knows the functions (ir/libdevice_functions.h); the names here
exist so that code can name them on the host, where calling one says it only works inside a kernel.

Layer "base" of the Python package (docs/architecture.md): imports _kernel_api, of its own layer.
"""

from ._kernel_api import KernelFunction


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return KernelFunction("libdevice", name)
