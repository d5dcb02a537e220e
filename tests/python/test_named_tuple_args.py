"""collections.namedtuple instances as kernel arguments (numba's NamedTuple and NamedUniTuple).

An instance is passed as the tuple it is, one parameter per element, and typed as a tuple that remembers its
class: the kernel reads its elements by field name (`p.x`) as well as by index, unpacks it, iterates it and
takes len() of it. The class is part of the type, so two classes with the same element types but different
names (or fields) specialize apart, and the type is spelled as numba spells it: "Point(int64 x 2)" when every
element has one type, "Point(int64, float64)" otherwise.
"""

import typing
from collections import namedtuple

import numpy as np
import pytest

import gpujit as gpu

Point = namedtuple("Point", ("x", "y"))
Circle = namedtuple("Circle", ("x", "y", "r"))


class Span(typing.NamedTuple):
    lo: int
    hi: int


@gpu.jit
def read_fields(out, p):
    if gpu.grid(1) == 0:
        out[0] = p.x
        out[1] = p.y
        out[2] = p[0] + 10 * p[1]


def test_fields_by_name_and_index_of_a_namedunituple():
    out = np.zeros(3, np.int64)
    read_fields[1, 1](out, Point(3, 4))
    np.testing.assert_array_equal(out, [3, 4, 43])
    assert read_fields.signatures == ["(int64[::1], Point(int64 x 2))"]


def test_heterogeneous_namedtuple_fields_keep_their_types():
    @gpu.jit
    def area(ints, out, c):
        ints[0] = c.x
        ints[1] = c.y
        out[0] = c.r * c.r

    ints = np.zeros(2, np.int64)
    out = np.zeros(1)
    area[1, 1](ints, out, Circle(1, 2, 1.5))
    np.testing.assert_array_equal(ints, [1, 2])
    assert out[0] == 2.25
    assert area.signatures == ["(int64[::1], float64[::1], Circle(int64, int64, float64))"]
    [typed] = area.inspect_types().values()
    assert "Circle(int64, int64, float64)" in typed


def test_unpacking_len_and_iteration():
    @gpu.jit
    def use(out, c):
        x, y, r = c
        out[0] = x + y + r
        out[1] = len(c)
        s = 0.0
        for v in c:
            s += v
        out[2] = s

    out = np.zeros(3)
    use[1, 1](out, Circle(1.0, 2.0, 4.0))
    np.testing.assert_array_equal(out, [7.0, 3.0, 7.0])


def test_classes_with_the_same_element_types_specialize_apart():
    Other = namedtuple("Other", ("y", "x"))  # fields swapped: o.x is the second element
    Again = namedtuple("Point", ("x", "y"))  # same name and fields, another class object

    @gpu.jit
    def first_x(out, p):
        out[0] = p.x

    out = np.zeros(1, np.int64)
    first_x[1, 1](out, Point(5, 6))
    assert out[0] == 5
    first_x[1, 1](out, Other(5, 6))
    assert out[0] == 6
    first_x[1, 1](out, Again(7, 8))
    assert out[0] == 7
    assert first_x._stats["compiled"] == 3
    # Two of the three specializations share numba's spelling; signatures lists each spelling once.
    assert sorted(first_x.signatures) == ["(int64[::1], Other(int64 x 2))", "(int64[::1], Point(int64 x 2))"]
    with pytest.raises(gpu.CompileError, match=r"'UniTuple\(int64, 2\)' has no attribute 'x'"):
        first_x[1, 1](out, (9, 10))  # a plain tuple has no fields


def test_plain_tuple_and_namedtuple_do_not_share_a_specialization():
    @gpu.jit
    def total(out, t):
        out[0] = t[0] + t[1]

    out = np.zeros(1, np.int64)
    total[1, 1](out, (1, 2))
    total[1, 1](out, Point(3, 4))
    assert out[0] == 7
    total[1, 1](out, Point(5, 6))  # the namedtuple's specialization again
    assert out[0] == 11
    assert total._stats["compiled"] == 2


def test_same_class_with_other_element_types_specializes_apart():
    out = np.zeros(3, np.int64)
    read_fields[1, 1](out, Point(np.int32(1), np.int32(2)))
    np.testing.assert_array_equal(out, [1, 2, 21])
    assert "(int64[::1], Point(int32 x 2))" in read_fields.signatures


def test_typing_namedtuple_nested_tuples_and_arrays():
    @gpu.jit
    def nested(out, t):
        span, scale = t
        for i in range(span.lo, span.hi):
            out.data[i] = i * scale
        out.count[0] = len(span)

    Out = namedtuple("Out", ("data", "count"))
    out = Out(np.zeros(6), np.zeros(1, np.int64))
    nested[1, 1](out, (Span(2, 5), 1.5))
    np.testing.assert_array_equal(out.data, [0, 0, 3.0, 4.5, 6.0, 0])  # copied back, as tuples of arrays are
    assert out.count[0] == 2
    assert nested.signatures == [
        "(Out(float64[::1], int64[::1]), Tuple(Span(int64 x 2), float64))"]


def test_namedtuple_passed_to_a_device_function():
    @gpu.jit(device=True)
    def norm2(p):
        return p.x * p.x + p.y * p.y

    @gpu.jit
    def k(out, p):
        out[0] = norm2(p)

    out = np.zeros(1)
    k[1, 1](out, Point(3.0, 4.0))
    assert out[0] == 25.0


def test_unknown_field_is_a_compile_error_naming_the_fields():
    @gpu.jit
    def k(out, p):
        out[0] = p.z

    with pytest.raises(gpu.CompileError, match=r"'Point\(int64 x 2\)' has no attribute 'z'.*its fields are 'x', 'y'"):
        k[1, 1](np.zeros(1), Point(1, 2))


def test_assigning_a_field_is_a_compile_error():
    @gpu.jit
    def k(p):
        p.x = 3

    with pytest.raises(gpu.CompileError, match=r"cannot assign to attribute 'x' of a Point\(int64 x 2\) value"):
        k[1, 1](Point(1, 2))


def test_calling_a_namedtuple_class_in_a_kernel_is_a_clear_error():
    @gpu.jit
    def k(out):
        p = Point(1, 2)
        out[0] = p.x

    with pytest.raises(gpu.CompileError, match=r"namedtuple class 'Point', which kernels cannot call"):
        k[1, 1](np.zeros(1))
