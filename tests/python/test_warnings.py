"""numba-cuda's launch and configuration warnings, issued by gpujit through Python's warnings machinery.

A grid with fewer blocks than the CUDA device has multiprocessors and a NumPy array copied to a CUDA device
for a launch warn with gpujit.PerformanceWarning at the user's line; the CPU backend warns about neither.
jit(debug=True, opt=...) warns with gpujit.InvalidConfigWarning. GPUJIT_LOW_OCCUPANCY_WARNINGS and
GPUJIT_WARN_ON_IMPLICIT_COPY (or numba's NUMBA_CUDA_* names) switch the launch warnings off. Each launch
warning is issued at most once per kernel (and grid size), so a loop pays for the warnings machinery once.
"""

import inspect
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import gpujit as gpu
from gpujit import _core


def _store(r, x):
    r[0] = x + 1


def fresh():
    """A kernel no launch has warned about yet."""
    return gpu.jit(_store)


def _line(text):
    """The line of this file holding `text` (the launches below are found by their text)."""
    lines, first = inspect.getsourcelines(sys.modules[__name__])
    return next(n for n, line in enumerate(lines, 1) if text in line and "_line(" not in line)


@pytest.fixture
def switches():
    """Restores the launch warnings' switches after a test that changes them."""
    saved = _core._launch_warnings()
    yield
    _core._set_launch_warnings(*saved)


def test_a_grid_smaller_than_the_device_warns_where_it_is_configured(cuda):
    store = fresh()
    sms = gpu.get_current_device().MULTIPROCESSOR_COUNT
    with pytest.warns(gpu.PerformanceWarning, match=rf"^Grid size 6 will likely result in GPU under-utilization due "
                                                    rf"to low occupancy: the device has {sms} multiprocessors") as w:
        launcher = store[(3, 2), 32]  # small grid here
    assert len(w) == 1 and w[0].filename == __file__ and w[0].lineno == _line("# small grid here")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        launcher(gpu.device_array(1, np.float32), 1)  # the launch itself does not warn again


def test_a_grid_with_a_block_per_multiprocessor_does_not_warn(cuda):
    store = fresh()
    sms = gpu.get_current_device().MULTIPROCESSOR_COUNT
    r = gpu.device_array(1, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store[sms, 1](r, 1)
        store[(sms, 1, 1), 1](r, 1)
        store[4096, 256](r, 1)


def test_the_occupancy_warning_shows_once_per_kernel_and_grid_size(cuda):
    store = fresh()
    r = gpu.device_array(1, np.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")  # even so: the kernel does not warn twice about one grid size
        for blocks in (1, 2, 3, 1, 2, 3):
            store[(blocks, 1), 32](r, 1)
        store[1, 32](r, 1)
        fresh()[1, 32]
    assert [str(x.message)[:12] for x in w] == ["Grid size 1 ", "Grid size 2 ", "Grid size 3 ", "Grid size 1 "]
    assert "(kernel '_store')" in str(w[0].message)


def test_the_occupancy_warning_can_be_an_error(cuda):
    store = fresh()
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpu.PerformanceWarning)
        for _ in range(2):  # raised each time: a warning that raised does not count as given
            with pytest.raises(gpu.PerformanceWarning, match="low occupancy"):
                store[(5, 1), 1]


def test_the_occupancy_warning_can_be_switched_off(cuda, switches):
    _core._set_launch_warnings(low_occupancy=False, implicit_copy=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh()[7, 1](gpu.device_array(1, np.float32), 1)


def test_config_switches_the_warnings_at_run_time(cuda, switches):
    # numba-cuda's config names, as `cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0` in a numba-cuda program.
    gpu.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    assert gpu.config.CUDA_LOW_OCCUPANCY_WARNINGS == 0 and _core._launch_warnings()[0] is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh()[7, 1]
    gpu.config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    with pytest.warns(gpu.PerformanceWarning, match="low occupancy"):
        fresh()[7, 1]
    gpu.config.CUDA_WARN_ON_IMPLICIT_COPY = False
    assert gpu.config.CUDA_WARN_ON_IMPLICIT_COPY == 0 and _core._launch_warnings() == (True, False)
    with pytest.raises(AttributeError, match="has no attribute 'CUDA_NO_SUCH_SETTING'"):
        gpu.config.CUDA_NO_SUCH_SETTING


def test_host_arrays_warn_on_a_cuda_device_once_per_kernel(fake):
    launcher = fresh()[256, 1]
    launches = fake.calls("cuLaunchKernel")
    with pytest.warns(gpu.PerformanceWarning, match=r"^Host array used in CUDA kernel will incur copy overhead to/from "
                                                    r"device \(kernel '_store'\)") as w:
        launcher(np.zeros(4, np.float32), 1)  # host array here
    assert len(w) == 1 and w[0].filename == __file__ and w[0].lineno == _line("# host array here")
    assert fake.calls("cuLaunchKernel") == launches + 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        launcher(np.zeros(4, np.float32), 1)
    # A pinned array is a NumPy array and is copied like any other, so it warns too (as in numba).
    with pytest.warns(gpu.PerformanceWarning, match="Host array used in CUDA kernel"):
        fresh()[256, 1](gpu.pinned_array(4, np.float32), 1)


def test_device_arrays_and_scalars_do_not_warn(fake):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store = fresh()
        store[256, 1](gpu.device_array(4, np.float32), 1)
        store[256, 1](gpu.to_device(np.zeros(4)), 1.5)


def test_the_host_array_warning_as_an_error_stops_the_launch(fake):
    launcher = fresh()[256, 1]
    launches = fake.calls("cuLaunchKernel")
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpu.PerformanceWarning)
        for _ in range(2):
            with pytest.raises(gpu.PerformanceWarning, match="Host array"):
                launcher(np.zeros(4, np.float32), 1)
    assert fake.calls("cuLaunchKernel") == launches


def test_the_host_array_warning_can_be_switched_off(fake, switches):
    _core._set_launch_warnings(low_occupancy=True, implicit_copy=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh()[256, 1](np.zeros(4, np.float32), 1)


def test_the_cpu_backend_warns_about_neither():
    if _core.backend_name() != "cpu":
        pytest.skip("the default backend here is CUDA")
    r = np.zeros(1, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh()[1, 2](r, 1)
    assert r[0] == 2


@pytest.mark.parametrize("env, expected", [
    ({}, (True, True)),
    ({"GPUJIT_LOW_OCCUPANCY_WARNINGS": "0"}, (False, True)),
    ({"GPUJIT_WARN_ON_IMPLICIT_COPY": "0"}, (True, False)),
    ({"NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS": "0", "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY": "0"}, (False, False)),
    ({"GPUJIT_WARN_ON_IMPLICIT_COPY": "1", "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY": "0"}, (True, True)),
])
def test_environment_switches(env, expected):
    clean = {k: v for k, v in os.environ.items() if not k.endswith(("OCCUPANCY_WARNINGS", "ON_IMPLICIT_COPY"))}
    out = subprocess.run([sys.executable, "-c", "import gpujit; print(gpujit._core._launch_warnings())"],
                         env={**clean, **env}, capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(expected)


def test_a_bad_environment_switch_is_an_error_at_import():
    env = {**os.environ, "GPUJIT_LOW_OCCUPANCY_WARNINGS": "yes"}
    run = subprocess.run([sys.executable, "-c", "import gpujit"], env=env, capture_output=True, text=True)
    assert run.returncode != 0
    assert "GPUJIT_LOW_OCCUPANCY_WARNINGS='yes' must be 0 or 1" in run.stderr


def _kernel():
    pass


@pytest.mark.parametrize("opt", [True, 3, 1])
def test_debug_with_opt_warns_that_debug_wins(opt):
    with pytest.warns(gpu.InvalidConfigWarning, match=rf"^jit\(debug=True, opt={opt}\): debug compiles at "
                                                      r"optimization level 0, so opt is ignored \(debugging "
                                                      r"optimized code is not supported by CUDA\)") as w:
        k = gpu.jit(debug=True, opt=opt)(_kernel)  # debug and opt here
    assert len(w) == 1 and w[0].filename == __file__ and w[0].lineno == _line("# debug and opt here")
    assert k.targetoptions["opt"] == 0


def test_debug_with_lineinfo_warns_that_they_are_mutually_exclusive():
    with pytest.warns(gpu.InvalidConfigWarning, match="^debug and lineinfo are mutually exclusive") as w:
        gpu.jit(debug=True, lineinfo=True, opt=False)(_kernel)  # debug and lineinfo here
    assert len(w) == 1 and w[0].filename == __file__ and w[0].lineno == _line("# debug and lineinfo here")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gpu.jit(lineinfo=True)(_kernel)
        gpu.jit(debug=True, lineinfo=False, opt=False)(_kernel)


def test_debug_alone_warns_as_opt_defaults_to_config_opt(monkeypatch):
    # numba's rule: opt left out is config.OPT (3 unless NUMBA_OPT/GPUJIT_OPT say otherwise), so debug=True alone
    # is debug with opt and warns; with config.OPT = 0 it does not.
    with pytest.warns(gpu.InvalidConfigWarning, match=r"^jit\(debug=True, opt=3 \(config.OPT, the default\)\): "
                                                      r"debug compiles at optimization level 0") as w:
        k = gpu.jit(debug=True)(_kernel)  # debug alone here
    assert len(w) == 1 and w[0].lineno == _line("# debug alone here")
    assert k.targetoptions["opt"] == 0
    monkeypatch.setattr(gpu.config, "OPT", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gpu.jit(debug=True)(_kernel).targetoptions["opt"] == 0
        assert gpu.jit(_kernel).targetoptions["opt"] == 0
    monkeypatch.setattr(gpu.config, "OPT", 2)
    assert gpu.jit(_kernel).targetoptions["opt"] == 2


def test_opt_from_the_environment(tmp_path):
    probe = "import gpujit; print(gpujit.config.OPT, gpujit.jit(lambda: None).targetoptions['opt'])"
    for env, expected in (({"GPUJIT_OPT": "1"}, "1 1"), ({"NUMBA_OPT": "max"}, "3 3"), ({"NUMBA_OPT": "0"}, "0 0"),
                          ({"GPUJIT_OPT": "2", "NUMBA_OPT": "0"}, "2 2")):
        environment = {k: v for k, v in os.environ.items() if k not in ("GPUJIT_OPT", "NUMBA_OPT")}
        out = subprocess.run([sys.executable, "-c", probe], env={**environment, **env}, capture_output=True,
                             text=True, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == expected.split()
    out = subprocess.run([sys.executable, "-c", "import gpujit"], env={**os.environ, "GPUJIT_OPT": "fast"},
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode != 0 and "GPUJIT_OPT='fast' must be 0, 1, 2, 3 or 'max'" in out.stderr


def test_debug_without_opt_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gpu.jit(debug=True, opt=False)(_kernel)
        gpu.jit(debug=True, opt=0)(_kernel)
        gpu.jit(opt=3)(_kernel)
        gpu.jit(boundscheck=True, opt=3)(_kernel)
