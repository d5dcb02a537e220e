"""First-call compile time of gpujit next to numba-cuda, in fresh processes, in one run.

Usage: python benchmarks/compile_time.py [--json OUT.json] [--runs 3]

In a fresh interpreter (after the import) each program times the first launch of a kernel plus a
synchronize, minus the same for the second launch: the time spent compiling and loading. "cold" is the
first kernel of the process; vadd, black_scholes and matmul_tiled are new kernels after that one (the
figure PERFORMANCE.md asks to be at most 1/5 of numba-cuda's). Medians of --runs processes, in ms.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

NUMPY_SHIM = ("import numpy as _np\n"
              "for _n, _v in (('row_stack', 'vstack'), ('trapz', 'trapezoid'), ('in1d', 'isin')):\n"
              "    if not hasattr(_np, _n) and hasattr(_np, _v): setattr(_np, _n, getattr(_np, _v))\n")

# The same program for both: `cuda` is gpujit or numba.cuda, `f32` the float32 dtype.
PROGRAM = r'''
import time, math, json
import numpy as np

def timed(k, cfg, args):
    t0 = time.perf_counter(); k[cfg](*args); cuda.synchronize(); t1 = time.perf_counter()
    k[cfg](*args); cuda.synchronize(); t2 = time.perf_counter()
    return (t1 - t0) - (t2 - t1)

n = 1 << 20
a = cuda.to_device(np.ones(n, np.float32)); b = cuda.to_device(np.ones(n, np.float32))
c = cuda.device_array(n, np.float32)
cuda.synchronize()

@cuda.jit
def first(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        c[i] = a[i] * b[i]

cold = timed(first, ((n + 255) // 256, 256), (a, b, c))

@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        c[i] = a[i] + b[i]

@cuda.jit
def bs(S, K, T, r, v, call):
    i = cuda.grid(1)
    if i < S.size:
        sq = math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * v * v) * T[i]) / (v * sq)
        d2 = d1 - v * sq
        call[i] = S[i] * 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0))) - K[i] * math.exp(-r * T[i]) * 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))

TPB = 16

@cuda.jit
def mm(A, B, C):
    sA = cuda.shared.array((TPB, TPB), f32)
    sB = cuda.shared.array((TPB, TPB), f32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = f32(0.0)
    for t in range(A.shape[1] // TPB):
        sA[ty, tx] = A[y, t * TPB + tx]
        sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    C[y, x] = acc

d = cuda.to_device(np.ones(n)); o = cuda.device_array(n)
M = 256
A = cuda.to_device(np.ones((M, M), np.float32)); C = cuda.device_array((M, M), np.float32)
warm = {
    "vadd": timed(vadd, ((n + 255) // 256, 256), (a, b, c)),
    "black_scholes": timed(bs, ((n + 255) // 256, 256), (d, d, d, 0.02, 0.3, o)),
    "matmul_tiled": timed(mm, ((M // 16, M // 16), (16, 16)), (A, A, C)),
}
print(json.dumps({"cold_first_kernel": cold, **warm}))
'''

HEADERS = {
    "gpujit": "import gpujit as cuda\nf32 = cuda.float32\n",
    "numba": NUMPY_SHIM + "import numba\nfrom numba import cuda\nf32 = numba.float32\n",
}


def run(name, runs, tmp):
    # gpujit reads kernel source from files, so each program is a real file.
    path = Path(tmp) / f"compile_{name}.py"
    path.write_text(HEADERS[name] + PROGRAM)
    samples = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
        if out.returncode != 0:
            return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
        samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: round(statistics.median(s[k] for s in samples) * 1e3, 2) for k in samples[0]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in HEADERS:
            results[name] = run(name, args.runs, tmp)
    print(f"{'compile + load, ms':<22} {'gpujit':>10} {'numba':>10} {'ratio':>7}")
    for key in ("cold_first_kernel", "vadd", "black_scholes", "matmul_tiled"):
        ours, theirs = results["gpujit"].get(key), results["numba"].get(key)
        ratio = f"{ours / theirs:.2f}" if ours and theirs else "-"
        print(f"{key:<22} {ours if ours is not None else '-':>10} {theirs if theirs is not None else '-':>10} {ratio:>7}")
    for name, r in results.items():
        if "error" in r:
            print(f"{name}: {r['error']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
