"""Which backend and CUDA driver the Python tests run against, and fixtures to look inside the fake driver.

The CUDA driver is loaded once per process:
- a real GPU's when libcuda.so.1 loads and has a device, unless GPUJIT_TEST_FAKE_DRIVER=1;
- otherwise the fake driver (tests/unit/runtime/fake_driver/*.cpp), built here with g++ on first
  use (or taken from GPUJIT_FAKE_CUDA_LIB) and loaded through GPUJIT_CUDA_DRIVER. It runs no kernels but
  records every launch, so the CUDA launch path (argument classification, packing, caching, errors) is
  tested on machines without a GPU.
Tests run on the default backend: CUDA with a real GPU, else the CPU backend (GPUJIT_DEVICE=cpu is set
here when the fake driver is in use, so kernels really run). Tests that use the `cuda` fixture switch to
the CUDA backend (the real GPU, or the fake driver) for their duration; the `fake` fixture also needs the
fake driver and gives access to its records. Tests marked `gpu` need a real GPU and are skipped with the
reason otherwise. scripts/gpu-test runs the suite both ways on a GPU machine.
"""

import ctypes
import os
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE_FOLDER = ROOT / "tests" / "unit" / "runtime" / "fake_driver"


def _real_gpu_present():
    if os.environ.get("GPUJIT_TEST_FAKE_DRIVER") == "1":
        return False
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


def build_fake_driver():
    """Path of libfakecuda.so, compiled from its source when missing or older than the source."""
    prebuilt = os.environ.get("GPUJIT_FAKE_CUDA_LIB")
    if prebuilt:
        return Path(prebuilt)
    out = ROOT / "build" / "fakecuda" / "libfakecuda.so"
    cpp = sorted(FAKE_FOLDER.glob("*.cpp"))
    sources = cpp + sorted(FAKE_FOLDER.glob("*.h")) + [ROOT / "runtime" / "cuda_api.h"]
    if not out.exists() or out.stat().st_mtime < max(s.stat().st_mtime for s in sources):
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run(["g++", "-std=c++17", "-O1", "-shared", "-fPIC", f"-I{ROOT}", *map(str, cpp), "-o", str(tmp)],
                       check=True)
        tmp.replace(out)
    return out


def u64(b):
    """A parameter the fake driver recorded, as a number: 8-byte ones unsigned, 4-byte ones (an index32
    array's shapes and strides) signed."""
    return struct.unpack("<Q" if len(b) == 8 else "<i", b)[0]


REAL_GPU = _real_gpu_present()
FAKE_LIB = None
if not REAL_GPU and "GPUJIT_CUDA_DRIVER" not in os.environ:
    FAKE_LIB = build_fake_driver()
    os.environ["GPUJIT_CUDA_DRIVER"] = str(FAKE_LIB)
    os.environ.setdefault("GPUJIT_DEVICE", "cpu")
elif os.environ.get("GPUJIT_CUDA_DRIVER", "").endswith("libfakecuda.so"):
    FAKE_LIB = Path(os.environ["GPUJIT_CUDA_DRIVER"])
    os.environ.setdefault("GPUJIT_DEVICE", "cpu")


def pytest_collection_modifyitems(config, items):
    no_gpu = pytest.mark.skip(reason="no CUDA GPU here; scripts/gpu-test runs these on a GPU machine")
    for item in items:
        if "gpu" in item.keywords and not REAL_GPU:
            item.add_marker(no_gpu)


class FakeDriver:
    """ctypes access to the fake driver's counters and last launch."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        self.lib.fakecuda_calls.restype = ctypes.c_long
        self.lib.fakecuda_calls.argtypes = [ctypes.c_char_p]
        self.lib.fakecuda_last_param.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        self.lib.fakecuda_fail.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        self.lib.fakecuda_live_allocations.restype = ctypes.c_long
        self.lib.fakecuda_live_allocations.argtypes = [ctypes.POINTER(ctypes.c_longlong)]
        self.lib.fakecuda_last_global.restype = ctypes.c_void_p
        self.lib.fakecuda_fail_times.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_long, ctypes.c_long]
        self.lib.fakecuda_fail_async.argtypes = [ctypes.c_int, ctypes.c_int]
        self.lib.fakecuda_sticky.argtypes = [ctypes.c_int]
        self.lib.fakecuda_live.restype = ctypes.c_long
        self.lib.fakecuda_live.argtypes = [ctypes.c_char_p]
        self.lib.fakecuda_launch_count.restype = ctypes.c_long

    def last_global(self):
        """Address of the memory of the last global the runtime looked up (cuModuleGetGlobal)."""
        return self.lib.fakecuda_last_global()

    def calls(self, function):
        return self.lib.fakecuda_calls(function.encode())

    def fail(self, function, code, after=0, times=1):
        """`function` ("*": every entry point) returns `code` on `times` calls (-1: all) after `after` more."""
        self.lib.fakecuda_fail_times(function.encode(), code, after, times)

    def fail_async(self, code, sticky=True):
        """The next launch succeeds; the next call that waits for the GPU returns `code` (and, if sticky,
        every later call)."""
        self.lib.fakecuda_fail_async(code, int(sticky))

    def sticky(self, code):
        """Every call from now on returns `code`: a device that disappeared."""
        self.lib.fakecuda_sticky(code)

    def reset_faults(self):
        self.lib.fakecuda_reset_faults()

    def live(self, kind):
        """Live driver objects: "allocations", "pinned", "streams", "events", "modules", "graphs",
        "graph_execs" or "captures"."""
        return self.lib.fakecuda_live(kind.encode())

    def launch_count(self):
        """Launches the fake ran (recorded): a captured launch counts when its graph is launched, not before."""
        return self.lib.fakecuda_launch_count()

    def last_launch(self):
        """(kernel entry, grid, block, shared bytes, stream handle, [parameter bytes])."""
        name = ctypes.create_string_buffer(256)
        grid = (ctypes.c_uint * 3)()
        block = (ctypes.c_uint * 3)()
        shared = ctypes.c_uint()
        stream = ctypes.c_void_p()
        n = self.lib.fakecuda_last_launch(name, 256, grid, block, ctypes.byref(shared), ctypes.byref(stream))
        assert n >= 0, "no launch recorded"
        params = []
        for i in range(n):
            buf = ctypes.create_string_buffer(256)
            size = self.lib.fakecuda_last_param(i, buf, 256)
            params.append(buf.raw[:size])
        return name.value.decode(), tuple(grid), tuple(block), shared.value, stream.value or 0, params


@pytest.fixture
def cuda():
    """Runs the test on the CUDA backend: the real GPU, or the fake driver where there is none."""
    import gpujit

    previous = gpujit._core.backend_name()
    gpujit._core._set_backend("cuda")
    try:
        yield
    finally:
        gpujit._core._set_backend(previous)


@pytest.fixture
def cpu_backend():
    """Runs the test on the CPU backend, whatever the session's default (a GPU's, or the fake driver's)."""
    import gpujit

    previous = gpujit._core.backend_name()
    gpujit.select_device("cpu")
    try:
        yield
    finally:
        gpujit._core._set_backend(previous)


@pytest.fixture
def fake(cuda):
    if FAKE_LIB is None:
        pytest.skip("a real CUDA driver is in use; GPUJIT_TEST_FAKE_DRIVER=1 runs these against the fake driver")
    driver = FakeDriver(FAKE_LIB)
    yield driver
    driver.reset_faults()  # a fault a test planted but did not trigger must not fail the next test


def cuda_device_here():
    """Whether this process's CUDA driver (the real one, or the fake one set up above) sees a device."""
    import gpujit

    try:
        return gpujit._core.driver_info().get("cuda_driver") is not None
    except Exception:
        return False
