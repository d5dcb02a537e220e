"""Kernels without a source file of their own: functions made by exec'ing a string, and lambdas.

gpujit compiles from source text. For exec'd code it finds the text among the sources exec'd since gpujit was
imported (python/gpujit/_source.py), checking that it compiles to the function's very code; a lambda is
compiled as the equivalent def on the lambda's line. Results are checked against NumPy on the session's
backend, errors against the user's line and column.
"""

import linecache
import types

import numpy as np
import pytest

import gpujit as gpu


def _run(kernel, *args, n=16):
    kernel[1, n](*args)


def test_a_kernel_defined_by_exec_runs():
    namespace = {"gpu": gpu}
    exec(
        "# a generated kernel\n"
        "@gpu.jit\n"
        "def scaled(out, x):\n"
        "    i = gpu.grid(1)\n"
        "    if i < out.size:\n"
        "        out[i] = 3 * x[i] + 1\n",
        namespace,
    )
    x = np.arange(10, dtype=np.float64)
    out = np.zeros_like(x)
    _run(namespace["scaled"], out, x)
    np.testing.assert_array_equal(out, 3 * x + 1)


def test_strings_exec_d_from_one_template_each_compile_their_own_body():
    # Same file name ("<string>"), function name, lines and bytecode: only the names and constants differ.
    template = (
        "def combine(out, x, y):\n"
        "    i = gpu.grid(1)\n"
        "    if i < out.size:\n"
        "        a = x[i]\n"
        "        b = y[i]\n"
        "        out[i] = {expr}\n"
    )
    exprs = {"a + b": np.add, "a - b": np.subtract, "a * b": np.multiply, "a * b + 2.5": None}
    kernels = {}
    for expr in exprs:
        namespace = {"gpu": gpu}
        exec(template.format(expr=expr), namespace)
        kernels[expr] = gpu.jit(namespace["combine"])
    a = np.linspace(1.0, 2.0, 8)
    b = np.linspace(-3.0, 5.0, 8)
    # Compiled in the reverse order of their exec, after the first one's text went into linecache.
    for expr in reversed(list(exprs)):
        out = np.zeros(8)
        _run(kernels[expr], out, a, b)
        expected = exprs[expr](a, b) if exprs[expr] else a * b + 2.5
        # Each kernel computes its own expression; a GPU contracts a * b + 2.5 into one fma (one rounding).
        np.testing.assert_allclose(out, expected, rtol=1e-15, atol=0, err_msg=expr)


def test_an_exec_d_device_function_called_from_a_file_kernel():
    namespace = {"gpu": gpu}
    exec(compile("@gpu.jit(device=True)\ndef cube(v):\n    return v * v * v\n", "<generated cube>", "exec"),
         namespace)
    cube = namespace["cube"]

    @gpu.jit
    def cubes(out):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = cube(i)

    out = np.zeros(12, dtype=np.int64)
    _run(cubes, out)
    np.testing.assert_array_equal(out, np.arange(12) ** 3)


def test_errors_in_exec_d_code_point_at_its_line():
    text = (
        "n = 4\n"
        "\n"
        "@gpu.jit\n"
        "def broken(out):\n"
        "    i = gpu.grid(1)\n"
        "    out[i] = not_defined_anywhere + n\n"
    )
    namespace = {"gpu": gpu}
    exec(text, namespace)
    with pytest.raises(gpu.CompileError) as e:
        _run(namespace["broken"], np.zeros(4))
    err = e.value
    line = text.splitlines()[5]
    col = line.index("not_defined_anywhere") + 1
    assert (err.filename, err.lineno, err.col) == ("<string>", 6, col)
    assert f"<string>:6:{col}: error:" in str(err)
    assert line in str(err)
    assert linecache.getline("<string>", 6) == line + "\n"  # registered for tracebacks and inspect


def test_lambdas_as_device_functions():
    inc = gpu.jit(device=True)(lambda x: x + 1)
    add, sub = gpu.jit(device=True)(lambda x, y: x + y), gpu.jit(device=True)(lambda x, y: x - y)
    spread = gpu.jit(device=True)(
        lambda a, b: a * 10
        + b
    )

    @gpu.jit
    def use(out, x):
        i = gpu.grid(1)
        if i < out.shape[0]:
            out[i, 0] = inc(x[i])
            out[i, 1] = add(x[i], 2.0)
            out[i, 2] = sub(x[i], 2.0)
            out[i, 3] = spread(x[i], 3.0)

    x = np.linspace(-1.0, 1.0, 9)
    out = np.zeros((9, 4))
    _run(use, out, x)
    np.testing.assert_array_equal(out, np.stack([x + 1, x + 2, x - 2, x * 10 + 3], axis=1))


def test_lambda_kernels():
    nothing = gpu.jit("void()")(lambda: None)
    _run(nothing, n=1)
    counts = gpu.jit(lambda out: gpu.atomic.add(out, 0, 1))  # returns the old value: not a kernel
    with pytest.raises(gpu.CompileError, match="a kernel cannot return a value") as e:
        _run(counts, np.zeros(1))
    assert (e.value.filename, e.value.lineno) == (__file__, counts.py_func.__code__.co_firstlineno)


def test_errors_in_lambdas_point_at_the_users_line_and_column():
    bad = gpu.jit(device=True)(lambda v: v * undefined_here)  # noqa: F821

    @gpu.jit
    def use(out):
        out[0] = bad(2.0)

    with pytest.raises(gpu.CompileError) as e:
        _run(use, np.zeros(1), n=1)
    line = bad.py_func.__code__.co_firstlineno
    col = linecache.getline(__file__, line).index("undefined_here") + 1
    assert (e.value.filename, e.value.lineno, e.value.col) == (__file__, line, col)


def test_a_lambda_in_exec_d_code():
    namespace = {"gpu": gpu}
    exec("half = gpu.jit(device=True)(lambda v: v * 0.5); twice = gpu.jit(device=True)(lambda v: v * 2.0)\n",
         namespace)
    half, twice = namespace["half"], namespace["twice"]

    @gpu.jit
    def use(out, x):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = half(x[i]) + twice(x[i])

    x = np.arange(7, dtype=np.float64)
    out = np.zeros_like(x)
    _run(use, out, x)
    np.testing.assert_array_equal(out, 2.5 * x)


def test_code_with_no_source_anywhere_says_which_file_and_how_to_fix_it():
    namespace = {"gpu": gpu}
    exec("def k(out):\n    out[0] = 1\n", namespace)
    code = namespace["k"].__code__.replace(co_filename="<no such source>")
    kernel = gpu.jit(types.FunctionType(code, namespace))
    with pytest.raises(TypeError) as e:
        _run(kernel, np.zeros(1), n=1)
    message = str(e.value)
    assert "cannot read the source of 'k'" in message and "<no such source>" in message
    assert "define the function in a file" in message


def test_exec_d_sources_kept_are_bounded():
    from gpujit import _source

    for i in range(3 * _source._KEEP_SOURCES):
        exec(f"v = {i}\n", {})
    exec("w = 0\n" + "#" * (_source._MAX_SOURCE_SIZE + 1) + "\n", {})
    kept = list(_source._exec_sources)
    assert len(kept) <= _source._KEEP_SOURCES
    assert all(len(source) <= _source._MAX_SOURCE_SIZE for _, source in kept)
