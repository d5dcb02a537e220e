"""gpujit: a JIT compiler from a Python kernel language to PTX, with numba-cuda's API.

    import gpujit as gpu          # or: import gpujit as cuda, for numba-cuda code

    @gpu.jit
    def saxpy(a, x, y, out):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    saxpy[blocks, threads](2.0, x, y, out)

Importing gpujit loads its C++ core but neither NumPy nor the CUDA driver; both load on first use, and so do
the package's modules that most programs never need (_lazy.py: CUDA C, ufuncs, memory manager plugins...).

Layer "package root" of the Python package (docs/architecture.md): only the top layer imports it.
"""


from . import _core
from . import _source  # noqa: F401  its audit hook keeps exec'd sources from here on, for kernels made by exec
from . import _lazy
from ._dispatcher import Dispatcher, jit
from ._signature import SignatureDict as _SignatureDict
from ._kernel_api import build as _build_kernel_api
from ._types import ArrayType, DType, Signature, make_dtypes as _make_dtypes, void
from .errors import (CacheWarning, CaptureError, CompileError, CudaAPIError, CudaDriverError, CudaError,
                     CudaSupportError, DebugInfoWarning, InvalidConfigWarning, LaunchError, PerformanceWarning)

__version__ = "0.1.0"

_core._set_error_classes(CompileError, CudaSupportError, CudaAPIError, LaunchError)
_core._set_capture_error_class(CaptureError)
_core._set_warning_class(PerformanceWarning)
_core._set_signature_dict(_SignatureDict.from_texts)
_lazy.install_class_stubs(__name__, _core)  # Device's and DeviceArray's methods that _memory_manager and _ipc add


def __getattr__(name):
    """The public names of modules imported at first use (_lazy.PUBLIC): compile_ptx, vectorize, RawKernel,
    gpujit.fp16... Each is imported on first access and kept in the package's namespace."""
    value = _lazy.resolve(__name__, name, globals())
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_lazy.PUBLIC))


# The compiler's warm-up (compiler/warm_up.h) starts with the first kernel a program defines
# (_dispatcher.start_warm_up), not here: a process that compiles nothing neither runs it nor waits for it at exit.


# The launch path's performance warnings, on by default as in numba-cuda; gpujit.config switches them at run
# time (docs/python.md, "Warnings").
from . import config  # noqa: E402

globals().update(_make_dtypes())
globals().update(_build_kernel_api(_core.kernel_builtins()))
from ._vector_types import names as _vector_type_names  # noqa: E402  CUDA vector types: float32x4, int2 ...

globals().update(_vector_type_names)
# gpujit.random is a module (host-side create_xoroshiro128p_states too), in place of the kernel namespace: it
# is imported at first use (_lazy.PUBLIC), as are extending, the kernel namespaces bf16, fp8, fp16 and
# libdevice, and the ufunc decorators.
globals().pop("random", None)

DeviceArray = _core.DeviceArray
DeviceNDArray = _core.DeviceArray  # numba's name
Stream = _core.Stream


@__import__("contextlib").contextmanager
def _auto_synchronize(self):
    """`with stream.auto_synchronize():` synchronizes the stream when the block ends (numba's Stream method)."""
    yield self
    self.synchronize()


Stream.auto_synchronize = _auto_synchronize
Event = _core.Event

to_device = _core.to_device
device_array = _core.device_array
from_dlpack = _core.from_dlpack
stream = _core.stream
default_stream = _core.default_stream
legacy_default_stream = _core.legacy_default_stream
per_thread_default_stream = _core.per_thread_default_stream
external_stream = _core.external_stream
event = _core.event
graph = _core.graph  # `with gpu.graph() as g:` captures launches; g.launch() replays them (docs/graphs.md)
Graph = _core.Graph
event_elapsed_time = _core.event_elapsed_time
synchronize = _core.synchronize
select_device = _core.select_device
get_current_device = _core.get_current_device
list_devices = _core.list_devices
is_available = _core.is_available
empty_cache = _core.empty_cache
allocator_stats = _core.allocator_stats
from ._device_array import (DeviceMemory, as_cuda_array, from_cuda_array_interface,  # noqa: E402  numba's
                            is_cuda_array)  # DeviceNDArray API and its CUDA array interface
from ._arg_hints import In, InOut, Out  # noqa: E402  numba's copy-direction hints for host arrays

_core._set_arg_hint_types(In, Out, InOut)
# Imported at first use (_lazy.PUBLIC): gpu.reduce, the host-memory allocators, numba's External Memory
# Management plugins, IPC and the runtime functions around the context (docs/python.md, "Memory managers, IPC and
# the profiler"), cudadrv (numba's names), CUDA C with NVRTC and nvJitLink (docs/cuda_c.md), linking
# (LTOIR, declare_device...), ModuleHandle, and the ahead-of-time compile functions.
from .errors import KernelRuntimeError  # noqa: E402
from .errors import LinkerError, NvrtcCompilationError, NvrtcError  # noqa: E402


def current_context(devnum=None):
    """numba's cuda.current_context(): here the device, which has get_memory_info() and synchronize(). As in
    numba, the device's CUDA context is then current on the calling thread if no context was."""
    device = select_device(devnum) if devnum is not None else get_current_device()
    _core._push_context_if_none(device)
    return device


def get_context(devnum=None):
    return current_context(devnum)


def require_context(fn):
    """numba's cuda.require_context: `fn` wrapped so that each call first makes the current device's CUDA
    context current on the calling thread, as current_context() does (cudadrv/devices.py)."""
    from .cudadrv.devices import require_context as wrap  # cudadrv loads at first use (_lazy.py)

    return wrap(fn)


def is_bfloat16_supported():
    """Whether kernels can use bfloat16 (gpujit.bf16): on a GPU of compute capability 8.0 or newer, and always
    on the CPU backend, which computes it in float32."""
    if _core.backend_name() == "cpu":
        return True
    return tuple(get_current_device().compute_capability) >= (8, 0)


def install_numba_shim(standalone=None):
    """The drop-in mode: from here on `import numba.cuda` gives gpujit (docs/compat.md, "Moving a numba-cuda
    program"); `gpujit run PROGRAM.py` calls it before the program. Returns 'numba-cuda' (an installed numba-cuda's
    names bound to gpujit) or 'standalone' (no numba installed: `numba` and `numba.cuda` are gpujit's modules)."""
    from ._numba_shim import install_numba_shim as install

    return install(standalone)


def numba_shim_active():
    """Whether the drop-in mode is on in this process (install_numba_shim() or `gpujit run`)."""
    shim = __import__("sys").modules.get(__name__ + "._numba_shim")
    return shim is not None and shim.numba_shim_active()


def info():
    """What `gpujit info` reports, as a dict: gpujit_version, llvm_version, core_library, libdevice (None when
    not found), driver (None when the CUDA driver does not load, with driver_error saying why),
    driver_version (13000 for CUDA 13.0), devices (dicts of id, name, compute_capability, total_memory),
    backend ('cuda' or 'cpu': what a launch would use now) with backend_reason, cache_directory, cache_files,
    cache_bytes, and text (the report as the command prints it). It loads the CUDA driver but creates no
    context and does not choose the backend."""
    report = _core._system_info()
    shim = __import__("sys").modules.get(__name__ + "._numba_shim")
    mode = shim.numba_shim_mode() if shim is not None else None
    report["numba_shim"] = mode
    report["text"] += f"{'numba shim':<14}" + (f"on ({mode})" if mode else "off (gpujit run PROGRAM.py turns it on)") + "\n"
    return report


def detect():
    """Prints the devices found, as numba's cuda.detect(); returns True if there is at least one."""
    try:
        devices = list_devices()
    except CudaError as e:
        print(f"no CUDA devices: {e}")
        return False
    print(f"Found {len(devices)} CUDA devices")  # numba's words, which programs and numba's tests look for
    for d in devices:
        print(f"id {d.id} {d.name!r:>30} compute capability {d.compute_capability[0]}.{d.compute_capability[1]}")
    return bool(devices)


class _Gpus:
    """numba's cuda.gpus: the devices, indexable and iterable; `len(gpus)` is the count."""

    def __getitem__(self, i):
        return list_devices()[i]

    def __iter__(self):
        return iter(list_devices())

    def __len__(self):
        return _core.device_count()

    @property
    def current(self):
        return get_current_device()


gpus = _Gpus()
