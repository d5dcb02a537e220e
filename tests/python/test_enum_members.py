"""Enum members in kernels, as numba-cuda has them (ir/enum_type.h): a member is typed by its class and held as
its value; Enum (not only IntEnum) members are arguments, globals, tuple elements and device function results;
`Cls.member`, `Cls['member']`, ==, !=, `is`, `is not` and `.value` work; Python is the oracle.
"""

import enum

import numpy as np
import pytest

import gpujit as cuda


class Color(enum.Enum):
    red = 1
    green = 2
    blue = 3


class Shake(enum.Enum):  # the same value type as Color, and Shake.mint has Color.blue's value
    vanilla = 7
    chocolate = 4
    mint = 3


class Planet(enum.Enum):  # tuple values
    VENUS = (4.869e24, 6.0518e6)
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)


class Shape(enum.IntEnum):
    circle = 2
    square = 500


class Level(enum.IntEnum):
    low = 1
    two = 2
    deux = 2  # an alias of Level.two


def compare(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


PAIRS = [
    (Color.red, Color.red),
    (Color.red, Color.green),
    (Color.blue, Shake.mint),  # equal values, different classes
    (Planet.EARTH, Planet.EARTH),
    (Planet.VENUS, Planet.MARS),
    (Shape.circle, Level.two),  # IntEnums: equal as ints, never `is` each other
    (Level.two, Level.deux),  # an alias is the member itself
    (Shape.square, Shape.circle),
]


@pytest.mark.parametrize("a, b", PAIRS, ids=[f"{a!r}-{b!r}" for a, b in PAIRS])
def test_members_as_arguments_compare_as_in_python(a, b):
    kernel = cuda.jit(compare)
    got = np.zeros(4, np.bool_)
    kernel[1, 1](a, b, got)
    expected = np.zeros(4, np.bool_)
    compare(a, b, expected)
    np.testing.assert_array_equal(got, expected)


def test_the_class_is_part_of_the_specialization():
    @cuda.jit
    def is_blue(a, out):
        out[0] = a == Color.blue
        out[1] = a is Color.blue

    out = np.zeros(2, np.bool_)
    is_blue[1, 1](Color.blue, out)
    assert list(out) == [True, True]
    is_blue[1, 1](Shake.mint, out)  # Color.blue's value and value type, another class: another kernel
    assert list(out) == [False, False]
    is_blue[1, 1](Color.red, out)
    assert list(out) == [False, False]
    assert len(is_blue.signatures) == 2


def test_two_classes_of_one_name_are_two_types():
    def make():
        class Mode(enum.Enum):
            fast = 1
            slow = 2

        return Mode

    first, second = make(), make()

    @cuda.jit
    def same(a, b, out):
        out[0] = a is b
        out[1] = a == b

    out = np.zeros(2, np.bool_)
    same[1, 1](first.fast, first.fast, out)
    assert list(out) == [True, True]
    same[1, 1](first.fast, second.fast, out)
    assert list(out) == [False, False]


def test_class_attribute_and_subscript_are_constants():
    @cuda.jit
    def lookups(out, values):
        out[0] = Color.red == Color.green
        out[1] = Color["red"] == Color["red"]
        out[2] = Color.blue is Color["blue"]
        out[3] = Level.deux is Level.two
        out[4] = Color.red != Shake.vanilla
        values[0] = Color.green.value
        values[1] = Level["deux"].value
        values[2] = Shape.square + 1  # an IntEnum member is an int

    out = np.zeros(5, np.bool_)
    values = np.zeros(3, np.int64)
    lookups[1, 1](out, values)
    assert list(out) == [False, True, True, True, True]
    assert list(values) == [2, 2, 501]


def test_value_of_an_argument():
    @cuda.jit
    def value(a, p, out, radius):
        out[0] = a.value * 10
        mass, r = p.value
        radius[0] = r
        radius[1] = mass / 1e24

    out = np.zeros(1, np.int64)
    radius = np.zeros(2)
    value[1, 1](Color.blue, Planet.MARS, out, radius)
    assert out[0] == 30
    np.testing.assert_allclose(radius, [Planet.MARS.value[1], Planet.MARS.value[0] / 1e24])


def test_a_member_returned_from_a_device_function():
    @cuda.jit(device=True)
    def pick(flag):
        return Color.red if flag else Color.green

    @cuda.jit(device=True)
    def same_member(a, b):
        return a is b

    @cuda.jit
    def kernel(flag, out):
        out[0] = pick(flag) == Color.red
        out[1] = pick(not flag) == Color.green
        out[2] = same_member(pick(flag), Color.green)
        c = pick(flag)
        out[3] = c.value == 1

    out = np.zeros(4, np.bool_)
    kernel[1, 1](True, out)
    assert list(out) == [True, True, False, True]
    kernel[1, 1](False, out)
    assert list(out) == [False, False, True, False]


def test_intenum_members_are_ints_in_arithmetic_and_casts():
    @cuda.jit
    def arith(x, s, out):
        out[0] = x + s
        out[1] = cuda.int16(s) * 2
        out[2] = s > Shape.circle
        out[3] = s == 500
        out[4] = s is Shape.square

    for s in (Shape.circle, Shape.square):
        out = np.zeros(5, np.int64)
        arith[1, 1](7, s, out)
        assert list(out) == [7 + s, 2 * int(s), s > Shape.circle, s == 500, s is Shape.square]


def test_members_in_tuples_and_tuple_globals():
    FAVOURITES = (Color.green, Shake.mint)

    @cuda.jit
    def in_tuples(pair, out):
        out[0] = pair[0] is Color.red
        out[1] = pair[1] is Shake.mint
        out[2] = FAVOURITES[0] == pair[0]
        out[3] = FAVOURITES[1] is pair[1]

    out = np.zeros(4, np.bool_)
    in_tuples[1, 1]((Color.red, Shake.mint), out)
    assert list(out) == [True, True, False, True]
    in_tuples[1, 1]((Color.green, Shake.vanilla), out)
    assert list(out) == [False, False, True, False]


def test_a_member_captured_as_a_global():
    favourite = Planet.EARTH

    @cuda.jit
    def is_home(p, out):
        out[0] = p is favourite
        out[1] = favourite.value[0] > 1e24

    out = np.zeros(2, np.bool_)
    is_home[1, 1](Planet.EARTH, out)
    assert list(out) == [True, True]
    is_home[1, 1](Planet.MARS, out)
    assert list(out) == [False, True]


class Mixed(enum.Enum):
    one = 1
    half = 0.5


class Named(enum.Enum):
    a = "apple"


def test_members_whose_values_kernels_cannot_hold_are_refused_by_name():
    @cuda.jit
    def use_mixed(out):
        out[0] = Mixed.one == Mixed.half

    with pytest.raises(cuda.CompileError, match=r"global 'Mixed' cannot be used in a kernel: the members of Enum "
                                                r"'Mixed' have values of different types \(int64 for 'one', "
                                                r"float64 for 'half'\)"):
        use_mixed[1, 1](np.zeros(1, np.bool_))

    @cuda.jit
    def take(a, out):
        out[0] = a == a

    with pytest.raises(TypeError, match=r"argument 'a' \(position 1\) is a member of an Enum kernels cannot take: "
                                        r"the value 'apple' of member 'a' of Enum 'Named' is not a number"):
        take[1, 1](Named.a, np.zeros(1, np.bool_))


def test_wrong_uses_are_errors_at_their_place():
    @cuda.jit
    def ordered(a, out):
        out[0] = a < Color.green

    with pytest.raises(cuda.CompileError, match=r"'<' not supported between instances of 'Color' and 'Color'") as e:
        ordered[1, 1](Color.red, np.zeros(1, np.bool_))
    assert (e.value.lineno, e.value.col) == (ordered.py_func.__code__.co_firstlineno + 2, 18)

    @cuda.jit
    def name(a, out):
        out[0] = a.name

    with pytest.raises(cuda.CompileError, match=r"'.name' of an Enum member is a string, which kernels do not "
                                                r"hold; compare the member itself \('a == Color.red'\)") as e:
        name[1, 1](Color.red, np.zeros(1, np.bool_))
    assert (e.value.lineno, e.value.col) == (name.py_func.__code__.co_firstlineno + 2, 20)

    @cuda.jit
    def arithmetic(a, out):
        out[0] = a + 1

    with pytest.raises(cuda.CompileError, match=r"EnumMember\(<enum 'Color'>, int64\)"):
        arithmetic[1, 1](Color.red, np.zeros(1, np.int64))

    @cuda.jit
    def typo(out):
        out[0] = Color["yellow"] == Color.red

    with pytest.raises(cuda.CompileError, match=r"'Color' has no member 'yellow'"):
        typo[1, 1](np.zeros(1, np.bool_))
