"""The kernel language feature by feature, numba-cuda style (`import gpujit as cuda`), checked against NumPy or
exact expectations: shared, dynamic shared, local and constant memory; barriers; every atomic with numba's
semantics; the integer/float intrinsics; print(); recursive device functions; tuples.

These run on the session's default backend: the CPU backend here, the GPU where there is one (conftest.py),
so the same assertions hold on both.
"""

import linecache
import math

import numpy as np
import pytest

import gpujit as cuda

TILE = 16
SHAPE = (2, TILE)
WEIGHTS = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32)
PRIMES = np.array([2, 3, 5, 7, 11, 13], dtype=np.int64)
LABEL = "value"


# ---------------------------------------------------------------------------------------------------------
# Memory spaces


@cuda.jit
def shared_shapes(out):
    a = cuda.shared.array(TILE, np.int32)
    b = cuda.shared.array(SHAPE, dtype=np.float64)
    c = cuda.shared.array((2, 2, TILE), cuda.uint8)
    t = cuda.threadIdx.x
    a[t] = t
    b[1, t] = 0.5 * t
    c[1, 0, t] = 3
    cuda.syncthreads()
    out[cuda.grid(1)] = a[TILE - 1 - t] + b[1, TILE - 1 - t] + c[1, 0, (t + 1) % TILE] + len(a) + b.size


def test_shared_arrays_of_constant_shapes_and_several_dtypes():
    out = np.zeros(32)
    shared_shapes[2, TILE](out)
    t = np.arange(32) % TILE
    np.testing.assert_array_equal(out, (15 - t) * 1.5 + 3 + 16 + 32)


@cuda.jit
def dynamic_shared(x, bits, extents):
    f = cuda.shared.array(0, np.float32)
    i = cuda.shared.array(shape=0, dtype=np.int32)
    t = cuda.threadIdx.x
    f[t] = x[t]
    cuda.syncthreads()
    bits[t] = i[t]
    if t == 0:
        extents[0] = len(f)
        extents[1] = i.size


def test_dynamic_shared_arrays_alias_one_buffer_sized_by_the_launch():
    x = np.array([1.5, -2.0, 0.0, 3.25], np.float32)
    bits = np.zeros(4, np.int32)
    extents = np.zeros(2, np.int64)
    dynamic_shared[1, 4, 0, 48](x, bits, extents)
    np.testing.assert_array_equal(bits, x.view(np.int32))
    np.testing.assert_array_equal(extents, [12, 12])


ALIGN = 128


@cuda.jit
def aligned_arrays(out, dyn_out):
    t = cuda.threadIdx.x
    tag = cuda.shared.array(3, np.uint8)
    wide = cuda.shared.array(32, np.float64, alignment=256)
    grid = cuda.shared.array((2, 32), dtype=np.int32, alignment=ALIGN)
    dyn = cuda.shared.array(0, np.float32, alignment=64)
    acc = cuda.local.array(4, np.int16, alignment=32)
    if t < 3:
        tag[t] = 7 + t
    wide[t] = 0.5 * t
    grid[0, t] = t
    grid[1, t] = -t
    dyn[t] = 2.0 * t
    for j in range(4):
        acc[j] = t + j
    cuda.syncthreads()
    out[t] = tag[t % 3] + wide[31 - t] + grid[0, t] - grid[1, 31 - t] + acc[3]
    dyn_out[t] = dyn[31 - t] + len(dyn)


def test_aligned_shared_and_local_arrays_keep_their_own_data():
    # Every array is written by every thread and read back after the barrier: an alignment that made two
    # arrays (or the dynamic one and a static one) overlap would show in the sums.
    out = np.zeros(32)
    dyn_out = np.zeros(32, np.float32)
    aligned_arrays[1, 32, 0, 40 * 4](out, dyn_out)
    t = np.arange(32)
    np.testing.assert_array_equal(out, (7 + t % 3) + 0.5 * (31 - t) + t + (31 - t) + (t + 3))
    np.testing.assert_array_equal(dyn_out, 2.0 * (31 - t) + 40)
    ptx = aligned_arrays.inspect_ptx("void(float64[::1], float32[::1])")
    assert ".shared .align 256 .b8" in ptx and ".shared .align 128 .b8" in ptx
    assert ".extern .shared .align 64 .b8 gpujit_dynamic_shared[]" in ptx


def test_an_alignment_that_is_not_a_power_of_two_points_at_the_argument():
    @cuda.jit
    def bad(out):
        a = cuda.local.array(4, np.float32, alignment=24)
        out[0] = a[0]

    with pytest.raises(cuda.CompileError, match="local.array alignment must be a power of two") as e:
        bad.inspect_ptx("void(float32[::1])")
    line = bad.py_func.__code__.co_firstlineno + 2
    assert e.value.lineno == line
    assert e.value.col == linecache.getline(__file__, line).index("24") + 1


@cuda.jit
def local_sums(out):
    i = cuda.grid(1)
    acc = cuda.local.array((2, 4), np.int64)
    for j in range(8):
        acc[j // 4, j % 4] = i * j
    s = 0
    for j in range(8):
        s += acc[j % 2, j // 2]
    out[i] = s


def test_local_arrays_are_private_to_each_thread():
    out = np.zeros(64, np.int64)
    local_sums[2, 32](out)
    np.testing.assert_array_equal(out, np.arange(64) * 28)


@cuda.jit
def weighted(out, picks):
    i = cuda.grid(1)
    w = cuda.const.array_like(WEIGHTS)
    out[i] = w[i % 3, 0] + WEIGHTS[i % 3, 1] * 10
    picks[i] = PRIMES[i % PRIMES.size]


def test_constant_arrays_are_baked_into_constant_memory():
    out = np.zeros(6, np.float32)
    picks = np.zeros(6, np.int64)
    weighted[1, 6](out, picks)
    np.testing.assert_array_equal(out, [21, 43, 65, 21, 43, 65])
    np.testing.assert_array_equal(picks, PRIMES)
    ptx = weighted.inspect_ptx("void(float32[::1], int64[::1])")
    assert ".const .align 16 .b8 const_WEIGHTS[24]" in ptx
    assert ".const .align 16 .b8 const_PRIMES[48]" in ptx
    assert "ld.const.b32" in ptx and "ld.const.b64" in ptx


def test_writing_a_constant_array_is_a_compile_error():
    @cuda.jit
    def bad(out):
        w = cuda.const.array_like(WEIGHTS)
        w[0, 0] = out[0]

    with pytest.raises(cuda.CompileError, match="'w' is in constant memory, which is read-only"):
        bad.inspect_ptx("void(float32[::1])")


def test_a_non_constant_shape_names_the_culprit():
    @cuda.jit
    def bad(out, n):
        a = cuda.shared.array(n, np.float32)
        out[0] = a[0]

    with pytest.raises(cuda.CompileError, match="shared.array shape must be a compile-time constant; 'n' is an argument"):
        bad.inspect_ptx("void(float32[::1], int64)")


def test_a_non_constant_shape_notes_numbas_signature():
    # numba-cuda reports a shape it cannot type as a failed overload; the note gives its words and its
    # spelling of the arguments' types, which numba users search for.
    @cuda.jit
    def bad(a):
        s = cuda.shared.array(shape=(1, a[0]), dtype=np.float32)
        a[0, 0] = s[0, 0]

    with pytest.raises(cuda.CompileError) as e:
        bad.inspect_ptx("void(float32[:, :])")
    assert ("No implementation of function Function(<function shared.array>) found for signature:\n \n "
            ">>> array(shape=Tuple(Literal[int](1), array(float32, 1d, A)), dtype=class(float32))") in str(e.value)

    @cuda.jit
    def bad_scalar(a):
        s = cuda.local.array(a[0], np.float32)
        a[0] = s[0]

    with pytest.raises(cuda.CompileError, match=r">>> array\(shape=int32, dtype=class\(float32\)\)"):
        bad_scalar.inspect_ptx("void(int32[::1])")


@pytest.mark.parametrize("space", ["shared", "local"])
def test_an_unknown_dtype_name_is_numbas_invalid_dtype(space):
    alloc = getattr(cuda, space).array

    @cuda.jit
    def bad(x):
        s = alloc(10, dtype="int33")
        x[0] = s[0]

    with pytest.raises(cuda.CompileError, match=f"{space}.array: Invalid NumPy dtype specified: 'int33'"):
        bad.inspect_ptx("void(int32[::1])")


def test_float_of_a_float_keeps_its_width():
    # numba types float(x) of a float32 as float32 (and of a float16 as float16); of an int as float64.
    @cuda.jit(device=True)
    def native(x):
        return float(x)

    _, ty32 = cuda.compile_ptx(native, (cuda.float32,), device=True)
    assert str(ty32) == "float32"
    _, ty16 = cuda.compile_ptx(native, (cuda.float16,), device=True)
    _, ty_int = cuda.compile_ptx(native, (cuda.int32,), device=True)
    assert (str(ty16), str(ty_int)) == ("float16", "float64")


# ---------------------------------------------------------------------------------------------------------
# Synchronization


@cuda.jit
def predicates(out):
    t = cuda.threadIdx.x
    n = cuda.syncthreads_count(t % 3 == 0)
    every = cuda.syncthreads_and(t < 40)
    some_low = cuda.syncthreads_and(t < 20)
    some = cuda.syncthreads_or(t == 7)
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()
    cuda.syncwarp()
    out[t] = n * 100 + every * 10 + some_low * 2 + some


def test_barrier_predicates_reduce_over_the_block():
    out = np.zeros(40, np.int32)
    predicates[1, 40](out)
    np.testing.assert_array_equal(out, np.full(40, 14 * 100 + 10 + 1))


# ---------------------------------------------------------------------------------------------------------
# Atomics


@cuda.jit
def integer_atomics(i32, u32, i64, u64, olds, flag):
    i = cuda.grid(1)
    cuda.atomic.add(i32, 0, 1)
    cuda.atomic.sub(i32, 1, 2)
    cuda.atomic.max(i32, 2, i - 100)
    cuda.atomic.min(i32, 3, 1000 - i)
    cuda.atomic.nanmax(u64, 0, i)
    cuda.atomic.nanmin(u64, 1, i + 5)
    cuda.atomic.and_(u32, 0, ~(1 << (i % 32)))
    cuda.atomic.or_(u32, 1, 1 << (i % 32))
    cuda.atomic.xor(i64, 0, i)
    cuda.atomic.inc(u32, 2, 9)
    cuda.atomic.dec(u64, 2, 9)
    olds[i] = cuda.atomic.exch(i64, 1, i)
    if cuda.atomic.cas(i64, 2, -1, i) == -1:
        cuda.atomic.add(i64, 3, 1)
    if cuda.atomic.compare_and_swap(flag, 0, i + 1) == 0:
        cuda.atomic.add(flag, 1, 1)


def test_integer_atomics_from_many_threads():
    n = 1000
    i32 = np.array([0, 0, -(10**6), 10**6], np.int32)
    u32 = np.array([0xFFFFFFFF, 0, 0, 7], np.uint32)
    i64 = np.array([0, -7, -1, 0], np.int64)
    u64 = np.array([0, 1 << 20, 0], np.uint64)
    olds = np.zeros(n, np.int64)
    flag = np.zeros(2, np.int32)
    integer_atomics[10, 100](i32, u32, i64, u64, olds, flag)
    np.testing.assert_array_equal(i32, [n, -2 * n, n - 101, 1])
    np.testing.assert_array_equal(u32, [0, 0xFFFFFFFF, n % 10, 7])  # inc wraps to 0 past 9
    assert i64[0] == np.bitwise_xor.reduce(np.arange(n))
    assert 0 <= i64[2] < n and i64[3] == 1  # exactly one cas won
    assert flag[1] == 1 and 1 <= flag[0] <= n
    assert sorted(list(olds) + [i64[1]]) == sorted([-7] + list(range(n)))  # exch hands every value on once
    np.testing.assert_array_equal(u64, [n - 1, 5, (10 - n % 10) % 10])  # dec wraps 0 -> 9


@cuda.jit
def float_minmax(a, vals, olds, which):
    i = cuda.threadIdx.x
    if which == 0:
        olds[i] = cuda.atomic.max(a, i, vals[i])
    elif which == 1:
        olds[i] = cuda.atomic.min(a, i, vals[i])
    elif which == 2:
        olds[i] = cuda.atomic.nanmax(a, i, vals[i])
    else:
        olds[i] = cuda.atomic.nanmin(a, i, vals[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "which, expected",
    [
        (0, [4.0, 5.0, np.nan, 3.0, np.nan]),  # max: a NaN on either side stores nothing
        (1, [1.0, 2.0, np.nan, 3.0, np.nan]),  # min
        (2, [4.0, 5.0, 7.0, 3.0, np.nan]),  # nanmax: a NaN element is replaced, a NaN value ignored
        (3, [1.0, 2.0, 7.0, 3.0, np.nan]),  # nanmin
    ],
)
def test_float_max_min_follow_numbas_nan_rules(dtype, which, expected):
    init = np.array([1.0, 5.0, np.nan, 3.0, np.nan], dtype)
    a = init.copy()
    vals = np.array([4.0, 2.0, 7.0, np.nan, np.nan], dtype)
    olds = np.zeros(5, dtype)
    float_minmax[1, 5](a, vals, olds, which)
    np.testing.assert_array_equal(a, np.array(expected, dtype))
    np.testing.assert_array_equal(olds, init)


@cuda.jit
def float_atomics(acc, hi, lo):
    i = cuda.grid(1)
    cuda.atomic.add(acc, (i % 2, 0), 0.5)
    cuda.atomic.sub(acc, (i % 2, 1), 0.25)
    cuda.atomic.max(hi, 0, i * 0.5)
    cuda.atomic.nanmin(lo, -1, i * 0.5 - 3.0)


def test_float_atomics_with_tuple_and_negative_indices():
    acc = np.zeros((2, 2), np.float32)
    hi = np.array([-1.0], np.float32)
    lo = np.array([0.0, 100.0])
    float_atomics[8, 128](acc, hi, lo)
    np.testing.assert_array_equal(acc, [[256, -128], [256, -128]])
    assert hi[0] == 511.5 and lo[1] == -3.0


@cuda.jit
def negative_and_counted_indices(a, out, k):
    # Indices analysis finds never negative (the grid index, a range counter, a sum of them) lose the
    # negative-index wrap (ir/index_signs.h); those it cannot (i - k, a counter that steps down) keep it.
    i = cuda.grid(1)
    if i < a.size:
        back = 0
        for j in range(3):
            back -= 1
        out[i, 0] = a[i - k]
        out[i, 1] = a[back]
        t = 0
        for j in range(i + 1):
            t += j
        out[i, 2] = a[t % a.size]
        out[i, 3] = a[-i - 1]


def test_negative_indices_still_wrap_where_they_can_occur():
    a = np.arange(10, dtype=np.float64)
    out = np.zeros((10, 4))
    negative_and_counted_indices[1, 32](a, out, 3)
    i = np.arange(10)
    np.testing.assert_array_equal(out[:, 0], a[i - 3])
    np.testing.assert_array_equal(out[:, 1], np.full(10, a[-3]))
    np.testing.assert_array_equal(out[:, 2], a[(i * (i + 1) // 2) % 10])
    np.testing.assert_array_equal(out[:, 3], a[-i - 1])


@cuda.jit
def shared_histogram(values, bins):
    hist = cuda.shared.array(8, cuda.uint32)
    t = cuda.threadIdx.x
    if t < 8:
        hist[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(hist, values[cuda.grid(1)] % 8, 1)
    cuda.syncthreads()
    if t < 8:
        cuda.atomic.add(bins, t, hist[t])


def test_atomics_on_shared_memory():
    bins = np.zeros(8, np.uint32)
    shared_histogram[4, 256](np.arange(1024, dtype=np.int32), bins)
    np.testing.assert_array_equal(bins, np.full(8, 128))


def test_atomic_dtype_errors_list_what_numba_takes():
    @cuda.jit
    def bad(a):
        cuda.atomic.inc(a, 0, 1)

    with pytest.raises(cuda.CompileError, match="does not support arrays of int32.*uint32 or uint64"):
        bad.inspect_ptx("void(int32[::1])")


# ---------------------------------------------------------------------------------------------------------
# Intrinsics


@cuda.jit
def intrinsics(u, s, out, f, d):
    i = cuda.grid(1)
    x = u[i]
    y = s[i]
    out[i, 0] = cuda.popc(x)
    out[i, 1] = cuda.brev(x)
    out[i, 2] = cuda.clz(x)
    out[i, 3] = cuda.ffs(x)
    out[i, 4] = cuda.popc(y)
    out[i, 5] = cuda.clz(y)
    out[i, 6] = cuda.ffs(y)
    out[i, 7] = cuda.selp(y < 0, 1, 2)
    f[i] = cuda.fma(f[i], 3.0, 0.5)
    d[i] = cuda.cbrt(d[i])


def _bits(v, width):
    return format(int(v) & ((1 << width) - 1), f"0{width}b")


def test_integer_and_float_intrinsics():
    u = np.array([0, 1, 0x80000000, 0xF0F0, 0xFFFFFFFF, 12], np.uint32)
    s = np.array([0, -1, 1, 1 << 40, 255, -8], np.int64)
    f = np.array([8.0, -27.0, 1.0, 0.0, 64.0, 0.125], np.float32)
    d = np.array([8.0, -27.0, 1e-300, 0.0, 1000.0, 2.0])
    f0, d0 = f.copy(), d.copy()
    out = np.zeros((6, 8), np.int64)
    intrinsics[1, 6](u, s, out, f, d)
    for i in range(6):
        bx, by = _bits(u[i], 32), _bits(s[i], 64)
        expected = [
            bx.count("1"),
            int(bx[::-1], 2),
            len(bx) - len(bx.lstrip("0")),
            0 if u[i] == 0 else len(bx) - bx.rindex("1"),
            by.count("1"),
            len(by) - len(by.lstrip("0")),
            0 if s[i] == 0 else len(by) - by.rindex("1"),
            1 if s[i] < 0 else 2,
        ]
        assert list(out[i]) == expected, i
    np.testing.assert_array_equal(f, (f0.astype(np.float64) * 3 + 0.5).astype(np.float32))  # exact here
    np.testing.assert_allclose(d, np.cbrt(d0), rtol=1e-15)


# ---------------------------------------------------------------------------------------------------------
# print()


@cuda.jit
def show(a, x, u):
    if cuda.grid(1) == 0:
        print(LABEL, "100%", a[0], x, u, x > 0.0, -3)
        print()
        print("done")


def test_print_formats_like_numba_cuda(capfd):
    show[1, 4](np.array([-42], np.int32), np.float32(1.5), np.uint64(2**64 - 1))
    cuda.synchronize()
    assert capfd.readouterr().out == "value 100% -42 1.500000 18446744073709551615 True -3\n\ndone\n"


# ---------------------------------------------------------------------------------------------------------
# Recursion


@cuda.jit(device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit("float64(int64)", device=True)
def halves(n):
    if n > 0:
        return 0.5 * halves(n - 1)
    return 1


@cuda.jit(device=True)
def fill_squares(a, i):
    if i >= 0:
        a[i] = i * i
        fill_squares(a, i - 1)


@cuda.jit
def recursive(out, squares):
    i = cuda.grid(1)
    out[i] = fib(i) + halves(i)
    if i == 0:
        fill_squares(squares, len(squares) - 1)


def test_self_recursive_device_functions():
    out = np.zeros(20)
    squares = np.zeros(10, np.int64)
    recursive[1, 20](out, squares)
    fibs = [0, 1]
    while len(fibs) < 20:
        fibs.append(fibs[-1] + fibs[-2])
    np.testing.assert_array_equal(out, np.array(fibs) + 0.5 ** np.arange(20))
    np.testing.assert_array_equal(squares, np.arange(10) ** 2)


def test_mutual_recursion_is_a_clear_error():
    @cuda.jit(device=True)
    def ping(n):
        if n == 0:
            return 0
        return pong(n - 1)

    @cuda.jit(device=True)
    def pong(n):
        return ping(n)

    @cuda.jit
    def k(out):
        out[0] = ping(out[0])

    with pytest.raises(cuda.CompileError, match="mutual recursion is not supported: ping -> pong -> ping"):
        k.inspect_ptx("void(int64[::1])")


# ---------------------------------------------------------------------------------------------------------
# Tuples


@cuda.jit(device=True)
def sorted_pair(a, b):
    return (a, b) if a < b else (b, a)


@cuda.jit
def tuples(out, a, b, n):
    i = cuda.grid(1)
    lo, hi = sorted_pair(a[i], b[i])
    t = (lo, hi, n)
    first, (second, third) = t[0], (t[-2], t[2])
    out[i] = first * 100 + second * 10 + third + len(t)


def test_tuples_build_unpack_index_and_return():
    a = np.array([5.0, 1.0, 3.0])
    b = np.array([2.0, 4.0, 3.0])
    out = np.zeros(3)
    tuples[1, 3](out, a, b, 7)
    np.testing.assert_array_equal(out, np.minimum(a, b) * 100 + np.maximum(a, b) * 10 + 7 + 3)


def test_for_loops_iterate_arrays_tuples_enumerate_and_zip():
    @cuda.jit
    def walk(a, b, m, out):
        total = 0.0
        for x in a:  # elements of a 1-D array
            total += x
        out[0] = total
        for i, (x, y) in enumerate(zip(a, b), 10):  # zip stops at the shorter
            out[1] += i * x * y
        rows = 0
        for row in m:  # a 2-D array iterates over its rows, as in NumPy
            for v in row:
                rows += v
        out[2] = rows
        for k in (1, 2, 3):
            out[3] += k
        for x in a:
            if x > 2:
                break
        else:
            out[4] = -1.0  # not reached: the loop broke
        for _, y in zip(a[:0], b):
            out[5] = 1.0  # an empty slice: no iterations
        else:
            out[6] = 1.0

    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([5.0, 6.0, 7.0])
    m = np.arange(6, dtype=np.int64).reshape(2, 3)
    out = np.zeros(7)
    walk[1, 1](a, b, m, out)
    expected_enum = sum((10 + i) * x * y for i, (x, y) in enumerate(zip(a, b)))
    np.testing.assert_array_equal(out, [a.sum(), expected_enum, m.sum(), 6.0, 0.0, 0.0, 1.0])


def test_iterating_a_number_is_an_error_at_the_iterable():
    @cuda.jit
    def bad(out, n):
        for x in n:
            out[0] = x

    with pytest.raises(cuda.CompileError, match=r"a for loop iterates over range\(\), an array, a tuple, "
                                               r"enumerate\(\) or zip\(\); got int64 \('n' is an argument\)"):
        bad[1, 1](np.zeros(1), 3)


import enum  # noqa: E402


class Status(enum.IntEnum):
    ok = 200
    missing = 404
    broken = 500


class Fruit(enum.Enum):  # str values: a kernel cannot hold its members (test_enum_members.py has the rest)
    apple = "apple"
    pear = "pear"


def test_intenum_members_are_int_constants():
    @cuda.jit
    def classify(codes, out):
        i = cuda.grid(1)
        if i < codes.size:
            c = codes[i]
            if c >= Status.broken:
                out[i] = c - Status.missing
            elif c == Status.missing:
                out[i] = cuda.int16(Status.ok)
            else:
                out[i] = c + Status.ok

    codes = np.array([100, 404, 500, 550], np.int64)
    out = np.zeros(4, np.int64)
    classify[1, 4](codes, out)
    np.testing.assert_array_equal(out, [300, 200, 96, 146])


def test_intenum_members_by_name():
    @cuda.jit
    def by_name(out):
        out[0] = Status["missing"]
        out[1] = Status["ok"] == Status.ok

    out = np.zeros(2, np.int64)
    by_name[1, 1](out)
    np.testing.assert_array_equal(out, [404, 1])

    @cuda.jit
    def typo(out):
        out[0] = Status["brokn"]

    with pytest.raises(cuda.CompileError, match=r"'Status' has no member 'brokn'; did you mean 'broken'\?"):
        typo[1, 1](np.zeros(1, np.int64))


def test_enum_classes_with_values_kernels_cannot_hold_and_unknown_members_are_errors_at_the_line():
    @cuda.jit
    def plain(out):
        out[0] = Fruit.apple == Fruit.pear

    with pytest.raises(cuda.CompileError, match=r"global 'Fruit' cannot be used in a kernel: the value 'apple' of "
                                                r"member 'apple' of Enum 'Fruit' is not a number, a bool or a tuple "
                                                r"of them") as e:
        plain[1, 1](np.zeros(1, np.bool_))
    assert e.value.lineno == plain.__code__.co_firstlineno + 2

    @cuda.jit
    def typo(out):
        out[0] = Status.brokn

    with pytest.raises(cuda.CompileError, match=r"'Status' has no attribute 'brokn'; did you mean 'broken'\?"):
        typo[1, 1](np.zeros(1, np.int64))


def test_array_shapes_may_name_a_local_assigned_once_to_a_constant():
    @cuda.jit
    def fill(out):
        n = 64
        dims = (2, 3)
        sm = cuda.shared.array(n, cuda.int32)
        scratch = cuda.local.array(dims, cuda.float32)
        i = cuda.threadIdx.x
        sm[i] = i * 2
        cuda.syncthreads()
        out[i] = sm[n - 1 - i] + scratch.size

    out = np.zeros(64, np.int32)
    fill[1, 64](out)
    np.testing.assert_array_equal(out, 2 * (63 - np.arange(64)) + 6)

    @cuda.jit
    def rebound(out):
        n = 64
        n += 1
        sm = cuda.shared.array(n, cuda.int32)
        out[0] = sm[0]

    with pytest.raises(cuda.CompileError, match=r"shared.array shape must be a compile-time constant; 'n' is a "
                                                r"local variable") as e:
        rebound[1, 1](out)
    assert e.value.lineno == rebound.__code__.co_firstlineno + 4
