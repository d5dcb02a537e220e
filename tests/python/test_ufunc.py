"""gpu.vectorize and gpu.guvectorize against NumPy, on both targets, and their errors."""

import math
import traceback

import numpy as np
import pytest

import gpujit as gpu

TARGETS = ["cuda", "cpu"]


def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def _add(a, b):
    return a + b


def _scaled(x, scale):
    if x == 0.0:
        return scale
    return scale * x


@pytest.fixture(params=TARGETS)
def target(request):
    return request.param


@pytest.fixture(params=TARGETS)
def device_target(request):
    """A target for tests that pass device arrays: with target='cpu' the whole test runs on the CPU backend, so
    its device arrays are the CPU backend's (a CUDA device array on a target='cpu' ufunc is an error naming both
    devices, as for a kernel)."""
    previous = gpu._core.backend_name()
    if request.param == "cpu":
        gpu._core._set_backend("cpu")
    try:
        yield request.param
    finally:
        gpu._core._set_backend(previous)


def test_one_signature_over_a_host_array(target):
    sigmoid = gpu.vectorize(["float32(float32)"], target=target, warn_float64=False)(_sigmoid)
    x = np.linspace(-4, 4, 1001, dtype=np.float32)
    got = sigmoid(x)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-x)), rtol=1e-6)


def test_signature_is_chosen_by_numpys_casting_rules(target):
    add = gpu.vectorize(["int32(int32, int32)", "float32(float32, float32)", "float64(float64, float64)"],
                        target=target)(_add)
    for dtype in (np.int32, np.float32, np.float64):
        x = np.arange(10, dtype=dtype)
        assert add(x, x).dtype == dtype
    # int16 casts safely to int32, the first signature that takes it; int64 only to float64.
    assert add(np.arange(3, dtype=np.int16), np.arange(3, dtype=np.int16)).dtype == np.int32
    assert add(np.arange(3, dtype=np.int64), np.arange(3, dtype=np.int64)).dtype == np.float64
    # A Python float with a float32 array takes the array's precision (NumPy 2's weak scalars)...
    assert add(np.ones(3, np.float32), 1.5).dtype == np.float32
    # ...and alone is a float64.
    value = add(1.2, 2.3)
    assert value == 1.2 + 2.3 and value.dtype == np.float64


def test_mixed_argument_types_convert_in_the_kernel(target):
    scaled = gpu.vectorize(["float64(float64, uint32)"], target=target)(_scaled)
    x = np.arange(8, dtype=np.float32)  # float32 -> float64 happens on load inside the kernel
    np.testing.assert_allclose(scaled(x, np.uint32(3)), np.where(x == 0, 3, 3 * x))


def test_broadcasting_nd_and_non_contiguous_inputs(target):
    add = gpu.vectorize(["float64(float64, float64)"], target=target)(_add)
    a = np.random.rand(5, 3, 1)
    b = a.transpose(2, 1, 0)
    np.testing.assert_allclose(add(a, b), a + b)
    c = np.random.rand(4, 4, 4, 4)
    np.testing.assert_allclose(add(c, np.asfortranarray(c.T)), c + c.T)
    np.testing.assert_allclose(add(c[:, ::2], 1.0), c[:, ::2] + 1)
    np.testing.assert_allclose(add((1.0, 2.0), (3.0, 4.0)), [4.0, 6.0])


def test_signature_cache_keys_on_contents_and_rank(target):
    add = gpu.vectorize(["int32(int32, int32)", "float32(float32, float32)", "float64(float64, float64)"],
                        target=target)(_add)
    # Tuples of floats and of ints have the same class: the cache must see their contents' dtypes.
    assert add((1.5, 2.5), (1.0, 1.0)).dtype == np.float64
    assert add((1, 2), (3, 4)).dtype == np.float64  # int64 contents: only float64 takes them safely
    assert add(np.array((1, 2), np.int32), (3, 4)).dtype == np.float64
    # A Python float is weak beside a float32 array or scalar (as NumPy 2), strong beside Python numbers only.
    assert add(np.ones(2, np.float32), 2.5).dtype == np.float32
    assert add(np.float32(1), 2.5).dtype == np.float32
    assert add(1, 2.5).dtype == np.float64


def test_device_arrays_stay_on_the_device(device_target):
    add = gpu.vectorize(["float32(float32, float32)"], target=device_target)(_add)
    x = np.arange(100, dtype=np.float32)
    dx = gpu.to_device(x)
    got = add(dx, dx)
    assert isinstance(got, gpu.DeviceArray)
    np.testing.assert_allclose(got.copy_to_host(), x + x)
    # A host array with a device array: the result is on the device.
    assert isinstance(add(x, dx), gpu.DeviceArray)
    # Broadcasting device arrays goes through the N-d kernel.
    d2 = gpu.to_device(np.ones((3, 100), np.float32))
    np.testing.assert_allclose(add(d2, dx).copy_to_host(), 1 + x[None, :].repeat(3, 0))
    # A non-contiguous device view.
    np.testing.assert_allclose(add(dx[::2], 1.0).copy_to_host(), x[::2] + 1)
    # N-d views, Fortran order, a 0-d device array, empty arrays.
    m = np.random.rand(4, 6).astype(np.float32)
    dm = gpu.to_device(m)
    np.testing.assert_allclose(add(dm[:, ::2], gpu.to_device(np.asfortranarray(m))[:, 1::2]).copy_to_host(),
                               m[:, ::2] + m[:, 1::2])
    np.testing.assert_allclose(add(gpu.to_device(np.array(2, np.float32)), dm).copy_to_host(), m + 2)
    assert add(np.zeros((0, 3), np.float32), 1.0).shape == (0, 3)


def test_out_and_stream(device_target):
    add = gpu.vectorize(["int32(int32, int32)"], target=device_target)(_add)
    x = np.arange(10, dtype=np.int32).reshape(2, 5)
    dx = gpu.to_device(x)
    assert add(dx, dx, out=dx) is dx
    np.testing.assert_equal(dx.copy_to_host(), x + x)
    out = np.empty_like(x)
    assert add(x, x, out=out) is out
    np.testing.assert_equal(out, x + x)
    stream = gpu.stream()
    dy = gpu.to_device(x, stream)
    got = add(dy, dy, stream=stream).copy_to_host(stream=stream)
    stream.synchronize()
    np.testing.assert_equal(got, x + x)


def test_lazy_vectorize_compiles_per_input_types(target):
    add = gpu.vectorize(target=target)(_add)
    np.testing.assert_equal(add(np.arange(4), np.arange(4)), np.arange(4) * 2)
    got = add(np.ones(3, np.float32), np.ones(3, np.float32))
    assert got.dtype == np.float32
    with pytest.raises(TypeError, match=r"cannot compile for inputs of types \(str32, int64\); ufuncs take booleans"):
        add(np.array(["a"]), np.arange(1))


def test_complex_and_device_function_calls(target):
    square = gpu.vectorize(["complex128(complex128)"], target=target)(lambda a: a * a + 1.0)
    z = np.arange(5) + 1j
    np.testing.assert_allclose(square(z), z * z + 1)

    @gpu.jit(device=True)
    def cube(x):
        return x * x * x

    def use_cube(x):
        return cube(x) + np.float32(1)

    f = gpu.vectorize(["float32(float32)"], target=target)(use_cube)
    np.testing.assert_allclose(f(np.arange(4, dtype=np.float32)), np.arange(4) ** 3 + 1)


def test_reduce(device_target):
    add = gpu.vectorize(["int32(int32, int32)"], target=device_target)(_add)
    for n in (1, 2, 7, 100, 1025):
        x = np.arange(n, dtype=np.int32)
        got = add.reduce(x)
        assert got == x.sum() and got.dtype == np.int32
        assert add.reduce(gpu.to_device(x)) == x.sum()


def test_generated_kernel_source_and_ptx():
    add = gpu.vectorize(["float32(float32, float32)"])(_add)
    add(np.ones(4, np.float32), np.ones(4, np.float32))
    (kernel,) = add._kernels.values()
    assert "out[i] = _add(x0[i], x1[i])" in kernel.source
    (ptx,) = add.inspect_ptx()["vectorize__add"].values()  # one PTX per argument types of the kernel
    assert ".entry" in ptx and "vectorize__add" in ptx and "add.f32" in ptx
    assert add.__name__ == "_add"


def bad_scalar(x):
    return x + missing_name  # noqa: F821


def test_errors_in_the_scalar_function_point_at_the_users_line():
    f = gpu.vectorize(["float32(float32)"])(bad_scalar)
    with pytest.raises(gpu.CompileError) as e:
        f(np.ones(3, np.float32))
    assert e.value.filename == __file__
    assert e.value.lineno == bad_scalar.__code__.co_firstlineno + 1
    # The traceback ends at the ufunc's call: one frame of gpujit's, none from its internals.
    frames = [f.name for f in traceback.extract_tb(e.tb)]
    assert frames[-1] == "__call__" and "_call" not in frames and "_slow" not in frames


def test_vectorize_errors():
    add = gpu.vectorize(["float32(float32, float32)", "int32(int32, int32)"])(_add)
    with pytest.raises(TypeError, match=r"no signature accepts the argument types \(float64, float64\).*"
                                        r"float32\(float32, float32\); int32\(int32, int32\)"):
        add(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match=r"could not be broadcast together with shapes \(3,\) \(4,\)"):
        add(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"out has shape \(4,\); the inputs broadcast to \(3,\)"):
        add(np.ones(3, np.float32), np.ones(3, np.float32), out=np.empty(4, np.float32))
    with pytest.raises(TypeError, match="out has dtype float64"):
        add(np.ones(3, np.float32), np.ones(3, np.float32), out=np.empty(3))
    with pytest.raises(TypeError, match="takes 2 input arguments"):
        add(np.ones(3, np.float32))
    with pytest.raises(KeyError, match="Unrecognized options"):
        gpu.vectorize(["float32(float32)"], bogus=1)
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        gpu.vectorize(["float32(float32)"], nopython=True)
    with pytest.raises(TypeError, match="unknown type 'float33' in signature 'float32\\(float33\\)'"):
        gpu.vectorize(["float32(float33)"])(_sigmoid)
    with pytest.raises(TypeError, match="has an array type; vectorize functions take and return scalars"):
        gpu.vectorize(["float32[:](float32)"])(_sigmoid)
    with pytest.raises(ValueError, match="unsupported target 'parallel'"):
        gpu.vectorize(["float32(float32)"], target="parallel")


# ---------------------------------------------------------------------------------------------------------
# guvectorize

def _matmul(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


def _dot(x, y, r):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    r[0] = s


def _saxpy(a, x, y, out):
    for i in range(out.shape[0]):
        out[i] = a * x[i] + y[i]


def test_gufunc_matmul_with_loop_dims_and_pinned_operand(target):
    matmul = gpu.guvectorize(["void(float64[:, :], float64[:, :], float64[:, :])"], "(m,n),(n,p)->(m,p)",
                             target=target)(_matmul)
    A = np.random.rand(4, 25, 2, 3)
    B = np.random.rand(4, 25, 3, 5)
    np.testing.assert_allclose(matmul(A, B), A @ B)
    Y = np.random.rand(3, 5)
    np.testing.assert_allclose(matmul(A, Y), A @ Y)  # Y has no loop axes: every thread reads it
    np.testing.assert_allclose(matmul(A[0, 0], Y), A[0, 0] @ Y)  # no loop at all


def test_gufunc_scalar_output_and_device_arrays(device_target):
    dot = gpu.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()", target=device_target)(_dot)
    x = np.random.rand(100, 7)
    np.testing.assert_allclose(dot(x, x), (x * x).sum(1))
    dx = gpu.to_device(x)
    out = gpu.device_array(100)
    assert dot(dx, dx, out=out) is out
    np.testing.assert_allclose(out.copy_to_host(), (x * x).sum(1))
    np.testing.assert_allclose(dot(dx, dx).copy_to_host(), (x * x).sum(1))


def test_gufunc_scalar_inputs_and_multiple_outputs(target):
    saxpy = gpu.guvectorize(["void(float32, float32[:], float32[:], float32[:])"], "(),(t),(t)->(t)",
                            target=target)(_saxpy)
    X = np.arange(10, dtype=np.float32).reshape(5, 2)
    np.testing.assert_allclose(saxpy(np.float32(2), X, X), 3 * X)
    a = np.arange(5, dtype=np.float32)
    np.testing.assert_allclose(saxpy(a, X, X), a[:, None] * X + X)

    def split(A, B, C):
        for i in range(A.size):
            B[i] = A[i]
            C[i] = A[i] * 2

    twice = gpu.guvectorize(["void(int32[:], int32[:], float64[:])"], "(x)->(x),(x)", target=target)(split)
    A = np.arange(6, dtype=np.int32)
    B, C = twice(A)
    np.testing.assert_equal(B, A)
    np.testing.assert_equal(C, 2.0 * A)
    B2, C2 = np.zeros_like(A), np.zeros(6)
    twice(A, B2, C2)
    np.testing.assert_equal(C2, 2.0 * A)


def test_gufunc_errors():
    dot = gpu.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")(_dot)
    with pytest.raises(ValueError, match="core dimension 'n' is 3 in one input and 4 in another"):
        dot(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match="gufunc accepts 2 positional arguments .* or 3 positional arguments"):
        dot(np.ones(3))
    with pytest.raises(ValueError, match="cannot specify argument 'out' as both positional and keyword"):
        dot(np.ones(3), np.ones(3), np.ones(1), out=np.ones(1))
    with pytest.raises(TypeError, match="no signature accepts the argument types \\(complex128, complex128\\)"):
        dot(np.ones(3, np.complex128), np.ones(3, np.complex128))
    with pytest.raises(TypeError, match="device array of dtype int32 .* does not support .astype()"):
        dot(gpu.to_device(np.ones(3, np.int32)), gpu.to_device(np.ones(3, np.int32)))
    with pytest.raises(TypeError, match="does not support .astype()"):
        f = gpu.guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)")(_saxpy)
        f(gpu.to_device(np.array(2)), np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="output 0 has dtype float32"):
        dot(np.ones((2, 3)), np.ones((2, 3)), out=np.ones(2, np.float32))
    with pytest.raises(ValueError, match="bad layout"):
        gpu.guvectorize(["void(float64[:], float64[:])"], "(n)->")
    with pytest.raises(TypeError, match="guvectorized functions cannot return values.*specifies int32"):
        gpu.guvectorize(["int32(int32[:], int32[:])"], "(m)->(m)")
    with pytest.raises(TypeError, match="nopython flag must be True"):
        gpu.guvectorize(["void(int32[:], int32[:])"], "(m)->(m)", nopython=False)
    with pytest.raises(TypeError, match="The following target options are not supported: 'what'"):
        gpu.guvectorize(["void(int32[:], int32[:])"], "(m)->(m)", what=1)
    layout_mismatch = gpu.guvectorize(["void(float64[:], float64[:])"], "(n)->(m)")(lambda a, b: None)
    with pytest.raises(ValueError, match="output dimension 'm' .* is not set by any input"):
        layout_mismatch(np.ones(3))


def test_fast_path_for_1d_device_arrays_keys_on_dtypes():
    add = gpu.vectorize(["int32(int32, int32)", "float64(float64, float64)"])(_add)
    xi = gpu.to_device(np.arange(5, dtype=np.int32))
    xf = gpu.to_device(np.arange(5, dtype=np.float64))
    add(xi, xi)
    add(xf, xf)
    key = lambda *arrays: gpu._core._elementwise_key(arrays[:-1], arrays[-1])[1]  # noqa: E731
    # Each pair of input dtypes, with no out and with an out of the result's dtype.
    assert set(add._fast) == {key(xi, xi, None), key(xi, xi, xi), key(xf, xf, None), key(xf, xf, xf)}
    assert key(xi, xf, None) != key(xi, xi, None) and key(xi, xi, xf) != key(xi, xi, xi)
    assert gpu._core._elementwise_key((xi, gpu.to_device(np.arange(4, dtype=np.int32))), None) is None
    assert gpu._core._elementwise_key((xi, np.arange(5, dtype=np.int32)), None) is None
    # Cached kernels per dtype: each call gets its own signature's result type, and a mismatch falls back.
    assert add(xi, xi).dtype == np.int32 and add(xf, xf).dtype == np.float64
    np.testing.assert_equal(add(xi, xf).copy_to_host(), 2 * np.arange(5.0))
    with pytest.raises(TypeError, match="out has dtype int32"):
        add(xf, xf, out=gpu.device_array(5, np.int32))
    with pytest.raises(ValueError, match="could not be broadcast"):
        add(xi, gpu.to_device(np.arange(4, dtype=np.int32)))
    # The configured launches kept per (size, stream) give each size its own grid.
    for n in (700, 5, 3000, 5):
        big = gpu.to_device(np.arange(n, dtype=np.int32))
        np.testing.assert_equal(add(big, big).copy_to_host(), 2 * np.arange(n))
    stream = gpu.stream()
    np.testing.assert_equal(add(xi, xi, stream=stream).copy_to_host(stream=stream), 2 * np.arange(5))
    strided = gpu.to_device(np.arange(10, dtype=np.int32))[::2]
    np.testing.assert_equal(add(strided, xi).copy_to_host(), np.arange(0, 10, 2) + np.arange(5))


# ---------------------------------------------------------------------------------------------------------
# The CUDA launch path, through the fake driver where there is no GPU.

@pytest.mark.filterwarnings("ignore::gpujit.PerformanceWarning")
def test_vectorize_on_device_arrays_launches_once_and_copies_nothing(fake):
    add = gpu.vectorize(["float32(float32, float32)"])(_add)
    x = gpu.to_device(np.zeros(1000, np.float32))
    assert fake.calls("cuMemcpyHtoDAsync_v2") > 0  # the counter counts
    copies = fake.calls("cuMemcpyDtoHAsync_v2") + fake.calls("cuMemcpyHtoDAsync_v2")
    syncs = fake.calls("cuCtxSynchronize") + fake.calls("cuStreamSynchronize")
    out = add(x, x)
    assert isinstance(out, gpu.DeviceArray) and out.shape == (1000,)
    name, grid, block, _, _, _ = fake.last_launch()
    assert "vectorize__add" in name and grid == (4, 1, 1) and block == (256, 1, 1)
    add(x, x, out=out)  # the short path: the same launch again
    assert fake.calls("cuMemcpyDtoHAsync_v2") + fake.calls("cuMemcpyHtoDAsync_v2") == copies
    assert fake.calls("cuCtxSynchronize") + fake.calls("cuStreamSynchronize") == syncs


@pytest.mark.filterwarnings("ignore::gpujit.PerformanceWarning")
def test_guvectorize_spreads_the_loop_over_the_grid(fake):
    dot = gpu.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")(_dot)
    x = gpu.to_device(np.zeros((1001, 3)))
    dot(x, x)
    name, grid, block, _, _, params = fake.last_launch()
    assert "guvectorize__dot" in name and grid == (16, 1, 1) and block == (64, 1, 1)


def test_target_cpu_runs_on_the_cpu_backend_while_cuda_is_active(cuda):
    add = gpu.vectorize(["int64(int64, int64)"], target="cpu")(_add)
    np.testing.assert_equal(add(np.arange(5), np.arange(5)), 2 * np.arange(5))
    assert gpu._core.backend_name() == "cuda"


def test_a_ufunc_named_in_a_kernel_says_how_to_call_its_function():
    dot = gpu.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")(_dot)

    @gpu.jit
    def k(x, r):
        dot(x, x, r)

    with pytest.raises(gpu.CompileError, match="global 'dot' cannot be used in a kernel: Untyped global name 'dot': "
                                               "its value is a GUFunc made by vectorize or guvectorize"):
        k[1, 1](np.ones(3), np.ones(1))


def test_gufunc_layout_that_does_not_match_the_arguments():
    with pytest.raises(TypeError, match=r"has 2 arguments; layout '\(n\),\(n\)->\(\)' has 2 inputs and 1 outputs"):
        gpu.guvectorize(["void(float64[:], float64[:])"], "(n),(n)->()")
    matmul = gpu.guvectorize(["void(float64[:, :], float64[:, :], float64[:, :])"], "(m,n),(n,p)->(m,p)")(_matmul)
    with pytest.raises(ValueError, match=r"input of shape \(3,\) has fewer dimensions than its core dimensions "
                                         r"\(m,n\)"):
        matmul(np.ones(3), np.ones((3, 3)))


class _Foreign:
    """Another library's device array, seen only through __cuda_array_interface__ (as CuPy's or PyTorch's)."""

    def __init__(self, device_array):
        self._keep = device_array
        self.__cuda_array_interface__ = device_array.__cuda_array_interface__


def test_cuda_array_interface_objects_stay_on_the_device():
    add = gpu.vectorize(["float32(float32, float32)"])(_add)
    x = np.arange(6, dtype=np.float32)
    a = _Foreign(gpu.to_device(x))
    out_memory = gpu.device_array(6, np.float32)
    got = add(a, a)
    assert isinstance(got, gpu.DeviceArray)
    np.testing.assert_equal(got.copy_to_host(), 2 * x)
    returned = add(a, 1.0, out=_Foreign(out_memory))  # written in the foreign array's memory
    np.testing.assert_equal(out_memory.copy_to_host(), x + 1)
    # numba returns a device array over the foreign output, not the foreign object
    assert isinstance(returned, gpu.DeviceArray)
    assert returned.device_ctypes_pointer.value == out_memory.device_ctypes_pointer.value
    host_out = np.zeros(6, np.float32)
    assert add(a, a, out=host_out) is host_out  # device inputs, host output: written back
    np.testing.assert_equal(host_out, 2 * x)
    dot = gpu.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")(_dot)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_equal(dot(_Foreign(gpu.to_device(m)), m).copy_to_host(), (m * m).sum(1))
    dot_memory = gpu.device_array(2, np.float32)
    got = dot(m, m, out=_Foreign(dot_memory))
    assert isinstance(got, gpu.DeviceArray)
    assert got.device_ctypes_pointer.value == dot_memory.device_ctypes_pointer.value
    np.testing.assert_equal(dot_memory.copy_to_host(), (m * m).sum(1))


def test_cache_true_keeps_the_generated_kernels_ptx_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUJIT_CACHE_DIR", str(tmp_path))
    for expected in ("misses", "hits"):  # a second ufunc of the same function finds the first one's entry
        add = gpu.vectorize(["float32(float32, float32)"], cache=True)(_add)
        add.inspect_ptx()  # nothing built yet
        add(np.ones(2, np.float32), np.ones(2, np.float32))
        (kernel,) = add._kernels.values()
        kernel.inspect_ptx()
        assert sum(getattr(kernel.stats, "cache_" + expected).values()) == 1
    # One PTX entry; on a GPU, also the device code the driver made of it (a .gpujitbin beside it).
    names = [p.name for p in tmp_path.iterdir()]
    assert len([n for n in names if n.endswith(".gpujit")]) == 1
    assert all(n.endswith((".gpujit", ".gpujitbin")) for n in names)
