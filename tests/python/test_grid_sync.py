"""cg.this_grid().sync(): a barrier across every block of the grid. On a GPU the kernel is launched
cooperatively (all blocks resident); the CPU backend runs every block at once on its own OS thread, within a
limit on the grid's size. Each test reads values other blocks wrote before the barrier, which is only right
if no block passed the barrier early."""

import numpy as np
import pytest

import gpujit as gpu


@gpu.jit
def rotate(a, out):
    g = gpu.cg.this_grid()
    i = gpu.grid(1)
    a[i] = i * 3
    g.sync()
    out[i] = a[(i + 65) % a.size]


def test_values_written_before_the_barrier_are_seen_across_blocks():
    n = 8 * 64
    a = np.zeros(n, np.int64)
    out = np.zeros(n, np.int64)
    rotate[8, 64](a, out)
    np.testing.assert_array_equal(out, ((np.arange(n) + 65) % n) * 3)


@gpu.jit
def scan_steps(x, steps):
    # A Hillis-Steele prefix sum over the whole grid: two grid barriers per step, one between the reads and
    # the writes of x, one before the next step reads.
    i = gpu.grid(1)
    grid = gpu.cg.this_grid()
    offset = 1
    for _ in range(steps):
        v = x[i]
        if i >= offset:
            v += x[i - offset]
        grid.sync()
        x[i] = v
        grid.sync()
        offset *= 2


def test_many_barriers_in_a_loop_give_a_grid_wide_prefix_sum():
    blocks, threads = 6, 32
    n = blocks * threads
    x = np.arange(1, n + 1, dtype=np.int64)
    steps = int(np.ceil(np.log2(n)))
    scan_steps[blocks, threads](x, steps)
    np.testing.assert_array_equal(x, np.cumsum(np.arange(1, n + 1)))
    # Launched again, the barrier's counter (reused across launches) still works.
    x[:] = 1
    scan_steps[blocks, threads](x, steps)
    np.testing.assert_array_equal(x, np.arange(1, n + 1))


@gpu.jit(device=True)
def barrier_in_device_function(grid):
    return grid.sync()


@gpu.jit
def single_threads(a, out):
    i = gpu.grid(1)
    a[i] = i + 1
    status = barrier_in_device_function(gpu.cg.this_grid())
    out[i] = a[a.size - 1 - i] + status


def test_blocks_of_one_thread_and_a_barrier_in_a_device_function():
    n = 16
    a = np.zeros(n, np.int64)
    out = np.zeros(n, np.int64)
    single_threads[n, 1](a, out)
    np.testing.assert_array_equal(out, np.arange(n, 0, -1))


@gpu.jit
def early_exit(a):
    i = gpu.grid(1)
    if gpu.blockIdx.x == 1:
        return
    gpu.cg.this_grid().sync()
    a[i] = 1


def test_cpu_backend_reports_a_block_that_skips_the_barrier_and_grids_too_large():
    if gpu._core.backend_name() != "cpu":
        pytest.skip("a GPU hangs here; the CPU backend reports it")
    with pytest.raises(Exception, match="returned without reaching it"):
        early_exit[3, 32](np.zeros(96, np.int64))
    with pytest.raises(Exception, match="at most 1024 blocks"):
        rotate[2048, 1](np.zeros(2048, np.int64), np.zeros(2048, np.int64))


@gpu.jit
def takes_grid(a):
    gpu.cg.this_grid()
    a[0] = 1


@gpu.jit
def no_grid(a):
    a[0] = gpu.grid(1)


def test_overloads_say_whether_the_kernel_is_cooperative():
    a = np.zeros(1)
    for kernel, expected in ((rotate, True), (takes_grid, True), (no_grid, False)):
        if kernel is rotate:
            kernel[1, 1](np.zeros(1, np.int64), np.zeros(1, np.int64))
        else:
            kernel[1, 1](a)
        for overload in kernel.overloads.values():
            assert overload.cooperative is expected
            assert list(overload._codelibrary._linking_files) == []


def test_max_cooperative_grid_blocks_depends_on_the_block_size_only():
    sig = "void(int64[::1], int64[::1])"
    overload = gpu.jit(sig)(rotate.py_func).overloads[sig]
    per_256 = overload.max_cooperative_grid_blocks(256)
    assert per_256 >= 1
    assert overload.max_cooperative_grid_blocks((16, 16)) == per_256
    assert overload.max_cooperative_grid_blocks((16, 4, 4)) == per_256
    assert overload.max_cooperative_grid_blocks(32) >= per_256
    with pytest.raises(ValueError, match="1 to"):
        overload.max_cooperative_grid_blocks(0)
    # a grid of that many blocks launches (on the cpu backend, within its limit on a cooperative grid)
    blocks = min(overload.max_cooperative_grid_blocks(32), 16)
    n = blocks * 32
    out = np.zeros(n, np.int64)
    rotate[blocks, 32](np.zeros(n, np.int64), out)
    np.testing.assert_array_equal(out, ((np.arange(n) + 65) % n) * 3)


def test_max_cooperative_grid_blocks_asks_the_drivers_occupancy(fake):
    sig = "void(int64[::1], int64[::1])"
    overload = gpu.jit(sig)(rotate.py_func).overloads[sig]
    calls = fake.calls("cuOccupancyMaxActiveBlocksPerMultiprocessor")
    # the fake driver: 132 multiprocessors, 2048 threads each
    assert overload.max_cooperative_grid_blocks(256) == 132 * 8
    assert overload.max_cooperative_grid_blocks((32, 32), 0) == 132 * 2
    assert fake.calls("cuOccupancyMaxActiveBlocksPerMultiprocessor") == calls + 2
