"""The allocation path's host cost without a GPU: device arrays made and dropped against the fake CUDA driver.

    python benchmarks/allocation_fake_driver.py [--n 100000]
    python benchmarks/allocation_fake_driver.py --instructions
    PYTHONPATH=/path/to/other/site-packages python benchmarks/allocation_fake_driver.py --instructions

Every shape allocates through rt::DeviceBuffer, the one place where an External Memory Management plugin
could take over (runtime/device_array.cpp); with no plugin set, each allocation is a hit of gpujit's caching
allocator after the first. The shapes: `device_array` (gpu.device_array(256) and its release), `device_array
float32` (the same with a NumPy dtype given, which the binding reads through its dtype memo), `to_device`
(gpu.to_device of 256 float64 and its release: the copy adds the fake driver's memcpy), `host argument` (a
launch of an empty kernel with a NumPy argument, copied to a temporary device buffer and back). Prints
microseconds per operation, the best of 3 rounds of N; with --instructions, instructions per operation, counted
by valgrind's callgrind as launch_fake_driver.py counts them (two N, the difference over the extra operations),
which is how two versions compare on a shared machine: point PYTHONPATH at the other version's installed
package (its gpujit folder's parent). valgrind must be installed.
"""
import argparse
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from launch_fake_driver import best_seconds_per_call, callgrind_per_op, fake_driver  # noqa: E402  builds the fake driver when it is missing or stale

SHAPES = ("device_array", "device_array float32", "to_device", "host argument")


def instructions_per_op(shape, small=2000, large=12000):
    return callgrind_per_op(__file__, shape, small, large)


def operations(gpu, np, kernel):
    host = np.zeros(256)
    return {
        "device_array": lambda: gpu.device_array(256),
        "device_array float32": lambda: gpu.device_array(256, np.float32),
        "to_device": lambda: gpu.to_device(host),
        "host argument": lambda: kernel[1, 32](host),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100000, help="operations per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of N; the best is printed")
    parser.add_argument("--only", choices=SHAPES, help="time one shape only")
    parser.add_argument("--instructions", action="store_true", help="count instructions per operation")
    args = parser.parse_args()
    if args.instructions:
        print(f"{'operation':<22} {'instructions per operation (fake driver)':>42}")
        for name in SHAPES:
            if not args.only or name == args.only:
                print(f"{name:<22} {instructions_per_op(name):>42.0f}")
        return
    os.environ["GPUJIT_CUDA_DRIVER"] = str(fake_driver())
    import warnings

    import numpy as np

    import gpujit as gpu

    warnings.simplefilter("ignore")  # the copy of a NumPy argument warns once per call site
    gpu._core._set_backend("cuda")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fake_alloc_kernels.py"
        path.write_text("import gpujit as gpu\n@gpu.jit\ndef k(a):\n    pass\n")
        spec = importlib.util.spec_from_file_location("fake_alloc_kernels", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        print(f"{'operation':<22} {'us per operation (fake driver)':>31}")
        for name, op in operations(gpu, np, mod.k).items():
            if args.only and name != args.only:
                continue
            op()
            print(f"{name:<22} {best_seconds_per_call(op, args.n, args.rounds) * 1e6:>31.3f}")


if __name__ == "__main__":
    sys.exit(main())
