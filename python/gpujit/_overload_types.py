"""gpujit's own type objects for typing functions, where numba is not installed (gpujit.extending.types).

A typing function of @gpujit.extending.overload receives the types of a call's arguments. With numba installed
those are numba's own type objects (numba.core.types), so that a library written against numba's API runs
unchanged; without numba they are these, which keep numba's names and the attributes typing functions read:

    isinstance(x, types.Float)     x.bitwidth     isinstance(a, types.Array)    a.dtype, a.ndim, a.layout
    isinstance(t, types.BaseTuple)  len(t), t[0], t.types    isinstance(n, types.IntegerLiteral)  n.literal_value
    isinstance(r, types.Record)    r.fields (name -> (type, offset)), r.dtype (the NumPy dtype)

Types compare equal by their text, as numba's do (`x == types.float32`).

Layer "base" of the Python package (docs/architecture.md): imports no module of the package.
"""


class Type:
    """A type; equal to another of the same class and name."""

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return type(other) is type(self) and other.name == self.name

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name


class NoneType(Type):
    pass


class Boolean(Type):
    pass


class Number(Type):
    def __init__(self, name, bitwidth):
        super().__init__(name)
        self.bitwidth = bitwidth


class Integer(Number):
    def __init__(self, name, bitwidth, signed):
        super().__init__(name, bitwidth)
        self.signed = signed


class Float(Number):
    pass


class Complex(Number):
    def __init__(self, name, bitwidth, underlying_float):
        super().__init__(name, bitwidth)
        self.underlying_float = underlying_float


class Literal(Type):
    """A value known at compile time (numba's literal types): `literal_value`; `literal_type` its plain type."""

    def __init__(self, value, literal_type):
        super().__init__(f"Literal[{type(value).__name__}]({value!r})")
        self.literal_value = value
        self.literal_type = literal_type


class IntegerLiteral(Literal, Integer):
    def __init__(self, value, literal_type):
        Literal.__init__(self, value, literal_type)
        self.bitwidth, self.signed = literal_type.bitwidth, literal_type.signed


class BooleanLiteral(Literal, Boolean):
    pass


class StringLiteral(Literal):
    pass


class UnicodeType(Type):
    pass


class Array(Type):
    def __init__(self, dtype, ndim, layout):
        super().__init__(f"array({dtype}, {ndim}d, {layout})")
        self.dtype, self.ndim, self.layout = dtype, ndim, layout


class Record(Type):
    def __init__(self, np_dtype, fields):
        super().__init__(f"Record({np_dtype})")
        self.dtype = np_dtype
        self.fields = fields  # name -> (type, offset)
        self.size = np_dtype.itemsize


class BaseTuple(Type):
    def __init__(self, elements):
        super().__init__(f"({', '.join(str(e) for e in elements)}{',' if len(elements) == 1 else ''})")
        self.types = tuple(elements)
        self.count = len(elements)

    def __len__(self):
        return self.count

    def __iter__(self):
        return iter(self.types)

    def __getitem__(self, i):
        return self.types[i]


class UniTuple(BaseTuple):
    def __init__(self, elements):
        super().__init__(elements)
        self.dtype = elements[0]


class Tuple(BaseTuple):
    pass


class Opaque(Type):
    """A type these classes do not model (a vector type, a pointer...): its text only."""


class Callable(Type):
    """A type whose values are called: numba's abstract Callable."""


class FunctionValue(Callable):
    """A function passed as an argument (an inner def, a device function), spelled 'function(name)': a
    compile-time argument with no data, on which the implementation is specialised."""


_numba_function_value = None


def function_value(name, numba_types=None):
    """The type a typing function sees for a function argument: FunctionValue, or with numba's types (the
    module numba.core.types) a numba Callable of the same name, so that `isinstance(f, types.Callable)` holds."""
    global _numba_function_value
    if numba_types is None:
        return FunctionValue(f"function({name})")
    if _numba_function_value is None:

        class NumbaFunctionValue(numba_types.Callable, numba_types.Dummy):
            # gpujit types the call of a function argument itself; numba's call typing never sees these.
            def get_call_type(self, context, args, kws):
                return None

            def get_call_signatures(self):
                return (), True

            def get_impl_key(self, sig):
                return self

        NumbaFunctionValue.__name__ = NumbaFunctionValue.__qualname__ = "FunctionValue"
        _numba_function_value = NumbaFunctionValue
    return _numba_function_value(f"function({name})")


boolean = Boolean("bool")
none = NoneType("none")
_SCALARS = {"bool": boolean}
for _bits in (8, 16, 32, 64):
    _SCALARS[f"int{_bits}"] = Integer(f"int{_bits}", _bits, True)
    _SCALARS[f"uint{_bits}"] = Integer(f"uint{_bits}", _bits, False)
for _bits in (16, 32, 64):
    _SCALARS[f"float{_bits}"] = Float(f"float{_bits}", _bits)
_SCALARS["complex64"] = Complex("complex64", 64, _SCALARS["float32"])
_SCALARS["complex128"] = Complex("complex128", 128, _SCALARS["float64"])
globals().update(_SCALARS)
bool_ = boolean
intp = _SCALARS["int64"]
uintp = _SCALARS["uint64"]
unicode_type = UnicodeType("unicode_type")


def scalar(name):
    """The scalar type of a dtype name, or an Opaque one (bfloat16, datetimes)."""
    return _SCALARS.get(name) or Opaque(name)


def literal(value):
    """The literal type of an int, bool or str; None for other values (numba has no float literals)."""
    if isinstance(value, bool):
        return BooleanLiteral(value, boolean)
    if isinstance(value, int):
        return IntegerLiteral(value, _SCALARS["int64"] if value < (1 << 63) else _SCALARS["uint64"])
    if isinstance(value, str):
        return StringLiteral(value, unicode_type)
    return None


def tuple_of(elements):
    elements = list(elements)
    if elements and all(e == elements[0] for e in elements):
        return UniTuple(elements)
    return Tuple(elements)


def unliteral(t):
    return t.literal_type if isinstance(t, Literal) else t
