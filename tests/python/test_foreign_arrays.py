"""Arrays of other libraries as kernel arguments, against the fake driver: the fast paths for PyTorch and
CuPy (python/src/foreign_arrays.cpp) and DLPack's C exchange API (python/src/dlpack.cpp).

The libraries themselves need a GPU, so stand-ins take their place: modules named `torch` and `cupy` put in
sys.modules (the launch path recognizes tensors by isinstance against them), types whose methods and getters
are defined in C as PyTorch's are, and an exchange table built with ctypes. Each test checks the parameters
that reached the driver and, where it matters, which reads were made.
"""

import array
import ctypes
import sys

import numpy as np
import pytest
from conftest import u64

import gpujit as gpu


@pytest.fixture(autouse=True)
def _needs_fake(fake):
    return fake


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


def _exchange_tensor_type(minor=3, dtype=(2, 32, 1)):
    """A tensor type offering DLPack's C exchange API, whose C function (a ctypes callback here) describes
    the tensor's target array as of DLPack type `dtype` (code, bits, lanes; float32 by default), on CUDA device
    `device_id`; it counts its calls and fails for tensors marked as on the CPU. `Tensor.of_view` makes one of
    any extents and strides (in elements; None: no strides, C order) at an address, with no array behind it."""

    class Tensor:
        calls = 0

        def __init__(self, target, on_cpu=False, device_id=0):
            self.target, self.on_cpu, self.device_id = target, on_cpu, device_id
            cai = target.__cuda_array_interface__
            self.shape = (ctypes.c_int64 * len(cai["shape"]))(*cai["shape"])
            self.strides = (ctypes.c_int64 * len(cai["shape"]))(*[s // 4 for s in target.strides])
            self.data = cai["data"][0]

        @classmethod
        def of_view(cls, data, shape, strides):
            t = cls.__new__(cls)
            t.target, t.on_cpu, t.device_id, t.data = None, False, 0, data
            t.shape = (ctypes.c_int64 * len(shape))(*shape)
            t.strides = None if strides is None else (ctypes.c_int64 * len(shape))(*strides)
            return t

        @property
        def __cuda_array_interface__(self):
            if self.on_cpu or self.target is None:
                raise AttributeError("no interface on a CPU tensor")
            return self.target.__cuda_array_interface__

    def from_py_object(obj, out):
        t = ctypes.cast(obj, ctypes.py_object).value
        Tensor.calls += 1
        if t.on_cpu:
            out[0].device = _DLDevice(1, 0)
        else:
            out[0].device = _DLDevice(2, t.device_id)
        out[0].data, out[0].ndim, out[0].dtype = t.data, len(t.shape), _DLDataType(*dtype)
        out[0].shape = ctypes.cast(t.shape, ctypes.POINTER(ctypes.c_int64))
        out[0].strides = None if t.strides is None else ctypes.cast(t.strides, ctypes.POINTER(ctypes.c_int64))
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


@pytest.mark.parametrize("code, bits, lanes, expected", [
    (0, 8, 1, "int8"), (0, 16, 1, "int16"), (0, 32, 1, "int32"), (0, 64, 1, "int64"),
    (1, 8, 1, "uint8"), (1, 16, 1, "uint16"), (1, 32, 1, "uint32"), (1, 64, 1, "uint64"),
    (2, 16, 1, "float16"), (2, 32, 1, "float32"), (2, 64, 1, "float64"),
    (5, 64, 1, "complex64"), (5, 128, 1, "complex128"), (6, 8, 1, "bool"),
    # Not gpujit element types: the tensor is read through __cuda_array_interface__ instead (float32 here).
    (0, 12, 1, None), (1, 128, 1, None), (2, 8, 1, None), (2, 128, 1, None), (5, 32, 1, None), (6, 16, 1, None),
    (4, 16, 1, None), (3, 64, 1, None), (2, 32, 2, None), (7, 8, 1, None),
])
def test_the_exchange_apis_element_types(fake, code, bits, lanes, expected):
    # DLPack's type codes: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLOpaqueHandle 3, kDLBfloat 4, kDLComplex 5,
    # kDLBool 6. Only whole element types of gpujit's are taken; 12-bit integers once read as int8.
    Tensor = _exchange_tensor_type(dtype=(code, bits, lanes))

    @gpu.jit
    def k(a):
        pass

    k[1, 1](Tensor(gpu.to_device(np.zeros(8, np.float32))))
    assert Tensor.calls >= 1
    assert k.signatures == [f"({expected or 'float32'}[::1])"]


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


class _InterfaceView:
    """The same view as Tensor.of_view's, through __cuda_array_interface__ (strides in bytes)."""

    def __init__(self, data, shape, strides):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (data, False), "version": 3,
                                         "strides": None if strides is None else tuple(4 * s for s in strides)}


@pytest.mark.parametrize("shape, strides", [
    ((8,), None), ((8,), (1,)), ((8,), (2,)), ((8,), (-1,)), ((8,), (0,)), ((1,), (5,)),
    ((4, 6), (6, 1)), ((4, 6), None), ((4, 6), (1, 4)), ((4, 1), (1, 7)), ((1, 1, 5), (99, 3, 1)),
    ((3, 5), (7, 1)), ((2,) * 8, None), ((2, 3, 2, 1, 2, 1, 3, 2), (72, 24, 12, 12, 6, 1, 2, 1)),
    # Empty: no extent is stepped along.
    ((0,), (1,)), ((0, 4), (4, 1)), ((2, 3, 0), None), ((3, 0), (1, 9)),
    # Byte offsets past 32 bits (the kernel then takes 64-bit extents and strides), up and down.
    ((3,), (2 ** 29,)), ((3,), (-(2 ** 29),)), ((2, 2), (2 ** 28, 2 ** 28)), ((2 ** 29 - 1,), (1,)),
    ((2 ** 29,), (1,)), ((2 ** 31 - 1,), (0,)), ((2 ** 31,), (0,)), ((2 ** 30, 2), (1, 2 ** 30)),
])
def test_the_exchange_apis_launch_reads_key_and_pack_as_the_interfaces(fake, shape, strides):
    # A launch computes an exchange-API tensor's argument code in the pass that copies its extents and
    # strides (python/src/dlpack.cpp), rather than with the core library's array_code_of: the layout and the
    # 32-bit indexing it gives must be the interface's, which takes array_code_of's.
    Tensor = _exchange_tensor_type()

    @gpu.jit
    def k(a):
        pass

    base = gpu.to_device(np.zeros(16, np.float32))  # only its address: the fake driver runs no kernel
    data = base.__cuda_array_interface__["data"][0]
    k[1, 1](Tensor(base))  # the type is known now: the launches below read through the launch path's reader
    calls = Tensor.calls
    k[1, 1](Tensor.of_view(data, shape, strides))
    assert Tensor.calls == calls + 1
    through_exchange, signatures = fake.last_launch()[5], list(k.signatures)
    k[1, 1](_InterfaceView(data, shape, strides))
    assert fake.last_launch()[5] == through_exchange  # 4-byte extents and strides where index32, else 8
    assert k.signatures == signatures  # the same specialization: the same layout


def test_an_exchange_api_tensor_with_too_large_an_extent_is_refused_as_the_interfaces(fake):
    Tensor = _exchange_tensor_type()

    @gpu.jit
    def k(a):
        pass

    base = gpu.to_device(np.zeros(16, np.float32))
    data = base.__cuda_array_interface__["data"][0]
    k[1, 1](Tensor(base))
    for too_large in (Tensor.of_view(data, (2 ** 62,), (1,)), _InterfaceView(data, (2 ** 62,), (1,))):
        with pytest.raises(ValueError, match=r"an array extent of 4611686018427387904 elements is too large"):
            k[1, 1](too_large)


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


def test_library_read_ns_makes_only_the_librarys_own_calls(fake):
    Tensor = _exchange_tensor_type()
    d = gpu.to_device(np.zeros(16, np.float32))
    t = Tensor(d)
    ns = gpu._core._library_read_ns((t, t), 50)
    assert isinstance(ns, float) and ns > 0
    assert Tensor.calls == 2 + 2 * 50  # the check that both have a fast path, then 50 rounds of both
    with pytest.raises(TypeError, match="argument 1 is not a CUDA tensor or array with a fast path"):
        gpu._core._library_read_ns((t, d), 10)  # our own arrays involve no library


def test_foreign_read_breakdown_splits_the_read_into_its_parts(fake):
    Tensor = _exchange_tensor_type()
    d = gpu.to_device(np.zeros(16, np.float32))
    t = Tensor(d)
    parts = gpu._core._foreign_read_breakdown_ns((t, t), 50)
    assert {"classify", "scope", "view", "library", "code"} <= set(parts)
    assert all(parts[p] > 0 for p in ("classify", "scope", "view", "library", "code"))
    # The check that both have a fast path, then 50 rounds each of classify, view and library.
    assert Tensor.calls == 2 + 3 * 2 * 50
    with pytest.raises(TypeError, match="argument 1 is not a CUDA tensor or array with a fast path"):
        gpu._core._foreign_read_breakdown_ns((t, d), 10)
