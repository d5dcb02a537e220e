"""numba's LTO-IR entry points on gpujit, without a GPU (docs/cuda_c.md, "LTO-IR out of gpujit"):
compile(output='ltoir') and compile_all() give libNVVM's LTO-IR of a device function (C or numba ABI) or a kernel,
forceinline marks the entry alwaysinline, compile_all lists the code of each external link input after the
function's own, and inspect_lto_ptx gives the PTX of nvJitLink's -lto -ptx link, in which a CUDA C function is
inlined. The LTO-IR is checked by its magic number and by linking it: a CUDA C kernel calling a gpujit device
function compiled to LTO-IR links with it, and the linked PTX has the function inlined."""

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import gpujit as gpu
from gpujit import _core
from gpujit._compile import compile_all, nvvm_ir

pytestmark = pytest.mark.skipif(
    isinstance(_core._nvvm_library(), str) or isinstance(gpu.toolkit_libraries()["nvrtc"], str)
    or isinstance(gpu.toolkit_libraries()["nvjitlink"], str),
    reason="libNVVM, NVRTC or nvJitLink is not installed here")

LTOIR_MAGIC = 0x7F4E43ED

MUL_CU = 'extern "C" __device__ int mul_f32_f32(float* out, float a, float b) { *out = a * b; return 0; }\n'
ADD_CU = 'extern "C" __device__ int add_u32(unsigned* out, unsigned a, unsigned b) { *out = a + b; return 0; }\n'


def f_module(x, y):
    return x + y


def set_zero(a):
    a[0] = 0


def is_ltoir(code):
    return isinstance(code, bytes) and int.from_bytes(code[:4], "little") == LTOIR_MAGIC


@pytest.mark.parametrize("abi", ["c", "numba"])
def test_a_device_function_compiles_to_ltoir(abi):
    code, resty = gpu.compile(f_module, "int32(int32, int32)", device=True, output="ltoir", abi=abi, cc=(9, 0))
    assert is_ltoir(code)
    assert str(resty) == "int32"


def test_a_kernel_compiles_to_ltoir():
    code, resty = gpu.compile(set_zero, "void(float32[::1])", device=False, output="ltoir", abi="numba")
    assert is_ltoir(code)
    assert str(resty) in ("void", "none")  # numba's void prints "none" once numba is imported


def test_a_device_function_entry_is_external_kept_and_not_a_kernel():
    ir = nvvm_ir(f_module, "int32(int32, int32)", device=True, abi="c")
    assert re.search(r"^define i32 @f_module\(i32 %a0, i32 %a1\) \{", ir, re.M), ir
    assert "@llvm.used = appending global [1 x i8*] [i8* bitcast (i32 (i32, i32)* @f_module to i8*)]" in ir
    assert "nvvm.annotations" not in ir and '!"kernel"' not in ir
    inlined = nvvm_ir(f_module, "int32(int32, int32)", device=True, abi="c", forceinline=True)
    assert re.search(r"^define i32 @f_module\(i32 %a0, i32 %a1\) alwaysinline \{", inlined, re.M), inlined


def test_forceinline_changes_the_ltoir_and_needs_ltoir():
    plain, _ = gpu.compile(set_zero, "void(float32[::1])", device=True, output="ltoir")
    inlined, _ = gpu.compile(set_zero, "void(float32[::1])", device=True, output="ltoir", forceinline=True)
    assert is_ltoir(plain) and is_ltoir(inlined)
    assert plain != inlined
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        gpu.compile(set_zero, "void(float32[::1])", device=True, forceinline=True)
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        compile_all(set_zero, "void(float32[::1])", device=True, output="ptx", forceinline=True)


def test_the_device_function_s_ltoir_defines_the_symbol_a_cuda_c_kernel_calls():
    # A CUDA C kernel calls the gpujit function by its C-ABI symbol: nvJitLink -lto resolves it with the LTO-IR,
    # and without it names the symbol undefined.
    code, _ = gpu.compile(f_module, "int32(int32, int32)", device=True, output="ltoir", cc=(9, 0))
    caller = ('extern "C" __device__ int f_module(int, int);\n'
              'extern "C" __global__ void k(int* r, int a, int b) { r[0] = f_module(a, b); }\n')
    caller_ltoir = gpu.compile_cuda_c(caller, "sm_90", "ltoir", name="caller.cu", options=["-rdc=true"])
    cubin = gpu.link_cuda([("ltoir", caller_ltoir, "caller.ltoir"), ("ltoir", code, "f_module.ltoir")], "sm_90",
                          lto=True)
    assert cubin[:4] == b"\x7fELF"
    with pytest.raises(gpu.LinkerError, match="f_module"):
        gpu.link_cuda([("ltoir", caller_ltoir, "caller.ltoir")], "sm_90", lto=True)


def test_a_construct_the_writer_cannot_write_is_a_clear_error():
    from gpujit.bf16 import bfloat16

    def bf(a):
        a[0] = np.float32(bfloat16(a[0]))

    with pytest.raises(gpu.CompileError, match=r"output='ltoir': the NVVM IR writer cannot write the bfloat type"):
        gpu.compile(bf, "void(float32[::1])", device=True, output="ltoir")


def test_without_libnvvm_the_error_says_where_it_looked(tmp_path):
    program = ("import gpujit as gpu\n"
               "def f(x, y):\n    return x + y\n"
               "try:\n    gpu.compile(f, 'int32(int32, int32)', device=True, output='ltoir')\n"
               "except gpu.CudaSupportError as e:\n    print('refused:', e)\n")
    (tmp_path / "prog.py").write_text(program)  # gpujit compiles from source: a file, not python -c
    env = dict(os.environ, GPUJIT_NVVM=str(tmp_path / "no-libnvvm.so"))
    out = subprocess.run([sys.executable, str(tmp_path / "prog.py")], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "refused: output='ltoir' needs libNVVM" in out.stdout
    assert "no-libnvvm.so" in out.stdout


def test_lto_true_without_nvjitlink_is_numbas_runtime_error(tmp_path):
    program = ("import gpujit as gpu\n"
               "try:\n    gpu.jit(lto=True)(lambda: None)\n"
               "except RuntimeError as e:\n    print('refused:', e)\n")
    env = dict(os.environ, GPUJIT_NVJITLINK=str(tmp_path / "no-libnvJitLink.so"))
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "refused: LTO requires nvjitlink" in out.stdout


# --- compile_all with external code ---

add = gpu.declare_device("add_u32", "uint32(uint32, uint32)", link=gpu.CUSource(ADD_CU, name="add.cu"))


def add_kernel(z, x, y):
    z[0] = add(x, y)


ADD_SIG = "void(uint32[::1], uint32, uint32)"


def test_compile_all_lists_the_kernel_then_its_compiled_cuda_c():
    codes, resty = compile_all(add_kernel, ADD_SIG, device=False, abi="numba")
    assert str(resty) in ("void", "none")  # numba's void prints "none" once numba is imported
    assert len(codes) == 2
    assert is_ltoir(codes[0])
    try:
        from cuda.core import ObjectCode
    except ImportError:
        assert isinstance(codes[1], gpu.LTOIR) and is_ltoir(codes[1].data)
    else:
        assert isinstance(codes[1], ObjectCode) and codes[1].code_type == "ltoir" and is_ltoir(bytes(codes[1].code))


def cuda_c_ptx(code):
    data = getattr(code, "code", None)
    if data is None:
        data = code.data
    return data.decode() if isinstance(data, bytes) else data


def test_compile_all_passes_lineinfo_and_debug_to_nvrtc():
    plain, _ = compile_all(add_kernel, ADD_SIG, device=False, abi="numba", output="ptx")
    lines, _ = compile_all(add_kernel, ADD_SIG, device=False, abi="numba", output="ptx", lineinfo=True)
    debug, _ = compile_all(add_kernel, ADD_SIG, device=False, abi="numba", output="ptx", debug=True, opt=False)
    assert isinstance(plain[0], str) and ".entry" in plain[0]
    assert ".file" not in cuda_c_ptx(plain[1])
    assert re.search(r"\.file.*add\.cu", cuda_c_ptx(lines[1]))
    assert re.search(r"\.section\s+\.debug_info", cuda_c_ptx(debug[1]))


def test_compile_all_gives_other_link_inputs_as_code_objects_of_their_kind(tmp_path):
    ptx_text = gpu.compile_cuda_c(ADD_CU, "sm_90", "ptx", name="add.cu", options=["-rdc=true"])
    path = tmp_path / "add_from_file.ptx"
    path.write_text(ptx_text)
    from_file = gpu.declare_device("add_u32", "uint32(uint32, uint32)", link=[str(path)])

    def k(z, x, y):
        z[0] = from_file(x, y)

    codes, _ = compile_all(k, ADD_SIG, device=False, abi="numba", output="ptx", cc=(9, 0))
    assert len(codes) == 2
    assert codes[1].kind == gpu.LinkableCode.from_path(str(path)).kind == "ptx"
    assert codes[1].name == "add_from_file" and codes[1].data == ptx_text
    assert ".target sm_90" in codes[0]


def test_compile_all_of_a_function_without_external_code_is_one_code():
    codes, _ = compile_all(f_module, "int32(int32, int32)", device=True)
    assert len(codes) == 1 and is_ltoir(codes[0])


# --- inspect_lto_ptx ---

mul = gpu.declare_device("mul_f32_f32", "float32(float32, float32)", link=gpu.CUSource(MUL_CU, name="mul.cu"))
MUL_SIG = "void(float32[::1], float32[::1], float32[::1])"


def multiply(r, x, y):
    i = gpu.grid(1)
    if i < r.size:
        r[i] = mul(x[i], y[i])


def test_inspect_lto_ptx_inlines_the_cuda_c_function():
    k = gpu.jit(multiply)  # lazy: the CPU backend cannot compile a kernel that links CUDA C for itself
    assert re.search(r"call(.|\n)*mul_f32_f32", k.inspect_ptx(MUL_SIG))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback
        lto = k.inspect_lto_ptx(MUL_SIG)
    assert ".entry" in lto and re.search(r"mul(\.rn)?\.f32", lto)
    assert "call" not in lto
    assert "mul_f32_f32" not in lto
    # The per-signature dict and the overload give the same, for the kernel's architecture or the one asked for.
    assert next(iter(k.inspect_lto_ptx().values())) == lto
    overload = next(iter(k.overloads.values()))
    assert overload.inspect_lto_ptx() == lto
    assert ".target sm_90" in k.inspect_lto_ptx(MUL_SIG, cc=(9, 0))


def test_inspect_lto_ptx_of_a_kernel_without_external_code_is_its_ptx():
    k = gpu.jit("void(float32[::1])")(set_zero)
    assert k.inspect_lto_ptx("void(float32[::1])") == k.inspect_ptx("void(float32[::1])")


def test_inspect_lto_ptx_falls_back_to_the_ptx_with_a_warning_when_the_kernel_cannot_be_ltoir():
    from gpujit.bf16 import bfloat16

    def k(r, x, y):
        r[0] = mul(x[0], y[0]) + np.float32(bfloat16(x[0]))

    kernel = gpu.jit(k)
    with pytest.warns(gpu.errors.PerformanceWarning, match="cannot take part in an LTO link.*bfloat"):
        ptx = kernel.inspect_lto_ptx(MUL_SIG)
    assert re.search(r"call(.|\n)*mul_f32_f32", ptx)


HALF_ADD_CU = """
#include <cuda_fp16.h>
extern "C" __device__ int half_add(__half* out, __half* a, __half* b) { *out = *a + *b; return 0; }
"""


def test_inspect_lto_ptx_of_float16_pointers_from_local_arrays():
    # numba's test_inspect_lto_asm, the part that needs no GPU: a float16 CUDA C function called through cffi
    # pointers to local arrays is inlined, its add.f16 in the kernel's PTX.
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    half_add = gpu.declare_device("half_add", "float16(float16*, float16*)", link=gpu.CUSource(HALF_ADD_CU))

    @gpu.jit
    def k(out):
        a = gpu.local.array(1, np.float16)
        b = gpu.local.array(1, np.float16)
        a[0] = 1
        b[0] = 2
        out[0] = half_add(ffi.from_buffer(a), ffi.from_buffer(b))

    assert re.search(r"call(.|\n)*half_add", k.inspect_ptx("void(float16[::1])"))
    lto = next(iter(k.inspect_lto_ptx().values()))
    assert "add.f16" in lto and "call" not in lto
