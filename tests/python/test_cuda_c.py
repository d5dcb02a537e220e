"""CUDA C/C++ with gpujit (docs/cuda_c.md): NVRTC compiles and nvJitLink links without a GPU, compile and link
errors carry the tools' logs, compiles go through the disk cache, and RawKernel / SourceModule launches go
through the C++ launch path with their parameters packed as the driver lays them out (checked on the fake
driver's recorded parameter bytes). The tests marked gpu run the kernels on a real GPU."""

import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import gpujit as gpu

pytestmark = pytest.mark.skipif(isinstance(gpu.toolkit_libraries()["nvrtc"], str)
                                or isinstance(gpu.toolkit_libraries()["nvjitlink"], str),
                                reason="NVRTC or nvJitLink is not installed here")

SCALE = r'''
extern "C" __global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}
'''

MUL_CALLER = r'''
extern "C" __device__ float mul(float a, float b);
extern "C" __global__ void twice(float* x) { x[threadIdx.x] = mul(x[threadIdx.x], 2.0f); }
'''

MUL = 'extern "C" __device__ float mul(float a, float b) { return a * b; }\n'


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUJIT_CACHE_DIR", str(tmp_path / "cache"))


def is_elf(code):
    return isinstance(code, bytes) and code[:4] == b"\x7fELF"


# ---------------------------------------------------------------------------------------------------------
# Compiling and linking, no GPU needed


def test_compiles_to_ptx_and_cubin_for_an_explicit_arch():
    ptx = gpu.compile_cuda_c(SCALE, "sm_80")
    assert isinstance(ptx, str)
    assert ".target sm_80" in ptx and ".entry scale(" in ptx
    assert is_elf(gpu.compile_cuda_c(SCALE, (9, 0), "cubin"))
    lto = gpu.compile_cuda_c(MUL, "sm_90", "ltoir", options=["-rdc=true"])
    assert isinstance(lto, bytes) and lto and not is_elf(lto)


def test_compile_error_shows_nvrtc_log_with_the_source_line():
    bad = 'extern "C" __global__ void k(float* x) {\n  x[0] = 1.0f;\n  x[1] = undefined_name;\n}\n'
    with pytest.raises(gpu.NvrtcCompilationError) as info:
        gpu.compile_cuda_c(bad, "sm_90", name="mine.cu")
    assert "mine.cu(3)" in str(info.value)
    assert 'identifier "undefined_name" is undefined' in info.value.log
    assert isinstance(info.value, gpu.CudaError)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="not a CUDA architecture"):
        gpu.compile_cuda_c(SCALE, "hopper")
    with pytest.raises(ValueError, match="names an architecture"):
        gpu.compile_cuda_c(SCALE, "sm_90", options=["-arch=sm_80"])
    with pytest.raises(ValueError, match="'ptx', 'cubin' or 'ltoir'"):
        gpu.compile_cuda_c(SCALE, "sm_90", "sass")
    with pytest.raises(TypeError, match="options are strings"):
        gpu.compile_cuda_c(SCALE, "sm_90", options=[3])
    with pytest.raises(TypeError, match="must be a str"):
        gpu.compile_cuda_c(b"bytes", "sm_90")


def test_name_expressions_give_mangled_names():
    r = gpu.nvrtc_compile("template <typename T> __global__ void fill(T* x) { x[0] = T(1); }", "sm_90",
                          name_expressions=["fill<float>"])
    assert r.lowered_names == {"fill<float>": "_Z4fillIfEvPT_"}
    assert ".entry _Z4fillIfEvPT_" in r.code


def test_compiles_go_through_the_disk_cache(tmp_path):
    first = gpu.nvrtc_compile(SCALE, "sm_90", "cubin")
    again = gpu.nvrtc_compile(SCALE, "sm_90", "cubin")
    assert not first.cache_hit and again.cache_hit
    assert again.code == first.code
    assert any(f.startswith("cuda_c.kernel.cu.") for f in os.listdir(tmp_path / "cache"))
    assert not gpu.nvrtc_compile(SCALE, "sm_90", "cubin", options=["-DX=1"]).cache_hit
    assert not gpu.nvrtc_compile(SCALE, "sm_80", "cubin").cache_hit
    assert not gpu.nvrtc_compile(SCALE, "sm_90", "cubin", cache=False).cache_hit


def test_links_cu_and_ptx_files(tmp_path):
    (tmp_path / "caller.cu").write_text(MUL_CALLER)
    (tmp_path / "mul.ptx").write_text(gpu.compile_cuda_c(MUL, "sm_90", options=["-rdc=true"]))
    cubin = gpu.link_cuda([tmp_path / "caller.cu", str(tmp_path / "mul.ptx")], "sm_90")
    assert is_elf(cubin) and b"twice" in cubin
    # The same from memory, with link-time optimization over LTO-IR.
    cubin = gpu.link_cuda([("cu", MUL_CALLER, "caller.cu"), ("cu", MUL)], "sm_90", lto=True)
    assert is_elf(cubin)


def test_unresolved_symbol_is_a_linker_error_naming_it():
    with pytest.raises(gpu.LinkerError) as info:
        gpu.link_cuda([("cu", MUL_CALLER, "caller.cu")], "sm_90")
    assert "mul" in info.value.error_log
    with pytest.raises(ValueError, match="not a kind of link input"):
        gpu.link_cuda([("elf", b"x")], "sm_90")
    with pytest.raises(ValueError, match="extension"):
        gpu.link_cuda(["functions.txt"], "sm_90")


def test_missing_nvrtc_names_where_it_looked():
    code = ("import gpujit as gpu\n"
            "try:\n    gpu.compile_cuda_c('', 'sm_90')\n"
            "except gpu.CudaSupportError as e:\n    print('ERR', e)\n")
    env = dict(os.environ, GPUJIT_NVRTC="/nonexistent/libnvrtc.so.13")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "ERR NVRTC not found: GPUJIT_NVRTC=/nonexistent/libnvrtc.so.13 could not be loaded" in out.stdout, out


def test_raw_kernel_compiles_without_a_gpu():
    k = gpu.RawKernel(SCALE, "scale")
    assert ".entry scale(" in k.compile_for("sm_90", "ptx")
    assert is_elf(k.compile_for("sm_90"))
    with pytest.raises(ValueError, match="NVRTC only"):
        gpu.RawKernel(SCALE, "scale", backend="nvcc")


def test_source_module_checks_names_once_compiled():
    mod = gpu.SourceModule("__global__ void first(int* x) { x[0] = 1; }\n"
                           "__global__ void second(int* x) { x[0] = 2; }\n", arch="sm_90")
    assert mod.get_function("first").name == "first"
    assert mod.get_function("second") is mod.get_function("second")
    with pytest.raises(ValueError, match="has no kernel named 'firs'"):
        mod.get_function("firs")
    cpp = gpu.SourceModule("__global__ void mykernel(int* x) {}\n", no_extern_c=True, arch="sm_90")
    with pytest.raises(ValueError, match="mangled name"):
        cpp.get_function("mykernel")
    assert cpp.get_function("_Z8mykernelPi").name == "_Z8mykernelPi"


# ---------------------------------------------------------------------------------------------------------
# Launching: the CPU backend refuses, the fake driver records the packed parameters


def test_cpu_backend_gives_a_clear_error(cpu_backend):
    k = gpu.RawKernel(SCALE, "scale")
    x = gpu.to_device(np.ones(4, np.float32))
    with pytest.raises(gpu.CudaSupportError, match="CUDA C kernel 'scale' needs a CUDA GPU"):
        k[1, 4](x, 2.0, 4)


def test_raw_kernel_packs_parameters_by_the_driver_layout(fake):
    k = gpu.RawKernel(SCALE, "scale")
    x = gpu.to_device(np.ones(10, np.float32))
    k[2, 64](x, np.float32(2.5), 10)
    name, grid, block, shared, stream, params = fake.last_launch()
    assert (name, grid, block, shared) == ("scale", (2, 1, 1), (64, 1, 1), 0)
    assert params == [struct.pack("<Q", x.device_ctypes_pointer.value), struct.pack("<f", 2.5),
                      struct.pack("<i", 10)]
    assert k._param_layout() == [(0, 8), (8, 4), (12, 4)]
    # A Python float fills a float parameter; a Python int an int one; CuPy's call form.
    k((3,), (32,), (x, 0.5, -7), shared_mem=16)
    name, grid, block, shared, stream, params = fake.last_launch()
    assert (grid, block, shared) == ((3, 1, 1), (32, 1, 1), 16)
    assert params[1:] == [struct.pack("<f", 0.5), struct.pack("<i", -7)]


def test_scalars_fill_parameters_of_every_size_at_the_drivers_offsets(fake):
    k = gpu.RawKernel('extern "C" __global__ void m(char c, unsigned short u, long long q, double d, float2 f,'
                      ' bool b) {}\n', "m")
    assert k._param_layout() == [(0, 1), (2, 2), (8, 8), (16, 8), (24, 8), (32, 1)]
    k[1, 1](-3, 65535, -2**40, 1.5, np.complex64(1 + 2j), True)
    params = fake.last_launch()[5]
    assert params == [struct.pack("<b", -3), struct.pack("<H", 65535), struct.pack("<q", -2**40),
                      struct.pack("<d", 1.5), struct.pack("<ff", 1, 2), b"\x01"]
    k[1, 1](np.int8(4), np.uint16(7), np.int64(9), np.float64(0.25), np.complex64(3j), np.bool_(False))
    assert fake.last_launch()[5][0] == b"\x04" and fake.last_launch()[5][5] == b"\x00"
    with pytest.raises(TypeError, match="argument 1 .*65536 does not fit its 2-byte parameter"):
        k[1, 1](0, 65536, 0, 0.0, np.complex64(0), False)
    with pytest.raises(TypeError, match="argument 4 .*a numpy.complex128 has 16 bytes"):
        k[1, 1](0, 0, 0, 0.0, np.complex128(0), False)


def test_launcher_is_reused_for_the_same_configuration(fake):
    k = gpu.RawKernel(SCALE, "scale")
    config = (4, 64)
    assert k[config] is k[config]
    x = gpu.to_device(np.ones(4, np.float32))
    k[config](x, 1.0, 4)
    loads = fake.calls("cuModuleLoadData") + fake.calls("cuModuleLoadDataEx")
    k[config](x, 1.0, 4)
    k[1, 1](x, 1.0, 4)
    assert fake.calls("cuModuleLoadData") + fake.calls("cuModuleLoadDataEx") == loads  # loaded once per device


def test_raw_kernel_argument_errors(fake):
    k = gpu.RawKernel(SCALE, "scale")
    x = gpu.to_device(np.ones(4, np.float32))
    with pytest.raises(TypeError, match="takes 3 arguments but 2 were given"):
        k[1, 4](x, 2.0)
    with pytest.raises(TypeError, match=r"argument 1 of CUDA C kernel 'scale': a numpy.float64 has 8 bytes but its "
                                        r"parameter has 4"):
        k[1, 4](x, np.float64(2.0), 4)
    with pytest.raises(TypeError, match=r"argument 2 .*4294967296 does not fit its 4-byte parameter"):
        k[1, 4](x, 2.0, 2**32)
    with pytest.raises(TypeError, match="argument 0 .*a float fills a float or double parameter"):
        gpu.RawKernel('extern "C" __global__ void h(char c) {}', "h")[1, 1](1.0)
    with pytest.raises(TypeError, match="argument 0 .*an array is a pointer, but its parameter has 4 bytes"):
        gpu.RawKernel('extern "C" __global__ void h(int n) {}', "h")[1, 1](x)
    with pytest.raises(TypeError, match="argument 2 .*a tuple cannot be passed to CUDA C"):
        k[1, 4](x, 2.0, (1, 2))
    with pytest.raises(ValueError, match="no kernel named 'nope'"):
        gpu.RawKernel(SCALE, "nope")[1, 1](x, 2.0, 4)


def test_struct_and_vector_parameters_take_structured_scalars_and_bytes(fake):
    k = gpu.RawKernel('struct P { float a, b, c; };\nstruct Q { short x, y; };\n'
                      'extern "C" __global__ void s(int n, P p, double2 d, Q q, char c) {}\n', "s")
    assert k._param_layout() == [(0, 4), (4, 12), (16, 16), (32, 4), (36, 1)]
    p_type = np.dtype([("a", "<f4"), ("b", "<f4"), ("c", "<f4")])
    q_type = np.dtype([("x", "<i2"), ("y", "<i2")])
    p = np.array((1.0, 2.0, 3.0), dtype=p_type)[()]
    q = np.array((-1, 9), dtype=q_type)[()]
    k[1, 1](5, p, np.complex128(1 + 2j), q, 7)
    assert fake.last_launch()[5] == [struct.pack("<i", 5), struct.pack("<fff", 1, 2, 3), struct.pack("<dd", 1, 2),
                                     struct.pack("<hh", -1, 9), b"\x07"]
    # Bytes-like objects: bytes, a bytearray, a memoryview.
    k[1, 1](6, struct.pack("<fff", 4, 5, 6), bytearray(struct.pack("<dd", 3, 4)), memoryview(b"\x01\x00\x02\x00"), 8)
    assert fake.last_launch()[5] == [struct.pack("<i", 6), struct.pack("<fff", 4, 5, 6), struct.pack("<dd", 3, 4),
                                     struct.pack("<hh", 1, 2), b"\x08"]
    with pytest.raises(TypeError, match=r"argument 1 of CUDA C kernel 's': a bytes of 8 bytes cannot fill its "
                                        r"12-byte parameter; a struct's value must have exactly its size"):
        k[1, 1](0, bytes(8), bytes(16), q, 0)
    with pytest.raises(TypeError, match=r"argument 2 .*its parameter is a 16-byte struct or vector; pass a NumPy "
                                        r"structured scalar \(np.void\) or a bytes-like object of 16 bytes, not a int"):
        k[1, 1](0, p, 3, q, 0)
    with pytest.raises(TypeError, match=r"argument 3 .*a numpy.void of 12 bytes cannot fill its 4-byte parameter"):
        k[1, 1](0, p, bytes(16), p, 0)
    with pytest.raises(TypeError, match=r"argument 1 .*a numpy.float32 of 4 bytes cannot fill its 12-byte"):
        k[1, 1](0, np.float32(1), bytes(16), q, 0)


def test_raw_kernel_compile_error_at_first_launch(fake):
    k = gpu.RawKernel('extern "C" __global__ void k(int* x) {\n  x[0] = oops;\n}\n', "k")
    with pytest.raises(gpu.NvrtcCompilationError, match=r"k\.cu\(2\): error"):
        k[1, 1](gpu.to_device(np.zeros(1, np.int32)))


def test_source_module_pycuda_style(fake):
    mod = gpu.SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
""")
    multiply_them = mod.get_function("multiply_them")
    assert mod.get_function("multiply_them") is multiply_them
    a = np.ones(400, np.float32)
    dest = np.zeros_like(a)
    multiply_them(gpu.Out(dest), gpu.In(a), gpu.In(a), block=(400, 1, 1), grid=(1, 1))
    name, grid, block, shared, stream, params = fake.last_launch()
    assert (name, grid, block) == ("multiply_them", (1, 1, 1), (400, 1, 1))
    assert len(params) == 3 and all(len(p) == 8 for p in params)


def test_source_module_keeps_the_users_line_numbers(fake):
    with pytest.raises(gpu.NvrtcCompilationError, match=r"mod\.cu\(3\): error"):
        gpu.SourceModule("__global__ void f(int* x) {\n  x[0] = 1;\n  x[1] = oops;\n}\n", name="mod.cu")


# ---------------------------------------------------------------------------------------------------------
# On a GPU: results


@pytest.mark.gpu
def test_raw_kernel_runs_on_the_gpu():
    k = gpu.RawKernel(SCALE, "scale")
    host = np.arange(1000, dtype=np.float32)
    x = gpu.to_device(host)
    k[(1000 + 127) // 128, 128](x, np.float32(3.0), 1000)
    np.testing.assert_allclose(x.copy_to_host(), host * 3)
    k[8, 128](host, 0.5, 1000)  # a NumPy array is copied in and back, as for gpujit kernels
    np.testing.assert_allclose(host, np.arange(1000, dtype=np.float32) * 0.5)


@pytest.mark.gpu
def test_source_module_runs_on_the_gpu():
    mod = gpu.SourceModule("__global__ void add(double* out, const double* a, long long n) {\n"
                           "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                           "  if (i < n) out[i] += a[i];\n}\n")
    out = np.ones(300)
    a = np.arange(300.0)
    mod.get_function("add")(gpu.InOut(out), gpu.In(a), 300, block=(128, 1, 1), grid=(3, 1))
    np.testing.assert_allclose(out, 1 + a)


@pytest.mark.gpu
def test_raw_kernel_takes_cupy_and_torch_arrays():
    k = gpu.RawKernel(SCALE, "scale")
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        c = cupy.arange(64, dtype=cupy.float32)
        k[1, 64](c, 2.0, 64)
        cupy.cuda.Device().synchronize()
        np.testing.assert_allclose(cupy.asnumpy(c), np.arange(64) * 2.0)
        sig = cupy.RawKernel(SCALE, "scale")
        c2 = cupy.arange(64, dtype=cupy.float32)
        sig((1,), (64,), (c2, np.float32(2.0), np.int32(64)))
        np.testing.assert_array_equal(cupy.asnumpy(c2), cupy.asnumpy(c))
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        t = torch.arange(64, dtype=torch.float32, device="cuda")
        k[1, 64](t, 0.5, 64)
        torch.cuda.synchronize()
        np.testing.assert_allclose(t.cpu().numpy(), np.arange(64) * 0.5)
    if cupy is None and torch is None:
        pytest.skip("neither CuPy nor PyTorch is installed")
