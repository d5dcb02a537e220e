# kernel: saxpy
# signature: float32, float32[::1], float32[::1], float32[::1]
import gpujit as gpu


@gpu.jit
def saxpy(a, x, y, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
