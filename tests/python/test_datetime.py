"""NumPy's datetime64 and timedelta64 in kernels, against NumPy: arrays and scalars as arguments (host and
device arrays), the operators with numba's typing and units (docs/language.md, "Dates and times"), NaT,
np.int64(t), vectorize and guvectorize signatures, and the compile errors for what numba does not type."""

import numpy as np
import pytest

import gpujit as gpu

NAT = np.iinfo(np.int64).min


def dates(unit, n=300, seed=0, start="1600-01-01", span_days=200 * 365):
    """n datetime64[unit] values from `start` on, some NaT."""
    rng = np.random.default_rng(seed)
    base = np.datetime64(start, "D").astype(f"M8[{unit}]").astype(np.int64)
    step = np.timedelta64(1, "D").astype(f"m8[{unit}]").astype(np.int64) if unit not in "YM" else 1
    span = span_days * step if unit not in "YM" else (span_days // 365 * (12 if unit == "M" else 1))
    values = base + rng.integers(0, max(span, 1), n)
    values[rng.integers(0, n, n // 20)] = NAT
    return values.astype(f"M8[{unit}]")


def deltas(unit, n=300, seed=1, scale=10_000):
    rng = np.random.default_rng(seed)
    values = rng.integers(-scale, scale, n)
    values[rng.integers(0, n, n // 20)] = NAT
    return values.astype(f"m8[{unit}]")


def assert_same(got, want):
    """Equal values, NaT where NumPy has NaT, and the same dtype."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


# ---------------------------------------------------------------------------------------------------------
# Arrays, scalars, the arithmetic of datetime64 and timedelta64

@gpu.jit
def differences(start, end, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = end[i] - start[i]


@pytest.mark.parametrize("units", [("D", "D"), ("s", "D"), ("D", "h"), ("Y", "D"), ("M", "D"), ("M", "W"),
                                   ("Y", "M"), ("M", "s")])
def test_datetime_minus_datetime_in_the_finer_unit(units):
    a, b = dates(units[0], seed=2), dates(units[1], seed=3)
    want = b - a  # NumPy converts years and months to the day they start on, as numba does
    out = np.zeros(a.size, want.dtype)
    differences[2, 256](a, b, out)
    assert_same(out, want)


def test_dates_before_1970_and_1600_convert_from_years_and_months():
    years = np.arange(-2400, 2500, 7).astype("M8[Y]")  # the years -430 to 4469
    months = np.arange(-40000, 40000, 97).astype("M8[M]")
    for a in (years, months):
        b = np.zeros(a.size, "M8[D]")
        out = np.zeros(a.size, "m8[D]")
        differences[(a.size + 255) // 256, 256](b, a, out)
        assert_same(out, a - b)


@gpu.jit
def shift(when, by, plus, minus, rplus):
    i = gpu.grid(1)
    if i < when.size:
        plus[i] = when[i] + by[i]
        minus[i] = when[i] - by[i]
        rplus[i] = by[i] + when[i]


@pytest.mark.parametrize("units", [("D", "D"), ("D", "h"), ("s", "D"), ("M", "Y"), ("Y", "M"), ("Y", "D"),
                                   ("M", "h"), ("W", "D")])
def test_datetime_plus_and_minus_timedelta(units):
    when, by = dates(units[0], seed=4), deltas(units[1], seed=5, scale=500)
    want = when + by
    outs = [np.zeros(when.size, want.dtype) for _ in range(3)]
    shift[2, 256](when, by, *outs)
    assert_same(outs[0], want)
    assert_same(outs[1], when - by)
    assert_same(outs[2], by + when)


@gpu.jit
def timedelta_arith(a, b, k, x, add, sub, neg, absolute, times_int, int_times, times_float, over_int, over_float,
                    floor_int, ratio, floor_ratio):
    i = gpu.grid(1)
    if i < a.size:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        neg[i] = -a[i]
        absolute[i] = abs(a[i])
        times_int[i] = a[i] * k
        int_times[i] = k * a[i]
        times_float[i] = a[i] * x
        over_int[i] = a[i] / k
        over_float[i] = a[i] / x
        floor_int[i] = a[i] // k
        ratio[i] = a[i] / b[i]
        floor_ratio[i] = a[i] // b[i]


def test_timedelta_arithmetic_matches_numpy():
    a, b = deltas("h", seed=6), deltas("m", seed=7)
    b[::17] = np.timedelta64(0, "m")  # floor division by a zero timedelta: 0, as NumPy
    k, x = np.int32(-3), 1.75
    n = a.size
    add, sub = (np.zeros(n, "m8[m]") for _ in range(2))
    neg, absolute, times_int, int_times, times_float, over_int, over_float, floor_int = (
        np.zeros(n, "m8[h]") for _ in range(8))
    ratio, floor_ratio = np.zeros(n), np.zeros(n, np.int64)
    with np.errstate(all="ignore"):
        timedelta_arith[2, 256](a, b, k, x, add, sub, neg, absolute, times_int, int_times, times_float, over_int,
                                over_float, floor_int, ratio, floor_ratio)
        assert_same(add, a + b)
        assert_same(sub, a - b)
        assert_same(neg, -a)
        assert_same(absolute, np.where(np.isnat(a), a, abs(a)))
        assert_same(times_int, a * int(k))
        assert_same(int_times, int(k) * a)
        assert_same(times_float, a * x)
        # / and // by a number truncate toward zero, in NumPy and numba alike
        assert_same(over_int, a // int(k))
        assert_same(over_float, a / x)
        assert_same(floor_int, a // int(k))
        np.testing.assert_array_equal(ratio, a / b)
        np.testing.assert_array_equal(floor_ratio, a // b)


@gpu.jit
def by_zero(a, zero_int, zero_float, nan, out_int, out_float, out_nan):
    i = gpu.grid(1)
    if i < a.size:
        out_int[i] = a[i] / zero_int
        out_float[i] = a[i] // zero_float
        out_nan[i] = a[i] * nan


def test_division_by_zero_and_nan_give_nat():
    a = deltas("s", seed=8)
    outs = [np.ones(a.size, "m8[s]") for _ in range(3)]
    by_zero[2, 256](a, 0, 0.0, float("nan"), *outs)
    for out in outs:
        assert np.isnat(out).all()


@gpu.jit
def compare(a, b, eq, ne, lt, le, gt, ge):
    i = gpu.grid(1)
    if i < a.size:
        eq[i] = a[i] == b[i]
        ne[i] = a[i] != b[i]
        lt[i] = a[i] < b[i]
        le[i] = a[i] <= b[i]
        gt[i] = a[i] > b[i]
        ge[i] = a[i] >= b[i]


@pytest.mark.parametrize("a, b", [
    (dates("D", seed=9), dates("D", seed=10)),
    (dates("s", seed=11), dates("D", seed=12)),  # compared in seconds
    (dates("M", seed=13), dates("D", seed=14)),  # the month's first day
    (deltas("D", seed=15), deltas("h", seed=16, scale=300_000)),
])
def test_comparisons_are_false_with_nat_except_not_equal(a, b):
    b[:50] = a[:50]  # some equal pairs
    outs = [np.zeros(a.size, np.bool_) for _ in range(6)]
    compare[2, 256](a, b, *outs)
    for out, op in zip(outs, ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]):
        np.testing.assert_array_equal(out, getattr(a, op)(b), err_msg=op)


@gpu.jit
def scalar_args(dates_, target, step, matches, moved):
    for i in range(gpu.grid(1), matches.size, gpu.gridsize(1)):
        matches[i] = dates_[i] == target
        moved[i] = dates_[i] - step


def test_scalar_datetime_and_timedelta_arguments():
    d = np.arange("2005-02", "2006-02", dtype="M8[D]")
    target, step = d[5], np.timedelta64(36, "h")
    matches = np.zeros(d.size, np.bool_)
    moved = np.zeros(d.size, "M8[h]")
    scalar_args[1, 32](d, target, step, matches, moved)
    assert list(matches.nonzero()[0]) == [5]
    assert_same(moved, d - step)
    # Another unit is another specialization: the same kernel, minutes now.
    moved_m = np.zeros(d.size, "M8[m]")
    scalar_args[1, 32](d, target, np.timedelta64(90, "m"), matches, moved_m)
    assert_same(moved_m, d - np.timedelta64(90, "m"))
    assert len(scalar_args.overloads) == 2


@gpu.jit
def counts(t, d, out):
    i = gpu.grid(1)
    if i < t.size:
        out[i, 0] = np.int64(t[i])
        out[i, 1] = int(t[i])
        out[i, 2] = np.int64(d[i])


def test_int64_of_a_datetime_is_its_count_of_units():
    t, d = deltas("ms", seed=17), dates("ns", seed=18, start="1990-01-01", span_days=5000)
    out = np.zeros((t.size, 3), np.int64)
    counts[2, 256](t, d, out)
    np.testing.assert_array_equal(out[:, 0], t.view(np.int64))
    np.testing.assert_array_equal(out[:, 1], t.view(np.int64))
    np.testing.assert_array_equal(out[:, 2], d.view(np.int64))


@gpu.jit
def accumulate(when, step, out):
    i = gpu.grid(1)
    if i < when.size:
        d = when[i]
        for _ in range(3):
            d += step
        out[i] = d
        out[i] -= step


def test_augmented_assignment_with_a_timedelta():
    when = dates("h", seed=19)
    out = np.zeros(when.size, "M8[h]")
    accumulate[2, 256](when, np.timedelta64(5, "h"), out)
    assert_same(out, when + np.timedelta64(10, "h"))


@gpu.jit
def through_device_functions(a, b, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = later(a[i], b[i])


@gpu.jit(device=True)
def later(a, b):
    return a if a > b else b


def test_device_functions_take_and_return_datetimes():
    a, b = dates("D", seed=20), dates("D", seed=21)
    out = np.zeros(a.size, "M8[D]")
    through_device_functions[2, 256](a, b, out)
    want = np.where(a.view(np.int64) > b.view(np.int64), a, b)
    want[np.isnat(a) | np.isnat(b)] = b[np.isnat(a) | np.isnat(b)]  # a > NaT and NaT > b are false
    assert_same(out, want)


@gpu.jit
def extremes(a, b, lo, hi):
    i = gpu.grid(1)
    if i < a.size:
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])


def test_min_and_max_keep_the_first_extreme_and_nat_only_first():
    a, b = deltas("s", seed=34), deltas("s", seed=35)
    lo, hi = np.zeros(a.size, "m8[s]"), np.zeros(a.size, "m8[s]")
    extremes[2, 256](a, b, lo, hi)
    ai, bi = a.view(np.int64), b.view(np.int64)
    # min(x, y) is y when y < x, else x: a comparison with NaT is false (CPython's rule on numba's comparisons)
    nat = np.isnat(a) | np.isnat(b)
    assert_same(lo, np.where(~nat & (bi < ai), b, a))
    assert_same(hi, np.where(~nat & (bi > ai), b, a))


def test_explicit_signature_with_datetime_arrays():
    @gpu.jit("void(datetime64[D][::1], timedelta64[D][::1], datetime64[D][::1])")
    def advance(d, t, out):
        i = gpu.grid(1)
        if i < d.size:
            out[i] = d[i] + t[i]

    d, t = dates("D", seed=22), deltas("D", seed=23)
    out = np.zeros(d.size, "M8[D]")
    advance[2, 256](d, t, out)
    assert_same(out, d + t)
    assert "datetime64[D][::1]" in str(list(advance.overloads))


# ---------------------------------------------------------------------------------------------------------
# Device arrays

def test_device_arrays_of_datetimes_copy_and_view_as_int64():
    d = dates("us", seed=24)
    dd = gpu.to_device(d)
    assert dd.dtype == d.dtype
    assert_same(dd.copy_to_host(), d)
    viewed = dd.view(np.int64)
    np.testing.assert_array_equal(viewed.copy_to_host(), d.view(np.int64))
    assert viewed.gpu_data == dd.gpu_data
    out = gpu.device_array(d.size, "m8[us]")
    differences[2, 256](dd, dd, out)
    want = d - d
    assert_same(out.copy_to_host(), want)
    t = deltas("D", seed=25)
    dt = gpu.to_device(t)
    back = np.zeros_like(t)
    dt.copy_to_host(back)
    assert_same(back, t)


def test_strided_and_2d_host_arrays():
    d = dates("D", n=600, seed=26).reshape(20, 30)
    step = deltas("D", n=600, seed=27).reshape(20, 30)

    @gpu.jit
    def add_2d(a, b, out):
        i, j = gpu.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = a[i, j] + b[i, j]

    a, b = d[:, ::2], step[:, 1::2]
    out = np.zeros(a.shape, "M8[D]")
    add_2d[(1, 1), (32, 32)](a, b, out)
    assert_same(out, a + b)


# ---------------------------------------------------------------------------------------------------------
# vectorize and guvectorize

def test_vectorize_with_a_datetime_signature():
    @gpu.vectorize(["timedelta64[D](datetime64[D], datetime64[D])"])
    def span(start, end):
        return end - start

    a, b = dates("D", seed=28), dates("D", seed=29)
    assert_same(span(a, b), b - a)
    assert_same(span(gpu.to_device(a), gpu.to_device(b)).copy_to_host(), b - a)


def test_vectorize_infers_the_return_type_of_argument_types_alone():
    @gpu.vectorize([("datetime64[s]", "timedelta64[h]")])
    def later_by(start, step):
        return start + step

    assert later_by.types == ["datetime64[s](datetime64[s], timedelta64[h])"]
    a, t = dates("s", seed=30), deltas("h", seed=31)
    assert_same(later_by(a, t), a + t)
    with pytest.raises(TypeError, match="no signature accepts"):
        later_by(a.astype("M8[ms]"), t)  # no implicit conversion to another unit


def test_guvectorize_with_datetime_scalars_and_arrays():
    @gpu.guvectorize(["void(datetime64[D], datetime64[D], timedelta64[D][:])"], "(),()->()")
    def span(start, end, out):
        out[0] = end - start

    a, b = dates("D", seed=32), dates("D", seed=33)
    assert_same(span(a, b), b - a)


# ---------------------------------------------------------------------------------------------------------
# Compile errors

def test_adding_two_datetimes_is_an_error_at_its_operator():
    @gpu.jit
    def bad(a, out):
        i = gpu.grid(1)
        out[i] = a[i] + a[i]

    a = dates("D", n=4)
    with pytest.raises(gpu.CompileError, match=r"unsupported operand types for \+: 'datetime64\[D\]' and "
                                               r"'datetime64\[D\]'; two datetime64 values do not add") as e:
        bad[1, 4](a, np.zeros(4, "M8[D]"))
    assert e.value.lineno == bad.__code__.co_firstlineno + 3
    assert e.value.col == 23  # the '+'


@pytest.mark.parametrize("body, args, message", [
    ("out[i] = a[i] + b[i]", ("m8[Y]", "m8[D]"),
     r"cannot add 'timedelta64\[Y\]' and 'timedelta64\[D\]': years and months do not convert"),
    ("out[i] = a[i] + 1", ("m8[D]", "m8[D]"), r"unsupported operand types for \+: 'timedelta64\[D\]' and 'int64'"),
    ("out[i] = a[i] - b[i]", ("m8[D]", "M8[D]"),
     r"unsupported operand types for -: 'timedelta64\[D\]' and 'datetime64\[D\]'"),
    ("out[i] = a[i] < b[i]", ("M8[D]", "m8[D]"), r"cannot compare 'datetime64\[D\]' and 'timedelta64\[D\]'"),
    ("out[i] = a[i] - b[i]", ("M8[h]", "M8[D]"),
     r"cannot store a value of type timedelta64\[h\] into an element of type datetime64\[D\]"),
    ("out[i] += b[i]", ("m8[D]", "m8[h]"), r"'\+=' gives datetime64\[h\], which cannot be stored into an element"),
    ("out[i] = a[i] + b[i]", ("m8[D]", "m8[as]"),
     r"cannot convert timedelta64\[D\] to timedelta64\[as\]: the values would overflow int64"),
    ("out[i] = min(a[i], b[i])", ("m8[D]", "m8[h]"), r"min\(\) of timedelta64\[D\] and timedelta64\[h\]"),
    ("out[i] = np.int32(a[i])", ("m8[D]", "m8[D]"), r"converts only to int64 or uint64"),
    ("np.add(a, b, a)", ("m8[D]", "m8[D]"),
     r"np.add\(\) over arrays of timedelta64\[D\] is not supported in kernels; compute the elements in a loop"),
    ("np.add(b, b, out)", ("m8[D]", "i8"), r"np.add\(\) over arrays of datetime64\[D\] is not supported"),
    ("out[i] = np.sum(a)", ("m8[D]", "m8[D]"), r"np.sum\(\) of an array of timedelta64\[D\] is not supported"),
    ("out[i] = a.max()", ("m8[D]", "m8[D]"), r"max\(\) of an array of timedelta64\[D\] is not supported"),
    ("out[i] = a[i] if a[i] else b[i]", ("m8[D]", "m8[D]"),
     r"the condition of a conditional expression must be a number or a bool, got timedelta64\[D\]"),
])
def test_what_numba_does_not_type_is_a_compile_error(body, args, message):
    namespace = {"gpu": gpu, "np": np}
    exec(f"def k(a, b, out):\n    i = gpu.grid(1)\n    {body}\n", namespace)
    kernel = gpu.jit(namespace["k"])
    a, b = (np.zeros(2, dt) for dt in args)
    with pytest.raises(gpu.CompileError, match=message):
        kernel[1, 2](a, b, np.zeros(2, "M8[D]"))


def _mixed(months, weeks, t, x, h, out, ratio, floor):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = weeks[i] + t[i] * x - t[i] * h
        ratio[i] = (months[i] - weeks[i]) / t[i]
        floor[i] = t[i] // t[0]


_MIXED_SIG = ("void(datetime64[M][::1], datetime64[W][::1], timedelta64[D][::1], float32, float16, "
              "datetime64[D][::1], float64[::1], int64[::1])")


def test_mixed_units_and_float_widths_compile_for_nvptx_and_run():
    ptx, ret = gpu.compile_ptx(_mixed, _MIXED_SIG)
    assert ".visible .entry" in ptx and str(ret) in ("void", "none")  # numba prints its void "none"
    months, weeks = dates("M", seed=36), dates("W", seed=37)
    t = deltas("D", seed=38, scale=1000)
    t[0] = np.timedelta64(7, "D")
    x, h = np.float32(1.25), np.float16(0.5)
    out, ratio, floor = np.zeros(t.size, "M8[D]"), np.zeros(t.size), np.zeros(t.size, np.int64)
    gpu.jit(_MIXED_SIG)(_mixed)[2, 256](months, weeks, t, x, h, out, ratio, floor)
    with np.errstate(all="ignore"):
        # NumPy computes t * x in float64; in float32 the product of these small values is exact too
        assert_same(out, weeks + t * float(x) - t * float(h))
        np.testing.assert_array_equal(ratio, (months - weeks) / t)
        np.testing.assert_array_equal(floor, t // t[0])


@gpu.jit
def nat_mask(a, out):
    i = gpu.grid(1)
    if i < a.size:
        out[i] = a[i] != a[i]


def test_a_value_unequal_to_itself_is_nat():
    for a in (dates("ms", seed=39), deltas("Y", seed=40)):
        out = np.zeros(a.size, np.bool_)
        nat_mask[2, 256](a, out)
        np.testing.assert_array_equal(out, np.isnat(a))
