"""Kernels that really run on a GPU, checked against NumPy. Skipped where there is no GPU (conftest.py);
scripts/gpu-test runs them on a GPU machine."""

import math

import numpy as np
import pytest

import gpujit as gpu

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("cuda")]


@gpu.jit
def saxpy(a, x, y, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@gpu.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@gpu.jit
def clamp_all(a, lo, hi):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = clamp(a[i], lo, hi)


@gpu.jit
def add_2d(a, b, out):
    x, y = gpu.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = a[x, y] + b[x, y]


@gpu.jit
def block_sum(a, out):
    s = gpu.shared.array(256, gpu.float32)
    t = gpu.threadIdx.x
    i = gpu.grid(1)
    s[t] = a[i] if i < a.size else 0.0
    gpu.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        gpu.syncthreads()
        step //= 2
    if t == 0:
        gpu.atomic.add(out, 0, s[0])


@gpu.jit
def reverse_block(a, out):
    s = gpu.shared.array(256, gpu.float32)
    t = gpu.threadIdx.x
    s[t] = a[t]
    gpu.syncthreads()
    out[t] = s[a.size - 1 - t]


def test_saxpy_with_device_arrays():
    n = 100_000
    x = np.random.rand(n).astype(np.float32)
    y = np.random.rand(n).astype(np.float32)
    dx, dy, dout = gpu.to_device(x), gpu.to_device(y), gpu.device_array(n, np.float32)
    saxpy[(n + 255) // 256, 256](np.float32(2.0), dx, dy, dout)
    np.testing.assert_allclose(dout.copy_to_host(), 2 * x + y, rtol=1e-6)


def test_numpy_arguments_are_copied_back():
    n = 1000
    x, y, out = np.arange(n, dtype=np.float64), np.ones(n), np.zeros(n)
    saxpy[(n + 127) // 128, 128](3.0, x, y, out)
    np.testing.assert_array_equal(out, 3 * x + 1)


def test_device_functions_and_scalar_arguments():
    a = gpu.to_device(np.linspace(-2, 2, 101))
    clamp_all[1, 128](a, -1.0, 1.0)
    np.testing.assert_array_equal(a.copy_to_host(), np.clip(np.linspace(-2, 2, 101), -1, 1))


def test_two_dimensional_grid_and_strided_views():
    a = np.random.rand(64, 48)
    b = np.random.rand(64, 48)
    out = gpu.device_array((64, 48))
    add_2d[(4, 3), (16, 16)](gpu.to_device(a), gpu.to_device(b), out)
    np.testing.assert_allclose(out.copy_to_host(), a + b)
    da = gpu.to_device(a)
    view = da[::2, 1::2]
    res = gpu.device_array(view.shape)
    add_2d[(2, 2), (16, 16)](view, view, res)
    np.testing.assert_allclose(res.copy_to_host(), 2 * a[::2, 1::2])


def test_shared_memory_reduction_with_atomics():
    n = 1 << 16
    a = np.ones(n, np.float32)
    out = gpu.to_device(np.zeros(1, np.float32))
    block_sum[n // 256, 256](gpu.to_device(a), out)
    assert out.copy_to_host()[0] == n


def test_streams_and_dynamic_shared_memory_beyond_48k():
    n = 256
    a = np.arange(n, dtype=np.float32)
    s = gpu.stream()
    da = gpu.to_device(a, stream=s)
    out = gpu.device_array(n, np.float32, stream=s)
    # 100 KiB of dynamic shared memory needs the kernel's opt-in (cuFuncSetAttribute) before the launch.
    reverse_block[1, n, s, 100 * 1024](da, out)
    host = out.copy_to_host(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(host, a[::-1])


def test_events_time_kernels():
    n = 1 << 20
    x = gpu.device_array(n, np.float32)
    start, end = gpu.event(), gpu.event()
    start.record()
    for _ in range(10):
        saxpy[n // 256, 256](np.float32(1.0), x, x, x)
    end.record()
    end.synchronize()
    assert 0 < gpu.event_elapsed_time(start, end) < 10_000


def test_explicit_signature_converts_arguments():
    @gpu.jit("void(float32, float32[::1], float32[::1], float32[::1])")
    def saxpy32(a, x, y, out):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    x = gpu.to_device(np.ones(10, np.float32))
    out = gpu.device_array(10, np.float32)
    saxpy32[1, 32](2.5, x, x, out)  # a Python float, converted to float32
    np.testing.assert_array_equal(out.copy_to_host(), np.full(10, 3.5, np.float32))


def test_math_functions_match_numpy():
    @gpu.jit
    def f(x, out):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = math.exp(-x[i]) * math.sin(x[i]) + math.sqrt(x[i])

    x = np.linspace(0.1, 10, 1000)
    out = np.zeros_like(x)
    f[4, 256](x, out)
    np.testing.assert_allclose(out, np.exp(-x) * np.sin(x) + np.sqrt(x), rtol=1e-12)


def test_cupy_arrays_are_passed_zero_copy():
    cp = pytest.importorskip("cupy")
    x = cp.arange(1000, dtype=cp.float32)
    out = cp.zeros(1000, dtype=cp.float32)
    saxpy[4, 256](np.float32(2.0), x, x, out)
    gpu.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(out), 3 * np.arange(1000, dtype=np.float32))
    back = cp.asarray(gpu.to_device(np.arange(5.0)))
    assert back.sum() == 10


def test_torch_tensors_are_passed_zero_copy():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.zeros(1000, dtype=torch.float32, device="cuda")
    saxpy[4, 256](np.float32(2.0), x, x, out)
    gpu.synchronize()
    assert torch.equal(out.cpu(), 3 * torch.arange(1000, dtype=torch.float32))
    d = gpu.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
    t = torch.from_dlpack(d)
    assert t.shape == (2, 3) and t.device.type == "cuda" and t.sum().item() == 15
    back = gpu.from_dlpack(t[:, 1:])
    np.testing.assert_array_equal(back.copy_to_host(), np.arange(6, dtype=np.float32).reshape(2, 3)[:, 1:])


def test_inspect_ptx_targets_this_device():
    major, minor = gpu.get_current_device().compute_capability
    ptx = saxpy.inspect_ptx("void(float32, float32[::1], float32[::1], float32[::1])")
    assert f".target sm_{major}{minor}" in ptx  # H100/H200 are 9.0; newer GPUs would be capped at LLVM's newest
