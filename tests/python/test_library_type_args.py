"""A numba type of a library's own (an Opaque or Dummy subclass made with typeof_impl and register_model) named
in a kernel's signature: a compile-time argument (ir/opaque_type.h). The kernel is specialized on the type,
overload_attribute and overload_method implementations are chosen by it, and the launch passes no parameter
for it (docs/extending.md, "A library's opaque types")."""

import re

import numpy as np
import pytest

import gpujit as gpu
from gpujit.extending import overload_attribute, overload_method

numba_types = pytest.importorskip("numba.core.types")


def _opaque_class(name="Widget"):
    # a class per test, as numba-cuda's make_dummy_type makes one per test: all of one name
    return type(name, (numba_types.Opaque,), {})


def test_an_attribute_of_a_librarys_opaque_type_is_its_overload_attributes():
    Widget = _opaque_class()

    @overload_attribute(Widget, "answer")
    def widget_answer(w):
        def impl(w):
            return 42

        return impl

    def k(out, w):
        out[0] = w.answer

    kernel = gpu.jit(numba_types.void(numba_types.int64[::1], Widget("my_widget")))(k)
    ptx = next(iter(kernel.inspect_asm().values()))
    # the opaque argument has no value: the entry takes the array's parameters alone (data, shape, stride)
    entry = re.search(r"\.entry\s+\S+\(([^)]*)\)", ptx).group(1)
    assert entry.count(".param") == 3, entry


def test_two_opaque_types_of_one_name_specialize_apart():
    First, Second = _opaque_class(), _opaque_class()

    @overload_attribute(First, "code")
    def first_code(w):
        return lambda w: 1

    @overload_attribute(Second, "code")
    def second_code(w):
        return lambda w: 2

    def k(out, w):
        out[0] = w.code

    first = gpu.jit(numba_types.void(numba_types.int64[::1], First("same")))(k)
    second = gpu.jit(numba_types.void(numba_types.int64[::1], Second("same")))(k)
    # each kernel's code stores its own type's constant
    assert re.search(r"st\.global\.(b|u)64\s+\[%rd\d+\], 1;", next(iter(first.inspect_asm().values())))
    assert re.search(r"st\.global\.(b|u)64\s+\[%rd\d+\], 2;", next(iter(second.inspect_asm().values())))


def test_an_opaque_value_passes_to_device_functions_and_methods():
    Gadget = _opaque_class("Gadget")

    @overload_method(Gadget, "scale")
    def gadget_scale(g, x):
        return lambda g, x: x * 3

    @gpu.jit(device=True)
    def use(g, x):
        return g.scale(x) + 1

    def k(out, g):
        out[0] = use(g, 5)

    kernel = gpu.jit(numba_types.void(numba_types.int64[::1], Gadget("gadget")))(k)
    assert re.search(r"st\.global\.(b|u)64\s+\[%rd\d+\], 16;", next(iter(kernel.inspect_asm().values())))


def test_launching_with_a_host_object_of_an_opaque_type_is_a_clear_error():
    Thing = _opaque_class("Thing")

    @overload_attribute(Thing, "one")
    def thing_one(t):
        return lambda t: 1

    def k(out, t):
        out[0] = t.one

    kernel = gpu.jit(numba_types.void(numba_types.int64[::1], Thing("thing")))(k)
    with pytest.raises(TypeError):
        kernel[1, 1](np.zeros(1, np.int64), object())


def test_numbas_own_opaque_types_still_spell_as_before():
    # numba's NumberClass is an Opaque too, of numba's own type modules: a dtype argument, "class(int32)"
    sig = numba_types.void(numba_types.int64[::1], numba_types.NumberClass(numba_types.int32))

    def k(out, dty):
        out[0] = dty(1)

    assert gpu.jit(sig)(k) is not None
