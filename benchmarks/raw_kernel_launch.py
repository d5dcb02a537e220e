"""The launch cost of a CUDA C kernel (gpujit.RawKernel) next to the same kernel written with gpujit and to
CuPy's RawKernel, in one run.

Usage: python benchmarks/raw_kernel_launch.py [--n 20000] [--rounds 15] [--json OUT.json] [--fake]

One kernel, `k(float* x, float* y, float* z, float a, int n)` with an empty body, launched [1, 32] with the
same arguments each way: three device arrays, a float and an int. Contenders:
  - gpujit kernel: the same parameters as a @gpu.jit kernel (gpujit device arrays, Python float and int);
  - RawKernel: gpu.RawKernel of the CUDA C, the same gpujit arrays and Python numbers;
  - RawKernel, NumPy scalars: np.float32 / np.int32, which CuPy needs;
  - RawKernel, CuPy arrays (when CuPy is installed): CuPy arrays through __cuda_array_interface__;
  - CuPy RawKernel (when CuPy is installed): cupy.RawKernel of the same source, CuPy arrays, NumPy scalars.
Each round times N asynchronous launches and one synchronize per contender, the contenders interleaved so
that the GPU machines' drift touches all alike; the figure is the median over rounds, in µs per launch.
Targets (issue 29): a RawKernel launch within 0.2 µs of the gpujit kernel's, and no more than CuPy's.

--fake runs against the fake CUDA driver (tests/unit/runtime/fake_driver, built as the tests build it):
the launch path's host cost without a GPU, for gpujit's contenders only.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("GPUJIT_LOW_OCCUPANCY_WARNINGS", "0")
SOURCE = r'''
extern "C" __global__ void k(float* x, float* y, float* z, float a, int n) {}
'''


def setup_fake():
    sys.path.insert(0, str(ROOT / "tests" / "python"))
    os.environ["GPUJIT_TEST_FAKE_DRIVER"] = "1"
    import conftest  # builds the fake driver and points GPUJIT_CUDA_DRIVER at it

    os.environ["GPUJIT_DEVICE"] = "cuda"
    return conftest


def time_rounds(contenders, sync, n, rounds):
    samples = {name: [] for name in contenders}
    for fn in contenders.values():
        fn()
    sync()
    for _ in range(rounds):
        for name, fn in contenders.items():
            t = time.perf_counter()
            for _ in range(n):
                fn()
            sync()
            samples[name].append((time.perf_counter() - t) / n * 1e6)
    return {name: round(statistics.median(s), 3) for name, s in samples.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--json")
    ap.add_argument("--fake", action="store_true")
    args = ap.parse_args()
    if args.fake:
        setup_fake()
    import numpy as np

    import gpujit as gpu

    if gpu._core.backend_name() != "cuda":
        print("raw_kernel_launch: needs a CUDA GPU (or --fake); the current backend is",
              gpu._core.backend_name())
        return 0

    @gpu.jit
    def k(x, y, z, a, n):
        pass

    raw = gpu.RawKernel(SOURCE, "k")
    x, y, z = (gpu.device_array(32, np.float32) for _ in range(3))
    gk = k[1, 32]
    rk = raw[1, 32]
    f32, i32 = np.float32(1.5), np.int32(32)
    contenders = {
        "gpujit kernel": lambda: gk(x, y, z, 1.5, 32),
        "RawKernel": lambda: rk(x, y, z, 1.5, 32),
        "RawKernel, NumPy scalars": lambda: rk(x, y, z, f32, i32),
    }
    sync = gpu.synchronize
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None and not args.fake:
        cx, cy, cz = (cupy.zeros(32, cupy.float32) for _ in range(3))
        ck = cupy.RawKernel(SOURCE, "k")
        contenders["RawKernel, CuPy arrays"] = lambda: rk(cx, cy, cz, f32, i32)
        contenders["CuPy RawKernel"] = lambda: ck((1,), (32,), (cx, cy, cz, f32, i32))

        def sync():
            gpu.synchronize()
            cupy.cuda.Device().synchronize()

    result = time_rounds(contenders, sync, args.n, args.rounds)
    base = result["gpujit kernel"]
    print(f"{'launch':<28} {'us/launch':>10} {'vs gpujit':>10}")
    for name, us in result.items():
        print(f"{name:<28} {us:>10.3f} {us - base:>+10.3f}")
    within = result["RawKernel"] - base <= 0.2
    print(f"RawKernel within 0.2 us of the gpujit kernel: {'yes' if within else 'NO'}")
    if "CuPy RawKernel" in result:
        cheaper = result["RawKernel, CuPy arrays"] <= result["CuPy RawKernel"]
        print(f"RawKernel no more than CuPy's RawKernel (same arguments): {'yes' if cheaper else 'NO'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"fake": args.fake, "n": args.n, "rounds": args.rounds,
                                               "us_per_launch": result}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
