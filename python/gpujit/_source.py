"""What the compiler needs from a Python function: its source text and the values of its free names.

Runs once per kernel, at its first compile. The text is the function's own (decorators included), exactly as
it stands in its file, with the file name and the line its first line has there: the compiler's lexer takes
the first line's indentation as the base level, so a kernel defined inside a function or class keeps its
indentation and every diagnostic's line, column and caret are the file's own.
Each free name (a global or closure variable the function reads) is described as a small tuple the binding
turns into the compiler's environment (python/src/kernel_source.h lists the forms). Names whose values the
kernel language cannot hold are described as unsupported with the reason; the compiler reports them only
if the kernel really uses them.
"""

import builtins
import sys
import types

# Modules a kernel may name, by their canonical name for the compiler.
_MODULES = {"math": "math", "cmath": "cmath", "numpy": "numpy", "gpujit": "gpujit", "numba": "numba",
            "numba.cuda": "numba.cuda", "numba.types": "numba.types", "gpujit.random": "gpujit.random",
            "numba.cuda.random": "numba.cuda.random", "gpujit.libdevice": "gpujit.libdevice",
            "numba.cuda.libdevice": "numba.cuda.libdevice", "operator": "operator",
            "gpujit.fp16": "gpujit.fp16", "numba.cuda.fp16": "numba.cuda.fp16"}


def source_args(pyfunc):
    """(text, filename, first_line, name, free-name descriptions) for the binding."""
    import inspect

    name = pyfunc.__name__
    try:
        lines, first_line = inspect.getsourcelines(pyfunc)
    except (OSError, TypeError) as e:
        raise TypeError(
            f"cannot read the source of '{name}' ({e}); gpujit compiles kernels from their source text, so "
            "define them in a file (for exec'd code, register the text in linecache under the code's filename)"
        ) from None
    text = "".join(lines)
    return text, pyfunc.__code__.co_filename, max(first_line, 1), name, describe_free_names(pyfunc)


def _code_names(code, out):
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_names(const, out)
    return out


def describe_free_names(pyfunc):
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
    for var, value in values.items():
        if var in glob and value is getattr(builtins, var, None):
            continue
        out.append((var, describe(value)))
    return out


def describe(value):
    """One value as the binding's description tuple."""
    if value is None:
        return ("none",)
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
    if isinstance(value, tuple):
        elts = [describe(v) for v in value]
        bad = [e for e in elts if e[0] not in ("int", "float", "bool", "none", "str", "tuple")]
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
    from . import _dispatcher

    if isinstance(value, _dispatcher.Dispatcher):
        return ("function", value)
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
            if value.dtype.kind not in "biufc" or value.dtype.byteorder == ">":
                return ("unsupported", f"arrays of dtype {value.dtype} cannot be captured")
            data = np.ascontiguousarray(value)
            return ("array", value.dtype.name, tuple(value.shape), data.tobytes())
        if isinstance(value, type) and issubclass(value, np.generic) or isinstance(value, np.dtype):
            dt = np.dtype(value)
            if dt.kind in "biufc":
                return ("dtype", dt.name)
        if isinstance(value, np.ufunc) or getattr(value, "__module__", None) == "numpy":
            if getattr(np, getattr(value, "__name__", ""), None) is value:
                return ("member", "numpy", value.__name__)
    module = getattr(value, "__module__", None)
    fname = getattr(value, "__name__", None)
    if module in ("math", "cmath") and fname and getattr(sys.modules[module], fname, None) is value:
        return ("member", module, fname)
    operator = sys.modules.get("operator")  # operator.add's __module__ is '_operator'
    if operator is not None and fname and getattr(operator, fname, None) is value:
        return ("member", "operator", fname)
    numba_name = _numba_type_name(value)
    if numba_name:
        return ("dtype", numba_name)
    return ("unsupported", f"its value is a {type(value).__name__} object")


def _numba_type_name(value):
    """The dtype name of a numba scalar type (numba.float32), or None."""
    mod = type(value).__module__ or ""
    if not mod.startswith("numba"):
        return None
    text = str(value)
    return text if text in _NUMBA_SCALARS else None


_NUMBA_SCALARS = {"bool", "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64", "complex64", "complex128"}
