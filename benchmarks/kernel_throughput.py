"""Kernel quality on the GPU: the same algorithm in gpujit, numba-cuda and CUDA C (NVRTC through CuPy).

    python benchmarks/kernel_throughput.py [--json OUT.json] [--quick]

One kernel source text (numba-cuda dialect) is compiled by both gpujit and numba-cuda; the CUDA C version is
the same algorithm written by hand. Every variant runs on the same inputs in the same process, is checked
against NumPy, and is timed as the median wall time of repeated launch + synchronize after a warm-up (the
kernels here take 0.1-20 ms, so launch overhead is noise). The figure that matters is gpujit's ratio to CUDA
C measured in this run (PERFORMANCE.md: at least the CUDA C figure on each). A second table runs gpujit's
kernels and CUDA C's on the same CuPy arrays, launch by launch in turn, so that neither the buffers nor the
moment of the run differ between the two; its extra reduce_sum rows put gpujit on its own input or output
against the same CUDA C launch (benchmarks/README.md, "reduce_sum's buffers").
"""
import argparse
import json
import linecache
import os
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
for _old, _new in (("row_stack", "vstack"), ("trapz", "trapezoid"), ("in1d", "isin")):
    if not hasattr(np, _old) and hasattr(np, _new):
        setattr(np, _old, getattr(np, _new))  # numba-cuda still uses names NumPy 2.5 removed

KERNELS = r'''
@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        c[i] = a[i] + b[i]

TPB = 16

@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), np.float32)
    sB = cuda.shared.array((TPB, TPB), np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = np.float32(0.0)
    for t in range(A.shape[1] // TPB):
        sA[ty, tx] = A[y, t * TPB + tx]
        sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    C[y, x] = acc

@cuda.jit
def reduce_sum(a, out):
    s = cuda.shared.array(256, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i] if i < a.size else np.float32(0.0)
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(out, 0, s[0])

TILE = 32
TILE_PAD = TILE + 1  # a module constant, so numba-cuda folds it too

@cuda.jit
def transpose(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), np.float32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    if y < a.shape[0] and x < a.shape[1]:
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]

@cuda.jit
def histogram(data, bins):
    local = cuda.shared.array(256, np.int32)
    t = cuda.threadIdx.x
    local[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < data.size:
        cuda.atomic.add(local, data[i], 1)
        i += stride
    cuda.syncthreads()
    cuda.atomic.add(bins, t, local[t])
'''

CUDA_C = r'''
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float sA[16][16]; __shared__ float sB[16][16];
  int tx = threadIdx.x, ty = threadIdx.y, x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;
  float acc = 0.f;
  for (int t = 0; t < n / 16; ++t) {
    sA[ty][tx] = A[y * n + t * 16 + tx]; sB[ty][tx] = B[(t * 16 + ty) * n + x];
    __syncthreads();
    for (int j = 0; j < 16; ++j) acc += sA[ty][j] * sB[j][tx];
    __syncthreads();
  }
  C[y * n + x] = acc;
}
extern "C" __global__ void reduce_sum(const float* a, float* out, long long n) {
  __shared__ float s[256];
  int t = threadIdx.x; long long i = (long long)blockIdx.x * blockDim.x + t;
  s[t] = i < n ? a[i] : 0.f;
  __syncthreads();
  for (int step = 128; step > 0; step /= 2) { if (t < step) s[t] += s[t + step]; __syncthreads(); }
  if (t == 0) atomicAdd(out, s[0]);
}
extern "C" __global__ void transpose(const float* a, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  if (y < rows && x < cols) tile[threadIdx.y][threadIdx.x] = a[y * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
  if (y < cols && x < rows) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
extern "C" __global__ void histogram(const int* data, int* bins, long long n) {
  __shared__ int local[256];
  int t = threadIdx.x; local[t] = 0;
  __syncthreads();
  for (long long i = (long long)blockIdx.x * blockDim.x + t; i < n; i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1);
  __syncthreads();
  atomicAdd(&bins[t], local[t]);
}
'''


def timed(fn, sync, reps):
    fn()
    sync()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def load_kernels(module):
    # gpujit compiles from source text, which exec'd code only has once linecache knows it.
    filename = "<kernel_throughput>"
    linecache.cache[filename] = (len(KERNELS), None, KERNELS.splitlines(True), filename)
    ns = {"cuda": module, "np": np}
    exec(compile(KERNELS, filename, "exec"), ns)
    return ns


def problems(quick):
    rng = np.random.default_rng(0)
    n_vadd = 1 << (24 if quick else 28)
    m = 1024 if quick else 4096
    n_red = 1 << (22 if quick else 26)
    t_rows, t_cols = (2048, 2048) if quick else (8192, 8192)
    n_hist = 1 << (22 if quick else 26)
    return {
        "vadd": dict(a=rng.random(n_vadd, dtype=np.float32), b=rng.random(n_vadd, dtype=np.float32)),
        "matmul": dict(A=rng.random((m, m), dtype=np.float32), B=rng.random((m, m), dtype=np.float32)),
        "reduce_sum": dict(a=rng.random(n_red, dtype=np.float32)),
        "transpose": dict(a=rng.random((t_rows, t_cols), dtype=np.float32)),
        "histogram": dict(data=rng.integers(0, 256, n_hist, dtype=np.int32)),
    }


def figures(P):
    """Work per run for each kernel: (unit, amount)."""
    return {
        "vadd": ("GB/s", 3 * P["vadd"]["a"].nbytes / 1e9),
        "matmul": ("GFLOP/s", 2 * P["matmul"]["A"].shape[0] ** 3 / 1e9),
        "reduce_sum": ("GB/s", P["reduce_sum"]["a"].nbytes / 1e9),
        "transpose": ("GB/s", 2 * P["transpose"]["a"].nbytes / 1e9),
        "histogram": ("GB/s", P["histogram"]["data"].nbytes / 1e9),
    }


def run_dialect(module, P, reps, name):
    """gpujit or numba-cuda: same source, same launches."""
    k = load_kernels(module)
    sync = module.synchronize
    res, checks = {}, {}
    d = {key: {n: module.to_device(v) for n, v in arrs.items()} for key, arrs in P.items()}

    n = P["vadd"]["a"].size
    c = module.device_array(n, np.float32)
    res["vadd"] = timed(lambda: k["vadd"][(n + 255) // 256, 256](d["vadd"]["a"], d["vadd"]["b"], c), sync, reps)
    checks["vadd"] = np.array_equal(c.copy_to_host(), P["vadd"]["a"] + P["vadd"]["b"])

    m = P["matmul"]["A"].shape[0]
    C = module.device_array((m, m), np.float32)
    res["matmul"] = timed(lambda: k["matmul"][(m // 16, m // 16), (16, 16)](d["matmul"]["A"], d["matmul"]["B"], C),
                          sync, max(3, reps // 4))
    ref = P["matmul"]["A"][:64].astype(np.float64) @ P["matmul"]["B"].astype(np.float64)
    checks["matmul"] = np.allclose(C.copy_to_host()[:64], ref, rtol=1e-3)

    n = P["reduce_sum"]["a"].size
    out = module.to_device(np.zeros(1, np.float32))
    res["reduce_sum"] = timed(lambda: k["reduce_sum"][(n + 255) // 256, 256](d["reduce_sum"]["a"], out), sync, reps)
    out = module.to_device(np.zeros(1, np.float32))
    k["reduce_sum"][(n + 255) // 256, 256](d["reduce_sum"]["a"], out)
    checks["reduce_sum"] = np.isclose(out.copy_to_host()[0], P["reduce_sum"]["a"].sum(dtype=np.float64), rtol=1e-3)

    rows, cols = P["transpose"]["a"].shape
    T = module.device_array((cols, rows), np.float32)
    res["transpose"] = timed(lambda: k["transpose"][(cols // 32, rows // 32), (32, 32)](d["transpose"]["a"], T),
                             sync, reps)
    checks["transpose"] = np.array_equal(T.copy_to_host(), P["transpose"]["a"].T)

    bins = module.to_device(np.zeros(256, np.int32))
    hist = lambda: k["histogram"][1024, 256](d["histogram"]["data"], bins)
    res["histogram"] = timed(hist, sync, reps)
    bins = module.to_device(np.zeros(256, np.int32))
    hist()
    checks["histogram"] = np.array_equal(bins.copy_to_host(), np.bincount(P["histogram"]["data"], minlength=256))
    return res, checks


def run_cuda_c(P, reps):
    import cupy as cp
    mod = cp.RawModule(code=CUDA_C)
    f = {name: mod.get_function(name) for name in ("vadd", "matmul", "reduce_sum", "transpose", "histogram")}
    sync = cp.cuda.Device().synchronize
    res, checks = {}, {}
    a, b = cp.asarray(P["vadd"]["a"]), cp.asarray(P["vadd"]["b"])
    c = cp.empty_like(a)
    n = a.size
    res["vadd"] = timed(lambda: f["vadd"](((n + 255) // 256,), (256,), (a, b, c, np.int64(n))), sync, reps)
    checks["vadd"] = bool(cp.array_equal(c, a + b))
    del a, b, c
    A, B = cp.asarray(P["matmul"]["A"]), cp.asarray(P["matmul"]["B"])
    m = A.shape[0]
    C = cp.empty_like(A)
    res["matmul"] = timed(lambda: f["matmul"]((m // 16, m // 16), (16, 16), (A, B, C, np.int32(m))), sync,
                          max(3, reps // 4))
    checks["matmul"] = bool(cp.allclose(C[:64], A[:64] @ B, rtol=1e-3))
    a = cp.asarray(P["reduce_sum"]["a"])
    out = cp.zeros(1, cp.float32)
    n = a.size
    res["reduce_sum"] = timed(lambda: f["reduce_sum"](((n + 255) // 256,), (256,), (a, out, np.int64(n))), sync, reps)
    checks["reduce_sum"] = True
    a = cp.asarray(P["transpose"]["a"])
    rows, cols = a.shape
    T = cp.empty((cols, rows), cp.float32)
    res["transpose"] = timed(lambda: f["transpose"]((cols // 32, rows // 32), (32, 32),
                                                    (a, T, np.int32(rows), np.int32(cols))), sync, reps)
    checks["transpose"] = bool(cp.array_equal(T, a.T))
    data = cp.asarray(P["histogram"]["data"])
    bins = cp.zeros(256, cp.int32)
    res["histogram"] = timed(lambda: f["histogram"]((1024,), (256,), (data, bins, np.int64(data.size))), sync, reps)
    checks["histogram"] = True
    return res, checks


def run_side_by_side(P, reps):
    """gpujit's kernels and CUDA C's on the very same CuPy arrays, their launches alternating: no difference of
    buffers (allocator, placement), of position in the run or of clocks between the two; for reduce_sum also
    gpujit on its own buffers, alternating with the same CUDA C launch. Returns {row: (gpujit median s, CUDA C
    median s)}, a row being a kernel's name (then, for the extra rows, which buffers)."""
    import cupy as cp
    import gpujit

    k = load_kernels(gpujit)
    mod = cp.RawModule(code=CUDA_C)
    f = {name: mod.get_function(name) for name in ("vadd", "matmul", "reduce_sum", "transpose", "histogram")}

    def both():
        gpujit.synchronize()
        cp.cuda.Device().synchronize()

    a, b = cp.asarray(P["vadd"]["a"]), cp.asarray(P["vadd"]["b"])
    c = cp.empty_like(a)
    n = a.size
    pairs = {"vadd": (lambda: k["vadd"][(n + 255) // 256, 256](a, b, c),
                      lambda: f["vadd"](((n + 255) // 256,), (256,), (a, b, c, np.int64(n))))}
    A, B = cp.asarray(P["matmul"]["A"]), cp.asarray(P["matmul"]["B"])
    m = A.shape[0]
    C = cp.empty_like(A)
    pairs["matmul"] = (lambda: k["matmul"][(m // 16, m // 16), (16, 16)](A, B, C),
                       lambda: f["matmul"]((m // 16, m // 16), (16, 16), (A, B, C, np.int32(m))))
    r = cp.asarray(P["reduce_sum"]["a"])
    out = cp.zeros(1, cp.float32)
    nr = r.size
    pairs["reduce_sum"] = (lambda: k["reduce_sum"][(nr + 255) // 256, 256](r, out),
                           lambda: f["reduce_sum"](((nr + 255) // 256,), (256,), (r, out, np.int64(nr))))
    # Which of gpujit's own buffers makes reduce_sum slower in the first table: the input, or the one float
    # that every block adds to (where an atomic's address lands decides the L2 slice that serves it).
    r_own, out_own = gpujit.to_device(P["reduce_sum"]["a"]), gpujit.to_device(np.zeros(1, np.float32))
    pairs["reduce_sum, gpujit's input and output"] = (
        lambda: k["reduce_sum"][(nr + 255) // 256, 256](r_own, out_own), pairs["reduce_sum"][1])
    pairs["reduce_sum, gpujit's input, CuPy's output"] = (
        lambda: k["reduce_sum"][(nr + 255) // 256, 256](r_own, out), pairs["reduce_sum"][1])
    pairs["reduce_sum, CuPy's input, gpujit's output"] = (
        lambda: k["reduce_sum"][(nr + 255) // 256, 256](r, out_own), pairs["reduce_sum"][1])
    t = cp.asarray(P["transpose"]["a"])
    rows, cols = t.shape
    T = cp.empty((cols, rows), cp.float32)
    pairs["transpose"] = (lambda: k["transpose"][(cols // 32, rows // 32), (32, 32)](t, T),
                          lambda: f["transpose"]((cols // 32, rows // 32), (32, 32), (t, T, np.int32(rows),
                                                                                       np.int32(cols))))
    data = cp.asarray(P["histogram"]["data"])
    bins = cp.zeros(256, cp.int32)
    pairs["histogram"] = (lambda: k["histogram"][1024, 256](data, bins),
                          lambda: f["histogram"]((1024,), (256,), (data, bins, np.int64(data.size))))
    result = {}
    for name, (ours, theirs) in pairs.items():
        n_reps = max(3, reps // 4) if name == "matmul" else reps
        times = ([], [])
        for fn in (ours, theirs):
            fn()
        both()
        for _ in range(n_reps):
            for i, fn in enumerate((ours, theirs)):
                t0 = time.perf_counter()
                fn()
                both()
                times[i].append(time.perf_counter() - t0)
        result[name] = (statistics.median(times[0]), statistics.median(times[1]))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the figures here as JSON")
    ap.add_argument("--quick", action="store_true", help="smaller problems (a smoke test, not a measurement)")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    P = problems(args.quick)
    fig = figures(P)
    results = {}
    import gpujit
    results["gpujit"] = run_dialect(gpujit, P, args.reps, "gpujit")
    for name, runner in (("numba", lambda: run_dialect(__import__("numba.cuda").cuda, P, args.reps, "numba")),
                         ("cuda_c", lambda: run_cuda_c(P, args.reps))):
        try:
            results[name] = runner()
        except Exception as e:  # a missing peer is reported, not fatal: gpujit's figures still stand
            print(f"{name}: not measured ({type(e).__name__}: {e})", file=sys.stderr)
    print(f"{'kernel':12} {'unit':8} {'gpujit':>10} {'numba':>10} {'cuda_c':>10} {'gpujit/cuda_c':>14}  checks")
    table = {}
    for kname, (unit, amount) in fig.items():
        row = {who: amount / r[0][kname] for who, r in results.items()}
        ok = {who: bool(r[1][kname]) for who, r in results.items()}
        ratio = row["gpujit"] / row["cuda_c"] if "cuda_c" in row else float("nan")
        table[kname] = {"unit": unit, **row, "gpujit_over_cuda_c": ratio, "checks": ok}
        cells = " ".join(f"{row.get(w, float('nan')):10.1f}" for w in ("gpujit", "numba", "cuda_c"))
        print(f"{kname:12} {unit:8} {cells} {ratio:14.3f}  {ok}")
    try:
        side = run_side_by_side(P, args.reps)
    except Exception as e:
        print(f"side by side: not measured ({type(e).__name__}: {e})", file=sys.stderr)
    else:
        print("side by side, on the same CuPy arrays, launches alternating:")
        print(f"{'kernel':44} {'unit':8} {'gpujit':>10} {'cuda_c':>10} {'gpujit/cuda_c':>14}")
        for row, times in side.items():
            kname = row.split(",")[0]
            unit, amount = fig[kname]
            ours, theirs = (amount / t for t in times)
            table[kname].setdefault("side_by_side", {})[row] = {"gpujit": ours, "cuda_c": theirs,
                                                                "gpujit_over_cuda_c": ours / theirs}
            print(f"{row:44} {unit:8} {ours:10.1f} {theirs:10.1f} {ours / theirs:14.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)
    if not all(all(v["checks"].values()) for v in table.values()):
        sys.exit("a kernel computed a wrong result")


if __name__ == "__main__":
    main()
