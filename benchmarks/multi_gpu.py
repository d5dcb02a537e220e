"""Scaling over several GPUs: a bandwidth-bound kernel (the STREAM triad a = b + s * c, float32) over data
split across every GPU, one thread per GPU, against the same total data on one GPU, in the same run.

    python benchmarks/multi_gpu.py [--n ELEMENTS] [--reps R] [--repeats K] [--json OUT.json]

Each GPU keeps its shard of a, b and c in its own memory (allocated inside `with gpu.gpus[i]:`); the kernel
is compiled once and loaded on each GPU during a warm-up. A measurement starts every thread at a barrier, each
launches R triads on its GPU and synchronizes it; its time is the wall clock from the first thread's start to
the last thread's end, and the median over K measurements is reported. GB/s counts 12 bytes per element and
triad (two 4-byte reads and a 4-byte write). The one-GPU figure is the same N elements on device 0 alone,
measured first. Results are checked against NumPy afterwards.

Prints GB/s for 1 GPU and for all of them and their ratio (the target is at least 1.8x on 2 GPUs). With one
GPU (or none) it says so and exits 0. Against the fake driver (GPUJIT_CUDA_DRIVER=.../libfakecuda.so
FAKECUDA_DEVICES=2 and a tiny --n) it runs as a smoke test: the fake driver runs no kernels, so its timings
mean nothing and the results are not checked.
"""
import argparse
import json
import statistics
import sys
import threading
import time

import numpy as np

import gpujit as gpu

THREADS = 256
SCALAR = np.float32(3.0)


@gpu.jit
def triad(a, b, c, s):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = b[i] + s * c[i]


def measure(shards, reps, repeats):
    """Median wall seconds over `repeats` runs of `reps` triads on every (device, arrays) of `shards` at once,
    one thread per device."""
    times = []
    for _ in range(repeats):
        start = threading.Barrier(len(shards))
        stamps, errors = [], []

        def work(device_id, a, b, c):
            try:
                with gpu.gpus[device_id]:
                    blocks = (a.size + THREADS - 1) // THREADS
                    launch = triad[blocks, THREADS]
                    start.wait()
                    t0 = time.perf_counter()
                    for _ in range(reps):
                        launch(a, b, c, SCALAR)
                    gpu.synchronize()
                    stamps.append((t0, time.perf_counter()))
            except Exception as err:  # reported by the main thread
                errors.append(err)
                start.abort()

        threads = [threading.Thread(target=work, args=shard) for shard in shards]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        times.append(max(end for _, end in stamps) - min(begin for begin, _ in stamps))
    return statistics.median(times)


def make_shards(devices, b_host, c_host):
    """(device, a, b, c) per device: device i gets the i-th part of b and c, in its own memory."""
    shards = []
    for d, (b_part, c_part) in enumerate(zip(np.array_split(b_host, len(devices)), np.array_split(c_host, len(devices)))):
        with gpu.gpus[devices[d]]:
            shards.append((devices[d], gpu.device_array(b_part.size, np.float32), gpu.to_device(b_part),
                           gpu.to_device(c_part)))
    return shards


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 27, help="elements of each array in all (default 2^27)")
    parser.add_argument("--reps", type=int, default=20, help="triads per measurement")
    parser.add_argument("--repeats", type=int, default=7, help="measurements; the median is reported")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()

    info = gpu._core.driver_info()
    count = gpu._core.device_count() if info["backend"] == "cuda" else 0
    if count < 2:
        print(f"multi_gpu: skipped: needs 2 or more CUDA GPUs, this machine has {count} "
              f"({info['backend']} backend)")
        return 0
    fake = "fakecuda" in (info.get("cuda_driver") or "")
    names = [gpu.gpus[d].name for d in range(count)]
    print(f"multi_gpu: {count} GPUs: {', '.join(names)}; triad over {args.n} float32 elements "
          f"({3 * args.n * 4 / 2**30:.2f} GiB), {args.reps} triads per measurement, median of {args.repeats}")
    if fake:
        print("multi_gpu: fake driver: no kernel runs, so the timings below mean nothing (a smoke test)")

    rng = np.random.default_rng(3)
    b_host = rng.standard_normal(args.n, dtype=np.float32)
    c_host = rng.standard_normal(args.n, dtype=np.float32)
    expected = b_host + SCALAR * c_host
    bytes_moved = 12.0 * args.n * args.reps

    results = {}
    for label, devices in (("1", [0]), (str(count), list(range(count)))):
        shards = make_shards(devices, b_host, c_host)
        measure(shards, 1, 1)  # warm-up: compiles once, loads the kernel on each device
        seconds = measure(shards, args.reps, args.repeats)
        if not fake:
            got = np.concatenate([a.copy_to_host() for _, a, _, _ in shards])
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
        results[label] = bytes_moved / seconds / 1e9
        print(f"{label} GPU{'s' if label != '1' else ''}: {results[label]:10.1f} GB/s  "
              f"({seconds * 1e3:.3f} ms for {args.reps} triads)")
        del shards
        gpu.empty_cache()  # give the memory back before the next layout

    ratio = results[str(count)] / results["1"]
    print(f"scaling: {ratio:.2f}x on {count} GPUs (target: at least {0.9 * count:.1f}x)"
          + ("" if fake else ", results match NumPy"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpus": names, "n": args.n, "reps": args.reps, "repeats": args.repeats, "fake_driver": fake,
                       "gbps_1": results["1"], f"gbps_{count}": results[str(count)], "ratio": ratio}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
