"""The jit options that change what is compiled or where it is kept: lineinfo, max_registers and cache.

cache=True keeps PTX on disk, so its tests run kernels in fresh processes (a cache hit can only be seen in a
process that did not compile the kernel) on the CUDA backend: the real GPU, or conftest's fake driver, which
loads the PTX and reads its entry's parameters. Host code (the cpu backend) is not cached; inspect_ptx, which
compiles PTX on any backend, is.
"""

import json
import os
import pickle
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpujit as gpu
from conftest import cuda_device_here


# ---------------------------------------------------------------------------------------------------------
# lineinfo


@gpu.jit(lineinfo=True)
def with_lines(a, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] * 2 + 1


@gpu.jit
def without_lines(a, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] * 2 + 1


def test_lineinfo_puts_the_source_file_and_lines_in_the_ptx():
    ptx = with_lines.inspect_ptx("void(float32[::1], float32[::1])")
    files = dict(re.findall(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', ptx, re.M))
    assert any(path.endswith("test_jit_options.py") for path in files.values()), ptx
    here = next(n for n, path in files.items() if path.endswith("test_jit_options.py"))
    lines = {int(line) for line in re.findall(rf"^\s*\.loc\s+{here}\s+(\d+)\s", ptx, re.M)}
    first = with_lines.py_func.__code__.co_firstlineno  # the decorator's line
    assert first + 2 in lines  # i = gpu.grid(1)
    assert first + 4 in lines  # out[i] = a[i] * 2 + 1
    # Line 0 is LLVM's mark for code merged from several lines; every other line is one of the kernel's.
    assert lines - {0} <= set(range(first, first + 5)), lines
    assert ".section .debug_info" not in ptx  # line tables only, as nvcc -lineinfo


def test_without_lineinfo_the_ptx_has_no_line_directives():
    ptx = without_lines.inspect_ptx("void(float32[::1], float32[::1])")
    assert ".loc" not in ptx and ".file" not in ptx


def test_lineinfo_kernels_still_run():
    a = np.arange(16, dtype=np.float32)
    out = np.zeros_like(a)
    with_lines[2, 8](a, out)
    np.testing.assert_array_equal(out, a * 2 + 1)


# ---------------------------------------------------------------------------------------------------------
# max_registers


@gpu.jit(max_registers=32)
def capped(a, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] * a[i]


def test_max_registers_becomes_maxnreg_on_the_entry():
    ptx = capped.inspect_ptx("void(float64[::1], float64[::1])")
    assert re.search(r"\.maxnreg 32\b", ptx), ptx
    assert ".maxnreg" not in without_lines.inspect_ptx("void(float32[::1], float32[::1])")
    assert capped.max_registers == 32


def test_max_registers_kernels_still_run():
    a = np.arange(10.0)
    out = np.zeros_like(a)
    capped[1, 16](a, out)
    np.testing.assert_array_equal(out, a * a)


@pytest.mark.parametrize("value", [0, -4, 256, 10_000])
def test_max_registers_out_of_range_is_refused_at_decoration(value):
    with pytest.raises(ValueError, match=rf"max_registers must be between 1 and 255 registers per thread, not {value}"):
        gpu.jit(max_registers=value)


@pytest.mark.parametrize("value", [32.0, "32", True])
def test_max_registers_must_be_an_int(value):
    with pytest.raises(TypeError, match="max_registers must be an int"):
        gpu.jit(max_registers=value)


def test_max_registers_takes_numpy_ints_and_none():
    assert gpu.jit(max_registers=np.int32(64))(capped.py_func).max_registers == 64
    assert gpu.jit(max_registers=None)(capped.py_func).max_registers is None


# ---------------------------------------------------------------------------------------------------------
# cache

MODULE = """
import gpujit as gpu

SCALE = {scale}


@gpu.jit(device=True)
def shift(x):
    return x + {shift}


@gpu.jit(cache=True)
def scale(a, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = shift(a[i]) * SCALE
"""

# Runs in a fresh process: imports the kernel module from argv[1], compiles it by a launch on the CUDA backend
# ("launch") or by inspect_ptx on any backend ("inspect"), and prints the cache's counters.
CHILD = """
import hashlib, json, sys
import numpy as np
import gpujit as gpu

sys.path.insert(0, sys.argv[1])
import cached_kernels as mod

ptx = ""
if sys.argv[2] == "launch":
    gpu.select_device("cuda")
    a = np.arange(8, dtype=np.float32)
    out = np.zeros_like(a)
    mod.scale[1, 8](a, out)
else:
    ptx = mod.scale.inspect_ptx("void(float32[::1], float32[::1])")
s = mod.scale.stats
print(json.dumps({"hits": sum(s.cache_hits.values()), "misses": sum(s.cache_misses.values()),
                  "path": s.cache_path, "ptx": hashlib.sha256(ptx.encode()).hexdigest()}))
"""



class Project:
    """A folder holding cached_kernels.py, and fresh processes that use it."""

    def __init__(self, root, cache_dir):
        self.root = root
        self.cache_dir = cache_dir
        (root / "child.py").write_text(CHILD)
        self.write()

    def write(self, scale=2.0, shift=1.0):
        (self.root / "cached_kernels.py").write_text(MODULE.format(scale=scale, shift=shift))

    def run(self, mode="launch"):
        env = dict(os.environ)
        env.pop("GPUJIT_CACHE_DIR", None)
        if self.cache_dir is not None:
            env["GPUJIT_CACHE_DIR"] = str(self.cache_dir)
        # No stale bytecode of the rewritten module: the child must read the new source.
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        out = subprocess.run([sys.executable, str(self.root / "child.py"), str(self.root), mode],
                             capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    def entries(self):
        folder = self.cache_dir if self.cache_dir is not None else self.root / "__pycache__"
        return sorted(folder.glob("cached_kernels.scale.*.gpujit"))


@pytest.fixture
def project(tmp_path):
    if not cuda_device_here():
        pytest.skip("no CUDA driver loads here (conftest's fake driver would)")
    root = tmp_path / "project"
    root.mkdir()
    return Project(root, tmp_path / "cache")


def test_a_second_process_hits_the_cache(project):
    first = project.run()
    assert (first["hits"], first["misses"]) == (0, 1)
    assert first["path"] == str(project.cache_dir)
    assert len(project.entries()) == 1
    second = project.run()
    assert (second["hits"], second["misses"]) == (1, 0)
    assert len(project.entries()) == 1


def counters(result):
    return result["hits"], result["misses"]


def test_changing_a_captured_constant_or_the_source_misses(project):
    assert counters(project.run()) == (0, 1)
    project.write(scale=3.0)  # a captured global
    assert counters(project.run()) == (0, 1)
    assert counters(project.run()) == (1, 0)
    project.write(scale=3.0, shift=2.0)  # a device function's text
    assert counters(project.run()) == (0, 1)
    assert len(project.entries()) == 3
    project.write()  # back to the first version: its entry is still there
    assert counters(project.run()) == (1, 0)


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_a_corrupt_entry_is_rebuilt(project, damage):
    project.run()
    [entry] = project.entries()
    data = entry.read_bytes()
    # A torn write and a flipped bit in the PTX (tests/unit/runtime/disk_cache_test.cpp tries every field).
    damaged = data[: len(data) // 2] if damage == "truncate" else data[:-40] + bytes([data[-40] ^ 1]) + data[-39:]
    entry.write_bytes(damaged)
    rebuilt = project.run()
    assert (rebuilt["hits"], rebuilt["misses"]) == (0, 1)
    assert entry.read_bytes() == data  # written again, whole
    assert project.run()["hits"] == 1


def test_inspect_ptx_goes_through_the_cache_on_any_backend(project):
    miss = project.run("inspect")
    hit = project.run("inspect")
    assert (miss["misses"], hit["hits"]) == (1, 1)
    assert hit["ptx"] == miss["ptx"]  # the cached PTX is the compiled one


def test_entries_go_to_pycache_next_to_the_source_by_default(tmp_path):
    if not cuda_device_here():
        pytest.skip("no CUDA driver loads here (conftest's fake driver would)")
    project = Project(tmp_path, None)
    result = project.run()
    assert result["path"] == str(tmp_path / "__pycache__")
    assert len(project.entries()) == 1
    assert project.run()["hits"] == 1


def test_host_code_is_not_cached(tmp_path, monkeypatch):
    # A launch on the cpu backend compiles host code, which the disk cache leaves alone.
    monkeypatch.setenv("GPUJIT_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "host_kernels.py"
    source.write_text(textwrap.dedent("""
        import gpujit as gpu

        @gpu.jit(cache=True)
        def fill(out):
            i = gpu.grid(1)
            if i < out.size:
                out[i] = i
    """))
    code = compile(source.read_text(), str(source), "exec")
    namespace = {}
    exec(code, namespace)
    fill = namespace["fill"]
    previous = gpu._core.backend_name()
    gpu._core._set_backend("cpu")
    try:
        out = np.zeros(5)
        fill[1, 8](out)
    finally:
        gpu._core._set_backend(previous)
    np.testing.assert_array_equal(out, np.arange(5.0))
    assert fill.stats.cache_hits == {} and fill.stats.cache_misses == {}
    assert not list((tmp_path / "cache").glob("*.gpujit"))


def test_stats_without_cache():
    assert capped.stats.cache_path is None
    assert capped.stats.cache_hits == {} and capped.stats.cache_misses == {}


@pytest.mark.parametrize("bounds", [128, (128,), (128, 2), (128, 2, 4)])
def test_launch_bounds_in_numbas_forms_are_accepted(bounds):
    assert gpu.jit(launch_bounds=bounds)(lambda_free_kernel).targetoptions["launch_bounds"] == bounds


def test_launch_bounds_beyond_three_are_refused_at_decoration():
    with pytest.raises(ValueError, match=r"^Got 4 launch bounds: \(128, 2, 4, 8\)\. A maximum of three are supported: "
                                         r"\(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster\)$"):
        gpu.jit("void()", launch_bounds=(128, 2, 4, 8))(lambda_free_kernel)
    with pytest.raises(ValueError, match="launch_bounds must be positive ints"):
        gpu.jit(launch_bounds=(128, 0))(lambda_free_kernel)
    with pytest.raises(TypeError, match="launch_bounds must be an int or a tuple of ints, not str"):
        gpu.jit(launch_bounds="128")(lambda_free_kernel)


def lambda_free_kernel():
    pass


@gpu.jit(launch_bounds=(128, 2))
def bounded(x):
    i = gpu.grid(1)
    if i < x.size:
        x[i] += 1.0


def test_launch_bounds_become_maxntid_and_minnctapersm_on_the_entry():
    ptx = bounded.inspect_ptx("void(float32[::1])")
    assert re.search(r"\.maxntid\s+128,\s+1,\s+1\s*\n", ptx)
    assert re.search(r"\.minnctapersm\s+2\s*\n", ptx) and ".maxclusterrank" not in ptx
    # numba's list form works too (.maxclusterrank needs sm_90: test_compile_ptx checks it).
    listed = gpu.jit(launch_bounds=[64])(bounded.py_func)
    assert re.search(r"\.maxntid\s+64,\s+1,\s+1\s*\n", listed.inspect_ptx("void(float32[::1])"))
    assert ".maxntid" not in without_lines.inspect_ptx("void(float32[::1], float32[::1])")
    # The bounds are a kernel's: a device function compiled with them carries none.
    assert ".maxntid" not in gpu.jit(device=True, launch_bounds=128)(lambda_free_kernel).inspect_ptx(())


def test_launch_bounds_survive_pickling():
    restored = pickle.loads(pickle.dumps(bounded))
    assert re.search(r"\.maxntid\s+128,", restored.inspect_ptx("void(float32[::1])"))


# debug=True: DWARF for cuda-gdb (a .debug_info section and the .loc line table); boundscheck=True is the
# bounds checks alone, lineinfo=True the line table alone.
def test_debug_puts_dwarf_line_tables_in_the_ptx():
    sig = "void(float32[::1], float32[::1])"
    debug = gpu.jit(debug=True, opt=False)(without_lines.py_func).inspect_ptx(sig)
    assert re.search(r"\.section\s+\.debug_info", debug) and re.search(r"\.loc\s+\d+\s+\d+", debug)
    checks_only = gpu.jit(boundscheck=True)(without_lines.py_func).inspect_ptx(sig)
    assert ".debug_info" not in checks_only and not re.search(r"\.loc\s", checks_only)
    lines_only = with_lines.inspect_ptx(sig)
    assert ".debug_info" not in lines_only and re.search(r"\.loc\s", lines_only)
    ptx, _ = gpu.compile_ptx(without_lines.py_func, sig, debug=True, opt=False)
    assert re.search(r"\.section\s+\.debug_info", ptx)


@pytest.mark.parametrize("bounds", [128, (128,), (128, 2)])
def test_a_launch_over_the_launch_bounds_fails_as_the_driver_fails_it(bounds):
    # The CUDA driver refuses a block larger than the kernel's .maxntid; the cpu backend enforces it the same way.
    kernel = gpu.jit(launch_bounds=bounds)(lambda_free_kernel)
    kernel[1, 128]()
    with pytest.raises(gpu.CudaAPIError, match=r"CUDA_ERROR_INVALID_VALUE.*a block of 256 threads is more than this "
                                               r"kernel's limit of 128"):
        kernel[1, (16, 16)]()
    ptx = kernel.inspect_asm(kernel.signatures[0])
    assert re.search(r"\.maxntid 128, 1, 1\n", ptx)
    assert (".minnctapersm 2" in ptx) == (bounds == (128, 2))
    # specialize() and pickling rebuild the dispatcher with the same bounds.
    with pytest.raises(gpu.CudaAPIError, match="CUDA_ERROR_INVALID_VALUE"):
        kernel.specialize()[1, 256]()


# ---------------------------------------------------------------------------------------------------------
# inline and forceinline of device functions


def _caller_of(callee):
    @gpu.jit("void(int32[::1])")
    def call_it(a):
        callee(a)

    return call_it


def _calls(ir):
    return re.findall(r"call \w* @(\S+?)\(", ir)


@pytest.mark.parametrize("inline, inlined", [("always", True), (True, True), ("never", False), (False, False),
                                             (lambda expr, caller, callee: callee.py_func.__name__ == "set_one",
                                              True),
                                             (lambda expr, caller, callee: False, False)])
def test_inline_decides_whether_the_call_reaches_llvm(inline, inlined):
    @gpu.jit(device=True, inline=inline)
    def set_one(a):
        a[0] = 1

    call_it = _caller_of(set_one)
    a = np.zeros(2, np.int32)
    call_it[1, 1](a)
    assert list(a) == [1, 0]
    # inspect_llvm shows the module before LLVM's optimizer, as numba's does: a call unless inlined.
    ir = call_it.inspect_llvm("void(int32[::1])")
    assert any("set_one" in c for c in _calls(ir)) == (not inlined), ir
    assert "alwaysinline" not in ir
    # The PTX is optimized either way: LLVM's inliner takes the small function in.
    assert not re.search(r"\bcall(\.uni)?\s", call_it.inspect_ptx("void(int32[::1])"))


def test_forceinline_marks_the_definition_alwaysinline():
    @gpu.jit(device=True, forceinline=True)
    def set_two(a):
        a[0] = 2

    call_it = _caller_of(set_two)
    ir = call_it.inspect_llvm("void(int32[::1])")
    assert any("set_two" in c for c in _calls(ir))
    (definition,) = [line for line in ir.splitlines() if line.startswith("define") and "set_two" in line]
    assert "alwaysinline" in definition
    (kernel,) = [line for line in ir.splitlines() if line.startswith("define") and "call_it" in line]
    assert "alwaysinline" not in kernel
    a = np.zeros(1, np.int32)
    call_it[1, 1](a)
    assert a[0] == 2


def test_a_cost_model_is_asked_with_the_caller_and_the_callee():
    seen = []

    def cost_model(expr, caller_info, callee_info):
        seen.append((expr, caller_info.py_func.__name__, callee_info.py_func.__name__, callee_info.func_ir))
        return True

    @gpu.jit(device=True, inline=cost_model)
    def set_three(a):
        a[0] = 3

    _caller_of(set_three)
    assert seen == [(None, "call_it", "set_three", None)]


def test_inline_must_be_always_never_or_a_cost_model():
    with pytest.raises(ValueError, match="kwarg 'inline' must be one of the strings 'always' or 'never'"):
        gpu.jit(device=True, inline="sometimes")


# ---------------------------------------------------------------------------------------------------------
# Decorators: Python evaluates them, so the frontend, which reads them with the kernel's source, takes any
# expression Python takes.


def pass_through(kernel):
    return kernel


def test_decorators_outside_the_kernel_grammar_are_accepted():
    options = {"lineinfo": True}
    sigs = ["void(int32[::1])"]

    @pass_through
    @(lambda f: f)
    @gpu.jit(*sigs, **options)
    def eager(a):
        a[0] = 3

    @gpu.jit(
        **{"debug": False,
           "opt": True},
    )
    def lazy(a):
        a[0] = 4

    a = np.zeros(1, np.int32)
    eager[1, 1](a)
    assert a[0] == 3
    lazy[1, 1](a)
    assert a[0] == 4
