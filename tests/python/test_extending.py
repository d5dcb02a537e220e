"""The extension API (docs/extending.md): @overload, @overload_method, @overload_attribute and @register_jitable,
in gpujit's spelling (gpujit.extending) and numba's (numba.extending, numba.cuda.extending), typed with numba's
type objects; and, in a process without numba, with gpujit's own (gpujit.extending.types)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpujit as gpu
from gpujit.extending import overload, overload_attribute, overload_method, register_jitable

numba = pytest.importorskip("numba")
from numba.core import types  # noqa: E402  what typing functions receive where numba is installed

SEEN = []  # the types typing functions were called with


def scale(x, k):
    """A library function: on the host, plain Python."""
    return x * k


@overload(scale)
def _scale(x, k):
    SEEN.append((x, k))
    if isinstance(x, types.Float) and isinstance(k, types.Integer):
        def impl(x, k):
            return x * k + 0.5  # recognisably this implementation
        return impl
    if isinstance(x, types.Integer) and isinstance(k, types.Integer):
        def impl(x, k):
            return x * k
        return impl
    return None  # any other types: declined


def first_or(a, default):
    pass


@overload(first_or, target="cuda")
def _first_or(a, default):
    if isinstance(a, types.Array) and a.ndim == 1:
        def impl(a, default):
            return a[0] if a.shape[0] > 0 else default
        return impl


@overload(first_or, target="cpu")  # numba's CPU target only: never used in kernels
def _first_or_cpu(a, default):
    raise AssertionError("a 'cpu' overload was asked for a kernel")


def sized(t):
    pass


@overload(sized)
def _sized(t):
    if isinstance(t, types.BaseTuple):
        n = len(t)  # a closure value that differs between the tuple types

        def impl(t):
            return n
        return impl


@register_jitable
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@overload_method(types.Array, "span")
def _array_span(a):
    if a.ndim == 1:
        def impl(a):
            return a[a.shape[0] - 1] - a[0]
        return impl


@overload_method(types.Float, "twice")
def _float_twice(x, plus):
    def impl(x, plus):
        return 2 * x + plus
    return impl


@overload_attribute(types.Array, "last")
def _array_last(a):
    def get(a):
        return a[a.shape[0] - 1]
    return get


@overload_attribute(types.Record, "total")
def _record_total(r):
    if "a" in r.fields and "b" in r.fields:
        def get(r):
            return r.a + r.b
        return get


def combine(a, b, scale):
    pass


@overload(combine)
def _combine(a, b, scale):
    SEEN.append(("combine", a, b, scale))

    def impl(a, b, scale):
        return (a + b) * scale
    return impl


def test_overload_picks_the_implementation_by_argument_types():
    @gpu.jit
    def k(out, x, i):
        out[0] = scale(x, 3)
        out[1] = scale(i, 3)

    out = np.zeros(2)
    k[1, 1](out, 1.5, 4)
    assert out.tolist() == [5.0, 12.0]
    # numba's own type objects, plain (not literal) first: float64, int64, and the int64 constant 3
    assert (types.float64, types.int64) in SEEN and (types.int64, types.int64) in SEEN


def test_keyword_arguments_bind_by_name():
    @gpu.jit
    def k(out, x, i):
        out[0] = combine(x, scale=10.0, b=2.0)
        out[1] = combine(x, i, scale=i)

    out = np.zeros(2)
    k[1, 1](out, 1.5, 2)
    assert out.tolist() == [35.0, 7.0]
    assert ("combine", types.float64, types.float64, types.float64) in SEEN  # the typing function got keywords

    @gpu.jit
    def missing(out, x):
        out[0] = combine(x, 2.0)

    with pytest.raises(gpu.CompileError, match="scale"):
        missing[1, 1](out, 1.0)


def with_defaults(out, x, y=5, z=6):
    pass


@overload(with_defaults)
def _with_defaults(out, x, y=5, z=6):
    def impl(out, x, y=5, z=6):
        out[0] = x + y
        out[1] = z
    return impl


def renamed(a, b):
    pass


@overload(renamed)
def _renamed(a, b):
    def impl(a, c):  # strict (the default): the implementation must take the typing function's parameters
        return a + c
    return impl


def test_keywords_and_default_values_of_implementations():
    @gpu.jit
    def k(out, a, b):
        with_defaults(out, a, z=b)

    out = np.zeros(2, np.int64)
    k[1, 1](out, 1, 2)
    assert out.tolist() == [6, 2]


def test_strict_overload_refuses_an_implementation_with_other_parameters():
    @gpu.jit
    def k(out):
        out[0] = renamed(1, 2)

    with pytest.raises(gpu.CompileError, match="Typing and implementation arguments differ in argument names"):
        k[1, 1](np.zeros(1))


def test_device_function_default_values_are_compile_time_arguments():
    @gpu.jit(device=True)
    def f(x, k=2, s=-1.5, t=(1, 2), flag=True, unused=None):
        if flag:
            return x * k + s + t[1]
        return 0.0

    @gpu.jit
    def k(out, x):
        out[0] = f(x)
        out[1] = f(x, 3)

    out = np.zeros(2)
    k[1, 1](out, 1.0)
    assert out.tolist() == [2.5, 3.5]


def test_kernel_default_value_is_an_error():
    @gpu.jit
    def k(out, x=1):
        out[0] = x

    with pytest.raises(gpu.CompileError, match="default value for parameter 'x' is not supported in kernels"):
        k[1, 1](np.zeros(1), 2)


def test_overload_declining_every_type_is_a_compile_error_naming_the_line_and_types():
    @gpu.jit
    def k(out, c):
        out[0] = scale(c, 2)  # a complex: declined

    with pytest.raises(gpu.CompileError) as info:
        k[1, 1](np.zeros(1, np.complex128), 1j)
    e = info.value
    assert "No implementation of function 'scale'" in str(e) and "scale(complex128, int64)" in str(e)
    assert e.lineno == k.py_func.__code__.co_firstlineno + 2


def test_target_cuda_overload_is_used_and_cpu_overload_is_not():
    @gpu.jit
    def k(out, a):
        out[0] = first_or(a, -1.0)

    out = np.zeros(1)
    k[1, 1](out, np.array([7.0, 8.0]))
    assert out[0] == 7.0
    k[1, 1](out, np.zeros(0))
    assert out[0] == -1.0


def test_each_specialisation_keeps_its_own_closure_values():
    @gpu.jit
    def k(out):
        out[0] = sized((1, 2))
        out[1] = sized((1.0, 2, 3))

    out = np.zeros(2, np.int64)
    k[1, 1](out)
    assert out.tolist() == [2, 3]


def test_register_jitable_function_runs_in_kernels_and_on_the_host():
    @gpu.jit
    def k(out, x):
        out[0] = clamp(x, 0.0, 1.0)

    out = np.zeros(1)
    k[1, 1](out, 3.5)
    assert out[0] == 1.0
    assert clamp(-2, 0, 1) == 0


def test_overload_method_on_arrays_and_scalars():
    @gpu.jit
    def k(out, a, x):
        out[0] = a.span()
        out[1] = x.twice(1.0)

    out = np.zeros(2)
    k[1, 1](out, np.array([1.0, 5.0, 11.0]), np.float32(2.0))
    assert out.tolist() == [10.0, 5.0]


def test_overload_attribute_on_arrays_and_records():
    rec = np.dtype([("a", np.float64), ("b", np.float64)])

    @gpu.jit
    def k(out, a, r):
        out[0] = a.last
        out[1] = r[0].total

    out = np.zeros(2)
    recs = np.array([(1.0, 2.5)], dtype=rec)
    k[1, 1](out, np.array([3.0, 4.0]), recs)
    assert out.tolist() == [4.0, 3.5]


def test_builtin_attributes_win_over_overloads():
    @gpu.jit
    def k(out, a):
        out[0] = a.size  # the array's own, never asked of an overload

    out = np.zeros(1)
    k[1, 1](out, np.zeros(5))
    assert out[0] == 5


def test_typing_function_that_raises_is_reported_at_the_call():
    def boom(x):
        pass

    @overload(boom)
    def _boom(x):
        raise ValueError("bad things")

    @gpu.jit
    def k(out):
        out[0] = boom(1)

    with pytest.raises(gpu.CompileError, match="ValueError: bad things"):
        k[1, 1](np.zeros(1))


def test_numba_decorators_are_read_from_numba_registries():
    from numba.cuda.extending import overload as cuda_overload
    from numba.extending import overload as numba_overload, register_jitable as numba_jitable

    def add_one(x):
        pass

    def add_two(x):
        pass

    @cuda_overload(add_one, target="cuda")
    def _add_one(x):
        return lambda x: x + 1

    @numba_overload(add_two)
    def _add_two(x):
        def impl(x):
            return x + 2
        return impl

    @numba_jitable
    def triple(x):
        return 3 * x

    @gpu.jit
    def k(out):
        out[0] = add_one(1)
        out[1] = add_two(1)
        out[2] = triple(2)

    out = np.zeros(3, np.int64)
    k[1, 1](out)
    assert out.tolist() == [2, 3, 6]


def test_numba_s_own_library_overloads_leave_gpujit_s_builtins_alone():
    # numba registers overloads of its own for operator.add (strings, jitclasses) and friends; read from its
    # registries, they shadowed gpujit's operators: `op(a, b)` with op = operator.add found "no implementation".
    import operator

    import numba.experimental.jitclass.overloads  # noqa: F401  numba's own overloads of operator.add and others
    from gpujit import _overloads

    assert _overloads.function_key(operator.add) is None
    for op in (operator.add, operator.truediv):
        @gpu.jit
        def k(a, b):
            a[0] = op(a[0], b[0])

        a, b = np.full(1, 3.0), np.full(1, 2.0)
        k[1, 1](a, b)
        assert a[0] == op(3.0, 2.0)


def test_intrinsic_whose_typing_declines_is_a_clear_error():
    # Intrinsics that type and lower: tests/python/test_extending_lowlevel.py.
    from gpujit.extending import intrinsic

    @intrinsic
    def my_intrinsic(typingctx, x):
        pass

    @gpu.jit
    def k(out):
        out[0] = my_intrinsic(1)

    with pytest.raises(gpu.CompileError, match="No implementation of function 'my_intrinsic' found for signature: "
                                               r"my_intrinsic\(int64\)|'my_intrinsic' is an @intrinsic: it needs numba"):
        k[1, 1](np.zeros(1))
    with pytest.raises(NotImplementedError):
        my_intrinsic(1)


def test_without_numba_typing_functions_get_gpujits_types(tmp_path):
    program = tmp_path / "lib_program.py"
    program.write_text(textwrap.dedent("""
        import sys
        sys.modules["numba"] = None  # as if numba were not installed
        import numpy as np
        import gpujit as gpu
        from gpujit.extending import overload, overload_method, types

        def norm1(a):
            pass

        @overload(norm1)
        def _norm1(a):
            assert types.__name__ == "gpujit._overload_types"
            if isinstance(a, types.Array) and isinstance(a.dtype, types.Float) and a.ndim == 1:
                def impl(a):
                    s = 0.0
                    for i in range(a.shape[0]):
                        s += abs(a[i])
                    return s
                return impl

        @overload_method(types.Integer, "halve")
        def _halve(n):
            return lambda n: n // 2

        @gpu.jit
        def k(out, a, n):
            out[0] = norm1(a)
            out[1] = n.halve()

        out = np.zeros(2)
        k[1, 1](out, np.array([1.0, -2.0, 3.0]), 9)
        print(out.tolist())
    """))
    r = subprocess.run([sys.executable, str(program)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[6.0, 4.0]"


def test_ptx_of_a_kernel_calling_overloads_compiles():
    def k(out, x, a):
        out[0] = scale(x, 2) + a.span()

    ptx, _ = gpu.compile_ptx(k, "void(float64[::1], float64, float64[::1])")
    assert ".entry" in ptx


def test_bound_method_used_as_a_value_is_an_error():
    @gpu.jit
    def k(out, a):
        f = a.span
        out[0] = 1.0

    with pytest.raises(gpu.CompileError, match="'a.span' is a function; call it"):
        k[1, 1](np.zeros(1), np.zeros(3))


def test_standalone_numba_modules_are_gpujits_extension_api(tmp_path):
    program = tmp_path / "standalone_program.py"
    program.write_text(textwrap.dedent("""
        import sys
        sys.modules["numba"] = None  # numba not installed: the drop-in mode makes its own numba modules
        del sys.modules["numba"]
        import gpujit
        gpujit.install_numba_shim(standalone=True)
        import numpy as np
        from numba import cuda
        from numba.extending import overload, register_jitable
        from numba.cuda.extending import overload_method, types

        @register_jitable
        def sq(x):
            return x * x

        @overload_method(types.Array, "sumsq")
        def _sumsq(a):
            def impl(a):
                s = 0.0
                for i in range(a.shape[0]):
                    s += sq(a[i])
                return s
            return impl

        @cuda.jit
        def k(out, a):
            out[0] = a.sumsq()

        out = np.zeros(1)
        k[1, 1](out, np.array([1.0, 2.0, 3.0]))
        print(out[0])
    """))
    r = subprocess.run([sys.executable, str(program)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "14.0"
