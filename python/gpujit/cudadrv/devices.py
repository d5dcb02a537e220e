"""numba.cuda.cudadrv.devices' public functions that programs use (get_context, require_context, reset), on
gpujit's devices (see __init__.py)."""

from .. import _core
from .. import require_context  # noqa: F401  numba's devices.require_context
from .._runtime_api import close as reset  # noqa: F401  numba's devices.reset() is what cuda.close() runs


def get_context(devnum=None):
    """The device `devnum` (made current), or the current device: gpujit's device is numba's context."""
    if devnum is not None:
        return _core.select_device(devnum)
    return _core.get_current_device()
