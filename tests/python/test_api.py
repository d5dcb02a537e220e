"""The package surface that needs no device: importing, dtypes, type objects, kernel-side names."""

import subprocess
import sys

import pytest

import gpujit as gpu


def test_import_loads_neither_numpy_nor_the_driver():
    code = "import sys, gpujit; print('numpy' in sys.modules); print(gpujit._core._driver_loaded())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_numba_style_names_exist():
    for name in ("jit", "to_device", "device_array", "device_array_like", "pinned_array", "stream",
                 "default_stream", "event", "event_elapsed_time", "synchronize", "select_device",
                 "get_current_device", "grid", "gridsize", "threadIdx", "blockIdx", "blockDim", "gridDim",
                 "syncthreads", "shared", "local", "atomic", "float32", "int64", "void", "CompileError"):
        assert hasattr(gpu, name), name
    assert hasattr(gpu.shared, "array")
    assert hasattr(gpu.atomic, "add")
    assert hasattr(gpu.threadIdx, "x")


def test_kernel_functions_refuse_host_calls():
    with pytest.raises(RuntimeError, match=r"gpujit.grid\(\) can only be called inside a kernel"):
        gpu.grid(1)
    with pytest.raises(RuntimeError, match=r"shared.array\(\) can only be called inside a kernel"):
        gpu.shared.array(4, gpu.float32)


def test_type_objects_spell_numba_signatures():
    assert str(gpu.float32[:]) == "float32[:]"
    assert str(gpu.float64[:, ::1]) == "float64[:, ::1]"
    assert str(gpu.void(gpu.float32[:], gpu.int64)) == "void(float32[:], int64)"
    assert str(gpu.float32(gpu.float32, gpu.float32)) == "float32(float32, float32)"
    assert gpu.boolean is gpu.bool_
    assert str(gpu.float32[::1, :]) == "float32[::1, :]"  # Fortran order, numba's layout 'F'
    with pytest.raises(TypeError, match="must be on the last axis"):
        gpu.float32[:, ::1, :]


def test_dtypes_work_as_numpy_dtypes():
    np = pytest.importorskip("numpy")
    assert np.dtype(gpu.float32) == np.float32
    assert np.zeros(3, dtype=gpu.int16).dtype == np.int16
    assert gpu.float32(1.5) == np.float32(1.5)


def test_jit_forms():
    def k(a):
        pass

    lazy = gpu.jit(k)
    assert isinstance(lazy, gpu.Dispatcher)
    assert lazy.signatures == []
    assert isinstance(gpu.jit()(k), gpu.Dispatcher)
    assert gpu.jit(device=True)(k).device
    with pytest.raises(TypeError, match="unknown option"):
        gpu.jit(bogus=1)


def test_calling_a_kernel_without_a_configuration_says_how():
    @gpu.jit
    def kernel(a):
        pass

    with pytest.raises(ValueError, match=r"kernel 'kernel': the launch configuration was not specified; launch it "
                                         r"as kernel\[blocks, threads\]"):
        kernel(1)


def test_launch_configuration_errors_come_before_any_device_use():
    @gpu.jit
    def kernel(a):
        pass

    with pytest.raises(gpu.LaunchError, match="grid dimension x is 0"):
        kernel[0, 32]
    with pytest.raises(gpu.LaunchError, match=r"a block of 64x32x1 = 2048 threads is more than the limit of 1024"):
        kernel[1, (64, 32)]
    with pytest.raises(gpu.LaunchError, match="block dimension z is 65"):
        kernel[1, (1, 1, 65)]
    with pytest.raises(gpu.LaunchError, match="grid dimension y is 65536"):
        kernel[(1, 65536), 1]
    with pytest.raises(gpu.LaunchError, match=r"^griddim must be a sequence of 1, 2 or 3 integers, got \[1, 1, 1, 1\] "
                                              r"\(grid must have 1 to 3 dimensions, got 4\) \(kernel 'kernel'\)$"):
        kernel[(1, 1, 1, 1), 1]
    with pytest.raises(TypeError, match="launch configuration must be"):
        kernel[1]
    with pytest.raises(TypeError, match=r"^blockdim must be a sequence of integers, got \[1.5\] \(block must be an int "
                                        r"or a tuple of up to 3 ints\) \(kernel 'kernel'\)$"):
        kernel[1, 1.5]
    with pytest.raises(TypeError, match=r"^griddim must be a sequence of integers, got \[1, 'a'\]"):
        kernel[(1, "a"), 1]
    assert isinstance(gpu.LaunchError("x"), ValueError)


def test_dtypes_equal_numbas_scalar_types_of_the_same_name():
    import importlib.util

    if importlib.util.find_spec("numba") is None:
        pytest.skip("numba is not installed")
    # In a process of its own: importing numba here would change what other tests get back (compile_ptx
    # answers in numba's types once numba is loaded).
    code = """if True:
        import numba, gpujit as gpu
        assert gpu.int32 == numba.int32 and gpu.float64 == numba.float64
        assert gpu.int32 != numba.int64 and gpu.int32 != "int32"
        assert {gpu.float32: "f"}[numba.float32] == "f"  # equal types hash alike

        @gpu.jit("void(int32[::1])")
        def f(x):
            scratch = gpu.local.array(4, dtype=numba.int32)
            scratch[0] = x[0]
            x[0] = scratch[0]

        assert next(iter(f.overloads.values()))._type_annotation.typemap["scratch"].dtype == numba.int32
        print("ok")
    """
    path = tmp_source(code)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def tmp_source(code):
    """`code` in a file of its own (gpujit compiles kernels from their source file)."""
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp(prefix="gpujit-test-")) / "numba_dtypes.py"
    path.write_text(code)
    return path
