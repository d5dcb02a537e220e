"""Type objects for signatures and dtypes: gpujit.float32, gpujit.float32[:], gpujit.void(...).

They mirror numba's so that numba-cuda code written against `import gpujit as cuda` (or `numba.float32`
style names re-exported here) works: a dtype names an element type (usable wherever NumPy takes a dtype,
e.g. device_array(n, gpu.float32)), indexing it makes an array type (float32[:], float32[:, ::1]) and
calling it with types makes a signature (void(float32[:], float32)). Inside kernels these names are compiled,
never called; called on the host, a dtype converts a number like NumPy's scalar types do.

Layer "base" of the Python package (docs/architecture.md): imports no module of the package.
"""


class DType:
    """A scalar element type."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    @property
    def _gpujit_dtype(self):
        return self.name

    @property
    def dtype(self):
        # numpy.dtype(obj) reads obj.dtype, so NumPy accepts gpujit dtypes directly.
        import numpy

        return numpy.dtype(self.name)

    def __getitem__(self, axes):
        return ArrayType.from_index(self, axes)

    def __call__(self, *args):
        if args and all(isinstance(a, (DType, ArrayType)) for a in args):
            return Signature(self, args)
        if len(args) != 1:
            raise TypeError(f"{self.name}() takes one value")
        import numpy

        return numpy.dtype(self.name).type(args[0])

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"gpujit.{self.name}"

    def __eq__(self, other):
        if isinstance(other, DType):
            return other.name == self.name
        # numba's scalar type of the same name is the same element type: gpujit reads it in signatures and
        # kernels, and numba-cuda code compares the dtypes it gets back with it (typemap["x"].dtype == int32).
        return _numba_type_name(other) == self.name

    def __hash__(self):
        # numba's scalar types hash as their name, so that equal types have equal hashes across the two.
        return hash(self.name)


def layout_of_steps(steps):
    """The layout of array axes written with these slice steps: "C" for [:, ::1], "F" for [::1, :], "A" for [:, :].
    The compiler's rule (ir/types.cpp): '::1' on one axis, the last or the first."""
    if any(s not in (None, 1) for s in steps):
        raise TypeError("array axes are written ':' or '::1'")
    marked = [i for i, s in enumerate(steps) if s == 1]
    if len(marked) > 1:
        raise TypeError("'::1' may appear on one axis only: the last for C order ('[:, ::1]') or the first for "
                        "Fortran order ('[::1, :]')")
    if not marked:
        return "A"
    if marked[0] == len(steps) - 1:
        return "C"
    if marked[0] == 0:
        return "F"
    raise TypeError("'::1' must be on the last axis (C order, '[:, :, ::1]') or the first (Fortran order, "
                    "'[::1, :, :]')")


def axes_text(ndim, layout):
    """The axes of an array type as the compiler prints them: ":, ::1" for a 2-D C array, "::1, :" for F."""
    axes = [":"] * ndim
    if ndim and layout == "C":
        axes[-1] = "::1"
    elif ndim > 1 and layout == "F":
        axes[0] = "::1"
    return ", ".join(axes)


class ArrayType:
    """An array type: dtype, number of dimensions and layout ('C', 'F' or 'A'; a 1-D 'F' array is 'C')."""

    __slots__ = ("dtype", "ndim", "layout")

    def __init__(self, dtype, ndim, layout):
        self.dtype, self.ndim, self.layout = dtype, ndim, "C" if layout == "F" and ndim < 2 else layout

    @classmethod
    def from_index(cls, dtype, axes):
        if not isinstance(axes, tuple):
            axes = (axes,)
        if not axes or not all(isinstance(a, slice) and a.start is None and a.stop is None for a in axes):
            raise TypeError(f"array types are written {dtype.name}[:], {dtype.name}[:, :], {dtype.name}[:, ::1] "
                            f"(C order) or {dtype.name}[::1, :] (Fortran order)")
        return cls(dtype, len(axes), layout_of_steps([a.step for a in axes]))

    def __call__(self, *args):
        return Signature(self, args)

    def __str__(self):
        return f"{self.dtype.name}[{axes_text(self.ndim, self.layout)}]"

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, ArrayType) and str(other) == str(self)

    def __hash__(self):
        return hash(str(self))


class VoidType:
    """The return type of kernels: void(float32[:], ...) is a kernel signature."""

    def __call__(self, *args):
        return Signature(self, args)

    def __str__(self):
        return "void"

    __repr__ = __str__


class Signature:
    """A function signature: return type and argument types."""

    __slots__ = ("return_type", "args")

    def __init__(self, return_type, args):
        self.return_type, self.args = return_type, tuple(args)

    def __str__(self):
        return f"{self.return_type}({', '.join(str(a) for a in self.args)})"

    __repr__ = __str__


void = VoidType()

SCALAR_NAMES = (
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)

# numba's aliases: boolean is bool_, the C names are the fixed-width ones on LP64 Linux.
ALIASES = {
    "boolean": "bool", "b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64", "f2": "float16", "f4": "float32",
    "f8": "float64", "c8": "complex64", "c16": "complex128", "intp": "int64", "uintp": "uint64",
    "int_": "int64", "float_": "float64", "double": "float64", "half": "float16", "byte": "int8",
    "short": "int16", "intc": "int32", "long_": "int64", "longlong": "int64", "ulonglong": "uint64",
    "complex_": "complex128",
}


def make_dtypes():
    """The dtype objects by every name gpujit exports."""
    out = {}
    for name in SCALAR_NAMES:
        out[name] = DType("bool" if name == "bool_" else name)
    for alias, target in ALIASES.items():
        out[alias] = out["bool_"] if target == "bool" else out[target]
    return out


def _numba_type_name(value):
    """The dtype name of a numba scalar type (numba.float32), or None."""
    mod = type(value).__module__ or ""
    if not mod.startswith("numba"):
        return None
    text = str(value)
    if text == "__nv_bfloat16":  # numba.cuda.types.bfloat16 (numba-cuda's bfloat16 scalar type)
        return "bfloat16"
    return text if text in _NUMBA_SCALARS else None


_NUMBA_SCALARS = {"bool", "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64", "complex64", "complex128"}
