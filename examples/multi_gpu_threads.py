"""A thread per GPU: each thread makes its GPU current with `with gpu.gpus[i]:`, keeps its share of the data
on that GPU and runs kernels there; the kernel is compiled once and loaded on each GPU. The partial sums are
combined on the host and checked against NumPy.

    .venv/bin/python examples/multi_gpu_threads.py

On a machine with one GPU (or none, on the CPU backend) it runs the same code with one thread.
"""
# gpujit-sig: scale_add void(float64[::1], float64[::1], float64)
# gpujit-sig: block_sums void(float64[::1], float64[::1])
import threading

import numpy as np

import gpujit as gpu

THREADS = 256


@gpu.jit
def scale_add(x, y, a):
    i = gpu.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


@gpu.jit
def block_sums(x, out):
    # Each block sums THREADS elements in shared memory; out[blockIdx.x] gets its total.
    part = gpu.shared.array(THREADS, np.float64)
    i = gpu.grid(1)
    t = gpu.threadIdx.x
    part[t] = x[i] if i < x.size else 0.0
    gpu.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            part[t] += part[t + step]
        gpu.syncthreads()
        step //= 2
    if t == 0:
        out[gpu.blockIdx.x] = part[0]


def work_on(device_id, x_part, y_part, a, results, errors):
    """Runs on its own thread: everything inside the block happens on GPU `device_id`."""
    try:
        with gpu.gpus[device_id]:
            x = gpu.to_device(x_part)
            y = gpu.to_device(y_part)
            blocks = (x_part.size + THREADS - 1) // THREADS
            sums = gpu.device_array(blocks, np.float64)
            scale_add[blocks, THREADS](x, y, a)
            block_sums[blocks, THREADS](y, sums)
            results[device_id] = (y.copy_to_host(), sums.copy_to_host().sum(), y.device.id)
    except Exception as err:  # handed to the main thread
        errors.append(err)


def main():
    devices = len(gpu.gpus)
    where = gpu.get_current_device()
    n = 1 << 22 if where.backend == "cuda" else 1 << 18  # the CPU backend runs it too, more slowly
    rng = np.random.default_rng(7)
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    a = 0.75
    x_parts = np.array_split(x, devices)
    y_parts = np.array_split(y, devices)

    results, errors = {}, []
    threads = [threading.Thread(target=work_on, args=(d, x_parts[d], y_parts[d], a, results, errors))
               for d in range(devices)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]

    expected = a * x + y
    y_out = np.concatenate([results[d][0] for d in range(devices)])
    np.testing.assert_allclose(y_out, expected, rtol=1e-12, atol=1e-12)
    total = sum(results[d][1] for d in range(devices))
    np.testing.assert_allclose(total, expected.sum(), rtol=1e-9)
    assert [results[d][2] for d in range(devices)] == list(range(devices))
    print(f"multi_gpu_threads: saxpy and block sums of {n} elements on {devices} device{'s' if devices != 1 else ''} "
          f"({where.backend} backend), one thread each, match NumPy")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        print(f"multi_gpu_threads: cannot run kernels on this machine: {err}")
