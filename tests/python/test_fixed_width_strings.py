"""Fixed-width strings in kernels (ir/charseq.h): arrays of dtype 'S<n>' and 'U<n>' (host and device), record
fields of those dtypes, and string literals stored into them, copied, compared and measured as numba-cuda and
NumPy do them. NumPy is the oracle.
"""

import numpy as np
import pytest

import gpujit as cuda


def test_str_literals_fill_a_unicode_array():
    @cuda.jit
    def assign(arr):
        i = cuda.grid(1)
        if i < len(arr) - 1:
            arr[i] = "XYZ"

    arr = np.zeros(9, dtype="<U12")
    assign[1, 16](arr)
    expected = np.zeros_like(arr)
    expected[:-1] = "XYZ"
    np.testing.assert_array_equal(arr, expected)


def test_bytes_literals_fill_a_bytes_array_truncated_and_padded():
    @cuda.jit
    def assign(arr):
        i = cuda.grid(1)
        if i < arr.size:
            if i % 2 == 0:
                arr[i] = b"ABCDEFGH"  # longer than the element: truncated, as NumPy stores it
            else:
                arr[i] = b"z"

    arr = np.full(6, b"qqqqq", dtype="S5")  # the rest of a shorter value is NUL-padded
    assign[1, 8](arr)
    expected = np.array([b"ABCDE", b"z"] * 3, dtype="S5")
    np.testing.assert_array_equal(arr, expected)
    assert arr.view(np.uint8).reshape(6, 5)[1].tolist() == [ord("z"), 0, 0, 0, 0]


def test_copies_between_widths_and_non_ascii_text():
    @cuda.jit
    def copy(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = src[i]

    src = np.array(["héllo wörld", "ünï", "", "日本語テキスト"], dtype="<U11")
    for width in (4, 11, 16):
        dst = np.full(src.size, "#" * width, dtype=f"<U{width}")
        copy[1, 4](src, dst)
        expected = np.empty_like(dst)
        expected[:] = src
        np.testing.assert_array_equal(dst, expected)


def test_equality_and_len_as_numpy():
    @cuda.jit
    def check(a, b, eq, ne, lit, lengths):
        i = cuda.grid(1)
        if i < a.size:
            eq[i] = a[i] == b[i]
            ne[i] = a[i] != b[i]
            lit[i] = a[i] == b"ab"
            lengths[i] = len(a[i])

    a = np.array([b"ab", b"abc", b"", b"a\x00c", b"xyz"], dtype="S4")
    b = np.array([b"ab", b"abd", b"", b"a", b"xyz"], dtype="S3")
    eq, ne, lit = (np.zeros(a.size, np.bool_) for _ in range(3))
    lengths = np.zeros(a.size, np.int64)
    check[1, 8](a, b, eq, ne, lit, lengths)
    np.testing.assert_array_equal(eq, a == b)
    np.testing.assert_array_equal(ne, a != b)
    np.testing.assert_array_equal(lit, a == b"ab")
    np.testing.assert_array_equal(lengths, np.char.str_len(a))


def test_literals_and_string_globals_as_values():
    GREETING = "hi"

    @cuda.jit
    def values(out, flags):
        s = "hello"
        out[0] = s
        out[1] = GREETING
        flags[0] = len("abc") == 3
        flags[1] = "abc" == "abc\x00"  # NumPy's equality: trailing NULs do not count
        flags[2] = s != GREETING
        flags[3] = len(s) == 5

    out = np.zeros(2, "<U8")
    flags = np.zeros(4, np.bool_)
    values[1, 1](out, flags)
    assert list(out) == ["hello", "hi"]
    assert flags.all()


def test_device_arrays_of_strings():
    @cuda.jit
    def shout(words):
        i = cuda.grid(1)
        if i < words.size and words[i] == "hi":
            words[i] = "HELLO"

    host = np.array(["hi", "ho", "hi"], dtype="<U6")
    d = cuda.to_device(host)
    shout[1, 4](d)
    np.testing.assert_array_equal(d.copy_to_host(), ["HELLO", "ho", "HELLO"])
    empty = cuda.device_array(2, dtype="S3")
    assert empty.dtype == np.dtype("S3")


def test_string_fields_of_records():
    dt = np.dtype([("x", np.int32), ("y", "<U12"), ("z", "S4")])

    @cuda.jit
    def fill(a):
        a[0]["x"] = 1
        a[0]["y"] = "ABC"
        a[1].x = 2
        a[1].y = "XYZ"
        a[1].z = a[0].z
        a[2]["y"] = a[1]["y"]

    a = np.zeros(3, dt)
    a[0]["z"] = b"data"
    fill[1, 1](a)
    expected = np.array([(1, "ABC", b"data"), (2, "XYZ", b"data"), (0, "XYZ", b"")], dtype=dt)
    np.testing.assert_array_equal(a, expected)


def test_a_string_field_viewed_over_an_array_of_records():
    dt = np.dtype([("n", np.float32), ("tag", "S3")], align=True)

    @cuda.jit
    def tag(a):
        tags = a["tag"]
        i = cuda.grid(1)
        if i < tags.size:
            tags[i] = b"odd" if i % 2 else b"ev"

    a = np.zeros(5, dt)
    tag[1, 8](a)
    np.testing.assert_array_equal(a["tag"], [b"ev", b"odd", b"ev", b"odd", b"ev"])


def test_wrong_uses_are_errors_at_their_place():
    @cuda.jit
    def str_into_bytes(arr):
        arr[0] = "XYZ"

    with pytest.raises(cuda.CompileError, match=r"cannot store a str \(\[unichr x 3\]\) into a bytes element "
                                                r"\(\[char x 5\]\); write a bytes literal \(b'...'\)") as e:
        str_into_bytes[1, 1](np.zeros(2, "S5"))
    assert (e.value.lineno, e.value.col) == (str_into_bytes.py_func.__code__.co_firstlineno + 2, 18)

    @cuda.jit
    def into_numbers(arr):
        arr[0] = "XYZ"

    with pytest.raises(cuda.CompileError, match=r"cannot store a string \(\[unichr x 3\]\) into an element of "
                                                r"type float64"):
        into_numbers[1, 1](np.zeros(2))

    @cuda.jit
    def ordered(a, out):
        out[0] = a[0] < a[1]

    with pytest.raises(cuda.CompileError, match=r"strings are compared with '==' and '!=' in kernels, not '<'"):
        ordered[1, 1](np.zeros(2, "U3"), np.zeros(1, np.bool_))

    @cuda.jit
    def mixed(a, out):
        out[0] = a[0] == "x"

    with pytest.raises(cuda.CompileError, match=r"cannot compare a bytes \(\[char x 3\]\) with a str "
                                                r"\(\[unichr x 1\]\)"):
        mixed[1, 1](np.zeros(2, "S3"), np.zeros(1, np.bool_))


def test_views_of_string_arrays_go_to_device_functions():
    @cuda.jit(device=True)
    def set_first(view, text):
        view[0] = text
        return len(view[0])

    @cuda.jit
    def kernel(a, n):
        n[0] = set_first(a[1:], "QRS")
        n[1] = set_first(a, "T")

    a = np.array(["aa", "bb", "cc"], dtype="<U3")
    n = np.zeros(2, np.int64)
    kernel[1, 1](a, n)
    assert a.tolist() == ["T", "QRS", "cc"] and n.tolist() == [3, 1]
