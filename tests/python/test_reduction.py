"""gpu.reduce / gpu.Reduce against NumPy: sizes around the block and grid boundaries, every numeric dtype,
functions without an identity (max of negatives, products), init, res, size, streams, host and device input,
and the errors for bad input."""

import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import gpujit as gpu

add = gpu.reduce(lambda a, b: a + b)


@gpu.reduce
def largest(a, b):
    return max(a, b)


# Around a warp, a block (256), the first pass's grid on this device, and sizes that are none of those.
SIZES = [1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4097, 34567, 262143, 262145, 1 << 20]


@pytest.mark.parametrize("n", SIZES)
def test_sum_matches_numpy(n):
    a = np.arange(1, n + 1, dtype=np.float64)  # integers: the sum is exact in any order
    got = add(a)
    assert isinstance(got, np.float64)
    assert got == a.sum()


@pytest.mark.parametrize("n", [1, 100, 5000, 300001])
def test_device_input_and_strided_view(n):
    a = np.arange(n, dtype=np.int64) * 3 - n
    d = gpu.to_device(a)
    assert add(d) == a.sum()
    assert add(d[::3]) == a[::3].sum()  # a view with a stride: no copy


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                                   np.float16, np.float32, np.float64, np.complex64, np.complex128])
def test_every_numeric_dtype(dtype):
    a = (np.arange(5000) % 7).astype(dtype)
    if np.dtype(dtype) == np.float16:  # partial sums below 2048 are exact in float16, in any order
        a = (np.arange(5000) % 7 == 0).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + (np.arange(5000) % 3).astype(dtype) * 1j
    got = add(a)
    assert got.dtype == np.dtype(dtype)  # each combination is converted back to the array's dtype
    assert got == a.sum(dtype=dtype)  # integer sums wrap in the dtype, so any order gives NumPy's result


def test_bool_and_small_integers_take_the_shuffle_path():
    flags = np.zeros(3000, dtype=np.bool_)
    assert largest(flags) == np.False_
    flags[2999] = True
    assert largest(flags) == np.True_
    small = np.full(3000, -100, dtype=np.int8)
    small[1234] = -3
    assert largest(small) == -3


def test_no_identity_is_assumed():
    negative = -np.arange(10, 7000, dtype=np.float32)
    assert largest(negative) == np.float32(-10)  # not max(..., 0)
    smallest = gpu.Reduce(lambda a, b: min(a, b))
    assert smallest(np.arange(5, 4000, dtype=np.int32)) == 5
    product = gpu.reduce(lambda a, b: a * b)
    values = np.full(3000, 1.0, dtype=np.float64)
    values[::100] = 2.0
    assert product(values) == 2.0 ** 30


@pytest.mark.parametrize("n", [10, 1000, 100000])
def test_init_is_combined_once(n):
    a = np.arange(n, dtype=np.float64)
    assert add(a, init=3) == a.sum() + 3
    assert largest(-a - 1, init=-0.5) == -0.5
    assert largest(a, init=-0.5) == n - 1


def test_result_on_the_device():
    for n in (10, 100000):
        a = (np.arange(n) % 5).astype(np.float32)  # a sum float32 holds exactly
        res = gpu.to_device(np.full(3, 7, dtype=np.float32))
        assert add(a, res=res) is None
        host = res.copy_to_host()
        assert host[0] == a.sum() and host[1] == 7 and host[2] == 7  # only res[0] is written


def test_size_reduces_a_prefix():
    a = np.arange(100, dtype=np.int32)
    assert add(a, size=10) == 45
    assert add(gpu.to_device(a), size=1) == 0


def test_empty_array():
    assert add(np.zeros(0), init=5.0) == 5.0
    # Without init, as numba-cuda's default init=0: the dtype's zero.
    got = add(gpu.to_device(np.zeros(0, dtype=np.float32)))
    assert got == 0 and got.dtype == np.float32
    res = gpu.to_device(np.ones(1))
    assert add(np.zeros(0), res=res, init=2.0) is None
    assert res.copy_to_host()[0] == 2.0
    assert add(np.arange(10.0), size=0, init=1.5) == 1.5


def test_stream():
    s = gpu.stream()
    a = np.arange(50000, dtype=np.float64)
    assert add(a, stream=s) == a.sum()
    res = gpu.device_array(1, np.float64)
    add(gpu.to_device(a, stream=s), res=res, stream=s)
    s.synchronize()
    assert res.copy_to_host()[0] == a.sum()


def test_one_launch_leaves_the_block_counter_at_zero():
    """Every block but the last leaves its value in scratch; the last one, found by an atomic counter,
    reduces them. The counter must wrap back to 0 as the last block counts itself, or the next call (with
    another grid size) would pick the wrong last block and return a partial sum."""
    from gpujit import reduction

    for n in (100_000, 1_000, 3_000_000, 257, 50_000):  # grids of different sizes, back to back
        a = np.arange(n, dtype=np.float64)
        assert add(a) == a.sum()
        assert reduction._counter(0).copy_to_host()[0] == 0


def test_streams_have_counters_of_their_own():
    from gpujit import reduction

    s1, s2 = gpu.stream(), gpu.stream()
    a = np.arange(200_000, dtype=np.int64)
    r1, r2 = gpu.device_array(1, np.int64), gpu.device_array(1, np.int64)
    add(gpu.to_device(a), res=r1, stream=s1)
    add(gpu.to_device(a[::-1].copy()), res=r2, stream=s2)
    s1.synchronize()
    s2.synchronize()
    assert r1.copy_to_host()[0] == r2.copy_to_host()[0] == a.sum()
    assert reduction._counter(s1) is not reduction._counter(s2)
    assert reduction._counter(s1) is reduction._counter(s1)


def test_a_result_for_the_host_is_written_to_mapped_memory_and_not_copied_back(fake):
    """Without res=, the last block writes the result into this thread's mapped host slot and the call waits
    for the stream: the launch's `out` is that slot's device address, and no copy follows the kernel (the
    fake driver runs no kernel, so the value itself is not checked here; the other tests check values)."""
    from gpujit import reduction

    d = gpu.to_device(np.ones(5000, dtype=np.float32))
    add(d)  # compiles, and makes the slot
    host, device = reduction._mapped_result(np.dtype(np.float32))
    copies = [fake.calls(f) for f in ("cuMemcpyDtoH_v2", "cuMemcpyDtoHAsync_v2")]
    waits = fake.calls("cuStreamSynchronize")
    launches = fake.launch_count()
    add(d)
    assert fake.launch_count() == launches + 1
    assert [fake.calls(f) for f in ("cuMemcpyDtoH_v2", "cuMemcpyDtoHAsync_v2")] == copies
    assert fake.calls("cuStreamSynchronize") == waits + 1
    params = fake.last_launch()[5]
    assert device.device_ctypes_pointer.value in [int.from_bytes(p[:8], "little") for p in params if len(p) >= 8]
    # A stream given as a raw handle has no synchronize(): such a call copies the result back instead.
    assert reduction._stream_wait(0) is not None and reduction._stream_wait(None) is not None
    assert reduction._stream_wait(gpu.stream()) is not None and reduction._stream_wait(0x1234) is None


def test_a_wait_that_fails_leaves_the_slot_to_its_kernel(fake):
    """A wait for the result that raises (Ctrl-C, a kernel's fault) may leave the kernel running: its slot is
    not handed to the thread's next reduction, which gets a fresh one."""
    from gpujit import reduction

    d = gpu.to_device(np.ones(5000, dtype=np.float32))
    add(d)
    before = reduction._mapped_result(np.dtype(np.float32))
    fake.fail("cuStreamSynchronize", 999)  # CUDA_ERROR_UNKNOWN
    with pytest.raises(gpu.CudaAPIError):
        add(d)
    add(d)
    assert reduction._mapped_result(np.dtype(np.float32))[0] is not before[0]


def test_threads_reducing_at_once_get_their_own_results():
    """Each thread has its own mapped result slot: results never cross between threads reducing at the same
    time on the same (default) stream."""
    import threading

    arrays = [np.full(20_000 + k, k + 1, dtype=np.int64) for k in range(8)]
    results = [None] * len(arrays)
    start = threading.Barrier(len(arrays))

    def work(k):
        start.wait()
        results[k] = [add(arrays[k]) for _ in range(5)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(arrays))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [[a.sum()] * 5 for a in arrays]


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.int32, np.float32, np.float64, np.uint64])
def test_vector_loads_and_their_tails(dtype):
    """Aligned contiguous arrays take the 16-byte-load kernel: whole vectors, then the tail after the last
    one; a view starting one element in (not 16-byte aligned) takes the scalar kernel. Both give the sum."""
    r = gpu.reduce(lambda a, b: a + b)
    width = 16 // np.dtype(dtype).itemsize
    sizes = (2 * width, 2 * width + 1, 3 * width - 1, 5 * width + width // 2, 40_000 * width + 3, 1_000_003)
    for n in sizes if dtype != np.float16 else (16, 17, 23, 44, 2047):  # float16 sums exact up to 2048
        a = (np.arange(n) % 7).astype(dtype) if dtype != np.float16 else np.ones(n, dtype)
        d = gpu.to_device(a)
        # Integer sums wrap in the dtype, in any order; float ones are exact here.
        assert r(d) == a.sum(dtype=dtype)
        assert r(d[1:]) == a[1:].sum(dtype=dtype)
    dt = np.dtype(dtype)
    assert set(r._kernels) == {(dt, True), (dt, False)}


def test_vector_kernel_loads_16_bytes():
    ptx = add.inspect_ptx(np.float32, vector=True)
    assert "ld.global.v4" in ptx
    assert "ld.global.v4" not in add.inspect_ptx(np.float32)
    assert "gpu.assume_aligned(arr, 16)" in add.kernel_source(np.float32, vector=True)
    with pytest.raises(ValueError, match="no vector kernel for complex64"):
        add.inspect_ptx(np.complex64, vector=True)


def test_device_function_and_reuse_across_dtypes():
    @gpu.jit(device=True)
    def bigger_magnitude(a, b):
        return a if abs(a) >= abs(b) else b

    r = gpu.reduce(bigger_magnitude)
    a = np.array([3.0, -8.0, 5.0, 7.5] * 1000)
    assert r(a) == -8.0
    assert r(a.astype(np.int64)) == -8
    assert r(a.astype(np.float32)) == np.float32(-8.0)


def test_generated_kernel_is_inspectable():
    src = largest.kernel_source(np.float32)
    assert "gpu.shfl_down_sync" in src and "reduce_op(" in src
    ptx = largest.inspect_ptx(np.float32)
    assert "shfl.sync.down" in ptx
    assert "max.f32" in ptx  # the user's function, inlined


PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.isfile("/usr/local/cuda/bin/ptxas") else None)


@pytest.mark.skipif(PTXAS is None, reason="needs ptxas (the CUDA toolkit)")
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32,
                                   np.float64, np.complex64, np.complex128])
def test_generated_ptx_assembles(dtype, tmp_path):
    ptx = largest.inspect_ptx(dtype) if np.dtype(dtype).kind != "c" else add.inspect_ptx(dtype)
    target = next(line.split()[1] for line in ptx.splitlines() if line.strip().startswith(".target"))
    path = tmp_path / "reduce.ptx"
    path.write_text(ptx)
    proc = subprocess.run([PTXAS, f"-arch={target.split(',')[0]}", str(path), "-o", str(tmp_path / "reduce.cubin")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_errors_for_bad_input():
    with pytest.raises(TypeError, match="1-D arrays; got a 2-D array"):
        add(np.ones((2, 3)))
    with pytest.raises(TypeError, match="arrays of numbers"):
        add(np.array(["a", "b"]))
    with pytest.raises(TypeError, match=r"init=1\.5 is not a value of the array's dtype int32"):
        add(np.ones(4, np.int32), init=1.5)
    with pytest.raises(TypeError, match="cannot be converted"):
        add(np.ones(4), init=1j)
    with pytest.raises(TypeError, match="res must be a device array"):
        add(np.ones(4), res=np.zeros(1))
    with pytest.raises(TypeError, match="res has dtype float32"):
        add(np.ones(4), res=gpu.device_array(1, np.float32))
    with pytest.raises(ValueError, match="outside the array's length"):
        add(np.ones(4), size=5)
    with pytest.raises(TypeError, match="function of two arguments"):
        gpu.reduce(lambda a: a)
    with pytest.raises(TypeError, match="binary Python function"):
        gpu.reduce(3)

    @gpu.jit
    def kernel(a, b):
        pass

    with pytest.raises(TypeError, match="is a kernel"):
        gpu.reduce(kernel)


def test_error_in_the_function_names_its_line():
    def broken(a, b):
        return a + undefined_name  # noqa: F821

    with pytest.raises(gpu.CompileError) as info:
        gpu.reduce(broken)(np.ones(10))
    assert info.value.filename == __file__
    assert info.value.lineno == broken.__code__.co_firstlineno + 1


def test_function_returning_no_number():
    pair = gpu.reduce(lambda a, b: (a, b))
    with pytest.raises(TypeError, match=r"cannot reduce float64 arrays with '<lambda>' \(.*test_reduction.py:\d+\)"):
        pair(np.ones(10))


def test_small_grids_do_not_warn_about_occupancy(cuda):
    """The small grids of small arrays are the design, not a user's mistake: no low-occupancy warning on a GPU."""
    r = gpu.reduce(lambda a, b: a + b)
    d = gpu.to_device(np.ones(5000, np.float32))
    res = gpu.device_array(1, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpu.PerformanceWarning)
        r(d, res=res)
        r(d[:100], res=res)


class Foreign:
    """Another library's device array, seen only through __cuda_array_interface__ (as a CuPy array is)."""

    def __init__(self, device_array):
        self._owner = device_array
        self.__cuda_array_interface__ = device_array.__cuda_array_interface__


def test_foreign_device_arrays_in_place():
    a = np.arange(20000, dtype=np.int32)
    res = gpu.device_array(2, np.int32)
    assert add(Foreign(gpu.to_device(a))) == a.sum()
    assert add(Foreign(gpu.to_device(a)), res=Foreign(res), init=5) is None
    assert res.copy_to_host()[0] == a.sum() + 5
    assert add(Foreign(gpu.to_device(a[:0])), res=Foreign(res)) is None
    assert res.copy_to_host()[0] == 0


def test_another_librarys_jitted_function_is_compiled_from_its_python_function():
    class Jitted:  # what numba's CUDADispatcher offers: the Python function as py_func
        def __init__(self, fn):
            self.py_func = fn

        def __call__(self, *args):
            raise AssertionError("never called on the host")

    def smaller(a, b):
        return min(a, b)

    assert gpu.reduce(Jitted(smaller))(np.array([4, -2, 9] * 100, dtype=np.int16)) == -2
