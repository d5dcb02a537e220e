"""Compile time through the Python package: source to PTX for every example kernel, next to numba-cuda.

For each `# gpujit-sig: KERNEL SIGNATURE` line in examples/*.py, a fresh `gpu.jit(kernel.py_func)` compiles
the kernel with `inspect_ptx(SIGNATURE)`, so every run takes the whole path a new kernel takes (source
extraction, free names, parse, sema, LLVM, PTX), with no specialization reused. The median over --repeat
runs is reported per kernel, and the first compile of the process on its own (it also sets up LLVM and loads
libdevice). When numba-cuda is importable, `numba.cuda.compile_ptx` compiles the same kernels in the same
run (the examples' `import gpujit as gpu` becomes `from numba import cuda as gpu`), and the ratio is shown:
PERFORMANCE.md's target is at most 1/5 of numba-cuda's time for a new kernel.

    .venv/bin/python benchmarks/compile_time_examples.py [--repeat 20] [--json OUT.json] [--no-numba] [FILES...]

The C++ benchmark benchmarks/compile_time.cpp measures the same path without Python, stage by stage.
"""
import argparse
import json
import re
import runpy
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIG_LINE = re.compile(r"^# gpujit-sig:\s+(\w+)\s+(.+?)\s*$", re.MULTILINE)


def kernels_in(path):
    return [(m.group(1), m.group(2)) for m in SIG_LINE.finditer(path.read_text())]


def timed_ms(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0


def gpujit_compiler(path):
    """A function (kernel, sig) -> ms that compiles the kernel of `path` afresh with gpujit."""
    import gpujit as gpu

    module = runpy.run_path(str(path), run_name="gpujit_compile_time")

    def compile_once(kernel, sig):
        fresh = gpu.jit(module[kernel].py_func)
        return timed_ms(lambda: fresh.inspect_ptx(sig))

    return compile_once


def numba_compiler(path):
    """The same with numba-cuda's compile_ptx, or None when numba-cuda cannot be imported."""
    import numpy as np

    # numba-cuda still uses names NumPy 2.5 removed (PERFORMANCE.md); put them back before importing it.
    for old, new in (("row_stack", "vstack"), ("trapz", "trapezoid"), ("in1d", "isin")):
        if not hasattr(np, old) and hasattr(np, new):
            setattr(np, old, getattr(np, new))
    try:
        from numba import cuda
    except ImportError:
        return None
    source = path.read_text().replace("import gpujit as gpu", "from numba import cuda as gpu")
    namespace = {"__name__": "numba_compile_time", "__file__": str(path)}
    exec(compile(source, str(path), "exec"), namespace)

    def compile_once(kernel, sig):
        return timed_ms(lambda: cuda.compile_ptx(namespace[kernel].py_func, sig))

    return compile_once


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="files with gpujit-sig lines (default: examples/)")
    parser.add_argument("-n", "--repeat", type=int, default=20, help="timed compiles per kernel (default 20)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--no-numba", action="store_true", help="do not measure numba-cuda")
    args = parser.parse_args()
    files = args.files or sorted((ROOT / "examples").glob("*.py"))

    results = {"repeat": args.repeat, "kernels": {}}
    first = True
    print(f"compile time, source to PTX, median of {args.repeat} fresh compiles (ms)")
    print(f"{'kernel':<16} {'gpujit':>8} {'numba-cuda':>11} {'ratio':>7}")
    for path in files:
        ours = gpujit_compiler(path)
        peer = None if args.no_numba else numba_compiler(path)
        for kernel, sig in kernels_in(path):
            if first:
                results["first_compile_ms"] = ours(kernel, sig)
                print(f"{kernel:<16} {results['first_compile_ms']:>8.2f}   (first compile of the process)")
                first = False
            ours(kernel, sig)  # warm-up
            gpujit_ms = statistics.median(ours(kernel, sig) for _ in range(args.repeat))
            entry = {"signature": sig, "gpujit_ms": gpujit_ms}
            line = f"{kernel:<16} {gpujit_ms:>8.2f}"
            if peer is not None:
                peer(kernel, sig)
                numba_ms = statistics.median(peer(kernel, sig) for _ in range(args.repeat))
                entry["numba_cuda_ms"] = numba_ms
                line += f" {numba_ms:>11.2f} {numba_ms / gpujit_ms:>6.1f}x"
            else:
                line += f" {'-':>11} {'-':>7}"
            results["kernels"][kernel] = entry
            print(line)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
