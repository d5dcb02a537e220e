"""numba-cuda's runtime functions around the context: profiling, deferred cleanup, closing, pinning and mapping
host arrays in place, and the feature queries.

- profile_start(), profile_stop() and `with profiling():` switch the profiler's collection (cuProfilerStart/
  Stop) for the current device, for a profiler (Nsight Systems, `nsys --capture-range=cudaProfilerApi`) that
  records only in between. On the CPU backend they do nothing, as there is no CUDA profiler to tell (numba's
  simulator has none either); profile the host process with a host profiler there.
- `with defer_cleanup():` keeps memory from being given back to the driver inside the block: gpujit's caching
  allocator keeps its cached blocks (a driver free synchronizes the device), and a bound EMM plugin's own
  defer_cleanup() is entered too. Freed arrays still return their blocks to the cache, for reuse.
- close() is numba's cuda.close(). In the main thread every device in use is reset (its memory manager's
  reset(), and gpujit's cached blocks given back), its EMM plugin unbound, and every thread chooses its
  current device anew at its next use, when the memory manager class set then is bound (numba: contexts are
  destroyed and made anew). In another thread only that thread's current device is forgotten, as numba pops
  only that thread's contexts. gpujit does not destroy the CUDA context: arrays and compiled kernels made
  before stay valid (numba's become unusable, so a program that works on numba never uses them).
- `with pinned(a, b):` page-locks host arrays in place for the block (cuMemHostRegister), so copies from and
  to them are fast and can be asynchronous; `with mapped(a) as d_a:` also maps one into the device and gives a
  DeviceArray over it (a list for several arrays) that kernels use with no copy. Both go through the current
  device's memory manager (mempin), and unpin when the block ends. On the CPU backend nothing needs pinning,
  and the mapped array is a DeviceArray over the host array's own memory.
- is_float16_supported() is True (float16 works on every device and on the CPU backend). is_fp8_supported()
  is numba's answer, compute capability >= 8.9, and True on the CPU backend (gpujit.fp8's conversions are
  software there, bit-exact with CUDA's).
"""

import contextlib
import threading

from . import _core
from ._memory_manager import close_devices
from ._memory_pointers import address_of, device_view


def profile_start():
    """Starts the profiler's collection on the current device (cuProfilerStart); nothing on the CPU backend."""
    _core._set_profiling(_core.get_current_device(), True)


def profile_stop():
    """Stops the profiler's collection on the current device (cuProfilerStop); nothing on the CPU backend."""
    _core._set_profiling(_core.get_current_device(), False)


@contextlib.contextmanager
def profiling():
    """Collects profiling data for the block: profile_start() before it, profile_stop() after it."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()


@contextlib.contextmanager
def defer_cleanup():
    """Keeps device memory from being given back to the driver inside the block (it may be nested)."""
    with _core.get_current_device().defer_cleanup():
        yield


def close():
    """numba's cuda.close(): in the main thread resets every device in use and unbinds its EMM plugin (each
    device binds the plugin class set then at its next use); in another thread forgets that thread's device."""
    if threading.current_thread() is threading.main_thread():
        close_devices()
    else:
        _core._forget_current_device()


def _host_span(ary):
    """(address of the lowest byte, bytes spanned, offset of element [0, ...] from that byte) of a host array."""
    import numpy as np

    if not isinstance(ary, np.ndarray):
        raise TypeError(f"only NumPy arrays can be pinned or mapped, not {type(ary).__name__}")
    data = ary.__array_interface__["data"][0]
    if ary.size == 0:
        return data, 0, 0
    low = sum((n - 1) * s for n, s in zip(ary.shape, ary.strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(ary.shape, ary.strides) if s > 0)
    return data + low, high - low + ary.itemsize, -low


@contextlib.contextmanager
def pinned(*arylist):
    """Page-locks the host arrays for the block (in place: the arrays are not copied)."""
    device = _core.get_current_device()
    pins = []
    try:
        for ary in arylist:
            start, size, _ = _host_span(ary)
            if size:
                pins.append(device.mempin(ary, start, size, mapped=False))
        yield
    finally:
        for pin in pins:
            pin.free()


@contextlib.contextmanager
def mapped(*arylist, **kws):
    """Page-locks the host arrays and maps them into the device for the block; yields a DeviceArray over each
    (the one array, or a list) that kernels read and write in place. Takes `stream=` only, as numba does."""
    unknown = set(kws) - {"stream"}
    if unknown:
        raise TypeError(f"mapped() takes only the keyword 'stream', not {', '.join(sorted(unknown))}")
    device = _core.get_current_device()
    pins, arrays = [], []
    try:
        for ary in arylist:
            start, size, offset = _host_span(ary)
            if size:
                pin = device.mempin(ary, start, size, mapped=True)
                pins.append(pin)
                ptr = address_of(pin.device_pointer) + offset
            else:
                pin, ptr = ary, 0
            arrays.append(device_view(ary.shape, ary.strides, ary.dtype, ptr, pin))
        yield arrays[0] if len(arrays) == 1 else arrays
    finally:
        # As in numba: unmapped when the block ends, though `as` names outlive it.
        for pin in pins:
            pin.free()


def is_float16_supported():
    """Whether kernels can use float16: always (numba-cuda answers the same)."""
    return True


def is_fp8_supported():
    """Whether kernels can use the fp8 types and conversions (gpujit.fp8): on a GPU of compute capability 8.9 or
    newer, as numba-cuda answers, and always on the CPU backend."""
    if _core.backend_name() == "cpu":
        return True
    return tuple(_core.get_current_device().compute_capability) >= (8, 9)
