"""The extension API's registry and the resolver the compiler asks (python/src/overloads.h, ir/overloads.h).

Implementations come from two places: gpujit's own decorators (gpujit.extending: overload, overload_method,
overload_attribute, register_jitable) and, where numba is imported, numba's and numba-cuda's registries
(numba.extending.overload and numba.cuda.extending.overload register templates that keep the typing function
as `_overload_func`). Only the targets a GPU compile sees count: 'cuda' and 'generic' ('gpu' too); a 'cpu'
overload is numba's CPU target's alone.

A free name of a kernel whose value has implementations is described as ("overloaded", key) (_source.py). At
each call the compiler's semantic analysis asks resolve(kind, key, types, constants): the argument types are
converted to numba's type objects (numba installed) or gpujit's (_overload_types), and each typing function
in turn is called with them, as numba calls them: the plain types first, then, for arguments known at compile
time, their literal types (or literals first with prefer_literal=True). The first implementation returned is
compiled as a device function; each (typing function, types) is asked once, as numba caches it.

Layer "compiler inputs" of the Python package (docs/architecture.md). The implementations become gpujit
Dispatchers, a class of the layer above: _dispatcher hands it over at import (set_dispatcher_class).
"""

import sys
import threading
import weakref

from . import _overload_types, _signature

_GPU_TARGETS = ("cuda", "generic", "gpu")

_lock = threading.RLock()
_functions = {}  # id(func) -> (func, [Overload]): gpujit's own @overload
_members = {"method": {}, "attribute": {}}  # name -> [Overload]: gpujit's own @overload_method/_attribute
_keyed = {}  # the key a kernel's global carries -> the function it names (kept alive here)
_numba_templates = {}  # id(numba template) -> Overload made of it
_dispatcher_class = None
_wrapped = weakref.WeakKeyDictionary()  # a Python implementation -> its device function


def set_dispatcher_class(cls):
    global _dispatcher_class
    _dispatcher_class = cls


# This module is imported with a first kernel that needs it, not at `import gpujit`: _dispatcher, imported by
# then, handed nothing over, so its class is taken here (an attribute read, not an import of the layer above).
_above = sys.modules.get(__package__ + "._dispatcher")
if _above is not None and hasattr(_above, "Dispatcher"):
    set_dispatcher_class(_above.Dispatcher)
del _above


class Overload:
    """One typing function: called with argument types, it returns an implementation or None."""

    __slots__ = ("typing_func", "target", "prefer_literal", "typ", "strict", "cache")

    def __init__(self, typing_func, target="generic", prefer_literal=False, typ=None, strict=True):
        self.typing_func = typing_func
        self.target = target
        self.prefer_literal = prefer_literal
        self.typ = typ  # members: the type class (or type) whose values have the member
        self.strict = strict  # the implementation must take the typing function's parameters
        self.cache = {}  # types' text -> implementation (a device function) or None

    def accepts(self, receiver, numba_types):
        typ = self.typ
        if isinstance(typ, type) and typ.__module__ == _overload_types.__name__ and numba_types is not None:
            typ = getattr(numba_types, typ.__name__, typ)  # gpujit's class for numba's types: numba's by name
        if isinstance(typ, type):
            return isinstance(receiver, typ)
        return receiver == typ


_key_resolvers = {}  # a key's prefix -> the resolver of keys made by a module above (_lowlevel)


def add_key_resolver(prefix, resolver):
    """Calls of functions whose key is `prefix:...` are resolved by `resolver` (same arguments as resolve)."""
    _key_resolvers[prefix] = resolver


# A module above (_lowlevel) that answers attribute queries on the types it made: .declares(name) and
# .resolve(key, types, constants, keywords), the latter NotImplemented for a type not its own; and the numba
# types of the tuples standing for them, by the description of their last element (a tag).
_member_bridge = None
_tagged_tuples = {}


def set_member_bridge(bridge):
    global _member_bridge
    _member_bridge = bridge


def check_target(target):
    if not isinstance(target, str):
        raise TypeError(f"target must be a string ('cuda', 'generic' or 'cpu'), not {type(target).__name__}")
    return target


def register_function(func, overload):
    with _lock:
        entry = _functions.setdefault(id(func), (func, []))
        entry[1].append(overload)


def register_member(kind, name, overload):
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"the {kind}'s name must be an identifier, not {name!r}")
    with _lock:
        _members[kind].setdefault(name, []).append(overload)


# ---------------------------------------------------------------------------------------------------------
# numba's registries, read where numba is imported (never imported for them)


def _numba_registries():
    out = []
    for name in ("numba.core.typing.templates", "numba.cuda.typing.templates"):
        module = sys.modules.get(name)
        registry = getattr(module, "builtin_registry", None)
        if registry is not None:
            out.append(registry)
    return out


def _numba_s_own(typing_func):
    """Whether an overload is numba's own library's (its implementation of operator.add for strings, of a
    cooperative group's sync, of NumPy functions): gpujit has its own builtins for what numba implements so, and
    numba's implementations lean on numba's internals. Those of numba's test suites are users' overloads."""
    # A typing function numba makes at run time has no __module__; the module it was made in is its globals'.
    module = getattr(typing_func, "__module__", None) or getattr(typing_func, "__globals__", {}).get("__name__") or ""
    if not (module == "numba" or module.startswith(("numba.", "numba_cuda."))):
        return False
    if getattr(typing_func, "__qualname__", "").startswith("register_jitable."):
        return False  # numba's register_jitable wraps a user's function in an overload made in numba's module
    return ".tests." not in module + "."


def _from_template(template):
    """The Overload of a numba overload template, made once; None for a template of another kind or target, and
    for numba's own library's overloads (_numba_s_own)."""
    typing_func = getattr(template, "_overload_func", None)
    if typing_func is None or _numba_s_own(typing_func):
        return None
    target = (getattr(template, "metadata", None) or {}).get("target", "generic")
    if target not in _GPU_TARGETS:
        return None
    found = _numba_templates.get(id(template))
    if found is None or found[0] is not template:
        overload = Overload(typing_func, target, bool(getattr(template, "prefer_literal", False)),
                            getattr(template, "key", None), bool(getattr(template, "_strict", False)))
        found = _numba_templates[id(template)] = (template, overload)
    return found[1]


def _numba_function_overloads(func):
    out = []
    for registry in _numba_registries():
        for value, fnty in list(registry.globals):
            if value is not func:
                continue
            for template in getattr(fnty, "templates", ()):
                overload = _from_template(template)
                if overload is not None and overload not in out:
                    out.append(overload)
    return out


def _numba_member_overloads(kind, name):
    out = []
    for registry in _numba_registries():
        for template in list(registry.attributes):
            if getattr(template, "_attr", None) != name:
                continue
            if bool(getattr(template, "is_method", False)) != (kind == "method"):
                continue
            overload = _from_template(template)
            if overload is not None:
                out.append(overload)
    return out


def _ordered(overloads):
    """The GPU's overloads, each typing function once (numba-cuda registers a 'generic' one in numba's registry
    too), those for target 'cuda' first: a target's own implementation wins over a generic one, as in numba."""
    out, seen = [], set()
    for o in overloads:
        if o.target in _GPU_TARGETS and id(o.typing_func) not in seen:
            seen.add(id(o.typing_func))
            out.append(o)
    return sorted(out, key=lambda o: o.target == "generic")


def _function_overloads(func):
    own = _functions.get(id(func))
    return _ordered((own[1] if own and own[0] is func else []) + _numba_function_overloads(func))


def _member_overloads(kind, name):
    return _ordered(list(_members[kind].get(name, ())) + _numba_member_overloads(kind, name))


# ---------------------------------------------------------------------------------------------------------
# What _source and the compiler ask


def function_key(value):
    """The key of ("overloaded", key) when `value` has implementations for the GPU, else None."""
    try:
        if not _function_overloads(value):
            return None
    except TypeError:  # unhashable values and the like have none
        return None
    key = f"overload:{id(value)}"
    _keyed[key] = value
    return key


def declares(kind, name):
    """Whether some implementation declares a method or attribute (`kind`) of this name, for any type."""
    if kind == "attribute" and _member_bridge is not None and _member_bridge.declares(name):
        return True
    return bool(_members[kind].get(name)) or bool(_numba_member_overloads(kind, name))


def resolve(kind, key, types, constants, keywords=()):
    """The device function implementing the call, None when every typing function declines, or the text of
    the error a typing function raised (the compiler reports it at the call). The last len(keywords) arguments
    are passed by those names."""
    if kind == "function" and key.split(":")[0] in _key_resolvers:  # _lowlevel's: @intrinsic, lower_builtin
        return _key_resolvers[key.split(":")[0]](key, types, constants, tuple(keywords))
    if kind == "attribute" and _member_bridge is not None:
        try:
            answer = _member_bridge.resolve(key, types, constants, tuple(keywords))
        except Exception as e:  # noqa: BLE001  the library's typing or lowering: any error is the compile's
            return f"{type(e).__name__}: {e}"
        if answer is not NotImplemented:
            return answer
    try:
        with _lock:
            return _resolve(kind, key, types, constants, tuple(keywords))
    except Exception as e:  # noqa: BLE001  the user's typing function: any error is the compile's
        return f"{type(e).__name__}: {e}"


def _resolve(kind, key, types, constants, keywords):
    conv = _Converter()
    args = [conv.type(d) for d in types]
    literals = [conv.literal(c[0]) if c else None for c in constants]
    if kind == "function":
        candidates = _function_overloads(_keyed[key])
    else:
        candidates = [o for o in _member_overloads(kind, key) if args and o.accepts(args[0], conv.numba)]
    for overload in candidates:
        impl = _try(overload, args, literals, keywords)
        if impl is not None:
            return impl
    return None


def _try(overload, args, literals, keywords):
    variants = [args]
    with_literals = [lit if lit is not None else a for a, lit in zip(args, literals)]
    if any(lit is not None for lit in literals):
        variants = [with_literals, args] if overload.prefer_literal else [args, with_literals]
    failure = None
    for v in variants:
        key = tuple(str(t) for t in v) + keywords
        if key not in overload.cache:
            n = len(v) - len(keywords)
            try:
                overload.cache[key] = _implementation(overload.typing_func(*v[:n], **dict(zip(keywords, v[n:]))),
                                                      overload)
            except Exception as e:  # noqa: BLE001  numba tries the other variant, and reports this if none fits
                failure = failure or e
                continue
        if overload.cache[key] is not None:
            return overload.cache[key]
    if failure is not None:
        raise failure
    return None


def check_signatures(typing_func, impl):
    """numba's strict overloads: the implementation takes the typing function's parameters, by the same names,
    with the same keyword defaults; it may gather trailing ones with *args; neither may take **kwargs."""
    import inspect

    def split(func):
        sig = inspect.signature(func)
        plain, keywords, star = [], [], None
        for p in sig.parameters.values():
            if p.kind == p.VAR_KEYWORD:
                raise TypeError(f"The use of VAR_KEYWORD (e.g. **kwargs) is unsupported. (offending argument name "
                                f"is '{p}')")
            if p.default is p.empty:
                plain.append(p)
                if p.kind == p.VAR_POSITIONAL:
                    star = p
            else:
                keywords.append(p)
        return sig, plain, keywords, star

    typing_sig, t_plain, t_keywords, t_star = split(typing_func)
    impl_sig, i_plain, i_keywords, i_star = split(impl)
    both = f"Typing signature:         {typing_sig}\nImplementation signature: {impl_sig}"
    prefix = "Typing and implementation arguments differ in "
    if t_star is not None and i_star is None:
        raise TypeError(f"VAR_POSITIONAL (e.g. *args) argument kind (offending argument name is '{t_star}') found in "
                        f"the typing function signature, but is not in the implementing function signature.\n{both}")
    if t_star is None and i_star is not None:
        i_plain = i_plain[:i_plain.index(i_star)]
        if i_plain:
            if i_plain[-1] not in t_plain:
                raise TypeError(f"{prefix}argument names.\n{both}\nFirst difference: '{i_plain[-1]}'")
            t_plain = t_plain[:t_plain.index(i_plain[-1]) + 1]
    if t_plain != i_plain:
        raise TypeError(f"{prefix}argument names.\n{both}\nDifference: {set(t_plain) ^ set(i_plain)}")
    if [p.name for p in t_keywords] != [p.name for p in i_keywords]:
        raise TypeError(f"{prefix}keyword argument names.\n{both}\nDifference: {set(t_keywords) ^ set(i_keywords)}")
    if [p.default for p in t_keywords] != [p.default for p in i_keywords]:
        raise TypeError(f"{prefix}keyword argument default values.\n{both}\n"
                        f"Difference: {set(t_keywords) ^ set(i_keywords)}")


def _implementation(result, overload):
    """What a typing function returned, as a device function: None, a function, (signature, function), a gpujit
    device function or a numba CPU function; checked against the typing function's parameters if strict."""
    if result is None:
        return None
    if isinstance(result, tuple) and len(result) == 2:
        result = result[1]
    original = result
    dispatcher = _dispatcher_class is not None and isinstance(result, _dispatcher_class)
    py_func = getattr(result, "py_func", None)  # a device function or numba CPU function (njit): its Python
    if py_func is not None and callable(py_func):
        result = py_func
    if not callable(result) or not hasattr(result, "__code__"):
        raise TypeError(f"a typing function must return a Python function implementing the call, or None; "
                        f"it returned {type(result).__name__}")
    if overload.strict:
        check_signatures(overload.typing_func, result)
    if dispatcher:
        return original
    found = _wrapped.get(result)
    if found is None:
        found = _wrapped[result] = _dispatcher_class(result, device=True)
    return found


# ---------------------------------------------------------------------------------------------------------
# Type descriptions (python/src/overloads.h) -> numba's types or gpujit's


def _real_numba_types():
    numba = sys.modules.get("numba")
    if numba is not None and getattr(numba, "__gpujit_shim__", False):
        return None  # the standalone drop-in mode's numba is gpujit's own
    try:
        from numba.core import types
    except ImportError:
        return None
    return types


class _Converter:
    def __init__(self):
        self.numba = _real_numba_types()

    def scalar(self, name):
        if self.numba is None:
            return _overload_types.scalar(name)
        t = getattr(self.numba, "boolean" if name == "bool" else name, None)
        if t is None and name == "bfloat16":
            cuda_types = sys.modules.get("numba.cuda.types")
            t = getattr(cuda_types, "bfloat16", None)
        return t if t is not None else self.numba.Opaque(name)

    def record(self, np_dtype):
        if self.numba is not None:
            from numba.np import numpy_support

            return numpy_support.from_dtype(np_dtype)
        fields = {}
        for name, (dt, offset, *_) in np_dtype.fields.items():
            if dt.names is not None:
                ft = self.record(dt)
            elif dt.subdtype is not None:
                ft = _overload_types.Opaque(str(dt))
            else:
                ft = _overload_types.scalar(dt.name)
            fields[name] = (ft, offset)
        return _overload_types.Record(np_dtype, fields)

    def type(self, d):
        tag = d[0]
        if tag == "scalar":
            return self.scalar(d[1])
        if tag == "array":
            dtype = self.scalar(d[1]) if isinstance(d[1], str) else self.record(d[1])
            if self.numba is not None:
                return self.numba.Array(dtype, d[2], d[3])
            return _overload_types.Array(dtype, d[2], d[3])
        if tag == "record":
            return self.record(d[1])
        if tag == "tuple":
            if d[1] and d[1][-1][0] == "other" and d[1][-1][1] in _tagged_tuples:  # a library's struct (_lowlevel)
                return _tagged_tuples[d[1][-1][1]]
            elements = [self.type(e) for e in d[1]]
            if self.numba is not None:
                return self.numba.BaseTuple.from_types(elements)
            return _overload_types.tuple_of(elements)
        if tag == "none":
            return self.numba.none if self.numba is not None else _overload_types.none
        if tag == "function":  # a function passed as an argument (ir/overloads.h OverloadQuery::functions)
            return _overload_types.function_value(d[1], self.numba)
        library = _signature.opaque_type(d[1])  # a library's own Opaque or Dummy type (_signature.opaque_text)
        if library is not None:
            return library
        if self.numba is not None and d[1].endswith("*"):  # a pointer: numba's voidptr, or CPointer(float32)
            return self.numba.voidptr if d[1] == "void*" else self.numba.CPointer(self.scalar(d[1][:-1]))
        return self.numba.Opaque(d[1]) if self.numba is not None else _overload_types.Opaque(d[1])

    def literal(self, value):
        if isinstance(value, float) or value is None or isinstance(value, tuple):
            return None  # numba makes no literal types of these
        if self.numba is None:
            return _overload_types.literal(value)
        try:
            return self.numba.literal(value)
        except Exception:  # noqa: BLE001  numba's LiteralTypingError for a value it has no literal of
            return None
