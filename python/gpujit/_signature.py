"""Signatures as text for the compiler: "void(float32[:], float32)".

Accepts what numba-cuda code passes to jit() or inspect_ptx(): a string, a gpujit Signature
(void(float32[:])), a tuple of types (gpujit's, numba's, NumPy dtypes or strings), or a numba Signature.
"""


def type_text(t):
    """The compiler's spelling of one type."""
    if isinstance(t, str):
        return t
    # numba array types: Array(dtype, ndim, layout)
    if hasattr(t, "ndim") and hasattr(t, "layout") and hasattr(t, "dtype") and not hasattr(t, "names"):
        axes = [":"] * t.ndim
        if t.layout == "C" and t.ndim:
            axes[-1] = "::1"
        return f"{type_text(t.dtype)}[{', '.join(axes)}]"
    name = getattr(t, "_gpujit_dtype", None)
    if name is not None:
        return name
    if isinstance(t, type):
        return {float: "float64", int: "int64", bool: "bool", complex: "complex128"}.get(t) or t.__name__
    if type(t).__module__ == "numpy" or type(t).__name__ == "dtype":
        return str(getattr(t, "name", t))
    return str(t)


def signature_text(sig):
    """The text of a signature object or of a tuple of argument types."""
    if isinstance(sig, str):
        return sig
    if isinstance(sig, (tuple, list)):
        return "void(" + ", ".join(type_text(t) for t in sig) + ")"
    args = getattr(sig, "args", None)
    if args is not None:
        ret = getattr(sig, "return_type", None)
        ret_text = "void" if ret is None or str(ret) == "none" else type_text(ret)
        return f"{ret_text}(" + ", ".join(type_text(t) for t in args) + ")"
    raise TypeError(f"not a signature: {sig!r}; write it as 'void(float32[:], float32)' or a tuple of types")
