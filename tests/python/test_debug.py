"""debug=True (and boundscheck=True): bounds-checked array indexing. On the CPU backend an out-of-bounds index
raises IndexError after the launch, naming the index, axis and size, the kernel (and device function), the
source line, and the thread and block; the block's other threads stop without being reported as a
deadlock. Without the option nothing is checked and the code has no check in it. Also: a kernel that
deadlocks at a barrier names itself."""

import re

import numpy as np
import pytest

import gpujit as gpu


pytestmark = pytest.mark.usefixtures("cpu_backend")


def line_of(marker):
    """file:line of the line of this file that holds `marker` in a comment."""
    with open(__file__) as f:
        for number, text in enumerate(f, 1):
            if text.rstrip().endswith("# " + marker):
                return f"{__file__}:{number}"
    raise AssertionError(f"no line marked {marker}")


@gpu.jit(debug=True, opt=False)
def fill(out):
    i = gpu.grid(1)
    out[i] = i  # FILL


def test_an_index_past_the_end_raises_index_error_naming_thread_block_and_line():
    out = np.zeros(6)
    with pytest.raises(IndexError) as info:
        fill[2, 4](out)  # threads 6 and 7 (block 1, threads 2 and 3) are past the end
    assert str(info.value) == (f"index 6 is out of bounds for axis 0 with size 6 in kernel 'fill' at "
                               f"{line_of('FILL')}, thread (2, 0, 0) of block (1, 0, 0)")
    # The kernel and the executor are fine afterwards.
    fill[2, 3](out)
    np.testing.assert_array_equal(out, np.arange(6.0))


@gpu.jit(debug=True, opt=False)
def read_back(a, k, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[k]  # NEGATIVE


def test_a_negative_index_is_checked_after_python_wraps_it():
    out = np.zeros(1)
    read_back[1, 1](np.arange(6.0), -6, out)
    assert out[0] == 0.0  # a[-6] is a[0]
    with pytest.raises(IndexError, match=r"^index -7 is out of bounds for axis 0 with size 6 in kernel 'read_back'"):
        read_back[1, 1](np.arange(6.0), -7, out)


@gpu.jit(debug=True, opt=False)
def transpose(a, out):
    x, y = gpu.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = a[y, x + 1]  # AXIS1


def test_the_axis_and_its_extent_are_named_in_a_2d_grid():
    a = np.zeros((3, 4))
    with pytest.raises(IndexError) as info:
        transpose[(1, 1), (4, 3)](a, np.zeros((4, 3)))
    assert str(info.value) == (f"index 4 is out of bounds for axis 1 with size 4 in kernel 'transpose' at "
                               f"{line_of('AXIS1')}, thread (3, 0, 0) of block (0, 0, 0)")


@gpu.jit(device=True)
def pick(a, i):
    return a[i]  # DEVICE


@gpu.jit(debug=True, opt=False)
def gather(a, idx, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = pick(a, idx[i])


def test_an_index_error_in_a_device_function_names_it_and_the_kernel():
    idx = np.array([0, 1, 2, 9], np.int64)
    with pytest.raises(IndexError) as info:
        gather[1, 4](np.arange(5.0), idx, np.zeros(4))
    assert str(info.value) == (f"index 9 is out of bounds for axis 0 with size 5 in device function 'pick' of "
                               f"kernel 'gather' at {line_of('DEVICE')}, thread (3, 0, 0) of block (0, 0, 0)")


@gpu.jit(debug=True, opt=False)
def stage_through_shared(a, out):
    tile = gpu.shared.array(8, gpu.float64)
    t = gpu.threadIdx.x
    tile[t] = a[t + 1]  # SHARED
    gpu.syncthreads()
    out[t] = tile[7 - t]


def test_with_barriers_the_index_error_wins_over_the_threads_left_waiting():
    # Thread 7 fails before the barrier the other 7 threads wait at: an IndexError, not a deadlock.
    with pytest.raises(IndexError) as info:
        stage_through_shared[1, 8](np.arange(8.0), np.zeros(8))
    assert str(info.value).endswith(f"at {line_of('SHARED')}, thread (7, 0, 0) of block (0, 0, 0)")
    out = np.zeros(8)
    stage_through_shared[1, 8](np.arange(9.0), out)
    np.testing.assert_array_equal(out, np.arange(8.0, 0.0, -1.0))


@gpu.jit(debug=True, opt=False)
def shift_across_the_grid(a, out):
    g = gpu.cg.this_grid()
    i = gpu.grid(1)
    a[i + 2] = i  # GRID
    g.sync()
    out[i] = a[i]


def test_an_index_error_stops_a_grid_that_waits_at_a_grid_sync():
    # Block 1 fails before the grid sync that block 0 waits at: an IndexError, not a deadlock.
    with pytest.raises(IndexError, match=re.escape(f"at {line_of('GRID')}, thread (2, 0, 0) of block (1, 0, 0)")):
        shift_across_the_grid[2, 4](np.zeros(8, np.int64), np.zeros(8, np.int64))


@gpu.jit(boundscheck=True)
def atomic_count(hist, keys):
    i = gpu.grid(1)
    if i < keys.size:
        gpu.atomic.add(hist, keys[i], 1)  # ATOMIC


def test_boundscheck_alone_checks_atomics_too():
    hist = np.zeros(4, np.int32)
    atomic_count[1, 4](hist, np.array([0, 1, 1, 3]))
    np.testing.assert_array_equal(hist, [1, 2, 0, 1])
    with pytest.raises(IndexError, match=r"^index 4 is out of bounds for axis 0 with size 4 in kernel 'atomic_count'"):
        atomic_count[1, 4](hist, np.array([0, 1, 4, 3]))


@gpu.jit
def unchecked(out):
    i = gpu.grid(1)
    out[i] = i


def test_without_debug_nothing_is_checked():
    # The launch writes one element past the end of a 7-element device array (its allocation is padded, so
    # the write lands in memory the array owns); nothing is raised.
    d = gpu.to_device(np.zeros(7))
    unchecked[1, 8](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(7.0))
    sig = "void(float64[::1])"
    assert "gpujit.where" not in unchecked.inspect_llvm(sig)
    assert "gpujit_error" not in unchecked.inspect_ptx(sig) and "exit;" not in unchecked.inspect_ptx(sig)
    checked_ir = fill.inspect_llvm(sig)
    assert "@gpujit.where" in checked_ir and "@llvm.nvvm.exit" in checked_ir
    assert "gpujit_error" in fill.inspect_ptx(sig) and "exit;" in fill.inspect_ptx(sig)


@gpu.jit
def early_exit(a):
    i = gpu.grid(1)
    if i >= a.size:
        return
    gpu.syncthreads()
    a[i] = 1.0


def test_a_deadlocked_kernel_names_itself_and_its_block():
    with pytest.raises(RuntimeError, match=r"^kernel 'early_exit' deadlocked in block \(0, 0, 0\): 40 of 64 threads "
                                           r"wait at syncthreads\(\) while the other 24 returned"):
        early_exit[1, 64](np.zeros(40))


def shape_from_the_end(ary, out):
    x = gpu.threadIdx.x
    out[x] = ary.shape[-x]  # TUPLE


def test_a_run_time_tuple_index_out_of_range_raises_under_debug_and_wraps_otherwise():
    ary = np.zeros((4, 5))
    out = np.zeros(2, np.int64)
    gpu.jit(shape_from_the_end)[1, 2](ary, out)
    assert list(out) == [4, 5]  # shape[0], shape[-1]
    out4 = np.zeros(4, np.int64)
    with pytest.raises(IndexError, match=r"^tuple index out of range: index -3 of a tuple of 2 in kernel "
                                         r"'shape_from_the_end' at " + re.escape(line_of("TUPLE")) +
                                         r", thread \(3, 0, 0\) of block \(0, 0, 0\)"):
        gpu.jit(debug=True, opt=False)(shape_from_the_end)[1, 4](ary, out4)
    ptx, _ = gpu.compile_ptx(shape_from_the_end, "void(float64[:, ::1], int64[::1])", debug=True)
    # The GPU records the tuple's length and where the check is (a .global string, written as its bytes in
    # the PTX) for the runtime, which raises the same message; the thread exits.
    assert ", ".join(str(c) for c in b"kernel 'shape_from_the_end' at ") in ptx and "exit;" in ptx


# ---------------------------------------------------------------------------------------------------------
# On the GPU a failed check does not trap (a trap ends the CUDA context for the whole process): the first
# failing thread fills an error record (codegen/device_error.h) that the runtime reads after the launch.

def test_the_gpu_check_writes_an_error_record_and_exits_instead_of_trapping():
    def read(a, i, out):
        out[0] = a[i]

    ptx, _ = gpu.compile_ptx(read, "void(float32[::1], int64, float32[::1])", debug=True)
    assert ".visible .global .align 8 .b8 gpujit_error[128]" in ptx
    assert "global.cas.b64" in ptx and "exit;" in ptx
    assert "trap;" not in ptx
    plain, _ = gpu.compile_ptx(read, "void(float32[::1], int64, float32[::1])")
    assert "gpujit_error" not in plain


def test_the_runtime_raises_the_recorded_error_and_clears_the_record(fake):
    import ctypes

    @gpu.jit(debug=True, opt=False)
    def read(a, i, out):
        out[0] = a[i]

    a, out = gpu.to_device(np.zeros(4, np.float32)), gpu.to_device(np.zeros(1, np.float32))
    read[1, 1](a, 2, out)  # the fake driver runs nothing: the record stays clear, no error
    record = (ctypes.c_uint64 * 16).from_address(fake.last_global())
    # What a failing thread leaves (a GPU writes it; the fake's device memory is host memory).
    where = ctypes.create_string_buffer(b"kernel 'read' at test.py:3")
    for slot, value in {0: 1, 1: 0, 2: ctypes.addressof(where), 3: len(where.value), 4: 7, 5: 4, 6: 0,
                        7: 5, 8: 0, 9: 0, 10: 2, 11: 0, 12: 0}.items():
        record[slot] = value
    with pytest.raises(IndexError, match=re.escape("index 7 is out of bounds for axis 0 with size 4 in kernel "
                                                   "'read' at test.py:3, thread (5, 0, 0) of block (2, 0, 0)")):
        read[1, 1](a, 2, out)
    assert list(record) == [0] * 16
    read[1, 1](a, 2, out)  # cleared: the next launch is fine


@gpu.jit(device=True)
def _put(dt, nothing, x, y):
    x[0] = dt(1.5) + y


@gpu.jit(debug=True, opt=False)
def _put_kernel(x):
    _put(np.float32, (), x, np.float32(2.0))


def test_under_debug_a_device_function_takes_a_dtype_and_an_empty_tuple():
    # Neither passes anything: debug=True compiles at -O0, where NVPTX's code generator met them as empty
    # parameters and LLVM aborted the process.
    x = np.zeros(1, np.float32)
    _put_kernel[1, 1](x)
    assert x[0] == 3.5
    assert "_put" in next(iter(_put_kernel.inspect_ptx().values()))
