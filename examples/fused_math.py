"""An elementwise chain fused into one kernel: out = sqrt(a**2 + b**2) + sin(a) * cos(b). Written with NumPy
(or CuPy) arrays, the chain is seven passes over memory, each with a temporary array; the kernel reads a and b
once and writes out once.

    .venv/bin/python examples/fused_math.py
"""
# gpujit-sig: fused_chain void(float32[::1], float32[::1], float32[::1])
import math

import numpy as np

import gpujit as gpu


@gpu.jit
def fused_chain(a, b, out):
    start = gpu.grid(1)
    stride = gpu.gridsize(1)
    for i in range(start, out.size, stride):
        x = a[i]
        y = b[i]
        out[i] = math.sqrt(x * x + y * y) + math.sin(x) * math.cos(y)


def fused_chain_numpy(a, b):
    return np.sqrt(a**2 + b**2) + np.sin(a) * np.cos(b)


def launch_shape(n, device):
    """(blocks, threads): enough blocks of 256 to fill every multiprocessor a few times over."""
    threads = 256
    return max(1, min((n + threads - 1) // threads, device.MULTIPROCESSOR_COUNT * 32)), threads


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    n = 10_000_000 if device.backend == "cuda" else 1_000_000
    rng = np.random.default_rng(9)
    a = rng.uniform(-10.0, 10.0, n).astype(np.float32)
    b = rng.uniform(-10.0, 10.0, n).astype(np.float32)
    d_a, d_b = gpu.to_device(a), gpu.to_device(b)
    d_out = gpu.device_array_like(d_a)
    blocks, threads = launch_shape(n, device)
    fused_chain[blocks, threads](d_a, d_b, d_out)
    expected = fused_chain_numpy(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(d_out.copy_to_host(), expected, rtol=1e-5, atol=1e-5)
    print(f"fused_chain: sqrt(a**2 + b**2) + sin(a) * cos(b) over {n} float32 values matches NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"fused_math: cannot run kernels on this machine: {err}")
