"""Exceptions raised in kernels: the classes a kernel names, and the exception a launch raises for a `raise`.

A kernel's `raise E` or `raise E("message")` (E an exception class, the arguments constants) ends the thread
that runs it and makes the launch raise E on the host, as numba-cuda does for kernels compiled with
debug=True. The compiler turns each raise into a description (ir/sema_raise.cpp):

    <class reference>\\n<function>\\n<file>\\n<line>\\n<arguments as a Python tuple literal>

and the runtime gives it back with the thread's place ("tid=[x, y, z] ctaid=[x, y, z]"). from_kernel()
builds the exception: numba-cuda's message, "In function 'f', file F, line N, tid=[...] ctaid=[...]: msg".

A class reference is "builtins.NAME" for Python's own classes, "module:qualname" for a class reachable by
import, and "#K:qualname" for any other (a class defined inside a function), kept in this process' table.

Layer "base" of the Python package (docs/architecture.md): imports no module of the package.
"""

import ast
import builtins
import importlib
import os
import sys

_local_classes = []  # "#K" references: index K


def reference(cls):
    """The reference the compiler embeds for the exception class `cls`."""
    module = getattr(cls, "__module__", None)
    qualname = getattr(cls, "__qualname__", cls.__name__)
    if module == "builtins" and getattr(builtins, qualname, None) is cls:
        return f"builtins.{qualname}"
    if module and "<locals>" not in qualname and _resolve_path(module, qualname) is cls:
        return f"{module}:{qualname}"
    for k, known in enumerate(_local_classes):
        if known is cls:
            return f"#{k}:{qualname}"
    _local_classes.append(cls)
    return f"#{len(_local_classes) - 1}:{qualname}"


def _resolve_path(module, qualname):
    mod = sys.modules.get(module)
    if mod is None:
        try:
            mod = importlib.import_module(module)
        except Exception:
            return None
    value = mod
    for part in qualname.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _resolve(ref):
    if ref.startswith("builtins."):
        return getattr(builtins, ref[len("builtins."):], RuntimeError)
    if ref.startswith("#"):
        return _local_classes[int(ref[1:].split(":", 1)[0])]
    module, qualname = ref.split(":", 1)
    cls = _resolve_path(module, qualname)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise RuntimeError(f"the exception class {qualname} of module {module} a kernel raised cannot be found")
    return cls


def from_kernel(text):
    """The exception a kernel's raise describes (`text`: the description, a newline and the thread's place)."""
    ref, function, filename, line, rest = text.split("\n", 4)
    args_text, _, place = rest.rpartition("\n")
    cls = _resolve(ref)
    args = ast.literal_eval(args_text)
    prefix = f"In function {function!r}, file {os.path.abspath(filename)}, line {line}, {place}"
    if args:
        args = (f"{prefix}: {args[0]}",) + tuple(args[1:])
    else:
        args = (prefix,)
    return cls(*args)
