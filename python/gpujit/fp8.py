"""numba-cuda's fp8 types and conversions for kernels (CUDA's cuda_fp8.h, as numba.cuda._internal.cuda_fp8 binds it).

    from gpujit.fp8 import fp8_e4m3, fp8_e5m2, fp8_e8m0, cvt_float_to_fp8, saturation_t, fp8_interpretation_t

- The types: `fp8_e4m3(x)` in a kernel converts a real number or a bfloat16 to fp8 (to nearest even, saturating
  to the largest finite value; `fp8_e8m0(x)` rounds up to a power of two), and `float32(f)`, `float16(f)`,
  `bfloat16(f)`, `int32(f)` ... convert back (exactly; to integers toward zero, saturating, NaN to 0). An fp8
  value has no operators: convert it first.
- The functions work on the storage: `cvt_float_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E5M2)`
  gives the uint8 byte, `cvt_float2_to_fp8x2(float32x2(a, b), ...)` two bytes in a uint16,
  `cvt_float_to_e8m0(x, saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)` an e8m0 byte, and
  `cvt_e8m0_to_bf16raw(byte)` a bfloat16_raw (a uint16x1: its bits in `.x`); `cvt_fp8_to_halfraw(byte,
  interpretation)`, gpujit's (cuda_fp8.h has it, numba binds no way from an e4m3/e5m2 byte to its value), the
  float16 bits of a byte. ir/fp8_functions.h lists them
  and docs/builtins.md documents each.

The results are cuda_fp8.hpp's bit for bit on every target; the CPU backend computes the header's software
algorithms, a GPU of compute capability 8.9 or newer uses PTX's cvt instructions where the header does.
gpujit.is_fp8_supported() says whether kernels can use them (the CPU backend always can).

Layer "base" of the Python package (docs/architecture.md): imports _kernel_api and _types, its own layer's.
"""

import enum

from ._kernel_api import KernelFunction
from ._types import DType


class saturation_t(enum.IntEnum):
    """cuda_fp8.h's __nv_saturation_t: what an out-of-range value becomes."""

    NOSAT = 0  # e5m2: Inf, e4m3: NaN, e8m0: NaN
    SATFINITE = 1  # the largest finite value of the sign


class fp8_interpretation_t(enum.IntEnum):
    """cuda_fp8.h's __nv_fp8_interpretation_t: which fp8 format a byte is."""

    E4M3 = 0
    E5M2 = 1


class cudaRoundMode(enum.IntEnum):
    """The rounding modes of the e8m0 conversions (cuda.bindings.runtime.cudaRoundMode has the same values;
    cuda_fp8.h takes cudaRoundZero and cudaRoundPosInf)."""

    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


class Fp8Type(DType):
    """An fp8 scalar type (fp8_e4m3, fp8_e5m2, fp8_e8m0): a kernel-side type, with no NumPy dtype of its own."""

    __slots__ = ()

    @property
    def __name__(self):  # numba's fp8 types are classes: code reads fp8_e4m3.__name__
        return self.name

    @property
    def dtype(self):
        raise TypeError(f"{self.name} exists only inside kernels: hold fp8 data as its uint8 storage "
                        "(cvt_float_to_fp8 makes it) in NumPy arrays")

    def __call__(self, *args):
        if args and all(isinstance(a, DType) for a in args):
            return super().__call__(*args)
        raise TypeError(f"{self.name}() converts only inside a kernel or device function; on the host, hold fp8 "
                        "data as uint8 bytes")


fp8_e4m3 = Fp8Type("fp8_e4m3")
fp8_e5m2 = Fp8Type("fp8_e5m2")
fp8_e8m0 = Fp8Type("fp8_e8m0")

_FUNCTIONS = ("cvt_float_to_fp8", "cvt_double_to_fp8", "cvt_bfloat16raw_to_fp8", "cvt_float2_to_fp8x2",
              "cvt_double2_to_fp8x2", "cvt_float_to_e8m0", "cvt_double_to_e8m0", "cvt_bfloat16raw_to_e8m0",
              "cvt_float2_to_e8m0x2", "cvt_double2_to_e8m0x2", "cvt_e8m0_to_bf16raw", "cvt_fp8_to_halfraw")
for _name in _FUNCTIONS:
    globals()[_name] = KernelFunction("fp8", _name)
del _name

__all__ = ["fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "saturation_t", "fp8_interpretation_t", "cudaRoundMode",
           *_FUNCTIONS]
