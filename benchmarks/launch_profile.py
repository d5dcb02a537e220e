"""A launch loop to profile or to compare across processes (GPU machine): 3 distinct arrays of one kind, an
empty kernel launched N times.

    python benchmarks/launch_profile.py {own,torch,cupy} [N]
    python benchmarks/launch_profile.py --processes K [N]
    perf record -g python benchmarks/launch_profile.py torch 200000 && perf report

With a kind it prints, for this one process, the microseconds per launch and the nanoseconds the launch path
spends reading the 3 arguments alone (`gpujit._core._argument_read_ns`). Under a profiler it shows where a
launch of that kind spends its time.

With --processes it runs K fresh processes for each foreign kind (torch, cupy: those installed). Each process
times its foreign arrays against our own arrays in 11 alternating rounds (own, foreign, own) of N/10
launches and keeps the median of the per-round differences. The launch time of a GPU virtual machine moves
by up to a microsecond from one process to the next, for our own arrays as much as for foreign ones, so a
difference is only meaningful within one process; the median over processes then damps the processes
whose foreign reads are unusually slow. Printed per kind: the median difference over the processes and its
range, and the median launch and read times.
"""
import statistics
import subprocess
import sys
import time

import gpujit as gpu


@gpu.jit
def k3(a, b, c):
    pass


def arrays(kind):
    if kind == "torch":
        import torch
        return [torch.zeros(1024, device="cuda") for _ in range(3)]
    if kind == "cupy":
        import cupy
        return [cupy.zeros(1024, cupy.float32) for _ in range(3)]
    import numpy as np
    return [gpu.to_device(np.zeros(1024, np.float32)) for _ in range(3)]


def per_launch_us(launch, args, n):
    t = time.perf_counter()
    for _ in range(n):
        launch(*args)
    gpu.synchronize()
    return (time.perf_counter() - t) / n * 1e6


def one_process(kind, n):
    args = arrays(kind)
    launch = k3[1, 32]
    launch(*args)
    gpu.synchronize()
    us = per_launch_us(launch, args, n)
    read = min(gpu._core._argument_read_ns(tuple(args), n) for _ in range(3))
    print(f"{kind}: {us:.2f} us per launch, {read:.0f} ns reading the arguments")


def paired_process(kind, n):
    """Foreign against own in alternating rounds; prints: own_us foreign_us extra_us own_read_ns foreign_read_ns."""
    own, theirs = arrays("own"), arrays(kind)
    launch = k3[1, 32]
    launch(*own)
    launch(*theirs)
    gpu.synchronize()
    m = max(n // 10, 100)
    rounds = []
    for _ in range(11):
        a = per_launch_us(launch, own, m)
        b = per_launch_us(launch, theirs, m)
        c = per_launch_us(launch, own, m)
        rounds.append((b, (a + c) / 2))
    own_read = min(gpu._core._argument_read_ns(tuple(own), n) for _ in range(3))
    their_read = min(gpu._core._argument_read_ns(tuple(theirs), n) for _ in range(3))
    print(statistics.median(o for _, o in rounds), statistics.median(b for b, _ in rounds),
          statistics.median(b - o for b, o in rounds), own_read, their_read)


def many_processes(k, n):
    kinds = []
    for name in ("torch", "cupy"):
        if subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True).returncode == 0:
            kinds.append(name)
    results = {kind: [] for kind in kinds}
    for _ in range(k):
        for kind in kinds:
            out = subprocess.run([sys.executable, __file__, "--paired", kind, str(n)], capture_output=True, text=True)
            if out.returncode != 0:
                lines = out.stderr.strip().splitlines()
                sys.exit(f"{kind}: {lines[-1] if lines else 'failed'}")
            results[kind].append([float(w) for w in out.stdout.split()])
    print(f"{k} processes per kind; in each, 11 alternating rounds of {max(n // 10, 100)} launches of 3 own "
          f"and 3 foreign arrays")
    print(f"{'kind':<6} {'extra us median':>16} {'range':>14} {'own us':>7} {'theirs us':>10} "
          f"{'own read ns':>12} {'their read ns':>14}")
    for kind in kinds:
        cols = list(zip(*results[kind]))
        med = [statistics.median(c) for c in cols]
        print(f"{kind:<6} {med[2]:>+16.2f} {min(cols[2]):>+6.2f} - {max(cols[2]):<+6.2f} {med[0]:>7.2f} "
              f"{med[1]:>10.2f} {med[3]:>12.0f} {med[4]:>14.0f}")
    for kind in kinds:
        extra = statistics.median(r[2] for r in results[kind])
        print(f"{kind}: +{extra:.2f} us per launch over our own arrays (median over {k} processes of the "
              f"in-process median difference; target: within 1 us)")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--processes":
        many_processes(int(args[1]), int(args[2]) if len(args) > 2 else 50000)
    elif args and args[0] == "--paired":
        paired_process(args[1], int(args[2]) if len(args) > 2 else 50000)
    else:
        one_process(args[0] if args else "own", int(args[1]) if len(args) > 1 else 100000)


if __name__ == "__main__":
    main()
