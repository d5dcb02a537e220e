"""Choosing the device: GPUJIT_DEVICE (cpu, cuda, gpu, cuda:N; GPUJIT_BACKEND is its older name), the CPU
backend when no CUDA driver or GPU is there, select_device() with a backend name or a numba-style ordinal,
and which device ran (get_current_device()). inspect_ptx()/inspect_llvm() give NVPTX code whatever the
device. Environment variables are read at the first use of a device, so those tests run a child process;
where a CUDA device is needed it is the real GPU or the fake driver conftest.py loads."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpujit as gpu
from conftest import cuda_device_here

CHILD = textwrap.dedent("""
    import numpy as np
    import gpujit as gpu

    @gpu.jit
    def add_one(a):
        i = gpu.grid(1)
        if i < a.size:
            a[i] += 1

    a = np.arange(8.0)
    try:
        add_one[2, 4](a)
        d = gpu.get_current_device()
        print(d.backend, d.id, d.name, a.sum())
    except Exception as e:
        print(type(e).__name__, e)
""")


def run_child(tmp_path, **env_vars):
    """Runs CHILD with the test process's environment, GPUJIT_BACKEND/GPUJIT_DEVICE taken out and `env_vars`
    set; returns its one line of output."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {k: v for k, v in os.environ.items() if k not in ("GPUJIT_BACKEND", "GPUJIT_DEVICE")}
    env.update(env_vars)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()



def test_gpujit_device_cpu_forces_the_cpu_backend_even_with_a_cuda_device(tmp_path):
    if not cuda_device_here():
        pytest.skip("GPUJIT_CUDA_DRIVER names a driver that does not load; conftest's fake driver would")
    # Without the variable the CUDA device is chosen; with it, the CPU runs the kernel.
    assert run_child(tmp_path).startswith("cuda 0 ")
    assert run_child(tmp_path, GPUJIT_DEVICE="cpu") == "cpu 0 cpu 36.0"
    assert run_child(tmp_path, GPUJIT_DEVICE=" CPU ") == "cpu 0 cpu 36.0"


def test_gpujit_device_names_the_cuda_backend_and_an_ordinal(tmp_path):
    if "fakecuda" not in os.environ.get("GPUJIT_CUDA_DRIVER", ""):
        pytest.skip("uses the fake driver's FAKECUDA_DEVICES to have two devices")
    assert run_child(tmp_path, GPUJIT_DEVICE="gpu").startswith("cuda 0 Fake CUDA Device 0")
    assert run_child(tmp_path, GPUJIT_DEVICE="cuda:1", FAKECUDA_DEVICES="2").startswith("cuda 1 Fake CUDA Device 1")
    # GPUJIT_DEVICE wins over the older GPUJIT_BACKEND, which still works alone.
    assert run_child(tmp_path, GPUJIT_DEVICE="cpu", GPUJIT_BACKEND="cuda").startswith("cpu 0 ")
    assert run_child(tmp_path, GPUJIT_BACKEND="cpu").startswith("cpu 0 ")


def test_a_bad_gpujit_device_is_a_clear_error(tmp_path):
    out = run_child(tmp_path, GPUJIT_DEVICE="tpu")
    assert out == ("ValueError GPUJIT_DEVICE 'tpu' names no device; use 'cpu', 'cuda' (or 'gpu'), or 'cuda:N' "
                   "for GPU number N")
    assert run_child(tmp_path, GPUJIT_DEVICE="cuda:x").startswith("ValueError GPUJIT_DEVICE 'cuda:x' names no device")
    assert run_child(tmp_path, GPUJIT_DEVICE="cpu:1") == "ValueError no device 1: the cpu backend has 1 device"


def test_the_cpu_backend_is_chosen_when_there_is_no_cuda_driver(tmp_path):
    assert run_child(tmp_path, GPUJIT_CUDA_DRIVER=str(tmp_path / "no-such-libcuda.so")) == "cpu 0 cpu 36.0"


@pytest.fixture
def restore_backend():
    previous = gpu._core.backend_name()
    yield
    gpu._core._set_backend(previous)


def test_select_device_cpu_runs_kernels_on_the_cpu(restore_backend):
    @gpu.jit
    def square(a):
        i = gpu.grid(1)
        if i < a.size:
            a[i] = a[i] * a[i]

    dev = gpu.select_device("cpu")
    assert (dev.backend, dev.name, dev.id) == ("cpu", "cpu", 0)
    assert gpu.get_current_device() == dev
    assert repr(dev) == "<gpujit device 0 'cpu' (cpu backend)>"
    assert gpu._core.backend_name() == "cpu"
    a = np.arange(5.0)
    square[1, 8](a)
    np.testing.assert_array_equal(a, np.arange(5.0) ** 2)
    # An ordinal picks a device of the active backend, as numba's select_device(0) does.
    assert gpu.select_device(0) == dev
    with pytest.raises(ValueError, match="no device 1: the cpu backend has 1 device"):
        gpu.select_device("cpu:1")
    with pytest.raises(ValueError, match="select_device\\(\\) 'tpu' names no device"):
        gpu.select_device("tpu")


def test_select_device_switches_between_cuda_and_cpu(fake, restore_backend):
    cuda_dev = gpu.select_device("cuda")
    assert cuda_dev.backend == "cuda"
    assert gpu.select_device(0) == cuda_dev
    on_gpu = gpu.to_device(np.arange(3.0))
    cpu_dev = gpu.select_device("cpu")
    assert gpu.get_current_device() == cpu_dev != cuda_dev
    assert gpu.select_device("gpu:0") == cuda_dev
    np.testing.assert_array_equal(on_gpu.copy_to_host(), np.arange(3.0))  # arrays survive the switches


def test_select_device_cuda_without_a_driver_leaves_the_cpu_backend_active(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent("""
        import gpujit as gpu
        gpu.select_device("cpu")
        try:
            gpu.select_device("cuda")
        except gpu.CudaSupportError as e:
            print("CudaSupportError", str(e).split(":")[0])
        print(gpu.get_current_device().backend, gpu._core.backend_name())
    """))
    env = {k: v for k, v in os.environ.items() if k not in ("GPUJIT_BACKEND", "GPUJIT_DEVICE")}
    env["GPUJIT_CUDA_DRIVER"] = str(tmp_path / "no-such-libcuda.so")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["CudaSupportError no CUDA driver found", "cpu cpu"]


def test_inspect_ptx_and_llvm_give_nvptx_code_on_the_cpu_backend(restore_backend):
    @gpu.jit
    def scale(a, s):
        i = gpu.grid(1)
        if i < a.size:
            a[i] *= s

    gpu.select_device("cpu")
    a = np.ones(4, np.float32)
    scale[1, 4](a, np.float32(3))  # compiled for the host and run there
    np.testing.assert_array_equal(a, np.full(4, 3, np.float32))
    ptx = scale.inspect_ptx("void(float32[::1], float32)")
    assert ".target sm_80" in ptx and ".visible .entry" in ptx
    # Without a signature: every signature compiled so far (here for the host), as PTX.
    listed = scale.inspect_ptx()
    assert list(listed) == ["(float32[::1], float32)"]
    assert ".entry" in listed["(float32[::1], float32)"]
    llvm = scale.inspect_llvm("void(float32[::1], float32)")
    assert 'target triple = "nvptx64-nvidia-cuda"' in llvm
