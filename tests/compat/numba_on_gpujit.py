"""A pytest plugin that runs numba-cuda's own tests with numba.cuda's user-facing API bound to gpujit.

Loaded with `-p numba_on_gpujit` before pytest imports any test module (tests/compat/run.py does this), it
imports the installed numba-cuda and rebinds, on `numba.cuda` and the few modules its tests import names from,
every public name gpujit also defines: `jit`, `to_device`, `device_array`, `stream`, `event`, `synchronize`,
`gpus`, the kernel-side names (`grid`, `threadIdx`, `shared`, `atomic`...), the random number generators,
`vectorize` and `guvectorize` (also numba's own `numba.vectorize`/`numba.guvectorize` when given
`target='cuda'`; other targets stay numba's).
A test module then says `from numba import cuda` and `@cuda.jit`, exactly as a numba-cuda user's program does,
and gets gpujit. Nothing of numba-cuda's compiler runs for a kernel.

numba's test base classes reach numba's own driver in a few places (the compute capability that decides
`skip_unless_cc_*`, the context reset between tests, the linker's LTO probe); those are bound to gpujit too, so
the tests ask gpujit's device and not a driver numba never initialised. The fixture numba-cuda's own conftest
defines (not shipped in the wheel) is defined here.

Names gpujit does not define stay numba's: a test that uses one runs numba's code or fails, and the harness
counts it as it comes out. `numba_native.py` is the same plugin without the binding, for numba-cuda's own run.
"""

import os
import sys
import types

sys.path.insert(0, os.path.dirname(__file__))
import numba_native  # noqa: E402  the NumPy 2 shim and the fixture, shared with numba-cuda's own run

# pytest registers the hooks and fixtures of the plugin module itself, so numba_native's are named here.
initialize_from_pytest_config = numba_native.initialize_from_pytest_config
pytest_collection_finish = numba_native.pytest_collection_finish
pytest_runtest_logreport = numba_native.pytest_runtest_logreport

import gpujit  # noqa: E402
import gpujit.random  # noqa: E402

# numba.cuda names that are not gpujit's public names, or are under another name there.
_RENAMED = {"DeviceNDArray": "DeviceArray"}

# Names left as numba's: its configuration and its error classes, which tests import to catch numba's errors.
_KEEP = {"config", "types", "cudadrv", "testing", "tests", "random", "CudaSupportError", "CudaAPIError"}


_TYPES = (gpujit.DType, gpujit.ArrayType, gpujit.Signature, type(gpujit.void))


def _bind(module, source, names):
    bound = []
    for name in names:
        if name.startswith("_") or name in _KEEP:
            continue
        value = getattr(source, _RENAMED.get(name, name), None)
        if value is None or isinstance(value, _TYPES):
            continue  # numba's own scalar types stay: gpujit reads them in signatures and kernels
        setattr(module, name, value)
        bound.append(name)
    return bound


def _bind_numba_cuda():
    import numba.cuda as nc
    import numba.cuda.random as ncr
    from numba.cuda.cudadrv import devicearray, devices, driver
    import numba.cuda.testing as testing

    names = set(dir(nc)) | set(_RENAMED)
    bound = _bind(nc, gpujit, names)
    _bind(ncr, gpujit.random, dir(ncr))
    for name in ("DeviceNDArray", "is_cuda_ndarray"):
        if hasattr(gpujit, _RENAMED.get(name, name)):
            setattr(devicearray, name, getattr(gpujit, _RENAMED.get(name, name)))

    def get_context(devnum=None):
        return _Context(gpujit.current_context(devnum))

    devices.get_context = get_context
    # The class of the streams cuda.stream() gives: a program that patches driver.Stream.synchronize (numba's
    # CUDA array interface tests do) patches gpujit's.
    driver.Stream = gpujit.Stream
    # numba's own helpers (cuda.kernels.transpose) ask numba's driver object for the device.
    driver.driver.get_device = lambda devnum=None: gpujit.get_current_device()
    devices.reset = _reset
    nc.current_context = get_context
    nc.get_context = get_context
    # compile_ptx and its relatives, as tests import them from numba.cuda.compiler too.
    # numba.cuda.bf16 (bfloat16 and its functions, which tests import by name) is gpujit.bf16; numba's own
    # module would load its NVRTC-built bindings.
    sys.modules["numba.cuda.bf16"] = gpujit.bf16
    nc.bf16 = gpujit.bf16
    import numba.cuda.compiler as compiler
    _bind(compiler, gpujit, ("compile", "compile_all", "compile_ptx", "compile_for_current_device",
                             "compile_ptx_for_current_device"))
    # A program catching numba's typing error catches gpujit's compile error (the error a kernel that does
    # not compile raises).
    import numba.cuda.core.errors as errors
    errors.TypingError = gpujit.CompileError
    try:  # with numba itself installed, tests import numba.core's TypingError instead
        import numba.core.errors as core_errors
    except ImportError:
        core_errors = None
    if core_errors is not None:
        core_errors.TypingError = gpujit.CompileError
    # Likewise a test expecting numba's warnings expects gpujit's (the launch warnings, debug with opt).
    errors.NumbaPerformanceWarning = gpujit.PerformanceWarning
    errors.NumbaInvalidConfigWarning = gpujit.InvalidConfigWarning
    # numba's config stays numba's, but the switches gpujit also has follow it: a test that sets
    # CUDA_LOW_OCCUPANCY_WARNINGS (override_config) switches gpujit's warning as a user's program would.
    import numba.cuda.core.config as numba_config
    numba_config.__class__ = _ForwardingConfig
    for name in _FORWARDED:
        setattr(gpujit.config, name, getattr(numba_config, name))
    # numba-cuda reports a driver call's failure as cuda-python's CUDAError; gpujit's is CudaAPIError.
    try:
        import cuda.core._utils.cuda_utils as cuda_utils
    except ImportError:
        cuda_utils = None
    if cuda_utils is not None:
        cuda_utils.CUDAError = gpujit.CudaAPIError
    testing.cc_X_or_above = _cc_at_least
    _bind_ufunc_decorators()
    testing.CUDATestCase.skip_if_lto = lambda self, reason: None
    _bind_leak_checks()
    driver.USE_NV_BINDING = True
    return bound


def _bind_leak_checks():
    """numba's MemoryLeakMixin counts the allocations of numba's own runtime (NRT) around a test. gpujit has no
    NRT (a kernel allocates nothing), so the count is empty by construction; what reads it is numba's driver,
    which is not there on a machine without a GPU. The mixin's hooks become no-ops."""
    try:
        import numba.cuda.tests.support as support
    except ImportError:
        return
    support.EnableNRTStatsMixin.setUp = lambda self: None
    support.EnableNRTStatsMixin.tearDown = lambda self: None
    support.MemoryLeak.memory_leak_setup = lambda self: None
    support.MemoryLeak.memory_leak_teardown = lambda self: None


_FORWARDED = ("CUDA_LOW_OCCUPANCY_WARNINGS", "CUDA_WARN_ON_IMPLICIT_COPY", "CUDA_ARRAY_INTERFACE_SYNC")


class _ForwardingConfig(types.ModuleType):
    """numba's config module, whose launch-warning switches are also set on gpujit.config."""

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in _FORWARDED:
            setattr(gpujit.config, name, value)


def _bind_ufunc_decorators():
    """numba.vectorize and numba.guvectorize with target='cuda' make gpujit's ufuncs; other targets stay numba's."""
    try:
        import numba
    except ImportError:
        return
    for name in ("vectorize", "guvectorize"):
        numba_decorator = getattr(numba, name, None)
        if numba_decorator is None:
            continue

        def decorator(*args, _numba=numba_decorator, _ours=getattr(gpujit, name), **kwargs):
            if kwargs.get("target") in ("cuda", "gpu"):
                return _ours(*args, **kwargs)
            return _numba(*args, **kwargs)

        decorator.__name__ = name
        setattr(numba, name, decorator)


class _Context:
    """numba's Context, as far as its tests read one: `.device`, `get_memory_info()`, `synchronize()`."""

    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        return getattr(self.device, name)


def _reset():
    gpujit.synchronize()


def _cc_at_least(major, minor):
    if gpujit._core.backend_name() == "cpu":
        return True  # the CPU backend runs the whole kernel language, as numba's simulator answers
    return tuple(gpujit.get_current_device().compute_capability) >= (major, minor)


BOUND = _bind_numba_cuda()
