"""Launch overhead of gpujit next to numba-cuda, CuPy and a C++ cuLaunchKernel loop, in one run.

Usage: python benchmarks/launch_overhead.py [--json OUT.json] [--n 20000] [--pin CPU]

For each argument shape of PERFORMANCE.md's table (0 args, 1/3/16 device arrays, 16 and 256 float scalars,
3 CuPy arrays, 3 torch tensors) it times an empty kernel: the best of 3 rounds of N asynchronous launches
followed by one synchronize, in microseconds per launch. For our own arrays, CuPy arrays and torch tensors
it also times the launch path's reading of 3 such arguments alone (`gpujit._core._argument_read_ns`: no
lookup, packing or launch), which the driver's drift does not touch, and, for foreign arrays, the library's
own calls within that read (`gpujit._core._library_read_ns`: CuPy's getters, PyTorch's DLPack exchange
function), which is the part of a foreign array's cost that is the library's, and that read in parts
(`gpujit._core._foreign_read_breakdown_ns`: the readers, the library's calls within them, the key codes, the
argument scope and the classification's own dispatch). The floor is the same loop in C++
straight on the driver (benchmarks/launch_floor.cpp, built here with the CUDA toolkit), run as a program of its
own and, loaded as a library, in this process in rounds alternating with gpujit's (the "in one process"
ratios, which the drift between processes does not touch). Also measured:
`import gpujit` in a fresh interpreter (median of 5) next to bare Python, numba-cuda and CuPy. Peers that
are not installed are left out. Prints a table with gpujit's ratio to the floor and writes every figure as JSON.

The GPU machines drift: one configuration timed 3.83 and 4.58 us within a single run. So foreign arrays are
compared with our own in alternating short rounds (median of the differences), and --pin CPU runs the whole
process on one CPU for those who want to try that too (it did not make runs agree better here).
"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

SHAPES = {"0 args": (0, 0), "1 array": (1, 0), "3 arrays": (3, 0), "16 arrays": (16, 0),
          "16 scalars": (0, 16), "256 scalars": (0, 256)}
# gpujit's targets (issue 16, PERFORMANCE.md's second round), as a multiple of the C++ floor.
TARGETS = {"0 args": 1.1, "1 array": 1.1, "3 arrays": 1.1, "16 arrays": 1.1, "16 scalars": 1.1, "256 scalars": 1.5}

# NumPy 2.5 removed names numba-cuda 0.30 still uses.
NUMPY_SHIM = ("import numpy as _np\n"
              "for _n, _v in (('row_stack', 'vstack'), ('trapz', 'trapezoid'), ('in1d', 'isin')):\n"
              "    if not hasattr(_np, _n) and hasattr(_np, _v): setattr(_np, _n, getattr(_np, _v))\n")


def per_launch_us(fn, sync, n, repeat=3):
    fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t) / n)
    return round(best * 1e6, 3)


def kernel_source(module, na, ns):
    params = [f"a{i}" for i in range(na)] + [f"s{i}" for i in range(ns)]
    return f"@{module}.jit\ndef k({', '.join(params)}):\n    pass\n"


def load_gpujit_kernels(tmp):
    """gpujit compiles from source text, so the kernels live in a real file."""
    lines = ["import gpujit as gpu\n"]
    for i, (na, ns) in enumerate(SHAPES.values()):
        lines.append(kernel_source("gpu", na, ns).replace("def k(", f"def k{i}("))
    path = Path(tmp) / "gpujit_launch_kernels.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("gpujit_launch_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [getattr(mod, f"k{i}") for i in range(len(SHAPES))]


def bench_gpujit(n, results, tmp):
    import numpy as np

    import gpujit as gpu

    kernels = load_gpujit_kernels(tmp)
    dev = gpu.to_device(np.zeros(1024, np.float32))
    for (name, (na, ns)), k in zip(SHAPES.items(), kernels):
        # A tuple, as for CuPy below: `*tuple` hands its items over as a call with the arguments written out
        # does, while `*list` copies a tuple per launch (for 256 scalars about 4,000 instructions, the caller's).
        args = tuple([dev] * na + [1.0] * ns)
        results[f"gpujit {name}"] = per_launch_us(lambda: k[1, 32](*args), gpu.synchronize, n)
    bench_paired(n, results, tmp, kernels, gpu, dev)
    k3 = kernels[2]
    cfg = k3[1, 32]
    results["gpujit 3 arrays, configured once"] = per_launch_us(lambda: cfg(dev, dev, dev), gpu.synchronize, n)
    # Foreign arrays: timed in short rounds alternating with rounds of our own arrays through the same
    # launcher expression, and the median of the per-round differences kept. Importing and initializing
    # CUDA in torch or CuPy changes what a launch costs for everybody, and the machines drift by a microsecond
    # over seconds, so only a difference taken at the same moment says what the foreign array costs.
    # Three distinct arrays of each kind, as a real launch has (a cache keyed on the object would flatter a
    # launch that passes one array three times).
    mine = [gpu.to_device(np.zeros(1024, np.float32)) for _ in range(3)]

    def foreign(label, xs):
        own = lambda: k3[1, 32](*mine)
        theirs = lambda: k3[1, 32](*xs)
        rounds, m = 21, max(n // 10, 100)
        pairs = []
        for _ in range(rounds):
            a = per_launch_us(own, gpu.synchronize, m, repeat=1)
            b = per_launch_us(theirs, gpu.synchronize, m, repeat=1)
            c = per_launch_us(own, gpu.synchronize, m, repeat=1)
            pairs.append((b, (a + c) / 2))
        results[f"gpujit 3 {label}"] = statistics.median(b for b, _ in pairs)
        results[f"gpujit 3 arrays, next to {label}"] = statistics.median(o for _, o in pairs)
        results[f"gpujit 3 {label}, extra"] = statistics.median(b - o for b, o in pairs)

    # Reading the arguments alone (no lookup, packing or launch), in ns per launch of 3 arguments: what a
    # foreign array costs the launch path itself, free of the driver's drift.
    def reads(label, xs):
        best = min(gpu._core._argument_read_ns(tuple(xs), max(n * 5, 1000)) for _ in range(5))
        results[f"read ns: 3 {label}"] = round(best, 1)
        if xs is not mine:
            # The library's own calls within that read (its getters, or its DLPack exchange function).
            best = min(gpu._core._library_read_ns(tuple(xs), max(n * 5, 1000)) for _ in range(5))
            results[f"library ns: 3 {label}"] = round(best, 1)
            # Where the read's time goes (each part's best of 5): the readers alone ("view", which holds the
            # library's calls), each view's key code ("code"), the argument scope ("scope").
            parts = [gpu._core._foreign_read_breakdown_ns(tuple(xs), max(n * 5, 1000)) for _ in range(5)]
            for part in ("classify", "scope", "view", "library", "code"):
                results[f"read parts ns: 3 {label}: {part}"] = round(min(p[part] for p in parts), 1)

    reads("arrays", mine)
    try:
        import cupy as cp

        theirs = [cp.zeros(1024, cp.float32) for _ in range(3)]
        foreign("cupy arrays", theirs)
        reads("cupy arrays", theirs)
    except ImportError:
        pass
    try:
        import torch

        if torch.cuda.is_available():
            theirs = [torch.zeros(1024, device="cuda") for _ in range(3)]
            foreign("torch tensors", theirs)
            reads("torch tensors", theirs)
            if hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
                # The same tensors read through their attributes, as for a PyTorch without the C exchange API.
                gpu._core._use_exchange_api(False)
                reads("torch tensors by attributes", theirs)
                gpu._core._use_exchange_api(True)
            counts = gpu._core._tensor_cache_counts()  # how the tensors were read: cache hits vs full reads
            print(f"torch tensor reads: {counts}")
    except ImportError:
        pass


def bench_numba(n, results):
    exec(NUMPY_SHIM, {})
    try:
        import numpy as np
        from numba import cuda
    except ImportError:
        return
    dev = cuda.to_device(np.zeros(1024, np.float32))
    for name, (na, ns) in SHAPES.items():
        ns_ = {"cuda": cuda}
        exec(kernel_source("cuda", na, ns), ns_)
        k = ns_["k"]
        args = [dev] * na + [1.0] * ns
        # numba-cuda is slow enough that fewer launches give the same precision.
        results[f"numba {name}"] = per_launch_us(lambda: k[1, 32](*args), cuda.synchronize, max(n // 4, 1000))


def bench_cupy(n, results):
    try:
        import cupy as cp
        import numpy as np
    except ImportError:
        return
    ca = cp.zeros(1024, cp.float32)
    sync = cp.cuda.Device().synchronize
    for name, (na, ns) in SHAPES.items():
        params = ", ".join([f"float* a{i}" for i in range(na)] + [f"float s{i}" for i in range(ns)])
        rk = cp.RawKernel(f'extern "C" __global__ void e({params}) {{}}', "e")
        args = tuple([ca] * na + [np.float32(1.0)] * ns)
        results[f"cupy {name}"] = per_launch_us(lambda: rk((1,), (32,), args), sync, n)


def build_floor(tmp, library=False):
    """benchmarks/launch_floor.cpp built with the CUDA toolkit, as a program or as a library to load here;
    None without a toolkit."""
    target = Path(tmp) / ("launch_floor.so" if library else "launch_floor")
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    build = ["g++", "-O2", "-std=c++17", str(HERE / "launch_floor.cpp"), f"-I{cuda_home}/include",
             f"-L{cuda_home}/lib64/stubs", "-lcuda", "-o", str(target)]
    if library:
        build[1:1] = ["-shared", "-fPIC", "-DGPUJIT_FLOOR_LIBRARY", f"-I{sysconfig.get_paths()['include']}"]
    return target if subprocess.run(build, capture_output=True).returncode == 0 else None


def bench_floor(results, tmp):
    """The C++ loop in a process of its own; skipped when there is no CUDA toolkit to build it."""
    exe = build_floor(tmp)
    if exe is None:
        return
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    if out.returncode == 0:
        for name, value in json.loads(out.stdout).items():
            results[f"floor {name}"] = value


def bench_paired(n, results, tmp, kernels, gpu, dev):
    """The floor's loop and gpujit's in alternating rounds in this one process, in the primary context
    gpujit launches in: the median of the per-round ratios. The separate-process figures can differ by the
    driver's drift between processes; these cannot."""
    import ctypes

    lib_path = build_floor(tmp, library=True)
    if lib_path is None:
        return
    try:
        lib = ctypes.CDLL(str(lib_path))
    except OSError:  # no CUDA driver library here (the fake driver's runs)
        return
    lib.gpujit_floor_round_us.restype = ctypes.c_double
    lib.gpujit_floor_round_us.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.gpujit_floor_init()
    # The same library as an extension module: its launch(shape) is the floor's cuLaunchKernel alone, called
    # from a Python loop as gpujit's launch is.
    spec = importlib.util.spec_from_file_location("launch_floor", lib_path)
    bare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bare)
    rounds, m = 31, max(n // 10, 100)
    for i, ((name, (na, ns)), k) in enumerate(zip(SHAPES.items(), kernels)):
        args = tuple([dev] * na + [1.0] * ns)
        launch = lambda: k[1, 32](*args)
        bare_launch = bare.launch
        from_python = lambda: bare_launch(i)
        ratios, floors, ours, pys = [], [], [], []
        for r in range(rounds):
            f = lib.gpujit_floor_round_us(i, m)
            # gpujit and the bare launcher take turns at going first, so a drift within a round (the
            # host's clock, the driver's queue) counts against each side in half the rounds.
            if r % 2 == 0:
                g = per_launch_us(launch, gpu.synchronize, m, repeat=1)
                p = per_launch_us(from_python, gpu.synchronize, m, repeat=1)
            else:
                p = per_launch_us(from_python, gpu.synchronize, m, repeat=1)
                g = per_launch_us(launch, gpu.synchronize, m, repeat=1)
            f2 = lib.gpujit_floor_round_us(i, m)
            floors.append((f + f2) / 2)
            ours.append(g)
            pys.append(p)
            ratios.append(g / floors[-1])
        results[f"paired floor {name}"] = round(statistics.median(floors), 3)
        results[f"paired gpujit {name}"] = round(statistics.median(ours), 3)
        results[f"paired ratio {name}"] = round(statistics.median(ratios), 3)
        results[f"paired python floor {name}"] = round(statistics.median(pys), 3)
        results[f"paired python ratio {name}"] = round(statistics.median(p / f for p, f in zip(pys, floors)), 3)
        # gpujit over the bare call: the median of the per-round differences (each round's two loops ran
        # back to back), and the quartiles of those differences, which say how far one run's figure can move.
        diffs = sorted(g - p for g, p in zip(ours, pys))
        q = statistics.quantiles(diffs, n=4)
        results[f"paired python over {name}"] = round(statistics.median(diffs), 3)
        results[f"paired python over quartiles {name}"] = [round(q[0], 3), round(q[2], 3)]


def import_times(results):
    def median_s(code, env=None):
        times = []
        for _ in range(5):
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env)
            times.append(time.perf_counter() - t)
            if r.returncode != 0:
                return None
        return round(statistics.median(times) * 1e3, 1)

    results["import ms: python"] = median_s("pass")
    results["import ms: gpujit"] = median_s("import gpujit")
    results["import ms: gpujit + numpy"] = median_s("import numpy, gpujit")
    results["import ms: numba-cuda"] = median_s(NUMPY_SHIM + "from numba import cuda")
    results["import ms: cupy"] = median_s("import cupy")
    for k in [k for k, v in results.items() if v is None]:
        del results[k]


def print_table(results):
    print(f"{'arguments':<14} {'floor':>8} {'gpujit':>8} {'ratio':>6} {'target':>7} {'cupy':>8} {'numba':>8}")
    for name in SHAPES:
        floor = results.get(f"floor {name}")
        ours = results.get(f"gpujit {name}")
        ratio = f"{ours / floor:.2f}" if floor and ours else "-"
        cells = [f"{results[k]:.2f}" if k in results else "-" for k in (f"cupy {name}", f"numba {name}")]
        print(f"{name:<14} {floor or '-':>8} {ours or '-':>8} {ratio:>6} {TARGETS[name]:>6}x {cells[0]:>8} {cells[1]:>8}")
    if "gpujit 3 arrays, configured once" in results:
        print(f"gpujit 3 arrays, configured once: {results['gpujit 3 arrays, configured once']:.2f} us")
    for label in ("cupy arrays", "torch tensors"):
        if f"gpujit 3 {label}" in results:
            theirs, ours = results[f"gpujit 3 {label}"], results[f"gpujit 3 arrays, next to {label}"]
            extra = results[f"gpujit 3 {label}, extra"]
            print(f"gpujit 3 {label}: {theirs:.2f} us, our own arrays around it {ours:.2f} us: "
                  f"+{extra:.2f} us, median of 21 alternating rounds (target: within 0.5 us, or the rest shown "
                  f"to be the library's)")
    read = {k[len("read ns: 3 "):]: v for k, v in results.items() if k.startswith("read ns: ")}
    if read:
        print("reading 3 arguments, no launch (ns): " + ", ".join(f"{k} {v:.0f}" for k, v in read.items()))
    own_read = results.get("read ns: 3 arrays")
    for label in ("cupy arrays", "torch tensors"):
        lib, full = results.get(f"library ns: 3 {label}"), results.get(f"read ns: 3 {label}")
        if lib is None or full is None or own_read is None:
            continue
        print(f"  3 {label}: the library's own calls {lib:.0f} ns of the {full:.0f} ns read; gpujit's part "
              f"{full - lib:.0f} ns, {full - lib - own_read:+.0f} ns over reading 3 of its own arrays")
        part = {p: results.get(f"read parts ns: 3 {label}: {p}")
                for p in ("classify", "scope", "view", "library", "code")}
        if None not in part.values():
            print(f"  3 {label}, the read in parts (ns): readers {part['view']:.0f} (the library's calls "
                  f"{part['library']:.0f} of it, gpujit's {part['view'] - part['library']:.0f}), key codes "
                  f"{part['code']:.0f}, argument scope {part['scope']:.0f}, the classification's dispatch "
                  f"{part['classify'] - part['view'] - part['code'] - part['scope']:.0f}")
        extra = results.get(f"gpujit 3 {label}, extra")
        if extra is not None:
            # The test: the launch's extra cost over our own arrays, less what the library's own calls
            # take (measured above, in this run), is what gpujit adds.
            ours = extra - lib / 1000
            print(f"  3 {label}: +{extra:.2f} us per launch, {lib / 1000:.2f} us of it the library's calls: "
                  f"gpujit's part +{ours:.2f} us (target 0.5 us: {'met' if ours <= 0.5 else 'not met'})")
    if any(k.startswith("paired ratio ") for k in results):
        print("in one process, floor and gpujit in 31 alternating rounds (median per-round ratio):")
        for name in SHAPES:
            if f"paired ratio {name}" in results:
                print(f"  {name:<14} floor {results[f'paired floor {name}']:>7.3f}  gpujit "
                      f"{results[f'paired gpujit {name}']:>7.3f}  ratio {results[f'paired ratio {name}']:.2f}  "
                      f"(target {TARGETS[name]}x)")
        print("  the floor's cuLaunchKernel alone, called from the same Python loop (launch_floor.launch(shape)):")
        for name in SHAPES:
            if f"paired python floor {name}" in results:
                py = results[f"paired python floor {name}"]
                over, (q1, q3) = results[f"paired python over {name}"], results[f"paired python over quartiles {name}"]
                print(f"  {name:<14} bare from Python {py:>7.3f}  ratio to the floor "
                      f"{results[f'paired python ratio {name}']:.2f}  gpujit over it {over:+.3f} us "
                      f"(median of per-round differences; quartiles {q1:+.3f} to {q3:+.3f})")
    for key in [k for k in results if k.startswith("import ms")]:
        print(f"{key}: {results[key]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--n", type=int, default=20000, help="launches per round")
    parser.add_argument("--pin", type=int, metavar="CPU", help="run the whole process on this one CPU")
    args = parser.parse_args()
    results = {}
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})
    with tempfile.TemporaryDirectory() as tmp:
        bench_floor(results, tmp)
        bench_gpujit(args.n, results, tmp)
        bench_cupy(args.n, results)
        bench_numba(args.n, results)
    import_times(results)
    print_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
