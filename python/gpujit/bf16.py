"""numba-cuda's bfloat16 for kernels: `from gpujit.bf16 import bfloat16, hadd, hsqrt` (numba.cuda.bf16).

`bfloat16` is the type: `bfloat16(x)` in a kernel converts a number to bfloat16 (to nearest even) and
`float32(b)`, `int32(b)` convert back. The functions (hadd, hfma_sat, hmax_nan, hsqrt, float32_to_bfloat16_rz,
bfloat16_to_int16_rd, bfloat16_as_int16 ...) are the compiler's (ir/bf16_functions.h; docs/builtins.md lists
them); the names here exist so that code can import them on the host, where calling one says it only works
inside a kernel. bfloat16 needs a GPU of compute capability 8.0 or newer (gpujit.is_bfloat16_supported());
the CPU backend always has it.

Layer "base" of the Python package (docs/architecture.md): imports _kernel_api and _types, its own layer's.
"""

from ._kernel_api import KernelFunction
from ._types import DType


class BFloat16Type(DType):
    """The bfloat16 scalar type. On the host, bfloat16(x) rounds x with ml_dtypes' bfloat16 when installed."""

    __slots__ = ()

    @property
    def dtype(self):
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("NumPy has no bfloat16 dtype; install ml_dtypes for one") from None
        import numpy

        return numpy.dtype(ml_dtypes.bfloat16)

    def __call__(self, *args):
        if args and all(isinstance(a, DType) for a in args):
            return super().__call__(*args)
        if len(args) != 1:
            raise TypeError("bfloat16() takes one value")
        return self.dtype.type(args[0])


bfloat16 = BFloat16Type("bfloat16")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return KernelFunction("bf16", name)
