"""A pytest plugin that runs numba-cuda's own tests with gpujit's drop-in mode on, as a user's program runs.

Loaded with `-p numba_on_gpujit` before pytest imports any test module (tests/compat/run.py does this), it calls
`gpujit.install_numba_shim()`, the product's drop-in mode (python/gpujit/_numba_shim.py; `gpujit run` calls the
same): that is the only binding of numba.cuda's user-facing names to gpujit. A test module then says
`from numba import cuda` and `@cuda.jit`, exactly as a numba-cuda user's program does, and gets gpujit; nothing of
numba-cuda's compiler runs for a kernel.

What remains here is the tests' own machinery, which no user's program touches; docs/compat.md lists each with
its reason:
- numba's test base classes ask numba's driver for the context (`devices.get_context`, reset between tests) and
  the device (`driver.driver.get_device`, which numba's own transpose helper reads too);
- `cc_X_or_above`, which the `skip_unless_cc_*` decorators read, asks gpujit's device (on the CPU backend every
  capability, as numba's simulator answers);
- numba's NRT leak counter (MemoryLeakMixin) counts the allocations of numba's runtime, which gpujit does not
  have: its hooks do nothing;
- `skip_if_lto` asks numba's linker whether LTO is there: it never skips;
- numba's driver reports a call's failure as cuda-python's CUDAError, which here is gpujit's CudaAPIError;
- the fixture numba-cuda's own conftest defines (not shipped in the wheel), and the NumPy 2 aliases
  (numba_native.py, shared with numba-cuda's own run).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import numba_native  # noqa: E402  the NumPy 2 shim and the fixture, shared with numba-cuda's own run

# pytest registers the hooks and fixtures of the plugin module itself, so numba_native's are named here.
initialize_from_pytest_config = numba_native.initialize_from_pytest_config
pytest_collection_finish = numba_native.pytest_collection_finish
pytest_runtest_logreport = numba_native.pytest_runtest_logreport

import gpujit  # noqa: E402

MODE = gpujit.install_numba_shim()


def _bind_test_machinery():
    import numba.cuda  # noqa: F401  the drop-in mode binds it as it loads
    from numba.cuda.cudadrv import devices, driver
    import numba.cuda.testing as testing

    def get_context(devnum=None):
        return _Context(gpujit.current_context(devnum))

    devices.get_context = get_context
    devices.reset = lambda: gpujit.synchronize()
    driver.driver.get_device = lambda devnum=None: gpujit.get_current_device()
    testing.cc_X_or_above = _cc_at_least
    testing.CUDATestCase.skip_if_lto = lambda self, reason: None
    driver.USE_NV_BINDING = True
    _bind_leak_checks()


def _bind_leak_checks():
    try:
        import numba.cuda.tests.support as support
    except ImportError:
        return
    support.EnableNRTStatsMixin.setUp = lambda self: None
    support.EnableNRTStatsMixin.tearDown = lambda self: None
    support.MemoryLeak.memory_leak_setup = lambda self: None
    support.MemoryLeak.memory_leak_teardown = lambda self: None


class _Context:
    """numba's Context, as far as its test base classes read one: `.device`, `get_memory_info()`, `synchronize()`."""

    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        return getattr(self.device, name)


def _cc_at_least(major, minor):
    if gpujit._core.backend_name() == "cpu":
        return True  # the CPU backend runs the whole kernel language, as numba's simulator answers
    return tuple(gpujit.get_current_device().compute_capability) >= (major, minor)


_bind_test_machinery()
