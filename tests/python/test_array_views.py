"""Array views in kernels (`a[i, :]`, `a[:, j]`, `a[1:-1]`, `a[::-1]`, `a[i]` of a 2-D array), as numba-cuda
supports them, each checked against NumPy on the session's default backend (the CPU backend here). Covers
reading and writing through a view, slices of views, len/.shape/.size of views, views passed to and
returned from device functions, stores into a slice (a scalar fill and a same-rank copy), and the layouts
the views are typed with.
"""

import numpy as np
import pytest

import gpujit as cuda


@cuda.jit
def row_sums(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        row = a[i, :]
        s = 0.0
        for j in range(len(row)):
            s += row[j]
        out[i] = s


def test_row_wise_reduction_over_a_row_view():
    a = np.arange(35, dtype=np.float64).reshape(5, 7)
    out = np.zeros(5)
    row_sums[1, 8](a, out)
    np.testing.assert_array_equal(out, a.sum(axis=1))


@cuda.jit
def column_max(a, out):
    j = cuda.grid(1)
    if j < a.shape[1]:
        col = a[:, j]
        m = col[0]
        for i in range(1, col.size):
            m = max(m, col[i])
        out[j] = m


def test_column_view_is_strided():
    a = np.random.default_rng(0).integers(-100, 100, (6, 4)).astype(np.int32)
    out = np.zeros(4, np.int32)
    column_max[1, 4](a, out)
    np.testing.assert_array_equal(out, a.max(axis=0))


@cuda.jit
def stencil(x, out):
    inner = x[1:-1]
    left = x[:-2]
    right = x[2:]
    i = cuda.grid(1)
    if i < inner.shape[0]:
        out[i + 1] = (left[i] + inner[i] + right[i]) / 3


def test_three_point_stencil_on_interior_views():
    x = np.random.default_rng(1).random(50)
    out = np.zeros_like(x)
    stencil[1, 64](x, out)
    expected = np.zeros_like(x)
    expected[1:-1] = (x[:-2] + x[1:-1] + x[2:]) / 3
    np.testing.assert_allclose(out, expected, rtol=1e-15)


@cuda.jit
def reverse_and_stride(x, rev, evens, tail_back):
    r = x[::-1]
    e = x[::2]
    t = x[-2:1:-3]
    i = cuda.grid(1)
    if i < len(r):
        rev[i] = r[i]
    if i < len(e):
        evens[i] = e[i]
    if i < len(t):
        tail_back[i] = t[i]


def test_negative_and_positive_steps():
    x = np.arange(11, dtype=np.int64) * 10
    rev = np.zeros(11, np.int64)
    evens = np.zeros(6, np.int64)
    tail_back = np.full(3, -1, np.int64)
    reverse_and_stride[1, 16](x, rev, evens, tail_back)
    np.testing.assert_array_equal(rev, x[::-1])
    np.testing.assert_array_equal(evens, x[::2])
    np.testing.assert_array_equal(tail_back, x[-2:1:-3])


@cuda.jit
def shapes_of_views(a, n, out):
    out[0] = len(a[1:n])
    out[1] = a[1:n, ::2].shape[1]
    out[2] = a[::2].size
    out[3] = len(a[5:1])  # empty
    out[4] = len(a[-100:100])  # clamped
    out[5] = a[1:][1:].shape[0]  # a slice of a view
    out[6] = a[2].shape[0]
    out[7] = len(a[n:0:-1])


def test_view_extents_follow_python_clamping():
    a = np.zeros((7, 5), np.float32)
    out = np.zeros(8, np.int64)
    shapes_of_views[1, 1](a, 4, out)
    n = 4
    expected = [len(a[1:n]), a[1:n, ::2].shape[1], a[::2].size, len(a[5:1]), len(a[-100:100]),
                a[1:][1:].shape[0], a[2].shape[0], len(a[n:0:-1])]
    np.testing.assert_array_equal(out, expected)


@cuda.jit
def scale_rows(a, factors):
    i = cuda.grid(1)
    if i < a.shape[0]:
        row = a[i]
        for j in range(row.shape[0]):
            row[j] = row[j] * factors[i]


def test_writing_through_a_row_view_changes_the_base():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    f = np.array([1, 2, 3], np.float32)
    expected = a * f[:, None]
    scale_rows[1, 4](a, f)
    np.testing.assert_array_equal(a, expected)


@cuda.jit(device=True)
def dot(u, v):
    s = 0.0
    for k in range(len(u)):
        s += u[k] * v[k]
    return s


@cuda.jit(device=True)
def middle(v):
    return v[1:-1]


@cuda.jit
def matvec(m, x, y, mid_sum):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = dot(m[i, :], x)
    if i == 0:
        inner = middle(x)
        s = 0.0
        for k in range(inner.size):
            s += inner[k]
        mid_sum[0] = s


def test_views_passed_to_and_returned_from_device_functions():
    rng = np.random.default_rng(2)
    m = rng.integers(-9, 9, (5, 6)).astype(np.float64)
    x = rng.integers(-9, 9, 6).astype(np.float64)
    y = np.zeros(5)
    mid_sum = np.zeros(1)
    matvec[1, 8](m, x, y, mid_sum)
    np.testing.assert_array_equal(y, m @ x)
    assert mid_sum[0] == x[1:-1].sum()


@cuda.jit
def transpose_column_view(m, out):
    # A view of a view of a column: m[:, 1][::-1] reads column 1 bottom up.
    col = m[:, 1]
    back = col[::-1]
    for i in range(back.size):
        out[i] = back[i]


def test_slice_of_a_strided_view():
    m = np.arange(20, dtype=np.int16).reshape(5, 4)
    out = np.zeros(5, np.int16)
    transpose_column_view[1, 1](m, out)
    np.testing.assert_array_equal(out, m[:, 1][::-1])


@cuda.jit
def fill_slices(a, b):
    a[1:3] = 7
    a[-2:] = 1.5
    b[0, :] = -1
    b[1:, ::2] = 9
    b[:, -1] = b[:, 0]  # a same-rank copy


def test_storing_into_slices():
    a = np.zeros(8, np.float32)
    b = np.arange(12, dtype=np.int64).reshape(3, 4)
    fill_slices[1, 1](a, b)
    ea = np.zeros(8, np.float32)
    ea[1:3] = 7
    ea[-2:] = 1.5
    eb = np.arange(12, dtype=np.int64).reshape(3, 4)
    eb[0, :] = -1
    eb[1:, ::2] = 9
    eb[:, -1] = eb[:, 0]
    np.testing.assert_array_equal(a, ea)
    np.testing.assert_array_equal(b, eb)


@cuda.jit
def copy_rows(src, dst):
    i = cuda.grid(1)
    if i < dst.shape[0]:
        dst[i, :] = src[i, ::-1]


def test_copying_a_row_into_a_row_of_another_dtype():
    src = np.arange(15, dtype=np.int32).reshape(3, 5)
    dst = np.zeros((3, 5), np.float64)
    copy_rows[1, 4](src, dst)
    np.testing.assert_array_equal(dst, src[:, ::-1])


@cuda.jit
def bad_bound(a):
    x = a[1.5:]  # noqa: F841


@cuda.jit
def zero_step(a):
    x = a[::0]  # noqa: F841


@cuda.jit
def too_many(a):
    x = a[0, 1, :]  # noqa: F841


@cuda.jit
def aug_slice(a):
    a[1:] += 1


@pytest.mark.parametrize(
    "kernel, message",
    [
        (bad_bound, "slice bound must be an integer or None, got float64"),
        (zero_step, "slice step cannot be zero"),
        (too_many, "too many indices: array 'a' has 2 dimensions but 3 indices were given"),
        (aug_slice, "'\\+=' on an array slice is not supported; use a loop"),
    ],
)
def test_bad_slices_are_compile_errors(kernel, message):
    with pytest.raises(cuda.CompileError, match=message):
        kernel.inspect_ptx("void(float32[:, ::1])")


# ---------------------------------------------------------------------------------------------------------
# a.reshape(shape) and a.view(dtype): the same memory under a new shape or dtype.

@cuda.jit
def reshape_to_2d(a, shape, out):
    b = a.reshape(shape)
    for i in range(b.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = b[i, j]


@cuda.jit
def reshape_by_ints(a, rows, out):
    b = a.reshape(rows, -1)
    out[0] = b.shape[0]
    out[1] = b.shape[1]
    out[2] = b[rows - 1, 0]
    b[0, 0] = -1


def test_reshape_takes_a_tuple_a_run_time_shape_and_one_minus_one():
    a = np.arange(24, dtype=np.int64)
    for shape in [(4, 6), (8, 3), (-1, 6), (4, -1)]:
        expected = a.reshape(shape)
        out = np.zeros(expected.shape, np.int64)
        reshape_to_2d[1, 1](a, shape, out)
        np.testing.assert_array_equal(out, expected)
    # A higher-rank C-contiguous array flattens in row-major order.
    a6 = np.arange(24, dtype=np.float32).reshape((1, 8, 1, 1, 3, 1))
    out = np.zeros((4, 6), np.float32)
    reshape_to_2d[1, 1](a6, (4, 6), out)
    np.testing.assert_array_equal(out, a6.reshape(4, 6))
    # Several integer arguments; the view writes through to the array.
    out = np.zeros(3, np.int64)
    reshape_by_ints[1, 1](a, 3, out)
    np.testing.assert_array_equal(out, [3, 8, 16])
    assert a[0] == -1


@cuda.jit
def int32_at(byte_arr, start, stop, out):
    out[0] = byte_arr[start:stop].view(np.int32)[0]
    words = byte_arr.view(np.uint32)
    out[1] = words.shape[0]


def test_view_reinterprets_the_bytes_of_the_last_axis():
    byte_arr = np.arange(256, dtype=np.uint8)
    out = np.zeros(2, np.int64)
    for start in range(0, 256, 4):
        int32_at[1, 1](byte_arr, start, start + 4, out)
        assert out[0] == byte_arr[start:start + 4].view(np.int32)[0]
        assert out[1] == 64


def test_reshape_and_view_errors_point_at_the_call():
    def strided(a, out):
        out[0] = a[::2].reshape(2, 2)[0, 0]

    with pytest.raises(cuda.CompileError, match=r"a\.reshape\(\) needs a C-contiguous array"):
        cuda.jit(strided)[1, 1](np.arange(8.0), np.zeros(1))

    def float_shape(a, out):
        out[0] = a.reshape(2.0)[0]

    with pytest.raises(cuda.CompileError, match=r"takes the new shape as integers or one tuple of integers, got "
                                                r"float64"):
        cuda.jit(float_shape)[1, 1](np.arange(8.0), np.zeros(1))

    def not_a_dtype(a, out):
        out[0] = a.view(3)[0]

    with pytest.raises(cuda.CompileError, match=r"a\.view\(\) takes a NumPy scalar dtype"):
        cuda.jit(not_a_dtype)[1, 1](np.arange(8.0), np.zeros(1))

    def order_keyword(a, out):
        out[0] = a.reshape(2, 4, order="F")[0, 0]

    with pytest.raises(cuda.CompileError, match=r"takes no keyword arguments in a kernel \('order'\)"):
        cuda.jit(order_keyword)[1, 1](np.arange(8.0), np.zeros(1))
