"""What the compiler needs from a Python function: its source text and the values of its free names.

Runs once per kernel, at its first compile. The text is the function's own (decorators included), exactly as
it stands in its file, with the file name and the line its first line has there: the compiler's lexer takes
the first line's indentation as the base level, so a kernel defined inside a function or class keeps its
indentation and every diagnostic's line, column and caret are the file's own.
Each free name (a global or closure variable the function reads) is described as a small tuple the binding
turns into the compiler's environment (python/src/kernel_source.h lists the forms). Names whose values the
kernel language cannot hold are described as unsupported with the reason; the compiler reports them only
if the kernel really uses them.

Functions without a source file get one made for them (numba-cuda compiles from bytecode, so its users' code
has these):
- exec'd code: the audit hook below, installed at gpujit's import, keeps the last sources that exec, eval
  and compile saw under a name that is not a file's (bounded in count and size). A function whose file
  cannot be read is looked for there, and a source is taken only if compiling it again gives a code object
  equal to the function's own (name, first line, bytecode, constants, names), so a wrong match cannot
  happen even though "<string>" names every exec'd string. The text is then put in linecache under that
  name, for tracebacks and inspect.
- lambdas: the compiler reads defs, so a lambda becomes `def lambda_L_C(args): return (body)` on the
  lambda's line, its body padded so that its columns stay the user's where the def's head fits before it.
Anything else (a function made from a code object whose source never passed through compile) gets the
error that says so and how to fix it.

Layer "compiler inputs" of the Python package (docs/architecture.md): below _dispatcher, which calls it.
"""

import builtins
import collections
import os
import sys
import types

from ._types import _numba_type_name
from .errors import DebugInfoWarning  # replaced by a subclass of numba's too when numba is bound (_numba_shim)

# Modules a kernel may name, by their canonical name for the compiler.
_MODULES = {"math": "math", "cmath": "cmath", "numpy": "numpy", "gpujit": "gpujit", "numba": "numba",
            "numba.cuda": "numba.cuda", "numba.types": "numba.types",
            "numba.core.types": "numba.types", "numba.cuda.types": "numba.types", "gpujit.random": "gpujit.random",
            "numba.cuda.random": "numba.cuda.random", "gpujit.libdevice": "gpujit.libdevice",
            "numba.cuda.libdevice": "numba.cuda.libdevice", "operator": "operator",
            "gpujit.fp16": "gpujit.fp16", "numba.cuda.fp16": "numba.cuda.fp16",
            "gpujit.bf16": "gpujit.bf16", "numba.cuda.bf16": "numba.cuda.bf16", "gpujit.fp8": "gpujit.fp8"}


def source_args(pyfunc, dispatcher_class, debug=False):
    """(text, filename, first_line, name, free-name descriptions) for the binding. `dispatcher_class` is gpujit's
    Dispatcher, which its caller passes down (describe_free_names). With `debug` (debug=True), a function whose
    source only the exec hook kept gets a DebugInfoWarning: its DWARF names a file no debugger can open."""
    code = pyfunc.__code__
    # The def's own name: __name__ may have been changed since (fn.__name__ = ...), the text keeps co_name.
    name = code.co_name
    lines, why = _file_lines(pyfunc)
    if lines is None:
        lines, why = _exec_lines(code), why or "could not get source code"
        if lines is not None and debug:
            import warnings

            warnings.warn(DebugInfoWarning(
                f"Could not find source for function: {pyfunc}. gpujit compiled the text that was exec'd, so "
                f"the lines in its debug info are right, but they name '{code.co_filename}', which is no file "
                "a debugger can open; define the function in a file to step through its source"), stacklevel=4)
    if lines is None:
        raise TypeError(
            f"cannot read the source of '{pyfunc.__name__}' ({code.co_filename}: {why}); gpujit compiles kernels "
            "from their source text: define the function in a file, or create it by exec'ing its text as a "
            "string after gpujit is imported (the last sources are kept), or register the text in linecache "
            "under the code's filename"
        ) from None
    if code.co_name == "<lambda>":
        text, first_line, name = _lambda_as_def(lines, code)
    else:
        first = max(code.co_firstlineno, 1)
        text = "".join(_block(lines[first - 1:]))
        first_line = first
    return text, code.co_filename, first_line, name, describe_free_names(pyfunc, dispatcher_class)


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _block(lines):
    """The def that starts `lines` (decorators first), as inspect.getblock gives it, without the tokenizer
    where the indentation says where it ends: getblock's first use compiles tokenize's regular expressions
    (about 2 ms, more than the rest of a disk-cache hit). The cut is checked by compiling it (CPython's own
    parser, tens of microseconds): a cut inside a string, a bracket or a continued line does not compile, and
    then getblock decides, as it does for tabs and multi-line headers."""
    base = _indent(lines[0])
    i = 0
    # Decorators, and the blank and comment lines Python allows among them and before the def.
    while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")
                              or (lines[i].lstrip().startswith("@") and _indent(lines[i]) == base)):
        i += 1
    if i >= len(lines) or _indent(lines[i]) != base or not lines[i].lstrip().startswith(("def ", "async def ")):
        return _getblock(lines)
    end = i + 1
    for j in range(i + 1, len(lines)):
        line = lines[j]
        body = line.strip()
        if not body or body.startswith("#"):
            continue  # getblock leaves trailing blank and comment lines out too
        if line[:1] == "\t" or line[_indent(line):][:1] == "\t":
            return _getblock(lines)
        if _indent(line) <= base:
            break
        end = j + 1
    block = lines[:end]
    text = "".join(block)
    try:
        compile("if 1:\n" + text if base else text, _CHECK_FILENAME, "exec", 0x400, dont_inherit=True)  # ast only
    except (SyntaxError, ValueError):
        return _getblock(lines)
    return block


def _getblock(lines):
    import inspect

    return inspect.getblock(lines)


# ---------------------------------------------------------------------------------------------------------
# Where a function's text comes from: its file, or a source exec'd since gpujit was imported.

# Our own compiles (checking a candidate source, parsing for lambdas) use this name, which the hook skips.
_CHECK_FILENAME = "<gpujit source check>"
_KEEP_SOURCES = 64  # exec'd sources kept, newest last
_MAX_SOURCE_SIZE = 128 * 1024  # larger ones are not kept: at most 8 MiB held
_exec_sources = collections.deque(maxlen=_KEEP_SOURCES)
_registered = {}  # filename -> the lines list we put in linecache, to tell ours from others'
_hook_installed = False


def _remember_exec_source(event, args):
    # Runs for every audit event in the process (opens, imports, sys._getframe...): one comparison for those.
    if event != "compile":
        return
    try:
        source, filename = args
        if (type(source) is bytes or type(source) is str) and type(filename) is str \
                and len(source) <= _MAX_SOURCE_SIZE and filename != _CHECK_FILENAME \
                and (filename[:1] == "<" or not os.path.isfile(filename)):
            _exec_sources.append((filename, source))
    except Exception:  # an audit hook that raises would abort the user's compile
        pass


def keep_exec_sources():
    """Installs the audit hook that keeps exec'd sources, once (at gpujit's import: it must precede the exec)."""
    global _hook_installed
    if not _hook_installed:
        sys.addaudithook(_remember_exec_source)
        _hook_installed = True


keep_exec_sources()


def _file_lines(pyfunc):
    """(every line of the file that defines pyfunc, None), or (None, why not)."""
    import linecache

    # A function of a file on disk: its lines straight from linecache, as inspect.findsource reads them.
    # findsource's first call costs about half a millisecond of a disk-cache hit (inspect.getmodule indexes
    # every loaded module, and a regular expression is compiled), so it is left the other cases.
    code = pyfunc.__code__
    filename = code.co_filename
    if filename[:1] != "<" and filename not in _registered and os.path.isfile(filename):
        linecache.checkcache(filename)
        lines = linecache.getlines(filename, getattr(pyfunc, "__globals__", None))
        if len(lines) >= code.co_firstlineno > 0:
            return lines, None
    import inspect

    try:
        lines, _ = inspect.findsource(pyfunc)
    except (OSError, TypeError) as e:
        return None, str(e)
    # Text we registered under a name many exec'd strings share ("<string>") may be another string's.
    ours = _registered.get(pyfunc.__code__.co_filename)
    if ours is not None and ours is lines and not _defines("".join(lines), pyfunc.__code__):
        return None, "the source registered under that name is another exec'd string's"
    return lines, None


def _exec_lines(code):
    """The lines of the exec'd source that defines `code`, registered in linecache, or None."""
    import linecache

    filename = code.co_filename
    needle = (code.co_name if code.co_name != "<lambda>" else "lambda").encode()
    for kept_name, source in reversed(list(_exec_sources)):
        if kept_name != filename:
            continue
        raw = source if type(source) is bytes else source.encode("utf-8", "surrogatepass")
        if needle not in raw or raw.count(b"\n") + 1 < code.co_firstlineno:
            continue
        text = _decoded(source)
        if text is None or not _defines(text, code):
            continue
        lines = text.splitlines(keepends=True)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        linecache.cache[filename] = (len(text), None, lines, filename)
        _registered[filename] = lines
        return lines
    return None


def _decoded(source):
    if type(source) is str:
        return source
    try:
        return source.decode("utf-8")  # exec and compile give str sources to the hook as UTF-8
    except UnicodeDecodeError:
        import io
        import tokenize

        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
            return source.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            return None


def _defines(text, code):
    """True when compiling `text` gives a code object equal to `code` (code equality covers the name, first
    line, bytecode, constants and names; not the file name)."""
    import __future__

    # The __future__ flags the code was compiled with (annotations...) give the same code again.
    future = 0
    for feature in __future__.all_feature_names:
        future |= getattr(__future__, feature).compiler_flag
    try:
        module = compile(text, _CHECK_FILENAME, "exec", code.co_flags & future, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    todo = [module]
    while todo:
        c = todo.pop()
        if c.co_name == code.co_name and c.co_firstlineno == code.co_firstlineno and c == code:
            return True
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return False


# ---------------------------------------------------------------------------------------------------------
# Lambdas


def _lambda_as_def(lines, code):
    """(text, first line, name) of a def equivalent to the lambda `code`, found in `lines` (its file)."""
    import ast

    text = "".join(lines)
    try:
        tree = ast.parse(text, _CHECK_FILENAME)
    except (SyntaxError, ValueError) as e:
        raise TypeError(f"cannot read the source of a lambda in {code.co_filename} ({e})") from None
    node = _find_lambda(tree, code)
    if node is None:
        raise TypeError(f"cannot find the lambda of {code.co_filename}:{code.co_firstlineno} in its source "
                        "(several lambdas there take the same arguments); define the function with def")
    body = node.body
    name = f"lambda_{node.lineno}_{node.col_offset + 1}"
    used = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars)
    while name in used:
        name += "_"
    head = f"def {name}({ast.unparse(node.args)}): return ("
    # One line of def and the body as the user wrote it (continuation lines included, inside the parentheses),
    # on the body's line, so diagnostics give the user's line. Columns are the user's too when the head fits
    # before the body's column (padded with spaces); otherwise they are those of this generated line, which
    # the diagnostic shows.
    pad = body.col_offset - len(head.encode()) if body.lineno == node.lineno else 0
    return head + " " * max(pad, 0) + ast.get_source_segment(text, body) + ")\n", body.lineno, name


def _find_lambda(tree, code):
    """The Lambda node that compiled to `code`: on its first line, taking its argument names, and (Python
    3.11+, where code has columns) whose body spans every position of the code."""
    import ast

    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    candidates = [
        n for n in ast.walk(tree)
        if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
        and tuple(a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs) == params
    ]
    positions = getattr(code, "co_positions", None)
    if len(candidates) > 1 and positions is not None:
        # RESUME and cache entries have empty spans; every other instruction belongs to the body.
        spans = [(l, c, el, ec) for l, el, c, ec in positions() if None not in (l, c, el, ec) and (l, c) != (el, ec)]
        candidates = [
            n for n in candidates
            if all((l, c) >= (n.body.lineno, n.body.col_offset)
                   and (el, ec) <= (n.body.end_lineno, n.body.end_col_offset) for l, c, el, ec in spans)
        ]
    return candidates[0] if len(candidates) == 1 else None


def _code_names(code, out):
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_names(const, out)
    return out


def describe_free_names(pyfunc, dispatcher_class):
    """[(name, description)] of every free name of `pyfunc`. A value of `dispatcher_class`, gpujit's Dispatcher,
    is a device function, and a numba CPU function becomes one: the caller passes the class in, since this module
    sits below _dispatcher, which calls it to compile (docs/architecture.md, "The Python package")."""
    code = pyfunc.__code__
    values = {}
    if pyfunc.__closure__:
        for var, cell in zip(code.co_freevars, pyfunc.__closure__):
            try:
                values[var] = cell.cell_contents
            except ValueError:  # an empty cell: the variable was never bound
                pass
    glob = pyfunc.__globals__
    for var in _code_names(code, set()):
        if var in values:
            continue
        if var in glob:
            values[var] = glob[var]
        # Builtins (range, len, min...) are the compiler's own; attribute names land in co_names too.
    out = []
    names = None
    for var, value in values.items():
        if var in glob and value is getattr(builtins, var, None):
            continue
        if isinstance(value, types.ModuleType) and value.__name__ not in _MODULES \
                and not value.__name__.startswith("gpujit."):
            # A module of the user's (mymod.add): a namespace whose attributes the code names are globals of
            # their own, "mymod.add", a name no Python variable can have.
            names = _code_names(code, set()) if names is None else names
            attrs = tuple(a for a in sorted(names) if hasattr(value, a))
            for a in attrs:
                out.append((f"{var}.{a}", describe(getattr(value, a), f"{var}.{a}", dispatcher_class)))
            out.append((var, ("namespace", attrs)))
            continue
        desc = describe(value, var, dispatcher_class)
        if desc[0] == "function":
            # ("function", dispatcher, signatures, inline, forceinline)
            desc = ("function", desc[1], desc[2] if len(desc) > 2 else ()) + inline_decision(desc[1], pyfunc)
        out.append((var, desc))
    return out


class InlineInfo(tuple):
    """What a jit(inline=cost_model) function is told about the caller and the callee: numba's _inline_info
    fields (func_ir, typemap, calltypes, signature; None here, gpujit has no numba IR) and the Python function."""

    __slots__ = ()
    _fields = ("func_ir", "typemap", "calltypes", "signature", "py_func")

    def __new__(cls, py_func):
        return tuple.__new__(cls, (None, None, None, None, py_func))

    func_ir = property(lambda self: self[0])
    typemap = property(lambda self: self[1])
    calltypes = property(lambda self: self[2])
    signature = property(lambda self: self[3])
    py_func = property(lambda self: self[4])


def inline_decision(callee, caller_pyfunc):
    """(inline, forceinline) for the calls `caller_pyfunc` makes to the device function `callee`: jit's
    inline='always'/True inlines, 'never'/False (the default) does not, and a cost model is asked once per
    calling function, as cost_model(None, InlineInfo(caller), InlineInfo(callee)): gpujit compiles from
    source, so there is no numba IR call expression to hand it."""
    options = callee.targetoptions
    mode = options.get("inline", "never")
    if callable(mode):
        inline = bool(mode(None, InlineInfo(caller_pyfunc), InlineInfo(callee.py_func)))
    else:
        inline = mode is True or mode == "always"
    return (inline, bool(options.get("forceinline", False)))


def describe(value, var=None, dispatcher_class=None):
    """One value (of the free name `var`, where known) as the binding's description tuple. `dispatcher_class` is
    gpujit's Dispatcher (describe_free_names); without it, for values that hold no function (an IntEnum's ints),
    neither a device function nor a numba CPU function is recognised."""
    if value is None:
        return ("none",)
    enum = sys.modules.get("enum")
    if enum is not None and isinstance(value, enum.Enum):  # before the ints: an IntEnum member is one
        return ("enum_member", value)  # typed by its class, held as its value (ir/enum_type.h)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        if -(1 << 63) <= value < (1 << 63):
            return ("int", value, None)
        if 0 <= value < (1 << 64):
            return ("int", value, "uint64")
        return ("unsupported", f"{value} does not fit in 64 bits")
    if isinstance(value, float):
        return ("float", value, None)
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, bytes):
        return ("bytes", value)
    if isinstance(value, tuple):
        elts = [describe(v, None, dispatcher_class) for v in value]
        if elts and all(e[0] == "array" for e in elts):
            return ("array_tuple", elts)
        constant = ("int", "float", "bool", "none", "str", "bytes", "tuple", "enum_member")
        bad = [e for e in elts if e[0] not in constant]
        if bad:
            return ("unsupported", "a tuple holding values other than numbers")
        return ("tuple", elts)
    if isinstance(value, types.ModuleType):
        canonical = _MODULES.get(value.__name__)
        if canonical is None and value.__name__.startswith("gpujit."):
            canonical = "gpujit"
        if canonical:
            return ("module", canonical)
        return ("unsupported", f"module '{value.__name__}' cannot be used in kernels")
    if dispatcher_class is not None:
        if isinstance(value, dispatcher_class):
            # A device function's explicit signatures: a call converts its arguments to the best of them.
            sigs = tuple(value._declared_signatures) if value.device else ()
            return ("function", value, sigs) if sigs else ("function", value)
        cpu = _numba_cpu_function(value, var, dispatcher_class)
        if cpu is not None:
            return cpu
        overloaded = _overloaded(value)
        if overloaded is not None:
            return overloaded
    linking = sys.modules.get(__package__ + "._linking")  # not imported: no declare_device was made
    if linking is not None and isinstance(value, linking.ExternFunction):  # a call of linked code (_linking.py)
        return value._description
    if type(value).__name__ == "FFI" and type(value).__module__.startswith("cffi"):
        return ("module", "cffi")  # ffi.from_buffer(ary) in a kernel: the array's data pointer
    if type(value).__name__ == "ExternFunction" and type(value).__module__.startswith("numba"):
        return ("unsupported", f"it is the external function '{value.name}{getattr(value, 'sig', '')}' declared "
                               "with numba's own cuda.declare_device; declare it with gpujit.declare_device (or run "
                               "the program under gpujit's numba shim, whose numba.cuda.declare_device is gpujit's)")
    name = getattr(value, "_gpujit_dtype", None)
    if name is not None:
        return ("dtype", name)
    kernel_name = getattr(value, "_gpujit_builtin", None)
    if kernel_name is not None:
        return ("member",) + kernel_name
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(value, np.generic):
            kind = value.dtype.kind
            if kind == "b":
                return ("bool", bool(value))
            if kind in "iu":
                return ("int", int(value), value.dtype.name)
            if kind == "f":
                return ("float", float(value), value.dtype.name)
            return ("unsupported", f"NumPy scalars of type {value.dtype.name} are not supported in kernels")
        if isinstance(value, np.ndarray):
            if value.dtype.names is not None:  # records: the compiler reads the fields from the dtype
                data = np.ascontiguousarray(value)
                return ("array", value.dtype, tuple(value.shape), data.tobytes())
            if value.dtype.kind not in "biufc" or value.dtype.byteorder == ">":
                return ("unsupported", f"arrays of dtype {value.dtype} cannot be captured")
            data = np.ascontiguousarray(value)
            return ("array", value.dtype.name, tuple(value.shape), data.tobytes())
        interface = getattr(value, "__cuda_array_interface__", None) if not isinstance(value, type) else None
        if isinstance(interface, dict):
            return _device_array(value, interface, np)
        if isinstance(value, type) and issubclass(value, np.generic) or isinstance(value, np.dtype):
            dt = np.dtype(value)
            if dt.names is not None:
                return ("dtype", dt)
            if dt.kind in "biufc":
                return ("dtype", dt.name)
        if isinstance(value, np.ufunc) or getattr(value, "__module__", None) == "numpy":
            if getattr(np, getattr(value, "__name__", ""), None) is value:
                return ("member", "numpy", value.__name__)
    module = getattr(value, "__module__", None)
    fname = getattr(value, "__name__", None)
    if module in ("math", "cmath") and fname and getattr(sys.modules[module], fname, None) is value:
        return ("member", module, fname)
    if fname in ("literal_unroll", "carray", "farray") and module and module.split(".")[0] == "numba":
        return ("member", "gpujit", fname)  # numba's loop over a tuple, arrays over pointers: gpujit's builtins
    if module == "numba.cuda.stubs":
        from ._vector_types import numba_stub_name

        vector = numba_stub_name(value)
        if vector:
            return ("member", "gpujit", vector)  # numba-cuda's vector type stub (cuda.float32x4): gpujit's
    operator = sys.modules.get("operator")  # operator.add's __module__ is '_operator'
    if operator is not None and fname and getattr(operator, fname, None) is value:
        return ("member", "operator", fname)
    numba_name = _numba_type_name(value)
    if numba_name:
        return ("dtype", numba_name)
    record_dtype = _numba_record_dtype(value)
    if record_dtype is not None:
        return ("dtype", record_dtype)
    if type(value).__module__ == "gpujit.ufunc":
        # numba's words first ("Untyped global name 'f'"), which its users match.
        untyped = f"Untyped global name '{var}': " if var else ""
        return ("unsupported", f"{untyped}its value is a {type(value).__name__} made by vectorize or guvectorize, "
                               "which launches kernels from the host; call its Python function as a device "
                               "function (gpu.jit(device=True)) instead")
    if isinstance(value, type) and issubclass(value, BaseException):
        from . import _exceptions

        return ("exception", _exceptions.reference(value))
    if enum is not None and isinstance(value, type) and issubclass(value, enum.Enum):
        return ("enum", value)  # a class of constants: its members (python/src/enums.cpp)
    if isinstance(value, type) and type(value).__name__ == "FastEnumMetaclass":
        return ("enum", _int_enum_of(value))  # cuda-python's enums: cuda.bindings.runtime.cudaRoundMode ...
    if isinstance(value, type) and issubclass(value, tuple) and isinstance(getattr(value, "_fields", None), tuple):
        # numba types a call of one (Point(1, 2)); gpujit takes its instances as arguments only (ir/named_tuple.h).
        return ("unsupported", f"it is the namedtuple class '{value.__name__}', which kernels cannot call: make "
                               "the instance on the host and pass it as an argument, or use a plain tuple")
    return ("unsupported", f"its value is a {type(value).__name__} object")


def _overloaded(value):
    """("overloaded", key) for a function with @overload implementations for the GPU (_overloads.py), an
    @intrinsic or a function numba's low-level API types (type_callable, lower_builtin: _lowlevel.py); None for
    anything else."""
    if not callable(value):
        return None
    from . import _lowlevel, _overloads  # here: the registries load with a first kernel, not at import

    key = _overloads.function_key(value) or _lowlevel.function_key(value)
    return ("overloaded", key) if key else None


_int_enums = {}


def _int_enum_of(cls):
    """An IntEnum with the members of one of cuda-python's enum classes (cuda.bindings' FastEnum, whose members are
    ints but not enum.Enum members), made once per class, so that kernels read `cudaRoundMode.cudaRoundZero`."""
    made = _int_enums.get(cls)
    if made is None:
        import enum

        members = [(name, int(member)) for name, member in cls.__members__.items()]
        made = _int_enums[cls] = enum.IntEnum(cls.__name__, members, module=cls.__module__,
                                              qualname=cls.__qualname__)
    return made


# numba CPU functions (numba.jit) called from kernels -> the device function made of each one's Python
# function, so that every kernel calling it shares one dispatcher (and its parsed source). Weak keys: the
# entry goes with the CPU function.
_cpu_functions = None


def _numba_cpu_function(value, name, dispatcher_class):
    """A numba CPU dispatcher (`@numba.jit`) as numba-cuda treats one called in a kernel: its Python function
    compiled as a device function (a `dispatcher_class`); one whose compilation is disabled (an explicit
    signature) is refused with numba's words. None for any other value."""
    cls = type(value)
    if cls.__name__ != "CPUDispatcher" or not cls.__module__.startswith("numba"):
        return None
    py_func = getattr(value, "py_func", None)
    if py_func is None:
        return None
    if not getattr(value, "_can_compile", True):
        shown = name or py_func.__name__
        return ("unsupported", f"Untyped global name '{shown}': using cpu function on device but its compilation "
                               "is disabled (numba.jit with an explicit signature compiles for the CPU only); "
                               "decorate the function with cuda.jit(device=True) to call it from kernels")
    global _cpu_functions
    if _cpu_functions is None:
        import weakref

        _cpu_functions = weakref.WeakKeyDictionary()
    try:
        found = _cpu_functions.get(value)
    except TypeError:  # not weakly referenceable: a dispatcher of its own for this kernel
        found = None
    if found is None:
        found = dispatcher_class(py_func, device=True)
        try:
            _cpu_functions[value] = found
        except TypeError:
            pass
    return ("function", found)


def _numba_record_dtype(value):
    """The NumPy structured dtype of a numba Record type (numpy_support.from_dtype of one), or None."""
    if type(value).__name__ != "Record" or not type(value).__module__.startswith("numba"):
        return None
    dtype = getattr(value, "dtype", None)
    return dtype if getattr(dtype, "names", None) else None


def _device_array(value, interface, np):
    """A captured device array (a DeviceArray, or anything exporting __cuda_array_interface__), as numba-cuda
    captures one: by its address, shape and strides at the first compile, kept alive by the kernel."""
    dtype = np.dtype(interface["typestr"])
    if dtype.kind == "V" and "descr" in interface:  # a structured dtype: its fields are in descr
        dtype = getattr(value, "dtype", None) or np.dtype(interface["descr"])
    if dtype.names is None and (dtype.kind not in "biufc" or dtype.byteorder == ">"):
        return ("unsupported", f"device arrays of dtype {dtype} cannot be captured")
    shape = tuple(int(s) for s in interface["shape"])
    strides = interface.get("strides")
    if strides is None:  # C-contiguous
        strides, step = [], dtype.itemsize
        for extent in reversed(shape):
            strides.insert(0, step)
            step *= extent
    address = int(interface["data"][0] or 0)
    return ("device_array", dtype if dtype.names else dtype.name, shape, tuple(int(s) for s in strides), address, value)
