"""jit(lto=True): a CUDA C function linked into a gpujit kernel is inlined (docs/cuda_c.md, "Link-time
optimization"). The kernel is written as NVVM IR (codegen/nvvm_ir_writer.h, LLVM 7's dialect), compiled to LTO-IR
by libNVVM, and linked with the .cu's NVRTC -dlto LTO-IR by nvJitLink -lto.

Without a GPU: the writer's output for gpujit's examples, for every kernel of tests/filecheck that compiles (a
bfloat16 or 64-bit atomic inc/dec kernel is refused by name instead), and for kernels using atomics, shared
memory, math, records, warps, local arrays, complex, float16, a grid barrier and fences is accepted by libNVVM
and gives PTX; a kernel calling a small
.cu function links to a cubin whose SASS (nvdisasm, or cuobjdump -sass) has no CALL with lto=True and one
without; a kernel the writer cannot write (bfloat16) falls back to the PTX with a PerformanceWarning. The test
marked gpu runs an lto=True kernel and checks its values."""

import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import gpujit as gpu
from gpujit import _core
from gpujit._compile import nvvm_ir

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    isinstance(_core._nvvm_library(), str) or isinstance(gpu.toolkit_libraries()["nvrtc"], str)
    or isinstance(gpu.toolkit_libraries()["nvjitlink"], str),
    reason="libNVVM, NVRTC or nvJitLink is not installed here")

MUL_CU = 'extern "C" __device__ int mul_f32_f32(float* out, float a, float b) { *out = a * b; return 0; }\n'
SIG = "void(float32[::1], float32[::1], float32[::1])"

mul = gpu.declare_device("mul_f32_f32", "float32(float32, float32)", link=gpu.CUSource(MUL_CU, name="mul.cu"))


def multiply(r, x, y):
    i = gpu.grid(1)
    if i < r.size:
        r[i] = mul(x[i], y[i])


def disassembler():
    """A SASS disassembler: $GPUJIT_NVDISASM, nvdisasm or cuobjdump of the toolkit or the PATH, or the nvidia pip
    wheel's (nvidia-cuda-nvdisasm: site-packages/nvidia/cu13/bin/nvdisasm); None when there is none."""
    candidates = [os.environ.get("GPUJIT_NVDISASM", "")]
    for home in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        if home:
            candidates += [f"{home}/bin/nvdisasm", f"{home}/bin/cuobjdump"]
    candidates += [shutil.which("nvdisasm") or "", shutil.which("cuobjdump") or ""]
    candidates += [os.path.join(p, "nvidia", sub, "bin", "nvdisasm") for p in sys.path if p for sub in ("cu13", "cu12")]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def sass(cubin, tmp_path):
    tool = disassembler()
    if tool is None:
        pytest.skip("no nvdisasm or cuobjdump here (set GPUJIT_NVDISASM, or pip install nvidia-cuda-nvdisasm)")
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    args = [tool, "-sass", str(path)] if tool.endswith("cuobjdump") else [tool, "-c", str(path)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    # The instructions alone: nvdisasm writes "/*0070*/  FMUL R5, R2, R5 ;" lines.
    return [line for line in out.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/\s+[A-Z@]", line)]


def cubin(kernel, sig=SIG, **options):
    code, _ = gpu.compile(kernel, sig, device=False, cc=(9, 0), output="cubin", **options)
    return code


def test_lto_inlines_the_cuda_c_function_into_the_kernel(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpu.errors.PerformanceWarning)  # no fallback to the PTX
        inlined = sass(cubin(multiply, lto=True), tmp_path)
    called = sass(cubin(multiply), tmp_path)
    assert any("FMUL" in line for line in inlined)
    assert not any("CALL" in line for line in inlined), "\n".join(inlined)
    assert any("CALL" in line for line in called), "\n".join(called)


def test_the_written_ir_is_llvm_7s_dialect_with_the_kernel_annotated():
    ir = nvvm_ir(multiply, SIG)
    assert "ptr" not in re.findall(r"\b\w+\b", ir)  # typed pointers only
    assert re.search(r"declare i32 @mul_f32_f32\(i8\*, float, float\)", ir)
    assert re.search(r'!\{void \([^)]*\)\* @_gpujit_multiply\w*, !"kernel", i32 1\}', ir)
    assert "!nvvmir.version" in ir and "@llvm.used" in ir
    assert ".entry _gpujit_multiply" in _core._nvvm_compile(ir, "sm_90", False).decode()


def test_launch_bounds_become_annotations():
    def bounded(r, x, y):
        i = gpu.grid(1)
        r[i] = x[i] + y[i]

    dispatcher = gpu.jit(launch_bounds=(128, 2), lto=True)(bounded)
    ir = dispatcher._compile_entry(SIG, True, "kernel", "", "sm_90", (128, 2, 0))[4]
    assert '!"maxntidx", i32 128' in ir and '!"minctasm", i32 2' in ir
    ptx = _core._nvvm_compile(ir, "sm_90", False).decode()
    assert ".maxntid 128, 1, 1" in ptx and ".minnctapersm 2" in ptx


SIG_LINE = re.compile(r"^# gpujit-sig:\s+(\w+)\s+(.+?)\s*$", re.M)


def example_kernels():
    for path in sorted((REPO / "examples").glob("*.py")):
        for name, sig in SIG_LINE.findall(path.read_text()):
            yield pytest.param(path, name, sig, id=f"{path.stem}.{name}")


@pytest.mark.parametrize("path,name,sig", list(example_kernels()))
def test_libnvvm_compiles_the_written_ir_of_each_example(path, name, sig):
    spec = importlib.util.spec_from_file_location(f"_lto_example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    ir = nvvm_ir(getattr(module, name), sig)
    ptx = _core._nvvm_compile(ir, "sm_90", False).decode()
    assert ".visible .entry _gpujit_" in ptx
    assert len(_core._nvvm_compile(ir, "sm_90", True)) > 0  # LTO-IR too


FILECHECK_RUN = re.compile(r"%gpujit ptx %s -k (\w+) --sig '([^']+)'")
# What the writer may refuse, each named in its message: LLVM 7 has no bfloat, and PTX's atom.inc/dec are 32-bit.
KNOWN_FALLBACKS = ("the bfloat type", "atomicrmw uinc_wrap", "atomicrmw udec_wrap")


def filecheck_kernels():
    for path in sorted((REPO / "tests" / "filecheck").glob("*.py")):
        for name, sig in FILECHECK_RUN.findall(path.read_text()):
            yield pytest.param(path, name, sig, id=f"{path.stem}.{name}.{sig}")


@pytest.mark.parametrize("path,name,sig", list(filecheck_kernels()))
def test_libnvvm_compiles_the_written_ir_of_each_filecheck_kernel(path, name, sig):
    """Every kernel tests/filecheck compiles to PTX (those written to fail compiling are skipped): the writer
    writes it and libNVVM compiles it, or the writer names one of the constructs it knowingly refuses."""
    spec = importlib.util.spec_from_file_location(f"_lto_filecheck_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # a file written for the CLI alone (const_array_cli.py's ragged list)
        pytest.skip(f"{path.name} does not import in Python: {e}")
    kernel = getattr(module, name, None)
    if kernel is None:
        pytest.skip(f"{name} is defined by the CLI's run only")
    try:
        gpu.compile_ptx(getattr(kernel, "py_func", kernel), sig, cc=(9, 0))
    except (gpu.CompileError, TypeError, ValueError, NotImplementedError) as e:
        pytest.skip(f"does not compile to PTX either (an error test): {str(e).splitlines()[0]}")
    try:
        ir = nvvm_ir(kernel, sig)
    except ValueError as e:
        assert any(k in str(e) for k in KNOWN_FALLBACKS), str(e)
        return
    assert ".visible .entry _gpujit_" in _core._nvvm_compile(ir, "sm_90", False).decode()


def atomics(a, b, c, f):
    i = gpu.grid(1)
    if i < a.size:
        gpu.atomic.add(c, 0, a[i])
        gpu.atomic.max(c, 1, a[i])
        gpu.atomic.min(c, 2, a[i])
        gpu.atomic.compare_and_swap(b[3:], 0, 7)
        gpu.atomic.add(f, 0, 1.5)
        gpu.atomic.sub(c, 4, 1)
        gpu.atomic.exch(c, 5, a[i])
        gpu.atomic.inc(b, 0, 100)
        gpu.atomic.dec(b, 1, 100)


def shared(a, out):
    s = gpu.shared.array(128, dtype=np.float32)
    t = gpu.threadIdx.x
    s[t] = a[gpu.grid(1)]
    gpu.syncthreads()
    n = gpu.syncthreads_count(s[t] > 0)
    out[gpu.grid(1)] = s[127 - t] + n


def math_ops(x, out, iout):
    i = gpu.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = (math.sin(v) + math.exp(v) * math.sqrt(abs(v)) - math.floor(v) + math.atan2(v, 2.0)
                  + math.pow(v, 3) + max(v, 0.5) + min(v, -1.0) + math.copysign(1.0, v) - (-v))
        iout[i] = int(v * 10) + max(i, 3) + min(i, 7) + abs(i - 9) + (i >> 2) + (i // 3) + (i % 5)


def records(r, out):
    i = gpu.grid(1)
    if i < r.size:
        out[i] = r[i].x * r[i].n + r[i].y
        r[i].n = i


def warps(a, out):
    i = gpu.grid(1)
    v = a[i]
    v += gpu.shfl_down_sync(0xffffffff, v, 16)
    b = gpu.ballot_sync(0xffffffff, v > 0)
    out[i] = v + gpu.popc(b) + gpu.clz(b) + gpu.ffs(b)


def local_array(a, out):
    scratch = gpu.local.array(8, dtype=np.int64)
    i = gpu.grid(1)
    for k in range(8):
        scratch[k] = a[i] * k
    s = 0
    for k in range(8):
        s += scratch[k]
    out[i] = s


def complex_ops(a, out):
    i = gpu.grid(1)
    if i < a.size:
        z = a[i] * (1 + 2j)
        out[i] = abs(z) + z.real


def half_ops(a, out):
    i = gpu.grid(1)
    if i < a.size:
        out[i] = gpu.fp16.hadd(a[i], a[i])


def grid_sync(a):
    g = gpu.cg.this_grid()
    a[gpu.grid(1)] += 1
    g.sync()


def fences(a):
    a[gpu.grid(1)] = 1
    gpu.threadfence()
    gpu.threadfence_block()
    gpu.threadfence_system()
    a[gpu.grid(1)] += 1


@pytest.mark.parametrize("kernel,sig", [
    (atomics, "void(float32[::1], uint32[::1], float32[::1], float64[::1])"),
    (atomics, "void(int32[::1], uint32[::1], int32[::1], float64[::1])"),
    (shared, "void(float32[::1], float32[::1])"),
    (math_ops, "void(float64[::1], float64[::1], int64[::1])"),
    (math_ops, "void(float32[::1], float32[::1], int32[::1])"),
    (records, "void(Record(x[type=float32;offset=0],n[type=int32;offset=4],y[type=float64;offset=8];16;True)[::1],"
              " float64[::1])"),
    (warps, "void(int32[::1], int32[::1])"),
    (local_array, "void(int64[::1], int64[::1])"),
    (complex_ops, "void(complex64[::1], float32[::1])"),
    (half_ops, "void(float16[::1], float16[::1])"),
    (grid_sync, "void(int32[::1])"),
    (fences, "void(int32[::1])"),
], ids=["atomics_f32", "atomics_i32", "shared", "math_f64", "math_f32", "records", "warps", "local", "complex",
        "float16", "grid_sync", "fences"])
def test_libnvvm_compiles_the_written_ir_of_kernels_of_each_kind(kernel, sig):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpu.errors.PerformanceWarning)
        ir = nvvm_ir(kernel, sig)
    ptx = _core._nvvm_compile(ir, "sm_90", False).decode()
    assert ".visible .entry _gpujit_" in ptx
    if kernel is atomics:  # each atomic is PTX's own instruction, as the NVPTX backend emits it
        for op in ("atom.global.add.f64", "atom.global.inc.u32", "atom.global.dec.u32", "atom.global.cas.b32"):
            assert op in ptx, op
    if kernel is fences:  # libNVVM refuses `fence`: each is a membar of its scope
        assert "fence " not in ir and all(f"membar.{s}" in ptx for s in ("cta", "gl", "sys"))
    if kernel is grid_sync:  # libNVVM refuses `load atomic`: the barrier's acquire load is volatile, then a membar
        assert "load atomic" not in ir and "ld.volatile.global" in ptx


@pytest.mark.parametrize("options", [dict(debug=True, opt=0), dict(lineinfo=True), dict(fastmath=True),
                                     dict(max_registers=32)], ids=["debug", "lineinfo", "fastmath", "max_registers"])
def test_libnvvm_compiles_the_written_ir_under_each_jit_option(options):
    def kernel(a, out):
        i = gpu.grid(1)
        out[i] = math.sqrt(a[i + 1]) / a[i] + math.exp(a[i])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ir, error = gpu.jit(lto=True, **options)(kernel)._compile_entry(
            "void(float32[::1], float32[::1])", True, "kernel", "", "sm_90")[4:6]
    assert ir, error
    assert "!dbg" not in ir and "llvm.dbg" not in ir  # debug information is dropped
    if "max_registers" in options:
        assert '!"maxnreg", i32 32' in ir
    ptx = _core._nvvm_compile(ir, "sm_90", False).decode()
    assert ".visible .entry _gpujit_" in ptx
    if "fastmath" in options:  # libNVVM is told -ftz=1 -prec-div=0 -prec-sqrt=0: approximate, flushing
        assert '!"nvvm-reflect-ftz", i32 1' in ir
        assert re.search(r"div\.(full|approx)\.ftz\.f32", ptx) and "div.rn.f32" not in ptx, ptx


def test_a_construct_the_writer_cannot_write_falls_back_to_the_ptx_with_a_warning(tmp_path):
    from gpujit.bf16 import bfloat16

    def bf16_kernel(r, x, y):
        i = gpu.grid(1)
        if i < r.size:
            r[i] = mul(x[i], y[i]) + np.float32(bfloat16(x[i]))

    with pytest.raises(ValueError, match="the NVVM IR writer cannot write the bfloat type"):
        nvvm_ir(bf16_kernel, SIG)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = cubin(bf16_kernel, lto=True)
    said = [str(w.message) for w in caught if issubclass(w.category, gpu.errors.PerformanceWarning)]
    assert len(said) == 1 and re.match(r"lto=True: the NVVM IR writer cannot write the bfloat type .*stay calls", said[0])
    assert code[:4] == b"\x7fELF"  # linked all the same, with the PTX


def test_default_compiles_write_no_nvvm_ir():
    dispatcher = gpu.jit(multiply)
    assert dispatcher._compile_entry(SIG, True, "kernel", "", "sm_90")[4:6] == ("", "")


@pytest.mark.gpu
def test_an_lto_kernel_runs_on_the_gpu():
    kernel = gpu.jit(lto=True)(multiply)
    x = np.arange(1000, dtype=np.float32)
    y = np.full(1000, 0.5, np.float32)
    r = np.zeros_like(x)
    kernel[8, 128](r, x, y)
    np.testing.assert_allclose(r, x * y)
