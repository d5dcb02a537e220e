"""Several devices (docs/multi_gpu.md): the current device is per thread, `with gpu.gpus[i]:` selects one for a
block, a kernel is compiled once and loaded on each device, arrays, streams and events belong to a device,
using one on another device is a clear error, and arrays are copied between devices.

The tests that need two devices run on a machine with two GPUs, and on every CI run against the fake driver
with two devices: the fake driver reads FAKECUDA_DEVICES once per process, so test_on_two_fake_devices runs
this file again in a child process that has it set. The fake driver runs no kernels but checks what a real
driver would refuse (a kernel launched in another device's context, a stream or event of another device) and
records on which device each launch and allocation happened; on real GPUs the tests check results against
NumPy. The examples' tests (a thread per GPU, torch.distributed over NCCL) need two real GPUs.
"""

import ctypes
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import gpujit as gpu
from conftest import FAKE_LIB, REAL_GPU

ROOT = Path(__file__).resolve().parents[2]


@gpu.jit
def add_scalar(a, value):
    i = gpu.grid(1)
    if i < a.size:
        a[i] += value


class Fake:
    """The fake driver's per-device records (None on a real GPU)."""

    def __init__(self):
        self.lib = ctypes.CDLL(str(FAKE_LIB))
        self.lib.fakecuda_launches_on.restype = ctypes.c_long
        self.lib.fakecuda_synchronizes_on.restype = ctypes.c_long
        self.lib.fakecuda_pointer_device.argtypes = [ctypes.c_ulonglong]
        self.lib.fakecuda_calls.restype = ctypes.c_long
        self.lib.fakecuda_calls.argtypes = [ctypes.c_char_p]

    def launches_on(self, device):
        return self.lib.fakecuda_launches_on(device)

    def synchronizes_on(self, device):
        return self.lib.fakecuda_synchronizes_on(device)

    def device_of(self, array):
        return self.lib.fakecuda_pointer_device(array.device_ctypes_pointer.value)

    def calls(self, function):
        return self.lib.fakecuda_calls(function.encode())


@pytest.fixture
def two_gpus(cuda):
    """The CUDA backend with at least two devices; yields the fake driver's records, or None on real GPUs."""
    count = gpu._core.device_count()
    if count < 2:
        where = "the fake driver has" if FAKE_LIB else "this machine has"
        pytest.skip(f"needs 2 CUDA devices and {where} {count} (test_on_two_fake_devices runs these against the "
                    "fake driver with FAKECUDA_DEVICES=2; scripts/gpu-test OUTDIR --multi-gpu on a 2-GPU machine)")
    before = gpu.get_current_device()
    gpu.select_device(0)
    try:
        yield Fake() if FAKE_LIB else None
    finally:
        gpu._core._make_current(before)


def test_on_two_fake_devices():
    """Runs this file's two-device tests in a child process whose fake driver has two devices."""
    if FAKE_LIB is None:
        pytest.skip("a real CUDA driver is in use; GPUJIT_TEST_FAKE_DRIVER=1 runs the fake driver's two devices")
    if os.environ.get("FAKECUDA_DEVICES", "1") != "1":
        pytest.skip("this is the child run, with FAKECUDA_DEVICES set")
    env = dict(os.environ, FAKECUDA_DEVICES="2", GPUJIT_CUDA_DRIVER=str(FAKE_LIB))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:warnings",
                          __file__, "-k", "not test_on_two_fake_devices"],
                         capture_output=True, text=True, env=env, cwd="/tmp", timeout=600)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-3000:]
    # Every two-device test ran there: only the real-GPU ones (examples, results) may skip.
    summary = out.stdout.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) >= 12, out.stdout[-3000:]
    skipped = [line for line in out.stdout.splitlines() if line.startswith("SKIPPED")]
    assert all("real GPUs" in line for line in skipped), "\n".join(skipped)


def test_the_current_device_is_per_thread(two_gpus):
    gpu.select_device(1)
    seen = {}
    ready = threading.Barrier(2)

    def worker():
        seen["start"] = gpu.get_current_device().id  # a new thread starts on device 0
        gpu.select_device(0)
        ready.wait()  # the main thread reads its own device while this one has device 0
        ready.wait()
        seen["end"] = gpu.get_current_device().id

    t = threading.Thread(target=worker)
    t.start()
    ready.wait()
    assert gpu.get_current_device().id == 1
    gpu.select_device(1)
    ready.wait()
    t.join()
    assert seen == {"start": 0, "end": 0}
    assert gpu.get_current_device().id == 1


def test_with_gpus_selects_a_device_for_the_block_and_restores_the_previous(two_gpus):
    assert len(gpu.gpus) >= 2 and gpu.gpus.current.id == 0
    with gpu.gpus[1] as dev:
        assert dev.id == 1 and gpu.get_current_device() == gpu.gpus[1]
        with gpu.gpus[0]:
            assert gpu.get_current_device().id == 0
        assert gpu.get_current_device().id == 1
    assert gpu.get_current_device().id == 0
    # An exception leaves the block's device too.
    with pytest.raises(ZeroDivisionError):
        with gpu.gpus[1]:
            1 / 0
    assert gpu.get_current_device().id == 0
    # Another thread's block does not change this thread's device.
    inside = threading.Event()
    leave = threading.Event()

    def worker():
        with gpu.gpus[1]:
            inside.set()
            leave.wait(30)

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(30)
    assert gpu.get_current_device().id == 0
    leave.set()
    t.join()


def test_a_kernel_compiles_once_and_loads_on_each_device(two_gpus):
    @gpu.jit
    def fill(a, value):
        i = gpu.grid(1)
        if i < a.size:
            a[i] = value

    fake = two_gpus
    launches = [fake.launches_on(d) for d in (0, 1)] if fake else None
    results = []
    for d in (0, 1):
        with gpu.gpus[d]:
            a = gpu.device_array(16, np.float32)
            fill[1, 32](a, np.float32(d + 1))
            results.append(a)
    # One PTX per architecture (one, where both devices have the same), and a module in each device's context.
    assert fill._stats["compiled"] == len({gpu.gpus[d].compute_capability for d in (0, 1)})
    assert fill._stats["loaded"] == 2
    if fake:
        assert [fake.launches_on(d) - launches[d] for d in (0, 1)] == [1, 1]
    else:
        for d, a in enumerate(results):
            np.testing.assert_array_equal(a.copy_to_host(), np.full(16, d + 1, np.float32))


def test_arrays_streams_and_events_know_their_device(two_gpus):
    fake = two_gpus
    with gpu.gpus[1]:
        a = gpu.to_device(np.arange(8.0))
        b = gpu.device_array((2, 3), np.int32)
        s = gpu.stream()
        e = gpu.event()
    c = gpu.to_device(np.arange(3.0))
    assert (a.device.id, b.device.id, s.device.id, e.device.id, c.device.id) == (1, 1, 1, 1, 0)
    assert a[2:].device == a.device  # views too
    if fake:
        assert (fake.device_of(a), fake.device_of(b), fake.device_of(c)) == (1, 1, 0)
    # Reading an array back works whatever device is current, and leaves the current device as it was: a
    # launch right after it runs on device 0 (the driver's current context was device 1's for the copy).
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(8.0))
    assert gpu.get_current_device().id == 0
    launches = fake.launches_on(0) if fake else 0
    add_scalar[1, 32](c, 1.0)
    if fake:
        assert fake.launches_on(0) - launches == 1
    else:
        np.testing.assert_array_equal(c.copy_to_host(), np.arange(3.0) + 1)


def test_a_launch_with_an_array_of_another_device_names_the_argument_and_both_devices(two_gpus):
    with gpu.gpus[1]:
        on_1 = gpu.to_device(np.zeros(4))
    with pytest.raises(TypeError) as err:
        add_scalar[1, 32](on_1, 1.0)
    message = str(err.value)
    assert "'a'" in message and "(device 1)" in message and "launch is on" in message and "(device 0)" in message
    assert "with gpu.gpus[1]:" in message
    with gpu.gpus[1]:
        add_scalar[1, 32](on_1, 1.0)  # on its own device it launches


class DLPackOnly:
    """An array offered through __dlpack__ alone, as a DLPack producer without the CUDA array interface."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None, **kwargs):
        return self.array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_a_dlpack_tensor_of_another_device_names_the_argument_and_both_devices(two_gpus):
    # DLPack says which GPU a tensor is on (PyTorch's tensors are read through it): a launch or from_dlpack
    # on another device is refused before the kernel could touch another GPU's memory.
    with gpu.gpus[1]:
        on_1 = gpu.to_device(np.zeros(4))
        assert gpu.from_dlpack(DLPackOnly(on_1)).device.id == 1
        add_scalar[1, 32](DLPackOnly(on_1), 1.0)
    with pytest.raises(TypeError, match=r"argument 'a' \(position 1\) is a tensor on CUDA device 1 but .*"
                                        r"\(device 0\) is current; use it inside 'with gpu.gpus\[1\]:'"):
        add_scalar[1, 32](DLPackOnly(on_1), 1.0)
    with pytest.raises(ValueError, match=r"is a tensor on CUDA device 1 but .*\(device 0\) is current"):
        gpu.from_dlpack(DLPackOnly(on_1))


def test_an_exchange_api_tensor_of_another_device_names_the_argument_and_both_devices(two_gpus):
    # A tensor read through DLPack's C exchange API (PyTorch's) names its device too: a launch compares it with
    # its own device, the first time it meets the tensor's type (the general path) and afterwards (the launch
    # path's reader of known types).
    from test_foreign_arrays import _exchange_tensor_type

    fake = two_gpus
    Tensor = _exchange_tensor_type()
    on_0 = gpu.to_device(np.zeros(4, np.float32))
    with gpu.gpus[1]:
        on_1 = gpu.to_device(np.zeros(4, np.float32))
        launches = fake.launches_on(1) if fake else 0
        for _ in range(2):
            add_scalar[1, 32](Tensor(on_1, device_id=1), 1.0)
        if fake:
            assert fake.launches_on(1) - launches == 2
        with pytest.raises(TypeError, match=r"argument 'a' \(position 1\) is a tensor on CUDA device 0 but .*"
                                            r"\(device 1\) is current; use it inside 'with gpu.gpus\[0\]:'"):
            add_scalar[1, 32](Tensor(on_0), 1.0)
    with pytest.raises(TypeError, match=r"argument 'a' \(position 1\) is a tensor on CUDA device 1 but .*"
                                        r"\(device 0\) is current; use it inside 'with gpu.gpus\[1\]:'"):
        add_scalar[1, 32](Tensor(on_1, device_id=1), 1.0)
    assert Tensor.calls == 4


def test_copies_between_devices(two_gpus):
    fake = two_gpus
    host = np.arange(1000, dtype=np.float32)
    on_0 = gpu.to_device(host)
    peer_calls = fake.calls("cuMemcpyPeer") if fake else 0
    with gpu.gpus[1]:
        same = gpu.to_device(on_0.copy_to_host())
        moved = gpu.to_device(on_0)  # from device 0 to a new array on device 1
        assert moved.device.id == 1 and gpu.to_device(moved) is moved  # on its own device: as it is (numba)
        into = gpu.device_array_like(host)
        into.copy_to_device(on_0)
        s = gpu.stream()
        onto_stream = gpu.device_array_like(host)
        onto_stream.copy_to_device(on_0, stream=s)
        s.synchronize()
    for a in (same, moved, into, onto_stream):
        assert a.device.id == 1
        np.testing.assert_array_equal(a.copy_to_host(), host)
    # Back again, into a slice of a device-0 array.
    back = gpu.device_array(2000, np.float32)
    back[1000:].copy_to_device(moved)
    np.testing.assert_array_equal(back.copy_to_host()[1000:], host)
    if fake:
        assert fake.calls("cuMemcpyPeer") - peer_calls == 3
        assert fake.calls("cuMemcpyPeerAsync") >= 1
        assert fake.device_of(moved) == 1
    with pytest.raises(ValueError, match=r"incompatible shape: \(2000,\) vs. \(10,\)"):
        back.copy_to_device(moved[:10])


def test_peer_access_is_reported(two_gpus):
    d0, d1 = gpu.gpus[0], gpu.gpus[1]
    assert d0.can_access_peer(d0)
    assert isinstance(d0.can_access_peer(d1), bool)


def test_a_stream_of_another_device_is_a_clear_error(two_gpus):
    s0 = gpu.stream()
    e0 = gpu.event()
    assert s0.device.id == 0
    with gpu.gpus[1]:
        a = gpu.device_array(4, np.float64)
        with pytest.raises(ValueError, match=r"stream was made on .*\(device 0\) but the work is on .*\(device 1\)"):
            add_scalar[1, 32, s0](a, 1.0)
        with pytest.raises(ValueError, match=r"\(device 0\)"):
            gpu.to_device(np.zeros(3), stream=s0)
        with pytest.raises(ValueError, match=r"\(device 0\)"):
            gpu.device_array(3, stream=s0)
        s1 = gpu.stream()
        e1 = gpu.event()
        add_scalar[1, 32, s1](a, 1.0)
        e1.record(s1)
        launcher = add_scalar[1, 32, s1]
    # A launcher made while device 1 was current, launched on device 0.
    b = gpu.device_array(4, np.float64)
    with pytest.raises(ValueError, match=r"the launch of kernel 'add_scalar' is on .*\(device 0\)"):
        launcher(b, 1.0)
    with pytest.raises(ValueError, match=r"stream was made on .*\(device 1\)"):
        e0.record(s1)
    with pytest.raises(ValueError, match=r"made on .*\(device 0\) but the work is on .*\(device 1\)"):
        a.copy_to_host(stream=s0)
    e1.synchronize()
    s1.synchronize()  # a stream's own methods work from any device
    e0.record()  # the default stream: the event's device's
    e0.synchronize()


def test_synchronize_waits_for_the_current_device_only(two_gpus):
    fake = two_gpus
    before = [fake.synchronizes_on(d) for d in (0, 1)] if fake else None
    with gpu.gpus[1]:
        a = gpu.to_device(np.zeros(32))
        add_scalar[1, 32](a, 2.0)
        gpu.synchronize()
    gpu.synchronize()
    gpu.synchronize()
    if fake:
        assert [fake.synchronizes_on(d) - before[d] for d in (0, 1)] == [2, 1]
    else:
        np.testing.assert_array_equal(a.copy_to_host(), np.full(32, 2.0))


def test_a_thread_per_device_runs_its_kernels_on_its_own_device(two_gpus):
    fake = two_gpus
    n_dev = gpu._core.device_count()
    launches = [fake.launches_on(d) for d in range(n_dev)] if fake else None
    rounds = 5
    out, errors = {}, []

    def worker(d):
        try:
            with gpu.gpus[d]:
                x = np.arange(256, dtype=np.float64) * (d + 1)
                a = gpu.to_device(x)
                for _ in range(rounds):
                    add_scalar[4, 64](a, float(d))
                gpu.synchronize()
                out[d] = (a.device.id, gpu.get_current_device().id, a.copy_to_host(), x + rounds * d)
        except Exception as e:  # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(d,)) for d in range(n_dev)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for d in range(n_dev):
        array_device, current, got, expected = out[d]
        assert array_device == current == d
        if fake:
            assert fake.launches_on(d) - launches[d] == rounds
        else:
            np.testing.assert_array_equal(got, expected)


def test_an_array_of_the_cpu_backend_is_copied_to_a_cuda_device_through_the_host(cuda):
    # Two backends share no memory: the copy goes through the host (rt::Device::copy_from_device).
    before = gpu.get_current_device()
    try:
        gpu.select_device("cpu")
        on_cpu = gpu.to_device(np.arange(10.0))
        gpu.select_device("cuda:0")
        on_cuda = gpu.to_device(on_cpu)
        assert (on_cpu.device.backend, on_cuda.device.backend) == ("cpu", "cuda")
        np.testing.assert_array_equal(on_cuda.copy_to_host(), np.arange(10.0))
        back = gpu.device_array(10, np.float64)
        back.copy_to_device(on_cpu)
        np.testing.assert_array_equal(back.copy_to_host(), np.arange(10.0))
    finally:
        gpu._core._make_current(before)


def real_gpus(n):
    """Skips unless this process runs on at least `n` real GPUs."""
    if not REAL_GPU:
        pytest.skip(f"runs kernels on {n} real GPUs; this machine has none (scripts/gpu-test OUTDIR --multi-gpu)")
    count = gpu._core.device_count() if gpu._core.backend_name() == "cuda" else 0
    if count < n:
        pytest.skip(f"runs kernels on {n} real GPUs; this machine has {count}")


def run_example(name, *args, timeout=600):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / name), *args], capture_output=True, text=True,
                         timeout=timeout, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return out.stdout


def test_thread_per_gpu_example():
    real_gpus(2)
    stdout = run_example("multi_gpu_threads.py")
    assert "match NumPy" in stdout and f"on {gpu._core.device_count()} devices" in stdout


def test_torch_distributed_nccl_example():
    real_gpus(2)
    torch = pytest.importorskip("torch", reason="torch is not installed; the example needs PyTorch with NCCL")
    import torch.distributed as dist

    if torch.cuda.device_count() < 2:
        pytest.skip(f"PyTorch sees {torch.cuda.device_count()} GPU(s); the example runs one process per GPU on 2")
    if not dist.is_available() or not dist.is_nccl_available():
        pytest.skip("this PyTorch has no NCCL backend for torch.distributed")
    stdout = run_example("multi_gpu_torch.py", "--processes", "2")
    assert "all-reduce of gpujit results matches NumPy" in stdout
