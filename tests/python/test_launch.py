"""The launch path against the fake driver: what reaches cuLaunchKernel, caching, argument errors.

The fake driver runs no kernel, but it records each launch's configuration and the bytes of every
parameter, sized by the PTX's own parameter list, so these tests check the ABI end to end: an array is
(pointer, shapes, byte strides), scalars are their dtype's bytes, complex values are two parameters.
"""

import ctypes
import struct
import warnings

import numpy as np
import pytest
from conftest import u64

import gpujit as gpu


@pytest.fixture(autouse=True)
def _needs_fake(fake):
    return fake


def test_arrays_and_scalars_are_packed_per_the_abi(fake):
    @gpu.jit
    def k(a, x, n, flag, h):
        pass

    d = gpu.to_device(np.zeros((3, 4), np.float32))
    k[(2, 3), (32, 2), 0, 128](d, 2.5, 7, True, np.float16(1.5))
    name, grid, block, shared, stream, params = fake.last_launch()
    assert name.startswith("_gpujit_k")
    assert grid == (2, 3, 1) and block == (32, 2, 1) and shared == 128 and stream == 0
    ptr = d.__cuda_array_interface__["data"][0]
    assert [u64(p) for p in params[:5]] == [ptr, 3, 4, 16, 4]
    # An array under 2 GiB is specialized index32: its shapes and strides travel as 32-bit parameters.
    assert [len(p) for p in params[:5]] == [8, 4, 4, 4, 4]
    assert struct.unpack("<d", params[5])[0] == 2.5
    assert struct.unpack("<q", params[6])[0] == 7
    assert params[7][0] == 1
    assert np.frombuffer(params[8], np.float16)[0] == 1.5
    assert k.signatures == ["(float32[:, ::1], float64, int64, bool, float16)"]


def test_strided_views_pass_their_strides(fake):
    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros((4, 6), np.int16))
    v = d[::2, 1::3]
    k[1, 1](v)
    params = fake.last_launch()[5]
    assert [u64(p) for p in params] == [v.__cuda_array_interface__["data"][0], 2, 2, 24, 6]
    assert k.signatures == ["(int16[:, :])"]


def test_one_compile_and_one_module_load_per_signature(fake):
    @gpu.jit
    def k(a, s):
        pass

    d = gpu.device_array(8, np.float32)
    loads = fake.calls("cuModuleLoadDataEx")
    for _ in range(5):
        k[1, 32](d, 1.0)
    assert fake.calls("cuModuleLoadDataEx") == loads + 1
    k[1, 32](d, 1)  # int64 scalar: a second specialization
    k[1, 32](d, np.float32(1))
    assert k._stats["compiled"] == 3 and k._stats["loaded"] == 3
    assert fake.calls("cuModuleLoadDataEx") == loads + 3
    launches = fake.calls("cuLaunchKernel")
    k[1, 32](d, 2.0)
    assert fake.calls("cuLaunchKernel") == launches + 1


def test_numpy_arguments_are_copied_in_and_back(fake):
    @gpu.jit
    def k(a):
        pass

    a = np.arange(10, dtype=np.float64)
    htod, dtoh = fake.calls("cuMemcpyHtoDAsync_v2"), fake.calls("cuMemcpyDtoHAsync_v2")
    k[1, 32](a)
    assert fake.calls("cuMemcpyHtoDAsync_v2") == htod + 1
    assert fake.calls("cuMemcpyDtoHAsync_v2") == dtoh + 1
    np.testing.assert_array_equal(a, np.arange(10))  # the fake kernel wrote nothing; the copy back kept it
    params = fake.last_launch()[5]
    assert [u64(p) for p in params[1:]] == [10, 8]
    readonly = np.arange(3.0)
    readonly.flags.writeable = False
    k[1, 1](readonly)
    assert fake.calls("cuMemcpyDtoHAsync_v2") == dtoh + 1  # nothing to copy back into a read-only array


def test_strided_numpy_arguments_come_back_through_a_contiguous_copy(fake):
    @gpu.jit
    def k(a):
        pass

    a = np.arange(12, dtype=np.int32)[::3]
    k[1, 1](a)
    assert k.signatures == ["(int32[::1])"]
    np.testing.assert_array_equal(a, [0, 3, 6, 9])


class _CudaArrayLike:
    def __init__(self, target):
        self.target = target

    @property
    def __cuda_array_interface__(self):
        return self.target.__cuda_array_interface__


class _DLPackLike:
    def __init__(self, target):
        self.target = target

    def __dlpack__(self, stream=None):
        return self.target.__dlpack__()


def test_foreign_arrays_are_passed_zero_copy(fake):
    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros(5, np.float32))
    ptr = d.__cuda_array_interface__["data"][0]
    htod = fake.calls("cuMemcpyHtoDAsync_v2")
    k[1, 1](_CudaArrayLike(d))
    assert u64(fake.last_launch()[5][0]) == ptr
    k[1, 1](_DLPackLike(d[1:]))
    params = fake.last_launch()[5]
    assert [u64(p) for p in params] == [ptr + 4, 4, 4]
    assert fake.calls("cuMemcpyHtoDAsync_v2") == htod
    assert k._stats["compiled"] == 1  # both are float32[::1]


def test_wrong_arguments_name_the_kernel_and_the_parameter(fake):
    @gpu.jit
    def scale(out, factor):
        pass

    d = gpu.device_array(4, np.float32)
    with pytest.raises(TypeError, match=r"kernel 'scale' takes 2 arguments but 1 was given"):
        scale[1, 1](d)
    with pytest.raises(TypeError, match=r"kernel 'scale': argument 'factor' \(position 2\) has unsupported type 'str'"):
        scale[1, 1](d, "2")
    with pytest.raises(TypeError, match="positional arguments only"):
        scale[1, 1](d, factor=2.0)
    with pytest.raises(ValueError, match="argument 'factor' .* too large"):
        scale[1, 1](d, 1 << 70)
    assert fake.last_launch()[0] != "scale"


def test_device_limits_are_checked_before_the_driver(fake):
    @gpu.jit
    def k(a):
        pass

    launches = fake.calls("cuLaunchKernel")
    with pytest.raises(gpu.LaunchError, match=r"kernel 'k': 300000 bytes of shared memory .* limit of 232448"):
        k[1, 1, 0, 300000](1.0)
    assert fake.calls("cuLaunchKernel") == launches


def test_explicit_signatures_convert_scalars(fake):
    @gpu.jit("void(float32[::1], float32, int32)")
    def k(a, x, n):
        pass

    assert k.signatures == ["(float32[::1], float32, int32)"]
    d = gpu.device_array(3, np.float32)
    k[1, 1](d, 2.5, 3)
    params = fake.last_launch()[5]
    assert struct.unpack("<f", params[3])[0] == 2.5 and struct.unpack("<i", params[4])[0] == 3
    assert k._stats["compiled"] == 1
    # numba's wording first, then the kernel and the signatures it has.
    with pytest.raises(TypeError, match=r"^No matching definition for argument type\(s\) float64\[::1\], float64, "
                                        r"int64 of kernel 'k'; its signatures are:\n  \(float32\[::1\], float32, int32\), "
                                        r"where argument 'a' \(position 1\) is float64\[::1\], not float32\[::1\]$"):
        k[1, 1](gpu.device_array(3), 2.5, 3)


def test_streams_reach_the_launch(fake):
    @gpu.jit
    def k(a):
        pass

    s = gpu.stream()
    k[1, 1, s](1)
    assert fake.last_launch()[4] == s.handle != 0
    cfg = k[4, 64, s]
    cfg(2)
    cfg(3)
    assert fake.last_launch()[1] == (4, 1, 1)


def test_a_kernel_limited_by_registers_says_so(fake, monkeypatch):
    # The fake reports each function's max threads from FAKECUDA_MAX_THREADS when the module loads.
    monkeypatch.setenv("FAKECUDA_MAX_THREADS", "256")

    @gpu.jit
    def heavy(a):
        pass

    with pytest.raises(gpu.CudaAPIError, match=r"CUDA_ERROR_INVALID_VALUE.*a block of 512 threads is more than "
                                               r"this kernel's limit of 256"):
        heavy[1, 512](1)


def test_arrays_of_another_backend_are_refused_by_name(fake):
    @gpu.jit
    def k(a):
        pass

    gpu._core._set_backend("cpu")
    on_cpu = gpu.to_device(np.arange(3.0))
    gpu._core._set_backend("cuda")
    np.testing.assert_array_equal(on_cpu.copy_to_host(), np.arange(3.0))  # still usable after the switch
    with pytest.raises(TypeError, match=r"argument 'a' \(position 1\) is an array on cpu \(device 0\) but the launch is on Fake CUDA Device 0"):
        k[1, 1](on_cpu)


class _RawCudaArray:
    """Any memory described by __cuda_array_interface__ alone (the kernels below never touch it)."""

    def __init__(self, ptr, shape, strides, typestr="<f4"):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape, "strides": strides,
                                         "typestr": typestr, "version": 3}


def test_arrays_spanning_2_gib_or_more_keep_64_bit_parameters(fake):
    @gpu.jit
    def k(a):
        pass

    base = gpu.to_device(np.zeros(4, np.float32)).__cuda_array_interface__["data"][0]
    k[1, 1](_RawCudaArray(base, (2,), (4,)))
    assert [len(p) for p in fake.last_launch()[5]] == [8, 4, 4]
    # Two elements 2 GiB apart: in-bounds byte offsets no longer fit in int32.
    k[1, 1](_RawCudaArray(base, (2,), (1 << 31,)))
    params = fake.last_launch()[5]
    assert [len(p) for p in params] == [8, 8, 8]
    assert [u64(p) for p in params] == [base, 2, 1 << 31]
    assert k.signatures == ["(float32[::1])", "(float32[:])"]
    # Negative strides count too: the span is measured both ways from the data pointer.
    k[1, 1](_RawCudaArray(base + (3 << 30), (3,), (-(1 << 30),)))
    assert [len(p) for p in fake.last_launch()[5]] == [8, 8, 8]
    k[1, 1](_RawCudaArray(base + 8, (3,), (-4,)))
    params = fake.last_launch()[5]
    assert [len(p) for p in params] == [8, 4, 4] and u64(params[2]) == -4
    # The two float32[:] specializations read alike: listed once, and inspected as the 32-bit one.
    assert k._stats["compiled"] == 3
    assert k.signatures == ["(float32[::1])", "(float32[:])"]
    ptx = k.inspect_ptx()
    assert list(ptx) == ["(float32[::1])", "(float32[:])"]
    assert ".param .u32" in ptx["(float32[:])"]


def test_an_extent_of_2_pow_62_is_refused(fake):
    @gpu.jit
    def k(a):
        pass

    base = gpu.to_device(np.zeros(4, np.float32)).__cuda_array_interface__["data"][0]
    with pytest.raises(ValueError, match="extent of 4611686018427387904 elements is too large"):
        k[1, 1](_RawCudaArray(base, (1 << 62,), (0,)))


def test_mapped_arrays_are_passed_in_place(fake):
    @gpu.jit
    def k(a):
        pass

    m = gpu.mapped_array((4, 3), np.float32)
    htod, dtoh = fake.calls("cuMemcpyHtoDAsync_v2"), fake.calls("cuMemcpyDtoHAsync_v2")
    k[1, 1](m[1:])
    assert fake.calls("cuMemcpyHtoDAsync_v2") == htod and fake.calls("cuMemcpyDtoHAsync_v2") == dtoh
    # The fake driver maps host memory at the host address; a view starts at its own element.
    assert u64(fake.last_launch()[5][0]) == m[1:].__array_interface__["data"][0]


def test_managed_arrays_are_allocated_managed_and_passed_in_place(fake):
    @gpu.jit
    def k(a):
        pass

    managed = fake.calls("cuMemAllocManaged")
    m = gpu.managed_array((4, 3), np.float32)
    assert fake.calls("cuMemAllocManaged") == managed + 1
    htod, dtoh = fake.calls("cuMemcpyHtoDAsync_v2"), fake.calls("cuMemcpyDtoHAsync_v2")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        previous, gpu.config.CUDA_WARN_ON_IMPLICIT_COPY = gpu.config.CUDA_WARN_ON_IMPLICIT_COPY, 1
        try:
            k[1, 1](m)
        finally:
            gpu.config.CUDA_WARN_ON_IMPLICIT_COPY = previous
    assert not [w for w in caught if "copy overhead" in str(w.message)]  # nothing is copied
    assert fake.calls("cuMemcpyHtoDAsync_v2") == htod and fake.calls("cuMemcpyDtoHAsync_v2") == dtoh
    assert u64(fake.last_launch()[5][0]) == m.__array_interface__["data"][0]
    live = fake.lib.fakecuda_live_allocations(ctypes.byref(ctypes.c_longlong()))
    del m
    # The memory goes back (cuMemFree) with the array.
    assert fake.lib.fakecuda_live_allocations(ctypes.byref(ctypes.c_longlong())) == live - 1


def test_the_default_streams_by_name_are_the_drivers_special_handles(fake):
    @gpu.jit
    def k(a):
        pass

    for make, handle in ((gpu.legacy_default_stream, 1), (gpu.per_thread_default_stream, 2)):
        s = make()
        assert int(s.handle) == handle  # CU_STREAM_LEGACY, CU_STREAM_PER_THREAD
        s.synchronize()
        k[1, 1, s](1)
        assert fake.last_launch()[4] == handle


@pytest.mark.parametrize("hint, copies_in, copies_back", [("In", 1, 0), ("Out", 0, 1), ("InOut", 1, 1)])
def test_copy_hints_choose_the_copies_of_a_host_array(fake, hint, copies_in, copies_back):
    @gpu.jit
    def k(a):
        pass

    a = np.zeros(8, np.float32)
    htod, dtoh = fake.calls("cuMemcpyHtoDAsync_v2"), fake.calls("cuMemcpyDtoHAsync_v2")
    k[1, 1](getattr(gpu, hint)(a))
    assert fake.calls("cuMemcpyHtoDAsync_v2") - htod == copies_in
    assert fake.calls("cuMemcpyDtoHAsync_v2") - dtoh == copies_back
