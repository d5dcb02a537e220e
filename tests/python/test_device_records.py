"""Records in device arrays as numba-cuda's DeviceRecord has them: an element of a device array of records is a
record in device memory (a 0-d DeviceArray, `isinstance(x, DeviceRecord)`), whose fields are read and written
in place; fixed-width string fields ('U5', 'S5') are held, copied and read and written by field; numba's
devicearray functions DeviceRecord, from_record_like, from_array_like and auto_device. NumPy is the oracle.
"""

import numpy as np
import pytest

import gpujit as gpu
from gpujit._device_array import DeviceRecord, auto_device, from_array_like, from_record_like

WITH_TEXT = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", "U5"), ("e", "S3")],
                     align=True)
WITH_ARRAY = np.dtype([("g", np.int32), ("h", np.float32, 2)], align=True)
MATRIX = np.dtype([("i", np.int32), ("j", np.float32, (3, 3))])
NESTED = np.dtype([("x", np.int32), ("y", MATRIX)])


def test_indexing_an_array_of_records_gives_a_record_in_device_memory():
    d = gpu.device_array(3, dtype=WITH_ARRAY)
    rec = d[1]
    assert isinstance(rec, DeviceRecord) and isinstance(rec, gpu.DeviceArray)
    assert (rec.shape, rec.strides, rec.dtype, rec.alloc_size) == ((), (), WITH_ARRAY, WITH_ARRAY.itemsize)
    assert not isinstance(d, DeviceRecord) and not isinstance(gpu.device_array(()), DeviceRecord)
    rec["g"] = 7
    rec["h"][1] = 2.5
    rec["h"][0] = -1.0
    host = d.copy_to_host()
    assert host[1]["g"] == 7 and list(host[1]["h"]) == [-1.0, 2.5]
    assert rec["g"] == 7 and rec["h"][1] == 2.5
    with pytest.raises(KeyError, match="no field 'q'; their fields are 'g', 'h'"):
        rec["q"]


def test_string_fields_are_held_and_copied_both_ways():
    d = gpu.device_array(3, dtype=WITH_TEXT)
    assert d.dtype == WITH_TEXT
    for i in range(3):
        x = i + 1
        d[i]["a"] = x / 2
        d[i]["b"] = x
        d[i]["c"] = x * 1j
        d[i]["d"] = str(x) * 5
        d[i]["e"] = b"ab" + bytes([48 + x])
    for i in range(3):
        x = i + 1
        assert (d[i]["a"], d[i]["b"], d[i]["c"]) == (x / 2, x, x * 1j)
        assert d[i]["d"] == str(x) * 5 and d[i]["e"] == b"ab" + bytes([48 + x])
    host = d.copy_to_host()
    assert host.dtype == WITH_TEXT and list(host["d"]) == ["11111", "22222", "33333"]
    host["d"][1] = "xy"
    back = gpu.to_device(host)
    assert back[1]["d"] == "xy"
    np.testing.assert_array_equal(back.copy_to_host(), host)
    d.copy_to_device(host)
    assert d[1]["d"] == "xy"
    cai = d.__cuda_array_interface__
    assert cai["typestr"] == WITH_TEXT.str and cai["descr"] == WITH_TEXT.descr
    with pytest.raises(TypeError, match="holds strings"):
        d["d"]


def test_objects_are_still_refused_in_device_arrays_of_records():
    with pytest.raises(TypeError, match="record field 'o' has dtype dtype\\('O'\\)"):
        gpu.device_array(2, dtype=np.dtype([("o", object)]))
    with pytest.raises(TypeError, match="record field 'o' has dtype dtype\\('O'\\)"):
        gpu.to_device(np.zeros(2, dtype=[("x", np.int32), ("o", object)]))


def test_nested_records_and_matrix_fields_are_views():
    d = gpu.to_device(np.zeros(1, dtype=NESTED))
    d[0]["y"]["i"] = 1
    assert d[0]["y"]["i"] == 1
    d[0]["y"]["j"][0, 0] = 2.0
    assert d[0]["y"]["j"][0, 0] == 2.0
    m = np.arange(9, dtype=np.float32).reshape(3, 3)
    rec = gpu.device_array(1, dtype=MATRIX)[0]
    rec["j"][:] = m
    np.testing.assert_array_equal(rec["j"], m)
    rec["j"] = m.T  # a whole sub-array field at once
    np.testing.assert_array_equal(rec["j"].copy_to_host(), m.T)


def test_a_field_of_an_array_of_records_is_a_strided_view():
    host = np.zeros(4, dtype=WITH_ARRAY)
    host["g"] = [1, 2, 3, 4]
    host["h"] = np.arange(8, dtype=np.float32).reshape(4, 2)
    d = gpu.to_device(host)
    g = d["g"]
    assert (g.shape, g.strides) == (host["g"].shape, host["g"].strides)
    np.testing.assert_array_equal(g.copy_to_host(), host["g"])
    np.testing.assert_array_equal(d["h"].copy_to_host(), host["h"])
    d["g"] = 9
    assert list(d.copy_to_host()["g"]) == [9, 9, 9, 9]


def test_device_record_from_record_like_and_copies_of_record_scalars():
    dtype = np.dtype([("a", np.int32), ("b", np.float32)], align=True)
    for make in (np.zeros, np.recarray):
        zero = make(1, dtype)[0]
        zero["a"], zero["b"] = 0, 0.0
        filled = make(1, dtype)[0]
        filled["a"], filled["b"] = 10, 11.0
        rec = DeviceRecord(dtype)
        assert isinstance(rec, DeviceRecord) and rec.dtype == dtype and rec.gpu_data is not None
        rec.copy_to_device(filled.copy())
        target = zero.copy()
        assert rec.copy_to_host(target) is target  # written into the record scalar itself
        assert (target["a"], target["b"]) == (10, 11.0)
        twin = from_record_like(rec)
        assert twin.dtype == dtype and twin.device_ctypes_pointer.value != rec.device_ctypes_pointer.value
        device, new = auto_device(filled)
        assert new and device.copy_to_host()["a"] == 10
    with pytest.raises(TypeError, match="structured dtype"):
        DeviceRecord(np.float64)
    with pytest.raises(TypeError, match="incompatible dtype"):
        DeviceRecord(dtype).copy_to_host(np.zeros(1, WITH_ARRAY)[0])


def test_auto_device_and_from_array_like():
    d = gpu.to_device(np.arange(3))
    assert auto_device(d) == (d, False)
    made, new = auto_device([1.0, 2.0])
    assert new and list(made.copy_to_host()) == [1.0, 2.0]
    const, _ = auto_device(2)
    assert const.shape == () and const.copy_to_host() == 2
    with pytest.raises(ValueError, match="^Array contains non-contiguous buffer"):
        auto_device(np.arange(10)[::2])
    empty, new = auto_device(np.zeros((2, 3), order="F"), copy=False)
    assert new and empty.is_f_contiguous() and empty.shape == (2, 3)
    like = from_array_like(np.zeros((2, 3), order="F"))
    assert (like.shape, like.strides) == ((2, 3), (8, 16))
