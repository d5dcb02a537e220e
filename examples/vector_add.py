"""Vector add: the smallest gpujit kernel, one thread per element.

    .venv/bin/python examples/vector_add.py
    .venv/bin/gpujit ptx examples/vector_add.py --sig 'void(float32[::1], float32[::1], float32[::1])'
"""
# gpujit-sig: vadd void(float32[::1], float32[::1], float32[::1])
import numpy as np

import gpujit as gpu


@gpu.jit
def vadd(a, b, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    n = 1_000_003  # not a multiple of the block size, so the bounds check matters
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)

    threads = 256
    blocks = (n + threads - 1) // threads
    vadd[blocks, threads](a, b, out)

    np.testing.assert_array_equal(out, a + b)
    print(f"vector_add: {n} elements on {blocks} blocks x {threads} threads match NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"vector_add: cannot run kernels on this machine: {err}")
