"""SAXPY (out = a * x + y) with a grid-stride loop: a fixed grid covers any array length.

    .venv/bin/python examples/saxpy.py
"""
# gpujit-sig: saxpy void(float32, float32[::1], float32[::1], float32[::1])
import numpy as np

import gpujit as gpu


@gpu.jit
def saxpy(a, x, y, out):
    start = gpu.grid(1)
    stride = gpu.gridsize(1)
    for i in range(start, out.size, stride):
        out[i] = a * x[i] + y[i]


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    n = 1 << 20
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    a = np.float32(2.5)

    blocks, threads = 64, 128  # 8192 threads, each handling 128 elements
    saxpy[blocks, threads](a, x, y, out)

    # A GPU may fuse a * x + y into one FMA (one rounding instead of two), hence the tolerance.
    np.testing.assert_allclose(out, a * x + y, rtol=1e-6, atol=1e-5)
    print(f"saxpy: {n} elements with a grid-stride loop over {blocks * threads} threads match NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"saxpy: cannot run kernels on this machine: {err}")
