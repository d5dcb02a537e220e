"""Device arrays, copies and launches from threads other than the one that made them.

A CUDA context is current per thread: a new thread has none until gpujit makes the device's context current
there. Every device operation does so first, so an array made on the main thread copies, fills and launches
from a worker thread as it does at home (numba-cuda's behaviour). Runs on the CUDA backend: the real GPU, or
the fake driver, which models the per-thread current context and fails a call made without one.
"""

import os
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


# ---------------------------------------------------------------------------------------------------------
# Many threads compiling and launching at once, on the CPU backend and on the CUDA path (a real GPU, or the
# fake driver, which runs no kernels: there the copies and the launches it recorded are checked instead).

import threading
import time

import pytest

THREADS = 12
LAUNCHES = 20


@pytest.fixture(params=["cpu", "cuda"])
def backend(request):
    """The test on the CPU backend, then on the CUDA one; yields whether kernels really run."""
    request.getfixturevalue("cpu_backend" if request.param == "cpu" else "cuda")
    yield request.param == "cpu" or FAKE_LIB is None


def _all_at_once(fn, n=THREADS):
    """fn(i) for i in range(n), each in a thread of its own, released together; the results in order. The
    first exception is raised here."""
    start = threading.Barrier(n)

    def run(i):
        start.wait(timeout=120)
        return fn(i)

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(run, range(n)))


def _scale_add_kernel(k):
    """A new dispatcher per call, its constant k captured: distinct kernels with distinct code."""
    @gpu.jit
    def scale_add(x, out):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = x[i] * k + i

    return scale_add


def _launch_count():
    from conftest import FakeDriver
    return FakeDriver(FAKE_LIB).calls("cuLaunchKernel") if FAKE_LIB is not None else 0


def test_threads_compile_distinct_kernels_and_launch_them(backend):
    runs = backend
    before = _launch_count()

    def work(t):
        kernel = _scale_add_kernel(t + 2)
        results = []
        for rep in range(LAUNCHES):
            n = 50 + 7 * t + rep
            x = np.arange(n, dtype=np.float64) * (rep + 1)
            d_x, d_out = gpu.to_device(x), gpu.to_device(np.zeros(n))
            kernel[(n + 31) // 32, 32](d_x, d_out)
            results.append((x, d_x.copy_to_host(), d_out.copy_to_host()))
        return results

    for t, results in enumerate(_all_at_once(work)):
        for x, x_back, out in results:
            np.testing.assert_array_equal(x_back, x)  # every thread's copies, both ways
            if runs:
                np.testing.assert_array_equal(out, x * (t + 2) + np.arange(x.size))
    if FAKE_LIB is not None and not runs:
        from conftest import FakeDriver
        assert FakeDriver(FAKE_LIB).calls("cuLaunchKernel") - before == THREADS * LAUNCHES


def test_threads_race_to_specialize_one_kernel(backend):
    # Every thread's first call of the same new dispatcher misses its specialization cache at once; three
    # argument types make three specializations, each compiled by four threads racing. The cache must end
    # with one entry per type, and every launch must compute the right thing.
    runs = backend
    kernel = _scale_add_kernel(3)
    dtypes = [np.float64, np.float32, np.int64]

    def work(t):
        dtype = dtypes[t % len(dtypes)]
        outs = []
        for rep in range(LAUNCHES):
            x = (np.arange(64) + rep).astype(dtype)
            out = np.zeros_like(x)
            kernel[2, 32](x, out)
            outs.append((x, out))
        return outs

    for t, outs in enumerate(_all_at_once(work)):
        for x, out in outs:
            if runs:
                np.testing.assert_array_equal(out, x * 3 + np.arange(x.size, dtype=x.dtype))
    assert len(kernel.signatures) == len(dtypes)


def _busy_python(stop):
    """Counts in pure Python until `stop` is set; returns the times at which it counted."""
    stamps = []
    while not stop.is_set():
        stamps.append(time.perf_counter())
        for _ in range(200):
            pass
    return stamps


def _progress_during(fn):
    """Runs fn() in a thread while this one runs Python code; returns (start, end, stamps): fn's time and the
    times at which this thread made progress."""
    stop = threading.Event()
    span = {}

    def run():
        try:
            span["start"] = time.perf_counter()
            fn()
            span["end"] = time.perf_counter()
        finally:
            stop.set()

    worker = threading.Thread(target=run)
    worker.start()
    stamps = _busy_python(stop)
    worker.join()
    return span["start"], span["end"], stamps


def _ran_in_middle(start, end, stamps):
    lo, hi = start + 0.25 * (end - start), start + 0.75 * (end - start)
    return sum(1 for s in stamps if lo <= s <= hi)


def _big_kernel_source(terms):
    body = "\n".join(f"        acc = acc * 1.0001 + math.sin(x[i] + {k}) * math.cos(acc - {k})"
                     for k in range(terms))
    return f"""
import math
import gpujit as gpu


@gpu.jit
def big(x, out):
    i = gpu.grid(1)
    if i < x.size:
        acc = 0.0
{body}
        out[i] = acc
"""


def test_a_compile_lets_other_python_threads_run(tmp_path, monkeypatch):
    # A kernel big enough that LLVM takes a while; while one thread compiles it, this one keeps counting in
    # Python. Were the GIL held through the compile, it could not count in the middle of it.
    (tmp_path / "big_kernel_module.py").write_text(_big_kernel_source(150))
    monkeypatch.syspath_prepend(str(tmp_path))
    import big_kernel_module

    start, end, stamps = _progress_during(lambda: big_kernel_module.big.compile("(float64[::1], float64[::1])"))
    assert end - start > 0.05, "the compile was too quick to tell anything"
    assert _ran_in_middle(start, end, stamps) > 0


@gpu.jit
def _slow_sum(out, n):
    acc = 0
    for i in range(n):
        acc += i % 7
    out[0] = acc


def test_a_cpu_launch_lets_other_python_threads_run(cpu_backend):
    out = np.zeros(1, dtype=np.int64)
    _slow_sum[1, 1](out, 10)  # compiled before the measured launch
    n = 30_000_000
    start, end, stamps = _progress_during(lambda: _slow_sum[1, 1](out, n))
    assert out[0] == sum(range(7)) * (n // 7) + sum(range(n % 7))
    assert end - start > 0.02, "the launch was too quick to tell anything"
    assert _ran_in_middle(start, end, stamps) > 0


def test_eager_signatures_compile_at_once_and_each_specialization_runs(backend):
    # jit([...]) with several signatures compiles them together, on threads of their own (the GIL let go
    # while each compiles); every specialization lands in the dispatcher, in the order given.
    runs = backend
    sigs = ["void(float32[::1], float32[::1])", "void(float64[::1], float64[::1])",
            "void(int32[::1], int32[::1])", "void(int64[::1], int64[::1])", "void(uint8[::1], uint8[::1])"]

    @gpu.jit(sigs)
    def double(dst, src):
        i = gpu.grid(1)
        if i < dst.size:
            dst[i] = src[i] * 2

    assert double.signatures == [s[4:] for s in sigs]
    assert len(double.overloads) == len(sigs)
    assert double._stats["eager_compile_threads"] == min(len(sigs), os.cpu_count())
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.uint8):
        src = np.arange(40, dtype=dtype)
        dst = np.zeros_like(src)
        double[2, 32](dst, src)
        if runs:
            np.testing.assert_array_equal(dst, src * 2)


def test_of_eager_signatures_that_fail_the_first_in_order_raises(backend):
    # float32 and float64 fail (no >> for floats); whichever thread finishes first, the error is float32's.
    for _ in range(3):
        with pytest.raises(gpu.errors.CompileError, match="'float32' and 'int64'"):
            @gpu.jit(["void(int32[::1])", "void(float32[::1])", "void(int64[::1])", "void(float64[::1])"])
            def halve(a):
                a[0] = a[0] >> 1
