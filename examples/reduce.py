"""Reductions with gpu.reduce: the sum, the maximum and the variance of 2**24 float32 values (fewer on the CPU
backend). gpu.reduce turns a binary function into a reduction of a whole array; a kernel squares the
deviations from the mean first, and their sum is left on the device (res=) until the end.

    .venv/bin/python examples/reduce.py
"""
# gpujit-sig: squared_deviation void(float32[::1], float32, float32[::1])
import numpy as np

import gpujit as gpu

total = gpu.reduce(lambda a, b: a + b)


@gpu.reduce
def largest(a, b):
    return max(a, b)


@gpu.jit
def squared_deviation(x, mean, out):
    start = gpu.grid(1)
    stride = gpu.gridsize(1)
    for i in range(start, x.size, stride):
        d = x[i] - mean
        out[i] = d * d


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    n = 1 << 24 if device.backend == "cuda" else 1 << 20
    rng = np.random.default_rng(10)
    x = rng.standard_normal(n, dtype=np.float32) * np.float32(3.0) + np.float32(1.0)
    d_x = gpu.to_device(x)

    s = total(d_x)  # a NumPy float32, on the host
    peak = largest(d_x)  # no init: the maximum of the elements alone, negative or not
    mean = np.float32(s / n)
    d_sq = gpu.device_array_like(d_x)
    squared_deviation[device.MULTIPROCESSOR_COUNT * 32, 256](d_x, mean, d_sq)
    d_var = gpu.device_array(1, np.float32)
    total(d_sq, res=d_var)  # the sum stays on the device
    variance = d_var.copy_to_host()[0] / n

    np.testing.assert_allclose(s, x.sum(dtype=np.float64), rtol=1e-5)
    assert peak == x.max(), (peak, x.max())
    np.testing.assert_allclose(variance, x.astype(np.float64).var(), rtol=1e-4)
    print(f"reduce: {n} float32 values: sum {s:.1f}, max {peak:.3f}, variance {variance:.4f} match NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"reduce: cannot run kernels on this machine: {err}")
