"""numba's argument hints and argument extensions, for host arrays passed to kernels.

A NumPy array passed to a kernel is copied to the device before the launch and back after it. The hints say
which copies a launch needs: `In(ary)` only to the device (the kernel reads it), `Out(ary)` only back (the
kernel writes it; the device memory starts uninitialized), `InOut(ary)` both, as without a hint. Around a
device array a hint changes nothing. The launch path (python/src/arguments.cpp) recognises these classes.

A kernel's `extensions` (numba's prepare_args protocol) is a list of objects with a method
`prepare_args(ty, val, stream=..., retr=...)` returning `(ty, val)`: each launch passes every argument through
them in order before classifying it, and calls what they appended to `retr` after the launch. `ty` is the
argument's type as gpujit reads it (a gpujit type object, or None for what has none).

Layer "compiler inputs" of the Python package (docs/architecture.md): imports _signature; below _dispatcher.
"""

from ._signature import _type_object, type_of_value


class _Hint:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"


class In(_Hint):
    """A host array the kernel only reads: copied to the device, not back."""


class Out(_Hint):
    """A host array the kernel only writes: copied back from the device, not to it."""


class InOut(_Hint):
    """A host array copied to the device and back (what a NumPy argument gets without a hint)."""


def prepare_args(extensions, args, stream):
    """The arguments after every extension's prepare_args, and the write-backs they asked for."""
    retr = []
    out = []
    for value in args:
        try:
            ty = _type_object(type_of_value(value))
        except (TypeError, ValueError):
            ty = None
        for ext in extensions:
            ty, value = ext.prepare_args(ty, value, stream=stream, retr=retr)
        out.append(value)
    return tuple(out), retr
