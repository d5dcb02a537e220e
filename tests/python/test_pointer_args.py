"""Pointer parameters (numba's CPointer, "float32*" in a signature): a kernel takes a device address as a
Python int and indexes it as p[i], loads and stores, cache hints included."""

import numpy as np
import pytest

import gpujit as gpu


def _address(a):
    return a.__cuda_array_interface__["data"][0]


def test_a_pointer_signature_takes_addresses_and_indexes_them():
    @gpu.jit("void(int32*, int32, int32*, int32*, uint32)")
    def axpy(r, a, x, y, n):
        i = gpu.grid(1)
        if i < n:
            r[i] = a * x[i] + y[i]

    hx = np.arange(10, dtype=np.int32)
    dx, dy = gpu.to_device(hx), gpu.to_device(hx * 2)
    dr = gpu.device_array_like(dx)
    axpy[1, 32](_address(dr), 5, _address(dx), _address(dy), 10)
    np.testing.assert_array_equal(dr.copy_to_host(), 5 * hx + hx * 2)
    assert axpy.signatures == ["(int32*, int32, int32*, int32*, uint32)"]


def test_pointer_elements_take_augmented_assignment_and_any_integer_index():
    @gpu.jit("void(float64*, int64)")
    def bump(p, n):
        for i in range(n):
            p[np.uint32(i)] += 0.5
        p[n - 1] = p[0] * 2

    d = gpu.to_device(np.arange(4.0))
    bump[1, 1](_address(d), 4)
    np.testing.assert_array_equal(d.copy_to_host(), [0.5, 1.5, 2.5, 1.0])


@pytest.mark.parametrize("dtype, bits", [("int8", 8), ("float16", 16), ("float32", 32), ("uint64", 64)])
def test_cache_hints_on_pointers_emit_the_cache_operators(dtype, bits):
    def copy(ptr, values, n):
        for i in range(n):
            values[i] = gpu.ldcg(ptr, i)
            gpu.stcs(ptr, i, values[i])

    ptx, _ = gpu.compile_ptx(copy, f"void({dtype}*, {dtype}[::1], int64)")
    assert f"ld.global.cg.b{bits}" in ptx and f"st.global.cs.b{bits}" in ptx


def test_cache_hints_on_pointers_run():
    @gpu.jit("void(float32*, float32[::1], int64)")
    def copy(ptr, values, n):
        for i in range(n):
            values[i] = gpu.ldcv(ptr, i) + 1
            gpu.stwt(ptr, i, values[i])

    d = gpu.to_device(np.arange(3, dtype=np.float32))
    out = np.zeros(3, np.float32)
    copy[1, 1](_address(d), out, 3)
    np.testing.assert_array_equal(out, [1, 2, 3])
    np.testing.assert_array_equal(d.copy_to_host(), [1, 2, 3])


def test_numba_cpointer_types_name_pointer_parameters():
    types = pytest.importorskip("numba.core.types")
    ptr = types.CPointer(types.int32)

    def first(p, out):
        out[0] = p[0]

    ptx, _ = gpu.compile_ptx(first, (ptr, types.int32[::1]))
    assert ".entry" in ptx


def test_bad_pointer_uses_are_compile_errors():
    def float_index(p):
        p[1.0] = 0

    with pytest.raises(gpu.CompileError, match=r"a pointer \(float32\*\) is indexed by one integer, got float64"):
        gpu.compile_ptx(float_index, "void(float32*)")

    def sliced(p):
        p[1:2] = 0

    with pytest.raises(gpu.CompileError, match="only arrays can be sliced"):
        gpu.compile_ptx(sliced, "void(float32*)")

    @gpu.jit("void(float32*)")
    def store(p):
        p[0] = 1

    with pytest.raises(TypeError, match="No matching definition"):
        store[1, 1](1.5)  # an address is an integer


def test_carray_and_farray_are_arrays_over_a_pointer():
    @gpu.jit("void(float32*, int64, int64, float32[:, ::1], float32[:, ::1])")
    def views(p, rows, cols, c_out, f_out):
        c = gpu.carray(p, (rows, cols))
        f = gpu.farray(p, (rows, cols), dtype=np.float32)
        for i in range(rows):
            for j in range(cols):
                c_out[i, j] = c[i, j]
                f_out[i, j] = f[i, j]
        flat = gpu.carray(p, rows * cols)
        flat[0] += 100

    host = np.arange(6, dtype=np.float32)
    d = gpu.to_device(host)
    c_out, f_out = np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32)
    views[1, 1](_address(d), 2, 3, c_out, f_out)
    np.testing.assert_array_equal(c_out, host.reshape((2, 3)))
    np.testing.assert_array_equal(f_out, host.reshape((2, 3), order="F"))
    assert d.copy_to_host()[0] == 100


def test_carray_errors_name_the_call():
    def not_a_pointer(a, out):
        out[0] = gpu.carray(a, 3)[0]

    with pytest.raises(gpu.CompileError, match=r"carray\(\) takes a pointer parameter"):
        gpu.jit(not_a_pointer)[1, 1](np.zeros(3), np.zeros(1))

    def wrong_dtype(p, out):
        out[0] = gpu.carray(p, 3, dtype=np.int32)[0]

    with pytest.raises(gpu.CompileError, match=r"dtype int32 differs from the pointer's, float32"):
        gpu.jit("void(float32*, float32[::1])")(wrong_dtype)


def test_void_pointer_signature_takes_an_address_for_carray_with_a_dtype(cpu_backend):
    # numba's voidptr ("void*"; CPointer(void) prints "none*"): an address of no element type.
    @gpu.jit("void(void*, int64)")
    def fill(p, n):
        a = gpu.carray(p, n, np.int32)
        i = gpu.grid(1)
        if i < n:
            a[i] = i * 3

    d = gpu.to_device(np.zeros(8, np.int32))
    fill[1, 8](_address(d), 8)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8) * 3)
    assert fill.signatures == ["(void*, int64)"]
    ptx, _ = gpu.compile_ptx(fill.py_func, "void(none*, int64)")
    assert ".entry" in ptx


def test_void_pointer_has_no_elements_to_index():
    def load(p, out):
        out[0] = p[0]

    with pytest.raises(gpu.CompileError, match=r"a void\* has no element type to index.*carray\(p, shape, dtype\)"):
        gpu.compile_ptx(load, "void(void*, int32[::1])")

    def view(p, out):
        a = gpu.carray(p, 4)
        out[0] = a[0]

    with pytest.raises(gpu.CompileError, match=r"carray\(\) of a void\* needs the dtype of its elements"):
        gpu.compile_ptx(view, "void(void*, int32[::1])")


def test_return_of_a_call_that_returns_nothing(cpu_backend):
    # `return f()` where f returns nothing returns nothing (numba's None), in a device function and a kernel.
    @gpu.jit(device=True)
    def store(a, i):
        a[i] = i + 1

    @gpu.jit(device=True)
    def forward(a, i):
        return store(a, i)

    @gpu.jit
    def kernel(a):
        return forward(a, gpu.grid(1))

    a = np.zeros(4, np.int64)
    kernel[1, 4](a)
    np.testing.assert_array_equal(a, [1, 2, 3, 4])
