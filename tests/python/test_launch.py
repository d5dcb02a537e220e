"""The launch path against the fake driver: what reaches cuLaunchKernel, caching, argument errors.

The fake driver runs no kernel, but it records each launch's configuration and the bytes of every
parameter, sized by the PTX's own parameter list, so these tests check the ABI end to end: an array is
(pointer, shapes, byte strides), scalars are their dtype's bytes, complex values are two parameters.
"""

import array
import ctypes
import struct
import sys

import numpy as np
import pytest

import gpujit as gpu


@pytest.fixture(autouse=True)
def _needs_fake(fake):
    return fake


def u64(b):
    """A parameter's value: 8-byte ones unsigned, 4-byte ones (an index32 array's shapes and strides) signed."""
    return struct.unpack("<Q" if len(b) == 8 else "<i", b)[0]


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
    with pytest.raises(TypeError, match=r"kernel 'k' has no signature for arguments \(float64\[::1\], float64, int64\)"):
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

    with pytest.raises(gpu.LaunchError, match=r"a block of 512 threads is more than this kernel's limit of 256"):
        heavy[1, 512](1)


class _FakeCupyModule:
    """Stands in for cupy: the launch path recognizes cupy.ndarray by isinstance and reads data.ptr, shape,
    strides and dtype directly instead of building __cuda_array_interface__."""

    class ndarray:
        def __init__(self, target):
            class Memory:
                ptr = target.__cuda_array_interface__["data"][0]

            self.data = Memory()
            self.shape = target.shape
            self.strides = target.strides
            self.dtype = target.dtype

        @property
        def __cuda_array_interface__(self):
            raise AssertionError("the CuPy fast path should not need the interface")


class _FakeTorchModule:
    """Stands in for torch: tensors are read through data_ptr(), shape, stride() (in elements) and dtype."""

    class dtype_float32:
        def __str__(self):
            return "torch.float32"

    class Tensor:
        def __init__(self, target, is_cuda=True):
            self._target = target
            self.is_cuda = is_cuda
            self.shape = target.shape
            self.dtype = _FakeTorchModule.float32

        def data_ptr(self):
            return self._target.__cuda_array_interface__["data"][0]

        def stride(self):
            return tuple(s // 4 for s in self._target.strides)

        @property
        def __cuda_array_interface__(self):
            if not self.is_cuda:
                raise AttributeError("no interface on a CPU tensor")
            raise AssertionError("the torch fast path should not need the interface")


_FakeTorchModule.float32 = _FakeTorchModule.dtype_float32()


def test_cupy_and_torch_arrays_take_their_fast_paths(fake, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _FakeCupyModule)
    monkeypatch.setitem(sys.modules, "torch", _FakeTorchModule)

    @gpu.jit
    def k(a, b):
        pass

    d = gpu.to_device(np.zeros((4, 6), np.float32))
    view = d[:, 2:]
    k[1, 1](_FakeCupyModule.ndarray(view), _FakeTorchModule.Tensor(d))
    params = [u64(p) for p in fake.last_launch()[5]]
    base = d.__cuda_array_interface__["data"][0]
    assert params == [base + 8, 4, 4, 24, 4, base, 4, 6, 24, 4]
    assert k.signatures == ["(float32[:, :], float32[:, ::1])"]
    with pytest.raises(TypeError, match="argument 'b' .* cannot be passed: no interface on a CPU tensor|argument 'b'"):
        k[1, 1](_FakeCupyModule.ndarray(view), _FakeTorchModule.Tensor(d, is_cuda=False))


class _VersionedTensor(_FakeTorchModule.Tensor):
    """A fake tensor with torch's `_version` counter, counting the reads the launch path makes."""

    def __init__(self, target):
        super().__init__(target)
        self._version = 0
        self.reads = 0

    def stride(self):
        self.reads += 1
        return super().stride()

    def retarget(self, target, bump=True):
        """What an in-place operation does: new metadata, and (as torch does) a new version."""
        self._target, self.shape = target, target.shape
        self._version += bump


def test_torch_tensors_launched_again_are_checked_not_reread(fake, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", _FakeTorchModule)

    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros((4, 6), np.float32))
    base = d.__cuda_array_interface__["data"][0]
    t = _VersionedTensor(d)
    before = gpu._core._tensor_cache_counts()
    for _ in range(3):
        k[1, 1](t)
    assert t.reads == 1  # the first launch read the whole tensor; the others matched version, pointer, dtype
    after = gpu._core._tensor_cache_counts()
    assert (after["misses"] - before["misses"], after["hits"] - before["hits"]) == (1, 2)
    assert [u64(p) for p in fake.last_launch()[5]] == [base, 4, 6, 24, 4]

    # An in-place change of shape and strides (transpose_, resize_...) bumps the version: read again.
    t.retarget(d[:, ::2])
    k[1, 1](t)
    assert t.reads == 2
    assert [u64(p) for p in fake.last_launch()[5]] == [base, 4, 3, 24, 8]
    # A new pointer is noticed even without a new version (t.data = other).
    t.retarget(d[1:], bump=False)
    k[1, 1](t)
    assert t.reads == 3
    assert [u64(p) for p in fake.last_launch()[5]] == [base + 24, 3, 6, 24, 4]

    # A tensor that died is forgotten: a new one, even at the same address, with the same pointer and
    # version, is read for itself.
    del t
    t2 = _VersionedTensor(d[:2])
    k[1, 1](t2)
    assert t2.reads == 1
    assert [u64(p) for p in fake.last_launch()[5]] == [base, 2, 6, 24, 4]


def test_a_monkeypatched_tensor_attribute_is_read_anew(fake, monkeypatch):
    # The launch path keeps the type's attribute descriptors; replacing one on the class must be seen.
    class Tensor(_FakeTorchModule.Tensor):
        def __init__(self, target):
            self._target, self.is_cuda, self.dtype = target, True, _FakeTorchModule.float32

        @property
        def shape(self):
            return self._target.shape

    monkeypatch.setitem(sys.modules, "torch", type("torch", (), {"Tensor": Tensor}))

    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros((4, 6), np.float32))
    k[1, 1](Tensor(d))
    assert [u64(p) for p in fake.last_launch()[5][1:3]] == [4, 6]
    Tensor.shape = property(lambda self: (2, 6))
    k[1, 1](Tensor(d))
    assert [u64(p) for p in fake.last_launch()[5][1:3]] == [2, 6]


class _ContiguousCupyArray(_FakeCupyModule.ndarray):
    """A CuPy array that keeps CuPy's `_c_contiguous` flag and counts reads of `strides`."""

    def __init__(self, target, c_contiguous, strides):
        super().__init__(target)
        self._c_contiguous = c_contiguous
        self._strides = strides
        self.stride_reads = 0

    @property
    def strides(self):
        self.stride_reads += 1
        return self._strides

    @strides.setter
    def strides(self, value):
        self._strides = value


def test_cupy_arrays_flagged_c_contiguous_are_read_without_their_strides(fake, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _FakeCupyModule)

    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros((4, 1, 6), np.float32))
    base = d.__cuda_array_interface__["data"][0]
    # CuPy may keep any stride along an extent of 1: the row-major strides address the same elements.
    a = _ContiguousCupyArray(d, True, (24, 999, 4))
    k[1, 1](a)
    assert a.stride_reads == 0
    assert [u64(p) for p in fake.last_launch()[5]] == [base, 4, 1, 6, 24, 24, 4]
    assert k.signatures == ["(float32[:, :, ::1])"]
    # Not contiguous: the strides are read and passed as they are.
    v = d[:, :, ::2]
    b = _ContiguousCupyArray(v, False, v.strides)
    k[1, 1](b)
    assert b.stride_reads == 1
    assert [u64(p) for p in fake.last_launch()[5]] == [base, 4, 1, 3, 24, 24, 8]


class _CMethodTensor(int):
    """A fake tensor whose data_ptr() is a method defined in C, as torch's is: int.conjugate returns the int,
    here the device pointer. The launch path calls such a method straight through its C function."""

    data_ptr = int.conjugate
    is_cuda = True
    dtype = _FakeTorchModule.float32

    def __new__(cls, target):
        t = super().__new__(cls, target.__cuda_array_interface__["data"][0])
        t.shape, t._strides = target.shape, tuple(s // 4 for s in target.strides)
        return t

    def stride(self):
        return self._strides


def test_torch_methods_defined_in_c_are_called_through_their_descriptor(fake, monkeypatch):
    class Override(_CMethodTensor):
        def data_ptr(self):  # a subclass overriding the method in Python is called as such
            return int(self) + 8

    monkeypatch.setitem(sys.modules, "torch", type("torch", (), {"Tensor": _CMethodTensor}))

    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros((4, 6), np.float32))
    base = d.__cuda_array_interface__["data"][0]
    k[1, 1](_CMethodTensor(d))
    assert [u64(p) for p in fake.last_launch()[5]] == [base, 4, 6, 24, 4]
    k[1, 1](Override(d))
    assert u64(fake.last_launch()[5][0]) == base + 8


class _CGetterTensor(array.array):
    """A fake tensor whose `_version` is a getter defined in C, as torch's is (array.itemsize: 8 for 'q',
    never changing); array objects take weak references, so it can be cached."""

    _version = array.array.itemsize
    is_cuda = True
    dtype = _FakeTorchModule.float32

    def data_ptr(self):
        return self.target.__cuda_array_interface__["data"][0]

    def stride(self):
        return tuple(s // 4 for s in self.target.strides)


def test_torch_getters_defined_in_c_are_called_through_their_function(fake, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", type("torch", (), {"Tensor": _CGetterTensor}))

    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros((4, 6), np.float32))
    t = _CGetterTensor("q", [0])
    t.target, t.shape = d, d.shape
    before = gpu._core._tensor_cache_counts()
    k[1, 1](t)
    k[1, 1](t)
    after = gpu._core._tensor_cache_counts()
    # Both launches read `_version` (8) through the C getter: the first fills the cache, the second hits it.
    assert (after["misses"] - before["misses"], after["hits"] - before["hits"]) == (1, 1)
    assert [u64(p) for p in fake.last_launch()[5]] == [d.__cuda_array_interface__["data"][0], 4, 6, 24, 4]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_FROM_PY_OBJECT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_DLTensor))


class _ExchangeAPI(ctypes.Structure):
    """DLPack 1.3's DLPackExchangeAPI, as PyTorch 2.11 attaches it to torch.Tensor."""
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.c_void_p),
                ("allocator", ctypes.c_void_p), ("managed_from_py", ctypes.c_void_p),
                ("managed_to_py", ctypes.c_void_p), ("dltensor_from_py_object_no_sync", _FROM_PY_OBJECT),
                ("current_work_stream", ctypes.c_void_p)]


def _exchange_tensor_type(minor=3):
    """A tensor type offering DLPack's C exchange API, whose C function (a ctypes callback here) describes
    the tensor's target array; it counts its calls and fails for tensors marked as on the CPU."""

    class Tensor:
        calls = 0

        def __init__(self, target, on_cpu=False):
            self.target, self.on_cpu = target, on_cpu
            cai = target.__cuda_array_interface__
            self.shape = (ctypes.c_int64 * len(cai["shape"]))(*cai["shape"])
            self.strides = (ctypes.c_int64 * len(cai["shape"]))(*[s // 4 for s in target.strides])
            self.data = cai["data"][0]

        @property
        def __cuda_array_interface__(self):
            if self.on_cpu:
                raise AttributeError("no interface on a CPU tensor")
            return self.target.__cuda_array_interface__

    def from_py_object(obj, out):
        t = ctypes.cast(obj, ctypes.py_object).value
        Tensor.calls += 1
        if t.on_cpu:
            out[0].device = _DLDevice(1, 0)
        else:
            out[0].device = _DLDevice(2, 0)
        out[0].data, out[0].ndim, out[0].dtype = t.data, len(t.shape), _DLDataType(2, 32, 1)
        out[0].shape = ctypes.cast(t.shape, ctypes.POINTER(ctypes.c_int64))
        out[0].strides = ctypes.cast(t.strides, ctypes.POINTER(ctypes.c_int64))
        out[0].byte_offset = 0
        return 0

    api = _ExchangeAPI(1, minor, None, None, None, None, _FROM_PY_OBJECT(from_py_object), None)
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype, new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    Tensor.__dlpack_c_exchange_api__ = new_capsule(ctypes.addressof(api), b"dlpack_exchange_api", None)
    Tensor._api = api  # keeps the table and its callback alive as long as the type
    return Tensor


def test_tensors_with_dlpacks_c_exchange_api_are_read_through_it(fake):
    Tensor = _exchange_tensor_type()

    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros((4, 6), np.float32))
    base = d.__cuda_array_interface__["data"][0]
    k[1, 1](Tensor(d[:, 1:]))
    assert Tensor.calls == 1
    assert [u64(p) for p in fake.last_launch()[5]] == [base + 4, 4, 5, 24, 4]
    assert k.signatures == ["(float32[:, :])"]
    # A tensor the C function describes as not in CUDA memory is not launched with; the generic protocols
    # then refuse it (this one has no interface at all).
    with pytest.raises(TypeError, match=r"argument 'a' \(position 1\) has unsupported type 'Tensor'"):
        k[1, 1](Tensor(d, on_cpu=True))
    assert Tensor.calls == 3  # the fast path, then the generic one's second look


def test_the_exchange_api_can_be_switched_off_for_benchmarks(fake):
    Tensor = _exchange_tensor_type()

    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros(8, np.float32))
    try:
        gpu._core._use_exchange_api(False)
        k[1, 1](Tensor(d))  # read through __cuda_array_interface__
        assert Tensor.calls == 0
    finally:
        gpu._core._use_exchange_api(True)
    k[1, 1](Tensor(d))
    assert Tensor.calls == 1
    assert [u64(p) for p in fake.last_launch()[5]] == [d.__cuda_array_interface__["data"][0], 8, 4]


def test_an_exchange_api_of_an_unknown_version_is_not_used(fake):
    Tensor = _exchange_tensor_type(minor=2)

    @gpu.jit
    def k(a):
        pass

    d = gpu.to_device(np.zeros(8, np.float32))
    k[1, 1](Tensor(d))  # read through __cuda_array_interface__ instead
    assert Tensor.calls == 0
    assert [u64(p) for p in fake.last_launch()[5]] == [d.__cuda_array_interface__["data"][0], 8, 4]


def test_argument_read_ns_times_the_classification_of_arguments(fake):
    d = gpu.to_device(np.zeros(16, np.float32))
    ns = gpu._core._argument_read_ns((d, d, 1.0), 1000)
    assert isinstance(ns, float) and ns > 0
    with pytest.raises(TypeError, match=r"argument 'arg' \(position 2\) has unsupported type 'object'"):
        gpu._core._argument_read_ns((d, object()), 10)


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
