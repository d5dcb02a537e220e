"""`vectorize` and `guvectorize`: NumPy-style (generalized) ufuncs whose loops run as gpujit kernels.

The user's function is compiled as a device function (`jit(device=True)`), so its errors point at its own
lines. The loop around it is a kernel whose source text this module writes (one per signature and shape of
call: which arguments are arrays, 1-D or N-d) and compiles like any kernel; `inspect_ptx()` shows it.

The call path is kept short for device arrays: the signature chosen for a tuple of argument types is cached,
the kernel for a call pattern is cached, and a call on C-contiguous device arrays of one shape is one launch
of a 1-D kernel over the flattened arrays. Host (NumPy) inputs are copied to the device and the result is
copied back; device inputs (gpujit's DeviceArray, or any `__cuda_array_interface__` object) stay there and
the result is a device array, with no synchronisation.

Signature choice follows NumPy's: the first signature (in the order given) to which every input casts
safely; Python scalars beside NumPy or device values are "weak" (they take the other operands' precision
within their kind), alone they are int64/float64/complex128. Where no signature matches safely, scalars
may cast within their kind (an int64 scalar to an int32 argument), as numba's ufuncs allow.

Layer "on the dispatcher" of the Python package (docs/architecture.md): imports _dispatcher and _compile.
"""

import math
import warnings

from . import _core
from . import _kernel_api  # `gpujit` in the kernels written here: the kernel namespace (_kernel_api.py)
from ._device_array import as_cuda_array
from ._dispatcher import Dispatcher, dispatcher_options, jit
from ._signature import _canonical, _declared_return, _split_args, signature_text, split_element
from ._types import DType
from .errors import CompileError

_THREADS = 256  # per block for the elementwise kernels
_GU_THREADS = 64  # per block for generalized ufuncs, whose threads each do a whole core loop


# ---------------------------------------------------------------------------------------------------------
# Signatures

class _Sig:
    """One parsed signature: NumPy dtypes of the arguments (with array ndims) and of the result."""

    def __init__(self, sig):
        text = signature_text(sig) if not isinstance(sig, str) else sig.strip()
        if text.startswith("("):
            text = "void" + text
        open_ = text.find("(")
        if open_ < 0 or not text.endswith(")"):
            raise TypeError(f"not a signature: {sig!r}; write it as 'float32(float32, float32)'")
        self.text = text
        # numba reads a tuple of types or "(float32, float32)" as the arguments alone: vectorize infers the
        # return type from the function (UFunc), guvectorize has none.
        self.declared_return = _declared_return(sig)
        self.ret = _canonical(text[:open_].strip())
        self.args = [_canonical(t) for t in _split_args(text[open_ + 1:-1])]
        self.arg_dtypes = [_dtype(t, text) for t in self.args]
        self.arg_ndims = [_ndim(t) for t in self.args]
        self.ret_dtype = None if self.ret in ("void", "none") else _dtype(self.ret, text)
        self.ret_ndim = _ndim(self.ret)

    def __repr__(self):
        return self.text


def _dtype(type_text, sig_text):
    """The NumPy dtype of one type's text (an array type's element type)."""
    name = split_element(type_text)[0]
    if name.endswith("[]"):  # numba's generic datetime unit, NumPy's plain "datetime64"
        name = name[:-2]
    try:
        return _numpy().dtype("bool" if name in ("bool_", "boolean") else name)
    except TypeError:
        raise TypeError(f"unknown type {name!r} in signature {sig_text!r}") from None


def _ndim(text):
    axes = split_element(text)[1]
    return axes.count(",") + 1 if axes is not None else 0


def _numpy():
    import numpy

    return numpy


_DeviceArray = _core.DeviceArray


def _is_device(a):
    return type(a) is _core.DeviceArray or _device_or_none(a) is not None


def _device_or_none(a):
    """`a` as a DeviceArray when it is a device array of any kind, read as a kernel launch reads it (a PyTorch
    tensor or CuPy array by its own attributes, with no wait for a stream: as_device_operand); else None."""
    if type(a) is _DeviceArray:
        return a
    if type(a) in (int, float, complex, bool):
        return None
    d = _core._foreign_device_array(a)
    if d is None and hasattr(a, "__cuda_array_interface__"):
        d = as_cuda_array(a)
    return d


def _type_key(a):
    """What signature choice depends on: the value's class, dtype and whether it is 0-d (a scalar)."""
    return (type(a), getattr(a, "dtype", None), getattr(a, "ndim", 0) == 0)


def _as_operands(args):
    """The arguments with device arrays of other libraries made DeviceArrays (as_device_operand: PyTorch
    tensors and CuPy arrays read as a launch reads them) and other array-likes that are not arrays (lists,
    tuples, namedtuples) NumPy arrays, so that their dtype is known and keys the cache."""
    if all(type(a) is _DeviceArray or type(a) in (int, float, complex, bool) for a in args):
        return args
    return tuple(_as_operand(a) for a in args)


def _as_operand(a):
    if type(a) is _DeviceArray or isinstance(a, (int, float, complex)):
        return a
    d = _device_or_none(a)
    if d is not None:
        return d
    return a if hasattr(a, "dtype") else _numpy().asarray(a)


def _can_cast(np, key_dtype, weak_kind, to, casting):
    if key_dtype.kind in "Mm" or to.kind in "Mm":
        return key_dtype == to  # kernels convert no datetime64 or timedelta64 to another unit implicitly
    if weak_kind is not None:
        # A weak scalar takes any type of its kind or a wider one: bool < int (signed or not) < float < complex.
        order = "biufc"
        return weak_kind in order and to.kind in order[order.index(weak_kind):]
    return np.can_cast(key_dtype, to, casting)


def _choose(np, sigs, args, name):
    """The first signature every argument casts to; a TypeError naming the types given and accepted else."""
    kinds = []
    # NumPy 2: Python scalars are weak beside any NumPy or device value; alone they are int64/float64/...
    any_array = not all(isinstance(a, (int, float, complex)) for a in args)
    for a in args:
        if isinstance(a, bool):
            kinds.append((np.dtype(bool), "b" if any_array else None, True))
        elif isinstance(a, int):
            kinds.append((np.dtype(np.int64), "i" if any_array else None, True))
        elif isinstance(a, float):
            kinds.append((np.dtype(np.float64), "f" if any_array else None, True))
        elif isinstance(a, complex):
            kinds.append((np.dtype(np.complex128), "c" if any_array else None, True))
        else:
            dt = getattr(a, "dtype", None)
            if dt is None:
                dt = np.asarray(a).dtype
            dt = np.dtype(dt)
            kinds.append((dt, None, getattr(a, "ndim", 1) == 0))
    for relaxed in (False, True):
        for sig in sigs:
            if all(_can_cast(np, dt, _kind_of(dt) if (relaxed and scalar) else weak, to, "safe")
                   for (dt, weak, scalar), to in zip(kinds, sig.arg_dtypes)):
                return sig
    given = ", ".join(str(dt) for dt, _, _ in kinds)
    accepted = "; ".join(s.text for s in sigs)
    raise TypeError(f"{name}: no signature accepts the argument types ({given}); it accepts: {accepted}")


def _kind_of(dt):
    return "i" if dt.kind == "u" else dt.kind


# ---------------------------------------------------------------------------------------------------------
# Kernels written as source text

class _GeneratedKernel(Dispatcher):
    """A kernel whose source is text this module wrote: compiled from that text, shown under its own name."""

    def __init__(self, text, name, env, options):
        import linecache  # here, not at `import gpujit`: it brings tokenize, some ms at every start

        filename = f"<gpujit {name}>"
        lines = text.splitlines(True)
        linecache.cache[filename] = (len(text), None, lines, filename)
        namespace = dict(env)
        exec(compile(text, filename, "exec"), namespace)
        # The kernel takes the ufunc's compile options, which apply to the device function it calls too.
        super().__init__(namespace[name], **dispatcher_options(False, options))
        self._text, self._filename = text, filename
        self.source = text

    def _source_args(self):
        from ._source import describe_free_names

        return self._text, self._filename, 1, self.__name__, describe_free_names(self.py_func, Dispatcher)


def _identifier(name):
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return name if name and not name[0].isdigit() else "f_" + name


def _device_function(fn, options):
    if isinstance(fn, Dispatcher):
        return fn
    return jit(device=True, **options)(fn)


def _convert(expr, src_dtype, to_dtype):
    if src_dtype == to_dtype:
        return expr
    name = "bool_" if to_dtype.kind == "b" else to_dtype.name
    return f"gpujit.{name}({expr})"


# ---------------------------------------------------------------------------------------------------------
# vectorize

_VECTORIZE_OPTIONS = {"fastmath", "opt", "debug", "lineinfo", "boundscheck", "cache", "max_registers",
                      "warn_float64"}


def vectorize(ftylist_or_function=(), target="cuda", identity=None, cache=False, **options):
    """Makes an elementwise ufunc of a scalar function, numba's `@vectorize(signatures, target='cuda')`.

    @vectorize(['float32(float32, float32)', 'float64(float64, float64)'])
    def add(a, b): return a + b

    add(x, y) works elementwise over arrays (NumPy broadcasting), scalars, device arrays; out=, stream=.
    Without signatures the function is compiled per tuple of input types, its result type inferred.
    """
    options = _check_options(options, target, kind="vectorize")
    if cache:
        options["cache"] = True
    if callable(ftylist_or_function) and not isinstance(ftylist_or_function, (str, list, tuple)):
        return UFunc(ftylist_or_function, [], target, identity, options)
    sigs = ftylist_or_function
    sigs = [sigs] if isinstance(sigs, str) or not isinstance(sigs, (list, tuple)) else list(sigs)
    return lambda fn: UFunc(fn, sigs, target, identity, options)


def _check_options(options, target, kind):
    if target not in ("cuda", "cpu", "gpu"):
        raise ValueError(f"{kind}: unsupported target {target!r}; gpujit's are 'cuda' and 'cpu'")
    options = dict(options)
    nopython = options.pop("nopython", None)
    if nopython is not None:
        if not nopython:
            raise TypeError("nopython flag must be True")
        warnings.warn(f"nopython kwarg for {target} target is redundant", RuntimeWarning, stacklevel=3)
    options.pop("forceobj", None)
    unknown = sorted(set(options) - _VECTORIZE_OPTIONS)
    if unknown:
        if kind == "vectorize":
            raise KeyError(f"Unrecognized options: {', '.join(unknown)}; vectorize accepts "
                           f"{', '.join(sorted(_VECTORIZE_OPTIONS | {'nopython', 'target', 'identity'}))}")
        raise TypeError("The following target options are not supported: " + ", ".join(repr(u) for u in unknown))
    return options


class _OnTarget:
    """Runs a call on the CPU backend for target='cpu' where a CUDA device is the active backend."""

    def __init__(self, target):
        self.switch = target == "cpu" and _core.backend_name() != "cpu"

    def __enter__(self):
        if self.switch:
            self.previous = _core.backend_name()
            _core._set_backend("cpu")

    def __exit__(self, *exc):
        if self.switch:
            _core._set_backend(self.previous)


class UFunc:
    """The result of @vectorize: call it like a NumPy ufunc."""

    def __init__(self, fn, sigs, target, identity, options):
        self.py_func = fn
        self.__name__ = getattr(fn, "__name__", "ufunc")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.target = target
        self.identity = identity
        self._options = options
        self._device_fn = _device_function(fn, options)
        self._sigs = [_Sig(s) for s in sigs]
        # Signatures of argument types alone get the return type the compiler infers, as numba's do.
        self._sigs = [s if s.declared_return else self._infer_dtypes(s.arg_dtypes)
                      for s in self._sigs]
        for s in self._sigs:
            if s.ret_dtype is None:
                raise TypeError(f"vectorize: signature {s.text} of '{self.__name__}' must return a value")
            if s.ret_ndim or any(s.arg_ndims):
                raise TypeError(f"vectorize: signature {s.text} of '{self.__name__}' has an array type; vectorize "
                                "functions take and return scalars (guvectorize takes arrays)")
        code = getattr(getattr(fn, "py_func", fn), "__code__", None)
        self.nin = len(self._sigs[0].args) if self._sigs else (code.co_argcount if code else 0)
        for s in self._sigs:
            if len(s.args) != self.nin:
                raise TypeError(f"vectorize: signature {s.text} of '{self.__name__}' takes {len(s.args)} "
                                f"arguments; the others take {self.nin}")
        self.nout = 1
        self.nargs = self.nin + 1
        self._plans = {}  # argument type keys -> chosen signature
        self._kernels = {}  # (signature, array pattern, ndim) -> _GeneratedKernel
        self._fast = {}  # _core._elementwise_key -> (kernel, result dtype, launchers by (n, stream))
        self._on_active_backend = target != "cpu"

    @property
    def types(self):
        return [s.text for s in self._sigs]

    def __reduce__(self):
        """Pickles as numba's ufuncs do: its function (by value for a local one) with the signatures and
        options; the kernels are built again where it is loaded."""
        return _reduce(self, _rebuild_ufunc, (self.types, self.target, self.identity, self._options))

    def __repr__(self):
        return f"<gpujit ufunc '{self.__name__}' nin={self.nin} target={self.target}>"

    # --- choosing a signature ---------------------------------------------------------------------------

    def _signature_for(self, args):
        key = tuple(map(_type_key, args))
        sig = self._plans.get(key)
        if sig is None:
            np = _numpy()
            if self._sigs:
                sig = _choose(np, self._sigs, args, self.__name__)
            else:
                sig = self._infer(np, args)
            self._plans[key] = sig
        return sig

    def _infer(self, np, args):
        """A signature for lazily compiled ufuncs: the inputs' own types, the result type the compiler infers."""
        dts = []
        for a in args:
            dt = getattr(a, "dtype", None)
            dts.append(np.dtype(dt) if dt is not None else np.asarray(a).dtype)
        return self._infer_dtypes(dts)

    def _infer_dtypes(self, dts):
        """The signature of inputs of NumPy dtypes `dts` with the result type the compiler infers."""
        from ._compile import compile_ptx
        from ._signature import type_text

        argtext = ", ".join(dt.name for dt in dts)
        if any(dt.kind not in "biufcMm" for dt in dts):
            raise TypeError(f"{self.__name__}: cannot compile for inputs of types ({argtext}); ufuncs take "
                            "booleans, numbers, datetime64 and timedelta64")
        # The device function compiled on its own for these types says what it returns.
        _, ret = compile_ptx(self._device_fn.py_func, tuple(_core_type(dt) for dt in dts), device=True,
                             **{k: v for k, v in self._options.items() if k in ("fastmath", "opt")})
        ret_text = _canonical(type_text(ret)) if ret is not None else None
        if not ret_text or ret_text in ("void", "none") or split_element(ret_text)[1] is not None or "(" in ret_text:
            raise TypeError(f"vectorize: '{self.__name__}' returns no value for ({argtext})")
        return _Sig(f"{ret_text}({argtext})")

    # --- the call -------------------------------------------------------------------------------------------

    def __call__(self, *args, out=None, stream=0):
        # The fast path, a launch and little else: 1-D DeviceArrays of one size (any strides: the kernel
        # reads them), out a matching DeviceArray or none, on the active backend. It needs the kernel that
        # an earlier call on the same dtypes built (self._fast, keyed by _core._elementwise_key, which reads
        # the arrays in C++); anything else takes the general path.
        fast = self._fast
        if fast:
            probe = _core._elementwise_key(args, out)
            if probe is not None:
                plan = fast.get(probe[1])
                if plan is not None:
                    n = probe[0]
                    kernel, ret, launchers = plan
                    if out is None:
                        out = _core.device_array(n, ret, stream)
                    if n:
                        # The configured kernel of the last sizes and streams, kept: building one is a third
                        # of a launch's cost.
                        launch = launchers.get((n, stream))
                        if launch is None:
                            if len(launchers) >= 8:
                                launchers.clear()
                            launch = launchers[(n, stream)] = kernel[(n + _THREADS - 1) // _THREADS, _THREADS,
                                                                     stream]
                        launch(*args, out)
                    # A foreign `out` comes back as a DeviceArray over its memory, as on the general path
                    # and in numba.
                    return out if type(out) is _DeviceArray else _core._foreign_device_array(out)
        try:
            return self._slow(args, out, stream)
        except CompileError as e:
            raise e.with_traceback(None) from None  # the user's call is the last frame that matters

    def _slow(self, args, out, stream):
        if len(args) != self.nin:
            if len(args) == self.nin + 1 and out is None:
                args, out = args[:-1], args[-1]
            else:
                raise TypeError(f"{self.__name__}: takes {self.nin} input argument{'s' if self.nin != 1 else ''} "
                                f"(and an optional out), got {len(args)}")
        with _OnTarget(self.target):
            return self._call(args, out, stream)

    def _call(self, args, out, stream):
        args = _as_operands(args)
        sig = self._signature_for(args)
        np = None
        on_device = False
        arrays = []  # per input: a device array, or None for a scalar
        values = []
        shape = ()
        for a, dt in zip(args, sig.arg_dtypes):
            if type(a) is _core.DeviceArray:  # device arrays of other libraries are DeviceArrays by now
                on_device = True
            else:
                np = np or _numpy()
                h = np.asarray(a)
                if h.ndim == 0:
                    arrays.append(None)
                    values.append(dt.type(h[()]))  # the kernel parameter has the signature's type
                    continue
                a = _core.to_device(np.ascontiguousarray(h), stream)
            if a.ndim == 0:
                a = a.reshape((1,))  # a 0-d device array broadcasts as a one-element array, read on the device
            arrays.append(a)
            values.append(a)
            if a.shape != shape:
                shape = a.shape if not shape else _broadcast(shape, a.shape, self.__name__)
        if out is not None:
            device_out = _device_or_none(out)
            if device_out is not None:
                out = device_out
                on_device = True
        if not shape:  # every input is a scalar: one thread
            result = self._run_flat(sig, values, arrays, 1, None, stream)
            host = result.copy_to_host(stream=stream)
            if stream:
                stream.synchronize()
            value = host[0]
            if out is not None:
                out[...] = value
                return out
            return value
        dout, host_out = self._output(sig, out, shape, stream)
        flat = all(a is None or (a.shape == shape and a.is_c_contiguous()) for a in arrays) \
            and dout.is_c_contiguous()
        size = math.prod(shape)
        if size:
            if flat:
                if len(shape) > 1:
                    values = [v if a is None else a.ravel() for v, a in zip(values, arrays)]
                    self._run_flat(sig, values, arrays, size, dout.ravel(), stream)
                else:
                    self._run_flat(sig, values, arrays, size, dout, stream)
            else:
                self._run_nd(sig, values, arrays, shape, dout, stream)
        if on_device and host_out is None:
            return dout  # `out` itself, or a DeviceArray over it when it came through the CUDA array interface
        if host_out is not None:
            if host_out.flags.c_contiguous:
                dout.copy_to_host(host_out, stream=stream)
            else:
                host_out[...] = dout.copy_to_host(stream=stream)
            if stream:
                stream.synchronize()
            return host_out
        result = dout.copy_to_host(stream=stream)
        if stream:
            stream.synchronize()
        return result

    def _output(self, sig, out, shape, stream):
        """(device array written by the kernel, host array to copy it into or None)."""
        if out is None:
            return _core.device_array(shape, sig.ret_dtype, stream), None
        if tuple(out.shape) != tuple(shape):
            raise ValueError(f"{self.__name__}: out has shape {tuple(out.shape)}; the inputs broadcast to "
                             f"{tuple(shape)}")
        if out.dtype != sig.ret_dtype:
            raise TypeError(f"{self.__name__}: out has dtype {out.dtype}; signature {sig.text} returns "
                            f"{sig.ret_dtype}")
        if type(out) is _DeviceArray:
            return out, None
        return _core.device_array(shape, sig.ret_dtype, stream), out

    def _kernel(self, sig, pattern, ndim):
        key = (sig.text, pattern, ndim)
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = self._build(sig, pattern, ndim)
        return k

    def _run_flat(self, sig, values, arrays, size, dout, stream):
        pattern = tuple(None if a is None else a.dtype for a in arrays)
        k = self._kernel(sig, pattern, 1)
        # (`is`, not `in`: a float64 dtype compares equal to None, NumPy's default dtype.)
        if dout is None:
            dout = _core.device_array((size,), sig.ret_dtype, stream)
        if all(p is not None for p in pattern) and self._on_active_backend:
            # Later calls with 1-D device arrays of these dtypes, out given (of the result's dtype) or not.
            probe = _core._elementwise_key(tuple(a.ravel() for a in arrays) + (dout.ravel(),), None)
            if probe is not None:
                codes = probe[1][:-1]
                self._fast[codes[:-1] + (None,)] = self._fast[codes] = (k, sig.ret_dtype, {})
        threads = min(_THREADS, size)
        k[(size + threads - 1) // threads, threads, stream](*values, dout)
        return dout

    def _run_nd(self, sig, values, arrays, shape, dout, stream):
        # The pattern records each input's ndim and its broadcast axes (extent 1 where the output's is not).
        pattern = []
        for a in arrays:
            if a is None:
                pattern.append(None)
                continue
            off = len(shape) - a.ndim
            pattern.append((a.dtype, tuple(a.shape[d] == 1 and shape[off + d] != 1 for d in range(a.ndim))))
        k = self._kernel(sig, ("nd",) + tuple(pattern), len(shape))
        size = math.prod(shape)
        threads = min(_THREADS, size)
        k[(size + threads - 1) // threads, threads, stream](*values, dout)

    def _build(self, sig, pattern, ndim):
        fname = _identifier(self.__name__)
        params = [f"x{i}" for i in range(self.nin)]
        if fname in params or fname in ("gpujit", "out", "i", "r") or fname.startswith("i"):
            fname = "user_" + fname
        nd = bool(pattern) and isinstance(pattern[0], str)
        pats = pattern[1:] if nd else pattern
        kname = f"vectorize_{_identifier(self.__name__)}" + (f"_{ndim}d" if nd else "")
        body = []
        if nd:
            idx = [f"i{d}" for d in range(ndim)]
            body.append("        r = i")
            for d in range(ndim - 1, 0, -1):
                body.append(f"        i{d} = r % out.shape[{d}]")
                body.append(f"        r = r // out.shape[{d}]")
            body.append("        i0 = r")
            target = f"out[{', '.join(idx)}]"
        else:
            target = "out[i]"
        call_args = []
        for p, pat, dt in zip(params, pats, sig.arg_dtypes):
            if pat is None:
                call_args.append(p)
                continue
            if nd:
                src_dt, bcast = pat
                off = ndim - len(bcast)
                index = ", ".join("0" if b else f"i{off + d}" for d, b in enumerate(bcast))
                call_args.append(_convert(f"{p}[{index}]", src_dt, dt))
            else:
                call_args.append(_convert(f"{p}[i]", pat, dt))
        text = (f"def {kname}({', '.join(params + ['out'])}):\n"
                f"    i = gpujit.grid(1)\n"
                f"    if i < out.size:\n" + "".join(line + "\n" for line in body) +
                f"        {target} = {fname}({', '.join(call_args)})\n")
        return _GeneratedKernel(text, kname, {"gpujit": _kernel_api, fname: self._device_fn}, self._options)

    def inspect_ptx(self):
        """The PTX of the kernels this ufunc has built so far: {kernel name: {argument types: PTX}}."""
        return {k.__name__: k.inspect_ptx() for k in self._kernels.values()}

    # --- reduce ----------------------------------------------------------------------------------------------

    def reduce(self, arr, stream=0):
        """Reduces a 1-D array with this binary ufunc, pairwise on the device (the function should be
        associative and commutative: the order of operations is a tree's, not left to right)."""
        if self.nin != 2:
            raise TypeError(f"{self.__name__}.reduce: only binary ufuncs reduce; this one takes {self.nin} inputs")
        device_arr = _device_or_none(arr)
        np = _numpy()
        with _OnTarget(self.target):
            if device_arr is not None:
                a = device_arr
            else:
                a = _core.to_device(np.ascontiguousarray(np.asarray(arr)), stream)
            if a.ndim != 1:
                a = a.ravel()
            n = a.size
            if n == 0:
                if self.identity is None:
                    raise ValueError(f"{self.__name__}.reduce: zero-size array and the ufunc has no identity")
                return self.identity
            while n > 1:
                half = n // 2
                sig = self._signature_for((a[:half], a[n - half:n]))
                nxt = _core.device_array((half + n % 2,), sig.ret_dtype, stream)
                self(a[:half], a[n - half:n], out=nxt[:half], stream=stream)
                if n % 2:
                    nxt[half:].copy_to_device(a[half:half + 1], stream=stream)
                a, n = nxt, half + n % 2
            host = a.copy_to_host(stream=stream)
            if stream:
                stream.synchronize()
            return host[0]


def _core_type(dt):
    """gpujit's type object for a NumPy dtype of a number or bool (gpujit.float32 for float32)."""
    return DType("bool" if dt.kind == "b" else dt.name)


def _broadcast(a, b, name):
    """NumPy's broadcast of two shapes, or a ValueError naming them."""
    n = max(len(a), len(b))
    a1 = (1,) * (n - len(a)) + tuple(a)
    b1 = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a1, b1):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"{name}: operands could not be broadcast together with shapes {tuple(a)} {tuple(b)}")
        out.append(y if x == 1 else x)
    return tuple(out)



# ---------------------------------------------------------------------------------------------------------
# guvectorize

def guvectorize(ftylist, signature, target="cuda", identity=None, cache=False, **options):
    """Makes a generalized ufunc, numba's `@guvectorize(signatures, layout, target='cuda')`.

    @guvectorize(['void(float32[:, :], float32[:, :], float32[:, :])'], '(m,n),(n,p)->(m,p)')
    def matmul(A, B, C): ...

    The function writes its outputs (the arguments after the inputs); the loop dimensions (the leading
    axes beyond each argument's core dimensions) are spread over the grid, one thread per core call.
    """
    options = _check_options(options, target, kind="guvectorize")
    if cache:
        options["cache"] = True
    sigs = [ftylist] if isinstance(ftylist, str) or not isinstance(ftylist, (list, tuple)) else list(ftylist)
    layout = _Layout(signature)
    parsed = []
    for s in sigs:
        sig = _Sig(s)
        if sig.ret_dtype is not None:
            raise TypeError(f"guvectorized functions cannot return values: signature {sig.text} specifies "
                            f"{sig.ret} return type")
        if len(sig.args) != layout.nin + layout.nout:
            raise TypeError(f"guvectorize: signature {sig.text} has {len(sig.args)} arguments; layout "
                            f"{layout.text!r} has {layout.nin} inputs and {layout.nout} outputs")
        parsed.append(sig)
    return lambda fn: GUFunc(fn, parsed, layout, target, options)


class _Layout:
    """A gufunc layout "(m,n),(n,p)->(m,p)": the core dimension names of each input and output."""

    def __init__(self, text):
        import re

        self.text = text
        compact = "".join(text.split())
        arg = r"\((?:\w+(?:,\w+)*)?\)"
        if not re.fullmatch(f"{arg}(?:,{arg})*->{arg}(?:,{arg})*", compact):
            raise ValueError(f"guvectorize: bad layout {text!r}; write it as '(m,n),(n,p)->(m,p)'")
        ins, outs = compact.split("->")
        parse = lambda part: [tuple(d for d in g.split(",") if d) for g in re.findall(r"\(([^)]*)\)", part)]
        self.inputs, self.outputs = parse(ins), parse(outs)
        self.nin, self.nout = len(self.inputs), len(self.outputs)
        known = {d for dims in self.inputs for d in dims}
        self.out_only = {d for dims in self.outputs for d in dims} - known


class GUFunc:
    """The result of @guvectorize: call it with the inputs (and optionally the outputs)."""

    def __init__(self, fn, sigs, layout, target, options):
        self.py_func = fn
        self.__name__ = getattr(fn, "__name__", "gufunc")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.target = target
        self.layout = layout
        self.signature = layout.text
        self.nin, self.nout = layout.nin, layout.nout
        self.nargs = self.nin + self.nout
        self._sigs = sigs
        self._options = options
        self._device_fn = _device_function(fn, options)
        self._plans = {}
        self._kernels = {}

    @property
    def types(self):
        return [s.text for s in self._sigs]

    def __reduce__(self):
        """Pickles as UFunc.__reduce__ does, with the layout."""
        return _reduce(self, _rebuild_gufunc, (self.types, self.signature, self.target, self._options))

    def __repr__(self):
        return f"<gpujit gufunc '{self.__name__}' {self.signature} target={self.target}>"

    def inspect_ptx(self):
        """The PTX of the kernels this gufunc has built so far: {kernel name: {argument types: PTX}}."""
        return {k.__name__: k.inspect_ptx() for k in self._kernels.values()}

    def __call__(self, *args, out=None, stream=0):
        n = len(args)
        if n not in (self.nin, self.nargs):
            s = lambda k: "s" if k != 1 else ""
            raise TypeError(f"gufunc accepts {self.nin} positional argument{s(self.nin)} (for inputs) or "
                            f"{self.nargs} positional argument{s(self.nargs)} (for inputs and outputs). "
                            f"Got {n} positional argument{s(n)}.")
        outs = list(args[self.nin:])
        if out is not None:
            if outs:
                raise ValueError("cannot specify argument 'out' as both positional and keyword")
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            if len(outs) != self.nout:
                raise ValueError(f"{self.__name__}: out must hold {self.nout} arrays, got {len(outs)}")
        try:
            with _OnTarget(self.target):
                return self._call(args[:self.nin], outs, stream)
        except CompileError as e:
            raise e.with_traceback(None) from None  # the user's call is the last frame that matters

    def _call(self, ins, outs, stream):
        np = _numpy()
        ins = _as_operands(ins)
        outs = [_as_operand(o) for o in outs]  # foreign device arrays once, as a launch reads them
        key = tuple(map(_type_key, ins))
        sig = self._plans.get(key)
        if sig is None:
            sig = self._plans[key] = _choose(np, self._sigs, ins, self.__name__)
        layout = self.layout
        on_device = any(_is_device(a) for a in ins) or any(_is_device(o) for o in outs)
        # Each input as a device array (or a scalar value), with its loop shape and core shape.
        values, loops, cores = [], [], []
        for a, dims, dt, nd in zip(ins, layout.inputs, sig.arg_dtypes, sig.arg_ndims):
            if _is_device(a):
                a = a if type(a) is _core.DeviceArray else as_cuda_array(a)
                if a.dtype != dt:
                    raise TypeError(f"{self.__name__}: device array of dtype {a.dtype} for an argument of type "
                                    f"{dt}: a device array does not support .astype(); convert it first")
            else:
                a = np.asarray(a)
                if a.dtype != dt:
                    a = a.astype(dt)
            if a.ndim < len(dims):
                raise ValueError(f"{self.__name__}: input of shape {tuple(a.shape)} has fewer dimensions than "
                                 f"its core dimensions {_dims_text(dims)} in layout {layout.text!r}")
            split = a.ndim - len(dims)
            values.append(a)
            loops.append(tuple(a.shape[:split]))
            cores.append(tuple(a.shape[split:]))
        sizes = {}
        for dims, core in zip(layout.inputs, cores):
            for d, extent in zip(dims, core):
                if sizes.setdefault(d, extent) != extent:
                    raise ValueError(f"{self.__name__}: core dimension '{d}' is {sizes[d]} in one input and "
                                     f"{extent} in another (layout {layout.text!r})")
        loop = ()
        for lp in loops:
            loop = _broadcast(loop, lp, self.__name__)
        # Outputs: given (checked and, for host ones, written back at the end) or allocated.
        out_arrays, host_outs = [], []
        for j, (dims, dt) in enumerate(zip(layout.outputs, sig.arg_dtypes[self.nin:])):
            given = outs[j] if outs else None
            if given is not None:
                split = len(given.shape) - len(dims)
                if split < 0:
                    raise ValueError(f"{self.__name__}: output {j} of shape {tuple(given.shape)} has fewer "
                                     f"dimensions than its core dimensions {_dims_text(dims)}")
                for d, extent in zip(dims, given.shape[split:]):
                    if sizes.setdefault(d, extent) != extent:
                        raise ValueError(f"{self.__name__}: output {j} has core dimension '{d}' of {extent}; the "
                                         f"inputs give {sizes[d]} (layout {layout.text!r})")
                if math.prod(given.shape[:split]) != math.prod(loop):
                    raise ValueError(f"{self.__name__}: output {j} of shape {tuple(given.shape)} does not match "
                                     f"the loop dimensions {loop} of the inputs")
                if given.dtype != dt:
                    raise TypeError(f"{self.__name__}: output {j} has dtype {given.dtype}; signature {sig.text} "
                                    f"gives it {dt}")
            missing = [d for d in dims if d not in sizes]
            if missing:
                raise ValueError(f"{self.__name__}: output dimension {', '.join(map(repr, missing))} of layout "
                                 f"{layout.text!r} is not set by any input; pass the output array")
            core = tuple(sizes[d] for d in dims)
            if given is None:
                out_arrays.append(_core.device_array(loop + core, dt, stream))
                host_outs.append(None)
            elif type(given) is _DeviceArray:
                out_arrays.append(given)
                host_outs.append(None)
            else:
                out_arrays.append(_core.device_array(tuple(given.shape), dt, stream))
                host_outs.append(given)
        count = math.prod(loop)
        # Every argument becomes (count, *core) or, pinned (no loop axes), its core alone.
        kargs, pattern = [], []
        for i, (a, lp, core, dims) in enumerate(zip(values + out_arrays, loops + [None] * self.nout,
                                                    cores + [None] * self.nout, layout.inputs + layout.outputs)):
            scalar_core = not dims
            is_input = i < self.nin
            if not is_input:
                core = tuple(a.shape[a.ndim - len(dims):])
                lp = tuple(a.shape[:a.ndim - len(dims)])
            array_arg = sig.arg_ndims[i] > 0
            pinned = math.prod(lp) == 1 and count != 1 or not lp and count == 1
            if scalar_core and not array_arg:
                # A scalar argument: a value when pinned, else a 1-D array of one value per loop index.
                if pinned or count == 1 and a.ndim == 0:
                    v = a.reshape(()) if hasattr(a, "reshape") and not _is_device(a) else a
                    if _is_device(v):
                        v = v.copy_to_host(stream=stream)
                    kargs.append(sig.arg_dtypes[i].type(_numpy().asarray(v).reshape(())[()]))
                    pattern.append("value")
                    continue
                shaped = (count,)
            elif pinned:
                shaped = core if not scalar_core else (1,)
            else:
                shaped = (count,) + (core if not scalar_core else (1,))
            if not pinned and lp != loop and math.prod(lp) != count:
                if _is_device(a):
                    raise ValueError(f"{self.__name__}: device array of shape {tuple(a.shape)} would need "
                                     f"broadcasting to loop dimensions {loop}; broadcasting is done for host "
                                     "arrays only")
                a = np.broadcast_to(a, loop + core)
            if _is_device(a):
                if tuple(a.shape) != shaped:
                    if not a.is_c_contiguous():
                        raise ValueError(f"{self.__name__}: a non-contiguous device array of shape "
                                         f"{tuple(a.shape)} cannot be reshaped to {shaped}; pass a contiguous one")
                    a = a.reshape(shaped)
            else:
                a = _core.to_device(np.ascontiguousarray(a).reshape(shaped), stream)
            kargs.append(a)
            pattern.append("pinned" if pinned else "looped")
        if count:
            k = self._kernel(sig, tuple(pattern))
            threads = min(_GU_THREADS, count)
            k[(count + threads - 1) // threads, threads, stream](*kargs, count)
        results = []
        for j, (dout, host) in enumerate(zip(out_arrays, host_outs)):
            if host is not None:  # a host output is written back, even when the inputs were on the device
                host[...] = dout.copy_to_host(stream=stream)
                results.append(host)
            elif on_device:  # a device output given in any form (a CUDA array interface object too) as a DeviceArray
                results.append(dout)
            else:
                results.append(dout.copy_to_host(stream=stream))
        if stream and not on_device:
            stream.synchronize()
        if not on_device:
            results = [r[()] if r.ndim == 0 else r for r in results]
        return results[0] if self.nout == 1 else tuple(results)

    def _kernel(self, sig, pattern):
        key = (sig.text, pattern)
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = self._build(sig, pattern)
        return k

    def _build(self, sig, pattern):
        fname = _identifier(self.__name__)
        params = [f"x{i}" for i in range(self.nargs)]
        if fname in params or fname in ("gpujit", "i", "count"):
            fname = "user_" + fname
        call = [p if kind != "looped" else f"{p}[i]" for p, kind in zip(params, pattern)]
        kname = f"guvectorize_{_identifier(self.__name__)}"
        text = (f"def {kname}({', '.join(params + ['count'])}):\n"
                f"    i = gpujit.grid(1)\n"
                f"    if i < count:\n"
                f"        {fname}({', '.join(call)})\n")
        return _GeneratedKernel(text, kname, {"gpujit": _kernel_api, fname: self._device_fn}, self._options)


def _dims_text(dims):
    return "(" + ",".join(dims) + ")"


def _reduce(ufunc, rebuild, args):
    """A (g)ufunc's pickle: rebuild(fn, *args), its function by reference where pickle finds it by name, else
    by value."""
    from ._dispatcher import _picklable_function

    fn = ufunc.py_func
    return rebuild, (fn if isinstance(fn, Dispatcher) else _picklable_function(fn),) + args


def _unpickled_function(fn):
    from ._dispatcher import _FunctionByValue

    return fn.function() if isinstance(fn, _FunctionByValue) else fn


def _rebuild_ufunc(fn, sigs, target, identity, options):
    return UFunc(_unpickled_function(fn), sigs, target, identity, dict(options))


def _rebuild_gufunc(fn, sigs, layout, target, options):
    return GUFunc(_unpickled_function(fn), [_Sig(s) for s in sigs], _Layout(layout), target, dict(options))
