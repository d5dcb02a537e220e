"""The launch configuration a launch-triggered compile sees (gpujit.launchconfig, numba-cuda's launchconfig)."""

import threading

import numpy as np
import pytest

import gpujit as cuda
from gpujit import launchconfig


def _kernel():
    @cuda.jit
    def k(x):
        x[0] = 1

    return k


def test_config_is_set_during_a_launch_triggered_compile_only():
    k = _kernel()
    seen = []
    inner = k._compile_for_args

    def hook(*args):
        seen.append(launchconfig.current_launch_config())
        return inner(*args)

    k._compile_for_args = hook
    arr = np.zeros(1, dtype=np.int32)
    assert launchconfig.current_launch_config() is None
    k[2, (4, 2)](arr)
    assert arr[0] == 1
    (cfg,) = seen
    assert cfg.dispatcher is k
    assert cfg.griddim == (2, 1, 1) and cfg.blockdim == (4, 2, 1) and cfg.sharedmem == 0
    assert cfg.args[0] is arr
    assert launchconfig.current_launch_config() is None
    k[2, (4, 2)](arr)  # compiled: the hook is not called again
    assert len(seen) == 1
    with pytest.raises(RuntimeError, match="No launch config set"):
        launchconfig.ensure_current_launch_config()


def test_capture_compile_config_restores_the_dispatcher():
    k = _kernel()
    before = k._compile_for_args
    with launchconfig.capture_compile_config(k) as record:
        k[1, 3](np.zeros(1, dtype=np.int32))
    assert record["config"].blockdim == (3, 1, 1)
    assert "_compile_for_args" not in k.__dict__
    assert k._compile_for_args.__func__ is before.__func__
    with pytest.raises(TypeError):
        with launchconfig.capture_compile_config(None):
            pass


def test_config_is_thread_local():
    k = _kernel()
    barrier = threading.Barrier(2)
    seen, errors = [], []
    inner = k._compile_for_args

    def hook(*args):
        cfg = launchconfig.ensure_current_launch_config()
        barrier.wait(timeout=5)  # both threads are compiling at once
        seen.append(id(cfg.args[0]))
        return inner(*args)

    k._compile_for_args = hook
    configured = k[1, 1]
    arrays = [np.zeros(1, dtype=np.int32) for _ in range(2)]

    def run(a):
        try:
            configured(a)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(a,)) for a in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert errors == []
    assert set(seen) == {id(a) for a in arrays}
    assert configured.args is None


def test_a_launcher_made_before_the_hook_runs_it():
    # numba-cuda's test_launch_config_args_are_thread_local makes `kernel[1, 1]` first, then sets the hook.
    k = _kernel()
    configured = k[1, 1, 0]
    seen = []
    inner = k._compile_for_args

    def hook(*args):
        cfg = launchconfig.ensure_current_launch_config()
        seen.append((cfg.griddim, cfg.blockdim, cfg.stream, configured.args is args or configured.args == args))
        return inner(*args)

    k._compile_for_args = hook
    a = np.zeros(1, dtype=np.int32)
    configured(a)
    configured(a)  # compiled now: the hook does not compile again
    assert seen == [((1, 1, 1), (1, 1, 1), 0, True)]
    assert a[0] == 1 and configured.args is None
    del k._compile_for_args
    configured(np.zeros(1, dtype=np.float32))  # the hook is gone with the attribute
    assert len(seen) == 1


def test_launch_config_sensitive_kernel_compiles_per_configuration(monkeypatch):
    from gpujit import _dispatcher

    k = _kernel()
    compiles = []  # (dispatcher, blockdim) of each launch-triggered compile, the per-configuration ones too
    plain = _dispatcher.Dispatcher._compile_for_args

    def recording(self, *args):
        compiles.append((self, launchconfig.ensure_current_launch_config().blockdim))
        return plain(self, *args)

    monkeypatch.setattr(_dispatcher.Dispatcher, "_compile_for_args", recording)
    configs = []
    inner = k._compile_for_args

    def hook(*args):
        cfg = launchconfig.ensure_current_launch_config()
        configs.append(cfg.blockdim)
        cfg.dispatcher.mark_launch_config_sensitive()
        return inner(*args)

    k._compile_for_args = hook
    arr = np.zeros(1, dtype=np.int32)
    k[1, 32](arr)
    assert next(iter(k.overloads.values())).launch_config_sensitive
    k[1, 32](arr)
    assert configs == [(32, 1, 1)]
    k[1, 64](arr)  # another configuration: a compile of its own, with that configuration set
    assert len(k._launch_config_specializations) == 1
    spec = next(iter(k._launch_config_specializations.values()))
    assert spec is not k and len(spec.signatures) == 1
    assert [(d is k, b) for d, b in compiles] == [(True, (32, 1, 1)), (False, (64, 1, 1))]
    k[1, 64](arr)
    k[1, 32](arr)
    assert len(compiles) == 2 and arr[0] == 1
    # A new compile of a sensitive kernel needs a launch configuration.
    with pytest.raises(RuntimeError, match="No launch config set"):
        k.compile("(float32[::1],)")


def test_mark_needs_the_compile_of_this_dispatchers_launch():
    k, other = _kernel(), _kernel()
    with pytest.raises(RuntimeError, match="No launch config set"):
        k.mark_launch_config_sensitive()
    inner = k._compile_for_args

    def hook(*args):
        other.mark_launch_config_sensitive()
        return inner(*args)

    k._compile_for_args = hook
    with pytest.raises(RuntimeError, match="must be called on the dispatcher"):
        k[1, 1](np.zeros(1, dtype=np.int32))


def test_plain_kernel_keeps_the_core_launcher():
    k = _kernel()
    assert type(k[1, 1]).__name__ == "Launcher"
    assert not next(iter(k.compile("(int32[::1],)") and k.overloads.values())).launch_config_sensitive
