"""numba's low-level extension API in kernels, a library's struct types (python/gpujit/_lowlevel.py): a numba type
registered with a StructModel, made by a lower_builtin, read through make_attribute_wrapper and an AttributeTemplate
with lower_attr, passed to intrinsics and device functions. Apart from test_extending_lowlevel.py because numba-cuda's
cudaimpl, which these need, does not import everywhere: numba-cuda 0.30 with NumPy 2.4 fails on np.row_stack."""


import numpy as np
import pytest

import gpujit as gpu
from gpujit import CompileError

numba_cuda = pytest.importorskip("numba.cuda.extending", reason="numba-cuda is not installed")
try:
    from numba.cuda.cudadecl import registry as _cuda_typing_registry
    from numba.cuda.cudaimpl import lower_attr as _cuda_lower_attr
except AttributeError as e:  # numba-cuda's own import fails against this NumPy
    pytest.skip(f"numba-cuda's cudaimpl does not import here: {e}", allow_module_level=True)
from llvmlite import ir  # noqa: E402
from numba.cuda import types  # noqa: E402
from numba.cuda.extending import (core_models, intrinsic, lower_builtin, make_attribute_wrapper,  # noqa: E402
                                  register_model, type_callable)
from numba.cuda.typing.templates import AttributeTemplate  # noqa: E402

# ---------------------------------------------------------------------------------------------------------
# A library's struct type (register_model with a StructModel): made by a lower_builtin, read through
# make_attribute_wrapper and an AttributeTemplate with lower_attr, passed to intrinsics and device functions



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
