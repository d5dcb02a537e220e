"""CUDA C kernels from a string next to their gpujit forms: PyCUDA's vector multiply as a SourceModule and
CuPy's sigmoid as a RawKernel, each checked against the same kernel written with gpujit and against NumPy.

    .venv/bin/python examples/cuda_c_interop.py

The CUDA C is compiled with NVRTC for the current GPU (and kept in the disk cache) and launched through
gpujit's launch path, with the same arguments gpujit kernels take. Without a GPU the gpujit forms run on the
CPU backend and the CUDA C is compiled to a cubin only: launching it needs a CUDA GPU (docs/cuda_c.md).
"""
# gpujit-sig: multiply_them void(float32[::1], float32[::1], float32[::1])
# gpujit-sig: sigmoid void(float32[::1], float32[::1], int32)
import math

import numpy as np

import gpujit as gpu

# PyCUDA's first example (its tutorial's `multiply_them`), unchanged but for the import.
MULTIPLY_SOURCE = """
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
"""

# CuPy's RawKernel example: the logistic sigmoid.
SIGMOID_SOURCE = r"""
extern "C" __global__
void sigmoid(const float* x, float* y, int n) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < n) y[tid] = 1.0f / (1.0f + expf(-x[tid]));
}
"""


@gpu.jit
def multiply_them(dest, a, b):
    i = gpu.threadIdx.x
    dest[i] = a[i] * b[i]


@gpu.jit
def sigmoid(x, y, n):
    tid = gpu.blockDim.x * gpu.blockIdx.x + gpu.threadIdx.x
    if tid < n:
        y[tid] = np.float32(1.0) / (np.float32(1.0) + math.exp(-x[tid]))


def vector_multiply(on_gpu):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(400).astype(np.float32)
    b = rng.standard_normal(400).astype(np.float32)
    expected = a * b

    ours = np.zeros_like(a)
    multiply_them[1, 400](ours, a, b)  # NumPy arrays are copied in and back
    np.testing.assert_array_equal(ours, expected)

    mod = gpu.SourceModule(MULTIPLY_SOURCE)  # compiles for the current GPU right away, as PyCUDA does
    if not on_gpu:
        return "gpujit form matches NumPy; the SourceModule compiled to a cubin of {} bytes".format(
            len(mod.compile_for("sm_90")))
    cuda_c = mod.get_function("multiply_them")
    dest = np.zeros_like(a)
    cuda_c(gpu.Out(dest), gpu.In(a), gpu.In(b), block=(400, 1, 1), grid=(1, 1))  # PyCUDA's call, drv.In/Out
    np.testing.assert_array_equal(dest, expected)
    dest[:] = 0
    cuda_c[1, 400](dest, a, b)  # the gpujit launch form: the same kernel, the same arguments
    np.testing.assert_array_equal(dest, ours)
    return "SourceModule and gpujit forms agree with NumPy"


def logistic(on_gpu):
    n = 1_000_000
    x = np.random.default_rng(2).uniform(-20, 20, n).astype(np.float32)
    d_x = gpu.to_device(x)
    d_ours = gpu.device_array_like(d_x)
    threads = 256
    blocks = (n + threads - 1) // threads
    sigmoid[blocks, threads](d_x, d_ours, n)
    ours = d_ours.copy_to_host()
    np.testing.assert_allclose(ours, 1 / (1 + np.exp(-x.astype(np.float64))), rtol=2e-6, atol=1e-7)

    kernel = gpu.RawKernel(SIGMOID_SOURCE, "sigmoid")
    if not on_gpu:
        ptx = kernel.compile_for("sm_90", "ptx")
        return f"gpujit form matches NumPy; the RawKernel compiled to {len(ptx.splitlines())} lines of PTX"
    d_y = gpu.device_array_like(d_x)
    kernel((blocks,), (threads,), (d_x, d_y, np.int32(n)))  # CuPy's call form
    np.testing.assert_allclose(d_y.copy_to_host(), ours, rtol=2e-6, atol=1e-7)
    kernel[blocks, threads](d_x, d_y, n)  # gpujit's; a Python int fills the int parameter
    np.testing.assert_allclose(d_y.copy_to_host(), ours, rtol=2e-6, atol=1e-7)
    return "RawKernel and gpujit forms agree"


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    on_gpu = device.backend == "cuda"
    print(f"vector multiply: {vector_multiply(on_gpu)}")
    print(f"sigmoid: {logistic(on_gpu)}")
    print(f"  ran on {device.name} ({device.backend} backend)"
          + ("" if on_gpu else "; CUDA C kernels need a CUDA GPU to run"))


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # No GPU and no CPU backend, or no NVRTC: compiling gpujit kernels still works (gpujit ptx).
        print(f"cuda_c_interop: cannot run kernels on this machine: {err}")
