"""A 5x5 Gaussian blur of a batch of grayscale images, on a 3-D grid: x along an image's columns, y along its
rows, z over the images. The weights are a NumPy array the kernel captures (compiled into constant memory);
pixels past an edge take the value of the nearest edge pixel.

    .venv/bin/python examples/gaussian_blur.py
"""
# gpujit-sig: gaussian_blur void(float32[:, :, ::1], float32[:, :, ::1])
import numpy as np

import gpujit as gpu

RADIUS = 2
# The binomial approximation of a Gaussian: the outer product of (1, 4, 6, 4, 1) with itself, summing to 256.
WEIGHTS = np.array([[1, 4, 6, 4, 1],
                    [4, 16, 24, 16, 4],
                    [6, 24, 36, 24, 6],
                    [4, 16, 24, 16, 4],
                    [1, 4, 6, 4, 1]], dtype=np.float32)
WEIGHT_SUM = 256.0


@gpu.jit
def gaussian_blur(images, out):
    x, y, z = gpu.grid(3)
    height = images.shape[1]
    width = images.shape[2]
    if z < images.shape[0] and y < height and x < width:
        acc = np.float32(0.0)
        for dy in range(-RADIUS, RADIUS + 1):
            row = min(max(y + dy, 0), height - 1)
            for dx in range(-RADIUS, RADIUS + 1):
                col = min(max(x + dx, 0), width - 1)
                acc += WEIGHTS[dy + RADIUS, dx + RADIUS] * images[z, row, col]
        out[z, y, x] = acc / np.float32(WEIGHT_SUM)  # a power of two: exact


def gaussian_blur_numpy(images):
    padded = np.pad(images.astype(np.float64), ((0, 0), (RADIUS, RADIUS), (RADIUS, RADIUS)), mode="edge")
    height, width = images.shape[1:]
    out = np.zeros(images.shape, dtype=np.float64)
    for dy in range(2 * RADIUS + 1):
        for dx in range(2 * RADIUS + 1):
            out += WEIGHTS[dy, dx] * padded[:, dy:dy + height, dx:dx + width]
    return out / WEIGHT_SUM


def launch_shape(shape):
    """(blocks, threads) covering (images, height, width) with 32x8 blocks of one image each."""
    threads = (32, 8, 1)
    count, height, width = shape
    return ((width + 31) // 32, (height + 7) // 8, count), threads


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    shape = (64, 512, 512) if device.backend == "cuda" else (4, 60, 50)  # (images, height, width)
    rng = np.random.default_rng(7)
    images = rng.random(shape, dtype=np.float32)
    d_images = gpu.to_device(images)
    d_out = gpu.device_array_like(d_images)
    blocks, threads = launch_shape(shape)
    gaussian_blur[blocks, threads](d_images, d_out)
    np.testing.assert_allclose(d_out.copy_to_host(), gaussian_blur_numpy(images), rtol=1e-5, atol=1e-6)
    print(f"gaussian_blur: {shape[0]} images of {shape[1]}x{shape[2]} blurred on a "
          f"{blocks[0]}x{blocks[1]}x{blocks[2]} grid match NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"gaussian_blur: cannot run kernels on this machine: {err}")
