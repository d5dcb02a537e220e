# kernel: mandelbrot
# signature: uint8[:, ::1], float64, float64, float64, float64, int32
from numba import cuda

MAX_ITERS = 20


@cuda.jit(device=True)
def escape_time(real, imag, max_iters):
    zr = 0.0
    zi = 0.0
    for i in range(max_iters):
        zr, zi = zr * zr - zi * zi + real, 2 * zr * zi + imag
        if zr * zr + zi * zi >= 4:
            return i
    return 255


@cuda.jit
def mandelbrot(image, min_x, max_x, min_y, max_y, iters):
    height, width = image.shape
    pixel_x = (max_x - min_x) / width
    pixel_y = (max_y - min_y) / height
    x, y = cuda.grid(2)
    if x >= width or y >= height:
        return
    real = min_x + x * pixel_x
    imag = min_y + y * pixel_y
    n = 0
    zr = zi = 0.0
    while True:
        if n >= iters or n >= MAX_ITERS * 10:
            break
        t = zr * zr - zi * zi + real
        zi = 2.0 * zr * zi + imag
        zr = t
        n += 1
        if zr * zr + zi * zi > 4.0:
            break
    image[y, x] = min(n, escape_time(real, imag, iters))
