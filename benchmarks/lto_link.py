"""A CUDA C device function called from a gpujit kernel, linked with and without link-time optimization
(jit(lto=True), docs/cuda_c.md), against the same function written in gpujit.

Usage: python benchmarks/lto_link.py [--n 4194304] [--iters 64] [--rounds 15] [--json OUT.json]

Each thread evaluates a cubic polynomial `iters` times on its element (x = poly(x) * 0.5), the polynomial being:
  - gpujit: a @gpu.jit(device=True) function, inlined by LLVM;
  - CUDA C, lto=True: `extern "C" __device__ int poly(float* out, float x)` (numba's ABI) in a .cu, linked as
    LTO-IR with the kernel's NVVM IR, which nvJitLink inlines;
  - CUDA C, no LTO: the same .cu linked as a cubin: a CALL per evaluation, its result through local memory.
Each round times one launch + synchronize per contender, interleaved; the figure is the median over rounds in
ms, and the ratio to gpujit's. The results are checked against NumPy. Needs a CUDA GPU (exits 0 with a note
without one); the SASS check itself runs anywhere (tests/python/test_lto_nvvm.py).
"""

import argparse
import json
import statistics
import sys
import time
import warnings

import numpy as np

POLY_CU = r'''
extern "C" __device__ int poly(float* out, float x) {
  *out = ((0.25f * x - 0.5f) * x + 0.75f) * x + 0.125f;
  return 0;
}
'''


def kernels(gpu, iters):
    poly_c = gpu.declare_device("poly", "float32(float32)", link=gpu.CUSource(POLY_CU, name="poly.cu"))

    @gpu.jit(device=True)
    def poly_py(x):
        return ((np.float32(0.25) * x - np.float32(0.5)) * x + np.float32(0.75)) * x + np.float32(0.125)

    def with_c(a):
        i = gpu.grid(1)
        if i < a.size:
            x = a[i]
            for _ in range(iters):
                x = poly_c(x) * np.float32(0.5)
            a[i] = x

    def with_py(a):
        i = gpu.grid(1)
        if i < a.size:
            x = a[i]
            for _ in range(iters):
                x = poly_py(x) * np.float32(0.5)
            a[i] = x

    return {"gpujit": gpu.jit(with_py), "CUDA C, lto=True": gpu.jit(lto=True)(with_c),
            "CUDA C, no LTO": gpu.jit(with_c)}


def reference(x, iters):
    x = x.astype(np.float32)
    for _ in range(iters):
        x = ((np.float32(0.25) * x - np.float32(0.5)) * x + np.float32(0.75)) * x + np.float32(0.125)
        x = x * np.float32(0.5)
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 22)
    ap.add_argument("--iters", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--json", help="write the figures here as JSON")
    args = ap.parse_args()
    import gpujit as gpu

    if gpu._core.backend_name() != "cuda" or not gpu.is_available():  # the CPU backend cannot run linked CUDA C
        print("lto_link: no CUDA GPU here; nothing measured")
        return 0
    host = np.random.default_rng(0).uniform(-1, 1, args.n).astype(np.float32)
    want = reference(host, args.iters)
    contenders = kernels(gpu, args.iters)
    arrays = {name: gpu.to_device(host) for name in contenders}
    blocks = (args.n + 255) // 256
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpu.errors.PerformanceWarning)  # an LTO fallback would skew the figure
        for name, k in contenders.items():  # compile, link, check
            k[blocks, 256](arrays[name])
            gpu.synchronize()
            np.testing.assert_allclose(arrays[name].copy_to_host(), want, rtol=1e-5, atol=1e-6, err_msg=name)
    samples = {name: [] for name in contenders}
    for _ in range(args.rounds):
        for name, k in contenders.items():
            t = time.perf_counter()
            k[blocks, 256](arrays[name])
            gpu.synchronize()
            samples[name].append((time.perf_counter() - t) * 1e3)
    ms = {name: statistics.median(s) for name, s in samples.items()}
    print(f"{args.n} elements, {args.iters} calls each, median of {args.rounds} rounds")
    print(f"{'contender':20} {'ms':>10} {'/ gpujit':>10}")
    for name, t in ms.items():
        print(f"{name:20} {t:10.3f} {t / ms['gpujit']:10.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "iters": args.iters, "ms": ms}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
