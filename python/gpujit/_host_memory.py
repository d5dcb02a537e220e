"""Arrays in page-locked host memory (pinned and mapped), and the `*_like` constructors of every array kind.

- `pinned_array` is a NumPy array over page-locked memory: copies to and from it are fast and can overlap.
- `mapped_array` is the same memory, also mapped into the device's address space (numba's mapped_array): a
  NumPy array on the host that a kernel reads and writes in place, through its `__cuda_array_interface__`,
  with no copy. On the CPU backend the mapped address is the host address itself.
- `managed_array` is managed (unified) memory, numba's managed_array: one address that the host (as a NumPy
  array) and kernels (through its `__cuda_array_interface__`) both use, the driver moving pages on demand.
  On the CPU backend it is host memory.
- `device_array_like`, `pinned_array_like` and `mapped_array_like` give a new contiguous array with the
  shape and dtype of `ary`. A contiguous `ary` keeps its order (C, or F when it is only F-contiguous); a
  strided view gets the contiguous strides that keep the order of its own strides (NumPy's `empty_like`
  with order 'K'), as numba-cuda does.

NumPy is imported on first use, not on `import gpujit`.

Layer "base" of the Python package (docs/architecture.md): imports only _core.
"""

from . import _core

_mapped_array_class = None


def like_layout(ary):
    """(order, strides in bytes or None) for a new contiguous array shaped like `ary`."""
    flags = ary.flags
    c_contiguous, f_contiguous = flags["C_CONTIGUOUS"], flags["F_CONTIGUOUS"]
    order = "F" if f_contiguous and not c_contiguous else "C"
    if c_contiguous or f_contiguous or len(ary.shape) <= 1:
        return order, None
    strides = [0] * len(ary.shape)
    step = ary.dtype.itemsize
    for axis in sorted(range(len(ary.shape)), key=lambda a: ary.strides[a]):
        strides[axis] = step
        step *= ary.shape[axis]
    return order, tuple(strides)


def _host_array(shape, dtype, strides, order, mapped, stream=0, managed=False, attach_global=True):
    import numpy as np

    dt = np.dtype(dtype)
    shape = (int(shape),) if isinstance(shape, int) or hasattr(shape, "__index__") else tuple(shape)
    count = 1
    for s in shape:
        count *= s
    nbytes = max(count * dt.itemsize, 1)
    buf = _core._managed_buffer(nbytes, bool(attach_global)) if managed else _core._pinned_buffer(nbytes)
    cls = _mapped_class() if mapped else np.ndarray
    if strides is not None:
        ary = np.ndarray.__new__(cls, shape, dt, buffer=buf, strides=tuple(strides))
    else:
        ary = np.ndarray.__new__(cls, shape, dt, buffer=buf, order=order)
    if mapped:
        ary._device_pointer = buf.device_pointer
        # numba's mapped arrays name their stream in the interface (None for the default stream).
        handle = int(getattr(stream, "handle", stream) or 0)
        ary._stream_handle = handle or None
    return ary


def _mapped_class():
    """The ndarray subclass of mapped arrays, made on first use so that NumPy loads only then."""
    global _mapped_array_class
    if _mapped_array_class is None:
        import numpy as np

        class MappedArray(np.ndarray):
            """A NumPy array in host memory mapped into the device: kernels use it in place, with no copy."""

            @property
            def __cuda_array_interface__(self):
                base = self
                while base is not None and getattr(base, "_device_pointer", None) is None:
                    base = base.base
                if base is None:  # a new array NumPy made from a mapped one (a + 1) lives in ordinary memory
                    raise AttributeError("this array is not in mapped memory")
                host = self.__array_interface__["data"][0]
                origin = base.__array_interface__["data"][0]
                return {"shape": self.shape, "strides": None if self.flags.c_contiguous else self.strides,
                        "typestr": self.dtype.str, "data": (base._device_pointer + (host - origin), False),
                        "version": 3, "stream": getattr(base, "_stream_handle", None)}

        _mapped_array_class = MappedArray
    return _mapped_array_class


def pinned_array(shape, dtype=float, strides=None, order="C"):
    """A NumPy array in page-locked host memory: copies to and from it are faster and can be asynchronous."""
    return _host_array(shape, dtype, strides, order, mapped=False)


def mapped_array(shape, dtype=float, strides=None, order="C", stream=0, portable=False, wc=False):
    """A NumPy array in page-locked host memory mapped into the device: a kernel reads and writes it in place.

    `stream` is the stream its `__cuda_array_interface__` names (as numba's); `portable` and `wc` are accepted
    for numba-cuda's signature, and the memory is always portable.
    """
    return _host_array(shape, dtype, strides, order, mapped=True, stream=stream)


def managed_array(shape, dtype=float, strides=None, order="C", stream=0, attach_global=True):
    """A NumPy array in managed (unified) memory: the host and kernels read and write it at one address, and
    a kernel takes it in place, with no copy (synchronize before the host reads what a kernel wrote).

    `stream` is the stream its `__cuda_array_interface__` names, as numba's. `attach_global=False` attaches
    the memory to the host (CUDA's CU_MEM_ATTACH_HOST), as numba's does: devices of compute capability 6.0 or
    newer still reach it from kernels; older ones need it attached to a stream first.
    """
    return _host_array(shape, dtype, strides, order, mapped=True, stream=stream, managed=True,
                       attach_global=attach_global)


def pinned_array_like(ary):
    order, strides = like_layout(ary)
    return pinned_array(ary.shape, ary.dtype, strides, order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    order, strides = like_layout(ary)
    return mapped_array(ary.shape, ary.dtype, strides, order, stream, portable, wc)


def device_array_like(ary, stream=0):
    """An uninitialized device array with the shape, dtype and layout of `ary`."""
    order, strides = like_layout(ary)
    if strides is None:
        return _core._device_array_like(ary.shape, ary.dtype, order == "F", stream)
    return _core.DeviceArray(ary.shape, strides, ary.dtype, stream)
