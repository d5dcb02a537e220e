"""External device functions (declare_device) and link= (docs/cuda_c.md, "declare_device and link="): a kernel
calls CUDA C and PTX functions it does not define; its PTX names them `.extern .func`, and compile(...,
output="cubin") links it with their code into a cubin for sm_90 through NVRTC and nvJitLink, without a GPU. The
cubin's symbol table shows each call resolved (the function defined in it); an unresolved one is nvJitLink's
error. On the CPU backend such a kernel is a clear compile error; on the CUDA backend (the fake driver here) a
launch links before it loads. The tests marked gpu run the kernels on a GPU and check the values."""

import os
import re
import struct

import numpy as np
import pytest

import gpujit as gpu

pytestmark = pytest.mark.skipif(isinstance(gpu.toolkit_libraries()["nvrtc"], str)
                                or isinstance(gpu.toolkit_libraries()["nvjitlink"], str),
                                reason="NVRTC or nvJitLink is not installed here")

TIMES2_CU = 'extern "C" __device__ int times2(int* out, int a) { *out = a * 2; return 0; }\n'
ADD_C_CU = 'extern "C" __device__ float add_c(float a, float b) { return a + b; }\n'
SUM_CU = r'''
extern "C" __device__ int sum_reduce(float* out, float* array, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += array[i];
  *out = s;
  return 0;
}
'''
# nvcc -ptx -rdc=true of `extern "C" __device__ int times3(int* out, int a) { *out = a * 3; return 0; }`,
# written by hand to stay readable.
TIMES3_PTX = r'''
.version 8.0
.target sm_75
.address_size 64

.visible .func  (.param .b32 func_retval0) times3(
	.param .b64 times3_param_0,
	.param .b32 times3_param_1
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [times3_param_0];
	ld.param.u32 	%r1, [times3_param_1];
	mul.lo.s32 	%r2, %r1, 3;
	st.u32 	[%rd1], %r2;
	mov.u32 	%r3, 0;
	st.param.b32 	[func_retval0], %r3;
	ret;
}
'''

SIG = "void(int32[::1], int32[::1])"


def elf_symbols(image):
    """{name: defined} of an ELF64 image's symbol table: defined is False for an undefined symbol."""
    assert image[:4] == b"\x7fELF"
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize) for i in range(shnum)]
    out = {}
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strtab = sections[link]
        for k in range(size // entsize):
            name_at, _, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", image, offset + k * entsize)
            start = strtab[4] + name_at
            name = image[start:image.index(b"\0", start)].decode()
            if name:
                out[name] = shndx != 0
    return out


def cubin_of(kernel, sig=SIG, **options):
    cubin, _ = gpu.compile(kernel, sig, device=False, cc=(9, 0), output="cubin", **options)
    return cubin


def test_a_call_of_a_cu_function_is_an_extern_call_in_ptx_and_resolved_in_the_cubin(tmp_path):
    path = tmp_path / "times2.cu"
    path.write_text(TIMES2_CU)
    times2 = gpu.declare_device("times2", "int32(int32)", link=str(path))

    def kernel(r, x):
        i = gpu.grid(1)
        if i < r.size:
            r[i] = times2(x[i])

    ptx, _ = gpu.compile_ptx(kernel, SIG, cc=(9, 0))
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) times2", ptx)
    assert "call.uni (retval0), times2," in ptx
    symbols = elf_symbols(cubin_of(kernel))
    assert symbols.get("times2") is True


RNG_CU = r'''
#include <curand_kernel.h>
extern "C" __device__ int random_number(unsigned int* out, unsigned long long seed) {
  curandStateXORWOW_t state;
  curand_init(seed, 1, 0, &state);
  *out = curand(&state);
  return 0;
}
'''


def test_a_cu_function_that_includes_the_toolkit_s_headers_links(tmp_path):
    # curand_kernel.h includes <cuda/std/type_traits>, which CUDA 13 keeps under include/cccl: NVRTC needs both.
    path = tmp_path / "rng.cu"
    path.write_text(RNG_CU)
    random_number = gpu.declare_device("random_number", "uint32(uint64)", link=str(path))

    def kernel(r, x):
        r[0] = random_number(np.uint64(x[0]))

    assert elf_symbols(cubin_of(kernel, "void(uint32[::1], int64[::1])")).get("random_number") is True


def test_cu_and_ptx_functions_from_files_and_memory_link_into_one_cubin(tmp_path):
    ptx_path = tmp_path / "times3.ptx"
    ptx_path.write_text(TIMES3_PTX)
    times2 = gpu.declare_device("times2", "int32(int32)", link=[gpu.CUSource(TIMES2_CU, name="times2.cu")])
    times3 = gpu.declare_device("times3", "int32(int32)", link=str(ptx_path))

    def kernel(r, x):
        i = gpu.grid(1)
        if i < r.size:
            r[i] = times2(x[i]) + times3(x[i])

    symbols = elf_symbols(cubin_of(kernel))
    assert symbols.get("times2") is True and symbols.get("times3") is True


def test_c_abi_and_pointer_arguments():
    add_c = gpu.declare_device("add_c", "float32(float32, float32)", link=gpu.CUSource(ADD_C_CU), abi="c")
    sum_reduce = gpu.declare_device("sum_reduce", "float32(CPointer(float32), int32)", link=gpu.CUSource(SUM_CU))

    def kernel(r, p, n):
        r[0] = add_c(r[0], 1.0) + sum_reduce(p, n)

    sig = "void(float32[::1], float32*, int32)"
    ptx, _ = gpu.compile_ptx(kernel, sig, cc=(9, 0))
    # C ABI: the two floats alone; numba's ABI: the result's pointer, then the float pointer and the int.
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) add_c\s*\(\s*"
                     r"\.param \.b32 add_c_param_0,\s*\.param \.b32 add_c_param_1\s*\)", ptx)
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) sum_reduce\s*\(\s*\.param \.b64 "
                     r"sum_reduce_param_0,\s*\.param \.b64 sum_reduce_param_1,\s*\.param \.b32 sum_reduce_param_2", ptx)
    symbols = elf_symbols(cubin_of(kernel, sig))
    assert symbols.get("add_c") is True and symbols.get("sum_reduce") is True


def test_jit_link_adds_code_for_a_function_declared_without_it():
    times2 = gpu.declare_device("times2", "int32(int32)")  # its code comes from the kernel's link=

    def kernel(r, x):
        r[0] = times2(x[0])

    with pytest.raises(gpu.errors.LinkerError, match="times2"):
        cubin_of(kernel)  # nothing defines it: nvJitLink names the undefined symbol
    symbols = elf_symbols(cubin_of(kernel, link=[gpu.CUSource(TIMES2_CU)]))
    assert symbols.get("times2") is True


def test_a_device_function_that_calls_an_external_one_brings_its_code():
    times2 = gpu.declare_device("times2", "int32(int32)", link=gpu.CUSource(TIMES2_CU))

    @gpu.jit(device=True)
    def twice(x):
        return times2(x)

    def kernel(r, x):
        r[0] = twice(x[0]) + times2(x[1])

    assert elf_symbols(cubin_of(kernel)).get("times2") is True


def test_lto_links_cuda_c_as_lto_ir():
    times2 = gpu.declare_device("times2", "int32(int32)", link=gpu.CUSource(TIMES2_CU))

    def kernel(r, x):
        r[0] = times2(x[0])

    symbols = elf_symbols(cubin_of(kernel, lto=True))  # NVRTC -dlto, nvJitLink -lto
    assert any(name.startswith("_gpujit_") and defined for name, defined in symbols.items())
    assert symbols.get("times2") is not False  # not left undefined (LTO may inline or keep it)


def test_a_cuda_c_compile_error_names_the_file_and_line():
    bad = gpu.declare_device("bad", "int32(int32)", link=gpu.CUSource("extern \"C\" __device__ int bad(int* o, int a)"
                                                                       " { return y; }\n", name="bad.cu"))

    def kernel(r, x):
        r[0] = bad(x[0])

    with pytest.raises(gpu.errors.NvrtcCompilationError, match=r"bad\.cu\(1\)"):
        cubin_of(kernel)


def test_declarations_are_checked():
    with pytest.raises(TypeError, match="Return type"):
        gpu.declare_device("f1", "(float32[:],)")
    with pytest.raises(TypeError, match="Return type"):
        gpu.declare_device("f1", (gpu.float32[:],))
    with pytest.raises(NotImplementedError, match="ABI"):
        gpu.declare_device("f1", "int32(int32)", abi="fortran")
    with pytest.raises(gpu.errors.LinkerError, match="Don't know how to link file with extension .txt"):
        gpu.declare_device("f1", "int32(int32)", link="f1.txt")
    with pytest.raises(gpu.errors.LinkerError, match="Don't know how to link file with no extension"):
        gpu.jit(link=["data"])(lambda: None)
    with pytest.raises(gpu.errors.LinkerError, match="nonexistent.a not found"):
        gpu.jit(link=["nonexistent.a"])(lambda: None)
    f1 = gpu.declare_device("f1", "int32(float32[:])")
    assert f1.name == "f1"

    def kernel(r, x):
        r[0] = f1(x)

    with pytest.raises(gpu.CompileError, match=r"pass ffi.from_buffer\(array\)"):
        gpu.compile_ptx(kernel, "void(int32[::1], float32[::1])", cc=(9, 0))
    two = gpu.declare_device("two", "int32(int32, int32)")

    def arity(r):
        r[0] = two(1)

    with pytest.raises(gpu.CompileError, match="takes 2 arguments, got 1"):
        gpu.compile_ptx(arity, "void(int32[::1])", cc=(9, 0))


def test_the_cpu_backend_refuses_a_kernel_that_calls_external_code(cpu_backend):
    times2 = gpu.declare_device("times2", "int32(int32)", link=gpu.CUSource(TIMES2_CU))

    @gpu.jit
    def kernel(r, x):
        r[0] = times2(x[0])

    with pytest.raises(gpu.CompileError, match="'times2' is an external function .* cpu backend cannot run"):
        kernel[1, 1](np.zeros(1, np.int32), np.ones(1, np.int32))


def test_a_cuda_launch_links_before_it_loads(fake):
    times2 = gpu.declare_device("times2", "int32(int32)", link=gpu.CUSource(TIMES2_CU))
    missing = gpu.declare_device("missing", "int32(int32)")

    @gpu.jit
    def kernel(r, x):
        r[0] = times2(x[0])

    @gpu.jit
    def unresolved(r, x):
        r[0] = missing(x[0])

    r, x = gpu.to_device(np.zeros(1, np.int32)), gpu.to_device(np.full(1, 21, np.int32))
    # The link runs before the load: an unresolved symbol is nvJitLink's error at the first launch.
    with pytest.raises(gpu.errors.LinkerError, match="missing"):
        unresolved[1, 1](r, x)
    # A resolved one reaches cuModuleLoadData as a real cubin (an ELF image), which the fake driver, a reader of
    # PTX and of its own FAKECUBIN images, refuses as a real driver refuses a foreign image; a GPU loads it
    # (test_declared_functions_run_on_a_gpu).
    loads = fake.calls("cuModuleLoadData")
    with pytest.raises(gpu.errors.CudaAPIError, match="cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE"):
        kernel[1, 1](r, x)
    assert fake.calls("cuModuleLoadData") == loads + 1


@pytest.mark.gpu
def test_declared_functions_run_on_a_gpu(cuda, tmp_path):
    ptx_path = tmp_path / "times3.ptx"
    ptx_path.write_text(TIMES3_PTX)
    times2 = gpu.declare_device("times2", "int32(int32)", link=gpu.CUSource(TIMES2_CU))
    times3 = gpu.declare_device("times3", "int32(int32)", link=str(ptx_path))
    add_c = gpu.declare_device("add_c", "float32(float32, float32)", link=gpu.CUSource(ADD_C_CU), abi="c")

    @gpu.jit
    def kernel(r, f, x):
        i = gpu.grid(1)
        if i < r.size:
            r[i] = times2(x[i]) + times3(x[i])
            f[i] = add_c(f[i], 0.5)

    x = np.arange(64, dtype=np.int32)
    r = np.zeros_like(x)
    f = np.ones(64, np.float32)
    kernel[1, 64](r, f, x)
    np.testing.assert_array_equal(r, x * 5)
    np.testing.assert_array_equal(f, np.full(64, 1.5, np.float32))


SHIM_PROGRAM = r'''
import numpy as np
from numba import cuda, float32, int32
from numba.cuda.cudadrv.driver import LinkerError

decl = cuda.declare_device("f1", int32(float32[:]))
assert decl.name == "f1" and decl.sig.args == (float32[:],) and decl.sig.return_type == int32, decl.sig
assert cuda.declare_device("f1", "int32(float32[:])").sig.args == (float32[:],)
times2 = cuda.declare_device("times2", "int32(int32)", link=cuda.CUSource(TIMES2_CU))

def kernel(r, x):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = times2(x[i])

cubin, _ = cuda.compile(kernel, "void(int32[::1], int32[::1])", device=False, cc=(9, 0), output="cubin")
print("cubin", cubin[:4] == b"\x7fELF")
try:
    cuda.jit(link=["nonexistent.a"])(lambda: None)
except LinkerError as e:
    print("numba's LinkerError", e.args)
'''


def test_numba_s_declare_device_and_code_classes_under_the_shim(tmp_path):
    pytest.importorskip("numba_cuda")
    import subprocess
    import sys

    program = tmp_path / "prog.py"
    program.write_text(f"TIMES2_CU = {TIMES2_CU!r}\n" + SHIM_PROGRAM)
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("GPUJIT_DEVICE", "GPUJIT_BACKEND")}
    env["GPUJIT_DEVICE"] = "cpu"
    out = subprocess.run([sys.executable, "-m", "gpujit", "run", str(program)], capture_output=True, text=True,
                         env=env, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "cubin True" in out.stdout
    assert "numba's LinkerError ('nonexistent.a not found',)" in out.stdout


def test_cffi_from_buffer_passes_an_array_s_data_to_an_external_function():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    sum_reduce = gpu.declare_device("sum_reduce", "float32(CPointer(float32), int32)", link=gpu.CUSource(SUM_CU))

    def reduction(result, array):
        ptr = ffi.from_buffer(array[1:])  # a view's data: its first element's address
        result[0] = sum_reduce(ptr, len(array) - 1)

    sig = "void(float32[::1], float32[::1])"
    ptx, _ = gpu.compile_ptx(reduction, sig, cc=(9, 0))
    assert re.search(r"call\.uni \(retval0\), sum_reduce,", ptx)
    assert elf_symbols(cubin_of(reduction, sig)).get("sum_reduce") is True

    def not_an_array(result, n):
        result[0] = sum_reduce(ffi.from_buffer(n), 1)

    with pytest.raises(gpu.CompileError, match="from_buffer"):
        gpu.compile_ptx(not_an_array, "void(float32[::1], int32)", cc=(9, 0))

    def other_attribute(result):
        result[0] = ffi.cast("int", 1)

    with pytest.raises(gpu.CompileError, match="has no attribute 'cast'"):
        gpu.compile_ptx(other_attribute, "void(float32[::1])", cc=(9, 0))


def test_from_buffer_on_the_cpu_backend_is_the_data_address(cpu_backend):
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()

    @gpu.jit
    def bump(a):
        p = ffi.from_buffer(a[2:])
        p[0] += 10  # a pointer indexes as numba's CPointer does

    a = np.arange(5, dtype=np.int64)
    bump[1, 1](a)
    np.testing.assert_array_equal(a, [0, 1, 12, 3, 4])


@pytest.mark.gpu
def test_from_buffer_and_a_sum_in_cuda_c_on_a_gpu(cuda):
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    sum_reduce = gpu.declare_device("sum_reduce", "float32(CPointer(float32), int32)", link=gpu.CUSource(SUM_CU))

    @gpu.jit
    def reduction(result, array):
        result[0] = sum_reduce(ffi.from_buffer(array), len(array))

    x = np.arange(10, dtype=np.float32)
    r = np.zeros(1, np.float32)
    reduction[1, 1](r, x)
    assert r[0] == 45.0


FALLBACK_PROGRAM = r'''
import numpy as np
import gpujit as gpu
gpu._core._set_backend("cuda")

def other(a):
    a[0] = 1

# The fake driver's linker takes PTX it can parse (a kernel's): it concatenates its inputs, resolving nothing.
other_ptx, _ = gpu.compile_ptx(other, "void(int32[::1])")
times3 = gpu.declare_device("times3", "int32(int32)", link=gpu.PTXSource(other_ptx, name="other.ptx"))

@gpu.jit
def kernel(r, x):
    r[0] = times3(x[0])

kernel[1, 1](gpu.to_device(np.zeros(1, np.int32)), gpu.to_device(np.ones(1, np.int32)))
print("loaded", isinstance(gpu.toolkit_libraries()["nvjitlink"], str))  # nvJitLink missing, yet linked
lto = gpu.declare_device("times2", "int32(int32)", link=gpu.LTOIR(b"not used", name="t.ltoir"))

@gpu.jit
def with_lto(r, x):
    r[0] = lto(x[0])

try:
    with_lto[1, 1](gpu.to_device(np.zeros(1, np.int32)), gpu.to_device(np.ones(1, np.int32)))
except gpu.CudaSupportError as e:
    print("lto refused:", "needs nvJitLink" in str(e))
'''


def test_without_nvjitlink_the_driver_s_linker_links(fake, tmp_path):
    """cuLink* where nvJitLink cannot be loaded (GPUJIT_NVJITLINK names a missing file): the fake driver links
    PTX inputs into its own cubin, which it then loads (a cubin from nvJitLink it would refuse)."""
    import os
    import subprocess
    import sys

    program = tmp_path / "prog.py"
    program.write_text(FALLBACK_PROGRAM)
    env = dict(os.environ, GPUJIT_NVJITLINK=str(tmp_path / "no-libnvJitLink.so"))
    out = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=env, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "loaded True" in out.stdout
    assert "lto refused: True" in out.stdout


@pytest.mark.parametrize("eager", [True, False])
def test_a_starred_signature_list_and_link_in_the_decorator(fake, eager):
    # numba's own tests write `@cuda.jit(*args, link=[...])`, args empty or one signature: Python evaluates the
    # decorator, and gpujit's frontend, which reads the kernel's source decorator included, must not refuse it.
    args = [SIG] if eager else []
    times2 = gpu.declare_device("times2", "int32(int32)")

    @gpu.jit(*args, link=[gpu.CUSource(TIMES2_CU)])
    def kernel(r, x):
        r[0] = times2(x[0])

    r, x = gpu.to_device(np.zeros(1, np.int32)), gpu.to_device(np.full(1, 21, np.int32))
    # Linked (times2's code came from the decorator's link=, else nvJitLink would name it undefined), then
    # refused by the fake driver as a foreign cubin; a GPU runs it.
    with pytest.raises(gpu.errors.CudaAPIError, match="cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE"):
        kernel[1, 1](r, x)


GRID_COUNT_CU = r'''
#include <cooperative_groups.h>
extern "C" __device__ int grid_count(int* out, int* counter) {
  atomicAdd(counter, 1);
  cooperative_groups::this_grid().sync();  // needs every block resident: a cooperative launch
  *out = atomicAdd(counter, 0);
  return 0;
}
'''


def test_use_cooperative_makes_every_kernel_that_calls_it_cooperative(fake):
    plain = gpu.declare_device("times2", "int32(int32)", link=gpu.CUSource(TIMES2_CU))
    coop = gpu.declare_device("times2", "int32(int32)", link=gpu.CUSource(TIMES2_CU), use_cooperative=True)
    assert coop.use_cooperative and not plain.use_cooperative

    @gpu.jit(device=True)
    def through(x):
        return coop(x)

    @gpu.jit(SIG)
    def direct(r, x):
        r[0] = coop(x[0])

    @gpu.jit(SIG)
    def nested(r, x):
        r[0] = through(x[0])

    @gpu.jit(SIG)
    def not_cooperative(r, x):
        r[0] = plain(x[0])

    # numba's Overload.cooperative: the external code's library marks the kernel that links it.
    for kernel, expected in ((direct, True), (nested, True), (not_cooperative, False)):
        overloads = list(kernel.overloads.values())
        assert len(overloads) == 1 and overloads[0].cooperative is expected


@pytest.mark.gpu
def test_a_cooperative_external_function_syncs_the_grid_on_a_gpu(cuda):
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    grid_count = gpu.declare_device("grid_count", "int32(CPointer(int32))", link=gpu.CUSource(GRID_COUNT_CU),
                                    use_cooperative=True)

    @gpu.jit("void(int32[::1], int32[::1])")
    def count(r, counter):
        r[gpu.grid(1)] = grid_count(ffi.from_buffer(counter))

    overload = count.overloads[next(iter(count.overloads))]
    assert overload.cooperative
    blocks = min(overload.max_cooperative_grid_blocks(64), 8)
    r = np.zeros(blocks * 64, np.int32)
    count[blocks, 64](r, np.zeros(1, np.int32))
    # Every thread added one before the grid barrier and read the total after it.
    np.testing.assert_array_equal(r, np.full(blocks * 64, blocks * 64, np.int32))


@pytest.mark.gpu
def test_an_lto_launch_without_libnvvm_warns_and_links_as_ptx(cuda, tmp_path):
    # A machine with the nvJitLink wheel and no libNVVM: jit(lto=True) cannot make the kernel LTO-IR, so the launch
    # links its PTX (the CUDA C function stays a call) and says so, rather than falling back silently.
    import subprocess
    import sys

    script = tmp_path / "lto_without_nvvm.py"
    script.write_text(f"""
import numpy as np
import gpujit as gpu
times2 = gpu.declare_device("times2", "int32(int32)", link=gpu.CUSource({TIMES2_CU!r}))

@gpu.jit(lto=True)
def kernel(r, x):
    r[0] = times2(x[0])

r = np.zeros(1, np.int32)
kernel[1, 1](r, np.full(1, 21, np.int32))
print("result", r[0])
""")
    env = dict(os.environ, GPUJIT_NVVM=str(tmp_path / "no-libnvvm.so"), GPUJIT_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "result 42" in proc.stdout
    assert "lto=True: kernel 'kernel' is linked as PTX" in proc.stderr and "libNVVM" in proc.stderr, proc.stderr
