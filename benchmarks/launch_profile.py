"""A launch loop to profile or to compare across processes (GPU machine): 3 distinct arrays of one kind, an
empty kernel launched N times.

    python benchmarks/launch_profile.py {own,torch,cupy} [N]
    python benchmarks/launch_profile.py --processes K [N]
    perf record -g python benchmarks/launch_profile.py torch 200000 && perf report

With a kind it prints, for this one process, the microseconds per launch and the nanoseconds the launch path
spends reading the 3 arguments alone (`gpujit._core._argument_read_ns`). Under a profiler it shows where a
launch of that kind spends its time. With --processes it runs K fresh processes for each kind, interleaved
(own, torch, cupy, own, ...), and prints each kind's median and range over them, and the median extra cost
of each foreign kind over our own arrays: the launch time of a GPU virtual machine differs from one process
to the next by more than a microsecond, so a single process says little.
"""
import statistics
import subprocess
import sys
import time

import gpujit as gpu


@gpu.jit
def k3(a, b, c):
    pass


def one_process(kind, n):
    if kind == "torch":
        import torch
        a, b, c = (torch.zeros(1024, device="cuda") for _ in range(3))
    elif kind == "cupy":
        import cupy
        a, b, c = (cupy.zeros(1024, cupy.float32) for _ in range(3))
    else:
        import numpy as np
        a, b, c = (gpu.to_device(np.zeros(1024, np.float32)) for _ in range(3))
    launch = k3[1, 32]
    launch(a, b, c)
    gpu.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        launch(a, b, c)
    gpu.synchronize()
    us = (time.perf_counter() - t) / n * 1e6
    read = min(gpu._core._argument_read_ns((a, b, c), n) for _ in range(3))
    print(f"{kind}: {us:.2f} us per launch, {read:.0f} ns reading the arguments")


def many_processes(k, n):
    kinds = ["own"]
    for name in ("torch", "cupy"):
        probe = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True)
        if probe.returncode == 0:
            kinds.append(name)
    launch = {kind: [] for kind in kinds}
    read = {kind: [] for kind in kinds}
    for _ in range(k):
        for kind in kinds:
            out = subprocess.run([sys.executable, __file__, kind, str(n)], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"{kind}: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else 'failed'}")
            words = out.stdout.split()
            launch[kind].append(float(words[1]))
            read[kind].append(float(words[5]))
    print(f"{k} processes per kind, {n} launches each, 3 arguments of the kind")
    print(f"{'kind':<6} {'us/launch median':>17} {'range':>14} {'read ns median':>15} {'range':>12}")
    for kind in kinds:
        lo, hi = min(launch[kind]), max(launch[kind])
        rlo, rhi = min(read[kind]), max(read[kind])
        print(f"{kind:<6} {statistics.median(launch[kind]):>17.2f} {lo:>6.2f} - {hi:<5.2f} "
              f"{statistics.median(read[kind]):>15.0f} {rlo:>5.0f} - {rhi:<5.0f}")
    own = statistics.median(launch["own"])
    for kind in kinds[1:]:
        print(f"{kind}: +{statistics.median(launch[kind]) - own:.2f} us per launch over our own arrays "
              f"(medians over processes; target: within 1 us)")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--processes":
        many_processes(int(args[1]), int(args[2]) if len(args) > 2 else 50000)
        return
    kind = args[0] if args else "own"
    one_process(kind, int(args[1]) if len(args) > 1 else 100000)


if __name__ == "__main__":
    main()
