"""A dtype passed as a kernel argument (numba's NumberClass, "class(int32)"; docs/kernels.md): the kernel is
specialized on the dtype, which its parameter names at compile time (cuda.local.array(n, dty),
cuda.shared.array(n, dty), dty(x)); the argument has no value at run time. numba-cuda's
cudadrv/test_linker.py get_shared_mem_per_block / get_local_mem_per_thread tests pass a dtype this way."""

import numpy as np
import pytest

import gpujit as gpu


def fill_local(out, dty):
    tmp = gpu.local.array(4, dty)
    for j in range(4):
        tmp[j] = j + 0.75
    for j in range(4):
        out[j] = tmp[j]


def convert(out, dty):
    out[0] = dty(3.75)


def test_dtype_argument_specializes_the_kernel(cpu_backend):
    k = gpu.jit(fill_local)
    out = np.zeros(4, np.float64)
    k[1, 1](out, np.int32)
    np.testing.assert_array_equal(out, [0, 1, 2, 3])  # the local array was int32: the .75 was dropped
    k[1, 1](out, np.float64)
    np.testing.assert_array_equal(out, [0.75, 1.75, 2.75, 3.75])
    assert sorted(k.signatures) == ["(float64[::1], class(float64))", "(float64[::1], class(int32))"]


def test_dtype_objects_of_gpujit_and_numpy_are_one_specialization(cpu_backend):
    k = gpu.jit(convert)
    out = np.zeros(1, np.float64)
    k[1, 1](out, gpu.int32)
    assert out[0] == 3
    k[1, 1](out, np.int32)
    assert k.signatures == ["(float64[::1], class(int32))"]
    k[1, 1](out, np.float32)
    assert out[0] == 3.75


def test_explicit_signature_with_a_dtype_class(cpu_backend):
    k = gpu.jit("void(float64[::1], class(int32))")(convert)
    out = np.zeros(1, np.float64)
    k[1, 1](out, np.int32)
    assert out[0] == 3
    with pytest.raises(TypeError, match=r"class\(float32\)"):
        k[1, 1](out, np.float32)  # no signature takes it
    assert "class(int32)" in k.inspect_types("void(float64[::1], class(int32))")


def test_dtype_argument_reaches_a_device_function(cpu_backend):
    @gpu.jit(device=True)
    def make(dty):
        a = gpu.local.array(2, dty)
        a[0] = 2.5
        return a[0]

    @gpu.jit
    def k(out, dty):
        out[0] = make(dty)

    out = np.zeros(1, np.float64)
    k[1, 1](out, np.int64)
    assert out[0] == 2
    k[1, 1](out, np.float32)
    assert out[0] == 2.5


def test_specialize_with_a_dtype_and_its_figures():
    def smem(ary, dty):
        sm = gpu.shared.array(100, dty)
        i = gpu.grid(1)
        if i == 0:
            for j in range(100):
                sm[j] = j
        gpu.syncthreads()
        ary[i] = sm[i]

    k = gpu.jit(smem)
    s = k.specialize(np.zeros(100, np.int32), np.float64)
    assert s.signatures == ["(int32[::1], class(float64))"]
    try:
        shared = s.get_shared_mem_per_block()
    except NotImplementedError:  # the figures come from ptxas, which needs the CUDA toolkit
        pytest.skip("no ptxas here")
    assert shared == 800
    assert gpu.jit("void(int32[::1], class(int32))")(smem).get_shared_mem_per_block() == 400


def test_dtype_argument_passes_no_parameter():
    k = gpu.jit("void(float64[::1], class(int32))")(convert)
    ptx = k.inspect_ptx("void(float64[::1], class(int32))")
    entry = ptx[ptx.index(".entry"):]
    params = entry[:entry.index(")")]
    assert params.count(".param") == 3  # the array's data, shape and stride only


def test_bad_dtype_arguments(cpu_backend):
    k = gpu.jit(convert)
    out = np.zeros(1, np.float64)
    with pytest.raises(TypeError, match="tuple whose element 0 is a dtype"):
        k[1, 1](out, (np.int32,))
    with pytest.raises(TypeError, match="unsupported type 'type'"):
        k[1, 1](out, dict)
    with pytest.raises(TypeError, match=r"class\(\.\.\.\) takes a number type"):
        gpu.jit("void(float64[::1], class(float32[:]))")(convert)


def test_dtype_argument_is_not_a_launch_parameter(fake):
    # On the CUDA path (the fake driver records what the launch passed): the array's three parameters only.
    k = gpu.jit(convert)
    out = gpu.to_device(np.zeros(1, np.float64))
    k[1, 1](out, np.int32)
    name, grid, block, shared, stream, params = fake.last_launch()
    assert len(params) == 3
    assert int.from_bytes(params[0], "little") == out.device_ctypes_pointer.value
