"""The launch path's host cost without a GPU: launches against the fake CUDA driver, by argument shape.

    python benchmarks/launch_fake_driver.py [--n 200000]
    python benchmarks/launch_fake_driver.py --instructions

The fake driver (tests/unit/runtime/fake_driver/*.cpp, built here with g++ if needed) runs no kernel,
but it records each launch's parameters, so a figure here is gpujit's launch path (configuration lookup,
argument classification, specialization lookup, packing) plus that recording, with no driver or GPU time.
It needs no GPU. Prints microseconds per launch, the best of 3 rounds of N launches; with --instructions,
instructions per launch instead, counted by valgrind's callgrind (each shape run at two N, the difference
divided by the extra launches, so start-up and compiles cancel out). Instruction counts do not drift with
the machine's load: they are the way to compare two versions of the launch path on a development machine
(point PYTHONPATH at the other version's package). valgrind must be installed, and it cannot read the
debug information of an unstripped libgpujit_core.so: use the installed package, which is stripped.
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHAPES = {"0 args": (0, 0), "3 arrays": (3, 0), "16 arrays": (16, 0), "16 scalars": (0, 16),
          "256 scalars": (0, 256)}


def fake_driver():
    out = ROOT / "build" / "fakecuda" / "libfakecuda.so"
    folder = ROOT / "tests" / "unit" / "runtime" / "fake_driver"
    sources = sorted(folder.glob("*.cpp"))
    newest = max(p.stat().st_mtime for p in [*sources, *folder.glob("*.h"), ROOT / "runtime" / "cuda_api.h"])
    if not out.exists() or out.stat().st_mtime < newest:
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["g++", "-std=c++17", "-O1", "-shared", "-fPIC", f"-I{ROOT}", *map(str, sources), "-o",
                        str(out)], check=True)
    return out


def instructions_per_launch(shape, small=2000, large=22000):
    return callgrind_per_op(__file__, shape, small, large)


def callgrind_per_op(script, shape, small, large):
    """Instructions per operation of `script --only SHAPE`, from two callgrind runs of `small` and `large`
    operations (the difference cancels the process' start); allocation_fake_driver.py uses it too."""
    totals = []
    for n in (small, large):
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, script,
               "--only", shape, "--n", str(n), "--rounds", "1"]
        # NumPy's OpenBLAS threads spin for as long as the process runs, which would add its wall time. The
        # compiler's warm-up threads (compiler/warm_up.h) are counted too, and how much of their work a run
        # does depends on timing (a code generator prepared or not before exit): off, so the two runs cancel.
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", GPUJIT_WARM_UP="0")
        out = subprocess.run(cmd, capture_output=True, text=True, env=env)
        refs = [line for line in out.stderr.splitlines() if "I   refs:" in line]
        if out.returncode != 0 or not refs:
            sys.exit(f"callgrind failed for {shape!r}:\n{out.stderr[-2000:]}")
        totals.append(int(refs[-1].split()[-1].replace(",", "")))
    return (totals[1] - totals[0]) / (large - small)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200000, help="launches per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of N launches; the best is printed")
    parser.add_argument("--only", choices=list(SHAPES), help="time one shape only")
    parser.add_argument("--instructions", action="store_true", help="count instructions per launch (callgrind)")
    args = parser.parse_args()
    if args.instructions:
        print(f"{'arguments':<12} {'instructions per launch (fake driver)':>38}")
        for name in SHAPES:
            if not args.only or name == args.only:
                print(f"{name:<12} {instructions_per_launch(name):>38.0f}")
        return
    os.environ["GPUJIT_CUDA_DRIVER"] = str(fake_driver())
    import numpy as np

    import gpujit as gpu

    gpu._core._set_backend("cuda")
    # gpujit compiles from source text, so the kernels live in a real file.
    lines = ["import gpujit as gpu\n"]
    for i, (na, ns) in enumerate(SHAPES.values()):
        params = [f"a{j}" for j in range(na)] + [f"s{j}" for j in range(ns)]
        lines.append(f"@gpu.jit\ndef k{i}({', '.join(params)}):\n    pass\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fake_launch_kernels.py"
        path.write_text("\n".join(lines))
        spec = importlib.util.spec_from_file_location("fake_launch_kernels", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        arrays = [gpu.to_device(np.zeros(1024, np.float32)) for _ in range(16)]
        print(f"{'arguments':<12} {'us per launch (fake driver)':>28}")
        for i, (name, (na, ns)) in enumerate(SHAPES.items()):
            if args.only and name != args.only:
                continue
            # A tuple: `k[...](*t)` hands the tuple's items to the launcher as they are, as a call with the
            # arguments written out does; `*list` would copy a tuple per launch, the caller's cost, not ours.
            k, call_args = getattr(mod, f"k{i}"), tuple(arrays[:na] + [1.0] * ns)
            launch = lambda: k[1, 32](*call_args)
            launch()
            best = float("inf")
            for _ in range(args.rounds):
                t = time.perf_counter()
                for _ in range(args.n):
                    launch()
                best = min(best, (time.perf_counter() - t) / args.n)
            print(f"{name:<12} {best * 1e6:>28.3f}")


if __name__ == "__main__":
    sys.exit(main())
