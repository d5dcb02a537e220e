"""numba-cuda's float16 intrinsics for kernels: `gpu.fp16.hadd(a, b)`, `gpu.fp16.hsin(x)` (numba.cuda.fp16).

The compiler knows the functions (ir/fp16_functions.h, docs/builtins.md lists them); the names here exist so
that code can name them on the host, where calling one says it only works inside a kernel.

Layer "base" of the Python package (docs/architecture.md): imports _kernel_api, of its own layer.
"""

from ._kernel_api import KernelFunction


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return KernelFunction("fp16", name)
