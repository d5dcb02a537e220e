"""The logistic sigmoid 1 / (1 + exp(-x)) over 10 million float32 values, as a kernel with a grid-stride loop.

    .venv/bin/python examples/sigmoid.py
"""
# gpujit-sig: sigmoid void(float32[::1], float32[::1])
import math

import numpy as np

import gpujit as gpu


@gpu.jit
def sigmoid(x, out):
    start = gpu.grid(1)
    stride = gpu.gridsize(1)
    for i in range(start, x.size, stride):
        # math.exp of a float32 is float32; the literals are float32 too, so nothing widens to float64.
        out[i] = np.float32(1.0) / (np.float32(1.0) + math.exp(-x[i]))


def sigmoid_numpy(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)


def launch_shape(n, device):
    """(blocks, threads): enough blocks of 256 to fill every multiprocessor a few times over, at most one
    thread per element."""
    threads = 256
    return max(1, min((n + threads - 1) // threads, device.MULTIPROCESSOR_COUNT * 32)), threads


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    n = 10_000_000 if device.backend == "cuda" else 1_000_000
    rng = np.random.default_rng(6)
    x = rng.uniform(-20.0, 20.0, n).astype(np.float32)
    d_x = gpu.to_device(x)
    d_out = gpu.device_array_like(d_x)
    blocks, threads = launch_shape(n, device)
    sigmoid[blocks, threads](d_x, d_out)
    out = d_out.copy_to_host()
    np.testing.assert_allclose(out, sigmoid_numpy(x), rtol=2e-6, atol=1e-7)
    print(f"sigmoid: {n} float32 values on a grid of {blocks}x{threads} threads match NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"sigmoid: cannot run kernels on this machine: {err}")
