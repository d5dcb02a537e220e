"""numba's low-level extension API in kernels: @intrinsic, and type_callable with lower_builtin.

    @intrinsic                                   # numba.cuda.extending.intrinsic, or gpujit.extending.intrinsic
    def add_one(typingctx, x):
        def codegen(context, builder, sig, args):    # an llvmlite IRBuilder callback
            return builder.add(args[0], context.get_constant(sig.return_type, 1))
        return x(x), codegen

Such a function is typed by a Python callback and implemented by another that emits LLVM IR through llvmlite
with numba's lowering context. gpujit runs both at the call's compile, with numba-cuda's real typing and target
contexts (numba is there whenever such code is: the library imports it):

1. The call's argument types (numba's type objects, _overloads._Converter) go to the typing callback: the
   intrinsic's definition, or numba's typing context for a function that type_callable types. A None declines
   the types (the compile error says that no implementation fits).
2. A one-function llvmlite module is built: its parameters and its return are those of the signature the typing
   gave, as numba's data model types them; the lowering callback (the intrinsic's codegen, or the lower_builtin
   implementation numba's target context finds for the signature) fills its body.
3. The module's text, the signature's text and a fresh symbol make an external function whose code is LLVM IR
   (a link input of kind "llvm"): the compiler parses it into the kernel's module, links it and inlines it
   (codegen/extern_lowering.cpp). The call itself is a small generated device function that calls it, so the
   arguments are converted to the signature's types as a declare_device call converts them.

The module follows numba's calling convention for CUDA functions (`i32 status = f(result*, args...)`, the ABI
of declare_device's numba functions), so that what numba compiles inside the callback (context.compile_internal:
a Python function compiled by numba-cuda's own pipeline) is called as numba calls it; those functions' modules
are linked too, and their libdevice calls (`__nv_sqrt`) become the backend's own (libm on the CPU).

What is bridged: scalar types (booleans, integers, floats) as arguments and results, void results, and a
library's struct types (register_model with a StructModel of scalars: _Struct below), which kernels hold as a
tuple of the members with a tag; their attributes that numba's typing resolves (make_attribute_wrapper, an
AttributeTemplate with lower_attr) are lowered here too (_MemberBridge, which _overloads asks). A lowering
that links files of its own (add_linking_file) is refused with an error that says so, as are other types.
Each (function, argument types) is lowered once per process.

Layer "compiler inputs" of the Python package (docs/architecture.md): imports _overloads, _linking and errors.
"""

import enum
import itertools
import sys
import threading

from . import _overloads
from ._linking import ExternFunction
from .errors import CompileError

PREFIX = "lowlevel:"  # the keys of ("overloaded", key), which _overloads.resolve hands to resolve() here

# numba's scalar types by their names, as gpujit's signatures spell them.
_SCALARS = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
            "float64"}

_lock = threading.RLock()
_keyed = {}  # key -> the intrinsic or function it names (kept alive here)
_lowered = {}  # (key, argument types' text) -> the device function of the call, or an error's text
_symbols = itertools.count()
_contexts = None  # (typing context, target context) of numba-cuda, made at the first lowering


class LoweringFailed(Exception):
    """A lowering callback's own exception (numba's LoweringError, say), kept so that the compile can raise it."""


def _is_intrinsic(value):
    cls = type(value)
    return cls.__name__ == "_Intrinsic" and cls.__module__.split(".")[0] in ("numba", "gpujit")


def _typed_by_numba_template(value):
    """Whether numba-cuda's typing registry types calls of `value` by a template that is not an @overload's
    (type_callable's): those have a lowering in numba-cuda's target registry (lower_builtin)."""
    module = sys.modules.get("numba.cuda.typing.templates")
    registry = getattr(module, "builtin_registry", None)
    if registry is None:
        return False
    for v, fnty in list(registry.globals):
        if v is value and any(getattr(t, "_overload_func", None) is None for t in getattr(fnty, "templates", ())):
            return True
    return False


def function_key(value):
    """The key of ("overloaded", key) for an @intrinsic or a function typed by numba's low-level API, else None."""
    try:
        if not _is_intrinsic(value):
            if _overloads._numba_s_own(value) or not _typed_by_numba_template(value):
                return None
    except TypeError:
        return None
    key = f"{PREFIX}{id(value)}"
    with _lock:
        _keyed[key] = value
    return key


def numba_cuda_missing():
    """Why the bridge cannot run here (numba-cuda is not importable), or None."""
    try:
        import llvmlite.ir  # noqa: F401
        import numba.cuda.target  # noqa: F401
    except ImportError as e:
        return f"it needs numba-cuda installed, whose lowering context runs the callback ({e})"
    if _overloads._real_numba_types() is None:
        return "it needs numba-cuda, and numba here is gpujit's stand-in (the standalone drop-in mode)"
    return None


def resolve(key, types, constants, keywords=()):
    """The device function implementing a call of the low-level function `key` with arguments of `types`
    (python/src/overloads.h's descriptions), None when its typing declines them, or an error's text."""
    with _lock:
        value = _keyed[key]
        name = getattr(value, "__name__", None) or getattr(value, "_name", "function")
        if keywords:
            return f"'{name}' is typed by numba's low-level API, whose calls take no keyword arguments in gpujit"
        missing = numba_cuda_missing()
        if missing:
            return f"'{name}' is {'an @intrinsic' if _is_intrinsic(value) else 'typed by type_callable'}: {missing}"
        conv = _overloads._Converter()
        args = tuple(conv.type(d) for d in types)
        # As numba types a call: the plain types first, then those known at compile time as literals.
        literals = tuple(conv.literal(c[0]) if c else None for c in constants)
        variants = [args]
        if any(lit is not None for lit in literals):
            variants.append(tuple(lit if lit is not None else a for a, lit in zip(args, literals)))
        failure = None
        for v in variants:
            cache_key = (key, v)  # the types, not their names: two library types may share a name
            if cache_key not in _lowered:
                try:
                    _lowered[cache_key] = _lower_call(value, name, v)
                except LoweringFailed as e:
                    _remember_failure(e.__cause__)
                    return f"{type(e.__cause__).__name__}: {e.__cause__}"
                except Exception as e:  # noqa: BLE001  the user's callbacks: any error is the compile's
                    failure = failure or f"{type(e).__name__}: {e}"
                    continue
            if _lowered[cache_key] is not None:
                return _lowered[cache_key]
        return failure


# ---------------------------------------------------------------------------------------------------------
# Typing and lowering, with numba-cuda's contexts


def _numba_contexts():
    global _contexts
    if _contexts is None:
        from numba.cuda.target import CUDATargetContext, CUDATypingContext

        typing = CUDATypingContext()
        _contexts = (typing, CUDATargetContext(typing))
    typing, target = _contexts
    typing.refresh()  # registrations made since (a library imported later)
    target.refresh()
    return _contexts


def _lower_call(value, name, args):
    from numba.cuda import utils

    with utils.numba_target_override():
        typing, target = _numba_contexts()
        if _is_intrinsic(value):
            result = value._defn(typing, *args)
            if result is None:
                return None
            sig, codegen = result

            def emit(builder, values):
                return codegen(target, builder, sig, values)
        else:
            fnty = typing.resolve_value_type(value)
            sig = typing.resolve_function_type(fnty, args, {})
            if sig is None:
                return None
            impl = target.get_function(fnty, sig)

            def emit(builder, values):
                return impl(builder, values)
        return _lowered_function(target, name, sig, emit)


def _lowered_function(target, name, sig, emit):
    """The device function of a call typed `sig` whose body `emit` lowers: one external function, or one per
    member of a struct result (each lowering the call and taking its member), whose results make the struct."""
    params = _parameters(name, sig, target)
    ret = sig.return_type
    struct = _struct_of(ret, target)
    calls = []
    for member in range(len(struct.members)) if struct else (None,):
        symbol = f"gpujit_lowlevel_{next(_symbols)}_{''.join(c if c.isalnum() else '_' for c in name)}"
        rtype = struct.members[member][1] if struct else ret
        what = f"member '{struct.members[member][0]}' of the return type" if struct else "the return type"
        signature = f"{_scalar_name(rtype, name, what)}({', '.join(p[1] for p in params)})"
        texts = _module_texts(target, symbol, sig, emit, member)
        calls.append((symbol, LoweredFunction(symbol, signature, texts)))
    scope = {symbol: fn for symbol, fn in calls}
    arguments = ", ".join(p[0] for p in params)
    if struct:
        scope["_Tag"] = struct.tag
        body = f"return ({', '.join(f'{symbol}({arguments})' for symbol, _ in calls)}, _Tag.tag)"
    elif ret in _void_types():
        body = f"{calls[0][0]}({arguments})"
    else:
        body = f"return {calls[0][0]}({arguments})"
    return _device_function(name, calls[0][0], body, scope, len(sig.args))


def _void_types():
    from numba.core import types

    return (types.none, types.void)


def _parameters(name, sig, target):
    """(expression, scalar type name) of each parameter of the external functions: a struct argument's
    members one by one, as numba's calling convention passes them (its data model's argument types)."""
    out = []
    for i, a in enumerate(sig.args):
        struct = _struct_of(a, target)
        if struct:
            out += [(f"a{i}[{k}]", struct.scalars[k]) for k in range(len(struct.members))]
            continue
        text = _scalar_name(a, name, f"parameter {i + 1}")
        if text == "void":
            raise TypeError(f"'{name}': a parameter of type none is not supported by gpujit's bridge of numba's "
                            "lowering")
        out.append((f"a{i}", text))
    return out


def _scalar_name(t, name, what):
    from numba.core import types

    if t in (types.none, types.void):
        return "void"
    t = getattr(t, "literal_type", t)  # a literal argument (Literal[int](3)) passes as its type's value
    text = str(t)
    if t == types.voidptr:
        return "void*"
    if isinstance(t, types.CPointer) and str(t.dtype) in _SCALARS:
        return f"{t.dtype}*"  # an address, as numba's data model passes a pointer
    if text not in _SCALARS:
        raise TypeError(f"'{name}': {what} is {t}; gpujit's bridge of numba's lowering (@intrinsic, lower_builtin) "
                        "takes booleans, integers, floats and a library's struct types of them (register_model with a "
                        "StructModel), and pointers to numbers and void*, only")
    return text


def _module_texts(target, symbol, sig, emit, member=None):
    """The LLVM IR texts of a module defining `symbol` with numba's calling convention for CUDA (`i32 status =
    symbol(result*, args...)`, the ABI of declare_device's numba functions), its body emitted by `emit`, and of
    the modules of the functions numba compiled for it (context.compile_internal). With `member`, the result
    is that member of the struct that `emit` gives (its data model's value: a literal struct)."""
    from llvmlite import ir
    from numba.core import types
    from numba.cuda.core import targetconfig
    from numba.cuda.core.callconv import CUDACallConv
    from numba.cuda.flags import CUDAFlags

    call_conv = CUDACallConv(target)
    module = ir.Module(name=symbol)
    ret = sig.return_type if member is None else _struct_of(sig.return_type, target).members[member][1]
    fn = ir.Function(module, call_conv.get_function_type(ret, sig.args), symbol)
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    values = call_conv.decode_arguments(builder, sig.args, fn)
    library = target.codegen().create_library(f"gpujit bridge {symbol}")
    # numba's lowering of a call finds the calling convention on the function being lowered (compile_internal
    # calls what it compiles with it): this one's.
    saved = target.fndesc
    target.fndesc = _FunctionDescriptor(call_conv)
    try:
        # numba's compiles inside the callback take their flags from the compile being run: a CUDA compile's.
        with targetconfig.ConfigStack().enter(CUDAFlags()), target.push_code_library(library):
            result = emit(builder, values)
    except Exception as e:
        raise LoweringFailed() from e
    finally:
        target.fndesc = saved
    if sig.return_type in (types.none, types.void):
        call_conv.return_native_none(builder)
    elif result is None:
        from numba.cuda.core.errors import LoweringError  # numba-cuda's, which numba.cuda.errors exports

        raise LoweringFailed() from LoweringError("non-void function returns None from implementation")
    else:
        if member is not None:
            result = builder.extract_value(result, member)
        call_conv.return_value(builder, target.get_return_value(builder, ret, result))
    texts = [str(module)]
    todo, seen = [library], {id(library)}
    while todo:  # breadth first: a module comes after the one that calls into it (codegen/extern_lowering.cpp)
        lib = todo.pop(0)
        if getattr(lib, "_linking_files", None):
            files = ", ".join(map(str, lib._linking_files))
            raise TypeError(f"'{symbol}': the lowering links files of its own ({files}), which gpujit's bridge of "
                            "numba's lowering does not take; pass them to jit(link=...)")
        for sub in list(getattr(lib, "_linking_libraries", ())):
            if id(sub) not in seen:
                seen.add(id(sub))
                todo.append(sub)
                texts.append(sub.get_llvm_str())
    return texts


class _FunctionDescriptor:
    """What numba's lowering helpers read of the function being lowered: its calling convention."""

    def __init__(self, call_conv):
        self.call_conv = call_conv


class LoweredFunction(ExternFunction):
    """The external function a lowering made: its code is LLVM IR, which the compile links into the kernel."""

    def __init__(self, symbol, signature_text, ir_texts):
        self.name = symbol
        self.sig = signature_text
        self.link = ()
        self.abi = "numba"
        self.use_cooperative = False
        links = [("llvm", f"{symbol}#{i}", text, ()) for i, text in enumerate(ir_texts)]
        self._description = ("extern", symbol, signature_text, "numba", links, False)


def _device_function(name, symbol, body, scope, nargs):
    """A device function taking the call's arguments and returning `body`'s result (names from `scope`)."""
    params = ", ".join(f"a{i}" for i in range(nargs))
    fname = f"lowlevel_{symbol}"
    text = f"def {fname}({params}):\n    {body}\n"
    exec(compile(text, f"<gpujit: numba lowering of {name}>", "exec"), scope)  # _source keeps exec'd text
    return _overloads._dispatcher_class(scope[fname], device=True)


# ---------------------------------------------------------------------------------------------------------
# A library's struct types (register_model with a StructModel): in kernels, a tuple of the members' values
# with a tag last, a member of an Enum class made for the type, so that the tuple's type is the type's own


class _Struct:
    def __init__(self, numba_type, members):
        self.numba_type = numba_type
        self.members = members  # [(name, numba type)], the StructModel's
        self.scalars = [_scalar_name(t, str(numba_type), f"member '{m}'") for m, t in members]
        clean = "".join(c if c.isalnum() else "_" for c in str(numba_type))
        self.tag = enum.Enum(f"gpujit_struct_{next(_symbols)}_{clean}", {"tag": 0})
        self.tag_text = f"EnumMember(<enum '{self.tag.__name__}'>, int64)"  # as ir/enum_type.cpp spells it
        self.attributes = {}  # attribute name -> its type, or None where numba's typing has none


_structs = {}  # numba type -> its _Struct, or None when it is not a library's struct type


def _struct_of(t, target):
    """The _Struct of numba type `t` when it is a library's own type (not a number, tuple, record or array,
    which kernels hold as their own) whose data model is a StructModel, else None. A struct member that is
    not a scalar is refused."""
    with _lock:
        try:
            if t in _structs:
                return _structs[t]
        except TypeError:
            return None
        struct = None
        from numba.core import types

        if not isinstance(t, (types.Number, types.Boolean, types.BaseTuple, types.Record, types.ArrayCompatible)):
            try:
                model = target.data_model_manager.lookup(t)
            except Exception:  # noqa: BLE001  numba's KeyError: a type with no data model
                model = None
            if model is not None and any(c.__name__ == "StructModel" for c in type(model).__mro__):
                struct = _Struct(t, [(m, model.get_member_fe_type(m)) for m in model._fields])
                _overloads._tagged_tuples[struct.tag_text] = t
        _structs[t] = struct
        return struct


class _MemberBridge:
    """Attributes of a library's struct types (make_attribute_wrapper, an AttributeTemplate with lower_attr)
    as numba's typing and target contexts resolve and lower them (_overloads asks)."""

    def declares(self, name):
        if not _structs:
            return False
        with _lock:
            return any(self._attribute(s, name) is not None for s in list(_structs.values()) if s is not None)

    @staticmethod
    def _attribute(struct, name):
        if name not in struct.attributes:
            from numba.cuda import utils

            with utils.numba_target_override():
                typing, _ = _numba_contexts()
                try:
                    attrty = typing.resolve_getattr(struct.numba_type, name)
                except Exception:  # noqa: BLE001  a typing template that raises: the attribute is not there
                    attrty = None
                from numba.core import types

                # A method (overload_method, a template's resolve_ returning a bound function) is not bridged:
                # _overloads compiles overload_method's implementations as it does for other types.
                struct.attributes[name] = None if isinstance(attrty, types.Callable) else attrty
        return struct.attributes[name]

    def resolve(self, key, types, constants, keywords):
        if not types or not _structs:
            return NotImplemented
        d = types[0]  # a struct is a tuple whose last element is its tag (python/src/overloads.h's descriptions)
        if d[0] != "tuple" or not d[1] or d[1][-1][0] != "other" or d[1][-1][1] not in _overloads._tagged_tuples:
            return NotImplemented
        with _lock:
            t = _overloads._tagged_tuples[d[1][-1][1]]
            struct = _structs[t]
            attrty = self._attribute(struct, key)
            if attrty is None:  # overload_attribute's implementations, say (numba's typing of the struct lacks
                return NotImplemented  # those, registered for other targets' contexts)
            cache_key = (f"attribute:{key}", (t,))  # numba types are equal by class and key
            if cache_key not in _lowered:
                try:
                    _lowered[cache_key] = self._lower(struct, key, attrty)
                except LoweringFailed as e:
                    _remember_failure(e.__cause__)
                    return f"{type(e.__cause__).__name__}: {e.__cause__}"
                except Exception as e:  # noqa: BLE001  the library's callbacks: any error is the compile's
                    _lowered[cache_key] = f"{type(e).__name__}: {e}"
            return _lowered[cache_key]

    @staticmethod
    def _lower(struct, key, attrty):
        from numba.cuda.typing import signature
        from numba.cuda import utils

        with utils.numba_target_override():
            _, target = _numba_contexts()
            impl = target.get_getattr(struct.numba_type, key)
            if impl is None:
                raise TypeError(f"'{struct.numba_type}' has no lowering of attribute '{key}' (lower_getattr)")

            def emit(builder, values):
                return impl(target, builder, struct.numba_type, values[0], key)

            return _lowered_function(target, f"{struct.numba_type}.{key}", signature(attrty, struct.numba_type),
                                     emit)


# ---------------------------------------------------------------------------------------------------------
# A callback's own exception, raised again by the compile that it failed (numba's LoweringError, say)

_failures = threading.local()


def _remember_failure(exc):
    _failures.last = exc


def take_failure(message):
    """The lowering callback's exception whose text the compile error `message` carries, once; else None."""
    exc = getattr(_failures, "last", None)
    if exc is None or f"{type(exc).__name__}: {exc}" not in message:
        return None
    _failures.last = None
    return exc


_overloads.add_key_resolver(PREFIX[:-1], resolve)
CompileError._callback_failure = take_failure
_overloads.set_member_bridge(_MemberBridge())
