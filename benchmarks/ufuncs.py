"""gpu.reduce, gpu.vectorize / gpu.guvectorize and the tutorials' workloads, next to numba-cuda and CuPy.

    python benchmarks/ufuncs.py [--json OUT.json] [--quick] [--reps N]

Three sections, every peer measured in the same run on the same data (copied to each library's arrays):
1. reduce: `gpu.reduce(lambda a, b: a + b)` over 2**26 float32 with the result left on the device (`res=`),
   next to CuPy's `cp.sum` (whose result stays on the device too) and numba-cuda's `cuda.reduce(..., res=)`;
   and the same with the result returned to the host. PERFORMANCE.md: at least as fast as `cp.sum`.
2. tutorials: the kernels of examples/ (naive and tiled matmul, sigmoid over 1e7 float32, 5x5 Gaussian blur of
   an image batch, exponential smoothing along rows, the fused sqrt/sin/cos chain), each compiled by gpujit
   and by numba-cuda from the same file (its `import gpujit as gpu` read as `from numba import cuda as gpu`),
   next to CuPy: `cp.ElementwiseKernel` for the elementwise ones (and the unfused array expression of the
   chain), the same algorithm in CUDA C (`cp.RawKernel`) for the blur and the smoothing, `cp.matmul` (cuBLAS,
   another algorithm, for scale) for the matmuls.
3. vectorize, when gpujit has `gpu.vectorize` (`hasattr(gpu, "vectorize")`): a sigmoid
   `@gpu.vectorize(['float32(float32)'], target='cuda')` on 1e7 float32 device arrays against the example's
   sigmoid kernel (throughput, target at least 90%), the cost of one call on a small array against one launch
   of that kernel (target at most 2 us more), next to numba-cuda's `@vectorize` and `cp.ElementwiseKernel`;
   and the smoothing as `@gpu.guvectorize(..., '(n),()->(n)')` against its kernel and numba's `@guvectorize`.
4. array kinds (issue 31): `gpu.vectorize` (an add of 1e7 float32), `gpu.guvectorize` (the smoothing) and
   `gpu.reduce` (a sum of 2**26 float32) on gpujit's own arrays, CuPy arrays and PyTorch tensors (each kind
   skipped where its library or a GPU is missing), each with and without `out=` (`res=` for reduce), timed
   next to the same gpujit kernel launched on the same arrays (for reduce, the reduction's own kernel,
   launched as gpu.reduce launches it), every pair in the same round and the rounds interleaved over every
   kind. Target: each ufunc call at least 0.9 of its kernel's throughput. `--array-kinds` runs it alone.

GPU time is measured with each library's CUDA events around `--reps` calls after a warm-up (the median of 3
such rounds), on the default stream; per-call cost is the wall time of many asynchronous calls on a small
array followed by one synchronize. Every result is checked against NumPy. Without a GPU the script runs
gpujit alone on the CPU backend with small problems: a smoke test of the script, not a measurement.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
for _old, _new in (("row_stack", "vstack"), ("trapz", "trapezoid"), ("in1d", "isin")):
    if not hasattr(np, _old) and hasattr(np, _new):
        setattr(np, _old, getattr(np, _new))  # numba-cuda still uses names NumPy 2.5 removed

import gpujit as gpu  # noqa: E402


def sigmoid_scalar(x):
    return np.float32(1.0) / (np.float32(1.0) + math.exp(-x))


def smooth_row(x, alpha, out):
    keep = np.float32(1.0) - alpha
    level = x[0]
    out[0] = level
    for t in range(1, x.shape[0]):
        level = alpha * x[t] + keep * level
        out[t] = level


CUDA_C = r'''
extern "C" __global__ void gaussian_blur(const float* img, float* out, int count, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
  if (x >= w || y >= h || z >= count) return;
  const float taps[5] = {1.f, 4.f, 6.f, 4.f, 1.f};
  const float* image = img + (long long)z * h * w;
  float acc = 0.f;
  for (int dy = -2; dy <= 2; ++dy) {
    int row = min(max(y + dy, 0), h - 1);
    for (int dx = -2; dx <= 2; ++dx) {
      int col = min(max(x + dx, 0), w - 1);
      acc += taps[dy + 2] * taps[dx + 2] * image[(long long)row * w + col];
    }
  }
  out[((long long)z * h + y) * w + x] = acc / 256.f;
}
extern "C" __global__ void exp_smoothing(const float* x, float* out, float alpha, long long rows, long long cols) {
  long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + r * cols;
  float* o = out + r * cols;
  float keep = 1.f - alpha, level = xr[0];
  o[0] = level;
  for (long long t = 1; t < cols; ++t) { level = alpha * xr[t] + keep * level; o[t] = level; }
}
'''


# ---------------------------------------------------------------------------------------------------------
# Timing


class Peer:
    """One library: its module for kernels and arrays, and how to time on its default stream."""

    def __init__(self, name, module, to_device, event, elapsed_ms, sync):
        self.name, self.module, self.to_device = name, module, to_device
        self.event, self.elapsed_ms, self.sync = event, elapsed_ms, sync

    def gpu_seconds(self, fn, reps):
        """Seconds per call of `fn`, from events around `reps` calls; the median of 3 rounds after a warm-up."""
        fn()
        self.sync()
        rounds = []
        for _ in range(3):
            start, end = self.event(), self.event()
            start.record()
            for _ in range(reps):
                fn()
            end.record()
            end.synchronize()
            rounds.append(self.elapsed_ms(start, end) / 1e3 / reps)
        return statistics.median(rounds)

    def call_us(self, fn, calls):
        """Microseconds per call of many asynchronous calls followed by one synchronize, best of 3."""
        fn()
        self.sync()
        best = math.inf
        for _ in range(3):
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            self.sync()
            best = min(best, (time.perf_counter() - t) / calls * 1e6)
        return best


def gpujit_peer():
    return Peer("gpujit", gpu, gpu.to_device, lambda: gpu.event(timing=True),
                lambda a, b: a.elapsed_time(b), gpu.synchronize)


def numba_peer():
    from numba import cuda

    if not cuda.is_available():
        raise RuntimeError("numba-cuda finds no GPU")
    return Peer("numba", cuda, cuda.to_device, lambda: cuda.event(timing=True),
                lambda a, b: a.elapsed_time(b), cuda.synchronize)


def cupy_peer():
    import cupy as cp

    cp.cuda.runtime.getDeviceCount()
    return Peer("cupy", cp, cp.asarray, cp.cuda.Event, cp.cuda.get_elapsed_time,
                cp.cuda.Device().synchronize)


def load_example(name, peer):
    """The namespace of examples/NAME.py compiled for this peer (gpujit or numba-cuda)."""
    path = ROOT / "examples" / f"{name}.py"
    source = path.read_text()
    if peer.name == "numba":
        source = source.replace("import gpujit as gpu", "from numba import cuda as gpu")
    namespace = {"__name__": f"ufuncs_bench_{name}", "__file__": str(path)}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace


def host(array):
    if hasattr(array, "copy_to_host"):
        return array.copy_to_host()
    if hasattr(array, "cpu") and hasattr(array, "numpy"):  # a PyTorch tensor
        return array.cpu().numpy()
    return array.get() if hasattr(array, "get") else np.asarray(array)


# ---------------------------------------------------------------------------------------------------------
# The sections. Each returns rows {"section", "what", "unit", "amount", "seconds": {peer: s}, "ok": {peer: bool}}.


def row(section, what, unit, amount):
    return {"section": section, "what": what, "unit": unit, "amount": amount, "seconds": {}, "ok": {}}


def measure(r, who, fn, check):
    """Times fn for `who` into the row, then records whether check() holds; a failure is reported, not fatal."""
    peer, reps = who
    try:
        r["seconds"][peer.name] = peer.gpu_seconds(fn, reps)
        r["ok"][peer.name] = bool(check())
    except Exception as e:  # a peer that cannot run this workload: its figure is left out, the rest stand
        print(f"  {r['what']} / {peer.name}: not measured ({type(e).__name__}: {str(e).splitlines()[0][:160]})",
              file=sys.stderr)


def guarded(peer, one):
    """Runs one section's work for one peer; a peer that fails to set up is reported, not fatal."""
    try:
        one(peer)
    except Exception as e:
        print(f"  {peer.name}: not measured here ({type(e).__name__}: {str(e).splitlines()[0][:160]})",
              file=sys.stderr)


def reduce_section(peers, sizes, reps):
    x = np.random.default_rng(0).random(sizes["reduce"], dtype=np.float32)
    expected = x.sum(dtype=np.float64)
    close = lambda v: abs(float(v) - expected) <= 1e-4 * expected  # noqa: E731
    on_device = row("reduce", f"sum of {x.size} float32, result on the device", "GB/s", x.nbytes / 1e9)
    to_host = row("reduce", f"sum of {x.size} float32, result to the host", "GB/s", x.nbytes / 1e9)

    def one(peer):
        d = peer.to_device(x)
        if peer.name == "cupy":
            cp = peer.module
            out = [None]

            def device_sum():
                out[0] = cp.sum(d)

            measure(on_device, (peer, reps), device_sum, lambda: close(out[0].get()))
            measure(to_host, (peer, reps), lambda: float(cp.sum(d)), lambda: close(cp.sum(d).get()))
            return
        total = peer.module.reduce(lambda a, b: a + b)
        res = peer.module.device_array(1, np.float32)
        measure(on_device, (peer, reps), lambda: total(d, res=res), lambda: close(host(res)[0]))
        measure(to_host, (peer, reps), lambda: total(d), lambda: close(total(d)))

    for peer in peers:
        guarded(peer, one)
    return [on_device, to_host]


def tutorial_section(peers, sizes, reps):
    rng = np.random.default_rng(1)
    m = sizes["matmul"]
    A, B = rng.random((m, m), dtype=np.float32), rng.random((m, m), dtype=np.float32)
    mm_ref = A[:64].astype(np.float64) @ B.astype(np.float64)
    n = sizes["elementwise"]
    xs = rng.uniform(-20.0, 20.0, n).astype(np.float32)
    a, b = rng.uniform(-10.0, 10.0, n).astype(np.float32), rng.uniform(-10.0, 10.0, n).astype(np.float32)
    images = rng.random(sizes["blur"], dtype=np.float32)
    rows_, cols = sizes["smoothing"]
    series = rng.standard_normal((rows_, cols), dtype=np.float32).cumsum(axis=1, dtype=np.float32)
    alpha = np.float32(0.1)

    naive = row("tutorial", f"matmul naive {m}^3", "GFLOP/s", 2 * m**3 / 1e9)
    tiled = row("tutorial", f"matmul tiled {m}^3", "GFLOP/s", 2 * m**3 / 1e9)
    sig = row("tutorial", f"sigmoid {n} float32", "GB/s", 2 * xs.nbytes / 1e9)
    blur = row("tutorial", f"blur 5x5 {'x'.join(map(str, images.shape))}", "GB/s", 2 * images.nbytes / 1e9)
    smooth = row("tutorial", f"smoothing {rows_}x{cols}", "GB/s", 2 * series.nbytes / 1e9)
    chain = row("tutorial", f"fused chain {n} float32", "GB/s", 3 * a.nbytes / 1e9)
    chain_unfused = row("tutorial", f"unfused chain {n} float32 (array expression)", "GB/s", 3 * a.nbytes / 1e9)

    # NumPy references, from the examples' own functions.
    sig_mod, blur_mod = load_example("sigmoid", peers[0]), load_example("gaussian_blur", peers[0])
    sig_ref = sig_mod["sigmoid_numpy"](xs)
    blur_ref = blur_mod["gaussian_blur_numpy"](images)
    smoothing_ref = load_example("exp_smoothing", peers[0])["exp_smoothing_numpy"](series, alpha)
    chain_ref = load_example("fused_math", peers[0])["fused_chain_numpy"](a.astype(np.float64), b.astype(np.float64))

    def one(peer):
        dev = peer.to_device
        dA, dB = dev(A), dev(B)
        dx, da, db = dev(xs), dev(a), dev(b)
        dimg, dser = dev(images), dev(series)
        if peer.name == "cupy":
            cp = peer.module
            C = cp.empty((m, m), cp.float32)
            measure(tiled, (peer, max(3, reps // 4)), lambda: cp.matmul(dA, dB, out=C),
                    lambda: np.allclose(C[:64].get(), mm_ref, rtol=1e-3))
            tiled["note"] = "cupy: cp.matmul (cuBLAS), another algorithm"
            sig_k = cp.ElementwiseKernel("float32 x", "float32 y", "y = 1.0f / (1.0f + expf(-x))", "sigmoid_ek")
            out = cp.empty_like(dx)
            measure(sig, (peer, reps), lambda: sig_k(dx, out),
                    lambda: np.allclose(out.get(), sig_ref, rtol=2e-6, atol=1e-7))
            raw = cp.RawModule(code=CUDA_C)
            blur_k, smooth_k = raw.get_function("gaussian_blur"), raw.get_function("exp_smoothing")
            count, h, w = images.shape
            bout = cp.empty_like(dimg)
            measure(blur, (peer, reps), lambda: blur_k(((w + 31) // 32, (h + 7) // 8, count), (32, 8, 1),
                                                       (dimg, bout, np.int32(count), np.int32(h), np.int32(w))),
                    lambda: np.allclose(bout.get(), blur_ref, rtol=1e-5, atol=1e-6))
            sout = cp.empty_like(dser)
            measure(smooth, (peer, reps), lambda: smooth_k(((rows_ + 127) // 128,), (128,),
                                                           (dser, sout, alpha, np.int64(rows_), np.int64(cols))),
                    lambda: np.allclose(sout.get(), smoothing_ref, rtol=1e-5, atol=1e-4))
            chain_k = cp.ElementwiseKernel("float32 a, float32 b", "float32 out",
                                           "out = sqrtf(a * a + b * b) + sinf(a) * cosf(b)", "chain_ek")
            cout = cp.empty_like(da)
            measure(chain, (peer, reps), lambda: chain_k(da, db, cout),
                    lambda: np.allclose(cout.get(), chain_ref, rtol=1e-5, atol=1e-5))
            unfused = [None]

            def expression():
                unfused[0] = cp.sqrt(da**2 + db**2) + cp.sin(da) * cp.cos(db)

            measure(chain_unfused, (peer, reps), expression,
                    lambda: np.allclose(unfused[0].get(), chain_ref, rtol=1e-5, atol=1e-5))
            return

        mm_mod = load_example("matmul", peer)
        sig_mod = load_example("sigmoid", peer)
        blur_mod = load_example("gaussian_blur", peer)
        sm_mod = load_example("exp_smoothing", peer)
        ch_mod = load_example("fused_math", peer)
        device = peer.module.get_current_device()

        C = peer.module.device_array((m, m), np.float32)
        grid = mm_mod["launch_shape"](C)
        for r, kernel in ((naive, mm_mod["matmul_naive"]), (tiled, mm_mod["matmul_tiled"])):
            measure(r, (peer, max(3, reps // 4)), lambda kernel=kernel: kernel[grid](dA, dB, C),
                    lambda: np.allclose(host(C)[:64], mm_ref, rtol=1e-3))
        out = peer.module.device_array(n, np.float32)
        shape = sig_mod["launch_shape"](n, device)
        measure(sig, (peer, reps), lambda: sig_mod["sigmoid"][shape](dx, out),
                lambda: np.allclose(host(out), sig_ref, rtol=2e-6, atol=1e-7))
        bout = peer.module.device_array(images.shape, np.float32)
        shape = blur_mod["launch_shape"](images.shape)
        measure(blur, (peer, reps), lambda: blur_mod["gaussian_blur"][shape](dimg, bout),
                lambda: np.allclose(host(bout), blur_ref, rtol=1e-5, atol=1e-6))
        sout = peer.module.device_array(series.shape, np.float32)
        measure(smooth, (peer, reps), lambda: sm_mod["exp_smoothing"][(rows_ + 127) // 128, 128](dser, sout, alpha),
                lambda: np.allclose(host(sout), smoothing_ref, rtol=1e-5, atol=1e-4))
        cout = peer.module.device_array(n, np.float32)
        shape = ch_mod["launch_shape"](n, device)
        measure(chain, (peer, reps), lambda: ch_mod["fused_chain"][shape](da, db, cout),
                lambda: np.allclose(host(cout), chain_ref, rtol=1e-5, atol=1e-5))

    for peer in peers:
        guarded(peer, one)
    return [naive, tiled, sig, blur, smooth, chain, chain_unfused]


def vectorize_section(peers, sizes, reps, calls):
    """gpu.vectorize / gpu.guvectorize against the equivalent gpujit kernels, numba-cuda and CuPy."""
    rng = np.random.default_rng(2)
    n = sizes["elementwise"]
    xs = rng.uniform(-20.0, 20.0, n).astype(np.float32)
    small = xs[:sizes["small"]]
    rows_, cols = sizes["smoothing"]
    series = rng.standard_normal((rows_, cols), dtype=np.float32).cumsum(axis=1, dtype=np.float32)
    alpha = np.float32(0.1)
    sig_ref = load_example("sigmoid", peers[0])["sigmoid_numpy"](xs)
    smoothing_ref = load_example("exp_smoothing", peers[0])["exp_smoothing_numpy"](series, alpha)

    through = row("vectorize", f"sigmoid {n} float32", "GB/s", 2 * xs.nbytes / 1e9)
    per_call = row("vectorize", f"one call on {small.size} float32", "us/call", None)
    guv = row("vectorize", f"smoothing {rows_}x{cols}", "GB/s", 2 * series.nbytes / 1e9)

    def one(peer):
        dx, out = peer.to_device(xs), peer.to_device(np.empty_like(xs))
        dsmall, out_small = peer.to_device(small), peer.to_device(np.empty_like(small))
        dser, sout = peer.to_device(series), peer.to_device(np.empty_like(series))
        close = lambda: np.allclose(host(out), sig_ref, rtol=2e-6, atol=1e-7)  # noqa: E731
        if peer.name == "cupy":
            cp = peer.module
            k = cp.ElementwiseKernel("float32 x", "float32 y", "y = 1.0f / (1.0f + expf(-x))", "sigmoid_ek")
            measure(through, (peer, reps), lambda: k(dx, out), close)
            try:
                per_call["seconds"]["cupy"] = peer.call_us(lambda: k(dsmall, out_small), calls) / 1e6
            except Exception as e:
                print(f"  per call / cupy: not measured ({type(e).__name__}: {e})", file=sys.stderr)
            return
        if peer.name == "gpujit":
            sig_mod = load_example("sigmoid", peer)
            sm_mod = load_example("exp_smoothing", peer)
            kernel, device = sig_mod["sigmoid"], gpu.get_current_device()
            shape = sig_mod["launch_shape"](n, device)
            small_shape = sig_mod["launch_shape"](small.size, device)
            kernel_peer = Peer("gpujit kernel", gpu, peer.to_device, peer.event, peer.elapsed_ms, peer.sync)
            measure(through, (kernel_peer, reps), lambda: kernel[shape](dx, out), close)
            per_call["seconds"]["gpujit kernel"] = kernel_peer.call_us(
                lambda: kernel[small_shape](dsmall, out_small), calls) / 1e6
            smooth = sm_mod["exp_smoothing"]
            measure(guv, (kernel_peer, reps), lambda: smooth[(rows_ + 127) // 128, 128](dser, sout, alpha),
                    lambda: np.allclose(host(sout), smoothing_ref, rtol=1e-5, atol=1e-4))
            if not hasattr(gpu, "vectorize"):
                print("  gpu.vectorize: not in this gpujit yet; its rows show the kernels alone", file=sys.stderr)
                return
            vectorize, guvectorize = gpu.vectorize, gpu.guvectorize
        else:
            from numba import guvectorize, vectorize
        vsig = vectorize(["float32(float32)"], target="cuda")(sigmoid_scalar)
        measure(through, (peer, reps), lambda: vsig(dx, out=out), close)
        try:
            per_call["seconds"][peer.name] = peer.call_us(lambda: vsig(dsmall, out=out_small), calls) / 1e6
        except Exception as e:
            print(f"  per call / {peer.name}: not measured ({type(e).__name__}: {e})", file=sys.stderr)
        gsmooth = guvectorize(["void(float32[:], float32, float32[:])"], "(n),()->(n)", target="cuda")(smooth_row)
        measure(guv, (peer, reps), lambda: gsmooth(dser, alpha, sout),
                lambda: np.allclose(host(sout), smoothing_ref, rtol=1e-5, atol=1e-4))

    for peer in peers:
        guarded(peer, one)
    return [through, per_call, guv]


def array_kinds():
    """{kind: (to_device, empty_like)}: gpujit's arrays, CuPy's and PyTorch's where they import and see a GPU."""
    kinds = {"gpujit": (gpu.to_device, lambda a: gpu.device_array(a.shape, a.dtype))}
    if gpu.get_current_device().backend != "cuda":
        return kinds
    try:
        import cupy as cp

        cp.cuda.runtime.getDeviceCount()
        kinds["cupy"] = (cp.asarray, cp.empty_like)
    except Exception as e:
        print(f"  array kinds: no CuPy ({type(e).__name__}: {e})", file=sys.stderr)
    try:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no GPU")
        kinds["torch"] = (lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda(), torch.empty_like)
    except Exception as e:
        print(f"  array kinds: no PyTorch ({type(e).__name__}: {e})", file=sys.stderr)
    return kinds


def array_kinds_section(sizes, reps):
    """vectorize, guvectorize and reduce on each kind of array against the same gpujit kernel on the same
    arrays, interleaved; returns rows whose figures are GB/s of the ufunc ("ufunc") and of the kernel."""
    from gpujit import reduction

    rng = np.random.default_rng(4)
    n = sizes["elementwise"]
    xs, ys = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    zs = rng.random(sizes["reduce"], dtype=np.float32)  # reduce's workload: the size section 1 sums
    rows_, cols = sizes["smoothing"]
    series = rng.standard_normal((rows_, cols), dtype=np.float32).cumsum(axis=1, dtype=np.float32)
    alpha = np.float32(0.1)
    smoothing_ref = load_example("exp_smoothing", gpujit_peer())["exp_smoothing_numpy"](series, alpha)

    add = gpu.vectorize(["float32(float32, float32)"])(lambda a, b: a + b)
    smooth = gpu.guvectorize(["void(float32[:], float32, float32[:])"], "(n),()->(n)")(smooth_row)
    total = gpu.reduce(lambda a, b: a + b)

    @gpu.jit
    def add_kernel(a, b, out):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    @gpu.jit
    def smooth_kernel(x, alpha, out):
        r = gpu.grid(1)
        if r < x.shape[0]:
            keep = np.float32(1.0) - alpha
            level = x[r, 0]
            out[r, 0] = level
            for t in range(1, x.shape[1]):
                level = alpha * x[r, t] + keep * level
                out[r, t] = level

    def reduce_kernel(arr, res):
        """gpu.reduce's one launch on `arr` (reduction.py, Reduce.__call__ with res=), without the call's checks."""
        m = arr.shape[0]
        vector = arr.is_c_contiguous() and arr.device_ctypes_pointer.value % 16 == 0
        kernel = total._kernel(np.dtype(np.float32), vector)
        width = reduction.vector_width(np.dtype(np.float32))
        blocks = reduction._first_pass_blocks(max(m // width, m % width) if vector else m)
        partials = gpu.device_array(max(blocks, 1), np.float32)
        launch = total._configured(kernel, blocks, reduction._THREADS, 0)
        counter = reduction._counter(0)
        return lambda: launch(arr, res, partials, counter, np.float32(0), False)

    timer = gpujit_peer()
    plans = []  # (row, kind, ufunc call, kernel call, verify: a fresh call's result checked against NumPy)
    for kind, (to_device, empty_like) in array_kinds().items():
        x, y, out = to_device(xs), to_device(ys), empty_like(to_device(xs))
        ser, sout = to_device(series), empty_like(to_device(series))
        z, res = to_device(zs), empty_like(to_device(zs[:1]))
        fresh = lambda a: empty_like(to_device(a))  # noqa: E731  an output no other call wrote
        add_ok = lambda got: np.allclose(host(got), xs + ys)  # noqa: E731
        smooth_ok = lambda got: np.allclose(host(got), smoothing_ref, rtol=1e-5, atol=1e-4)  # noqa: E731
        expected = zs.sum(dtype=np.float64)
        sum_ok = lambda got: abs(float(np.ravel(host(got))[0]) - expected) <= 1e-4 * expected  # noqa: E731
        gb_add, gb_smooth, gb_sum = 3 * xs.nbytes / 1e9, 2 * series.nbytes / 1e9, zs.nbytes / 1e9
        blocks = (n + 255) // 256
        kernel_add = lambda x=x, y=y, out=out: add_kernel[blocks, 256](x, y, out)  # noqa: E731
        kernel_smooth = lambda s=ser, o=sout: smooth_kernel[(rows_ + 127) // 128, 128](s, alpha, o)  # noqa: E731
        # The reduction's own kernel on the same memory (seen as gpujit arrays: its arguments are prepared here).
        kernel_sum = reduce_kernel(gpu.as_cuda_array(z) if kind != "gpujit" else z,
                                   gpu.as_cuda_array(res) if kind != "gpujit" else res)

        def keep_res(z=z):
            r = fresh(zs[:1])
            total(z, res=r)
            return r

        plans += [
            (row("kinds", f"vectorize add {n} float32, out=", "GB/s", gb_add), kind,
             lambda x=x, y=y, out=out: add(x, y, out=out), kernel_add,
             lambda x=x, y=y: add_ok(add(x, y, out=fresh(xs)))),
            (row("kinds", f"vectorize add {n} float32, no out", "GB/s", gb_add), kind,
             lambda x=x, y=y: add(x, y), kernel_add, lambda x=x, y=y: add_ok(add(x, y))),
            (row("kinds", f"guvectorize smoothing {rows_}x{cols}, out=", "GB/s", gb_smooth), kind,
             lambda s=ser, o=sout: smooth(s, alpha, o), kernel_smooth,
             lambda s=ser: smooth_ok(smooth(s, alpha, fresh(series)))),
            (row("kinds", f"guvectorize smoothing {rows_}x{cols}, no out", "GB/s", gb_smooth), kind,
             lambda s=ser: smooth(s, alpha), kernel_smooth, lambda s=ser: smooth_ok(smooth(s, alpha))),
            (row("kinds", f"reduce sum {zs.size} float32, res=", "GB/s", gb_sum), kind,
             lambda z=z, r=res: total(z, res=r), kernel_sum, lambda: sum_ok(keep_res())),
            (row("kinds", f"reduce sum {zs.size} float32, to host", "GB/s", gb_sum), kind,
             lambda z=z: total(z), kernel_sum, lambda z=z: sum_ok(np.array([total(z)]))),
        ]
    # Interleaved: each round times every pair (ufunc, then its kernel) of every kind before the next round.
    times = {id(p[0]): ([], []) for p in plans}
    for _ in range(3):
        for r, kind, call, kernel, verify in plans:
            if "error" in r:
                continue
            try:
                ufunc_times, kernel_times = times[id(r)]
                ufunc_times.append(timer.gpu_seconds(call, reps))
                kernel_times.append(timer.gpu_seconds(kernel, reps))
            except Exception as e:  # reported in its row; the other rows stand
                r["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    for r, kind, call, kernel, verify in plans:
        r["kind"] = kind
        if "error" in r:
            continue
        ufunc_times, kernel_times = times[id(r)]
        r["seconds"] = {"ufunc": statistics.median(ufunc_times), "kernel": statistics.median(kernel_times)}
        try:
            r["ok"] = {"ufunc": bool(verify())}
        except Exception as e:
            r["ok"] = {"ufunc": False}
            r["error"] = f"check: {type(e).__name__}: {e}"
    return [p[0] for p in plans]


def print_kind_rows(rows):
    print(f"{'kind':7} {'workload':52} {'ufunc GB/s':>11} {'kernel GB/s':>12} {'ufunc/kernel':>13}  check")
    for r in rows:
        if "seconds" not in r or "error" in r:
            print(f"{r['kind']:7} {r['what'][:52]:52} not measured: {r.get('error', '?')}")
            continue
        u, k = r["amount"] / r["seconds"]["ufunc"], r["amount"] / r["seconds"]["kernel"]
        r["figures"] = {"ufunc": u, "kernel": k, "ratio": u / k}
        check = "ok" if all(r["ok"].values()) else "WRONG"
        flag = "" if u / k >= 0.9 else "  (below the 0.9 target)"
        print(f"{r['kind']:7} {r['what'][:52]:52} {u:11.1f} {k:12.1f} {u / k:13.3f}  [{check}]{flag}")


# ---------------------------------------------------------------------------------------------------------


def problem_sizes(backend, quick):
    if backend == "cpu":  # the CPU backend runs every GPU thread on the host: small problems
        return {"reduce": 1 << 20, "matmul": 64, "elementwise": 1 << 18, "small": 1024, "blur": (2, 64, 64),
                "smoothing": (512, 64)}
    if quick:
        return {"reduce": 1 << 22, "matmul": 512, "elementwise": 1 << 20, "small": 1024, "blur": (8, 256, 256),
                "smoothing": (4096, 256)}
    return {"reduce": 1 << 26, "matmul": 2048, "elementwise": 10_000_000, "small": 1024, "blur": (64, 512, 512),
            "smoothing": (20_000, 1_000)}


def print_rows(rows, peer_names):
    names = [p for p in peer_names]
    print(f"{'section':10} {'workload':48} {'unit':8} " + " ".join(f"{p:>14}" for p in names) + "  ratios, checks")
    for r in rows:
        cells, figures = [], {}
        for p in names:
            s = r["seconds"].get(p)
            if s is None:
                cells.append(f"{'-':>14}")
                continue
            figures[p] = s * 1e6 if r["amount"] is None else r["amount"] / s
            cells.append(f"{figures[p]:14.2f}")
        ratios = []
        ours = figures.get("gpujit")
        if r["amount"] is None:  # a cost: gpujit minus each peer, in the row's unit
            ratios = [f"gpujit - {p}: {ours - v:+.2f} us" for p, v in figures.items() if p != "gpujit" and ours]
        elif ours:
            ratios = [f"gpujit/{p} {ours / v:.3f}" for p, v in figures.items() if p != "gpujit" and v]
        r["figures"] = figures
        bad = [p for p, ok in r["ok"].items() if not ok]
        check = "ok" if not bad else f"WRONG: {', '.join(bad)}"
        print(f"{r['section']:10} {r['what'][:48]:48} {r['unit']:8} " + " ".join(cells) + "  " + "; ".join(ratios)
              + f"  [{check}]" + (f"  ({r['note']})" if r.get("note") else ""))


# gpu.reduce's launch settings (python/gpujit/reduction.py) tried one after another in one process, each
# next to cp.sum timed right after it: (threads per block, blocks per multiprocessor, 16-byte vectors per step).
# The first rows are the ones reduction.py's comment quotes; the last is its element-wise kernel, reached
# through a view that starts one element in (not 16-byte aligned).
SWEEP = [(256, 4, 2), (256, 6, 2), (256, 8, 2), (256, 4, 4), (256, 6, 4), (512, 3, 2), (128, 12, 2)]


def reduce_sweep(sizes, reps):
    from gpujit import reduction

    x = np.random.default_rng(0).random(sizes["reduce"], dtype=np.float32)
    d, res = gpu.to_device(x), gpu.device_array(1, np.float32)
    mine, cupy = gpujit_peer(), cupy_peer()
    c = cupy.to_device(x)
    saved = reduction._THREADS, reduction._BLOCKS_PER_SM, reduction._VECTORS_PER_STEP
    gb = x.nbytes / 1e9
    print(f"gpu.reduce settings, sum of {x.size} float32 with the result on the device, in GB/s")
    print(f"{'threads':>7} {'blocks/SM':>9} {'vectors/step':>12} {'gpujit':>8} {'cp.sum':>8} {'ratio':>6}")
    try:
        # The sweep's rows, then the settings in use on the element-wise kernel (the view d[1:]).
        for (threads, per_sm, vectors), array in [(row, d) for row in SWEEP] + [(saved, d[1:])]:
            reduction._THREADS, reduction._BLOCKS_PER_SM, reduction._VECTORS_PER_STEP = threads, per_sm, vectors
            total = gpu.reduce(lambda a, b: a + b)  # a new object: its kernels are generated again
            ours = mine.gpu_seconds(lambda: total(array, res=res), reps)
            theirs = cupy.gpu_seconds(lambda: cupy.module.sum(c), reps)
            kind = "elementwise" if array is not d else str(vectors)
            print(f"{threads:>7} {per_sm:>9} {kind:>12} {gb / ours:8.1f} {gb / theirs:8.1f} {theirs / ours:6.3f}")
    finally:
        reduction._THREADS, reduction._BLOCKS_PER_SM, reduction._VECTORS_PER_STEP = saved


def print_reduce_ratios(rows, sizes):
    """gpu.reduce over cp.sum, the result on the device and on the host (reduce_section's two rows)."""
    for r, where in zip(rows[:2], ("result on the device", "result to the host")):
        f = r.get("figures", {})
        if "gpujit" in f and "cupy" in f:
            print(f"gpu.reduce of {sizes['reduce']} float32 over cp.sum, {where}: {f['gpujit'] / f['cupy']:.3f} "
                  "(target: at least 1.0)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write every figure here as JSON")
    ap.add_argument("--quick", action="store_true", help="smaller problems (a smoke test, not a measurement)")
    ap.add_argument("--reps", type=int, default=20, help="calls per timed round")
    ap.add_argument("--calls", type=int, default=5000, help="asynchronous calls per round of the per-call cost")
    ap.add_argument("--array-kinds", action="store_true",
                    help="only the ufuncs on gpujit, CuPy and PyTorch arrays against their kernels (section 4)")
    ap.add_argument("--reduce", action="store_true",
                    help="only gpu.reduce against cp.sum and numba-cuda's reduce, result on the device and on the host")
    ap.add_argument("--reduce-sweep", action="store_true",
                    help="only gpu.reduce's launch settings against cp.sum (how reduction.py's were chosen; GPU)")
    args = ap.parse_args()

    device = gpu.get_current_device()
    backend = device.backend
    sizes = problem_sizes(backend, args.quick)
    reps, calls = (args.reps, args.calls) if backend == "cuda" else (3, 200)
    if args.reduce_sweep:
        if backend != "cuda":
            sys.exit("--reduce-sweep compares against CuPy and needs a GPU")
        reduce_sweep(sizes, reps)
        return
    if args.array_kinds:
        krows = array_kinds_section(sizes, reps)
        print_kind_rows(krows)
        if any(not ok for r in krows for ok in r["ok"].values()):
            sys.exit("a workload computed a wrong result")
        return
    peers = [gpujit_peer()]
    if backend == "cuda":
        for make in (numba_peer, cupy_peer):
            try:
                peers.append(make())
            except Exception as e:  # a missing peer is reported, not fatal: gpujit's figures still stand
                print(f"{make.__name__[:-5]}: not measured ({type(e).__name__}: {e})", file=sys.stderr)
    else:
        print(f"no GPU: gpujit alone on the {backend} backend with small problems (a smoke test, not a measurement)")
    print(f"device: {device.name} ({backend}); peers: {', '.join(p.name for p in peers)}")

    rows = reduce_section(peers, sizes, reps)
    if args.reduce:
        print_rows(rows, [p.name for p in peers])
        print_reduce_ratios(rows, sizes)
        if any(not ok for r in rows for ok in r["ok"].values()):
            sys.exit("a workload computed a wrong result")
        return
    rows += tutorial_section(peers, sizes, reps)
    print_rows(rows, [p.name for p in peers])
    vrows = vectorize_section(peers, sizes, reps, calls)
    print_rows(vrows, ["gpujit", "gpujit kernel"] + [p.name for p in peers[1:]])
    for r in vrows:
        f = r.get("figures", {})
        if "gpujit" in f and "gpujit kernel" in f:
            if r["amount"] is None:
                print(f"vectorize call over the kernel's launch: {f['gpujit'] - f['gpujit kernel']:+.2f} us "
                      "(target: at most +2 us)")
            elif r["what"].startswith("sigmoid"):
                print(f"vectorize throughput: {f['gpujit'] / f['gpujit kernel']:.3f} of the kernel's (target: 0.9)")
    krows = array_kinds_section(sizes, reps)
    print_kind_rows(krows)
    vrows += krows
    print_reduce_ratios(rows, sizes)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device.name, "backend": backend, "sizes": sizes, "rows": rows + vrows}, f,
                      indent=1, default=str)
    if any(not ok for r in rows + vrows for ok in r["ok"].values()):
        sys.exit("a workload computed a wrong result")


if __name__ == "__main__":
    main()
