"""gpujit's CPU backend against numba's CUDA simulator, on the same kernels and sizes, in one run.

Both run a kernel's grid on the host without a GPU: numba's simulator (NUMBA_ENABLE_CUDASIM=1) interprets
each CUDA thread as a Python thread; gpujit compiles the kernel with LLVM for the host and runs the threads
of a block as fibers. The kernels are written once, in the numba-cuda API, and bound to `cuda` = numba.cuda
for the simulator and `cuda` = gpujit for gpujit. Timings are wall-clock medians of whole launches on device
arrays (compilation excluded: each kernel runs once first), results are checked against NumPy, and the
ratio simulator / gpujit is the figure this benchmark is for (the target is at least 1000x).

    PYTHONPATH=<dir holding the gpujit package> python benchmarks/cpu_vs_simulator.py [--repeat 5]

Needs numba (Debian's python3-numba or `pip install numba`) next to gpujit. The sizes are small because the
simulator is slow; --large adds gpujit-only runs at sizes where throughput means something.
"""

import argparse
import linecache
import os
import statistics
import sys
import time

# Both must be decided before the packages are imported.
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
os.environ["GPUJIT_DEVICE"] = "cpu"

import numpy as np  # noqa: E402

KERNELS = '''
import numpy as np

TPB = 16

@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

@cuda.jit
def block_sum(a, out):
    sh = cuda.shared.array(256, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < a.size:
        sh[t] = a[i]
    else:
        sh[t] = 0.0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sh[0]

@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), np.float32)
    sB = cuda.shared.array((TPB, TPB), np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tmp = np.float32(0.0)
    for i in range(cuda.gridDim.x):
        sA[ty, tx] = 0.0
        sB[ty, tx] = 0.0
        if y < A.shape[0] and tx + i * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and ty + i * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp
'''


def load_kernels(cuda_module, tag):
    """Runs KERNELS with `cuda` bound to `cuda_module`; returns its namespace. The text is registered with
    linecache under a file name of its own, so gpujit can read each kernel's source back."""
    filename = f"<cpu_vs_simulator:{tag}>"
    linecache.cache[filename] = (len(KERNELS), None, KERNELS.splitlines(True), filename)
    namespace = {"cuda": cuda_module, "__name__": f"kernels_{tag}"}
    exec(compile(KERNELS, filename, "exec"), namespace)
    return namespace


def median_time(fn, repeat):
    fn()  # warm-up: compiles (gpujit) or builds its caches (simulator)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cases(n_vec, n_sum, n_mat):
    rng = np.random.default_rng(7)
    a = rng.random(n_vec, dtype=np.float32)
    b = rng.random(n_vec, dtype=np.float32)
    s = rng.random(n_sum, dtype=np.float32)
    A = rng.random((n_mat, n_mat), dtype=np.float32)
    B = rng.random((n_mat, n_mat), dtype=np.float32)
    blocks_vec = (n_vec + 255) // 256
    blocks_sum = (n_sum + 255) // 256
    tiles = (n_mat + 15) // 16

    def vector_add(k, cuda):
        d_a, d_b, d_out = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n_vec, np.float32)
        run = lambda: (k["vector_add"][blocks_vec, 256](d_a, d_b, d_out), cuda.synchronize())  # noqa: E731
        check = lambda: np.testing.assert_array_equal(d_out.copy_to_host(), a + b)  # noqa: E731
        return run, check

    def block_sum(k, cuda):
        d_s, d_out = cuda.to_device(s), cuda.device_array(blocks_sum, np.float32)
        run = lambda: (k["block_sum"][blocks_sum, 256](d_s, d_out), cuda.synchronize())  # noqa: E731
        padded = np.zeros(blocks_sum * 256, np.float32)
        padded[:n_sum] = s
        want = padded.reshape(blocks_sum, 256).sum(axis=1, dtype=np.float64)
        check = lambda: np.testing.assert_allclose(d_out.copy_to_host(), want, rtol=1e-5)  # noqa: E731
        return run, check

    def matmul(k, cuda):
        d_A, d_B, d_C = cuda.to_device(A), cuda.to_device(B), cuda.device_array((n_mat, n_mat), np.float32)
        run = lambda: (k["matmul"][(tiles, tiles), (16, 16)](d_A, d_B, d_C), cuda.synchronize())  # noqa: E731
        check = lambda: np.testing.assert_allclose(d_C.copy_to_host(), A @ B, rtol=1e-4)  # noqa: E731
        return run, check

    return [
        (f"vector add, {n_vec} float32", vector_add, 3 * 4 * n_vec, "GB/s"),
        (f"shared-memory block sum, {n_sum} float32", block_sum, 4 * n_sum, "GB/s"),
        (f"tiled 16x16 matmul, {n_mat}x{n_mat} float32", matmul, 2 * n_mat**3, "GFLOP/s"),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per kernel and runner (median)")
    parser.add_argument("--large", action="store_true", help="also time gpujit alone at larger sizes")
    parser.add_argument("--no-simulator", action="store_true",
                        help="time gpujit alone at the small sizes (to compare two gpujit builds quickly)")
    parser.add_argument("--sum-size", type=int, default=16384,
                        help="with --no-simulator: float32 elements of the block sum (1<<22 makes it barrier-bound: "
                             "16384 blocks of 256 fibers, 9 barriers each)")
    args = parser.parse_args()

    import gpujit

    if args.no_simulator:
        ours = load_kernels(gpujit, "gpujit")
        for name, make, _, _ in cases(n_vec=16384, n_sum=args.sum_size, n_mat=64):
            run, check = make(ours, gpujit)
            run()
            t = median_time(run, args.repeat)
            check()
            print(f"{name:45} {t * 1e6:11.1f} us")
        return

    from numba import cuda as numba_cuda

    device = gpujit.get_current_device()
    if device.name != "cpu":
        sys.exit(f"gpujit picked device {device!r}, not the cpu backend")
    sim = load_kernels(numba_cuda, "simulator")
    ours = load_kernels(gpujit, "gpujit")

    print(f"gpujit cpu backend vs numba {__import__('numba').__version__} CUDA simulator, "
          f"median of {args.repeat} runs (seconds); gpujit on {os.cpu_count()} host cpus")
    print(f"{'kernel':45} {'simulator':>11} {'gpujit':>11} {'speed-up':>10}")
    # gpujit first: the simulator leaves Python threads behind, and a launch that hands the GIL back must
    # then wait for it.
    small = cases(n_vec=16384, n_sum=16384, n_mat=64)
    ours_times = []
    for name, make, _, _ in small:
        run, check = make(ours, gpujit)
        ours_times.append(median_time(run, args.repeat))
        check()
    for (name, make, _, _), t_ours in zip(small, ours_times):
        run, check = make(sim, numba_cuda)
        t_sim = median_time(run, max(1, min(args.repeat, 3)))
        check()
        print(f"{name:45} {t_sim:11.4f} {t_ours:11.6f} {t_sim / t_ours:9.0f}x")

    if args.large:
        print()
        print("gpujit alone, larger sizes")
        for name, make, work, unit in cases(n_vec=1 << 24, n_sum=1 << 24, n_mat=512):
            run, check = make(ours, gpujit)
            t = median_time(run, args.repeat)
            check()
            print(f"{name:45} {t:11.4f} s  {work / t / 1e9:8.2f} {unit}")


if __name__ == "__main__":
    main()
