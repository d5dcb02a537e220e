"""A launch loop to profile (GPU machine): 3 arguments of one kind, launched N times with an empty kernel.

    python benchmarks/launch_profile.py {own,torch,cupy} [N]
    perf record -g python benchmarks/launch_profile.py torch 200000 && perf report

Prints the microseconds per launch; under a profiler it shows where a launch of that kind spends its time.
"""
import sys
import time

import gpujit as gpu


@gpu.jit
def k3(a, b, c):
    pass


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "own"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    if kind == "torch":
        import torch
        x = torch.zeros(1024, device="cuda")
    elif kind == "cupy":
        import cupy
        x = cupy.zeros(1024, cupy.float32)
    else:
        import numpy as np
        x = gpu.to_device(np.zeros(1024, np.float32))
    launch = k3[1, 32]
    launch(x, x, x)
    gpu.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        launch(x, x, x)
    gpu.synchronize()
    print(f"{kind}: {(time.perf_counter() - t) / n * 1e6:.2f} us per launch")


if __name__ == "__main__":
    main()
