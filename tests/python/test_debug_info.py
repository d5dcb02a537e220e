"""debug=True emits DWARF for cuda-gdb: a DISubprogram per kernel and device function with its Python name,
`def` line and parameter types, a DILocalVariable (with llvm.dbg.declare on its slot) for every argument and
Python local, typed as numba names scalars ("int32", "bool" with DW_ATE_boolean) and as gpujit lays out
arrays ({data, shape, strides}), tuples, complex numbers and records. ptxas assembles the PTX. lineinfo=True
keeps to line tables, and without either the IR has no debug metadata at all. The CPU backend runs debug
kernels (bounds checks and raises naming the Python line); the DWARF is NVPTX's alone."""

import inspect
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import gpujit as gpu


def metadata(ir):
    """The IR's metadata lines, `!N = ...`, by N."""
    out = {}
    for line in ir.splitlines():
        m = re.match(r"^(![0-9]+) = (.*)$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def variable(ir, name):
    """The DILocalVariable named `name` (its text), and the text of its type node."""
    md = metadata(ir)
    for node, text in md.items():
        if text.startswith("!DILocalVariable(") and f'name: "{name}"' in text:
            type_ref = re.search(r"type: (![0-9]+)", text).group(1)
            return node, text, md[type_ref]
    raise AssertionError(f"no DILocalVariable {name!r} in\n{ir}")


@gpu.jit(device=True, debug=True, opt=False)
def halve(v):
    half = v / 2.0
    return half


rec = np.dtype([("a", np.int32), ("b", np.float32)])


def kernel_source(out, n, pair, c, r):
    i = gpu.grid(1)
    ok = i < n
    if ok:
        out[i] = halve(c.imag) + pair[1] + r[0].b


SIG = "void(float64[::1], int32, UniTuple(int64, 2), complex128, Record(a[type=int32;offset=0],b[type=float32;offset=4];8;False)[::1])"


def compiled_ir(**options):
    k = gpu.jit(**options)(kernel_source)
    return k.inspect_llvm(SIG)


def test_arguments_and_locals_get_variables_with_their_python_names_and_numbering():
    ir = compiled_ir(debug=True, opt=False)
    for number, name in enumerate(["out", "n", "pair", "c", "r"], start=1):
        _, text, _ = variable(ir, name)
        assert f"arg: {number}," in text
    for name in ["i", "ok"]:
        _, text, _ = variable(ir, name)
        assert "arg:" not in text
    # Each is declared on its slot.
    for name in ["out", "n", "pair", "c", "r", "i", "ok"]:
        node, _, _ = variable(ir, name)
        assert re.search(rf"#dbg_declare\(ptr %[\w.]+, {node}, !DIExpression\(\)", ir), name


def test_scalar_types_carry_numba_names_and_dwarf_encodings():
    ir = compiled_ir(debug=True, opt=False)
    assert variable(ir, "n")[2] == '!DIBasicType(name: "int32", size: 32, encoding: DW_ATE_signed)'
    assert variable(ir, "i")[2] == '!DIBasicType(name: "int64", size: 64, encoding: DW_ATE_signed)'
    assert variable(ir, "ok")[2] == '!DIBasicType(name: "bool", size: 8, encoding: DW_ATE_boolean)'
    assert variable(ir, "half")[2] == '!DIBasicType(name: "float64", size: 64, encoding: DW_ATE_float)'


def test_arrays_tuples_complex_and_records_are_described_as_gpujit_lays_them_out():
    ir = compiled_ir(debug=True, opt=False)
    md = metadata(ir)

    def members(composite):
        elements = md[re.search(r"elements: (![0-9]+)", composite).group(1)]
        return [md[ref] for ref in re.findall(r"![0-9]+", elements)]

    array = variable(ir, "out")[2]
    assert 'name: "float64[::1]"' in array and "size: 192" in array
    names = [re.search(r'name: "(\w+)"', m).group(1) for m in members(array)]
    assert names == ["data", "shape", "strides"]
    data = members(array)[0]
    pointee = md[re.search(r"baseType: (![0-9]+)", data).group(1)]
    assert "DW_TAG_pointer_type" in pointee
    assert 'name: "float64"' in md[re.search(r"baseType: (![0-9]+)", pointee).group(1)]

    pair = variable(ir, "pair")[2]
    assert 'name: "UniTuple(int64, 2)"' in pair and "size: 128" in pair
    assert [re.search(r'name: "(\w+)"', m).group(1) for m in members(pair)] == ["f0", "f1"]

    c = variable(ir, "c")[2]
    assert 'name: "complex128"' in c
    assert [re.search(r'name: "(\w+)"', m).group(1) for m in members(c)] == ["real", "imag"]
    assert "offset: 64" in members(c)[1]

    r = variable(ir, "r")[2]
    element = md[re.search(r"baseType: (![0-9]+)", members(r)[0]).group(1)]
    record = md[re.search(r"baseType: (![0-9]+)", element).group(1)]
    assert "DW_TAG_structure_type" in record and "size: 64" in record
    fields = members(record)
    assert 'name: "a"' in fields[0] and 'name: "b"' in fields[1] and "offset: 32" in fields[1]


def test_each_function_has_a_subprogram_with_its_def_line_and_parameter_types():
    ir = compiled_ir(debug=True, opt=False)
    md = metadata(ir)
    subprograms = {re.search(r'name: "(\w+)"', t).group(1): t for t in md.values() if "!DISubprogram(" in t}
    _, halve_line = inspect.getsourcelines(halve.py_func)
    assert f"line: {halve_line + 1}," in subprograms["halve"]  # the def line, after the decorator
    _, kernel_line = inspect.getsourcelines(kernel_source)  # no decorator: the def line
    assert f"line: {kernel_line}," in subprograms["kernel_source"]
    # The kernel's subroutine type: void, then its five parameters.
    types_ref = md[re.search(r"type: (![0-9]+)", subprograms["kernel_source"]).group(1)]
    elements = md[re.search(r"types: (![0-9]+)", types_ref).group(1)]
    assert elements.startswith("!{null, ") and elements.count("!") == 6
    # The device function's local is scoped to its own subprogram.
    scope = re.search(r"scope: (![0-9]+)", variable(ir, "half")[1]).group(1)
    assert 'name: "halve"' in md[scope]


@gpu.jit(device=True, inline="always")
def twice(v):
    w = v * 2.0
    return w


def test_a_device_function_inlined_before_llvm_keeps_its_lines_and_variables_through_inlined_at():
    @gpu.jit(debug=True, opt=False)
    def k(out, x):
        out[0] = twice(x)

    ir = k.inspect_llvm("void(float64[::1], float64)")
    md = metadata(ir)
    assert not re.search(r"call .*twice", ir)  # inlined
    _, w, _ = variable(ir, "w")
    scope = re.search(r"scope: (![0-9]+)", w).group(1)
    assert 'name: "twice"' in md[scope]
    _, first = inspect.getsourcelines(twice.py_func)
    # The multiplication's line, in twice's scope, inlined at the kernel's call.
    located = [t for t in md.values() if t.startswith(f"!DILocation(line: {first + 2}, column: 5, scope: {scope}, inlinedAt: ")]
    assert located, ir
    at = md[re.search(r"inlinedAt: (![0-9]+)", located[0]).group(1)]
    _, k_first = inspect.getsourcelines(k.py_func)
    assert at.startswith(f"distinct !DILocation(line: {k_first + 2},")


def test_lineinfo_keeps_to_line_tables_and_no_option_emits_no_debug_metadata():
    lines = compiled_ir(lineinfo=True)
    assert "DebugDirectivesOnly" in lines and "!DILocalVariable" not in lines and "#dbg_declare" not in lines
    plain = compiled_ir()
    assert "!DICompileUnit" not in plain and "!dbg" not in plain and "#dbg_" not in plain


def ptxas():
    found = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    return found if Path(found).exists() else None


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (9, 0)])
def test_ptxas_assembles_the_ptx_with_full_debug_info(tmp_path, cc):
    """debug=True compiles at level 0 here; tests/filecheck/debug_variables.py assembles the CLI's --debug -O2
    PTX too (the device function inlined, its lines inlined-at the call)."""
    tool = ptxas()
    if tool is None:
        pytest.skip("ptxas is not installed")
    ptx, _ = gpu.compile_ptx(kernel_source, SIG, debug=True, cc=cc)
    assert ".section .debug_info" in ptx.replace("\t", " ") and ", debug" in ptx
    assert ".debug_pubnames" not in ptx  # label differences there need PTX ISA 7.5
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    arch = f"sm_{cc[0]}{cc[1]}"
    result = subprocess.run([tool, f"-arch={arch}", str(path), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.usefixtures("cpu_backend")
def test_the_cpu_backend_runs_debug_kernels():
    k = gpu.jit(debug=True, opt=False)(kernel_source)
    out = np.zeros(4)
    r = np.zeros(1, dtype=rec)
    r[0]["b"] = 0.5
    k[1, 4](out, 3, (7, 1), 2 + 6j, r)
    np.testing.assert_array_equal(out, [4.5, 4.5, 4.5, 0.0])


@pytest.mark.usefixtures("cpu_backend")
def test_a_raise_in_a_debug_kernel_names_the_python_line():
    @gpu.jit(debug=True, opt=False)
    def check(x):
        if x[0] < 0:
            raise ValueError("negative")  # RAISE

    lines, first = inspect.getsourcelines(check.py_func)
    raise_line = first + next(n for n, t in enumerate(lines) if t.rstrip().endswith("# RAISE"))
    with pytest.raises(ValueError) as info:
        check[1, 1](np.array([-1.0]))
    assert f"line {raise_line}" in str(info.value) or f":{raise_line}" in str(info.value)


def test_config_debuginfo_default_gives_debug_to_decorators_that_leave_it_out(monkeypatch):
    monkeypatch.setattr(gpu.config, "CUDA_DEBUGINFO_DEFAULT", 1)
    assert "!DILocalVariable" in gpu.jit(kernel_source).inspect_llvm(SIG)
    assert "!DICompileUnit" not in gpu.jit(debug=False)(kernel_source).inspect_llvm(SIG)
    monkeypatch.setattr(gpu.config, "CUDA_DEBUGINFO_DEFAULT", 0)
    assert "!DICompileUnit" not in gpu.jit(kernel_source).inspect_llvm(SIG)


def test_dbg_optnone_is_accepted_and_compiles_at_level_zero():
    k = gpu.jit(debug=True, _dbg_optnone=True)(kernel_source)
    assert "!DILocalVariable" in k.inspect_llvm(SIG)
    assert gpu.jit(_dbg_optnone=True)(kernel_source).targetoptions["opt"] == 0


def test_the_compile_unit_names_cxx_and_an_llvm_producer_for_gdb():
    ir = compiled_ir(debug=True, opt=False)
    unit = next(t for t in metadata(ir).values() if "!DICompileUnit(" in t)
    # cuda-gdb evaluates expressions with C++ rules; a producer starting with "clang " makes gdb skip
    # prologues by the line table (gdb's producer_is_llvm), as for numba-cuda's "clang (Numba)".
    assert "language: DW_LANG_C_plus_plus" in unit and 'producer: "clang (gpujit)"' in unit
    assert "emissionKind: FullDebug" in unit and "isOptimized: false" in unit  # debug compiles at level 0


def test_a_grid_group_variable_is_described_as_an_empty_gridgroup_struct(tmp_path):
    def k(x):
        grid = gpu.cg.this_grid()  # noqa: F841
        x[0] = 1

    ir = gpu.jit(debug=True, opt=False)(k).inspect_llvm("void(int32[::1])")
    node, _, grid_type = variable(ir, "grid")
    assert grid_type.startswith('!DICompositeType(tag: DW_TAG_structure_type, name: "GridGroup"'), grid_type
    assert re.search(rf"#dbg_declare\(ptr %grid, {node}, ", ir)
    tool = ptxas()
    if tool is None:
        pytest.skip("ptxas is not installed")
    ptx, _ = gpu.compile_ptx(k, "void(int32[::1])", debug=True, cc=(9, 0))
    (tmp_path / "k.ptx").write_text(ptx)
    result = subprocess.run([tool, "-arch=sm_90", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_ptxas_assembles_debug_ptx_of_in_over_a_tuple(tmp_path):
    def k(inp, outp):
        outp[0] = 1 if inp[0] in (2, 3) else 3

    ir = gpu.jit(debug=True, opt=False)(k).inspect_llvm("void(int32[:], int32[:])")
    assert "!DILocalVariable(name: \"inp\", arg: 1" in ir
    tool = ptxas()
    if tool is None:
        pytest.skip("ptxas is not installed")
    ptx, _ = gpu.compile_ptx(k, "void(int32[:], int32[:])", debug=True, cc=(9, 0))
    (tmp_path / "k.ptx").write_text(ptx)
    result = subprocess.run([tool, "-arch=sm_90", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_debug_for_exec_d_source_warns_that_a_debugger_cannot_open_its_file():
    namespace = {}
    exec("def exec_d(x):\n    x[0] = 1\n", namespace)
    k = gpu.jit(debug=True, opt=False)(namespace["exec_d"])
    with pytest.warns(gpu.DebugInfoWarning, match="Could not find source for function") as record:
        ir = k.inspect_llvm("void(int32[::1])")
    assert str(namespace["exec_d"]) in str(record[0].message)
    assert 'filename: "<string>"' in ir  # the lines are still the exec'd text's
    # Without debug=True nothing is said: only debug info names the file.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", gpu.DebugInfoWarning)
        gpu.jit(namespace["exec_d"]).inspect_llvm("void(int32[::1])")
