"""Device functions from Python as numba-cuda offers them: compile_device and inspection, explicit signatures
that convert a call's arguments, numba CPU functions and a user's modules called from kernels, and the
errors numba-cuda gives (launching a device function, SASS of one, caching linked code). Also the launch
configuration's pre-launch callbacks and pickling of local ufuncs.
"""

import importlib.util
import io
import pickle
import subprocess
import sys
import types

import numpy as np
import pytest

import gpujit as gpu


def test_compile_device_names_the_function_in_its_llvm_and_ptx():
    @gpu.jit(device=True)
    def foo(x, y):
        return x + y

    args = (gpu.int32, gpu.int32)
    cres = foo.compile_device(args)
    name = cres.fndesc.mangled_name
    assert "foo" in name
    assert name in foo.inspect_llvm(args)
    assert name in foo.inspect_asm(args)
    assert str(cres.return_type) == "int64"  # int32 + int32 is int64, as numba types it
    assert foo.compile_device(args) is cres


def test_compile_device_of_a_kernel_is_refused():
    @gpu.jit
    def k(a):
        a[0] = 1

    with pytest.raises(RuntimeError, match="kernel"):
        k.compile_device((gpu.float32[::1],))


def test_device_function_errors_in_numbas_words():
    @gpu.jit(device=True)
    def f():
        pass

    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):
        f[1, 1]()
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        f.inspect_sass(())


def test_explicit_signature_converts_the_arguments():
    # float32 arguments to an int32 device function convert at the call (no float32 specialization).
    @gpu.jit("int32(int32, int32, int32, int32)", device=True)
    def rgba(r, g, b, a):
        return ((r & 0xFF) << 16) | ((g & 0xFF) << 8) | (b & 0xFF) | ((a & 0xFF) << 24)

    @gpu.jit
    def caller(x, channels):
        x[0] = rgba(channels[0], channels[1], channels[2], channels[3])

    x = np.zeros(1, np.int32)
    caller[1, 1](x, np.array([1.5, 2.0, 3.0, 4.0], np.float32))
    assert x[0] == 0x04010203


def test_explicit_return_type_converts_the_result():
    @gpu.jit("float32(float64)", device=True)
    def third(x):
        return x / 3.0  # float64, returned as float32

    @gpu.jit
    def k(out, x):
        out[0] = third(x)

    out = np.zeros(1, np.float64)
    k[1, 1](out, 1.0)
    assert out[0] == np.float64(np.float32(1.0 / 3.0)) and out[0] != 1.0 / 3.0


def _add(x, y):
    return x + y


def _add_kernel(sigs):
    add = gpu.jit(sigs, device=True)(_add)

    @gpu.jit
    def f(r, x, y):
        r[0] = add(x, y)

    return f


def test_the_best_explicit_signature_is_chosen():
    f = _add_kernel(["(int64, int64)", "(float64, float64)"])
    r = np.zeros(1, np.int64)
    f[1, 1](r, 1, 2)
    assert r[0] == 3
    r = np.zeros(1, np.float64)
    f[1, 1](r, 1.5, 2.5)
    assert r[0] == 4.0
    f[1, 1](r, np.int32(1), 2.5)  # int32 -> float64 is safe, float64 -> int64 is not
    assert r[0] == 3.5

    f = _add_kernel(["(int64, int64)"])  # the only one: floats convert to it (unsafely), as numba does
    r = np.zeros(1, np.int64)
    f[1, 1](r, 1.5, 2.5)
    assert r[0] == 3


def test_arguments_that_fit_no_explicit_signature():
    f = _add_kernel(["(int64, int64)", "(float64, float64)"])
    with pytest.raises(gpu.CompileError, match=r"Invalid use of type.*with parameters \(complex128, complex128\)"):
        f[1, 1](np.zeros(1, np.complex128), 1j, 1j)


def test_a_users_module_of_device_functions_and_constants():
    @gpu.jit(device=True)
    def add(a, b):
        return a + b

    mymod = types.ModuleType("mymod")
    mymod.add = add
    mymod.K = 5

    @gpu.jit
    def k(a):
        i = gpu.grid(1)
        if i < a.size:
            a[i] = mymod.add(a[i], mymod.K)

    a = np.arange(4)
    k[1, 4](a)
    np.testing.assert_array_equal(a, np.arange(4) + 5)

    @gpu.jit
    def missing(a):
        a[0] = mymod.nothing

    with pytest.raises(gpu.CompileError, match="nothing"):
        missing[1, 1](a)


_CPU_FUNCTIONS = """
import numba
import numpy as np
import gpujit as gpu

@numba.jit
def add(a, b):
    return a + b

@gpu.jit
def k(a):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = add(a[i], 1)

a = np.arange(10)
k[1, 10](a)
np.testing.assert_array_equal(a, np.arange(10) + 1)

@numba.jit("(i4, i4)")
def fixed(a, b):
    return a + b

@gpu.jit
def k2(a):
    a[0] = fixed(a[0], 1)

try:
    k2[1, 1](a)
except gpu.CompileError as e:
    assert re.search("Untyped global name 'fixed':.*using cpu function on device", str(e)), str(e)
else:
    raise AssertionError("no CompileError")
print("ok")
"""


def test_numba_cpu_functions_compile_as_device_functions(tmp_path):
    # In a process of its own: importing numba makes gpujit report numba's types elsewhere (typemap).
    if importlib.util.find_spec("numba") is None:
        pytest.skip("numba is not installed")
    script = tmp_path / "cpu_functions.py"  # from a file: gpujit compiles from source
    script.write_text("import re\n" + _CPU_FUNCTIONS)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout + proc.stderr


def test_cache_with_link_is_refused():
    with pytest.raises(RuntimeError, match="Cannot pickle CUDACodeLibrary with linking files"):
        gpu.jit(cache=True, link=["x.ptx"])


def test_pre_launch_callbacks():
    @gpu.jit
    def k(a):
        a[0] += 1

    seen = []
    cfg = k[1, 1]
    cfg.pre_launch_callbacks.append(lambda kernel, config: seen.append((kernel, config)))
    a = np.zeros(1, np.int64)
    cfg(a)
    cfg(a)
    assert seen == [(k, cfg), (k, cfg)] and a[0] == 2
    with pytest.raises(pickle.PicklingError, match="Cannot pickle configured launches with pre-launch callbacks"):
        pickle.dumps(cfg)
    assert k[1, 1] is not cfg and k[1, 1].pre_launch_callbacks == []  # a configuration per subscript
    pickle.loads(pickle.dumps(k[1, 1]))  # one without callbacks pickles


def test_inspect_types_to_a_file():
    @gpu.jit("void(float32[::1], int32)")
    def foo(x, y):
        x[0] = y

    f = io.StringIO()
    assert foo.inspect_types(file=f) is None
    text = f.getvalue()
    assert "foo" in text and "(float32[::1], int32)" in text


def test_local_ufuncs_pickle_by_value():
    @gpu.vectorize(["int64(int64)", "float64(float64)"])
    def twice(x):
        return x * 2

    a = np.arange(5)
    again = pickle.loads(pickle.dumps(twice))
    np.testing.assert_array_equal(again(a), a * 2)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(again))(a), a * 2)
