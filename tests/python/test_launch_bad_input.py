"""Bad input at launch, on both targets: the CPU backend (kernels really run) and the CUDA path (a GPU, or the
fake driver). Each bad argument or launch configuration raises a Python exception naming the kernel, the
parameter, what was given and what was expected, never a crash or a hang; inputs that are unusual but valid
(empty and 0-d arrays, reversed, strided and transposed views) work, with the results NumPy gives.

The `case_*` functions raise and return one exception each; test_bad_input checks it against its row of
docs/reliability.md ("Bad input at launch") on both targets, so the doc's table is what users see.
"""

import warnings

import numpy as np
import pytest
from conftest import FAKE_LIB, REAL_GPU, FakeDriver, u64

import gpujit as gpu
from reliability_doc import check_row

SECTION = "Bad input at launch"


@pytest.fixture(params=["cpu", "cuda"])
def target(request):
    """Runs the test on the CPU backend, then on the CUDA one (a real GPU, or the fake driver)."""
    if request.param == "cpu":
        request.getfixturevalue("cpu_backend")
    else:
        if not REAL_GPU and FAKE_LIB is None:
            pytest.skip("no CUDA driver here")
        request.getfixturevalue("cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpu.PerformanceWarning)  # low occupancy, implicit copies
        yield request.param


def kernels_run(target):
    """Whether kernels really run (the fake driver records launches but runs nothing)."""
    return target == "cpu" or REAL_GPU


@gpu.jit
def fill(a, v):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = v


@gpu.jit
def index_2d(a):
    i, j = gpu.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = i * 100 + j


@gpu.jit
def set_scalar(a, v):
    a[()] = v


@gpu.jit("void(float32[::1], float32)")
def typed(a, v):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = v


@gpu.jit
def dynamic_shared(a):
    s = gpu.shared.array(0, gpu.float32)
    s[0] = 1.0
    a[0] = s[0]


def raised(exc_type, fn, *args, **kwargs):
    with pytest.raises(exc_type) as info:
        fn(*args, **kwargs)
    return info.value


def dev(target, host):
    """`host` as the target's own array: a DeviceArray on CUDA, the NumPy array itself on the CPU."""
    return gpu.to_device(host) if target == "cuda" else host


# ---- arguments ----

def case_too_few_arguments(target):
    return raised(TypeError, fill[1, 32], dev(target, np.zeros(4, np.float32)))


def case_too_many_arguments(target):
    return raised(TypeError, fill[1, 32], dev(target, np.zeros(4, np.float32)), 1.0, 2.0)


def case_keyword_argument(target):
    return raised(TypeError, fill[1, 32], dev(target, np.zeros(4, np.float32)), v=1.0)


def case_string_for_a_scalar(target):
    return raised(TypeError, fill[1, 32], dev(target, np.zeros(4, np.float32)), "1.0")


def case_none(target):
    return raised(TypeError, fill[1, 32], None, 1.0)


def case_arbitrary_object(target):
    return raised(TypeError, fill[1, 32], object(), 1.0)


def case_list_for_an_array(target):
    return raised(TypeError, fill[1, 32], [1.0, 2.0], 1.0)


def case_array_for_a_scalar(target):
    a = dev(target, np.zeros(4, np.float32))
    return raised(TypeError, typed[1, 32], a, a)


def case_scalar_for_an_array(target):
    return raised(TypeError, typed[1, 32], 1.0, 1.0)


def case_wrong_dtype(target):
    return raised(TypeError, typed[1, 32], dev(target, np.zeros(4, np.int64)), 1.0)


def case_wrong_layout(target):
    # A device array's view; a NumPy view is accepted, copied to a contiguous array and back.
    return raised(TypeError, typed[1, 32], gpu.to_device(np.zeros(8, np.float32))[::2], 1.0)


def case_wrong_dimension_count(target):
    return raised(TypeError, typed[1, 32], dev(target, np.zeros((2, 4), np.float32)), 1.0)


def case_wrong_dimension_count_lazy(target):
    return raised(gpu.CompileError, index_2d[1, 32], dev(target, np.zeros(4, np.float32)))


# ---- launch configuration ----

def case_grid_of_zero(target):
    return raised(gpu.LaunchError, lambda: fill[0, 32])


def case_block_of_zero(target):
    return raised(gpu.LaunchError, lambda: fill[1, (32, 0)])


def case_negative_grid(target):
    return raised(gpu.LaunchError, lambda: fill[-1, 32])


def case_negative_block(target):
    return raised(gpu.LaunchError, lambda: fill[1, -32])


def case_block_over_the_limit(target):
    return raised(gpu.LaunchError, lambda: fill[1, 2048])


def case_block_z_over_the_limit(target):
    return raised(gpu.LaunchError, lambda: fill[1, (1, 1, 65)])


def case_block_product_over_1024(target):
    return raised(gpu.LaunchError, lambda: fill[1, (32, 32, 2)])


def case_grid_y_over_the_limit(target):
    return raised(gpu.LaunchError, lambda: fill[(1, 65536), 32])


def case_grid_over_2_pow_32(target):
    return raised(gpu.LaunchError, lambda: fill[1 << 32, 32])


def case_four_dimensions(target):
    return raised(ValueError, lambda: fill[(1, 1, 1, 1), 32])


def case_float_grid(target):
    return raised(TypeError, lambda: fill[2.0, 32])


def case_missing_block(target):
    return raised(TypeError, lambda: fill[1])


def case_dynamic_shared_over_the_limit(target):
    a = dev(target, np.zeros(4, np.float32))
    return raised(gpu.LaunchError, dynamic_shared[1, 32, 0, 1 << 30], a)


def case_negative_dynamic_shared(target):
    return raised(gpu.LaunchError, lambda: dynamic_shared[1, 32, 0, -1])


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input(target, case):
    exc = CASES[case](target)
    check_row(SECTION, f"test_bad_input[{case}]", exc)
    # Nothing is left half-done: the same kernel launches normally next.
    host = np.zeros(64, np.float32)
    a = dev(target, host)
    fill[1, 64](a, 7.0)
    if kernels_run(target):
        out = a if target == "cpu" else a.copy_to_host()
        assert (out == 7.0).all()


# ---- unusual but valid input works ----

def test_empty_arrays(target):
    a = dev(target, np.zeros(0, np.float32))
    fill[1, 32](a, 1.0)
    e = dev(target, np.zeros((0, 5), np.float32))
    index_2d[(1, 1), (8, 8)](e)
    assert a.shape == (0,) and e.shape == (0, 5)


def test_zero_dimensional_arrays(target):
    host = np.array(0.0, np.float32)
    a = dev(target, host)
    set_scalar[1, 1](a, 4.5)
    if kernels_run(target):
        out = a if target == "cpu" else a.copy_to_host()
        assert out.shape == () and out[()] == 4.5


VIEWS = {  # name: (the base array's shape, the view)
    "reversed": ((40,), lambda a: a[::-1]),
    "reversed_and_strided": ((40,), lambda a: a[-2::-3]),
    "every_other_column": ((6, 8), lambda a: a[:, ::2]),
    "reversed_rows_and_columns": ((6, 8), lambda a: a[::-1, ::-1]),
    "strided_and_offset": ((6, 8), lambda a: a[1::2, 3::3]),
}


@pytest.mark.parametrize("view", list(VIEWS))
def test_strided_and_negative_stride_views_write_where_numpy_does(target, view):
    shape, take = VIEWS[view]
    base = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    expected = base.copy()
    v = take(expected)
    if v.ndim == 1:
        v[:] = 7.0
    else:
        v[...] = np.arange(v.shape[0])[:, None] * 100 + np.arange(v.shape[1])[None, :]
    a = dev(target, base)
    view_of_a = take(a)
    if view_of_a.ndim == 1:
        fill[1, 64](view_of_a, 7.0)
    else:
        index_2d[(1, 1), (16, 16)](view_of_a)
    if kernels_run(target):
        out = a if target == "cpu" else a.copy_to_host()
        np.testing.assert_array_equal(out, expected)
    else:
        # The fake driver runs nothing, but it recorded what the kernel was given: the view's own address,
        # shape and byte strides, negative ones included.
        iface = view_of_a.__cuda_array_interface__
        params = [u64(p) for p in FakeDriver(FAKE_LIB).last_launch()[5]]
        strides = iface["strides"] or (4,)
        nd = len(iface["shape"])
        signed = [p if p < 1 << 63 else p - (1 << 64) for p in params[:1 + 2 * nd]]
        assert signed == [iface["data"][0], *iface["shape"], *strides]


@pytest.mark.parametrize("view", ["transposed", "reversed_columns", "every_other_row_reversed"])
def test_strided_numpy_views_are_written_in_place(target, view):
    """A NumPy view (a transpose too) is written where NumPy says: on the CPU in place, on the CUDA path
    through a contiguous device copy that is copied back into the view. (A device array's `.T` is a new
    C-contiguous array, as numba-cuda's is, so a kernel writing it does not change the original.)"""
    take = {"transposed": lambda a: a.T, "reversed_columns": lambda a: a[:, ::-1],
            "every_other_row_reversed": lambda a: a[::-2]}[view]
    base = np.zeros((4, 6), np.float32)
    expected = base.copy()
    v = take(expected)
    v[...] = np.arange(v.shape[0])[:, None] * 100 + np.arange(v.shape[1])[None, :]
    index_2d[(1, 1), (8, 8)](take(base))
    if kernels_run(target):
        np.testing.assert_array_equal(base, expected)
