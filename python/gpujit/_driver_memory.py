"""numba.cuda.cudadrv.driver's memory functions, on gpujit's devices: copies and memset between raw device
memory and host buffers, and the helpers that find a memory object's pointer and extent.

They take what numba's take: device memory is an object with `__cuda_memory__` (a MemoryPointer,
OwnedPointer, a device array) or, beyond numba, with `__cuda_array_interface__` (a mapped or managed host
array); host memory is an int address or any object with the buffer protocol (a NumPy array, a ctypes
object, a mapped memory pointer). `size` is in bytes; `stream=0` makes the call synchronous, a stream makes it
asynchronous in that stream's order. The copies go through the current device (the CPU backend's device
memory is host memory, so they are plain copies there).

Layer "base" of the Python package (docs/architecture.md): imports only _core and base modules.
"""


from ._memory_pointers import _bytes_view


def is_device_memory(obj):
    """Whether `obj` is CUDA memory: it has a true `__cuda_memory__` (numba's test)."""
    return bool(getattr(obj, "__cuda_memory__", False))


def require_device_memory(obj):
    """Raises TypeError unless `obj` is CUDA memory."""
    if not is_device_memory(obj):
        raise TypeError(f"not a CUDA memory object: {type(obj).__name__} (a device array or memory pointer "
                        "is one)")


def device_ctypes_pointer(obj):
    """The device address of CUDA memory as a ctypes object (c_void_p(0) for None)."""
    if obj is None:
        import ctypes  # here, not at `import gpujit`: some ms at every start (benchmarks/import_time.py)

        return ctypes.c_void_p(0)
    require_device_memory(obj)
    return obj.device_ctypes_pointer


def device_pointer(obj):
    """The device address of CUDA memory as an int."""
    return device_ctypes_pointer(obj).value or 0


def _device_address(obj):
    """The device address of CUDA memory, or of an object with a __cuda_array_interface__ (mapped arrays)."""
    if is_device_memory(obj):
        return device_pointer(obj)
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return interface["data"][0]
    require_device_memory(obj)


def _readable(obj):
    """`obj` viewed as something the buffer protocol exports (NumPy's datetime types are not)."""
    dtype = getattr(obj, "dtype", None)
    if dtype is not None and dtype.char in "Mm":
        return obj.view("i8")
    return obj


def host_memory_extents(obj):
    """(start, end): the half-open address range of a host buffer's memory."""
    import numpy as np

    obj = _readable(obj)
    if isinstance(obj, np.ndarray):
        data = obj.__array_interface__["data"][0]
        if obj.size == 0:
            return data, data
        low = sum((n - 1) * s for n, s in zip(obj.shape, obj.strides) if s < 0)
        high = sum((n - 1) * s for n, s in zip(obj.shape, obj.strides) if s > 0)
        return data + low, data + high + obj.itemsize
    import ctypes

    if isinstance(obj, ctypes._SimpleCData) or isinstance(obj, (ctypes.Structure, ctypes.Union, ctypes.Array)):
        start = ctypes.addressof(obj)
        return start, start + ctypes.sizeof(obj)
    view = memoryview(obj)
    start = np.frombuffer(view.cast("B"), dtype=np.uint8).__array_interface__["data"][0] if view.nbytes else 0
    return start, start + view.nbytes


def host_memory_size(obj):
    """The bytes a host buffer spans."""
    start, end = host_memory_extents(obj)
    return end - start


def host_pointer(obj, readonly=False):
    """The address of a host buffer (an int is an address already). `readonly=False` requires a writable one."""
    import numpy as np

    if isinstance(obj, int):
        return obj
    obj = _readable(obj)
    if isinstance(obj, np.ndarray):
        if not readonly and not obj.flags.writeable:
            raise ValueError("the host array is read-only, and this copy writes to it")
        return obj.__array_interface__["data"][0]
    if not readonly and memoryview(obj).readonly:
        raise ValueError(f"the {type(obj).__name__} is read-only, and this copy writes to it")
    return host_memory_extents(obj)[0]


def device_memory_size(devmem):
    """The bytes of CUDA memory: its `_cuda_memsize_`, an array's span, else the driver's allocation size."""
    size = getattr(devmem, "_cuda_memsize_", None)
    if size is not None:
        return size
    if getattr(devmem, "__cuda_array_interface__", None) is not None and hasattr(devmem, "dtype"):
        import numpy as np

        shape, strides = devmem.shape, devmem.strides
        if devmem.size == 0:
            return 0
        high = sum((n - 1) * abs(s) for n, s in zip(shape, strides))
        return int(high + np.dtype(devmem.dtype).itemsize)
    from ._ipc import device_extents

    start, end = device_extents(devmem)
    return end - start


def _host_bytes(address, size):
    import ctypes

    import numpy as np

    return np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(address)) if size else \
        np.empty(0, dtype=np.uint8)


def _check_size(size):
    if not isinstance(size, int) and not hasattr(size, "__index__"):
        raise TypeError(f"size must be an int (bytes), not {type(size).__name__}")
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be 0 or more bytes, not {size}")
    return size


def host_to_device(dst, src, size, stream=0):
    """Copies `size` bytes from host buffer `src` to CUDA memory `dst`."""
    size = _check_size(size)
    if size:
        _bytes_view(_device_address(dst), size, dst).copy_to_device(
            _host_bytes(host_pointer(src, readonly=True), size), stream=stream)


def device_to_host(dst, src, size, stream=0):
    """Copies `size` bytes from CUDA memory `src` to host buffer `dst`."""
    size = _check_size(size)
    if size:
        _bytes_view(_device_address(src), size, src).copy_to_host(_host_bytes(host_pointer(dst), size),
                                                                  stream=stream)


def device_to_device(dst, src, size, stream=0):
    """Copies `size` bytes from CUDA memory `src` to CUDA memory `dst`."""
    size = _check_size(size)
    if size:
        _bytes_view(_device_address(dst), size, dst).copy_to_device(
            _bytes_view(_device_address(src), size, src), stream=stream)


def device_memset(dst, val, size, stream=0):
    """Sets `size` bytes of CUDA memory `dst` to the byte `val` (its low 8 bits)."""
    import numpy as np

    size = _check_size(size)
    if size:
        _bytes_view(_device_address(dst), size, dst).copy_to_device(np.full(size, int(val) & 0xFF, np.uint8),
                                                                    stream=stream)


def device_memory_depends(devmem, *objs):
    """Keeps `objs` alive as long as `devmem` (memory holding pointers to them)."""
    depends = getattr(devmem, "_depends_", None)
    if depends is None:
        depends = []
        try:
            devmem._depends_ = depends
        except AttributeError:
            raise TypeError(f"cannot record dependencies on a {type(devmem).__name__}") from None
    depends.extend(objs)
