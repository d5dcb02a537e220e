"""The binding memoizes what a dtype-like object names (python/src/dtypes.cpp, DtypeMemo): `device_array(n,
np.float32)` read the same attributes and called numpy.dtype on every call. These tests check that what may
be remembered is, and that what can change meaning is read afresh each time."""

import numpy as np
import pytest

import gpujit as gpu
from gpujit import _core


@pytest.mark.parametrize("like", [np.float32, np.dtype(np.int16), "float64", "u1", np.dtype("S7"), gpu.float32])
def test_a_fixed_dtype_like_is_read_once_and_gives_the_same_arrays_after(like):
    expected = np.dtype("float32") if like is gpu.float32 else np.dtype(like)
    first = gpu.device_array(3, like)
    size = _core._dtype_memo_size()
    for _ in range(3):
        again = gpu.device_array(3, like)
        assert again.dtype == expected
    assert first.dtype == expected
    assert _core._dtype_memo_size() == size  # the later calls found it in the memo


def test_each_dtype_like_keeps_its_own_meaning():
    kinds = [np.float32, np.float64, np.int8, np.uint64, np.complex64, np.bool_, "int32", np.dtype("f2")]
    for _ in range(2):
        for k in kinds:
            assert gpu.device_array(2, k).dtype == np.dtype(k)


def test_a_structured_dtype_whose_fields_are_renamed_is_read_again():
    rec = np.dtype([("x", np.float32), ("y", np.int32)])
    a = gpu.device_array(2, rec)
    assert a.dtype.names == ("x", "y")
    rec.names = ("p", "q")  # NumPy renames a structured dtype's fields in place
    b = gpu.device_array(2, rec)
    assert b.dtype.names == ("p", "q")


def test_a_class_whose_dtype_attribute_changes_is_read_again():
    class Holder:
        dtype = np.dtype([("a", np.int32)])

    assert gpu.device_array(1, Holder).dtype.names == ("a",)
    Holder.dtype = np.dtype([("b", np.float64)])
    assert gpu.device_array(1, Holder).dtype.names == ("b",)


def test_a_bad_dtype_is_still_an_error_every_time():
    for _ in range(2):
        with pytest.raises(TypeError, match="not a supported dtype"):
            gpu.device_array(2, "not-a-dtype")
