"""CUDA vector types (cuda.float32x4, cuda.int2 ...) and numba's Dim3 (cuda.threadIdx read whole), end to end:
made in kernels from numbers and smaller vectors, read by lane, passed through variables, tuples and device
functions, checked against NumPy's conversions to the base type."""

import numpy as np
import pytest

import gpujit as cuda

BASES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
C_NAMES = {"char": "int8", "short": "int16", "int": "int32", "long": "int64", "longlong": "int64", "uchar": "uint8",
           "ushort": "uint16", "uint": "uint32", "ulong": "uint64", "ulonglong": "uint64", "float": "float32",
           "double": "float64"}


def lanes_kernel(vtype, base, lanes):
    """A kernel that makes a `vtype` from `lanes` values of the array `src` (converted to `base`) and writes its
    lanes back to `out` in order."""
    if lanes == 1:
        def k(src, out):
            v = vtype(base(src[0]))
            out[0] = v.x
    elif lanes == 2:
        def k(src, out):
            v = vtype(src[0], src[1])
            out[0] = v.x
            out[1] = v.y
    elif lanes == 3:
        def k(src, out):
            v = vtype(src[0], src[1], src[2])
            out[0], out[1], out[2] = v.x, v.y, v.z
    else:
        def k(src, out):
            v = vtype(src[0], src[1], src[2], src[3])
            out[3] = v.w
            out[2] = v.z
            out[1] = v.y
            out[0] = v.x
    return cuda.jit(k)


@pytest.mark.parametrize("base", BASES)
def test_every_vector_type_round_trips_its_lanes(base):
    for lanes in range(1, 5):
        vtype = getattr(cuda, f"{base}x{lanes}")
        src = np.array([3, 120, 7, 99][:lanes], dtype=np.float64) - (0 if base.startswith("u") else 50)
        out = np.zeros(lanes, dtype=base)
        lanes_kernel(vtype, getattr(cuda, base), lanes)[1, 1](src, out)
        np.testing.assert_array_equal(out, src.astype(base))


def test_cuda_names_are_the_same_objects_as_numbas_names():
    for c_name, base in C_NAMES.items():
        for lanes in range(1, 5):
            vtype = getattr(cuda, f"{base}x{lanes}")
            assert getattr(cuda, f"{c_name}{lanes}") is vtype
            assert f"{c_name}{lanes}" in vtype.aliases
    assert cuda.float32x4.num_elements == 4 and cuda.float32x4.attr_names == ("x", "y", "z", "w")
    assert cuda.double2.base_type == cuda.float64
    assert repr(cuda.int2) == "<gpujit vector type int32x2>"


def test_aliases_construct_in_kernels():
    @cuda.jit
    def k(out):
        a = cuda.float4(1.5, 2.5, 3.5, 4.5)
        b = cuda.short2(10, -11)
        c = cuda.uchar3(255, 256, 257)  # converted to uint8 as a C call converts: 255, 0, 1
        d = cuda.longlong1(-(2**40))
        out[0] = a.w
        out[1] = b.y
        out[2] = c.y + c.z
        out[3] = d.x

    out = np.zeros(4)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [4.5, -11, 1, -(2**40)])


def test_conversions_to_the_base_type_are_numpys():
    @cuda.jit
    def k(x, n, out_i8, out_f32, out_u16):
        v = cuda.int8x4(n[0], x[0], x[1], True)
        w = cuda.float32x2(x[2], 16777217)
        u = cuda.uint16x2(n[1], n[2])
        out_i8[0], out_i8[1], out_i8[2], out_i8[3] = v.x, v.y, v.z, v.w
        out_f32[0], out_f32[1] = w.x, w.y
        out_u16[0], out_u16[1] = u.x, u.y

    x = np.array([-1.9, 2.7, 0.1])
    n = np.array([300, 65537, -1])
    out_i8, out_f32, out_u16 = np.zeros(4, np.int8), np.zeros(2, np.float32), np.zeros(2, np.uint16)
    k[1, 1](x, n, out_i8, out_f32, out_u16)
    np.testing.assert_array_equal(out_i8, [n[:1].astype(np.int8)[0], -1, 2, 1])
    np.testing.assert_array_equal(out_f32, np.array([0.1, 16777217], np.float32))
    np.testing.assert_array_equal(out_u16, n[1:].astype(np.uint16))


def test_constructors_mix_numbers_and_smaller_vectors():
    @cuda.jit
    def k(out):
        one = cuda.float32x1(1.0)
        two = cuda.float32x2(2.0, 3.0)
        three = cuda.float32x3(two, 4.0)
        vs = (cuda.float32x4(two, 5.0, 6.0),
              cuda.float32x4(7.0, two, one),
              cuda.float32x4(one, 8.0, two),
              cuda.float32x4(two, two),
              cuda.float32x4(three, 9.0),
              cuda.float32x4(one, three),
              cuda.float32x4(one, one, one, 10.0),
              cuda.float32x4(cuda.float32x4(11.0, 12.0, 13.0, 14.0)))
        for i in range(len(vs)):
            v = vs[i]
            out[i, 0], out[i, 1], out[i, 2], out[i, 3] = v.x, v.y, v.z, v.w
        out[8, 0], out[8, 1], out[8, 2] = three.x, three.y, three.z
        out[8, 3] = cuda.float32x2(one, 15.0).y

    out = np.zeros((9, 4), np.float32)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [[2, 3, 5, 6], [7, 2, 3, 1], [1, 8, 2, 3], [2, 3, 2, 3], [2, 3, 4, 9],
                                        [1, 2, 3, 4], [1, 1, 1, 10], [11, 12, 13, 14], [2, 3, 4, 15]])


@cuda.jit(device=True)
def rotate(v):
    return cuda.int32x3(v.y, v.z, v.x)


@cuda.jit(device=True)
def dot_and_sum(a, b):
    return a.x * b.x + a.y * b.y, cuda.double2(a.x + b.x, a.y + b.y)


def test_vectors_pass_to_and_return_from_device_functions():
    @cuda.jit
    def k(out, dots, sums):
        i = cuda.grid(1)
        if i < out.shape[0]:
            v = cuda.int3(i, 10 * i, 100 * i)
            for _ in range(i % 3):
                v = rotate(v)
            out[i, 0], out[i, 1], out[i, 2] = v.x, v.y, v.z
            d, s = dot_and_sum(cuda.double2(i, 1.0), cuda.double2(2.0, i))
            dots[i] = d
            sums[i, 0], sums[i, 1] = s.x, s.y

    n = 7
    out, dots, sums = np.zeros((n, 3), np.int32), np.zeros(n), np.zeros((n, 2))
    k[2, 4](out, dots, sums)
    i = np.arange(n)
    base = np.stack([i, 10 * i, 100 * i], axis=1)
    np.testing.assert_array_equal(out, [np.roll(row, -(r % 3)) for r, row in zip(i, base)])
    np.testing.assert_array_equal(dots, 3.0 * i)
    np.testing.assert_array_equal(sums, np.stack([i + 2.0, i + 1.0], axis=1))


def test_a_vector_variable_is_reassigned_in_a_loop_and_a_branch():
    @cuda.jit
    def k(x, out):
        acc = cuda.float64x2(0.0, 1.0)
        for i in range(x.size):
            if x[i] > 0:
                acc = cuda.float64x2(acc.x + x[i], acc.y)
            else:
                acc = cuda.float64x2(acc.x, acc.y * x[i])
        out[0], out[1] = acc.x, acc.y

    x = np.array([1.5, -2.0, 3.0, -0.5, 4.0])
    out = np.zeros(2)
    k[1, 1](x, out)
    np.testing.assert_array_equal(out, [8.5, 1.0])


def test_numba_cudas_own_stubs_name_gpujits_vector_types():
    stubs = pytest.importorskip("numba.cuda.stubs")
    numba_float2 = {s.__name__: s for s in stubs._vector_type_stubs}["float32x2"]

    @cuda.jit
    def k(out):
        v = numba_float2(1.25, 2.5)
        out[0] = v.x + v.y

    out = np.zeros(1, np.float32)
    k[1, 1](out)
    assert out[0] == 3.75


def test_calling_a_vector_type_on_the_host_says_it_is_for_kernels():
    with pytest.raises(RuntimeError, match=r"gpujit.float32x4\(\) makes a vector inside a kernel"):
        cuda.float32x4(1, 2, 3, 4)


def test_vector_errors_point_at_the_lane_and_the_argument():
    @cuda.jit
    def bad_lane(out):
        v = cuda.float32x2(1, 2)
        out[0] = v.w

    with pytest.raises(cuda.CompileError, match=r"'float32x2' has no attribute 'w'; its lanes are 'x' and 'y'") as e:
        bad_lane[1, 1](np.zeros(1, np.float32))
    assert e.value.lineno == bad_lane.py_func.__code__.co_firstlineno + 3
    assert e.value.col == 20

    @cuda.jit
    def bad_arity(out):
        out[0] = cuda.int4(1, 2, 3).x

    with pytest.raises(cuda.CompileError, match=r"cuda.int4\(\) needs 4 lanes in all .* got 3"):
        bad_arity[1, 1](np.zeros(1, np.int32))


def test_vector_types_compile_to_ptx():
    def k(out, lanes, x):
        v = rotate(cuda.int3(x, x + 1, x + 2))
        f = cuda.float32x4(cuda.float2(1.0, 2.0), x, 4.0)
        out[0] = f.z + f.w
        lanes[0] = v.x + v.y + v.z

    ptx, ret = cuda.compile_ptx(k, "void(float32[:], int32[:], int32)")
    assert ".entry" in ptx


# ---------------------------------------------------------------------------------------------------------
# Dim3: cuda.threadIdx, blockIdx, blockDim, gridDim as values


@cuda.jit(device=True)
def flat(t, d):
    return t.x + d.x * (t.y + d.y * t.z)


def test_dim3_values_read_and_pass_like_numbas():
    @cuda.jit
    def k(out):
        t = cuda.threadIdx
        b = cuda.blockIdx
        d = cuda.blockDim
        g = cuda.gridDim
        i = flat(b, g) * (d.x * d.y * d.z) + flat(t, d)
        out[i, 0], out[i, 1], out[i, 2] = t.x, t.y, t.z
        out[i, 3], out[i, 4], out[i, 5] = b.x, b.y, b.z
        out[i, 6] = g.x * g.y * g.z

    out = np.full((2 * 3 * 4 * 2, 7), -1, np.int32)
    k[(2, 1, 1), (3, 4, 2)](out)
    rows = {tuple(r) for r in out.tolist()}
    expect = {(tx, ty, tz, bx, 0, 0, 2) for bx in range(2) for tz in range(2) for ty in range(4) for tx in range(3)}
    assert rows == expect


def test_print_of_a_dim3_is_a_parenthesized_triple(capfd):
    @cuda.jit
    def k():
        print("tid", cuda.threadIdx, cuda.blockDim)

    k[1, (2, 1, 1)]()
    cuda.synchronize()
    lines = sorted(capfd.readouterr().out.splitlines())
    assert lines == ["tid (0, 0, 0) (2, 1, 1)", "tid (1, 0, 0) (2, 1, 1)"]
