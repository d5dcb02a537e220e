"""CUDA vector types as names of the gpujit namespace: gpujit.float32x4, gpujit.int2, gpujit.double3 ...

numba-cuda's vector types (numba.cuda.float32x4 ...): `<base>x<lanes>` for ten base types and 1 to 4 lanes,
and CUDA's C names for the same types (float4, int2, uchar3, longlong1 ...), each alias the very object of
its type, as in numba-cuda. In a kernel the name constructs a vector (the compiler's table,
ir/vector_types.cpp, types and lowers it; docs/builtins.md describes it); on the host it can be named and
passed around but not called, as numba-cuda's stubs cannot be instantiated.
"""

# numba-cuda's base types and CUDA's C names for them (NumPy's C types on 64-bit Linux), in its order.
BASES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
C_NAMES = (("char", "int8"), ("short", "int16"), ("int", "int32"), ("long", "int64"), ("longlong", "int64"),
           ("uchar", "uint8"), ("ushort", "uint16"), ("uint", "uint32"), ("ulong", "uint64"),
           ("ulonglong", "uint64"), ("float", "float32"), ("double", "float64"))
LANE_NAMES = ("x", "y", "z", "w")

from ._types import DType  # noqa: E402


class VectorType:
    """A CUDA vector type: called in a kernel with numbers and vectors of its base type whose lanes add up to
    its own (float32x4(1.0, 2.0, 3.0, 4.0), float32x4(float32x2(a, b), c, d)), it makes a vector whose lanes
    read as .x, .y, .z, .w."""

    __slots__ = ("__name__", "__qualname__", "base_type", "num_elements", "attr_names", "aliases",
                 "_gpujit_builtin")

    def __init__(self, base, lanes):
        name = f"{base}x{lanes}"
        self.__name__ = self.__qualname__ = name
        self.base_type = DType(base)  # gpujit.float32
        self.num_elements = lanes
        self.attr_names = LANE_NAMES[:lanes]
        self.aliases = []  # CUDA's names of this type, as numba-cuda's stubs list them
        self._gpujit_builtin = ("gpujit", name)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"gpujit.{self.__name__}() makes a vector inside a kernel or device function only; "
                           "the host has no vector values")

    def __repr__(self):
        return f"<gpujit vector type {self.__name__}>"


def _make():
    types = {}
    for base in BASES:
        for lanes in range(1, 5):
            t = VectorType(base, lanes)
            types[t.__name__] = t
    names = dict(types)
    for c_name, base in C_NAMES:
        for lanes in range(1, 5):
            t = types[f"{base}x{lanes}"]
            t.aliases.append(f"{c_name}{lanes}")
            names[f"{c_name}{lanes}"] = t
    return types, names


vector_types, names = _make()  # by numba's name; every name, aliases included


def numba_stub_name(value):
    """The name of numba-cuda's own stub for a vector type (numba.cuda.float32x4 with numba-cuda installed), so
    that a kernel naming it gets gpujit's; None for any other value."""
    if not isinstance(value, type) or getattr(value, "__module__", None) != "numba.cuda.stubs":
        return None
    name = getattr(value, "__name__", None)
    return name if name in vector_types else None
