"""Where a new kernel's first call goes on the GPU: compiling to PTX, the driver's load of that PTX, the rest.

Usage: python benchmarks/compile_breakdown.py [--runs 5] [--json OUT.json]

compile_time.py times a first call whole (call to launch done, minus a second launch). This splits it, in one
warm process (a first kernel already compiled and launched), for the same three kernels: "ptx" is a fresh
dispatcher's inspect_ptx (source to PTX, nothing loaded), "load" the driver's cuModuleLoadData of that PTX
(ctypes, in the context gpujit made current), "first call" compile_time.py's figure, and "rest" what the first
call took beyond the two. The load is timed twice: as it comes (the driver's JIT cache in ~/.nv may already
hold the PTX's translation, as it will in compile_time.py's later processes) and in a child process with
CUDA_CACHE_DISABLE=1 (the translation itself). Medians of --runs, in ms; needs a GPU.
"""

import argparse
import atexit
import ctypes
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import gpujit as cuda


def kernel_functions(tmp):
    """compile_time.py's three kernels (vadd, bs, mm), as plain functions of a module in `tmp`: gpujit reads a
    kernel's source from its file, so each fresh cuda.jit below compiles them anew."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compile_time import WARM_KERNELS

    path = os.path.join(tmp, "breakdown_kernels.py")
    with open(path, "w") as f:
        f.write("import math\nimport numpy as np\nimport gpujit as cuda\nf32 = np.float32\n" + WARM_KERNELS)
    spec = importlib.util.spec_from_file_location("breakdown_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.vadd.py_func, module.bs.py_func, module.mm.py_func


def driver():
    lib = ctypes.CDLL(os.environ.get("GPUJIT_CUDA_DRIVER", "libcuda.so.1"))  # the fake driver too
    lib.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
    lib.cuModuleUnload.argtypes = [ctypes.c_void_p]
    return lib


def load_ms(lib, ptx):
    module = ctypes.c_void_p()
    t0 = time.perf_counter()
    r = lib.cuModuleLoadData(ctypes.byref(module), ptx)
    t1 = time.perf_counter()
    if r != 0:
        raise RuntimeError(f"cuModuleLoadData failed: {r}")
    lib.cuModuleUnload(module)
    return (t1 - t0) * 1e3


def kernels(vadd, bs, mm):
    n = 1 << 20
    a = cuda.to_device(np.ones(n, np.float32))
    c = cuda.device_array(n, np.float32)
    d = cuda.to_device(np.ones(n))
    o = cuda.device_array(n)
    M = 256
    A = cuda.to_device(np.ones((M, M), np.float32))
    C = cuda.device_array((M, M), np.float32)
    return [
        ("vadd", vadd, (a, a, c), ((n + 255) // 256, 256)),
        ("black_scholes", bs, (d, d, d, 0.02, 0.3, o), ((n + 255) // 256, 256)),
        ("matmul_tiled", mm, (A, A, C), ((M // 16, M // 16), (16, 16))),
    ]


def first_call_ms(fn, args, cfg):
    k = cuda.jit(fn)
    t0 = time.perf_counter(); k[cfg](*args); cuda.synchronize(); t1 = time.perf_counter()
    k[cfg](*args); cuda.synchronize(); t2 = time.perf_counter()
    return ((t1 - t0) - (t2 - t1)) * 1e3, k


def ptx_of(k):
    sig = next(iter(k.inspect_ptx()))
    return sig, k.inspect_ptx()[sig]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--load-only", help=argparse.SUPPRESS)  # child: time loads of the PTX in this JSON file
    opts = ap.parse_args()
    lib = driver()
    tmp = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)
    vadd, bs, mm = kernel_functions(tmp)
    # A first kernel: the context, the compiler's one-time set-up and the launch path are warm after it.
    ks = kernels(vadd, bs, mm)
    first_call_ms(vadd, ks[0][2], ks[0][3])
    if opts.load_only:
        with open(opts.load_only) as f:
            ptxs = json.load(f)
        print(json.dumps({name: [load_ms(lib, p.encode()) for _ in range(opts.runs)] for name, p in ptxs.items()}))
        return
    rows, ptxs = {}, {}
    for name, fn, args, cfg in ks:
        calls = []
        for _ in range(opts.runs):
            ms, k = first_call_ms(fn, args, cfg)
            calls.append(ms)
        sig, ptx = ptx_of(k)
        ptxs[name] = ptx
        compiles = []
        for _ in range(opts.runs):
            fresh = cuda.jit(fn)
            t0 = time.perf_counter(); fresh.inspect_ptx(sig); compiles.append((time.perf_counter() - t0) * 1e3)
        loads = [load_ms(lib, ptx.encode()) for _ in range(opts.runs)]
        rows[name] = {"first_call": calls, "ptx": compiles, "load": loads, "ptx_lines": ptx.count("\n")}
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"gpujit_breakdown_{os.getpid()}.json")
    with open(path, "w") as f:
        json.dump(ptxs, f)
    env = dict(os.environ, CUDA_CACHE_DISABLE="1")
    out = subprocess.run([sys.executable, __file__, "--runs", str(opts.runs), "--load-only", path], env=env,
                         capture_output=True, text=True, check=True)
    os.unlink(path)
    uncached = json.loads(out.stdout.strip().splitlines()[-1])
    med = statistics.median
    print(f"{'first call, ms':<16} {'first call':>10} {'ptx':>7} {'load':>7} {'load (no JIT cache)':>20} "
          f"{'rest':>7} {'PTX lines':>10}")
    for name, r in rows.items():
        r["load_uncached"] = uncached[name]
        rest = med(r["first_call"]) - med(r["ptx"]) - med(r["load"])
        print(f"{name:<16} {med(r['first_call']):>10.2f} {med(r['ptx']):>7.2f} {med(r['load']):>7.2f} "
              f"{med(r['load_uncached']):>20.2f} {rest:>7.2f} {r['ptx_lines']:>10}")
        print(f"  first calls: {' '.join(f'{x:.2f}' for x in r['first_call'])}")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
