"""vectorize, guvectorize and reduce on CuPy arrays and PyTorch tensors cost what their kernels' launches on
the same arrays cost (issue 31): the arrays are read by the library's own attributes, as a launch reads them
(python/src/ufunc_operands.cpp), never through __cuda_array_interface__, whose dict costs microseconds and
whose stream (CuPy names one) made every call wait for the GPU.

CuPy and PyTorch need a GPU, so stand-ins take their place, as in test_foreign_arrays.py: modules named
`cupy` and `torch` put in sys.modules, whose arrays count how often their interface is read. Against the
fake driver a test counts the driver calls a ufunc call makes and compares them with a kernel launch's, or
with the same ufunc's on gpujit's own arrays; on the CPU backend the same stand-ins check the results.
"""

import sys

import numpy as np
import pytest

import gpujit as gpu

N = 1000

# The fake driver's device has 132 multiprocessors: these small grids would warn of low occupancy.
pytestmark = pytest.mark.filterwarnings("ignore::gpujit.PerformanceWarning")


class _Interface:
    """Counts reads of a stand-in's __cuda_array_interface__; it names a stream, as CuPy's does."""

    reads = 0

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        _Interface.reads += 1
        desc = dict(obj._target.__cuda_array_interface__)
        desc["stream"] = 1  # CUDA's legacy default stream: reading the interface makes the reader wait for it
        return desc


class _FakeCupy:
    """Stands in for cupy: arrays read by data.ptr, shape, strides and dtype."""

    class ndarray:
        __cuda_array_interface__ = _Interface()

        def __init__(self, target):
            class Memory:
                ptr = target.__cuda_array_interface__["data"][0]

            self._target = target
            self.data = Memory()
            self.shape = target.shape
            self.strides = target.strides
            self.dtype = target.dtype


class _FakeTorch:
    """Stands in for torch: float32 tensors read by data_ptr(), shape, stride() and dtype."""

    class dtype_float32:
        def __str__(self):
            return "torch.float32"

    class Tensor:
        __cuda_array_interface__ = _Interface()
        is_cuda = True

        def __init__(self, target):
            self._target = target
            self.shape = target.shape
            self.dtype = _FakeTorch.float32

        def data_ptr(self):
            return self._target.__cuda_array_interface__["data"][0]

        def stride(self):
            return tuple(s // 4 for s in self._target.strides)


_FakeTorch.float32 = _FakeTorch.dtype_float32()

WRAPPERS = {"cupy": lambda a: _FakeCupy.ndarray(a), "torch": lambda a: _FakeTorch.Tensor(a)}


@pytest.fixture
def libraries(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _FakeCupy)
    monkeypatch.setitem(sys.modules, "torch", _FakeTorch)
    _Interface.reads = 0
    yield
    assert _Interface.reads == 0, "a ufunc read __cuda_array_interface__ of a CuPy array or tensor"


def _add(a, b):
    return a + b


def _dot(a, b, out):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    out[0] = s


# Driver calls that a ufunc must not add to its kernel's launch: waits, copies and allocations.
COUNTED = ("cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", "cuMemAlloc_v2", "cuMemHostAlloc",
           "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2", "cuLaunchKernel")


def _driver_calls(fake, call, times=5):
    """{driver function: calls} made by `times` runs of `call`, after two runs that compile and warm."""
    call()
    call()
    before = {f: fake.calls(f) for f in COUNTED}
    for _ in range(times):
        call()
    return {f: fake.calls(f) - before[f] for f in COUNTED}


def _arrays(n=N, k=3):
    return [gpu.to_device(np.arange(n, dtype=np.float32) + i) for i in range(k)]


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_vectorize_on_foreign_arrays_makes_the_driver_calls_of_its_kernels_launch(fake, libraries, library):
    wrap = WRAPPERS[library]
    x, y, o = _arrays()
    fx, fy, fo = wrap(x), wrap(y), wrap(o)
    add = gpu.vectorize(["float32(float32, float32)"])(_add)

    @gpu.jit
    def add_kernel(a, b, out):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    launch = _driver_calls(fake, lambda: add_kernel[(N + 255) // 256, 256](fx, fy, fo))
    assert launch["cuLaunchKernel"] == 5 and sum(launch.values()) == 5
    assert _driver_calls(fake, lambda: add(fx, fy, out=fo)) == launch
    # Without out=, one new array per call, as on gpujit's own arrays: the same calls as there.
    assert _driver_calls(fake, lambda: add(fx, fy)) == _driver_calls(fake, lambda: add(x, y))


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_vectorize_returns_device_arrays_over_foreign_outputs(fake, libraries, library):
    wrap = WRAPPERS[library]
    x, y, o = _arrays()
    add = gpu.vectorize(["float32(float32, float32)"])(_add)
    for _ in range(3):  # the first call takes the general path, the later ones the fast path: alike
        got = add(wrap(x), wrap(y), out=wrap(o))
        assert isinstance(got, gpu.DeviceArray)  # as numba: a device array over the output's memory
        assert got.device_ctypes_pointer.value == o.device_ctypes_pointer.value
        new = add(wrap(x), wrap(y))
        assert isinstance(new, gpu.DeviceArray) and "data" in new.__cuda_array_interface__


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_the_general_paths_on_foreign_arrays_make_the_calls_they_make_on_our_own(fake, libraries, library):
    wrap = WRAPPERS[library]
    m = gpu.to_device(np.arange(N * 4, dtype=np.float32).reshape(N, 4))
    o = gpu.device_array(N, np.float32)
    fm, fo = wrap(m), wrap(o)
    # 2-D arrays: vectorize's general path on every call (it waited for CuPy's stream per argument).
    add = gpu.vectorize(["float32(float32, float32)"])(_add)
    o2 = gpu.device_array((N, 4), np.float32)
    assert _driver_calls(fake, lambda: add(fm, fm, out=wrap(o2))) == _driver_calls(fake, lambda: add(m, m, out=o2))
    dot = gpu.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")(_dot)
    assert _driver_calls(fake, lambda: dot(fm, fm, out=fo)) == _driver_calls(fake, lambda: dot(m, m, out=o))
    assert _driver_calls(fake, lambda: dot(fm, fm)) == _driver_calls(fake, lambda: dot(m, m))
    x = _arrays(k=1)[0]
    res = gpu.device_array(1, np.float32)
    total = gpu.reduce(_add)
    assert _driver_calls(fake, lambda: total(wrap(x), res=wrap(res))) == \
        _driver_calls(fake, lambda: total(x, res=res))
    assert _driver_calls(fake, lambda: total(wrap(x))) == _driver_calls(fake, lambda: total(x))
    binary = gpu.vectorize(["float32(float32, float32)"])(_add)
    assert _driver_calls(fake, lambda: binary.reduce(wrap(x))) == _driver_calls(fake, lambda: binary.reduce(x))


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_ufuncs_on_foreign_arrays_compute_what_they_do_on_our_own(cpu_backend, libraries, library):
    wrap = WRAPPERS[library]
    hx = np.arange(N, dtype=np.float32)
    x, y, o = gpu.to_device(hx), gpu.to_device(2 * hx), gpu.device_array(N, np.float32)
    add = gpu.vectorize(["float32(float32, float32)"])(_add)
    for _ in range(2):  # the general path, then the fast path
        o.copy_to_device(np.zeros(N, np.float32))
        add(wrap(x), wrap(y), out=wrap(o))
        np.testing.assert_equal(o.copy_to_host(), 3 * hx)
        np.testing.assert_equal(add(wrap(x), 1.0).copy_to_host(), hx + 1)
    # N-d arrays and broadcasting take the general path.
    hm = np.arange(12, dtype=np.float32).reshape(3, 4)
    m, row = gpu.to_device(hm), gpu.to_device(hm[0])
    np.testing.assert_equal(add(wrap(m), wrap(row)).copy_to_host(), hm + hm[0])
    dot = gpu.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")(_dot)
    d = gpu.device_array(3, np.float32)
    dot(wrap(m), wrap(m), out=wrap(d))
    np.testing.assert_allclose(d.copy_to_host(), (hm * hm).sum(1))
    np.testing.assert_allclose(dot(wrap(m), wrap(m)).copy_to_host(), (hm * hm).sum(1))
    total = gpu.reduce(_add)
    assert total(wrap(x)) == hx.sum()
    res = gpu.device_array(1, np.float32)
    assert total(wrap(x), res=wrap(res)) is None and res.copy_to_host()[0] == hx.sum()
    assert add.reduce(wrap(x)) == hx.sum()


def test_a_cpu_tensor_is_not_taken_for_a_device_array(cpu_backend, libraries):
    class CpuTensor(_FakeTorch.Tensor):
        is_cuda = False
        __cuda_array_interface__ = property(lambda self: (_ for _ in ()).throw(AttributeError("CPU tensor")))

    assert gpu._core._foreign_device_array(CpuTensor(gpu.to_device(np.zeros(3, np.float32)))) is None
    assert gpu._core._foreign_device_array(np.zeros(3)) is None
    assert gpu._core._foreign_device_array(3.0) is None
