"""Exponential smoothing along the rows of a 2-D array, one series per row: out[r, 0] = x[r, 0] and
out[r, t] = alpha * x[r, t] + (1 - alpha) * out[r, t - 1]. Each row is a recurrence, so one thread walks
one row; the rows run in parallel.

    .venv/bin/python examples/exp_smoothing.py
"""
# gpujit-sig: exp_smoothing void(float32[:, ::1], float32[:, ::1], float32)
import numpy as np

import gpujit as gpu


@gpu.jit
def exp_smoothing(x, out, alpha):
    r = gpu.grid(1)
    if r < x.shape[0]:
        keep = np.float32(1.0) - alpha
        level = x[r, 0]
        out[r, 0] = level
        for t in range(1, x.shape[1]):
            level = alpha * x[r, t] + keep * level
            out[r, t] = level


def exp_smoothing_numpy(x, alpha):
    """The same recurrence in float32, one step over every row at a time."""
    alpha = np.float32(alpha)
    out = np.empty_like(x)
    out[:, 0] = x[:, 0]
    for t in range(1, x.shape[1]):
        out[:, t] = alpha * x[:, t] + (np.float32(1.0) - alpha) * out[:, t - 1]
    return out


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    rows, cols = (20_000, 1_000) if device.backend == "cuda" else (2_000, 300)
    rng = np.random.default_rng(8)
    x = rng.standard_normal((rows, cols), dtype=np.float32).cumsum(axis=1, dtype=np.float32)
    alpha = np.float32(0.1)
    d_x = gpu.to_device(x)
    d_out = gpu.device_array_like(d_x)
    threads = 128
    exp_smoothing[(rows + threads - 1) // threads, threads](d_x, d_out, alpha)
    np.testing.assert_allclose(d_out.copy_to_host(), exp_smoothing_numpy(x, alpha), rtol=1e-5, atol=1e-4)
    print(f"exp_smoothing: {rows} rows of {cols} values smoothed with alpha={float(alpha):g} match NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"exp_smoothing: cannot run kernels on this machine: {err}")
