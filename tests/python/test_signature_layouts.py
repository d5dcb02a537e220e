"""Explicit signatures: Fortran-order array types ("int32[::1, :, :]", numba's layout 'F'), the errors for axes
marked contiguous anywhere else, and a kernel of one signature launched with an integer array of another
dtype of the same width (docs/python.md, "Explicit signatures")."""

import numpy as np
import pytest

import gpujit as gpu


def fill3d(ary):
    i, j, k = gpu.threadIdx.x, gpu.threadIdx.y, gpu.threadIdx.z
    ary[i, j, k] = i * 100 + j * 10 + k


def test_fortran_signature_indexes_a_fortran_array(cpu_backend):
    kernel = gpu.jit("void(int32[::1,:,:])")(fill3d)
    out = np.asfortranarray(np.zeros((4, 5, 6), np.int32))
    kernel[1, (4, 5, 6)](out)
    i, j, k = np.indices(out.shape)
    np.testing.assert_array_equal(out, i * 100 + j * 10 + k)
    assert out.flags.f_contiguous
    assert kernel.signatures == ["(int32[::1, :, :])"]
    assert list(kernel.overloads) == ["(int32[::1, :, :])"]


def test_fortran_signature_as_types(cpu_backend):
    # gpujit's types spell it as numba's do: the first axis marked contiguous.
    t = gpu.float64[::1, :]
    assert t.layout == "F" and str(t) == "float64[::1, :]"
    assert gpu.float64[::1].layout == "C"  # one axis: Fortran order is C order

    @gpu.jit(gpu.void(t))
    def scale(a):
        i, j = gpu.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] *= 2.0

    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    expect = a * 2
    scale[(1, 1), (3, 4)](a)
    np.testing.assert_array_equal(a, expect)


def test_fortran_signature_takes_only_fortran_arrays(cpu_backend):
    kernel = gpu.jit("void(int32[::1, :, :])")(fill3d)
    with pytest.raises(TypeError, match=r"(?s)No matching definition.*int32\[:, :, ::1\], not int32\[::1, :, :\]"):
        kernel[1, (4, 5, 6)](np.zeros((4, 5, 6), np.int32))
    # A device view, not contiguous any more: layout 'A' (a host array like it is copied to a C-ordered one).
    strided = gpu.to_device(np.asfortranarray(np.zeros((4, 10, 6), np.int32)))[:, ::2]
    with pytest.raises(TypeError, match=r"int32\[:, :, :\], not int32\[::1, :, :\]"):
        kernel[1, (4, 5, 6)](strided)


def test_any_layout_signature_takes_fortran_arrays(cpu_backend):
    kernel = gpu.jit("void(int32[:, :, :])")(fill3d)
    out = np.asfortranarray(np.zeros((4, 5, 6), np.int32))
    kernel[1, (4, 5, 6)](out)
    assert out[3, 4, 5] == 345 and out[1, 0, 2] == 102


def test_fortran_array_without_signature_specializes_as_fortran(cpu_backend):
    kernel = gpu.jit(fill3d)
    out = np.asfortranarray(np.zeros((2, 3, 4), np.int32))
    kernel[1, (2, 3, 4)](out)
    assert out[1, 2, 3] == 123
    assert kernel.signatures == ["(int32[::1, :, :])"]


def test_fortran_signature_compiles_to_ptx():
    ptx, _ = gpu.compile_ptx(fill3d, "void(int32[::1, :, :])")
    assert ".entry" in ptx


@pytest.mark.parametrize("sig, message", [
    ("void(int32[:, ::1, :])", r"'::1' must be on the last axis \(C order.*or the first \(Fortran order"),
    ("void(int32[::1, ::1])", r"'::1' may appear on one axis only"),
    ("void(int32[::2, :])", r"expected '1' after '::'"),
])
def test_bad_contiguous_axes_are_errors(sig, message):
    with pytest.raises(TypeError, match=message):
        gpu.jit(sig)(fill3d)


def test_bad_contiguous_axes_in_types_are_errors():
    with pytest.raises(TypeError, match=r"'::1' must be on the last axis"):
        gpu.int32[:, ::1, :]
    with pytest.raises(TypeError, match=r"one axis only"):
        gpu.int32[::1, ::1]


def decrement(ary):
    i, j = gpu.threadIdx.x, gpu.threadIdx.y
    ary[i, j] -= 1


def test_one_signature_takes_integers_of_the_same_width(cpu_backend):
    # numba-cuda launches a kernel of one signature with the array it is given; int32 elements read uint32 data.
    kernel = gpu.jit("void(int32[:, :])")(decrement)
    a = np.arange(32, dtype=np.uint32).reshape(4, 8)
    kernel[1, (4, 8)](a)
    expect = np.arange(32, dtype=np.int64).reshape(4, 8) - 1
    np.testing.assert_array_equal(a, expect.astype(np.uint32))  # 0 - 1 wraps to 2**32 - 1
    assert a[0, 0] == 2**32 - 1

    ballot = gpu.jit("void(uint32[::1])")(lambda_free_store)
    b = np.zeros(4, np.int32)
    ballot[1, 4](b)
    np.testing.assert_array_equal(b, np.full(4, -1, np.int32))  # 0xFFFFFFFF read back as int32


def lambda_free_store(ary):
    ary[gpu.threadIdx.x] = 0xFFFFFFFF


def test_one_signature_refuses_other_dtypes(cpu_backend):
    kernel = gpu.jit("void(int32[:, :])")(decrement)
    for dtype in (np.int64, np.float32, np.int16):
        with pytest.raises(TypeError, match=r"(?s)No matching definition.*where argument 'ary' \(position 1\)"):
            kernel[1, (4, 8)](np.zeros((4, 8), dtype))


def test_a_list_of_signatures_does_not_reinterpret(cpu_backend):
    # numba's dispatcher of a signature list picks an overload by its conversion rules, which have none
    # from uint32 arrays to int32 ones.
    kernel = gpu.jit(["void(int32[:, :])"])(decrement)
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) uint32\[:, ::1\]"):
        kernel[1, (4, 8)](np.zeros((4, 8), np.uint32))


def fill2d(a):
    i, j = gpu.grid(2)
    a[i, j] = 1.0


def test_fortran_elements_index_without_reading_strides():
    # As a C array's do: the offset in elements is i + j * shape[0], so LLVM sees the contiguous axis.
    def stride_products(sig):
        llvm = gpu.jit(f"void{sig}")(fill2d).inspect_llvm(sig)
        return [line for line in llvm.splitlines() if " mul " in line and "%stride" in line], llvm

    products, llvm = stride_products("(float32[::1, :])")
    assert products == [] and "getelementptr inbounds float" in llvm
    products, llvm = stride_products("(float32[:, :])")
    assert len(products) == 2  # any layout: each index times its byte stride


def test_fortran_elements_with_unit_axes_index_right(cpu_backend):
    # NumPy calls an array with a size-1 axis Fortran-contiguous whatever that axis' stride is.
    kernel = gpu.jit("void(int32[::1, :, :])")(fill3d)
    a = np.asfortranarray(np.zeros((4, 1, 6), np.int32))
    kernel[1, (4, 1, 6)](a)
    i, j, k = np.indices(a.shape)
    np.testing.assert_array_equal(a, i * 100 + j * 10 + k)
