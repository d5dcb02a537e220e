"""Functions as compile-time arguments (docs/extending.md, "Functions as arguments"; docs/language.md, "Inner
functions"): an inner `def` or a device function passed to an @overload implementation, which is specialised
on it and calls it through its parameter; and the errors where a function would have to be a run-time value."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpujit as gpu
from gpujit.extending import overload, overload_method, register_jitable, types


def apply_to(arg, func):
    return func(arg)


@overload(apply_to)
def _apply_to(arg, func):
    return lambda arg, func: func(arg)


def call_nested(func, *args):
    return func(*args) if len(args) == 1 else func(func(*args))


@overload(call_nested)
def _call_nested(func, *args):
    if len(args) == 1:
        def one(func, *args):
            return func(*args)

        return one

    def two(func, *args):
        return func(func(*args))

    return two


seen = []
G = 1000


def describe(func):
    return 0


@overload(describe)
def _describe(func):
    seen.append(func)
    if isinstance(func, types.Callable):
        return lambda func: 1


@gpu.jit(device=True)
def plus_one(x):
    return x + 1


@register_jitable
def twice(f, x):
    return f(f(x))


@overload_method(types.Array, "first_mapped")
def _first_mapped(a, f):
    return lambda a, f: f(a[0])


def run(kernel, *args, n=1):
    out = np.zeros(n, dtype=np.int64)
    kernel[1, 1](out, *args)
    return list(out)


def test_inner_function_passed_to_an_overload():
    @gpu.jit
    def k(out, x):
        def mul10(v):
            return v * 10 + G  # G: a free name of k, not of the implementation

        out[0] = apply_to(x, mul10)

    assert run(k, 7) == [1070]


def test_inner_function_in_a_device_function_passed_to_an_overload():
    @gpu.jit(device=True)
    def outer(x):
        def mul10(v):
            return v * 10

        return apply_to(x, mul10)

    @gpu.jit
    def k(out, x):
        out[0] = outer(x)

    assert run(k, 3) == [30]


def test_device_function_passed_to_an_overload():
    @gpu.jit
    def k(out, x):
        out[0] = apply_to(x, plus_one)

    assert run(k, 4) == [5]


def test_each_function_specialises_the_implementation_apart():
    @gpu.jit
    def k(out, x):
        y = 10

        def add_y(*z):
            if len(z) == 1:
                t = z[0]
            else:
                t = z[0] + z[1]
            return t + y

        def double(v):
            return 2 * v

        out[0] = call_nested(add_y, x)
        out[1] = call_nested(add_y, x, x)
        out[2] = apply_to(x, double)
        out[3] = apply_to(x, plus_one)

    assert run(k, 5, n=4) == [15, 30, 10, 6]


def test_function_by_keyword_to_a_method_and_to_register_jitable():
    @gpu.jit
    def k(out, x):
        def inc(v):
            return v + 1

        out[0] = apply_to(x, func=inc)
        out[1] = twice(inc, x)
        out[2] = out.first_mapped(inc)

    assert run(k, 3, n=3) == [4, 5, 5]


def test_typing_function_sees_a_callable():
    seen.clear()

    @gpu.jit
    def k(out):
        def f():
            return 0

        out[0] = describe(f)

    assert run(k) == [1]
    assert str(seen[0]) == "function(f)"


def test_without_numba_the_typing_function_sees_gpujits_callable(tmp_path):
    program = tmp_path / "fn_program.py"
    program.write_text(textwrap.dedent("""
        import sys
        sys.modules["numba"] = None  # as if numba were not installed
        import numpy as np
        import gpujit as gpu
        from gpujit.extending import overload, types

        def apply_to(arg, func):
            pass

        @overload(apply_to)
        def _apply_to(arg, func):
            assert types.__name__ == "gpujit._overload_types"
            if isinstance(func, types.Callable) and isinstance(func, types.FunctionValue):
                return lambda arg, func: func(arg)

        @gpu.jit
        def k(out, x):
            def triple(v):
                return 3 * v
            out[0] = apply_to(x, triple)

        out = np.zeros(1, np.int64)
        k[1, 1](out, 5)
        print(out.tolist())
    """))
    r = subprocess.run([sys.executable, str(program)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[15]"


def test_no_implementation_names_the_function_argument():
    def nothing(func):
        return 0

    @overload(nothing)
    def _nothing(func):
        return None

    @gpu.jit
    def k(out):
        def f():
            return 0

        out[0] = nothing(f)

    with pytest.raises(gpu.CompileError, match=r"signature: nothing\(function\(f\)\)"):
        run(k)


def test_function_as_a_run_time_value_is_an_error():
    @gpu.jit
    def stored(out):
        def f():
            return 1

        out[0] = f

    with pytest.raises(gpu.CompileError, match=r"'f' is a function; call it"):
        run(stored)

    @gpu.jit(device=True)
    def returns_function():
        def f():
            return 1

        return f

    @gpu.jit
    def k(out):
        out[0] = returns_function()()

    with pytest.raises(gpu.CompileError, match=r"'f' is a function"):
        run(k)

    @gpu.jit
    def in_tuple(out):
        def f():
            return 1

        t = (f, 1)
        out[0] = t[1]

    with pytest.raises(gpu.CompileError, match=r"'f' is a function"):
        run(in_tuple)


def test_an_argument_error_is_reported_once():
    @gpu.jit
    def k(out, x):
        def inc(v):
            return v + 1

        out[0] = apply_to(x + nosuch, inc)  # noqa: F821

    with pytest.raises(gpu.CompileError) as e:
        run(k, 1)
    assert str(e.value).count("name 'nosuch' is not defined") == 1
