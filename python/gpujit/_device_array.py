"""numba-cuda's DeviceNDArray API on gpujit's DeviceArray, written in Python over the C++ class.

The C++ class (python/src/arrays.cpp) owns storage, copies and basic indexing. What numba-cuda's
DeviceNDArray adds on top is attached here to the pybind11 class itself, so that every DeviceArray (made by
to_device, device_array, slicing or a kernel) has it: `flags`, `alloc_size`, `gpu_data`, `T`/`transpose`,
`view(dtype)`, `split`, `squeeze`, `__array__`, `_numba_type_`, the fields of records, and the constructor
`DeviceArray(shape, strides, dtype, stream=0, gpu_data=None)`. numba's DeviceRecord, one record in device
memory, is a 0-d DeviceArray of a structured dtype here (what indexing an array of records gives);
`DeviceRecord`, `from_record_like`, `from_array_like` and `auto_device` are numba's devicearray functions.

Every new view is made by `_core._device_view`, which keeps the memory's owner (the DeviceArray's storage, or
the DeviceMemory it is given) alive for as long as the view lives, so a view never outlives its allocation.

Three places follow numba-cuda rather than NumPy, because numba-cuda's users rely on them:
- `transpose` of a 2-D array returns a new C-contiguous array (numba-cuda runs a transpose kernel), not a
  strided view; numba's documentation notes the strides differ from NumPy's (numba issue #4974).
- `flags` is a mapping with the keys 'C_CONTIGUOUS' and 'F_CONTIGUOUS', as numba-cuda's is; it also answers
  NumPy's attribute spelling (`flags.c_contiguous`), which code written for NumPy arrays uses.
- Errors a numba-cuda program may catch and match carry numba's text (`invalid axes list (0, 0)`, "When changing
  to a larger dtype, ..."), where it says what NumPy's would.

NumPy is imported on first use, not on `import gpujit`.

Layer "on the dispatcher" of the Python package (docs/architecture.md): imports _dispatcher for a kernel.
"""

import math

from . import _core
from . import _kernel_api as gpu  # the kernel namespace _transpose_2d is written against (_kernel_api.py)

DeviceArray = _core.DeviceArray


class DeviceMemory:
    """A span of device memory: numba's `gpu_data` (its MemoryPointer), as far as users reach for one.

    `owner` is whatever keeps the memory allocated (a DeviceArray, or a foreign object); it is held here.
    """

    __slots__ = ("ptr", "size", "owner")

    def __init__(self, ptr, size, owner):
        self.ptr = int(ptr)
        self.size = int(size)
        self.owner = owner

    @property
    def device_ctypes_pointer(self):
        import ctypes

        return ctypes.c_void_p(self.ptr or None)

    @property
    def device_pointer_value(self):
        return self.ptr

    @property
    def device_pointer(self):
        """numba's MemoryPointer.device_pointer (a CUdeviceptr there): the address, which int() reads."""
        return self.ptr

    handle = device_pointer

    def view(self, start, stop=None):
        """The bytes [start, stop) of this span, sharing its memory and its owner."""
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise ValueError(f"DeviceMemory.view({start}, {stop}) is outside the {self.size} bytes of this span")
        return DeviceMemory(self.ptr + start if self.ptr else 0, stop - start, self)

    def __repr__(self):
        return f"<gpujit.DeviceMemory ptr=0x{self.ptr:x} size={self.size}>"

    # Each `gpu_data` read makes a new object, so spans are equal by what they cover: an array and its views
    # of another dtype (a.view(np.int64)) have equal gpu_data, as numba's share one MemoryPointer.
    def __eq__(self, other):
        if not isinstance(other, DeviceMemory):
            return NotImplemented
        return (self.ptr, self.size) == (other.ptr, other.size)

    def __hash__(self):
        return hash((self.ptr, self.size))


class Flags(dict):
    """numba's `DeviceNDArray.flags`: {'C_CONTIGUOUS': bool, 'F_CONTIGUOUS': bool}, with NumPy's attribute names."""

    @property
    def c_contiguous(self):
        return self["C_CONTIGUOUS"]

    @property
    def f_contiguous(self):
        return self["F_CONTIGUOUS"]

    @property
    def contiguous(self):
        return self["C_CONTIGUOUS"]


def _alloc_size(shape, strides, itemsize):
    """Bytes spanned by an array: from its lowest to just past its highest element (0 when it is empty)."""
    if any(n == 0 for n in shape):
        return 0
    return itemsize + sum((n - 1) * abs(s) for n, s in zip(shape, strides))


def _lowest_offset(shape, strides):
    """Byte offset of the lowest-addressed element from element [0, ..., 0] (negative strides reach below it)."""
    return sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n > 0)


def _as_int_tuple(value, what):
    import numpy as np

    if isinstance(value, (int, np.integer)):
        return (int(value),)
    out = []
    for v in value:
        if not isinstance(v, (int, np.integer)):
            raise TypeError(f"DeviceArray {what} must be integers, got {type(v).__name__}")
        out.append(int(v))
    return tuple(out)


def _make_view(shape, strides, dtype, ptr, owner, stream=0):
    """A DeviceArray of the memory at `ptr`, keeping `owner` (a DeviceArray or a DeviceMemory) alive."""
    return _core._device_view(owner, ptr, tuple(shape), tuple(strides), dtype, stream)


def _new(cls, shape, strides, dtype, stream=0, gpu_data=None):
    """numba's DeviceNDArray(shape, strides, dtype, stream=0, gpu_data=None).

    With `gpu_data` (a DeviceMemory, e.g. another array's `.gpu_data`) the array is a view of that memory;
    without it, new device memory is allocated to span `strides`.
    """
    import numpy as np

    shape = _as_int_tuple(shape, "shape")
    strides = _as_int_tuple(strides, "strides")
    dtype = np.dtype(dtype)
    if len(strides) != len(shape):
        raise ValueError(f"DeviceArray strides {strides} do not match the {len(shape)} dimensions of shape {shape}")
    if any(n < 0 for n in shape):
        raise ValueError(f"DeviceArray shape {shape} has a negative dimension")
    size = _alloc_size(shape, strides, dtype.itemsize)
    if gpu_data is None:
        owner = _core.device_array(max(size, 1), dtype=np.uint8, stream=stream)
        ptr = owner.device_ctypes_pointer.value - _lowest_offset(shape, strides)
    else:
        if not isinstance(gpu_data, DeviceMemory):
            raise TypeError(f"DeviceArray gpu_data must be a DeviceMemory (an array's .gpu_data), "
                            f"not {type(gpu_data).__name__}")
        if size > gpu_data.size:
            raise ValueError(f"DeviceArray of shape {shape} and strides {strides} spans {size} bytes; "
                             f"gpu_data has {gpu_data.size}")
        owner, ptr = gpu_data, gpu_data.ptr - _lowest_offset(shape, strides)
    return _make_view(shape, strides, dtype, ptr if size else 0, owner, stream)


def _init(self, *args, **kwargs):
    """The array was made whole by __new__; pybind11's own __init__ would refuse (the class has no constructor)."""


def _flags(self):
    return Flags(C_CONTIGUOUS=self.is_c_contiguous(), F_CONTIGUOUS=self.is_f_contiguous())


def _alloc_size_of(self):
    return _alloc_size(self.shape, self.strides, self.itemsize)


def _gpu_data(self):
    """The memory this array spans, from its lowest-addressed element, owned by the array."""
    ptr = self.device_ctypes_pointer.value or 0
    lo = _lowest_offset(self.shape, self.strides)
    size = _alloc_size_of(self)
    return DeviceMemory(ptr + lo if size else 0, size, self)


_transpose_kernel = None


def _transpose_2d(src, dst):
    # A gpujit kernel: one thread per element of dst.
    i, j = gpu.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[j, i]


def _transpose(self, axes=None):
    """numba's transpose: `self` for the identity permutation (and for 0-d and 1-D arrays, as NumPy); for 2-D
    arrays, a new C-contiguous copy; NotImplementedError for more dimensions. Errors in numba's words."""
    ndim = self.ndim
    if axes is not None:
        axes = tuple(axes)
        if axes == tuple(range(ndim)):
            return self
    if ndim > 2:
        raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
    if axes is not None and sorted(axes) != list(range(ndim)):
        raise ValueError(f"invalid axes list {axes!r}")
    if ndim < 2:
        return self
    global _transpose_kernel
    if _transpose_kernel is None:
        from ._dispatcher import jit

        _transpose_kernel = jit(_transpose_2d)
    rows, cols = self.shape[1], self.shape[0]
    out = _core.device_array((rows, cols), dtype=self.dtype, stream=self.stream)
    if out.size:
        tile = 16
        blocks = ((rows + tile - 1) // tile, (cols + tile - 1) // tile)
        _transpose_kernel[blocks, (tile, tile), self.stream](self, out)
    return out


def _view(self, dtype):
    """The same memory read as `dtype`: numba's (and NumPy's) ndarray.view(dtype), no copy."""
    import numpy as np

    dtype = np.dtype(dtype)
    shape, strides = list(self.shape), list(self.strides)
    if dtype.itemsize != self.itemsize:
        if self.ndim == 0:
            raise ValueError(f"a 0-d device array of {self.dtype} cannot be viewed as {dtype}, which has another size")
        if self.strides[-1] != self.itemsize and self.shape[-1] != 1:
            # NumPy's rule (and words) since 1.23; numba-cuda asks for a C-contiguous array
            raise ValueError("To change to a dtype of a different size, the last axis must be contiguous")
        shape[-1], rem = divmod(shape[-1] * self.itemsize, dtype.itemsize)
        if rem:
            raise ValueError("When changing to a larger dtype, its size must be a divisor of the total size in "
                             "bytes of the last axis of the array.")
        strides[-1] = dtype.itemsize
    return _make_view(shape, strides, dtype, self.device_ctypes_pointer.value or 0, self, self.stream)


def _split(self, section, stream=0):
    """Views of consecutive `section`-element pieces of a 1-D unit-stride array; the last may be shorter."""
    if self.ndim != 1:
        raise ValueError(f"split needs a 1-D device array; this one has {self.ndim} dimensions")
    if self.strides[0] != self.itemsize:
        raise ValueError("split needs a device array of unit stride; this one is strided")
    if section <= 0:
        raise ValueError(f"split section must be positive, got {section}")
    count = int(math.ceil(self.size / section))
    return (self[i * section:min((i + 1) * section, self.size)] for i in range(count))


def _squeeze(self, axis=None, stream=0):
    """A view without the axes of length one (only those in `axis`, if given), as NumPy's squeeze."""
    if axis is None:
        drop = {i for i, n in enumerate(self.shape) if n == 1}
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        drop = set()
        for a in axes:
            if not -self.ndim <= a < self.ndim:
                raise ValueError(f"squeeze axis {a} is out of range for a {self.ndim}-D device array")
            a %= self.ndim
            if self.shape[a] != 1:
                raise ValueError(f"cannot squeeze axis {a}: its length is {self.shape[a]}, not 1")
            drop.add(a)
    keep = [i for i in range(self.ndim) if i not in drop]
    return _make_view([self.shape[i] for i in keep], [self.strides[i] for i in keep], self.dtype,
                      self.device_ctypes_pointer.value or 0, self, stream or self.stream)


def _array(self, dtype=None, copy=None):
    """np.asarray(device_array): a copy on the host (a copy is always made)."""
    if copy is False:
        raise ValueError("`copy=False` is not supported. A copy is always created: a device array's elements "
                         "are in device memory, and np.asarray(device_array) brings them to the host")
    host = self.copy_to_host()
    return host if dtype is None else host.astype(dtype, copy=False)


def _interface_stream(value):
    """The gpujit Stream a CUDA array interface's `stream` entry names (1 and 2: CUDA's default streams)."""
    if value == 1:
        return _core.legacy_default_stream()
    if value == 2:
        return _core.per_thread_default_stream()
    return _core.external_stream(value)


def _sync_interface_stream(value):
    """Waits for the stream a foreign array's interface names, unless config.CUDA_ARRAY_INTERFACE_SYNC is off
    (numba's rule for arrays it consumes, at as_cuda_array and at a launch). Called by the launch path too."""
    from . import config

    if config.CUDA_ARRAY_INTERFACE_SYNC:
        _interface_stream(value).synchronize()


def from_cuda_array_interface(desc, owner=None, sync=True):
    """numba's cuda.from_cuda_array_interface: a DeviceArray viewing the memory a CUDA Array Interface dict describes.

    `owner` is kept alive as long as the array. The interface's `stream` becomes the array's stream (an external
    one), and with `sync` (and config.CUDA_ARRAY_INTERFACE_SYNC on) it is synchronized first, so that the
    producer's work on the memory is done; with no stream (None) the array is on the default stream.
    """
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported")
    value = desc.get("stream")
    stream = None
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, int) or value == 0:
            raise ValueError(f"__cuda_array_interface__ stream must be None or a stream handle other than 0, "
                             f"not {value!r}")
        stream = _interface_stream(value)
        if sync:
            _sync_interface_stream(value)

    class _Described:
        __slots__ = ("__cuda_array_interface__", "owner")

    holder = _Described()
    holder.__cuda_array_interface__ = {k: v for k, v in desc.items() if k != "stream"}
    holder.owner = owner
    return _core._as_cuda_array(holder, stream)


def as_cuda_array(obj, sync=True):
    """numba's cuda.as_cuda_array: a DeviceArray sharing the memory of `obj` (a DeviceArray is returned as is).

    `obj` must have __cuda_array_interface__; it is kept alive as long as the array. With `sync` the stream the
    interface names is synchronized first (from_cuda_array_interface)."""
    if type(obj) is DeviceArray:
        return obj
    try:
        desc = obj.__cuda_array_interface__
    except AttributeError:
        return _core._as_cuda_array(obj)  # its error says what is missing
    if not isinstance(desc, dict):
        return _core._as_cuda_array(obj)
    return from_cuda_array_interface(desc, owner=obj, sync=sync)


def as_device_operand(obj):
    """`obj`, a device array of any kind, as a DeviceArray read the way a kernel launch reads it: a DeviceArray
    as it is; a PyTorch tensor or CuPy array through the library's own attributes (no interface dict, no wait
    for a stream: a launch makes neither, docs/python.md); any other __cuda_array_interface__ object through
    as_cuda_array (the interface's stream waited for, as a launch does). For the ufuncs and reductions, whose
    calls on foreign arrays then cost what their kernels' launches on them do."""
    if type(obj) is DeviceArray:
        return obj
    a = _core._foreign_device_array(obj)
    return a if a is not None else as_cuda_array(obj)


# ---- numba's type of an array ----

_numba = {}  # "types", "from_dtype": numba's, once looked up; "cache": (dtype, aligned, ndim, layout) -> type


def _numba_types():
    """numba's type namespace and its from_dtype: numba-cuda's own (numba.cuda.types), or numba's
    (numba.core.types) for a numba-cuda that has none; (None, None) without numba. Imported on first use."""
    if "types" not in _numba:
        try:
            from numba.cuda import types
            from numba.cuda.np.numpy_support import from_dtype
        except ImportError:
            try:
                from numba.core import types
                from numba.np.numpy_support import from_dtype
            except ImportError:
                types = from_dtype = None
        _numba.update(types=types, from_dtype=from_dtype, cache={})
    return _numba["types"], _numba["from_dtype"]


def _numba_type(self):
    """numba's type of the array, which numba reads from `_numba_type_`: Array(dtype, ndim, layout) with the
    layout numba-cuda gives (C when C-contiguous, else F when F-contiguous, else A, and A for a broadcast array
    whatever its flags), or the Record type for a record (a 0-d array of a structured dtype)."""
    types, from_dtype = _numba_types()
    if types is None:
        raise AttributeError("DeviceArray._numba_type_ is numba's type of the array, and numba is not installed")
    dtype = self.dtype
    if self.ndim == 0 and dtype.names is not None:
        return from_dtype(dtype)
    broadcast = 0 in self.strides and self.size != 0
    if self.is_c_contiguous() and not broadcast:
        layout = "C"
    elif self.is_f_contiguous() and not broadcast:
        layout = "F"
    else:
        layout = "A"
    # NumPy's dtype equality ignores align=True; numba's Record type does not.
    key = (dtype, dtype.isalignedstruct, self.ndim, layout)
    cache = _numba["cache"]
    if key not in cache:
        cache[key] = types.Array(from_dtype(dtype), self.ndim, layout)
    return cache[key]


# ---- records: fields, DeviceRecord, numba's devicearray functions ----


def _field(self, name):
    """(dtype, offset) of the field `name` of the array's records; KeyError (numba's exception) naming the fields."""
    fields = self.dtype.fields
    if name not in fields:
        raise KeyError(f"the records have no field {name!r}; their fields are {', '.join(map(repr, fields))}")
    return fields[name][:2]


def _sync(stream):
    """Waits for `stream` (a Stream object, or another library's handle); nothing for 0."""
    if not stream:
        return
    if isinstance(stream, _core.Stream):
        stream.synchronize()
    else:
        _core.external_stream(int(stream)).synchronize()


def _bytes_of(self, offset, nbytes, stream):
    """The `nbytes` bytes at `offset` from the array's first element, as a 1-D uint8 DeviceArray."""
    import numpy as np

    return _make_view((nbytes,), (1,), np.dtype(np.uint8), (self.device_ctypes_pointer.value or 0) + offset, self,
                      stream)


def _get_field(self, name, stream=0):
    """self['name']: of one record (numba's DeviceRecord), a number or string field's value on the host, or a
    view of a nested record or a sub-array field; of an array of records, the view of that field in each record
    (as NumPy gives it)."""
    import numpy as np

    ftype, offset = _field(self, name)
    if self.ndim == 0 and ftype.subdtype is None and ftype.names is None:
        host = _bytes_of(self, offset, ftype.itemsize, stream).copy_to_host(stream=stream)
        _sync(stream)
        return host.view(ftype)[0]
    element, sub = ftype.subdtype if ftype.subdtype is not None else (ftype, ())
    if element.kind in "SU":
        raise TypeError(f"field {name!r} holds strings ({element}), which a device array cannot hold: read it "
                        f"from one record at a time (arr[i][{name!r}]), or copy the array to the host")
    strides = []
    step = element.itemsize
    for n in reversed(sub):
        strides.insert(0, step)
        step *= n
    return _make_view(self.shape + tuple(sub), self.strides + tuple(strides), element,
                      (self.device_ctypes_pointer.value or 0) + offset, self, stream)


def _set_field(self, name, value, stream=0):
    """self['name'] = value: the field's bytes in one record (any field, strings too), or the field of every
    record of an array (through its view)."""
    import numpy as np

    ftype, offset = _field(self, name)
    if self.ndim != 0:
        _get_field(self, name, stream).setitem(Ellipsis, value, stream=stream)
        return
    host = np.empty((), dtype=ftype)  # a sub-array field's dtype makes an array of the sub-array's shape
    host[...] = value
    raw = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
    _bytes_of(self, offset, ftype.itemsize, stream).copy_to_device(raw, stream=stream)


def _copy_record_to_host(self, record, stream=0):
    """DeviceRecord.copy_to_host(record) for a NumPy record scalar (np.void, np.record), whose buffer is
    read-only: the fields are assigned one by one, after the copy is complete."""
    if record.dtype != self.dtype:
        raise TypeError(f"incompatible dtype: {self.dtype} vs. {record.dtype}")
    host = self.copy_to_host(stream=stream)
    _sync(stream)
    for name in record.dtype.names:
        record[name] = host[name]
    return record


class _DeviceRecordClass(type):
    def __instancecheck__(cls, obj):
        return type(obj) is DeviceArray and obj.ndim == 0 and obj.dtype.names is not None


class DeviceRecord(metaclass=_DeviceRecordClass):
    """numba's DeviceRecord, one record in device memory: in gpujit a 0-d DeviceArray of a structured dtype (what
    indexing a device array of records gives), and `isinstance(x, DeviceRecord)` says whether x is one.
    `DeviceRecord(dtype, stream=0, gpu_data=None)` makes one, in new memory or in `gpu_data`'s."""

    def __new__(cls, dtype, stream=0, gpu_data=None):
        import numpy as np

        dtype = np.dtype(dtype)
        if dtype.names is None:
            raise TypeError(f"a DeviceRecord needs a structured dtype, not {dtype}")
        return DeviceArray((), (), dtype, stream=stream, gpu_data=gpu_data)


def from_record_like(rec, stream=0, gpu_data=None):
    """numba's from_record_like: a DeviceRecord of `rec`'s dtype (a host record or a device one); no copy."""
    return DeviceRecord(rec.dtype, stream=stream, gpu_data=gpu_data)


def from_array_like(ary, stream=0, gpu_data=None):
    """numba's from_array_like: a DeviceArray of `ary`'s shape, strides and dtype; no copy."""
    return DeviceArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)


_NOT_ONE_SPAN = ("Array contains non-contiguous buffer and cannot be transferred as a single memory region. "
                 "Please ensure contiguous buffer with numpy .ascontiguousarray()")


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """numba's auto_device: (device object, whether it is new). A device array is returned as it is, an object
    with __cuda_array_interface__ as a view of its memory; a record scalar becomes a DeviceRecord and anything
    NumPy makes an array of (numbers, lists) a DeviceArray, copied to the device unless `copy` is false. An
    array that is not one contiguous span of memory (a strided view) is a ValueError, in numba's words.
    `user_explicit` is accepted for numba's signature: gpujit warns of implicit copies at launches only."""
    del user_explicit
    import numpy as np

    if getattr(obj, "__cuda_memory__", False):
        return obj, False
    if hasattr(obj, "__cuda_array_interface__"):
        return as_cuda_array(obj), False
    if isinstance(obj, np.void):
        device = from_record_like(obj, stream=stream)
        if copy:
            device.copy_to_device(obj, stream=stream)
        return device, True
    obj = np.asanyarray(obj)
    core = obj[tuple(0 if s == 0 else slice(None) for s in obj.strides)] if obj.size else obj
    if not (core.flags.c_contiguous or core.flags.f_contiguous):
        raise ValueError(_NOT_ONE_SPAN)
    if copy:
        return _core.to_device(obj, stream=stream), True
    order = "F" if obj.flags.f_contiguous and not obj.flags.c_contiguous else "C"
    return _core.device_array(obj.shape, dtype=obj.dtype, stream=stream, order=order), True


def is_cuda_array(obj):
    """numba's cuda.is_cuda_array: whether `obj` is a DeviceArray or has __cuda_array_interface__."""
    return type(obj) is DeviceArray or hasattr(obj, "__cuda_array_interface__")


DeviceArray.__new__ = _new
DeviceArray.__init__ = _init
DeviceArray.flags = property(_flags, doc="{'C_CONTIGUOUS': bool, 'F_CONTIGUOUS': bool}, as numba-cuda's.")
DeviceArray.alloc_size = property(_alloc_size_of, doc="Bytes the array spans in device memory.")
DeviceArray.gpu_data = property(_gpu_data, doc=_gpu_data.__doc__)
DeviceArray.T = property(lambda self: self.transpose(), doc="transpose(), as numba-cuda's.")
DeviceArray.transpose = _transpose
DeviceArray.view = _view
DeviceArray.split = _split
DeviceArray.squeeze = _squeeze
DeviceArray.__array__ = _array
DeviceArray._numba_type_ = property(_numba_type, doc=_numba_type.__doc__)
DeviceArray.__cuda_memory__ = True
DeviceArray.__cuda_ndarray__ = True
