"""Integer arithmetic with Python's semantics on signed and unsigned types: `//` rounds toward minus
infinity, `%` takes the divisor's sign, `>>` on a signed value is arithmetic, and results wrap to the
array's width, as NumPy computes them.

    .venv/bin/python examples/integer_ops.py
"""
# gpujit-sig: signed_ops void(int32[::1], int32[::1], int32[:, ::1])
# gpujit-sig: unsigned_ops void(uint32[::1], uint32[::1], uint32[:, ::1])
import numpy as np

import gpujit as gpu


@gpu.jit
def signed_ops(a, b, out):
    i = gpu.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x // y
        out[i, 1] = x % y
        out[i, 2] = x << 3
        out[i, 3] = x >> 2
        out[i, 4] = (x & y) | (x ^ 0x55)
        out[i, 5] = ~x


@gpu.jit
def unsigned_ops(a, b, out):
    i = gpu.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x // y
        out[i, 1] = x % y
        out[i, 2] = x << 5
        out[i, 3] = x >> 3
        out[i, 4] = (x & y) ^ (x | 0xF0F0)
        out[i, 5] = ~x


def signed_expected(a, b):
    return np.stack([a // b, a % b, a << 3, a >> 2, (a & b) | (a ^ 0x55), ~a], axis=1).astype(np.int32)


def unsigned_expected(a, b):
    return np.stack([a // b, a % b, a << 5, a >> 3, (a & b) ^ (a | 0xF0F0), ~a], axis=1).astype(np.uint32)


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    n = 10_000
    rng = np.random.default_rng(5)
    a = rng.integers(-(2**31), 2**31, n, dtype=np.int32)
    b = rng.integers(-1000, 1000, n, dtype=np.int32)
    b[b == 0] = 7  # no division by zero
    ua = rng.integers(0, 2**32, n, dtype=np.uint32)
    ub = rng.integers(1, 2**32, n, dtype=np.uint32)
    out = np.zeros((n, 6), dtype=np.int32)
    uout = np.zeros((n, 6), dtype=np.uint32)

    threads = 128
    blocks = (n + threads - 1) // threads
    signed_ops[blocks, threads](a, b, out)
    unsigned_ops[blocks, threads](ua, ub, uout)

    np.testing.assert_array_equal(out, signed_expected(a, b))
    np.testing.assert_array_equal(uout, unsigned_expected(ua, ub))
    print(f"integer_ops: //, %, <<, >>, &, |, ^, ~ on {n} int32 and {n} uint32 pairs match NumPy")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"integer_ops: cannot run kernels on this machine: {err}")
