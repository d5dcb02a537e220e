"""Module setup/teardown callbacks of linked code (numba-cuda's LinkableCode setup_callback/teardown_callback,
docs/cuda_c.md): setup once per load of a kernel that links the code (per specialization and device), with the
module's handle; teardown with the same handle when the module is unloaded (context reset, the kernel collected,
interpreter exit), once. The CPU backend loads a kernel that links code it does not call, so most of the contract
is checked here; the test marked gpu sets a __device__ global of the linked CUDA C through cuLibraryGetGlobal on
the handle, as numba-cuda's own test does."""

import gc
import subprocess
import sys
import threading

import numpy as np
import pytest

import gpujit as gpu


class Counter:
    """Setup and teardown callbacks that record the handles they get."""

    def __init__(self):
        self.setups, self.teardowns = [], []

    def setup(self, module):
        self.setups.append(module.handle)

    def teardown(self, module):
        self.teardowns.append(module.handle)

    @property
    def live(self):
        return len(self.setups) - len(self.teardowns)


@pytest.fixture
def on_cpu(cpu_backend):
    yield
    gpu.current_context().reset()


def test_setup_once_per_load_teardown_at_reset(on_cpu):
    c = Counter()
    lib = gpu.CUSource("", setup_callback=c.setup, teardown_callback=c.teardown)

    @gpu.jit(link=[lib])
    def kernel(a):
        pass

    assert c.live == 0  # nothing loaded before the first launch
    kernel[1, 1](1)
    kernel[1, 1](2)  # the same specialization: loaded already
    assert len(c.setups) == 1 and c.live == 1
    kernel[1, 1](1.5)  # another specialization: another module, another handle
    assert len(c.setups) == 2 and len(set(c.setups)) == 2
    gpu.current_context().reset()
    assert c.live == 0 and sorted(c.teardowns) == sorted(c.setups)
    # The reset unloaded the modules: the next launch loads (and sets up) a fresh one.
    kernel[1, 1](3)
    assert len(c.setups) == 3 and c.live == 1
    del kernel
    gc.collect()
    assert c.live == 0  # a collected kernel's modules are torn down, once
    gpu.current_context().reset()
    assert len(c.teardowns) == 3


def test_each_kernel_has_its_own_module(on_cpu):
    c = Counter()
    lib = gpu.PTXSource("", setup_callback=c.setup, teardown_callback=c.teardown)

    @gpu.jit(link=lib)
    def k1():
        pass

    @gpu.jit(link=[lib])
    def k2():
        pass

    k1[1, 1]()
    k2[1, 1]()
    assert len(set(c.setups)) == 2
    gpu.close()
    assert c.live == 0


def test_only_setup_or_only_teardown(on_cpu):
    seen = []
    only_setup = gpu.CUSource("// a", setup_callback=lambda m: seen.append(("setup", m.device.id)))
    only_teardown = gpu.CUSource("// b", teardown_callback=lambda m: seen.append(("teardown", m.device.id)))

    @gpu.jit(link=[only_setup, only_teardown])
    def kernel():
        pass

    kernel[1, 1]()
    assert seen == [("setup", 0)]
    gpu.current_context().reset()
    assert seen == [("setup", 0), ("teardown", 0)]


def test_the_handle_is_a_module_handle(on_cpu):
    got = []
    lib = gpu.CUSource("", setup_callback=got.append)

    @gpu.jit(link=[lib])
    def kernel(a):
        pass

    kernel[1, 1](1)
    (module,) = got
    assert isinstance(module, gpu.ModuleHandle) and isinstance(module.handle, int) and module.handle != 0
    assert module.device.id == gpu.get_current_device().id
    pytest.importorskip("cuda.core")
    from cuda.core import ObjectCode

    kernel[1, 1](0.5)  # a module loaded once cuda.core is imported is one of its ObjectCodes, as numba gives
    assert isinstance(got[-1], ObjectCode) and isinstance(got[-1].handle, int)


def test_a_failing_setup_propagates_and_is_retried(on_cpu):
    calls = []

    def setup(module):
        calls.append(module.handle)
        if len(calls) == 1:
            raise ValueError("setup failed")

    lib = gpu.CUSource("", setup_callback=setup)

    @gpu.jit(link=[lib])
    def kernel():
        pass

    with pytest.raises(ValueError, match="setup failed"):
        kernel[1, 1]()
    kernel[1, 1]()  # the failed module was dropped: loaded and set up again
    kernel[1, 1]()
    assert len(calls) == 2


def test_one_module_for_concurrent_first_launches(on_cpu):
    c = Counter()
    lib = gpu.CUSource("", setup_callback=c.setup, teardown_callback=c.teardown)

    @gpu.jit(link=[lib])
    def kernel(a):
        pass

    def launch():
        kernel[1, 1](42)
        kernel[1, 1](3.14)

    threads = [threading.Thread(target=launch) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(c.setups) == 2 and len(set(c.setups)) == 2
    gpu.current_context().reset()
    assert c.live == 0


def test_a_launch_from_its_own_setup_is_an_error_not_a_hang(on_cpu):
    errors = []

    def setup(module):
        try:
            kernel[1, 1]()
        except RuntimeError as e:
            errors.append(str(e))

    lib = gpu.CUSource("", setup_callback=setup)

    @gpu.jit(link=[lib])
    def kernel():
        pass

    kernel[1, 1]()
    assert errors and "inside a module setup callback" in errors[0]


def test_teardown_at_interpreter_exit(tmp_path):
    script = tmp_path / "exit_teardown.py"
    script.write_text("""
import gpujit as gpu
gpu.select_device("cpu")
lib = gpu.CUSource("", setup_callback=lambda m: print("setup"), teardown_callback=lambda m: print("teardown"))
@gpu.jit(link=[lib])
def kernel():
    pass
kernel[1, 1]()
print("end")
""")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["setup", "end", "teardown"]


def test_callbacks_must_be_callable():
    with pytest.raises(TypeError, match="setup_callback must be callable"):
        gpu.CUSource("", setup_callback=1)
    with pytest.raises(TypeError, match="teardown_callback must be callable"):
        gpu.PTXSource("", teardown_callback="no")


# On a GPU: the handle is the CUlibrary the kernel runs from, so the setup callback can initialize the linked
# code's globals (numba-cuda's test_module_callbacks does the same through cuda.bindings).
GLOBAL_CU = """
__device__ int num = 0;
extern "C" __device__ int get_num(int &retval) {
    retval = num;
    return 0;
}
"""


@pytest.mark.gpu
@pytest.mark.parametrize("where", ["declare_device", "jit"])
def test_setup_initializes_a_global_on_a_gpu(cuda, where):
    import ctypes

    libcuda = ctypes.CDLL("libcuda.so.1")

    def set_forty_two(module):
        dptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        r = libcuda.cuLibraryGetGlobal(ctypes.byref(dptr), ctypes.byref(size), ctypes.c_void_p(module.handle),
                                       b"num")
        assert r == 0, f"cuLibraryGetGlobal: CUresult {r}"
        value = np.array([42], np.int32)
        assert libcuda.cuMemcpyHtoD_v2(dptr, value.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(4)) == 0

    lib = gpu.CUSource(GLOBAL_CU, setup_callback=set_forty_two)
    get_num = gpu.declare_device("get_num", "int32()", link=[lib] if where == "declare_device" else None)

    @gpu.jit(link=[lib] if where == "jit" else None)
    def kernel(arr):
        arr[0] = get_num()

    arr = np.zeros(1, np.int32)
    kernel[1, 1](arr)
    assert arr[0] == 42
    gpu.current_context().reset()
