"""Signatures as text for the compiler: "void(float32[:], float32)".

Accepts what numba-cuda code passes to jit() or inspect_ptx(): a string, a gpujit Signature
(void(float32[:])), a tuple of types (gpujit's, numba's, NumPy dtypes or strings), or a numba Signature.
It also keys what the dispatcher lists per specialization (ArgTypes, SignatureDict), so that numba's
spellings of a signature and the core's text find the same entry.

Layer "compiler inputs" of the Python package (docs/architecture.md): imports _types; below _dispatcher.
"""

import sys

from ._types import ALIASES, ArrayType, DType, axes_text, void


def type_text(t):
    """The compiler's spelling of one type."""
    if isinstance(t, str):
        return t
    # numba array types: Array(dtype, ndim, layout)
    if hasattr(t, "ndim") and hasattr(t, "layout") and hasattr(t, "dtype") and not hasattr(t, "names"):
        return f"{type_text(t.dtype)}[{axes_text(t.ndim, t.layout)}]"
    name = getattr(t, "_gpujit_dtype", None)
    if name is not None:
        return name
    if isinstance(t, type):
        return {float: "float64", int: "int64", bool: "bool", complex: "complex128"}.get(t) or t.__name__
    if type(t).__module__ == "numpy" or type(t).__name__ == "dtype":
        return str(getattr(t, "name", t))
    if _library_type(t):
        return opaque_text(t)
    return str(t)


# A library's opaque types (ir/opaque_type.h): the spelling each numba type object has in signatures, and back.
_opaque_spellings = {}  # numba type -> "opaque(name)"
_opaque_types = {}  # "opaque(name)" -> numba type


def opaque_text(t):
    """The compiler's spelling of a library's Opaque or Dummy type `t`: "opaque(my_dummy)", with "#2" after
    the name for the second distinct type object of that name (numba-cuda's tests make a class per test, all
    of one name). The compiler takes such an argument at compile time only; opaque_type() below finds
    the type again for the typing functions of overload_attribute and overload_method."""
    text = _opaque_spellings.get(t)
    if text is None:
        name = "".join(c for c in str(t) if c not in "()") or type(t).__name__
        text, n = f"opaque({name})", 1
        while text in _opaque_types:
            n += 1
            text = f"opaque({name}#{n})"
        _opaque_spellings[t] = text
        _opaque_types[text] = t
    return text


def opaque_type(text):
    """The numba type whose compiler spelling is `text` (opaque_text), or None."""
    return _opaque_types.get(text)


def _library_type(t):
    """Whether `t` is an instance of a numba type class that a library defines (an Opaque or Dummy subclass
    outside numba's own type modules), as numba-cuda's tests make with make_dummy_type."""
    cls = type(t)
    if cls.__module__.startswith(("numba.core.types", "numba.cuda.types")):
        return False
    return any(base.__name__ in ("Opaque", "Dummy") and base.__module__.startswith(("numba.core.types",
                                                                                    "numba.cuda.types"))
               for base in cls.__mro__[1:])


def signature_text(sig):
    """The text of a signature object or of a tuple of argument types."""
    if isinstance(sig, str):
        # numba reads "(int32[::1], int32)" as argument types with no return type, which kernels do not have.
        return "void" + sig.strip() if sig.strip().startswith("(") else sig
    if isinstance(sig, (tuple, list)):
        return "void(" + ", ".join(type_text(t) for t in sig) + ")"
    args = getattr(sig, "args", None)
    if args is not None:
        ret = getattr(sig, "return_type", None)
        ret_text = "void" if ret is None or str(ret) == "none" else type_text(ret)
        return f"{ret_text}(" + ", ".join(type_text(t) for t in args) + ")"
    raise TypeError(f"not a signature: {sig!r}; write it as 'void(float32[:], float32)' or a tuple of types")


# ---------------------------------------------------------------------------------------------------------
# Argument types as numba's dispatcher keys them: kernel.overloads, inspect_ptx() and get_regs_per_thread().

def arg_types_text(sig):
    """The argument list of any signature spelling, as the core writes it: "(float32[::1], int64)"."""
    if isinstance(sig, ArgTypes):
        return sig.text
    if isinstance(sig, str):
        text = sig.strip()
        start = text.find("(")
        if start < 0:
            raise TypeError(f"not a signature: {sig!r}")
        return "(" + ", ".join(_canonical(t) for t in _split_args(text[start + 1: text.rindex(")")])) + ")"
    args = getattr(sig, "args", None)
    if args is None and isinstance(sig, (tuple, list)):
        args = sig
    if args is None:
        raise TypeError(f"not a signature: {sig!r}; write it as 'void(float32[:], float32)' or a tuple of types")
    return "(" + ", ".join(_canonical(type_text(t)) for t in args) + ")"


def _split_args(text):
    """The top-level comma-separated items of an argument list (tuple and array types nest)."""
    items, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [s.strip() for s in items if s.strip()]


_DATETIME_WORDS = ("datetime64", "timedelta64", "M8", "m8")


def split_element(text):
    """(element type, array axes) of one type's text: ("float32", ":, ::1") for "float32[:, ::1]", ("int64",
    None) for a scalar. A datetime's unit in brackets belongs to its element: ("datetime64[D]", ":") for
    "datetime64[D][:]", and numba's generic unit "datetime64[]" stays as it is."""
    text = text.strip()
    name, bracket, rest = text.partition("[")
    name = name.strip()
    if bracket and name in _DATETIME_WORDS and ":" not in rest.partition("]")[0]:
        unit, _, after = rest.partition("]")
        name = f"{name}[{unit.strip()}]"
        after = after.strip()
        if not after.startswith("["):
            return (name, None) if not after else (text, None)
        rest = after[1:]
    elif not bracket:
        return name, None
    return name, rest.rstrip("]")


def _canonical(text):
    """One type's text with numba's aliases resolved and array axes spaced as the core prints them."""
    name, axes = split_element(text)
    name = ALIASES.get(name, name)
    if axes is None:
        return name
    return f"{name}[{', '.join(a.strip() for a in axes.split(','))}]"


def _is_element_name(name):
    """Whether `name` names a scalar type (float32, datetime64[D]) rather than a tuple or record spelling."""
    base = name.partition("[")[0]
    return base.isidentifier() and base.islower() and (base == name or base in _DATETIME_WORDS)


def _type_object(text):
    """gpujit's type object for one canonical type text; tuple types, which have none, stay text."""
    name, axes = split_element(text)
    if not _is_element_name(name):
        return text
    if axes is None:
        return DType(name)
    parts = axes.split(", ")
    layout = _layout_of_axes(parts)
    return text if layout is None else ArrayType(DType(name), len(parts), layout)


def _layout_of_axes(parts):
    """"C", "F" or "A" for an array's axes as the core prints them (":", "::1"); None for other text."""
    if any(p not in (":", "::1") for p in parts) or parts.count("::1") > 1:
        return None
    if parts[-1] == "::1":
        return "C"
    return "F" if parts[0] == "::1" else None if "::1" in parts else "A"


def type_for_user(text, numba_types):
    """The object a user compares a type's text with (compile_ptx's return type, a typemap's values): numba's
    type object when `numba_types` (numba-cuda code, which compares with numba's types), else gpujit's; the
    text itself when neither has one."""
    if text == "void":
        if not numba_types:
            return void
        text = "none"
    if not numba_types:
        return _type_object(_canonical(text))
    from numba.core import types as nt

    try:  # "float32", "float32[::1]", "UniTuple(int64, 2)" are numba expressions as they stand
        return eval(text, {"__builtins__": {}}, dict(vars(nt), bool=nt.boolean))
    except Exception:
        return _numba_datetime(text, nt) or text


def _numba_datetime(text, nt):
    """numba's NPDatetime / NPTimedelta (or an array of one) for "datetime64[D]", "timedelta64[ns][::1]";
    None for other text."""
    name, axes = split_element(text)
    base, _, unit = name.partition("[")
    cls = {"datetime64": getattr(nt, "NPDatetime", None), "timedelta64": getattr(nt, "NPTimedelta", None)}.get(base)
    if cls is None:
        return None
    element = cls(unit.rstrip("]"))
    if axes is None:
        return element
    parts = axes.split(", ")
    return nt.Array(element, len(parts), _layout_of_axes(parts) or "A")


def _is_numba_type(t):
    return type(t).__module__.split(".")[0] == "numba"


def _return_type(text, sig):
    """The return type object for the core's type text: the signature's own when it names one, else numba's
    type when the signature is written in numba's types (or is a string and numba is loaded), else gpujit's."""
    ret = getattr(sig, "return_type", None)
    if ret is not None and _declared_return(sig):
        return ret
    args = sig if isinstance(sig, (tuple, list)) else getattr(sig, "args", ())
    numba_types = any(_is_numba_type(a) for a in args) or (isinstance(sig, str) and "numba" in sys.modules)
    return type_for_user(text, numba_types)


def _declared_return(sig):
    """Whether `sig` names a return type (int32(int32, int32), "int32(int32, int32)"), not just arguments."""
    if isinstance(sig, (tuple, list)):
        return False
    if isinstance(sig, str):
        return not sig.strip().startswith("(")
    ret = getattr(sig, "return_type", None)
    return ret is not None and str(ret) != "none"


class ArgTypes(tuple):
    """A key of kernel.overloads: the argument types of one specialization, as gpujit type objects.

    numba users index these dicts with tuples of numba's types, and gpujit's own callers with the text the
    core prints ("(float32[::1], int64)"); a key equals every such spelling of the same types so that both
    keep working. Its hash is its text's.
    """

    def __new__(cls, sig):
        text = arg_types_text(sig)
        self = super().__new__(cls, (_type_object(t) for t in _split_args(text[1:-1])))
        self.text = text
        return self

    def __eq__(self, other):
        if isinstance(other, (str, tuple, list)) or hasattr(other, "args"):
            try:
                return self.text == arg_types_text(other)
            except (TypeError, ValueError):
                return False
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return self.text


class SignatureDict(dict):
    """A dict keyed by ArgTypes that finds its entries by any spelling of a signature (numba's types too)."""

    @classmethod
    def from_texts(cls, entries):
        """From {argument types' text: value}, as inspect_* without a signature gives them."""
        return cls((ArgTypes(text), value) for text, value in entries.items())

    def _key(self, key):
        if isinstance(key, ArgTypes):
            return key
        try:
            return ArgTypes(key)
        except (TypeError, ValueError):
            return key

    def __getitem__(self, key):
        return super().__getitem__(self._key(key))

    def __contains__(self, key):
        return super().__contains__(self._key(key))

    def get(self, key, default=None):
        return super().get(self._key(key), default)


def type_of_value(value):
    """The text of the type a launch gives `value` (numba's typeof for an argument), or of a type given as is."""
    if isinstance(value, str) or type(value).__module__.startswith(("numba", "gpujit._types")):
        return _canonical(type_text(value))
    if hasattr(value, "_gpujit_dtype") or hasattr(value, "layout"):
        return _canonical(type_text(value))
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, type) and issubclass(value, (np.number, np.bool_)):
        return f"class({np.dtype(value).name})"  # a dtype as an argument: numba's NumberClass
    dtype = getattr(value, "dtype", None)
    ndim = getattr(value, "ndim", None)
    if dtype is not None and ndim == 0 and not hasattr(value, "__cuda_array_interface__"):
        return str(dtype)  # a NumPy scalar
    if dtype is not None and ndim:
        flags = getattr(value, "flags", None)
        c = flags["C_CONTIGUOUS"] if flags is not None else value.is_c_contiguous()
        f = flags["F_CONTIGUOUS"] if flags is not None else value.is_f_contiguous()
        # numba's typeof (and the launch path's, runtime/device_array.h): C, else F (records stay A), else A.
        layout = "C" if c else "F" if f and ndim > 1 and not getattr(dtype, "fields", None) else "A"
        return f"{dtype}[{axes_text(ndim, layout)}]"
    raise TypeError(f"cannot tell the kernel argument type of {type(value).__name__} value {value!r}")
