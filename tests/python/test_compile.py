"""Compiling from Python: source capture, free names, device functions, inspect_*, CompileError.

These need the compiler only; launches go to whichever driver the session uses.
"""

import linecache
import math
import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import gpujit as gpu

GPUJIT_DIR = os.path.dirname(gpu.__file__)
SCALE = 3
SHAPE = (2, 4)


@gpu.jit(device=True)
def twice(x):
    return x * 2


@gpu.jit
def undefined_global(out):
    out[0] = undefined_name + 1  # noqa: F821


@gpu.jit
def uses_globals(out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = twice(out[i]) + SCALE + math.pi + SHAPE[1]


def test_inspect_ptx_compiles_for_a_signature_and_lists_compiled_ones():
    ptx = uses_globals.inspect_ptx("void(float32[::1])")
    assert ".entry" in ptx and ".target sm_" in ptx
    assert uses_globals.inspect_ptx((gpu.float64[:],)).count(".entry") == 1
    every = uses_globals.inspect_ptx()
    assert set(every) == {"(float32[::1])", "(float64[:])"}
    # Keyed by the argument types in any spelling, as kernel.overloads is (numba's tests index with types).
    assert every[(gpu.float32[::1],)] == every["(float32[::1])"] == ptx
    assert uses_globals.inspect_types()[(gpu.float64[:],)] == uses_globals.inspect_types("void(float64[:])")
    assert uses_globals.inspect_asm("void(float32[::1])") == ptx


def test_inspect_llvm_and_types():
    llvm = uses_globals.inspect_llvm("void(float32[::1])")
    assert "define" in llvm
    typed = uses_globals.inspect_types("void(float32[::1])")
    assert "twice" in typed


def test_closure_variables_and_numpy_dtypes_are_captured():
    n = 5
    dt = np.float32

    @gpu.jit
    def k(out):
        out[0] = dt(n) / 2

    out = np.zeros(1, np.float32)
    k[1, 1](out)  # runs on the default backend: the CPU where there is no GPU
    assert out[0] == 2.5


def _frames(tb):
    return [f.filename for f in traceback.extract_tb(tb)]


def test_compile_errors_point_at_the_users_line_with_no_gpujit_frames():
    line = undefined_global.py_func.__code__.co_firstlineno + 2
    with pytest.raises(gpu.CompileError) as e:
        undefined_global.inspect_ptx("void(float32[::1])")
    err = e.value
    assert err.filename == __file__ and err.lineno == line and err.col == 14
    text = str(err)
    assert f"{__file__}:{line}:14: error:" in text
    assert "undefined_name" in text and "^" in text
    assert not [f for f in _frames(e.tb) if f.startswith(GPUJIT_DIR)]


def _caret_under(err, source_line):
    """The column (1-based) of the caret the rendered message puts under `source_line`."""
    rendered = str(err).splitlines()
    caret = rendered[rendered.index(source_line) + 1]
    return caret.index("^") + 1


def test_errors_in_nested_kernels_give_the_files_own_column_and_caret():
    @gpu.jit
    def nested(out):
        out[0] = not_defined_anywhere + 1  # noqa: F821

    line = nested.py_func.__code__.co_firstlineno + 2
    source_line = linecache.getline(__file__, line).rstrip("\n")
    col = source_line.index("not_defined_anywhere") + 1
    with pytest.raises(gpu.CompileError) as e:
        nested.inspect_ptx("void(float32[::1])")
    err = e.value
    assert (err.filename, err.lineno, err.col) == (__file__, line, col)
    assert f"{__file__}:{line}:{col}: error:" in str(err)
    assert _caret_under(err, source_line) == col


class _Holder:
    @staticmethod
    def build():
        @gpu.jit
        def deeper(out):
            out[0] = 1
            out[1] = out  # an array stored into an element

        return deeper


def test_errors_in_kernels_nested_two_levels_deep_point_at_the_file():
    deeper = _Holder.build()
    line = deeper.py_func.__code__.co_firstlineno + 3
    source_line = linecache.getline(__file__, line).rstrip("\n")
    with pytest.raises(gpu.CompileError) as e:
        deeper.inspect_ptx("void(float32[::1])")
    assert e.value.lineno == line
    assert e.value.col == source_line.index("out  #") + 1  # the stored value, 12 spaces in
    assert _caret_under(e.value, source_line) == e.value.col


def test_compile_errors_at_launch_have_no_gpujit_frames():
    @gpu.jit
    def bad(out):
        out[0] = out + 1.5j

    with pytest.raises(gpu.CompileError) as e:
        bad[1, 1](np.zeros(2))
    frames = _frames(e.tb)
    assert frames == [__file__]


def test_eager_signature_errors_show_the_decorator_line_only():
    with pytest.raises(gpu.CompileError) as e:
        @gpu.jit("void(float32[::1])")
        def bad(out):
            out[0] = nope  # noqa: F821

    assert _frames(e.tb) == [__file__]
    assert "out[0] = nope" in linecache.getline(__file__, e.value.lineno)


def test_signature_mistakes_are_type_errors():
    def k(a):
        pass

    with pytest.raises(TypeError, match="invalid signature 'void\\(flot32\\)'"):
        gpu.jit("void(flot32)")(k)
    with pytest.raises(TypeError, match="has 2 parameters but 'k' takes 1"):
        gpu.jit("void(int32, int32)")(k)


def test_functions_without_source_say_why():
    # exec'd source is recovered (test_generated_source.py); a code object
    # that names a file nobody wrote has no source anywhere.
    def k(a):
        pass

    k.__code__ = k.__code__.replace(co_filename="<nowhere>")
    with pytest.raises(TypeError, match="cannot read the source of 'k'"):
        gpu.jit(k).inspect_ptx("void(int64)")


def test_compiling_needs_no_driver(tmp_path):
    script = tmp_path / "k.py"
    script.write_text(textwrap.dedent("""
        import numpy
        import gpujit as cuda

        @cuda.jit
        def k(a):
            a[cuda.grid(1)] = 1.0

        print(len(k.inspect_ptx("void(float32[::1])")) > 0)
        try:
            k[1, 1](numpy.zeros(4, numpy.float32))
        except cuda.CudaSupportError as e:
            print(e)
    """))
    env = dict(os.environ, GPUJIT_CUDA_DRIVER=str(tmp_path / "no-such-libcuda.so"), GPUJIT_DEVICE="cuda")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("no CUDA driver found: could not load")
