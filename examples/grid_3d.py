"""A 7-point Laplacian over a 3-D grid of threads (gpu.grid(3)), on the interior of a 3-D array.

    .venv/bin/python examples/grid_3d.py
"""
# gpujit-sig: laplacian void(float32[:, :, ::1], float32[:, :, ::1])
import numpy as np

import gpujit as gpu


@gpu.jit
def laplacian(u, out):
    i, j, k = gpu.grid(3)
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1 and 0 < k < u.shape[2] - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                        + u[i, j, k - 1] + u[i, j, k + 1] - 6 * u[i, j, k])


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    shape = (40, 50, 60)
    rng = np.random.default_rng(4)
    u = rng.random(shape, dtype=np.float32)
    out = np.zeros(shape, dtype=np.float32)

    threads = (4, 8, 8)
    blocks = tuple((n + t - 1) // t for n, t in zip(shape, threads))
    laplacian[blocks, threads](u, out)

    expected = np.zeros(shape, dtype=np.float32)
    expected[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1]
                                  + u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]
                                  - 6 * u[1:-1, 1:-1, 1:-1])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    print(f"grid_3d: Laplacian of a {shape[0]}x{shape[1]}x{shape[2]} array on a "
          f"{blocks[0]}x{blocks[1]}x{blocks[2]} grid of {threads[0]}x{threads[1]}x{threads[2]} blocks matches NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"grid_3d: cannot run kernels on this machine: {err}")
