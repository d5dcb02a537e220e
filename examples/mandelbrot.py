"""The Mandelbrot set: a `while` loop that leaves with `break` once the orbit escapes.

    .venv/bin/python examples/mandelbrot.py
"""
# gpujit-sig: mandelbrot void(int32[:, ::1], float64, float64, float64, float64, int32)
import numpy as np

import gpujit as gpu


@gpu.jit
def mandelbrot(image, x_min, x_max, y_min, y_max, max_iter):
    row, col = gpu.grid(2)
    height = image.shape[0]
    width = image.shape[1]
    if row < height and col < width:
        c_re = x_min + col * (x_max - x_min) / width
        c_im = y_min + row * (y_max - y_min) / height
        z_re = 0.0
        z_im = 0.0
        n = 0
        while n < max_iter:
            re2 = z_re * z_re
            im2 = z_im * z_im
            if re2 + im2 > 4.0:
                break
            z_im = 2.0 * z_re * z_im + c_im
            z_re = re2 - im2 + c_re
            n += 1
        image[row, col] = n


def mandelbrot_numpy(height, width, x_min, x_max, y_min, y_max, max_iter):
    """The same iteration, vectorized: the count of steps before |z| > 2, capped at max_iter."""
    cols = np.arange(width)
    rows = np.arange(height)
    c_re = (x_min + cols * (x_max - x_min) / width)[np.newaxis, :].repeat(height, axis=0)
    c_im = (y_min + rows * (y_max - y_min) / height)[:, np.newaxis].repeat(width, axis=1)
    z_re = np.zeros((height, width))
    z_im = np.zeros((height, width))
    counts = np.zeros((height, width), dtype=np.int32)
    active = np.ones((height, width), dtype=bool)
    for _ in range(max_iter):
        re2 = z_re * z_re
        im2 = z_im * z_im
        active &= re2 + im2 <= 4.0
        if not active.any():
            break
        z_im = np.where(active, 2.0 * z_re * z_im + c_im, z_im)
        z_re = np.where(active, re2 - im2 + c_re, z_re)
        counts += active
    return counts


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    height, width, max_iter = 300, 400, 200
    bounds = (-2.0, 1.0, -1.2, 1.2)
    image = np.zeros((height, width), dtype=np.int32)

    threads = (16, 16)
    blocks = ((height + 15) // 16, (width + 15) // 16)
    mandelbrot[blocks, threads](image, *bounds, np.int32(max_iter))

    expected = mandelbrot_numpy(height, width, *bounds, max_iter)
    # A GPU may fuse multiply-adds (one rounding instead of two), which can move a point on the set's
    # boundary by an iteration or two; everywhere else the counts are identical.
    mismatched = np.count_nonzero(image != expected)
    assert mismatched <= image.size // 1000, f"{mismatched} of {image.size} pixels differ from NumPy"
    inside = np.count_nonzero(image == max_iter)
    print(f"mandelbrot: {height}x{width}, {inside} points inside the set, "
          f"{mismatched} boundary pixels differ from NumPy (<= 0.1% allowed)")
    for row in range(0, height, 20):  # a coarse picture of the set
        print("".join("#" if image[row, col] == max_iter else "." for col in range(0, width, 8)))
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"mandelbrot: cannot run kernels on this machine: {err}")
