"""Driver faults, injected through the fake CUDA driver: each gives a clear gpujit.CudaAPIError (or
CudaSupportError) naming the driver call, the CUDA error and what gpujit was doing, leaks nothing, and leaves
the process usable wherever CUDA does; where CUDA does not (a sticky error, a lost device), every later call
fails too and the message says to restart the process.

Each `case_*` function triggers one fault and returns the exception; test_fault runs it and checks it against
its row of docs/reliability.md ("Driver faults"), so the doc's table is what these tests see.
"""

import gc
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import warnings

import numpy as np
import pytest
from conftest import FAKE_LIB
from reliability_doc import check_row

import gpujit as gpu

SECTION = "Driver faults"

# CUresult values (the driver API's).
INVALID_VALUE = 1
OUT_OF_MEMORY = 2
DEINITIALIZED = 4
DEVICE_UNAVAILABLE = 46
NO_DEVICE = 100
INVALID_IMAGE = 200
NOT_FOUND = 500
ILLEGAL_ADDRESS = 700
LAUNCH_OUT_OF_RESOURCES = 701
LAUNCH_FAILED = 719


@gpu.jit
def fill(a, v):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = v


def in_use():
    return gpu.allocator_stats().bytes_in_use


def launch_works(fake):
    """A launch and a copy back after the fault: the process is still usable."""
    d = gpu.to_device(np.zeros(64, np.float32))
    before = fake.calls("cuLaunchKernel")
    fill[1, 64](d, 2.0)
    gpu.synchronize()
    assert fake.calls("cuLaunchKernel") == before + 1
    assert d.copy_to_host().shape == (64,)


def raised(exc_type, fn, *args):
    with pytest.raises(exc_type) as info:
        fn(*args)
    return info.value


# ---- out of memory ----

def case_oom_no_cache(fake):
    gpu.empty_cache()
    fake.fail("cuMemAlloc_v2", OUT_OF_MEMORY)
    e = raised(gpu.CudaAPIError, gpu.device_array, 1 << 20, np.uint8)
    assert e.recoverable and e.function == "cuMemAlloc" and e.name == "CUDA_ERROR_OUT_OF_MEMORY"
    launch_works(fake)
    return e


def case_oom_after_retry(fake):
    gpu.device_array(4096, np.uint8)  # freed at once: a cached block
    assert gpu.allocator_stats().bytes_cached > 0
    live = fake.live("allocations")
    fake.fail("cuMemAlloc_v2", OUT_OF_MEMORY, times=2)
    e = raised(gpu.CudaAPIError, gpu.device_array, 1 << 20, np.uint8)
    # The cache was given back before the retry: fewer live driver allocations, none cached.
    assert gpu.allocator_stats().bytes_cached == 0
    assert fake.live("allocations") < live
    assert e.recoverable
    launch_works(fake)
    return e


def case_oom_copying_a_launch_argument(fake):
    gpu.empty_cache()
    used = in_use()
    host = np.zeros(1000, np.float32)
    fake.fail("cuMemAlloc_v2", OUT_OF_MEMORY)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpu.PerformanceWarning)
        e = raised(gpu.CudaAPIError, fill[1, 32], host, 1.0)
        assert in_use() == used
        fill[1, 32](host, 1.0)  # the same launch works once memory is back
    assert in_use() == used
    return e


# ---- loading a kernel ----

def case_bad_image(fake):
    @gpu.jit
    def k(a):
        a[0] = 1

    d = gpu.device_array(4, np.int32)
    modules = fake.live("modules")
    fake.fail("cuModuleLoadDataEx", INVALID_IMAGE)
    e = raised(gpu.CudaAPIError, k[1, 1], d)
    assert fake.live("modules") == modules
    k[1, 1](d)  # the load is tried again, and works
    assert fake.live("modules") == modules + 1
    return e


def case_failure_after_the_module_loaded(fake):
    @gpu.jit
    def k(a):
        a[0] = 2

    d = gpu.device_array(4, np.int32)
    modules = fake.live("modules")
    fake.fail("cuModuleGetFunction", NOT_FOUND)
    e = raised(gpu.CudaAPIError, k[1, 1], d)
    assert fake.live("modules") == modules  # the module that loaded was unloaded
    k[1, 1](d)
    assert fake.live("modules") == modules + 1
    return e


# ---- launching ----

def case_launch_fails(fake):
    d = gpu.device_array(64, np.float32)
    fill[1, 64](d, 0.0)  # loaded
    fake.fail("cuLaunchKernel", LAUNCH_OUT_OF_RESOURCES)
    e = raised(gpu.CudaAPIError, fill[2, 32], d, 1.0)
    assert e.recoverable
    launch_works(fake)
    return e


def case_launch_fails_with_a_numpy_argument(fake):
    used = in_use()
    host = np.zeros(100, np.float32)
    fill[1, 128](gpu.to_device(host), 0.0)
    fake.fail("cuLaunchKernel", LAUNCH_OUT_OF_RESOURCES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpu.PerformanceWarning)
        e = raised(gpu.CudaAPIError, fill[1, 128], host, 1.0)
    assert in_use() == used  # the argument's device copy was freed
    launch_works(fake)
    return e


def sticky_afterwards(fake, code):
    """After a sticky error every call fails with it, saying so; the fake's reset stands for a restart."""
    e = raised(gpu.CudaAPIError, gpu.to_device, np.zeros(10, np.float32))
    assert e.code == code and not e.recoverable and "restart the process" in str(e)
    e = raised(gpu.CudaAPIError, fill[1, 32], np.zeros(4, np.float32), 1.0)
    assert e.code == code
    fake.reset_faults()
    launch_works(fake)


def case_error_at_the_next_synchronize(fake):
    d = gpu.device_array(64, np.float32)
    fake.fail_async(ILLEGAL_ADDRESS, sticky=True)
    fill[1, 64](d, 1.0)  # the launch itself succeeds, as on a GPU
    e = raised(gpu.CudaAPIError, gpu.synchronize)
    assert e.code == ILLEGAL_ADDRESS and not e.recoverable
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpu.PerformanceWarning)
        sticky_afterwards(fake, ILLEGAL_ADDRESS)
    return e


def case_sticky_error_at_a_later_call(fake):
    d = gpu.device_array(64, np.float32)
    fake.fail_async(ILLEGAL_ADDRESS, sticky=True)
    fill[1, 64](d, 1.0)
    raised(gpu.CudaAPIError, gpu.synchronize)
    e = raised(gpu.CudaAPIError, gpu.to_device, np.zeros(256, np.float32))
    assert e.code == ILLEGAL_ADDRESS and not e.recoverable
    fake.reset_faults()
    launch_works(fake)
    return e


def case_error_in_the_copy_back(fake):
    host = np.zeros(64, np.float32)
    fill[1, 64](gpu.to_device(host), 0.0)
    fake.fail_async(LAUNCH_FAILED, sticky=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpu.PerformanceWarning)
        e = raised(gpu.CudaAPIError, fill[1, 64], host, 1.0)
        assert e.function == "cuMemcpyDtoHAsync" and not e.recoverable
        sticky_afterwards(fake, LAUNCH_FAILED)
    return e


def lost_device(fake, code):
    d = gpu.to_device(np.zeros(64, np.float32))
    fill[1, 64](d, 0.0)
    fake.sticky(code)
    e = raised(gpu.CudaAPIError, fill[1, 64], d, 1.0)
    # A busy device (exclusive mode) may come back; a lost one or a driver shut down does not.
    assert e.code == code and e.recoverable == (code == DEVICE_UNAVAILABLE)
    raised(gpu.CudaAPIError, gpu.synchronize)
    # The CPU backend still runs kernels.
    gpu.select_device("cpu")
    host = np.zeros(64, np.float32)
    fill[1, 64](host, 3.0)
    assert (host == 3.0).all()
    return e


def case_device_unavailable(fake):
    return lost_device(fake, DEVICE_UNAVAILABLE)


def case_no_device(fake):
    return lost_device(fake, NO_DEVICE)


def case_deinitialized(fake):
    return lost_device(fake, DEINITIALIZED)


# ---- copies, streams, freeing ----

def case_copy_to_the_device(fake):
    used = in_use()
    fake.fail("cuMemcpyHtoDAsync_v2", INVALID_VALUE)
    e = raised(gpu.CudaAPIError, gpu.to_device, np.arange(1000, dtype=np.float32))
    assert in_use() == used  # the new array's memory went back
    assert gpu.to_device(np.arange(1000, dtype=np.float32)).copy_to_host()[999] == 999
    return e


def case_copy_to_the_host(fake):
    d = gpu.to_device(np.arange(16, dtype=np.int64))
    fake.fail("cuMemcpyDtoHAsync_v2", INVALID_VALUE)
    e = raised(gpu.CudaAPIError, d.copy_to_host)
    assert d.copy_to_host()[15] == 15
    return e


def case_stream_creation(fake):
    gc.collect()  # streams an earlier test left in reference cycles go now, not during the counting below
    streams = fake.live("streams")
    fake.fail("cuStreamCreate", OUT_OF_MEMORY)
    e = raised(gpu.CudaAPIError, gpu.stream)
    assert fake.live("streams") == streams
    s = gpu.stream()
    assert fake.live("streams") == streams + 1
    del s
    gc.collect()
    assert fake.live("streams") == streams
    return e


def case_free_fails(fake):
    gpu.empty_cache()
    live = fake.live("allocations")
    for n in (1000, 5000, 20000):
        gpu.device_array(n, np.uint8)  # three cached blocks
    assert fake.live("allocations") == live + 3
    fake.fail("cuMemFree_v2", INVALID_VALUE)
    e = raised(gpu.CudaAPIError, gpu.empty_cache)
    # The other two were freed, and none stays cached to be freed twice.
    assert fake.live("allocations") == live + 1
    assert gpu.allocator_stats().bytes_cached == 0
    gpu.empty_cache()
    launch_works(fake)
    return e


# ---- start-up: in a fresh process, since the driver and a device's context are set up once ----

STARTUP = textwrap.dedent("""
    import json, sys
    import numpy as np
    import gpujit as gpu

    @gpu.jit
    def fill(a, v):
        i = gpu.grid(1)
        if i < a.size:
            a[i] = v

    out = {}
    try:
        gpu.select_device("cuda")
    except Exception as e:
        out["type"], out["message"] = type(e).__name__, str(e)
        out["recoverable"] = getattr(e, "recoverable", None)
    host = np.zeros(8, np.float32)
    gpu.select_device("cpu")
    fill[1, 8](host, 5.0)
    out["cpu_works"] = bool((host == 5.0).all())
    try:
        gpu.select_device("cuda")
        fill[1, 8](gpu.to_device(host), 1.0)
        out["cuda_after"] = True
    except Exception as e:
        out["cuda_after"] = type(e).__name__ + ": " + str(e)
    print(json.dumps(out))
""")


def startup(fake, plant):
    env = dict(os.environ, GPUJIT_CUDA_DRIVER=str(FAKE_LIB), GPUJIT_DEVICE="cpu", FAKECUDA_FAIL=plant)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "startup.py")  # in a file: gpujit compiles kernels from their source
        with open(script, "w") as f:
            f.write(STARTUP)
        proc = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def case_init_fails(fake):
    out = startup(fake, f"cuInit:{NO_DEVICE}")
    assert out["cpu_works"]
    # cuInit runs once per process: CUDA stays unavailable in it.
    assert out["cuda_after"].startswith("CudaSupportError: no CUDA driver found")
    return getattr(gpu, out["type"])(out["message"])


def case_context_creation_fails(fake):
    out = startup(fake, f"cuDevicePrimaryCtxRetain:{DEVICE_UNAVAILABLE}")
    assert out["cpu_works"] and out["recoverable"] is True
    # The failure was once: the next select_device("cuda") opens the device and launches.
    assert out["cuda_after"] is True
    e = gpu.CudaAPIError(out["message"])
    return e


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


@pytest.mark.parametrize("case", list(CASES))
def test_fault(fake, case):
    exc = CASES[case](fake)
    check_row(SECTION, f"test_fault[{case}]", exc)


def test_a_kernel_unloads_its_module_when_collected(fake):
    modules = fake.live("modules")

    @gpu.jit
    def k(a):
        a[0] = 3

    k[1, 1](gpu.device_array(1, np.int32))
    assert fake.live("modules") == modules + 1
    del k
    gc.collect()
    assert fake.live("modules") == modules


def test_failures_of_cleanup_calls_are_not_raised(fake):
    """Destroying a stream or unloading a module happens in a destructor, where an error cannot be raised:
    a failure there is ignored and the process goes on."""
    s = gpu.stream()
    fake.fail("cuStreamDestroy_v2", INVALID_VALUE)
    del s
    gc.collect()

    @gpu.jit
    def k(a):
        a[0] = 4

    k[1, 1](gpu.device_array(1, np.int32))
    fake.fail("cuModuleUnload", INVALID_VALUE)
    del k
    gc.collect()
    assert fake.calls("cuModuleUnload") > 0
    launch_works(fake)


def test_out_of_memory_once_is_absorbed_by_the_cache(fake):
    gpu.device_array(5000, np.uint8)  # a cached block exists after this is freed
    fake.fail("cuMemAlloc_v2", OUT_OF_MEMORY)
    d = gpu.device_array(300000, np.uint8)
    assert d.size == 300000 and gpu.allocator_stats().bytes_cached == 0
    launch_works(fake)


def test_a_fault_planted_for_every_call(fake):
    """"*" fails every entry point: whatever runs next names its own call."""
    fake.fail("*", NO_DEVICE, times=-1)
    e = raised(gpu.CudaAPIError, gpu.to_device, np.zeros(100, np.float32))
    assert str(e).startswith(f"{e.function} failed: CUDA_ERROR_NO_DEVICE") and not e.recoverable
    fake.reset_faults()
    launch_works(fake)
