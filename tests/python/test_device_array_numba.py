"""DeviceArray where numba-cuda's own tests (cudadrv) found gpujit behaving otherwise than DeviceNDArray: reshape
and ravel in every order, numba's checks and error texts for copies, shapes that must be integers, empty arrays
whose strides do not matter, `bind`, `getitem`/`setitem` with a stream and when setitem waits, Stream equality,
and `_numba_type_`. NumPy is the oracle for values; numba-cuda's messages are matched where numba's users match
them. Records and their fields are in test_device_records.py.
"""

import importlib.util
import subprocess
import sys
from unittest import mock

import numpy as np
import pytest

import gpujit as gpu


# ---- reshape and ravel ----


@pytest.mark.parametrize("order", ["C", "F", "A"])
def test_reshape_in_each_order_matches_numpy_and_shares_memory(order):
    a = np.arange(24.0)
    d = gpu.to_device(a)
    r = d.reshape(4, 6, order=order)
    np.testing.assert_array_equal(r.copy_to_host(), a.reshape(4, 6, order=order))
    assert r.strides == a.reshape(4, 6, order=order).strides
    f = np.asfortranarray(a.reshape(4, 6))
    back = gpu.to_device(f).reshape((6, 4), order="F")
    np.testing.assert_array_equal(back.copy_to_host(), f.reshape((6, 4), order="F"))
    np.testing.assert_array_equal(d.reshape([2, -1, 3]).copy_to_host(), a.reshape(2, -1, 3))
    r[0, 1] = -1.0  # a view: the write shows in the original
    assert d.copy_to_host()[a.reshape(4, 6, order=order)[0, 1].astype(int)] == -1.0


def test_reshape_of_a_strided_view_where_numpy_needs_no_copy():
    a = np.arange(60.0).reshape(6, 10)
    d = gpu.to_device(a)
    for host, dev, shape in ((a[::2], d[::2], (3, 2, 5)), (a[:, :4], d[:, :4], (6, 2, 2)),
                             (a[1:2, ::3], d[1:2, ::3], (2, 2))):
        np.testing.assert_array_equal(dev.reshape(shape).copy_to_host(), host.reshape(shape))


def test_reshape_that_would_copy_and_bad_shapes_are_refused():
    d = gpu.to_device(np.arange(24.0).reshape(4, 6))
    with pytest.raises(NotImplementedError, match="^reshape would require copy: .* order 'F'"):
        d.reshape(6, 4, order="F")  # NumPy copies here; numba-cuda would reread the memory as F-ordered
    with pytest.raises(NotImplementedError, match="^reshape would require copy"):
        d[:, :4].reshape(16)
    np.testing.assert_array_equal(d[:, ::2].reshape(12).copy_to_host(), np.arange(0.0, 24.0, 2.0))
    with pytest.raises(ValueError, match="^reshape changes the size of the array: 24 elements into shape"):
        d.reshape(5, 5)
    with pytest.raises(ValueError, match="^can only specify one unknown dimension"):
        d.reshape(-1, -1)
    with pytest.raises(ValueError, match="^cannot infer valid shape"):
        d.reshape(-1, 5)
    with pytest.raises(ValueError, match="order not C|F|A"):
        d.reshape(24, order="K")
    with pytest.raises(TypeError, match="integers"):
        d.reshape(2.0, 12)
    with pytest.raises(TypeError, match="unexpected keyword argument 'copy'"):
        d.reshape(24, copy=False)
    assert d[:, ::2].reshape(4, 3).shape == (4, 3)  # its own shape: the same view


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_ravel_of_contiguous_arrays_in_each_order(order):
    c = np.arange(60).reshape(3, 4, 5)
    f = np.asfortranarray(c)
    one_d = np.arange(7)
    for host in (one_d, c, f):
        if (order == "C" and not host.flags.c_contiguous) or (order == "F" and not host.flags.f_contiguous):
            continue
        d = gpu.to_device(host)
        flat = d.ravel(order=order)
        assert flat is not d and flat.ndim == 1
        np.testing.assert_array_equal(flat.copy_to_host(), host.ravel(order=order))


def test_ravel_that_would_copy_is_not_implemented_as_in_numba():
    c = gpu.to_device(np.arange(12).reshape(3, 4))
    with pytest.raises(NotImplementedError, match="^ravel on non-contiguous array"):
        c[::2].ravel()
    with pytest.raises(NotImplementedError, match="^ravel on non-contiguous array"):
        c.ravel(order="F")  # C-ordered memory read in F order: NumPy would copy
    with pytest.raises(NotImplementedError, match="order 'C'"):
        gpu.to_device(np.asfortranarray(np.zeros((3, 4)))).ravel()
    with pytest.raises(ValueError, match="order not C|F|A|K"):
        c.ravel(order="X")
    s = gpu.stream()
    assert c.ravel(stream=s).stream == s


# ---- copies ----


def test_copy_to_device_between_c_and_f_ordered_arrays():
    a_c = np.arange(5 * 5 * 5).reshape(5, 5, 5)
    a_f = np.asfortranarray(a_c)
    for original in (a_c, a_f):
        for source in (a_c, a_f):
            d = gpu.to_device(original)
            d.copy_to_device(source)
            np.testing.assert_array_equal(d.copy_to_host(), a_c)
    d = gpu.to_device(a_c)
    with pytest.raises(ValueError, match=r"^incompatible strides: \(200, 40, 8\) vs. \(8, 40, 200\)$"):
        d.copy_to_device(gpu.to_device(a_f))
    f = gpu.to_device(a_f)
    f.copy_to_device(gpu.to_device(a_f * 2))  # device to device in F order
    np.testing.assert_array_equal(f.copy_to_host(), a_c * 2)


def test_copy_to_device_names_what_differs_in_numbas_words():
    d = gpu.to_device(np.zeros((4, 5)))
    one_span = "^Array contains non-contiguous buffer and cannot be transferred as a single memory region"
    with pytest.raises(ValueError, match=one_span):
        gpu.to_device(np.zeros((5, 5), order="F"))[2].copy_to_device(np.ones(5))
    with pytest.raises(ValueError, match=one_span):
        gpu.to_device(np.zeros(10)).copy_to_device(gpu.to_device(np.zeros(20))[::2])
    with pytest.raises(ValueError, match=r"^incompatible shape: \(4, 5\) vs. \(5, 4\)$"):
        d.copy_to_device(np.zeros((5, 4)))
    with pytest.raises(TypeError, match="^incompatible dtype: float64 vs. int32$"):
        d.copy_to_device(gpu.to_device(np.zeros((4, 5), np.int32)))
    d.copy_to_device(np.ones((1, 4, 1, 5)))  # axes of extent 1 aside, the shapes agree (numba's rule)
    d.copy_to_device(np.arange(20).reshape(4, 5))  # host data is converted to the array's dtype
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(20.0).reshape(4, 5))
    broadcast = gpu.DeviceArray((3, 4), (0, 8), np.float64)
    with pytest.raises(ValueError, match=r"^incompatible shape: \(4,\) vs. \(3, 4\)$"):
        broadcast.copy_to_device(np.zeros((3, 4)))  # a broadcast array's core takes a core of its shape


def test_broadcast_arrays_keep_their_strides_of_zero_and_copy_their_core():
    core = np.arange(6.0).reshape(2, 3)
    cases = ((core[:, None], np.asfortranarray(core * 10)[:, None], (2, 4, 3)),
             (np.asfortranarray(core), core * 10, (5, 2, 3)))
    for base, other_base, shape in cases:
        host = np.broadcast_to(base, shape)
        d = gpu.to_device(host)
        assert d.strides == host.strides and d.alloc_size == core.nbytes  # numba's to_device: the core only
        np.testing.assert_array_equal(d.copy_to_host(), host)
        other = np.broadcast_to(other_base, shape)  # its core in the other order
        d.copy_to_device(other)
        np.testing.assert_array_equal(d.copy_to_host(), other)


def test_empty_arrays_copy_whatever_their_strides():
    device = gpu.DeviceArray(shape=(0,), strides=(8,), dtype=np.int8)
    host = np.ndarray(shape=(0,), strides=(0,), dtype=np.int8)
    device.copy_to_host(host)
    device.copy_to_device(host)
    from_host = gpu.to_device(host)
    assert (from_host.shape, from_host.strides) == ((0,), (0,))  # numba keeps an empty host array's strides
    device.copy_to_device(from_host)
    from_host.copy_to_device(device)


def test_shapes_must_be_integers():
    for shape in (1.23, np.float64(1.5), np.array(1.5), [1.1], (1.1, 2.2), np.array([1.0, 2.0]), "3"):
        with pytest.raises(TypeError, match="an array shape must be an int or a sequence of ints"):
            gpu.device_array(shape=shape)
    assert gpu.device_array(shape=np.array([2, 3])).shape == (2, 3)
    assert gpu.device_array(shape=np.int16(4)).shape == (4,)
    assert gpu.device_array(shape=np.array(5)).shape == (5,)


def test_gpu_data_has_numbas_pointer_attributes():
    d = gpu.to_device(np.arange(4.0))
    address = d.device_ctypes_pointer.value
    memory = d[1:].gpu_data
    assert int(memory.device_pointer) == int(memory.handle) == memory.device_pointer_value == address + 8


def test_asarray_with_copy_false_is_refused_in_numbas_words():
    with pytest.raises(ValueError, match="^`copy=False` is not supported. A copy is always created"):
        np.asarray(gpu.to_device(np.zeros(3)), copy=False)


# ---- streams: bind, getitem, setitem ----


def test_bind_makes_the_array_of_another_stream_and_streams_compare_by_handle():
    s = gpu.stream()
    a = gpu.device_array((3, 3), stream=s)
    assert a.stream == s and a.stream == a.stream and hash(a.stream) == hash(s)
    t = gpu.stream()
    b = a.bind(t)
    assert b is not a and b.stream == t and a.stream == s and b.stream != s
    assert b.device_ctypes_pointer.value == a.device_ctypes_pointer.value
    assert a.bind().stream == 0
    assert gpu.default_stream() == gpu.default_stream()
    assert gpu.to_device(np.zeros(2), stream=gpu.default_stream()).stream == gpu.default_stream()
    assert (s == 5) is False


def test_getitem_with_a_stream():
    d = gpu.to_device(np.arange(10.0))
    s = gpu.stream()
    assert d.getitem(3, stream=s) == 3.0
    view = d.getitem(slice(2, 5), stream=s)
    assert view.stream == s
    np.testing.assert_array_equal(view.copy_to_host(), [2.0, 3.0, 4.0])


def test_setitem_waits_through_stream_synchronize_only_without_a_stream():
    with mock.patch.object(gpu.Stream, "synchronize", return_value=None) as sync:
        d = gpu.to_device(np.arange(5))
        d[0] = 10
        d[::2] = 7  # a strided target too
    assert sync.call_count == 2
    np.testing.assert_array_equal(d.copy_to_host(), [7, 1, 7, 3, 7])
    for stream in (gpu.stream(), gpu.default_stream(), gpu.legacy_default_stream(),
                   gpu.per_thread_default_stream()):
        with mock.patch.object(gpu.Stream, "synchronize", return_value=None) as sync:
            on_stream = gpu.to_device(np.arange(5), stream=stream)
            on_stream[0] = 10
            d.setitem(1, 20, stream=stream)
        sync.assert_not_called()
        stream.synchronize()
        assert on_stream.copy_to_host()[0] == 10 and d.copy_to_host()[1] == 20


# ---- numba's type ----


NUMBA_TYPES = """
import sys
import numpy as np
import gpujit as gpu

a = gpu.to_device(np.zeros(10))
assert "numba" not in sys.modules  # imported on the first read of _numba_type_, not before
from numba.cuda import types
from numba.cuda.np.numpy_support import from_dtype

cases = [
    (a, "C"),
    (gpu.to_device(np.zeros(10, order="F")), "C"),  # both C and F: C
    (gpu.to_device(np.zeros((2, 10), order="F")), "F"),
    (gpu.to_device(np.zeros((5, 5)))[:, 2], "A"),
    (gpu.to_device(np.zeros((5, 5), order="F"))[:, 2], "C"),
    (gpu.to_device(np.zeros((5, 5)))[2, :], "C"),
    (gpu.DeviceArray((10,), (0,), np.int64), "A"),  # broadcast: A whatever the flags say
    (gpu.to_device(np.broadcast_to(np.array([1]), (10,))), "A"),
]
for array, layout in cases:
    t = array._numba_type_
    assert isinstance(t, types.Array), t
    assert (t.layout, t.ndim, str(t.dtype)) == (layout, array.ndim, str(array.dtype)), (t, layout)
assert gpu.to_device(np.zeros((2, 3), np.float32))._numba_type_ == types.Array(types.float32, 2, "C")
text = np.dtype([("a", np.float64), ("d", "U5")], align=True)
assert gpu.device_array(2, dtype=text)[0]._numba_type_ == from_dtype(text)  # a record: numba's Record
assert gpu.device_array(2, dtype=text)._numba_type_.dtype == from_dtype(text)
print("ok")
"""


def test_numba_type_is_numbas_with_numbas_layout():
    if importlib.util.find_spec("numba") is None:  # looked up, not imported: numba stays out of this process
        pytest.skip("numba is not installed")
    proc = subprocess.run([sys.executable, "-c", NUMBA_TYPES], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stdout + proc.stderr
