"""An element-wise kernel over a 2-D array with a 2-D grid: out = a * b + alpha.

    .venv/bin/python examples/elementwise_2d.py
"""
# gpujit-sig: scale_add_2d void(float32[:, ::1], float32[:, ::1], float32, float32[:, ::1])
import numpy as np

import gpujit as gpu


@gpu.jit
def scale_add_2d(a, b, alpha, out):
    row, col = gpu.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        out[row, col] = a[row, col] * b[row, col] + alpha


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    rows, cols = 1000, 777
    rng = np.random.default_rng(2)
    a = rng.random((rows, cols), dtype=np.float32)
    b = rng.random((rows, cols), dtype=np.float32)
    out = np.zeros((rows, cols), dtype=np.float32)
    alpha = np.float32(0.5)

    threads = (16, 16)
    blocks = ((rows + 15) // 16, (cols + 15) // 16)
    scale_add_2d[blocks, threads](a, b, alpha, out)

    np.testing.assert_allclose(out, a * b + alpha, rtol=1e-6, atol=1e-6)
    print(f"elementwise_2d: {rows}x{cols} on a {blocks[0]}x{blocks[1]} grid of 16x16 blocks matches NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"elementwise_2d: cannot run kernels on this machine: {err}")
