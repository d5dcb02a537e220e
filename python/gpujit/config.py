"""gpujit's run-time settings, readable and writable as numba-cuda's `numba.cuda.config` is.

    gpujit.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0   # no warning for grids with fewer blocks than SMs
    gpujit.config.CUDA_WARN_ON_IMPLICIT_COPY = 0    # no warning when a launch copies a host array
    gpujit.config.CUDA_ARRAY_INTERFACE_SYNC = 0     # no wait for the stream a foreign array's interface names
    gpujit.config.CUDA_DEALLOCS_COUNT = 10          # numba's queue of pending frees (gpujit._deallocations)
    gpujit.config.CUDA_DEALLOCS_RATIO = 0.2
    gpujit.config.CUDA_DEBUGINFO_DEFAULT = 1        # jit() without debug= compiles as debug=True
    gpujit.config.OPT = 0                           # jit() without opt= compiles at this level (0-3, default 3)

Each starts from its environment variable (GPUJIT_LOW_OCCUPANCY_WARNINGS, else numba-cuda's
NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS; GPUJIT_WARN_ON_IMPLICIT_COPY, else NUMBA_CUDA_WARN_ON_IMPLICIT_COPY;
GPUJIT_CUDA_ARRAY_INTERFACE_SYNC, else NUMBA_CUDA_ARRAY_INTERFACE_SYNC), on when unset, and an assignment takes effect at the next launch, as numba's does (docs/python.md, "Warnings").
The limits of the pending frees start from GPUJIT_MAX_PENDING_DEALLOCS_COUNT (else numba-cuda's
NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT, else 0: a freed block is reusable at once) and
GPUJIT_MAX_PENDING_DEALLOCS_RATIO (else NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO, else 0.2), and an assignment
takes effect at the next free (docs/python.md, "Pending frees"). CUDA_DEBUGINFO_DEFAULT starts from
GPUJIT_CUDA_DEBUGINFO (else numba-cuda's NUMBA_CUDA_DEBUGINFO, else 0) and OPT from GPUJIT_OPT (else numba's
NUMBA_OPT, else 3; 'max' is 3); both apply to decorators run after the assignment.

Layer "base" of the Python package (docs/architecture.md): imports only _core.
"""

import os
import sys
import types

from . import _core

# numba-cuda's name of each setting -> (gpujit's environment variable, numba-cuda's).
_SWITCHES = {
    "CUDA_LOW_OCCUPANCY_WARNINGS": ("GPUJIT_LOW_OCCUPANCY_WARNINGS", "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS"),
    "CUDA_WARN_ON_IMPLICIT_COPY": ("GPUJIT_WARN_ON_IMPLICIT_COPY", "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY"),
}


def _from_environment(name, numba_name):
    """An on/off environment setting: gpujit's name, else numba-cuda's, else on."""
    value = os.environ.get(name, os.environ.get(numba_name, "1")).strip()
    try:
        return int(value) != 0
    except ValueError:
        raise ValueError(f"environment variable {name if name in os.environ else numba_name}={value!r} "
                         "must be 0 or 1") from None


# numba-cuda's name of each limit of the pending frees -> (gpujit's environment variable, numba-cuda's, type).
_DEALLOCS = {
    "CUDA_DEALLOCS_COUNT": ("GPUJIT_MAX_PENDING_DEALLOCS_COUNT", "NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT", int),
    "CUDA_DEALLOCS_RATIO": ("GPUJIT_MAX_PENDING_DEALLOCS_RATIO", "NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO", float),
}


def _limit_from_environment(name, numba_name, kind, default):
    value = os.environ.get(name, os.environ.get(numba_name))
    if value is None or not value.strip():
        return default
    try:
        result = kind(value)
    except ValueError:
        result = -1
    if result < 0:
        raise ValueError(f"environment variable {name if name in os.environ else numba_name}={value!r} must be "
                         f"a{'n integer' if kind is int else ' number'} of 0 or more")
    return result


class _Config(types.ModuleType):
    """The module's class: the switches read and write the launch path's own flags, the limits the allocator's."""

    def __getattr__(self, name):
        if name in _DEALLOCS:
            count, ratio = _core._pending_limits()
            return count if name == "CUDA_DEALLOCS_COUNT" else ratio
        if name not in _SWITCHES:
            raise AttributeError(f"module 'gpujit.config' has no attribute '{name}'")
        low_occupancy, implicit_copy = _core._launch_warnings()
        return int(low_occupancy if name == "CUDA_LOW_OCCUPANCY_WARNINGS" else implicit_copy)

    def __setattr__(self, name, value):
        if name in _DEALLOCS:
            count, ratio = _core._pending_limits()
            if name == "CUDA_DEALLOCS_COUNT":
                count = value
            else:
                ratio = value
            _core._set_pending_limits(int(count), float(ratio))
            return
        if name not in _SWITCHES:
            super().__setattr__(name, value)
            return
        low_occupancy, implicit_copy = _core._launch_warnings()
        on = bool(int(value))
        if name == "CUDA_LOW_OCCUPANCY_WARNINGS":
            low_occupancy = on
        else:
            implicit_copy = on
        _core._set_launch_warnings(low_occupancy=low_occupancy, implicit_copy=implicit_copy)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_SWITCHES) | set(_DEALLOCS))


_core._set_launch_warnings(
    low_occupancy=_from_environment(*_SWITCHES["CUDA_LOW_OCCUPANCY_WARNINGS"]),
    implicit_copy=_from_environment(*_SWITCHES["CUDA_WARN_ON_IMPLICIT_COPY"]))
_core._set_pending_limits(_limit_from_environment(*_DEALLOCS["CUDA_DEALLOCS_COUNT"], 0),
                          _limit_from_environment(*_DEALLOCS["CUDA_DEALLOCS_RATIO"], 0.2))
# Read by Python code only (gpujit._device_array), at each foreign array that names a stream.
CUDA_ARRAY_INTERFACE_SYNC = int(_from_environment("GPUJIT_CUDA_ARRAY_INTERFACE_SYNC", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC"))
# jit()'s debug= when a decorator leaves it out (gpujit._dispatcher.jit, at decoration): DWARF and bounds checks.
CUDA_DEBUGINFO_DEFAULT = _limit_from_environment("GPUJIT_CUDA_DEBUGINFO", "NUMBA_CUDA_DEBUGINFO", int, 0)


def _opt_from_environment():
    """jit()'s optimization level when a decorator leaves opt= out: 0 to 3, or numba's 'max' (3)."""
    name = "GPUJIT_OPT" if "GPUJIT_OPT" in os.environ else "NUMBA_OPT"
    value = os.environ.get(name, "3").strip().lower()
    if value == "max":
        return 3
    if value not in ("0", "1", "2", "3"):
        raise ValueError(f"environment variable {name}={value!r} must be 0, 1, 2, 3 or 'max'")
    return int(value)


# jit()'s opt= when a decorator leaves it out (gpujit._dispatcher.jit, at decoration), as numba's config.OPT.
OPT = _opt_from_environment()
sys.modules[__name__].__class__ = _Config
