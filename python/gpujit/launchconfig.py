"""The launch configuration a compile can read (numba-cuda's numba.cuda.launchconfig).

A compile that a launch triggers (`kernel[grid, block, stream, shared](args)` for argument types not compiled
yet) runs with that launch's configuration set for its thread: griddim, blockdim, stream, sharedmem, the
dispatcher and the launch's arguments. Code that runs during the compile (a dispatcher's `_compile_for_args`
replaced by the user, numba-cuda extension hooks) reads it with current_launch_config(). It is thread-local
and cleared as soon as the compile ends: outside a launch-triggered compile there is none.

A compile that calls `dispatcher.mark_launch_config_sensitive()` while it runs makes the kernel depend on the
launch configuration: from then on each launch configuration gets a compile of its own (Dispatcher in
_dispatcher.py keeps them).

Layer "base" of the Python package: imports nothing of the package.
"""

import contextlib
import functools
import types
from _thread import _local as _thread_local  # threading.local, without importing threading

_local = _thread_local()


def _dim3(value):
    """A grid or block extent as numba reports it in a launch configuration: a 3-tuple of ints."""
    dims = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))


class LaunchConfig:
    """One launch's configuration, as a compile it triggers sees it."""

    def __init__(self, dispatcher, griddim, blockdim, stream=0, sharedmem=0, args=None):
        self.dispatcher = dispatcher
        self.griddim = _dim3(griddim)
        self.blockdim = _dim3(blockdim)
        self.stream = stream
        self.sharedmem = int(sharedmem)
        self.args = args
        self._kernel_launch_config_sensitive = False

    def key(self):
        """What tells launch configurations apart for a launch-config-sensitive kernel."""
        return self.griddim, self.blockdim, self.sharedmem

    def __repr__(self):
        return (f"<LaunchConfig griddim={self.griddim} blockdim={self.blockdim} sharedmem={self.sharedmem} "
                f"of {self.dispatcher!r}>")


def current_launch_config():
    """The launch configuration of the launch-triggered compile running on this thread, or None."""
    return getattr(_local, "config", None)


def ensure_current_launch_config():
    """current_launch_config(), or RuntimeError where none is set (a compile not triggered by a launch)."""
    config = current_launch_config()
    if config is None:
        raise RuntimeError("No launch config set for this thread: the launch configuration is only available "
                           "during a compile that a kernel launch triggers")
    return config


@contextlib.contextmanager
def active_launch_config(config):
    """Sets `config` as this thread's launch configuration for the block (restores the previous one after)."""
    previous = getattr(_local, "config", None)
    _local.config = config
    try:
        yield config
    finally:
        _local.config = previous


@contextlib.contextmanager
def capture_compile_config(dispatcher):
    """Records the launch configuration a launch-triggered compile of `dispatcher` sees, for the block.

    Yields a dict whose "config" is None until a launch in the block compiles the kernel, then that launch's
    LaunchConfig. The dispatcher's `_compile_for_args` is wrapped for the block and restored after it."""
    if dispatcher is None:
        raise TypeError("capture_compile_config() needs a dispatcher")
    record = {"config": None}
    absent = object()
    own = dispatcher.__dict__.get("_compile_for_args", absent)
    inner = dispatcher._compile_for_args

    @functools.wraps(inner)
    def recording(self, *args, **kwargs):
        record["config"] = current_launch_config()
        return inner(*args, **kwargs)

    dispatcher._compile_for_args = types.MethodType(recording, dispatcher)
    try:
        yield record
    finally:
        if own is absent:
            del dispatcher._compile_for_args
        else:
            dispatcher._compile_for_args = own


__all__ = ["LaunchConfig", "current_launch_config", "ensure_current_launch_config", "capture_compile_config"]
