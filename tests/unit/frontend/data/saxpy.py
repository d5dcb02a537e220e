import gpujit as gpu

@gpu.jit
def saxpy(a, x, y, out):
    """out = a * x + y, one element per thread."""
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
