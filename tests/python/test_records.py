"""Structured (record) dtypes: arrays of records on the host and the device, record scalars as arguments, and
field access in kernels, checked byte for byte against NumPy on the CPU backend."""

import linecache

import numpy as np
import pytest

import gpujit as cuda

ALIGNED = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", (np.uint8, 5))], align=True)
PACKED = np.dtype([("x", np.int8), ("y", np.float64), ("z", np.int16)])  # y at offset 1: misaligned
INNER = np.dtype([("u", np.int16), ("v", np.float32)], align=True)
NESTED = np.dtype([("id", np.int64), ("inner", INNER), ("grid", np.float32, (3, 2)), ("flag", np.bool_)],
                  align=True)


def sample(dtype, n=4):
    a = np.zeros(n, dtype)
    raw = a.view(np.uint8)
    raw[:] = np.arange(raw.size) % 251  # every byte distinct-ish, padding included
    for name in dtype.names:
        if dtype[name].kind == "b":
            a[name] = np.arange(n) % 2 == 0
    return a


def same(a, b):
    """Equal field by field (NumPy's copies do not keep padding bytes, so bytes cannot be compared)."""
    if a.dtype != b.dtype:
        return False
    return all(same(a[n], b[n]) if a.dtype[n].names else np.array_equal(a[n], b[n]) for n in a.dtype.names)


def test_field_writes_by_attribute_and_by_name_touch_only_their_fields():
    @cuda.jit
    def write(ary, i, v):
        ary[i].a = v
        ary[i]["b"] = 7
        ary[i].c = 1 + 2j
        ary[i].d[3] = 200

    got = sample(ALIGNED)
    expect = got.copy()
    write[1, 1](got, 2, 3.25)
    expect[2]["a"] = 3.25
    expect[2]["b"] = 7
    expect[2]["c"] = 1 + 2j
    expect[2]["d"][3] = 200
    assert same(got, expect)


def test_reads_of_every_field_kind():
    @cuda.jit
    def read(ary, out_f, out_c, out_u):
        i = cuda.grid(1)
        if i < ary.size:
            r = ary[i]
            out_f[i] = r.a + r.b
            out_c[i] = r["c"]
            out_u[i] = r.d[4]

    a = sample(ALIGNED)
    out_f, out_c, out_u = np.zeros(4), np.zeros(4, np.complex64), np.zeros(4, np.uint8)
    read[1, 4](a, out_f, out_c, out_u)
    np.testing.assert_array_equal(out_f, a["a"] + a["b"])
    np.testing.assert_array_equal(out_c, a["c"])
    np.testing.assert_array_equal(out_u, a["d"][:, 4])


def test_packed_records_with_misaligned_fields():
    @cuda.jit
    def bump(ary):
        i = cuda.grid(1)
        if i < ary.size:
            ary[i].y += 1.5
            ary[i].z = ary[i].x * 3

    a = np.zeros(5, PACKED)
    a["x"] = np.arange(5)
    a["y"] = np.arange(5) * 0.5
    expect = a.copy()
    expect["y"] += 1.5
    expect["z"] = expect["x"] * 3
    bump[1, 8](a)
    assert same(a, expect)


def test_nested_records_and_2d_sub_arrays():
    @cuda.jit
    def fill(ary, out):
        i = cuda.grid(1)
        if i < ary.size:
            r = ary[i]
            inner = r.inner
            inner.u = i * 10
            r["inner"]["v"] = r.id * 0.5
            for j in range(3):
                for k in range(2):
                    r.grid[j, k] = j * 2 + k + i
            out[i] = r.grid[2, 1] + inner.u
            r.flag = not r.flag

    a = sample(NESTED, 3)
    expect = a.copy()
    for i in range(3):
        expect[i]["inner"]["u"] = i * 10
        expect[i]["inner"]["v"] = expect[i]["id"] * 0.5
        expect[i]["grid"] = np.arange(6).reshape(3, 2) + i
        expect[i]["flag"] = not expect[i]["flag"]
    out = np.zeros(3, np.float32)
    fill[1, 3](a, out)
    assert same(a, expect)
    np.testing.assert_array_equal(out, [5 + 0, 6 + 10, 7 + 20])


def test_whole_record_and_sub_array_assignment():
    @cuda.jit
    def copy(ary, i, j, src):
        ary[i] = ary[j]
        ary[j].grid = src
        ary[j]["grid"][0, :] = 9

    a = sample(NESTED, 3)
    src = np.arange(6, dtype=np.float32).reshape(3, 2)
    expect = a.copy()
    expect[0] = expect[2]
    expect[2]["grid"] = src
    expect[2]["grid"][0, :] = 9
    copy[1, 1](a, 0, 2, src)
    assert same(a, expect)


def test_record_scalar_argument_is_copied_in_and_back():
    @cuda.jit
    def update(r, v, out):
        out[0] = r.b
        r.a = v
        r.d[0] = 42

    arr = sample(ALIGNED)
    rec = arr[1]  # a view of arr: writes come back into it
    out = np.zeros(1, np.int32)
    update[1, 1](rec, 6.5, out)
    assert out[0] == arr[1]["b"]
    assert arr[1]["a"] == 6.5 and arr[1]["d"][0] == 42

    rarr = np.recarray(2, dtype=ALIGNED)
    rarr[:] = arr[:2]
    update[1, 1](rarr[0], 1.0, out)
    assert rarr[0].a == 1.0


def test_record_scalar_from_a_read_only_array_is_not_written():
    @cuda.jit
    def update(r):
        r.b = 5

    arr = sample(ALIGNED)
    arr.flags.writeable = False
    before = arr.tobytes()
    update[1, 1](arr[0])
    assert arr.tobytes() == before


def test_device_arrays_of_records_round_trip():
    a = sample(NESTED)
    d = cuda.to_device(a)
    assert d.dtype == NESTED and d.itemsize == NESTED.itemsize and d.shape == (4,)
    assert d.copy_to_host().tobytes() == a.tobytes()
    e = cuda.device_array(3, dtype=PACKED)
    assert e.dtype == PACKED and e.nbytes == 3 * PACKED.itemsize
    empty = cuda.device_array_like(a)
    assert empty.dtype == NESTED
    view = d[1:3]
    assert view.copy_to_host().tobytes() == a[1:3].tobytes()
    cai = d.__cuda_array_interface__
    assert cai["typestr"] == NESTED.str and cai["descr"] == NESTED.descr


def test_kernels_on_device_arrays_and_2d_record_arrays():
    @cuda.jit
    def scale(ary):
        i, j = cuda.grid(2)
        if i < ary.shape[0] and j < ary.shape[1]:
            ary[i, j].b = i * 10 + j

    a = np.zeros((3, 4), ALIGNED)
    d = cuda.to_device(a)
    scale[(1, 1), (4, 4)](d)
    got = d.copy_to_host()
    np.testing.assert_array_equal(got["b"], np.arange(3)[:, None] * 10 + np.arange(4))
    assert got["a"].sum() == 0


def test_dtypes_that_differ_in_layout_are_different_types():
    @cuda.jit
    def first(ary, out):
        out[0] = ary[0].b

    one = np.dtype([("a", np.int8), ("b", np.int32)], align=True)  # b at offset 4
    two = np.dtype([("a", np.int8), ("b", np.int32)])  # b at offset 1
    three = np.dtype([("a", np.int8), ("c", np.int32)], align=True)  # same layout, another name
    out = np.zeros(1, np.int32)
    for dt in (one, two, three):
        a = np.zeros(2, dt)
        a[dt.names[1]] = 77
        if dt is three:
            with pytest.raises(cuda.CompileError, match="record has no field 'b'; its fields are 'a', 'c'"):
                first[1, 1](a, out)
            continue
        first[1, 1](a, out)
        assert out[0] == 77
    assert len(first.signatures) == 2


def test_unknown_field_points_at_the_name():
    @cuda.jit
    def bad(ary):
        ary[0].bb = 1

    with pytest.raises(cuda.CompileError, match=r"record has no field 'bb'; did you mean 'b'\?; its fields are "
                                                r"'a', 'b', 'c', 'd'") as e:
        bad[1, 1](np.zeros(1, ALIGNED))
    line = bad.py_func.__code__.co_firstlineno + 2
    assert e.value.lineno == line
    assert e.value.col == linecache.getline(__file__, line).index("bb") + 1


def test_unknown_field_by_name_points_at_the_string():
    @cuda.jit
    def bad(ary, out):
        out[0] = ary[0]["nope"]

    with pytest.raises(cuda.CompileError, match="record has no field 'nope'") as e:
        bad[1, 1](np.zeros(1, ALIGNED), np.zeros(1))
    line = bad.py_func.__code__.co_firstlineno + 2
    assert e.value.col == linecache.getline(__file__, line).index('"nope"') + 1


def test_bad_stores_are_compile_errors():
    @cuda.jit
    def complex_to_int(ary):
        ary[0].b = 1j

    with pytest.raises(cuda.CompileError, match="cannot store a value of type complex128 into an element of type int32"):
        complex_to_int[1, 1](np.zeros(1, ALIGNED))

    @cuda.jit
    def record_into_other(ary, other):
        ary[0] = other[0]

    with pytest.raises(cuda.CompileError, match="cannot store a value of type Record"):
        record_into_other[1, 1](np.zeros(1, ALIGNED), np.zeros(1, PACKED))

    @cuda.jit
    def attr_of_array(ary):
        ary.x = 1

    with pytest.raises(cuda.CompileError, match=r"cannot assign to attribute 'x' of a float64\[::1\] value; only "
                                                "record fields can be assigned"):
        attr_of_array[1, 1](np.zeros(2))

    @cuda.jit
    def atomic_on_records(ary):
        cuda.atomic.add(ary, 0, 1)

    with pytest.raises(cuda.CompileError, match="does not support arrays of Record"):
        atomic_on_records[1, 1](np.zeros(1, ALIGNED))


def test_unsupported_field_types_are_named():
    @cuda.jit
    def k(ary):
        pass

    with pytest.raises(TypeError, match="record field 'big' has dtype dtype\\('>i4'\\)"):
        k[1, 1](np.zeros(1, [("x", np.int32), ("big", ">i4")]))  # string fields are held (test_fixed_width_strings)
    with pytest.raises(TypeError, match="record field 'o' has dtype dtype\\('O'\\)"):
        cuda.device_array(2, dtype=np.dtype([("o", object)]))


POINT = np.dtype([("g", np.int32), ("h", np.float32, 2)], align=True)
CONST_POINTS = np.array([(1, (2.0, 3.0)), (4, (5.0, 6.0))], dtype=POINT)


def test_records_in_constant_local_and_shared_memory():
    @cuda.jit
    def k(ary, out):
        c = cuda.const.array_like(CONST_POINTS)
        out[0] = c[1].h[1] + CONST_POINTS[0].g
        loc = cuda.local.array(2, POINT)
        loc[1].g = 11
        loc[1].h[0] = 0.5
        loc[1].h[1] = 0.25
        sh = cuda.shared.array((2, 3), POINT)
        sh[1, 2] = loc[1]
        cuda.syncthreads()
        ary[0] = sh[1, 2]

    a = np.zeros(2, POINT)
    out = np.zeros(1)
    k[1, 1](a, out)
    assert out[0] == 7.0
    assert a[0]["g"] == 11 and list(a[0]["h"]) == [0.5, 0.25]


def test_record_fields_by_position_and_dtype_attribute():
    @cuda.jit
    def k(r, out):
        out[0] = r[0]
        out[1] = r[-1][1]
        loc = cuda.local.array(1, r_dtype_holder.dtype)
        loc[0] = r
        out[2] = loc[0].g

    rec = np.zeros(1, POINT)
    rec[0]["g"], rec[0]["h"] = 5, (7, 8)
    global r_dtype_holder
    r_dtype_holder = rec
    out = np.zeros(3)
    k[1, 1](rec[0], out)
    np.testing.assert_array_equal(out, [5, 8, 5])

    @cuda.jit
    def bad(r, out):
        out[0] = r[2]

    with pytest.raises(cuda.CompileError, match="a record is indexed by a field name or a constant field "
                                                "position below 2; its fields are 'g', 'h'"):
        bad[1, 1](rec[0], out)


def test_a_record_dtype_cannot_be_called():
    @cuda.jit
    def bad(out):
        out[0] = POINT_T(1)

    with pytest.raises(cuda.CompileError, match="a record dtype cannot be called"):
        bad[1, 1](np.zeros(1))


POINT_T = POINT
r_dtype_holder = None


@pytest.mark.filterwarnings("ignore:Grid size|Host array")
def test_cuda_launch_path_packs_records(fake):
    """On the CUDA launch path (the fake driver's memory is host memory): a record argument is one 8-byte
    parameter, the address of a copy of its bytes; an array of records is its data pointer, shape and byte
    strides like any array."""
    import ctypes

    @cuda.jit
    def k(r, ary):
        ary[0] = r

    arr = sample(ALIGNED, 3)
    rec = np.zeros(1, ALIGNED)[0]
    rec["b"] = 1234
    k[1, 1](rec, arr)
    params = fake.last_launch()[5]
    assert len(params[0]) == 8
    address = int.from_bytes(params[0], "little")
    copied = np.frombuffer(ctypes.string_at(address, ALIGNED.itemsize), dtype=ALIGNED)[0]
    assert copied["b"] == 1234
    assert len(params) == 1 + 3  # the record's address; the array's data, shape and stride
    assert int.from_bytes(params[2][:4], "little") == 3
    assert int.from_bytes(params[3][:4], "little") == ALIGNED.itemsize


def test_explicit_signatures_spell_records_as_numba_prints_them():
    spelled = "Record(x[type=int8;offset=0],y[type=float64;offset=1],z[type=int16;offset=9];11;False)"
    signature = "void(" + spelled + "[::1], int64)"

    @cuda.jit(signature)
    def k(ary, i):
        ary[i].z = 5

    a = np.zeros(3, PACKED)
    k[1, 1](a, 2)
    assert list(a["z"]) == [0, 0, 5]
    assert k.signatures and spelled in str(k.signatures[0])
    with pytest.raises(TypeError):
        k[1, 1](np.zeros(3, ALIGNED), 0)  # another record type fits no signature


def test_numba_record_types_name_record_dtypes():
    numpy_support = pytest.importorskip("numba.cuda.np.numpy_support")
    numba_point = numpy_support.from_dtype(POINT)

    @cuda.jit
    def reverse(x, y):
        sm = cuda.shared.array(4, dtype=numba_point)
        sm[cuda.threadIdx.x] = x[cuda.threadIdx.x]
        cuda.syncthreads()
        y[cuda.threadIdx.x] = sm[3 - cuda.threadIdx.x]

    x = np.zeros(4, POINT)
    x["g"] = [1, 2, 3, 4]
    y = cuda.device_array(4, dtype=numba_point)
    reverse[1, 4](x, y)
    assert list(y.copy_to_host()["g"]) == [4, 3, 2, 1]


def test_field_views_of_record_arrays():
    @cuda.jit
    def k(ary, out):
        g = ary.g
        for i in range(g.size):
            out[i] = g[i] + ary["h"][i, 1]
        ary.h[0, 0] = 42
        ary[1:].g[0] = 9

    a = np.zeros(3, POINT)
    a["g"] = [1, 2, 3]
    a["h"][:, 1] = [10, 20, 30]
    out = np.zeros(3)
    k[1, 1](a, out)
    np.testing.assert_array_equal(out, [11, 22, 33])
    assert a["h"][0, 0] == 42 and list(a["g"]) == [1, 9, 3]

    @cuda.jit
    def column(ary, out):
        v = ary[:, 1].g
        out[0] = v[0] + v[1] + ary.shape[0]

    b = np.zeros((2, 2), POINT)
    b["g"] = [[1, 2], [3, 4]]
    out = np.zeros(1)
    column[1, 1](b, out)
    assert out[0] == 2 + 4 + 2

    @cuda.jit
    def bad(ary, out):
        out[0] = ary.gg[0]

    with pytest.raises(cuda.CompileError, match="record has no field 'gg'; did you mean 'g'"):
        bad[1, 1](a, out)


PACKED_COMPLEX = np.dtype([("x", np.int8), ("z", np.complex128), ("w", np.complex64)])  # z at offset 1


def test_packed_records_with_misaligned_complex_fields():
    # Each part of a misaligned complex field is stored bytewise too (on a GPU, from an integer copy of its
    # bits: see FunctionLowering::store_element).
    @cuda.jit
    def twice(ary):
        i = cuda.grid(1)
        if i < ary.size:
            ary[i].z = ary[i].z * 2 + 1j
            ary[i].w = ary[i].w * np.float32(3)

    a = np.zeros(6, PACKED_COMPLEX)
    a["x"] = np.arange(6)
    a["z"] = np.arange(6) * (1.5 - 0.25j)
    a["w"] = np.arange(6) * (0.5 + 2j)
    expect = a.copy()
    expect["z"] = expect["z"] * 2 + 1j
    expect["w"] = expect["w"] * np.float32(3)
    twice[1, 8](a)
    assert same(a, expect)


def test_recarray_matches_an_explicit_signature_of_its_aligned_dtype():
    # NumPy reports alignment 1 for a recarray's np.record dtype even with align=True; gpujit takes the
    # alignment from the fields, so the recarray is the same type as the plain aligned dtype.
    dt = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    rec = np.recarray(3, dtype=dt)
    rec.a = 0
    rec.b = [123, 246, 369]

    @cuda.jit("void(Record(a[type=int32;offset=0],b[type=float64;offset=8];16;True)[:])")
    def copy_b_to_a(a):
        i = cuda.grid(1)
        a[i].a = a[i].b

    copy_b_to_a[1, 3](rec)
    assert list(rec.a) == [123, 246, 369]
