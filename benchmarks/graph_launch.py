"""Launch cost per kernel of a replayed graph, next to the same kernels launched one by one, in one run.

Usage: python benchmarks/graph_launch.py [--json OUT.json] [--reps R] [--sizes 1,10,100]

For each N in --sizes it captures N launches of an empty kernel with one device array (`with gpu.graph():`)
and times R replays of the graph (g.launch()) against R rounds of the same N launches made one by one, each
followed by one synchronize; the best of 3 such rounds, in microseconds per kernel and per graph launch.
Where benchmarks/launch_floor.cpp builds (a CUDA toolkit and a real GPU), the C++ cuLaunchKernel loop's
figure for one array ("floor 1 array", a process of its own) is printed beside them: the floor of launching
kernels one by one, which a graph's per-kernel cost can go below.

It runs on whatever backend a launch uses here (a GPU, or with GPUJIT_CUDA_DRIVER=build/fakecuda/libfakecuda.so
the fake driver, where a figure is the host's cost alone; `--backend cpu` for the CPU backend). scripts/gpu-test
runs it with --bench.
"""

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


def best_us(fn, sync, repeat=3):
    fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t)
    return best * 1e6


def floor_one_array():
    """The C++ floor for one array argument, from launch_overhead.py's helpers; None where it cannot run."""
    if "libfakecuda" in os.environ.get("GPUJIT_CUDA_DRIVER", ""):
        return None
    spec = importlib.util.spec_from_file_location("launch_overhead", HERE / "launch_overhead.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            module.bench_floor(results, tmp)
        except Exception:
            return None
    return results.get("floor 1 array")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--reps", type=int, default=2000, help="graph launches (and rounds of N launches) per timing")
    parser.add_argument("--sizes", default="1,10,100", help="kernels per graph, comma-separated")
    parser.add_argument("--backend", choices=["cuda", "cpu"], help="the backend to use (default: gpujit's choice)")
    args = parser.parse_args()

    import numpy as np
    import warnings

    import gpujit as gpu

    warnings.simplefilter("ignore", gpu.PerformanceWarning)
    if args.backend:
        gpu._core._set_backend(args.backend)
    # gpujit compiles from source text, so the kernel lives in a real file.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "graph_launch_kernels.py"
        path.write_text("import gpujit as gpu\n\n@gpu.jit\ndef empty(a):\n    pass\n")
        spec = importlib.util.spec_from_file_location("graph_launch_kernels", path)
        kernels = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(kernels)
        empty = kernels.empty
        a = gpu.to_device(np.zeros(16, np.float32))
        launcher = empty[1, 32]
        launcher(a)
        gpu.synchronize()

        device = gpu.get_current_device()
        results = {"device": device.name, "backend": gpu._core.backend_name(), "reps": args.reps}
        print(f"graph launch cost on {device.name} ({results['backend']}), best of 3 rounds of {args.reps}")
        print(f"{'kernels':>8} {'one by one us/kernel':>21} {'graph us/kernel':>16} {'graph us/launch':>16} {'ratio':>6}")
        for n in [int(s) for s in args.sizes.split(",")]:
            with gpu.graph() as g:
                for _ in range(n):
                    launcher(a)
            assert g.kernel_count == n

            def one_by_one():
                for _ in range(args.reps):
                    for _ in range(n):
                        launcher(a)

            def replay():
                for _ in range(args.reps):
                    g.launch()

            single = best_us(one_by_one, gpu.synchronize) / (args.reps * n)
            graph = best_us(replay, gpu.synchronize) / args.reps
            g.close()
            results[f"{n} one by one us/kernel"] = round(single, 3)
            results[f"{n} graph us/kernel"] = round(graph / n, 3)
            results[f"{n} graph us/launch"] = round(graph, 3)
            print(f"{n:>8} {single:>21.3f} {graph / n:>16.3f} {graph:>16.3f} {graph / n / single:>6.2f}")
    floor = floor_one_array()
    if floor:
        results["floor 1 array us/kernel"] = floor
        print(f"C++ cuLaunchKernel floor, 1 array, one by one: {floor} us/kernel")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
