"""numba.cuda.cudadrv.devices' public functions that programs use (get_context, require_context, reset), on
gpujit's devices (see __init__.py)."""

from .. import _core
from .._runtime_api import close as reset  # noqa: F401  numba's devices.reset() is what cuda.close() runs


def require_context(fn):
    """numba's require_context: `fn` wrapped so that each call first makes the current device's CUDA context
    current on the calling thread, as current_context() does (gpujit.require_context is this)."""
    import functools

    @functools.wraps(fn)
    def with_context(*args, **kwargs):
        _core._push_context_if_none(_core.get_current_device())
        return fn(*args, **kwargs)

    return with_context


def get_context(devnum=None):
    """The device `devnum` (made current), or the current device: gpujit's device is numba's context."""
    if devnum is not None:
        return _core.select_device(devnum)
    return _core.get_current_device()
