"""First-call compile time of gpujit next to numba-cuda, in fresh processes, in one run.

Usage: python benchmarks/compile_time.py [--json OUT.json] [--runs 3] [--only gpujit]

In a fresh interpreter (after the import) each program times the first launch of a kernel plus a
synchronize, minus the same for the second launch: the time spent compiling and loading. "cold" is the
first kernel of the process; vadd, black_scholes and matmul_tiled are new kernels after that one (the
figure PERFORMANCE.md asks to be at most 1/5 of numba-cuda's); "eager_4_signatures" is the same process
applying jit() with four explicit signatures to a new kernel, which compiles all four then (gpujit at once, on
threads of their own), and "four_signatures_one_by_one" the same four compiles asked for one at a time
(dispatcher.compile(sig)) on a twin kernel. Two more programs, each in fresh processes:
"cold_black_scholes", the Black-Scholes kernel as the first kernel of a process (the context already
made), and "cache_hit_black_scholes", the same with cache=True in a process after one that filled the
disk cache (for gpujit the hit loads the cubin; "machine_code_hits" says whether it did). Every figure is
from the call to the launch done (launch + synchronize), minus a second launch; for the two Black-Scholes
programs the calling thread's CPU time is given too ("_cpu"), which a loaded machine's wall time hides.
Medians of --runs processes, in ms. The first program's processes alternate, gpujit then numba-cuda, and the
median of the per-round ratios is printed too: on a shared host the two medians can come from minutes of
different load, a round's two processes cannot.

Without a GPU, point GPUJIT_CUDA_DRIVER at the fake driver (tests/unit/runtime/fake_driver, built by the
Python tests into build/fakecuda/libfakecuda.so) and pass --only gpujit: the figures are then the host
side alone (compile, cache, launch path), with no PTX translation by a driver.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

NUMPY_SHIM = ("import numpy as _np\n"
              "for _n, _v in (('row_stack', 'vstack'), ('trapz', 'trapezoid'), ('in1d', 'isin')):\n"
              "    if not hasattr(_np, _n) and hasattr(_np, _v): setattr(_np, _n, getattr(_np, _v))\n")

# The same program for both: `cuda` is gpujit or numba.cuda, `f32` the float32 dtype.
# The Black-Scholes kernel (float64 erf, exp, log), as both programs below define it.
BS_KERNEL = r'''
def bs(S, K, T, r, v, call):
    i = cuda.grid(1)
    if i < S.size:
        sq = math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * v * v) * T[i]) / (v * sq)
        d2 = d1 - v * sq
        call[i] = S[i] * 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0))) - K[i] * math.exp(-r * T[i]) * 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
'''

# The three new kernels after the first (compile_breakdown.py compiles the same ones).
WARM_KERNELS = r'''
@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        c[i] = a[i] + b[i]

@cuda.jit
BS_KERNEL

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

'''.replace("BS_KERNEL\n", BS_KERNEL)

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

WARM_KERNELS
d = cuda.to_device(np.ones(n)); o = cuda.device_array(n)
M = 256
A = cuda.to_device(np.ones((M, M), np.float32)); C = cuda.device_array((M, M), np.float32)
warm = {
    "vadd": timed(vadd, ((n + 255) // 256, 256), (a, b, c)),
    "black_scholes": timed(bs, ((n + 255) // 256, 256), (d, d, d, 0.02, 0.3, o)),
    "matmul_tiled": timed(mm, ((M // 16, M // 16), (16, 16)), (A, A, C)),
}

# A kernel with four explicit signatures, compiled when jit() is applied: the time the decoration takes.
def axpy2(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + x[i] * x[i]

sigs = ["void(float32[::1], float32[::1], float32)", "void(float64[::1], float64[::1], float64)",
        "void(int32[::1], int32[::1], int32)", "void(int64[::1], int64[::1], int64)"]
t0 = time.perf_counter()
cuda.jit(sigs)(axpy2)
warm["eager_4_signatures"] = time.perf_counter() - t0

# The same four compiles asked for one by one (dispatcher.compile), on a twin of the kernel.
def axpy3(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + x[i] * x[i]

t0 = time.perf_counter()
lazy = cuda.jit(axpy3)
for sig in sigs:
    lazy.compile(sig)
warm["four_signatures_one_by_one"] = time.perf_counter() - t0
print(json.dumps({"cold_first_kernel": cold, **warm}))
'''

# The first kernel of the process is Black-Scholes (float64 erf, exp, log); with CACHE set, it is
# cache=True and the cache's counters are printed too.
BS_MODULE = r'''
import math
from __main__ import cuda

@cuda.jit(cache=CACHE)
BS_KERNEL
'''

BS_PROGRAM = r'''
import time, json, sys
import numpy as np

def timed(k, cfg, args):
    # Wall time, and the calling thread's CPU time (what a loaded machine's wall time hides).
    t0 = time.perf_counter(); c0 = time.thread_time()
    k[cfg](*args); cuda.synchronize()
    t1 = time.perf_counter(); c1 = time.thread_time()
    k[cfg](*args); cuda.synchronize()
    t2 = time.perf_counter(); c2 = time.thread_time()
    return (t1 - t0) - (t2 - t1), (c1 - c0) - (c2 - c1)

n = 1 << 20
d = cuda.to_device(np.ones(n)); o = cuda.device_array(n)
cuda.synchronize()
sys.path.insert(0, sys.argv[1])
from bs_kernel import bs
wall, cpu = timed(bs, ((n + 255) // 256, 256), (d, d, d, 0.02, 0.3, o))
out = {sys.argv[2]: wall, sys.argv[2] + "_cpu": cpu}
stats = getattr(bs, "_stats", None)
if isinstance(stats, dict) and "machine_code_hits" in stats:
    out["machine_code_hits"] = stats["machine_code_hits"]
print(json.dumps(out))
'''

HEADERS = {
    "gpujit": "import gpujit as cuda\nf32 = cuda.float32\n",
    "numba": NUMPY_SHIM + "import numba\nfrom numba import cuda\nf32 = numba.float32\n",
}


def run_once(path, args=(), env=None):
    out = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def medians(samples):
    if any("error" in s for s in samples):
        return next(s for s in samples if "error" in s)
    return {k: round(statistics.median(s[k] for s in samples) * (1 if k == "machine_code_hits" else 1e3), 2)
            for k in samples[0]}


WARM = ("cold_first_kernel", "vadd", "black_scholes", "matmul_tiled", "eager_4_signatures",
        "four_signatures_one_by_one")


def run_warm(names, runs, tmp):
    """The first program's processes for each name in `names`, alternating (gpujit, numba, gpujit, ...), so
    that both see the machine as it is at that moment: the GPU machines' hosts are shared, and a compile's
    time there drifts by half over a minute. Returns each name's medians and, with two names, the median of
    the per-round ratios of the first to the second."""
    paths = {}
    for name in names:
        # gpujit reads kernel source from files, so each program is a real file.
        paths[name] = Path(tmp) / f"compile_{name}.py"
        paths[name].write_text(HEADERS[name] + PROGRAM.replace("WARM_KERNELS\n", WARM_KERNELS))
    samples = {name: [] for name in names}
    for _ in range(runs):
        for name in names:
            samples[name].append(run_once(paths[name]))
    results = {name: medians(samples[name]) for name in names}
    ratios = {}
    if len(names) == 2 and not any("error" in results[n] for n in names):
        first, second = samples[names[0]], samples[names[1]]
        for key in WARM:
            ratios[key] = round(statistics.median(a[key] / b[key] for a, b in zip(first, second)), 3)
    return results, ratios


def run(name, runs, tmp, result):
    if "error" in result:
        return result

    # Black-Scholes as the first kernel of a process: uncached, then from a disk cache a first process filled.
    folder = Path(tmp) / f"bs_{name}"
    folder.mkdir()
    program = folder / "program.py"
    program.write_text(HEADERS[name] + BS_PROGRAM)
    env = dict(os.environ)
    env["GPUJIT_CACHE_DIR"] = env["NUMBA_CACHE_DIR"] = str(folder / "cache")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    (folder / "bs_kernel.py").write_text(BS_MODULE.replace("BS_KERNEL\n", BS_KERNEL).replace("CACHE", "False"))
    result.update(medians([run_once(program, (str(folder), "cold_black_scholes"), env) for _ in range(runs)]))
    (folder / "bs_kernel.py").write_text(BS_MODULE.replace("BS_KERNEL\n", BS_KERNEL).replace("CACHE", "True"))
    filled = run_once(program, (str(folder), "cache_fill"), env)
    if "error" in filled:
        return {**result, "error": filled["error"]}
    result.update(medians([run_once(program, (str(folder), "cache_hit_black_scholes"), env) for _ in range(runs)]))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=sorted(HEADERS), help="measure this one alone (gpujit on the fake driver)")
    args = parser.parse_args()
    results = {name: {} for name in HEADERS}
    names = [name for name in HEADERS if args.only in (None, name)]
    with tempfile.TemporaryDirectory() as tmp:
        warm, paired = run_warm(names, args.runs, tmp)
        for name in names:
            results[name] = run(name, args.runs, tmp, warm[name])
    results["paired_ratios"] = paired
    print(f"{'compile + load, ms':<24} {'gpujit':>10} {'numba':>10} {'ratio':>7}")
    for key in WARM + ("cold_black_scholes", "cache_hit_black_scholes"):
        ours, theirs = results["gpujit"].get(key), results["numba"].get(key)
        ratio = f"{ours / theirs:.2f}" if ours and theirs else "-"
        print(f"{key:<24} {ours if ours is not None else '-':>10} {theirs if theirs is not None else '-':>10} {ratio:>7}")
    if paired:
        print(f"the first program's processes alternated, gpujit then numba-cuda, {args.runs} rounds; the median "
              "of the per-round ratios: " + ", ".join(f"{k} {v:.3f}" for k, v in paired.items()))
    for key in ("cold_black_scholes_cpu", "cache_hit_black_scholes_cpu"):
        ours, theirs = results["gpujit"].get(key), results["numba"].get(key)
        print(f"{key:<24} {ours if ours is not None else '-':>10} {theirs if theirs is not None else '-':>10}"
              "   (the calling thread's CPU time)")
    if "machine_code_hits" in results["gpujit"]:
        print(f"gpujit cache hit loaded the device's machine code: {results['gpujit']['machine_code_hits'] >= 1}")
    for name, r in results.items():
        if name in HEADERS and "error" in r:
            print(f"{name}: {r['error']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
