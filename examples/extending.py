"""A library that extends gpujit: a NumPy-like function and a method that kernels can call.

    .venv/bin/python examples/extending.py

The library part (`smoothstep` and the `.lerp` method) is what a package built on numba-cuda ships: host
functions that work on plain Python values, plus @overload/@overload_method typing functions that give kernels
an implementation chosen by the argument types (docs/extending.md). The program part launches a kernel that
calls both and checks it against NumPy. gpujit.extending works with or without numba installed; with numba,
numba.extending.overload(..., target='cuda') does the same.
"""
# gpujit-sig-none: shade calls @overload implementations, which the Python package resolves and the CLI (no Python) cannot; tests/python/test_extending.py compiles such a kernel to PTX
import numpy as np

import gpujit as gpu
from gpujit.extending import overload, overload_method, register_jitable, types

# ---- the library -----------------------------------------------------------------------------------------


@register_jitable
def _clip01(t):
    return min(max(t, 0.0), 1.0)


def smoothstep(edge0, edge1, x):
    """NumPy's style on the host: scalars or arrays."""
    t = np.clip((np.asarray(x) - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


@overload(smoothstep)
def _smoothstep(edge0, edge1, x):
    # In kernels: numbers only; integers are taken as float64, float32 stays float32.
    if not all(isinstance(a, (types.Integer, types.Float)) for a in (edge0, edge1, x)):
        return None  # declined: gpujit reports the call with its argument types

    if isinstance(x, types.Float) and x.bitwidth == 32:
        def impl32(edge0, edge1, x):
            t = _clip01(gpu.float32((x - edge0) / (edge1 - edge0)))
            return gpu.float32(t * t * (gpu.float32(3.0) - gpu.float32(2.0) * t))
        return impl32

    def impl(edge0, edge1, x):
        t = _clip01((x - edge0) / (edge1 - edge0))
        return t * t * (3.0 - 2.0 * t)
    return impl


@overload_method(types.Array, "lerp")
def _array_lerp(a, i, frac):
    # a.lerp(i, frac): linear interpolation between a[i] and a[i + 1] of a 1-d array.
    if a.ndim == 1 and isinstance(i, types.Integer):
        def impl(a, i, frac):
            return a[i] + (a[i + 1] - a[i]) * frac
        return impl


# ---- a program using it ----------------------------------------------------------------------------------


@gpu.jit
def shade(table, xs, out):
    i = gpu.grid(1)
    if i < out.size:
        s = smoothstep(0.0, 1.0, xs[i])
        pos = s * (table.size - 1)
        j = min(int(pos), table.size - 2)
        out[i] = table.lerp(j, pos - j)


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    n = 10_000
    xs = np.linspace(-0.25, 1.25, n)
    table = np.array([0.0, 10.0, 15.0, 40.0, 100.0])
    out = np.zeros(n)
    shade[(n + 127) // 128, 128](table, xs, out)

    s = smoothstep(0.0, 1.0, xs)
    pos = s * (table.size - 1)
    j = np.minimum(pos.astype(np.int64), table.size - 2)
    expected = table[j] + (table[j + 1] - table[j]) * (pos - j)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    print(f"extending: smoothstep (@overload) and array.lerp (@overload_method) in a kernel match NumPy "
          f"on {n} points")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        print(f"extending: cannot run kernels on this machine: {err}")
