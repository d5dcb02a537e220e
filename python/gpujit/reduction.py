"""gpu.reduce / gpu.Reduce: a binary function reduces a 1-D array on the device (numba-cuda's cuda.reduce).

    sum_reduce = gpu.reduce(lambda a, b: a + b)
    total = sum_reduce(x)                  # x: a host or device array of any length and numeric dtype
    sum_reduce(x, init=10.0, res=d_out)    # d_out[0] receives the result on the device, nothing is copied back

The user's function is compiled as a device function (`gpu.jit(device=True)`) from its own source, so errors
in it name the user's file and line. For each dtype, a kernel is generated here as source text, exec'd, and
compiled by gpujit like any other kernel (`Reduce.kernel_source(dtype)` gives the text and
`Reduce.inspect_ptx(dtype)` its PTX, the user's function inlined). The kernel:

- each thread folds a grid-stride slice of the array into one value, reading `_UNROLL` independent elements
  per step so that enough loads are in flight to keep the memory system busy;
- each warp then combines its 32 values with `shfl_down_sync` (small integers and bool through int32,
  float16 through float32, complex numbers as their two parts, so every dtype takes the shuffle path), lane 0
  of each warp puts its value in shared memory, and the first warp combines those the same way;
- thread 0 stores the block's value, fences, and counts the block on an atomic counter; the block that counts
  last reduces the stored values the same way and writes the result, combined with `init` when asked.

No value is ever combined with a made-up identity: a lane takes part only when it holds elements (`live`
counts them), so `max`, `min`, products and any associative, commutative function reduce exactly their
elements, and `init` (when given) enters exactly once. The grid is sized to the device (enough blocks to fill
every multiprocessor, never more blocks than it takes to give each thread an element), and one launch does
the whole reduction.

Layer "on the dispatcher" of the Python package (docs/architecture.md): imports _dispatcher, _device_array,
_host_memory.
"""

import threading
import warnings

from . import _core
from . import _kernel_api
from ._device_array import as_cuda_array, as_device_operand
from ._host_memory import mapped_array
from .errors import CompileError, PerformanceWarning

_WARP = 32
_THREADS = 256  # threads per block
# Blocks per multiprocessor: all of them resident at once, so the grid runs in one wave with no tail (6 blocks
# of 256 threads fit while a kernel takes at most 40 registers per thread, as these do on sm_80/sm_90). Each
# thread keeps 32 bytes of loads in flight per step (two 16-byte vectors, or 32 bytes of single elements):
# 48 KiB per multiprocessor, enough to cover the memory latency at full bandwidth. `benchmarks/ufuncs.py
# --reduce-sweep` times these settings against cp.sum. Two sweeps on H100s (2^26 float32, result on the
# device; the first by a one-off script doing the same, the second by that command)
# put the vector fold with 256 threads and 6 blocks per SM at 1.005 and 0.986 of cp.sum, 4 and 8
# blocks within 1% of it, four vectors per step 1-3% lower, 512 threads x 3 blocks at 1.008 and 1.000; the
# element-wise fold at 0.99 and 0.91. The differences between the settings are of the order of the
# run-to-run noise.
_BLOCKS_PER_SM = 6
_KERNEL = '''\
def {name}(arr, out, partials, counter, init, use_init):
    # Indices are uint64, which cannot be negative: loads skip the negative-index wrap.
    n = np.uint64(arr.size)
    tid = gpu.threadIdx.x
    nthreads = gpu.blockDim.x
    start = np.uint64(gpu.blockIdx.x * nthreads)
    stride = np.uint64(gpu.gridDim.x * nthreads)
{fold}
    warp_values = gpu.shared.array(32, DT)
{block_reduce}
    if gpu.gridDim.x == 1:
        if tid == 0:
            if use_init:
                acc = DT(reduce_op(acc, init))
            out[0] = acc
    else:
        # Each block leaves its value in partials; the block that finishes last reduces them. atomic.inc
        # wraps the counter back to 0 as the last block counts itself, so it is ready for the next call.
        last = gpu.shared.array(1, np.int32)
        if tid == 0:
            partials[gpu.blockIdx.x] = acc
            gpu.threadfence()
            nblocks = np.uint32(gpu.gridDim.x)
            last[0] = np.int32(gpu.atomic.inc(counter, 0, nblocks - np.uint32(1)) == nblocks - np.uint32(1))
        gpu.syncthreads()
        if last[0] != 0:
            m = np.uint64(gpu.gridDim.x)
            nvalid = np.int64(min(m, np.uint64(nthreads)))
            j = np.uint64(tid)
            if j < m:
                acc = {partial}
                j += np.uint64(nthreads)
                while j < m:
                    acc = DT(reduce_op(acc, {partial}))
                    j += np.uint64(nthreads)
{block_reduce2}
            if tid == 0:
                if use_init:
                    acc = DT(reduce_op(acc, init))
                out[0] = acc
'''

# The first step, for any array: each thread folds a grid-stride slice of elements into `acc`, `unroll`
# independent loads per step. `nvalid` counts the threads of the block that hold at least one element (the
# grid is never wider than the array, so every block has one).
_SCALAR_FOLD = '''\
    nvalid = np.int64(min(n - start, np.uint64(nthreads)))
    i = start + np.uint64(tid)
    acc = arr[0]
    if i < n:
        acc = arr[i]
        i += stride
{offsets}
        while i + step_{last} < n:
{loads}
            acc = DT(reduce_op(acc, {tree}))
        while i < n:
            acc = DT(reduce_op(acc, arr[i]))
            i += stride
'''

# The first step for a C-contiguous array whose data starts at a multiple of 16 bytes (the caller checks, and
# promises it with assume_aligned): each thread folds a grid-stride slice of 16-byte vectors, whose `width`
# neighbouring elements LLVM loads as one access (ld.global.v4.f32 and the like), `unroll` vectors per step;
# the first threads also take one element each of the tail after the last whole vector. The threads holding
# anything are again a prefix of the grid: those below max(vectors, tail elements).
_VECTOR_FOLD = '''\
    gpu.assume_aligned(arr, 16)
    nvec = n // np.uint64({width})
    tail = nvec * np.uint64({width})
    units = max(nvec, n - tail)
    nvalid = np.int64(min(units - start, np.uint64(nthreads)))
    g = start + np.uint64(tid)
    i = g
    acc = arr[0]
    if i < nvec:
        b = i * np.uint64({width})
        acc = {vector}
        i += stride
{offsets}
        while i + step_{last} < nvec:
{loads}
            acc = DT(reduce_op(acc, {tree}))
        while i < nvec:
            b = i * np.uint64({width})
            acc = DT(reduce_op(acc, {vector}))
            i += stride
        if g < n - tail:
            acc = DT(reduce_op(acc, arr[tail + g]))
    elif g < units:
        acc = arr[tail + g]
'''

# The block's `nvalid` values (one per live thread, in `acc`) reduced into `acc` of thread 0: each warp with
# shuffles, lane 0 of each warp into shared memory, then the first warp the same way.
_BLOCK_REDUCE = '''\
lane = tid % 32
warp = tid // 32
live = nvalid - warp * 32
offset = 16
while offset > 0:
    other = {shuffle}
    if lane + offset < live:
        acc = DT(reduce_op(acc, other))
    offset //= 2
if lane == 0 and live > 0:
    warp_values[warp] = acc
gpu.syncthreads()
if warp == 0:
    live = (nvalid + 31) // 32
    if lane < live:
        acc = warp_values[lane]
    offset = 16
    while offset > 0:
        other = {shuffle}
        if lane + offset < live:
            acc = DT(reduce_op(acc, other))
        offset //= 2
'''


def _unroll(dtype):
    """Independent loads per thread and step of the scalar fold: 32 bytes' worth, at least 2 and at most 8."""
    return max(2, min(8, 32 // dtype.itemsize))


def vector_width(dtype):
    """Elements per 16-byte vector load for arrays of `dtype`, or 0 where the vector fold does not apply
    (bool and complex elements load as they are)."""
    return 16 // dtype.itemsize if dtype.kind in "iuf" else 0


_VECTORS_PER_STEP = 2  # 16-byte vectors each thread loads per step of the vector fold: 32 bytes, as above


def _step_offsets(unroll):
    # step_k = k * stride, as uint64 sums (a literal int times a uint64 would be float64, as in numba).
    return "\n".join(f"        step_{k} = step_{k - 1} + stride" if k > 1 else "        step_1 = stride"
                     for k in range(1, unroll))


def _fold(dtype, vector):
    """The text of the kernel's first step, scalar or vector (see _SCALAR_FOLD and _VECTOR_FOLD)."""
    if not vector:
        unroll = _unroll(dtype)
        loads = "\n".join(f"            v{k} = arr[i]\n            i += stride" for k in range(unroll))
        return _SCALAR_FOLD.format(offsets=_step_offsets(unroll), last=unroll - 1, loads=loads,
                                   tree=_pairwise([f"v{k}" for k in range(unroll)]))
    width, unroll = vector_width(dtype), _VECTORS_PER_STEP
    elements = lambda base: [f"arr[{base} + np.uint64({k})]" if k else f"arr[{base}]"  # noqa: E731
                             for k in range(width)]
    loads = "\n".join(f"            b{u} = i * np.uint64({width})\n" +
                      "".join(f"            v{u}_{k} = {e}\n" for k, e in enumerate(elements(f"b{u}"))) +
                      "            i += stride" for u in range(unroll))
    return _VECTOR_FOLD.format(width=width, vector=_pairwise(elements("b")), offsets=_step_offsets(unroll),
                               last=unroll - 1, loads=loads,
                               tree=_pairwise([f"v{u}_{k}" for u in range(unroll) for k in range(width)]))


def _shuffle(dtype):
    """The kernel expression giving `acc` of lane `lane + offset`, for this dtype."""
    shfl = "gpu.shfl_down_sync(0xffffffff, {}, offset)"
    if dtype.kind == "c":
        return f"DT(complex({shfl.format('acc.real')}, {shfl.format('acc.imag')}))"
    if dtype.kind == "f" and dtype.itemsize < 4:
        return f"DT({shfl.format('np.float32(acc)')})"
    if dtype.itemsize < 4:  # bool, int8/16, uint8/16: exact through int32
        return f"DT({shfl.format('np.int32(acc)')})"
    return f"DT({shfl.format('acc')})"


def _pairwise(names):
    """`reduce_op` applied as a balanced tree over `names`: short dependency chains between the loads."""
    while len(names) > 1:
        names = [f"DT(reduce_op({a}, {b}))" for a, b in zip(names[::2], names[1::2])] + names[len(names) & ~1:]
    return names[0]


def kernel_source(name, dtype, vector=False):
    """The text of the reduction kernel for arrays of `dtype` (a NumPy dtype); with `vector`, the variant
    for C-contiguous arrays whose data starts at a multiple of 16 bytes (needs vector_width(dtype) > 0)."""
    block_reduce = _BLOCK_REDUCE.format(shuffle=_shuffle(dtype))
    # ld.global.cg reads the other blocks' values from L2, where their fenced stores went; it moves integers
    # and floats. A plain load is right too (this block has not read `partials` before, so its L1 holds none
    # of them), and is what bool and complex partials take.
    partial = "gpu.ldcg(partials, j)" if dtype.kind in "iuf" else "partials[j]"
    indent = lambda text, by: "".join(" " * by + line for line in text.splitlines(True))  # noqa: E731
    return _KERNEL.format(name=name, fold=_fold(dtype, vector).rstrip("\n"), partial=partial,
                          block_reduce=indent(block_reduce, 4).rstrip("\n"),
                          block_reduce2=indent(block_reduce, 12).rstrip("\n"))


class Reduce:
    """A reduction of 1-D arrays by a binary function, as numba-cuda's `cuda.Reduce`.

    `fn(a, b)` must be associative and commutative (the order in which elements meet is the GPU's), and
    compile as a gpujit device function for the array's dtype; its result is converted to that dtype.
    """

    def __init__(self, functor):
        from . import _dispatcher

        # Another library's jitted function (numba's CUDADispatcher) is compiled here from its Python function.
        pyfunc = getattr(functor, "py_func", functor)
        code = getattr(pyfunc, "__code__", None)
        if code is not None:
            required = code.co_argcount - len(getattr(pyfunc, "__defaults__", None) or ())
            if not required <= 2 <= code.co_argcount or code.co_flags & 0x0C:
                raise TypeError(f"gpu.reduce needs a function of two arguments; '{pyfunc.__name__}' "
                                f"({code.co_filename}:{code.co_firstlineno}) takes {code.co_argcount}")
        if isinstance(functor, _dispatcher.Dispatcher):
            if not functor.device:
                raise TypeError(f"gpu.reduce needs a binary device function or a plain function; "
                                f"'{functor.__name__}' is a kernel (decorate it with @gpu.jit(device=True) "
                                "or not at all)")
            self._op = functor
        elif callable(pyfunc) and hasattr(pyfunc, "__code__"):
            self._op = _dispatcher.jit(device=True)(pyfunc)
        else:
            raise TypeError(f"gpu.reduce needs a binary Python function (def or lambda); got "
                            f"{type(functor).__name__} object {functor!r}")
        self._functor = functor
        self.__name__ = getattr(functor, "__name__", "reduce")
        self.__doc__ = getattr(functor, "__doc__", None)
        self._kernels = {}  # dtype -> kernel dispatcher
        self._quiet_grids = set()  # (kernel, blocks) configured once without the low-occupancy warning

    def __repr__(self):
        return f"<gpujit.Reduce of {self.__name__}>"

    # -----------------------------------------------------------------------------------------------------
    # The generated kernels

    def _kernel_name(self, dtype, vector=False):
        stem = "".join(c if c.isalnum() else "_" for c in self.__name__)
        return f"reduce_{stem}_{dtype.name}{'_v16' if vector else ''}"

    def _configured(self, kernel, blocks, threads, stream):
        """kernel[blocks, threads, stream], without numba's low-occupancy warning: a reduction's small grids
        (its one-block second pass) are chosen, not a user's mistake. The dispatcher warns once per grid
        size, so only the first configuration of each size needs the filter."""
        if (kernel, blocks) in self._quiet_grids:
            return kernel[blocks, threads, stream]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PerformanceWarning)
            launcher = kernel[blocks, threads, stream]
        self._quiet_grids.add((kernel, blocks))
        return launcher

    def _filename(self, dtype, vector=False):
        return f"<gpujit.reduce {self._kernel_name(dtype, vector)} {id(self):x}>"

    def _compile_error(self, error, dtype):
        """A CompileError of the generated kernel (not of the user's function, whose errors name its own
        lines) as the TypeError it means: the function does not reduce values of this dtype."""
        if getattr(error, "filename", None) not in (self._filename(dtype), self._filename(dtype, True)):
            return error
        code = self._op.py_func.__code__
        first = str(error).splitlines()[0]
        reason = first.split(": error: ", 1)[-1]
        return TypeError(f"gpu.reduce cannot reduce {dtype} arrays with '{self.__name__}' ({code.co_filename}:"
                         f"{code.co_firstlineno}): it is called with two {dtype} values and must return a number "
                         f"(converted to {dtype}); compiling the reduction said: {reason}")

    def kernel_source(self, dtype, vector=False):
        """The source text of the kernel that reduces arrays of `dtype`; with `vector`, of the one for
        C-contiguous arrays whose data starts at a multiple of 16 bytes (for integer and float dtypes)."""
        import numpy as np

        dtype = np.dtype(dtype)
        return kernel_source(self._kernel_name(dtype, vector), dtype, vector)

    def _kernel(self, dtype, vector=False):
        kernel = self._kernels.get((dtype, vector))
        if kernel is None:
            import linecache  # here, not at `import gpujit`: it brings tokenize, some ms at every start

            import numpy as np

            from . import _dispatcher

            name = self._kernel_name(dtype, vector)
            text = kernel_source(name, dtype, vector)
            # The compiler reads a kernel's text through linecache; one file name per generated text.
            filename = self._filename(dtype, vector)
            linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
            # `gpu` is the kernel namespace, as the package's kernels name it (_kernel_api.py).
            namespace = {"gpu": _kernel_api, "np": np, "DT": dtype.type, "reduce_op": self._op}
            exec(compile(text, filename, "exec"), namespace)
            kernel = _dispatcher.jit(namespace[name])
            self._kernels[(dtype, vector)] = kernel
        return kernel

    def inspect_ptx(self, dtype, vector=False):
        """The PTX of the kernel that reduces C-contiguous arrays of `dtype`, the user's function inlined;
        with `vector`, of the one for arrays whose data starts at a multiple of 16 bytes."""
        import numpy as np

        dtype = np.dtype(dtype)
        t = dtype.name if dtype.kind != "b" else "boolean"
        if vector and not vector_width(dtype):
            raise ValueError(f"gpu.reduce has no vector kernel for {dtype} arrays (integers and floats only)")
        try:
            return self._kernel(dtype, vector).inspect_ptx(f"void({t}[::1], {t}[::1], {t}[::1], uint32[::1], {t}, boolean)")
        except CompileError as e:
            raise self._compile_error(e, dtype) from None

    # -----------------------------------------------------------------------------------------------------
    # The call

    def __call__(self, arr, size=None, res=None, init=None, stream=0):
        """Reduces the 1-D array `arr` (a host or device array) and returns the result as a NumPy scalar of
        its dtype, or, with `res` (a device array), writes it into `res[0]` on the device and returns None.

        `size` reduces the first `size` elements only. `init`, when given, is combined once with the
        elements. An empty array reduces to `init`, or without it to 0, as in numba-cuda (whose `init`
        defaults to 0); a non-empty array without `init` reduces its elements alone. Everything runs on
        `stream`; the call returns when the result is on the host (without `res`), else at once.
        """
        import numpy as np

        arr, on_device = _as_array(arr)
        if arr.ndim != 1:
            raise TypeError(f"gpu.reduce reduces 1-D arrays; got a {arr.ndim}-D array of shape {tuple(arr.shape)} "
                            "(pass arr.ravel() to reduce every element)")
        dtype = np.dtype(arr.dtype)
        if dtype.kind not in "biufc":
            raise TypeError(f"gpu.reduce reduces arrays of numbers; got dtype {dtype}")
        if size is not None:
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
                raise TypeError(f"size must be an int; got {type(size).__name__}")
            if not 0 <= size <= arr.shape[0]:
                raise ValueError(f"size={size} is outside the array's length {arr.shape[0]}")
            arr = arr[:size]
        if res is not None:
            res = _result_array(res, dtype)
        init_value = None if init is None else _converted_init(init, dtype)
        n = arr.shape[0]

        if n == 0:
            if init_value is None:
                # numba-cuda's init defaults to 0, so an empty array reduces to 0 there; programs rely on it.
                init_value = dtype.type(0)
            if res is None:
                return init_value
            res[:1].copy_to_device(np.array([init_value], dtype=dtype), stream=stream)
            return None

        if not on_device:
            arr = _core.to_device(np.ascontiguousarray(arr), stream=stream)
        # 16-byte loads where the array allows them: contiguous, its data at a multiple of 16 bytes.
        width = vector_width(dtype)
        vector = bool(width) and n >= 2 * width and arr.is_c_contiguous() and \
            arr.device_ctypes_pointer.value % 16 == 0
        kernel = self._kernel(dtype, vector)
        blocks = _first_pass_blocks(max(n // width, n % width) if vector else n)
        use_init = init_value is not None
        init_arg = init_value if use_init else dtype.type(0)
        # Without `res`, the last block writes the result straight into mapped host memory and the call waits
        # for the stream: no copy after the kernel (a stream given as a raw handle takes a device slot and a
        # copy instead).
        wait = None if res is not None else _stream_wait(stream)
        slot = _mapped_result(dtype) if wait is not None else None
        # One launch: every block leaves its value in `partials` and the last block to finish reduces them.
        scratch = _core.device_array((1 if res is None and slot is None else 0) + (blocks if blocks > 1 else 1),
                                     dtype, stream=stream)
        out = res if res is not None else slot[1] if slot is not None else scratch[:1]
        partials = scratch[1:] if res is None and slot is None and blocks > 1 else scratch
        try:
            self._configured(kernel, blocks, _THREADS, stream)(arr, out, partials, _counter(stream), init_arg,
                                                              use_init)
        except CompileError as e:
            raise self._compile_error(e, dtype) from None
        if res is not None:
            return None
        if slot is not None:
            try:
                wait()
            except BaseException:  # a Ctrl-C or a kernel's error: the kernel may still write the slot later
                _mapped_results.slots.pop((_core.get_current_device(), dtype), None)
                raise
            return slot[0][0]
        host = out.copy_to_host(stream=stream)
        if stream is not None and not isinstance(stream, int):
            stream.synchronize()  # a copy on a stream is asynchronous
        return host[0]


# numba-cuda spells the class both ways: cuda.reduce(fn) and cuda.Reduce(fn) build the same object, and
# `@cuda.reduce` decorates a function.
reduce = Reduce


def _as_array(arr):
    """(array, on_device): a DeviceArray as it is, another library's device array as a DeviceArray over it
    (as_device_operand: a PyTorch tensor or CuPy array read as a launch reads it, with no wait for a stream),
    anything else as a NumPy array."""
    if isinstance(arr, _core.DeviceArray):
        return arr, True
    if not isinstance(arr, type):
        foreign = _core._foreign_device_array(arr)
        if foreign is not None:
            return foreign, True
        if hasattr(arr, "__cuda_array_interface__"):
            return as_cuda_array(arr), True
    import numpy as np

    try:
        return np.asarray(arr), False
    except Exception as e:
        raise TypeError(f"gpu.reduce takes a 1-D host or device array; got {type(arr).__name__} ({e})") from None


def _result_array(res, dtype):
    """`res` as a DeviceArray (a view of a foreign device array), after checking it can take the result."""
    if not isinstance(res, (_core.DeviceArray, type)):
        foreign = _core._foreign_device_array(res)  # a tensor or CuPy array: no interface dict, no wait
        if foreign is not None:
            res = foreign
    if isinstance(res, type) or not (isinstance(res, _core.DeviceArray) or hasattr(res, "__cuda_array_interface__")):
        raise TypeError(f"res must be a device array (gpu.device_array(1, dtype)); got {type(res).__name__} "
                        "(without res, the result is returned to the host)")
    import numpy as np

    if not isinstance(res, _core.DeviceArray):
        res = as_device_operand(res)
    if np.dtype(res.dtype) != dtype:
        raise TypeError(f"res has dtype {np.dtype(res.dtype)}, the array has {dtype}; they must match")
    if res.ndim != 1 or res.shape[0] < 1:
        raise ValueError(f"res must be a 1-D device array with at least one element; got shape {tuple(res.shape)}")
    return res


def _converted_init(init, dtype):
    """`init` as a scalar of `dtype`; a value the dtype cannot hold is an error, not a silent change."""
    import numpy as np

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # complex to real drops the imaginary part with a ComplexWarning
            value = dtype.type(init)
            exact = dtype.kind in "fc" or bool(value == init)
    except (TypeError, ValueError, OverflowError, Warning) as e:
        raise TypeError(f"init={init!r} cannot be converted to the array's dtype {dtype} ({e})") from None
    if not exact:
        raise TypeError(f"init={init!r} is not a value of the array's dtype {dtype}")
    return value


_counters = {}  # (device, stream handle) -> the uint32 block counter of single-launch reductions on it


def _counter(stream):
    """The block counter for reductions on `stream` of the current device: zero between calls (the last block
    of each call wraps it back), one per stream so that reductions on different streams never share one."""
    import numpy as np

    handle = getattr(stream, "handle", stream) or 0
    handle = getattr(handle, "value", handle)  # numba's stream handles are ctypes pointers
    key = (_core.get_current_device(), handle)
    counter = _counters.get(key)
    if counter is None:
        counter = _counters[key] = _core.to_device(np.zeros(1, dtype=np.uint32))
    return counter


def _stream_wait(stream):
    """A function that waits for the work on `stream` (0 or None: the default stream), or None for a stream
    given as a raw handle (an int other than 0), which the copy-back path takes instead."""
    if stream is None or (isinstance(stream, int) and stream == 0):
        return _core.default_stream().synchronize
    synchronize = getattr(stream, "synchronize", None)
    return synchronize if callable(synchronize) else None


# Per thread, (device, dtype) -> (mapped host array of one element, the DeviceArray over it).
_mapped_results = threading.local()


def _mapped_result(dtype):
    """Where a reduction without `res` leaves its result: one element of mapped host memory, which the last
    block writes and the host reads once the stream is done, so no copy follows the kernel (cp.sum's
    `float()` copies). One per thread and device: a thread's reductions run one after another, each waiting
    for its kernel before it returns, so they can share one; reductions in two threads never do."""
    slots = getattr(_mapped_results, "slots", None)
    if slots is None:
        slots = _mapped_results.slots = {}
    key = (_core.get_current_device(), dtype)
    slot = slots.get(key)
    if slot is None:
        host = mapped_array(1, dtype)
        slot = slots[key] = (host, as_cuda_array(host, sync=False))
    return slot


_multiprocessors = {}  # device -> its multiprocessor count, read once


def _first_pass_blocks(n):
    """Blocks of _THREADS for the first pass: enough to fill the device, at most one per _THREADS elements."""
    device = _core.get_current_device()
    multiprocessors = _multiprocessors.get(device)
    if multiprocessors is None:
        multiprocessors = _multiprocessors[device] = device.MULTIPROCESSOR_COUNT
    return max(1, min(-(-n // _THREADS), multiprocessors * _BLOCKS_PER_SM))
