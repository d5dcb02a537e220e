"""Device arrays, copies and launches from threads other than the one that made them.

A CUDA context is current per thread: a new thread has none until gpujit makes the device's context current
there. Every device operation does so first, so an array made on the main thread copies, fills and launches
from a worker thread as it does at home (numba-cuda's behaviour). Runs on the CUDA backend: the real GPU, or
the fake driver, which models the per-thread current context and fails a call made without one.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

import gpujit as gpu
from conftest import FAKE_LIB


def _in_a_new_thread(fn, *args):
    """fn(*args) on a thread of its own; its exception, if any, is raised here."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn, *args).result()


@gpu.jit
def add_one(x):
    i = gpu.grid(1)
    if i < x.size:
        x[i] += 1


def test_copy_to_host_of_an_array_made_on_another_thread(cuda):
    arr = np.arange(1, 4)
    dev = gpu.to_device(arr)
    out = _in_a_new_thread(lambda: dev.copy_to_host())
    np.testing.assert_array_equal(out, arr)


def test_device_to_device_copy_on_another_thread(cuda):
    arr = np.arange(100)
    src = gpu.to_device(arr)
    dst = gpu.to_device(np.zeros_like(arr))
    _in_a_new_thread(dst.copy_to_device, src)
    np.testing.assert_array_equal(dst.copy_to_host(), arr)


def test_allocate_copy_and_launch_on_fresh_threads(cuda):
    def work(n):
        dev = gpu.to_device(np.arange(n, dtype=np.int64))
        add_one[(n + 31) // 32, 32](dev)
        gpu.synchronize()
        return dev.copy_to_host()

    sizes = [5, 40, 100, 7]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(work, sizes))
    # The fake driver records launches without running them; a GPU runs them.
    added = 0 if FAKE_LIB is not None else 1
    for n, out in zip(sizes, results):
        np.testing.assert_array_equal(out, np.arange(n) + added)


def test_streams_and_events_made_on_another_thread(cuda):
    def work():
        stream = gpu.stream()
        dev = gpu.to_device(np.ones(8), stream=stream)
        event = gpu.event()
        event.record(stream)
        event.synchronize()
        return dev.copy_to_host(stream=stream)

    np.testing.assert_array_equal(_in_a_new_thread(work), np.ones(8))
