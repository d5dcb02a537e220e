"""Matrix multiply two ways: one thread per output element reading A and B from global memory (naive), and
the same with 16x16 tiles of A and B staged in shared memory, so that each element is read from global
memory once per tile instead of once per product (tiled). Any shapes: the last tiles are padded with zeros.

    .venv/bin/python examples/matmul.py
"""
# gpujit-sig: matmul_naive void(float32[:, ::1], float32[:, ::1], float32[:, ::1])
# gpujit-sig: matmul_tiled void(float32[:, ::1], float32[:, ::1], float32[:, ::1])
import numpy as np

import gpujit as gpu

TILE = 16


@gpu.jit
def matmul_naive(a, b, c):
    col, row = gpu.grid(2)  # x runs along a row of C, so a warp reads consecutive elements of B
    if row < c.shape[0] and col < c.shape[1]:
        acc = np.float32(0.0)
        for k in range(a.shape[1]):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc


@gpu.jit
def matmul_tiled(a, b, c):
    tile_a = gpu.shared.array((TILE, TILE), np.float32)
    tile_b = gpu.shared.array((TILE, TILE), np.float32)
    col, row = gpu.grid(2)
    tx = gpu.threadIdx.x
    ty = gpu.threadIdx.y
    acc = np.float32(0.0)
    for t in range((a.shape[1] + TILE - 1) // TILE):
        # Every thread loads one element of each tile (zero past the edges), even threads outside C: they
        # take part in the barriers.
        k = t * TILE + tx
        tile_a[ty, tx] = a[row, k] if row < a.shape[0] and k < a.shape[1] else np.float32(0.0)
        k = t * TILE + ty
        tile_b[ty, tx] = b[k, col] if k < b.shape[0] and col < b.shape[1] else np.float32(0.0)
        gpu.syncthreads()
        for j in range(TILE):
            acc += tile_a[ty, j] * tile_b[j, tx]
        gpu.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


def launch_shape(c):
    """(blocks, threads) covering C with TILE x TILE blocks; x along C's columns."""
    return ((c.shape[1] + TILE - 1) // TILE, (c.shape[0] + TILE - 1) // TILE), (TILE, TILE)


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    # Shapes that are not multiples of the tile; smaller on the CPU backend, which runs each thread on the host.
    m, k, n = (1000, 700, 900) if device.backend == "cuda" else (90, 70, 50)
    rng = np.random.default_rng(5)
    a = rng.random((m, k), dtype=np.float32)
    b = rng.random((k, n), dtype=np.float32)
    expected = a.astype(np.float64) @ b.astype(np.float64)

    d_a, d_b = gpu.to_device(a), gpu.to_device(b)
    for kernel in (matmul_naive, matmul_tiled):
        d_c = gpu.device_array((m, n), np.float32)
        blocks, threads = launch_shape(d_c)
        kernel[blocks, threads](d_a, d_b, d_c)
        np.testing.assert_allclose(d_c.copy_to_host(), expected, rtol=1e-4, atol=1e-4)
        print(f"{kernel.__name__}: ({m}x{k}) @ ({k}x{n}) matches NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"matmul: cannot run kernels on this machine: {err}")
