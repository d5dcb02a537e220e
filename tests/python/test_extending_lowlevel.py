"""numba's low-level extension API in kernels (python/gpujit/_lowlevel.py): @intrinsic, and type_callable with
lower_builtin. The callbacks run with numba-cuda's contexts and emit LLVM IR through llvmlite, which the compiler
links into the kernel; the kernels here run on the CPU backend (and on a GPU where there is one)."""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpujit as gpu
from gpujit import CompileError

numba_cuda = pytest.importorskip("numba.cuda.extending", reason="numba-cuda is not installed")
from llvmlite import ir  # noqa: E402
from numba.cuda import types  # noqa: E402
from numba.cuda.extending import intrinsic, lower_builtin, type_callable  # noqa: E402


@intrinsic
def add_const(typingctx, x):
    def codegen(context, builder, sig, args):
        one = context.get_constant(sig.return_type, 3)
        if isinstance(sig.return_type, types.Float):
            return builder.fadd(args[0], one)
        return builder.add(args[0], one)

    return x(x), codegen


@intrinsic
def as_int32_twice(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.mul(args[0], context.get_constant(types.int32, 2))

    return types.int32(types.int32), codegen  # the argument is converted to int32 at the call


@intrinsic
def nothing(typingctx, x):
    def codegen(context, builder, sig, args):
        pass  # void: no value

    return types.void(x), codegen


@intrinsic
def is_negative(typingctx, x):
    if isinstance(x, types.Float):
        def codegen(context, builder, sig, args):
            return builder.fcmp_ordered("<", args[0], context.get_constant(x, 0))

        return types.boolean(x), codegen
    return None  # declines other types


@intrinsic
def negate_flag(typingctx, b):
    def codegen(context, builder, sig, args):
        return builder.not_(args[0])

    return types.boolean(types.boolean), codegen


@intrinsic
def times_literal(typingctx, x, k):
    if not isinstance(k, types.IntegerLiteral):
        return None  # asks for a constant: typed again with the literal type
    n = k.literal_value

    def codegen(context, builder, sig, args):
        return builder.mul(args[0], context.get_constant(sig.args[0], n))

    return x(x, k), codegen


def scaled(x, k=None):  # a library's host function, implemented below for kernels
    raise NotImplementedError


@type_callable(scaled)
def _type_scaled(context):
    def typer(x, k=None):
        if isinstance(x, types.Float) and isinstance(k, types.Integer):
            return x
        if isinstance(x, types.Float) and k is None:
            return types.int64

    return typer


@lower_builtin(scaled, types.Float, types.Integer)
def _lower_scaled(context, builder, sig, args):
    x, k = args
    k = context.cast(builder, k, sig.args[1], sig.return_type)
    return builder.fmul(x, k)


@lower_builtin(scaled, types.Float)
def _lower_scaled_unary(context, builder, sig, args):
    return context.get_constant(sig.return_type, 42)


def test_intrinsic_with_the_argument_s_type():
    @gpu.jit
    def k(r, x, n):
        r[0] = add_const(x[0])
        r[1] = add_const(n)

        r[2] = times_literal(n, 5)

    r = np.zeros(3)
    k[1, 1](r, np.array([1.5]), 4)
    assert r.tolist() == [4.5, 7.0, 20.0]


def test_intrinsic_signature_converts_the_arguments_and_void_and_bools():
    @gpu.jit
    def k(r, x):
        nothing(x[0])
        r[0] = as_int32_twice(21)
        r[1] = is_negative(x[0])
        r[2] = is_negative(-x[0])
        r[3] = negate_flag(x[0] > 0)

    r = np.zeros(4, dtype=np.int64)
    k[1, 1](r, np.array([2.0]))
    assert r.tolist() == [42, 0, 1, 0]


def test_intrinsic_in_a_device_function():
    @gpu.jit(device=True)
    def dev(v):
        return add_const(v) * 2

    @gpu.jit
    def k(r):
        r[0] = dev(1)

    r = np.zeros(1, dtype=np.int64)
    k[1, 1](r)
    assert r[0] == 8


def test_type_callable_and_lower_builtin():
    @gpu.jit
    def k(r, x):
        r[0] = scaled(x[0], 3)
        r[1] = scaled(x[0])

    r = np.zeros(2)
    k[1, 1](r, np.array([1.5]))
    assert r.tolist() == [4.5, 42.0]


def test_gpujit_s_own_intrinsic_decorator():
    from gpujit.extending import intrinsic as gpujit_intrinsic

    @gpujit_intrinsic
    def sub_one(typingctx, x):
        def codegen(context, builder, sig, args):
            return builder.sub(args[0], ir.Constant(args[0].type, 1))

        return x(x), codegen

    @gpu.jit
    def k(r, n):
        r[0] = sub_one(n)

    r = np.zeros(1, dtype=np.int64)
    k[1, 1](r, 10)
    assert r[0] == 9


def test_declined_types_and_unsupported_types_are_compile_errors():
    @gpu.jit
    def declined(r, n):
        r[0] = is_negative(n)

    with pytest.raises(CompileError, match=r"No implementation of function 'is_negative' found for signature: "
                                           r"is_negative\(int64\)"):
        declined[1, 1](np.zeros(1), 3)

    @intrinsic
    def array_len(typingctx, a):
        def codegen(context, builder, sig, args):
            return context.get_constant(types.intp, 0)

        return types.intp(a), codegen

    @gpu.jit
    def on_array(r):
        r[0] = array_len(r)

    with pytest.raises(CompileError, match=r"parameter 1 is array\(float64, 1d, C\); gpujit's bridge of numba's "
                                           r"lowering .* takes booleans, integers, floats and a library's struct"):
        on_array[1, 1](np.zeros(1))


def test_callback_errors_are_compile_errors():
    @intrinsic
    def forgets(typingctx, x):
        def codegen(context, builder, sig, args):
            pass  # a value was due

        return x(x), codegen

    @gpu.jit
    def k(r):
        r[0] = forgets(1)

    from numba.cuda.errors import LoweringError

    # numba-cuda's error class, as numba-cuda raises it, and a CompileError at the call's line.
    with pytest.raises(LoweringError, match="LoweringError: non-void function returns None from implementation") \
            as info:
        k[1, 1](np.zeros(1))
    assert isinstance(info.value, CompileError) and info.value.lineno == k.py_func.__code__.co_firstlineno + 2

    def with_file(x):
        raise NotImplementedError

    @type_callable(with_file)
    def _type_with_file(context):
        return lambda x: x if isinstance(x, types.Float) else None

    @lower_builtin(with_file, types.Float)
    def _lower_with_file(context, builder, sig, args):
        context.active_code_library.add_linking_file("helpers.cu")
        return args[0]

    @gpu.jit
    def h(r):
        r[0] = with_file(r[0])

    with pytest.raises(CompileError, match=r"the lowering links files of its own \(helpers.cu\), which gpujit's "
                                           r"bridge of numba's lowering does not take"):
        h[1, 1](np.zeros(1))


def halved_root(x):
    raise NotImplementedError


@type_callable(halved_root)
def _type_halved_root(context):
    return lambda x: x if isinstance(x, types.Float) else None


@lower_builtin(halved_root, types.Float)
def _lower_halved_root(context, builder, sig, args):
    def impl(x):  # compiled by numba-cuda, called with numba's calling convention
        return math.sqrt(x) / 2

    return context.compile_internal(builder, impl, sig, args)


def test_compile_internal_links_what_numba_compiled():
    @gpu.jit
    def k(r, x):
        r[0] = halved_root(x[0])
        r[1] = halved_root(x[1]) + math.sqrt(x[1])  # numba's libdevice call and gpujit's own side by side

    r = np.zeros(2)
    k[1, 1](r, np.array([16.0, 4.0]))
    assert r.tolist() == [2.0, 3.0]


def test_ptx_of_a_kernel_calling_an_intrinsic_has_no_external_symbol():
    def k(r, x):
        r[0] = add_const(x[0])

    ptx, _ = gpu.compile_ptx(k, "void(float64[::1], float64[::1])", device=False)
    assert "gpujit_lowlevel" not in ptx  # inlined, not an .extern .func
    assert ".extern" not in ptx


def _run(tmp_path, code):
    full = {k: v for k, v in os.environ.items() if k not in ("GPUJIT_DEVICE", "GPUJIT_BACKEND")}
    full["GPUJIT_DEVICE"] = "cpu"
    program = tmp_path / "prog.py"  # kernels are compiled from their file's text
    program.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=full, timeout=300)


def test_without_numba_an_intrinsic_call_says_it_needs_numba_cuda(tmp_path):
    out = _run(tmp_path, """
        import sys
        sys.modules["numba"] = None  # numba cannot be imported
        import numpy as np
        import gpujit as gpu
        from gpujit.extending import intrinsic

        @intrinsic
        def ident(typingctx, x):
            return x(x), lambda context, builder, sig, args: args[0]

        @gpu.jit
        def k(r):
            r[0] = ident(1)

        try:
            k[1, 1](np.zeros(1))
        except gpu.CompileError as e:
            print("error:", e)
    """)
    assert out.returncode == 0, out.stderr
    assert "'ident' is an @intrinsic: it needs numba-cuda installed" in out.stdout


def test_drop_in_mode_numba_cuda_s_typing_context_and_math_lowering(tmp_path):
    # numba-cuda's typing context installs numba.cuda.bf16's registries (gpujit's module in the drop-in mode),
    # and its math lowering calls numba.cuda.libdevice's stubs (numba's own module there): a lowering that
    # compiles math.sqrt with numba works under the shim too.
    out = _run(tmp_path, """
        import gpujit
        gpujit.install_numba_shim()
        import math
        import numpy as np
        import numba.cuda.target
        from numba import cuda
        from numba.cuda import types
        from numba.cuda.extending import type_callable, lower_builtin

        ctx = numba.cuda.target.CUDATypingContext()
        ctx.refresh()

        def root(x):
            raise NotImplementedError

        @type_callable(root)
        def _type_root(context):
            return lambda x: x if isinstance(x, types.Float) else None

        @lower_builtin(root, types.Float)
        def _lower_root(context, builder, sig, args):
            return context.compile_internal(builder, lambda x: math.sqrt(x), sig, args)

        @cuda.jit
        def k(r, x):
            r[0] = root(x[0])

        r = np.zeros(1)
        k[1, 1](r, np.array([9.0]))
        print("root", r[0])
    """)
    assert out.returncode == 0, out.stderr
    assert "root 3.0" in out.stdout


def test_ir_calling_what_the_cpu_backend_lacks_is_refused_by_name(cpu_backend):
    @intrinsic
    def call_external(typingctx, x):
        def codegen(context, builder, sig, args):
            fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32)])
            fn = ir.Function(builder.module, fnty, "add_cabi_elsewhere")
            return builder.call(fn, args)

        return types.int32(types.int32), codegen

    @gpu.jit
    def k(r):
        r[0] = call_external(1)

    with pytest.raises(CompileError, match="its LLVM IR calls 'add_cabi_elsewhere', which the cpu backend does "
                                           "not have"):
        k[1, 1](np.zeros(1, dtype=np.int32))


# ---------------------------------------------------------------------------------------------------------
# A library's struct type (register_model with a StructModel): made by a lower_builtin, read through
# make_attribute_wrapper and an AttributeTemplate with lower_attr, passed to intrinsics and device functions

from numba.cuda.cudadecl import registry as _cuda_typing_registry  # noqa: E402
from numba.cuda.cudaimpl import lower_attr as _cuda_lower_attr  # noqa: E402
from numba.cuda.extending import core_models, make_attribute_wrapper, register_model  # noqa: E402
from numba.cuda.typing.templates import AttributeTemplate  # noqa: E402


class Tally:  # a library's host class: a running total and a count
    def __init__(self, total, n):
        self.total, self.n = total, n


class TallyType(types.Type):
    def __init__(self):
        super().__init__(name="Tally")


class OtherTallyType(types.Type):  # the same members, another type: its values must not pass for a Tally
    def __init__(self):
        super().__init__(name="OtherTally")


tally_type, other_tally_type = TallyType(), OtherTallyType()


@register_model(TallyType)
@register_model(OtherTallyType)
class _TallyModel(core_models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("total", types.float64), ("n", types.int32)])


make_attribute_wrapper(TallyType, "total", "sum")  # the attribute's name is not the member's
make_attribute_wrapper(TallyType, "n", "n")
make_attribute_wrapper(OtherTallyType, "n", "n")


@type_callable(Tally)
def _type_tally(context):
    def typer(total, n):
        if isinstance(total, types.Float) and isinstance(n, types.Integer):
            return tally_type

    return typer


@lower_builtin(Tally, types.Float, types.Integer)
def _lower_tally(context, builder, sig, args):
    total = context.cast(builder, args[0], sig.args[0], types.float64)
    n = context.cast(builder, args[1], sig.args[1], types.int32)
    from numba.cuda import cgutils

    t = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    t.total, t.n = total, n
    return t._getvalue()


def other_tally(n):
    raise NotImplementedError


@type_callable(other_tally)
def _type_other_tally(context):
    return lambda n: other_tally_type if isinstance(n, types.Integer) else None


@lower_builtin(other_tally, types.Integer)
def _lower_other_tally(context, builder, sig, args):
    n = context.cast(builder, args[0], sig.args[0], types.int32)
    empty = ir.Constant(ir.LiteralStructType([ir.DoubleType(), ir.IntType(32)]), None)
    return builder.insert_value(empty, n, 1)


@_cuda_typing_registry.register_attr
class _TallyAttributes(AttributeTemplate):
    key = TallyType

    def resolve_mean(self, tally):
        return types.float64


@_cuda_lower_attr(TallyType, "mean")
def _lower_tally_mean(context, builder, typ, value):
    total = builder.extract_value(value, 0)
    n = builder.sitofp(builder.extract_value(value, 1), ir.DoubleType())
    return builder.fdiv(total, n)


@intrinsic
def tally_add(typingctx, tally, x):
    """A Tally with x added: a struct argument (its members, as numba passes them) and a struct result."""
    if tally is not tally_type or not isinstance(x, types.Float):
        return None

    def codegen(context, builder, sig, args):
        total = builder.fadd(builder.extract_value(args[0], 0), context.cast(builder, args[1], x, types.float64))
        n = builder.add(builder.extract_value(args[0], 1), ir.Constant(ir.IntType(32), 1))
        return builder.insert_value(builder.insert_value(args[0], total, 0), n, 1)

    return tally_type(tally, x), codegen


def test_struct_type_made_by_lower_builtin_and_its_attributes():
    @gpu.jit
    def k(r, x):
        t = Tally(x[0] + x[1], 2)
        r[0] = t.sum
        r[1] = t.n
        r[2] = t.mean

    r = np.zeros(3)
    k[1, 1](r, np.array([1.5, 4.5]))
    assert r.tolist() == [6.0, 2.0, 3.0]


def test_struct_type_through_intrinsics_and_device_functions():
    @gpu.jit(device=True)
    def add_all(t, x):  # takes and returns a Tally
        for i in range(x.shape[0]):
            t = tally_add(t, x[i])
        return t

    @gpu.jit(device=True)
    def mean_of(t):
        return t.mean

    @gpu.jit
    def k(r, x):
        t = add_all(Tally(0.0, 0), x)
        r[0] = mean_of(t)
        r[1] = t.n

    r = np.zeros(2)
    k[1, 1](r, np.array([1.0, 2.0, 6.0]))
    assert r.tolist() == [3.0, 3.0]


def test_struct_type_with_overload_attribute_and_overload_method():
    from numba.cuda.extending import overload_attribute, overload_method

    @overload_attribute(TallyType, "doubled", target="cuda")
    def _doubled(t):
        return lambda t: t.sum * 2  # a Python implementation, reading the struct through the bridge

    @overload_method(TallyType, "plus", target="cuda")
    def _plus(t, x):
        return lambda t, x: t.sum + x

    @gpu.jit
    def k(r):
        t = Tally(1.5, 2)
        r[0] = t.doubled
        r[1] = t.plus(1.0)

    r = np.zeros(2)
    k[1, 1](r)
    assert r.tolist() == [3.0, 2.5]


def test_struct_types_with_the_same_members_stay_apart():
    @gpu.jit
    def other(r):
        t = other_tally(5)
        r[0] = t.n  # OtherTally has n, as its make_attribute_wrapper says
        r[1] = tally_add(t, 1.0).n  # tally_add declines an OtherTally

    with pytest.raises(CompileError, match=r"No implementation of function 'tally_add'"):
        other[1, 1](np.zeros(2))

    @gpu.jit
    def no_mean(r):
        r[0] = other_tally(5).mean  # resolve_mean is Tally's only

    with pytest.raises(CompileError, match=r"mean"):
        no_mean[1, 1](np.zeros(1))

    @gpu.jit
    def plain_tuple(r):
        t = (1.0, 2)
        r[0] = t.n  # a plain tuple of the same members is no Tally

    with pytest.raises(CompileError):
        plain_tuple[1, 1](np.zeros(1))


class _NestedType(types.Type):
    def __init__(self):
        super().__init__(name="Nested")


@register_model(_NestedType)
class _NestedModel(core_models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("pair", types.UniTuple(types.float64, 2))])


@intrinsic
def make_nested(typingctx, x):
    def codegen(context, builder, sig, args):
        return context.get_constant_undef(sig.return_type)

    return _NestedType()(x), codegen


def test_struct_member_that_is_not_a_scalar_is_refused():
    @gpu.jit
    def k(r):
        make_nested(1.0)

    with pytest.raises(CompileError, match=r"member 'pair' is UniTuple\(float64 x 2\); gpujit's bridge"):
        k[1, 1](np.zeros(1))


class _SignType(types.Type):  # named as Tally is, another class: another type
    def __init__(self):
        super().__init__(name="Tally")


@register_model(_SignType)
class _SignModel(core_models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("positive", types.boolean), ("value", types.int16)])


make_attribute_wrapper(_SignType, "positive", "n")  # Tally's attribute name, another member and type
make_attribute_wrapper(_SignType, "value", "value")


@intrinsic
def sign_of(typingctx, x):
    def codegen(context, builder, sig, args):
        positive = builder.icmp_signed(">", args[0], ir.Constant(args[0].type, 0))
        value = context.cast(builder, args[0], x, types.int16)
        s = context.get_constant_undef(sig.return_type)
        return builder.insert_value(builder.insert_value(s, positive, 0), value, 1)

    return _SignType()(x), codegen


def test_struct_with_a_bool_member_and_a_type_of_another_s_name():
    @gpu.jit
    def k(r, a):
        s = sign_of(a)
        t = Tally(2.0, 7)
        r[0] = s.n
        r[1] = s.value
        r[2] = t.n
        r[3] = sign_of(-a).n

    r = np.zeros(4)
    k[1, 1](r, 5)
    assert r.tolist() == [1.0, 5.0, 7.0, 0.0]
