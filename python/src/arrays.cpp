// DeviceArray, Stream, Event and the memory functions of the gpujit package (see arrays.h).
#include "arrays.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include <pybind11/stl.h>

#include "array_shape.h"
#include "dtypes.h"
#include "runtime/runtime.h"
#include "ufunc_operands.h"

namespace gpujit::py {

PyTypeObject* g_device_array_type = nullptr;

// ---------------------------------------------------------------------------------------------------------
// Host buffers

namespace {

// NumPy exports no buffer for datetime64 and timedelta64 arrays ("cannot include dtype 'M' in a buffer"):
// such an array is read through an int64 view of its memory (which the buffer keeps alive), the unit kept in
// the kind (ir/datetime_types.h). nullopt, with no Python error set, for any other object.
std::optional<ScalarKind> npdatetime_buffer(PyObject* obj, Py_buffer* buf, int flags) {
  if (!PyObject_HasAttrString(obj, "dtype") || !PyObject_HasAttrString(obj, "view")) return std::nullopt;
  pyb::handle h(obj);
  pyb::object dtype = h.attr("dtype");
  if (!pyb::hasattr(dtype, "str")) return std::nullopt;
  std::string typestr = pyb::str(dtype.attr("str")).cast<std::string>();
  if (typestr.size() < 3 || (typestr[1] != 'M' && typestr[1] != 'm')) return std::nullopt;
  std::optional<ScalarKind> kind = kind_from_typestr(typestr);  // not big-endian, not a multiple of a unit
  if (!kind) return std::nullopt;
  pyb::object counts = h.attr("view")("int64");
  if (PyObject_GetBuffer(counts.ptr(), buf, flags) != 0) {
    PyErr_Clear();
    return std::nullopt;
  }
  return kind;
}

}  // namespace

HostBuffer::HostBuffer(PyObject* obj, bool writable) {
  int flags = writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO;
  if (PyObject_GetBuffer(obj, &buf_, flags) != 0) {
    pyb::error_already_set error;
    if (std::optional<ScalarKind> k = npdatetime_buffer(obj, &buf_, flags)) {
      ok_ = true;
      kind_ = *k;
      if (buf_.ndim <= rt::kMaxDims) return;
      throw pyb::type_error("cannot use a host array of " + std::to_string(buf_.ndim) + " dimensions: gpujit "
                            "supports up to " + std::to_string(rt::kMaxDims));
    }
    // ml_dtypes' bfloat16 arrays export no buffer ("cannot include dtype 'E' in a buffer"): say what works.
    pyb::handle h(obj);
    if (PyObject_HasAttrString(obj, "dtype") && pyb::str(h.attr("dtype")).cast<std::string>() == "bfloat16")
      throw pyb::type_error("arrays of bfloat16 cannot be passed to kernels yet; pass float32 (or the bits as "
                            "int16/uint16) and convert in the kernel with bfloat16(x) (or int16_as_bfloat16)");
    throw error;
  }
  ok_ = true;
  if (!read_element_type(obj)) {
    std::string format = buf_.format ? buf_.format : "B";
    throw pyb::type_error("cannot use a host array with element format '" + format + "' and " +
                          std::to_string(buf_.ndim) + " dimensions: gpujit supports booleans, integers, "
                          "floats and complex numbers in native byte order, up to " +
                          std::to_string(rt::kMaxDims) + " dimensions");
  }
}

bool HostBuffer::read_element_type(PyObject* obj) {
  if (buf_.ndim > rt::kMaxDims) return false;
  if (buf_.format && buf_.format[0] == 'T' && buf_.format[1] == '{' && PyObject_HasAttrString(obj, "dtype")) {
    record_ = record_from_numpy(pyb::handle(obj).attr("dtype"));  // throws for an unsupported field
    return record_ && record_->size == uint64_t(buf_.itemsize);
  }
  if (const RecordType* text = string_dtype_from_format(buf_.format)) {  // 'S<n>', 'U<n>': CharSeq elements
    record_ = text;
    return text->size == uint64_t(buf_.itemsize);
  }
  auto kind = kind_from_format(buf_.format);
  if (!kind || scalar_size(*kind) != unsigned(buf_.itemsize)) return false;
  kind_ = *kind;
  return true;
}

HostBuffer::HostBuffer(PyObject* obj, std::nothrow_t) {
  if (!PyObject_CheckBuffer(obj) || PyObject_GetBuffer(obj, &buf_, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    try {
      if (std::optional<ScalarKind> k = npdatetime_buffer(obj, &buf_, PyBUF_RECORDS_RO)) {
        ok_ = true;
        kind_ = *k;
        if (buf_.ndim > rt::kMaxDims) {
          PyBuffer_Release(&buf_);
          ok_ = false;
        }
      }
    } catch (const pyb::error_already_set&) {
      PyErr_Clear();
    }
    return;
  }
  ok_ = true;
  bool usable = false;
  try {
    usable = read_element_type(obj);
  } catch (const pyb::error_already_set&) {
    PyErr_Clear();
  } catch (const pyb::type_error&) {
  }
  if (!usable) {
    PyBuffer_Release(&buf_);
    ok_ = false;
  }
}

HostBuffer::~HostBuffer() {
  if (ok_) PyBuffer_Release(&buf_);
}

rt::ArrayView HostBuffer::view() const {
  rt::ArrayView v;
  v.data = rt::DevicePtr(reinterpret_cast<uintptr_t>(buf_.buf));
  v.dtype = kind_;
  v.record = record_;
  v.ndim = buf_.ndim;
  for (int i = 0; i < v.ndim; ++i) {
    v.shape[i] = buf_.shape[i];
    v.strides[i] = buf_.strides ? buf_.strides[i] : 0;
  }
  if (!buf_.strides) v.set_c_strides();
  return v;
}

// ---------------------------------------------------------------------------------------------------------
// Foreign device arrays

namespace {
/// The interface's attribute name and keys, made once: PyObject_GetAttrString and PyDict_GetItemString make
/// a string object of their text on every call, which a launch of foreign arrays paid seven times per array.
struct InterfaceKeys {
  PyObject* name = PyUnicode_InternFromString("__cuda_array_interface__");
  PyObject* shape = PyUnicode_InternFromString("shape");
  PyObject* typestr = PyUnicode_InternFromString("typestr");
  PyObject* data = PyUnicode_InternFromString("data");
  PyObject* strides = PyUnicode_InternFromString("strides");
  PyObject* mask = PyUnicode_InternFromString("mask");
  PyObject* descr = PyUnicode_InternFromString("descr");
  PyObject* stream = PyUnicode_InternFromString("stream");
};
const InterfaceKeys& interface_keys() {
  static const InterfaceKeys* keys = new InterfaceKeys();  // never released: module-lifetime constants
  return *keys;
}
/// PyDict_GetItem's answer (a borrowed value, or null, no error), without its saving and restoring of the
/// exception state around every lookup (callgrind: about a third of each lookup's cost).
PyObject* dict_item(PyObject* dict, PyObject* key) {
  PyObject* value = PyDict_GetItemWithError(dict, key);
  if (!value && PyErr_Occurred()) PyErr_Clear();  // only a key's own __eq__ can raise: read as absent
  return value;
}
}  // namespace

bool view_from_cuda_array_interface(PyObject* obj, rt::ArrayView* out, std::string* error, uint64_t* stream) {
  const InterfaceKeys& keys = interface_keys();
  PyObject* raw = PyObject_GetAttr(obj, keys.name);
  if (!raw) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw pyb::error_already_set();
    PyErr_Clear();
    *error = "it has no __cuda_array_interface__";
    return false;
  }
  pyb::object cai = pyb::reinterpret_steal<pyb::object>(raw);
  if (!PyDict_Check(raw)) {
    *error = "its __cuda_array_interface__ is not a dict";
    return false;
  }
  PyObject* shape = dict_item(raw, keys.shape);
  PyObject* typestr = dict_item(raw, keys.typestr);
  PyObject* data = dict_item(raw, keys.data);
  PyObject* strides = dict_item(raw, keys.strides);
  PyObject* mask = dict_item(raw, keys.mask);
  if (!shape || !PyTuple_Check(shape) || !typestr || !PyUnicode_Check(typestr) || !data || !PyTuple_Check(data) ||
      PyTuple_GET_SIZE(data) < 1) {
    *error = "its __cuda_array_interface__ lacks shape, typestr or data";
    return false;
  }
  if (mask && mask != Py_None) {
    *error = "masked arrays are not supported";
    return false;
  }
  auto kind = kind_from_typestr(PyUnicode_AsUTF8(typestr));
  PyObject* descr = dict_item(raw, keys.descr);
  if (!kind && (out->record = string_dtype_from_typestr(PyUnicode_AsUTF8(typestr)))) kind = ScalarKind::UInt8;
  if (!kind && descr && PyUnicode_AsUTF8(typestr)[1] == 'V') {
    // A structured element: its fields are in `descr` (NumPy's list of (name, typestr[, shape])).
    out->record = record_from_numpy(numpy().attr("dtype")(pyb::handle(descr), pyb::arg("align") = false));
    if (out->record) kind = ScalarKind::UInt8;
  }
  if (!kind) {
    *error = std::string("its element type '") + PyUnicode_AsUTF8(typestr) + "' is not supported";
    return false;
  }
  Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
  if (ndim > rt::kMaxDims) {
    *error = "it has more than " + std::to_string(rt::kMaxDims) + " dimensions";
    return false;
  }
  out->dtype = *kind;
  out->ndim = int(ndim);
  for (Py_ssize_t i = 0; i < ndim; ++i) out->shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
  if (strides && strides != Py_None) {
    if (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != ndim) {
      *error = "its strides do not match its shape";
      return false;
    }
    for (Py_ssize_t i = 0; i < ndim; ++i) out->strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i));
  } else {
    out->set_c_strides();
  }
  out->data = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
  if (PyErr_Occurred()) throw pyb::error_already_set();
  if (stream) {
    PyObject* s = dict_item(raw, keys.stream);
    *stream = s && s != Py_None ? PyLong_AsUnsignedLongLong(s) : 0;
    if (PyErr_Occurred()) throw pyb::error_already_set();
  }
  return true;
}

void sync_interface_stream(uint64_t stream) {
  if (stream == 0) return;
  // Python code (gpujit._device_array) decides with the config and calls the stream's synchronize method,
  // which a program (or a test) may replace as numba's may be; only foreign arrays that name a stream pay.
  pyb::module_::import("gpujit._device_array").attr("_sync_interface_stream")(stream);
}

// ---------------------------------------------------------------------------------------------------------
// Streams

std::string device_label(const rt::Device& device) {
  return device.properties().name + " (device " + std::to_string(device.ordinal()) + ")";
}

void check_stream_device(const rt::Stream& stream, const rt::Device& device, const char* use) {
  if (&stream.device() == &device || reinterpret_cast<uintptr_t>(stream.handle()) <= 2) return;
  throw pyb::value_error(std::string("the stream was made on ") + device_label(stream.device()) + " but " + use +
                         " is on " + device_label(device) + "; a stream belongs to its device: make one with "
                         "gpu.stream() while that device is current (with gpu.gpus[i]:)");
}

std::shared_ptr<rt::Stream> stream_from_python(pyb::handle obj, rt::Device& device) {
  if (obj.is_none()) return nullptr;
  uint64_t handle = 0;
  if (PyLong_Check(obj.ptr())) {
    handle = PyLong_AsUnsignedLongLong(obj.ptr());
    if (PyErr_Occurred()) throw pyb::error_already_set();
  } else if (pyb::isinstance<PyStream>(obj)) {
    const auto& s = obj.cast<const PyStream&>().stream;
    check_stream_device(*s, device, "the work");
    return s->handle() ? s : nullptr;
  } else if (pyb::hasattr(obj, "__cuda_stream__")) {
    handle = pyb::cast<uint64_t>(obj.attr("__cuda_stream__")()[pyb::int_(1)]);
  } else if (pyb::hasattr(obj, "cuda_stream")) {  // torch.cuda.Stream
    handle = pyb::cast<uint64_t>(obj.attr("cuda_stream"));
  } else if (pyb::hasattr(obj, "ptr")) {  // cupy.cuda.Stream
    handle = pyb::cast<uint64_t>(obj.attr("ptr"));
  } else {
    throw pyb::type_error("stream must be 0, a gpujit stream or another library's CUDA stream, not " +
                          pyb::repr(obj).cast<std::string>());
  }
  if (handle == 0) return nullptr;
  return rt::Stream::borrow(device, reinterpret_cast<rt::StreamHandle>(uintptr_t(handle)));
}

static rt::StreamHandle handle_of(const std::shared_ptr<rt::Stream>& s) { return s ? s->handle() : nullptr; }

/// The stream an array made with `stream=obj` keeps (PyDeviceArray::stream): as stream_from_python, except that
/// a Stream object of a default stream is kept rather than read as none.
static std::shared_ptr<rt::Stream> array_stream_from_python(pyb::handle obj, rt::Device& device) {
  if (pyb::isinstance<PyStream>(obj)) {
    const auto& s = obj.cast<const PyStream&>().stream;
    check_stream_device(*s, device, "the array");
    return s;
  }
  return stream_from_python(obj, device);
}

/// A view's shape (or byte strides) as a Python tuple.
static pyb::tuple shape_tuple(const rt::ArrayView& v) {
  pyb::tuple t(v.ndim);
  for (int i = 0; i < v.ndim; ++i) t[size_t(i)] = pyb::int_(v.shape[i]);
  return t;
}
static pyb::tuple strides_tuple(const rt::ArrayView& v) {
  pyb::tuple t(v.ndim);
  for (int i = 0; i < v.ndim; ++i) t[size_t(i)] = pyb::int_(v.strides[i]);
  return t;
}

/// A NumPy view of host bytes `raw` laid out as the device view `v`, whose lowest byte is at raw[0].
static pyb::object host_window(const rt::ArrayView& v, const pyb::object& raw, int64_t lo) {
  return numpy().attr("ndarray")(shape_tuple(v), numpy_dtype_of(v), pyb::arg("buffer") = raw,
                                 pyb::arg("offset") = -lo, pyb::arg("strides") = strides_tuple(v));
}

// ---------------------------------------------------------------------------------------------------------
// Device arrays

pyb::object wrap_device_array(rt::ArrayView view, std::shared_ptr<rt::Stream> stream) {
  return pyb::cast(PyDeviceArray{std::move(view), std::move(stream)});
}

/// An int (anything with __index__: NumPy's integers and 0-d integer arrays too) as int64; TypeError otherwise.
static int64_t dimension_from_python(pyb::handle d) {
  PyObject* index = PyNumber_Index(d.ptr());
  if (!index) {
    PyErr_Clear();
    throw pyb::type_error("an array shape must be an int or a sequence of ints, not " +
                          pyb::repr(d).cast<std::string>() + " (" + Py_TYPE(d.ptr())->tp_name + ")");
  }
  return pyb::reinterpret_steal<pyb::int_>(index).cast<int64_t>();
}

static std::vector<int64_t> shape_from_python(pyb::handle shape) {
  std::vector<int64_t> out;
  PyObject* it = PyLong_Check(shape.ptr()) ? nullptr : PyObject_GetIter(shape.ptr());
  if (!it) {  // one extent (an int, a NumPy integer or 0-d integer array), or a TypeError naming the object
    PyErr_Clear();
    out.push_back(dimension_from_python(shape));
  } else {
    Py_DECREF(it);
    for (pyb::handle d : shape) out.push_back(dimension_from_python(d));
  }
  if (out.size() > size_t(rt::kMaxDims)) {
    throw pyb::value_error("arrays have at most " + std::to_string(rt::kMaxDims) + " dimensions");
  }
  for (int64_t d : out) {
    if (d < 0) throw pyb::value_error("negative dimensions are not allowed");
  }
  return out;
}

/// A new, uninitialized device array on the current device.
static PyDeviceArray allocate_array(const std::vector<int64_t>& shape, ElementType dtype, bool fortran,
                                    std::shared_ptr<rt::Stream> stream) {
  rt::Device& device = rt::Runtime::get().current_device();
  PyDeviceArray a;
  a.view.dtype = dtype.kind;
  a.view.record = dtype.record;
  a.view.ndim = int(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) a.view.shape[i] = shape[i];
  a.view.set_c_strides();
  if (fortran) {
    int64_t stride = a.view.itemsize();
    for (int i = 0; i < a.view.ndim; ++i) {
      a.view.strides[i] = stride;
      stride *= shape[size_t(i)] > 0 ? shape[size_t(i)] : 1;
    }
  }
  auto buffer = rt::DeviceBuffer::make(device, size_t(a.view.nbytes()), stream);
  a.view.data = buffer->ptr();
  a.view.device = &device;
  a.view.owner = buffer;
  a.stream = std::move(stream);
  return a;
}

// numba's text for a copy that is not one span of memory (devicearray.errmsg_contiguous_buffer), which
// numba-cuda's users and tests match.
static const char kNotOneSpan[] =
    "Array contains non-contiguous buffer and cannot be transferred as a single memory region. Please ensure "
    "contiguous buffer with numpy .ascontiguousarray()";

/// numba's array_core: the view without its axes of stride 0 (a broadcast array's repeated axes).
static rt::ArrayView array_core(const rt::ArrayView& v) {
  if (v.size() == 0) return v;
  rt::ArrayView core = v;
  core.ndim = 0;
  for (int i = 0; i < v.ndim; ++i) {
    if (v.strides[i] == 0) continue;
    core.shape[core.ndim] = v.shape[i];
    core.strides[core.ndim] = v.strides[i];
    ++core.ndim;
  }
  return core;
}

/// ValueError (numba's text) unless the array's core is one contiguous span, in C or F order.
static void require_one_span(const rt::ArrayView& v) {
  rt::ArrayView core = array_core(v);
  if (!core.is_c_contiguous() && !core.is_f_contiguous()) throw pyb::value_error(kNotOneSpan);
}

/// numba's check_array_compatibility: the same dtype, and with the axes of extent 1 left out, the same shape
/// and (for a non-empty array) the same strides; its messages name the arrays' full shapes and strides.
static void check_compatible(const rt::ArrayView& a, const rt::ArrayView& b) {
  if (!a.same_dtype(b)) {
    throw pyb::type_error("incompatible dtype: " + pyb::str(numpy_dtype_of(a)).cast<std::string>() + " vs. " +
                          pyb::str(numpy_dtype_of(b)).cast<std::string>());
  }
  auto squeezed = [](const rt::ArrayView& v, const int64_t* values) {
    std::vector<int64_t> out;
    for (int i = 0; i < v.ndim; ++i) {
      if (v.shape[i] != 1) out.push_back(values[i]);
    }
    return out;
  };
  auto text = [](const pyb::tuple& t) { return pyb::repr(t).cast<std::string>(); };
  if (squeezed(a, a.shape) != squeezed(b, b.shape)) {
    throw pyb::value_error("incompatible shape: " + text(shape_tuple(a)) + " vs. " + text(shape_tuple(b)));
  }
  if (a.size() && squeezed(a, a.strides) != squeezed(b, b.strides)) {
    throw pyb::value_error("incompatible strides: " + text(strides_tuple(a)) + " vs. " +
                           text(strides_tuple(b)));
  }
}

pyb::object host_to_device(PyObject* host, std::shared_ptr<rt::Stream> stream) {
  pyb::object holder = pyb::reinterpret_borrow<pyb::object>(host);
  HostBuffer probe(host, std::nothrow);
  rt::ArrayView hv;
  bool contiguous = false;
  if (probe.ok()) {
    hv = probe.view();
    contiguous = hv.is_c_contiguous() || hv.is_f_contiguous();
  }
  if (!contiguous && probe.ok() && hv.size() > 0) {
    // A broadcast array (numba's to_device keeps it so): its core, the array without its axes of stride 0,
    // is copied, and the device array repeats it with the same strides of 0.
    rt::ArrayView core = array_core(hv);
    bool core_f = !core.is_c_contiguous() && core.is_f_contiguous();
    if (core.ndim < hv.ndim && (core.is_c_contiguous() || core_f)) {
      std::vector<int64_t> core_shape(core.shape, core.shape + core.ndim);
      PyDeviceArray a = allocate_array(core_shape, ElementType{hv.dtype, hv.record}, core_f, stream);
      blocking_call(*a.view.device, size_t(a.view.nbytes()), [&] {
        a.view.device->copy_to_device(a.view.data, probe.buffer().buf, size_t(a.view.nbytes()),
                                      handle_of(stream));
        if (!stream) a.view.device->synchronize_stream(nullptr);
      });
      rt::ArrayView v = a.view;
      v.ndim = hv.ndim;
      for (int i = 0, k = 0; i < hv.ndim; ++i) {
        v.shape[i] = hv.shape[i];
        v.strides[i] = hv.strides[i] == 0 ? 0 : a.view.strides[k++];
      }
      return wrap_device_array(std::move(v), std::move(stream));
    }
  }
  if (!contiguous) {
    // Lists, scalars and strided arrays: let NumPy make a contiguous copy first.
    holder = numpy().attr("ascontiguousarray")(holder);
  }
  HostBuffer buf(holder.ptr(), false);
  hv = buf.view();
  std::vector<int64_t> shape(hv.shape, hv.shape + hv.ndim);
  PyDeviceArray a = allocate_array(shape, ElementType{hv.dtype, hv.record}, !hv.is_c_contiguous() && hv.is_f_contiguous(), stream);
  if (hv.size() == 0 && pyb::hasattr(holder, "strides")) {
    // An empty array keeps the host's strides, whatever they are (numba's to_device does; no element is read
    // through them). They are read from the array: NumPy's buffer of an empty array gives contiguous ones.
    pyb::tuple strides = pyb::tuple(holder.attr("strides"));
    for (int i = 0; i < hv.ndim && size_t(i) < strides.size(); ++i) {
      a.view.strides[i] = strides[size_t(i)].cast<int64_t>();
    }
  }
  blocking_call(*a.view.device, size_t(a.view.nbytes()), [&] {
    a.view.device->copy_to_device(a.view.data, buf.buffer().buf, size_t(a.view.nbytes()), handle_of(stream));
    if (!stream) a.view.device->synchronize_stream(nullptr);  // the host buffer may change right after we return
  });
  return wrap_device_array(std::move(a.view), std::move(stream));
}

pyb::object device_to_host(const PyDeviceArray& array, pyb::handle into, const std::shared_ptr<rt::Stream>& stream) {
  const rt::ArrayView& v = array.view;
  rt::Device& device = v.device ? *v.device : rt::Runtime::get().current_device();
  bool c = v.is_c_contiguous(), f = v.is_f_contiguous();
  pyb::tuple shape = shape_tuple(v);
  pyb::object out;
  if (into.is_none()) {
    out = numpy().attr("empty")(shape, numpy_dtype_of(v), pyb::arg("order") = (!c && f) ? "F" : "C");
  } else {
    out = pyb::reinterpret_borrow<pyb::object>(into);
  }
  HostBuffer dst(out.ptr(), true);
  rt::ArrayView hv = dst.view();
  bool same_shape = hv.ndim == v.ndim && std::equal(v.shape, v.shape + v.ndim, hv.shape);
  if (!same_shape || !hv.same_dtype(v)) {
    throw pyb::value_error("copy_to_host: the host array's shape or dtype differs from the device array's");
  }
  bool same_layout = (c && hv.is_c_contiguous()) || (f && hv.is_f_contiguous());
  if (same_layout) {
    blocking_call(device, size_t(v.nbytes()), [&] {
      device.copy_to_host(dst.buffer().buf, v.data, size_t(v.nbytes()), handle_of(stream));
      if (!stream) device.synchronize_stream(nullptr);
    });
    return out;
  }
  // A strided device array (or a differently laid-out target): bring the bytes it spans over and let NumPy
  // pick the elements out.
  int64_t lo = 0, hi = 0;
  v.extent(&lo, &hi);
  pyb::object raw = numpy().attr("empty")(hi - lo, numpy_dtype(ScalarKind::UInt8));
  {
    HostBuffer rb(raw.ptr(), true);
    blocking_call(device, size_t(hi - lo), [&] {
      device.copy_to_host(rb.buffer().buf, rt::DevicePtr(int64_t(v.data) + lo), size_t(hi - lo), handle_of(stream));
      device.synchronize_stream(handle_of(stream));
    });
  }
  numpy().attr("copyto")(out, host_window(v, raw, lo));
  return out;
}

/// Copies host data (or another device array) into `dst`, with numba's checks, on the arrays' cores (a
/// broadcast array's axes of stride 0 left out, array_core): `dst`'s core must be one contiguous span (C or F
/// order); a device source's core must be one too, with the same dtype, shape and strides; host data is
/// converted to `dst`'s dtype and laid out in its core's order, and its core must have that core's shape (axes
/// of extent 1 aside). Waits for the copy when `stream` is null.
static void copy_into_device(PyDeviceArray& dst, pyb::handle src, const std::shared_ptr<rt::Stream>& stream) {
  rt::ArrayView& v = dst.view;
  rt::Device& device = *v.device;
  const rt::ArrayView core = array_core(v);
  if (Py_TYPE(src.ptr()) == g_device_array_type) {
    const rt::ArrayView& s = *device_array_view(src.ptr());
    if (s.size() == 0 && v.size() == 0) return;  // nothing to copy; the strides do not matter (numba #8477)
    require_one_span(v);
    require_one_span(s);
    const rt::ArrayView source = array_core(s);
    check_compatible(core, source);
    // From another device: a peer copy (through the host where the two cannot copy directly).
    if (s.device && s.device != &device) {
      pyb::gil_scoped_release release;
      device.copy_from_device(v.data, *s.device, s.data, size_t(core.nbytes()), handle_of(stream));
      return;
    }
    device.copy_on_device(v.data, s.data, size_t(core.nbytes()), handle_of(stream));
    return;
  }
  if (v.size() != 0) require_one_span(v);
  pyb::object host = numpy().attr("asarray")(src, numpy_dtype_of(v));
  pyb::tuple host_strides = pyb::tuple(host.attr("strides"));
  if (v.size() != 0) {
    auto all = pyb::reinterpret_steal<pyb::object>(PySlice_New(nullptr, nullptr, nullptr));
    pyb::tuple index(host_strides.size());  // numba's array_core of the host data: [0] on axes of stride 0
    for (size_t i = 0; i < host_strides.size(); ++i) {
      index[i] = host_strides[i].cast<int64_t>() == 0 ? pyb::object(pyb::int_(0)) : all;
    }
    host = host[index];
  }
  bool fortran = !core.is_c_contiguous() && core.is_f_contiguous();
  pyb::object holder = numpy().attr("asarray")(host, pyb::arg("order") = fortran ? "F" : "C");
  HostBuffer buf(holder.ptr(), false);
  check_compatible(core, buf.view());
  if (v.size() == 0) return;
  blocking_call(device, size_t(core.nbytes()), [&] {
    device.copy_to_device(v.data, buf.buffer().buf, size_t(core.nbytes()), handle_of(stream));
    if (!stream) device.synchronize_stream(nullptr);
  });
}

/// Applies a basic index (ints, slices, Ellipsis, in a tuple or alone) to a view.
static rt::ArrayView index_view(const rt::ArrayView& base, pyb::handle key, bool* all_ints) {
  std::vector<pyb::handle> items;
  if (PyTuple_Check(key.ptr())) {
    for (pyb::handle h : pyb::reinterpret_borrow<pyb::tuple>(key)) items.push_back(h);
  } else {
    items.push_back(key);
  }
  size_t consumed = 0;
  for (pyb::handle h : items) consumed += h.ptr() == Py_Ellipsis ? 0 : 1;
  if (consumed > size_t(base.ndim)) throw pyb::index_error("too many indices for the device array");
  rt::ArrayView v = base;
  int axis = 0;
  *all_ints = consumed == size_t(base.ndim);
  for (pyb::handle h : items) {
    if (h.ptr() == Py_Ellipsis) {
      axis += int(size_t(base.ndim) - consumed);
      *all_ints = false;
    } else if (PySlice_Check(h.ptr())) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(h.ptr(), &start, &stop, &step) < 0) throw pyb::error_already_set();
      Py_ssize_t length = PySlice_AdjustIndices(Py_ssize_t(v.shape[axis]), &start, &stop, step);
      v = v.sliced(axis, start, step, length);
      ++axis;
      *all_ints = false;
    } else if (PyIndex_Check(h.ptr())) {
      Py_ssize_t i = PyNumber_AsSsize_t(h.ptr(), PyExc_IndexError);
      if (i == -1 && PyErr_Occurred()) throw pyb::error_already_set();
      try {
        v = v.indexed(axis, i);
      } catch (const std::out_of_range& e) {
        throw pyb::index_error(e.what());
      }
    } else {
      throw pyb::type_error("device arrays support integer, slice and ... indices, not " +
                            pyb::repr(pyb::type::handle_of(h)).cast<std::string>());
    }
  }
  return v;
}

static pyb::dict cuda_array_interface(const PyDeviceArray& a) {
  const rt::ArrayView& v = a.view;
  pyb::dict d;
  d["shape"] = shape_tuple(v);
  d["strides"] = v.is_c_contiguous() ? pyb::object(pyb::none()) : pyb::object(strides_tuple(v));
  if (v.record) {
    // A structured dtype: an opaque "|V<itemsize>" typestr and the fields in `descr`, as NumPy writes them.
    pyb::object dt = numpy_dtype_of(v);
    d["typestr"] = dt.attr("str");
    d["descr"] = dt.attr("descr");
  } else {
    d["typestr"] = typestr_of(v.dtype);
  }
  d["data"] = pyb::make_tuple(pyb::int_(v.size() ? v.data : 0), false);
  d["version"] = 3;
  // numba's convention: the stream the array was made on, or None for the default stream (whose work a
  // consumer on any blocking stream is ordered after anyway).
  d["stream"] = a.stream && a.stream->handle() ? pyb::object(pyb::int_(reinterpret_cast<uintptr_t>(a.stream->handle())))
                                               : pyb::object(pyb::none());
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Element and field access

static pyb::module_& device_array_module() {
  static auto* module = new pyb::module_(pyb::module_::import("gpujit._device_array"));  // never released
  return *module;
}

/// The DeviceArray of a method's `self` (TypeError for another object, which an unbound call could pass).
static PyDeviceArray& self_array(pyb::handle self) {
  if (!PyObject_TypeCheck(self.ptr(), g_device_array_type)) {
    throw pyb::type_error("a DeviceArray method was called on " +
                          pyb::repr(pyb::type::handle_of(self)).cast<std::string>());
  }
  return *device_array_of(self.ptr());
}

/// A stream as Python code gets it: the Stream object, or 0 for none.
static pyb::object stream_object(const std::shared_ptr<rt::Stream>& stream) {
  return stream ? pyb::cast(PyStream{stream}) : pyb::object(pyb::int_(0));
}

/// self[key] with the copy of an element made on `stream`: a view, an element as a host scalar, a record
/// element as a 0-d view (numba's DeviceRecord), or a record's field (gpujit._device_array, _get_field).
static pyb::object get_item(pyb::handle self, pyb::handle key, std::shared_ptr<rt::Stream> stream) {
  const PyDeviceArray& a = *device_array_of(self.ptr());
  if (a.view.record && PyUnicode_Check(key.ptr())) {
    return device_array_module().attr("_get_field")(self, key, stream_object(stream));
  }
  bool all_ints = false;
  rt::ArrayView v = index_view(a.view, key, &all_ints);
  if (all_ints && !v.record) {
    pyb::object host = device_to_host(PyDeviceArray{v, stream}, pyb::none(), stream);
    if (stream) stream->synchronize();
    return host[pyb::tuple()];
  }
  return wrap_device_array(std::move(v), std::move(stream));
}

/// self[key] = value on `stream`. With none (none given, none kept by the array), the copy goes on the
/// default stream and is waited for through the Python method Stream.synchronize, as numba does (a program
/// or test may replace it); with a stream it is only enqueued. A strided target is read, updated and
/// written back through the host.
static void set_item(pyb::handle self, pyb::handle key, pyb::handle value,
                     std::shared_ptr<rt::Stream> stream) {
  PyDeviceArray& a = *device_array_of(self.ptr());
  rt::Device& d = *a.view.device;
  const bool synchronous = !stream;
  if (synchronous) stream = rt::Stream::borrow(d, nullptr);
  if (a.view.record && PyUnicode_Check(key.ptr())) {
    device_array_module().attr("_set_field")(self, key, value, stream_object(stream));
  } else {
    bool all_ints = false;
    PyDeviceArray target{index_view(a.view, key, &all_ints), stream};
    const rt::ArrayView& t = target.view;
    bool c = t.is_c_contiguous(), f = t.is_f_contiguous();
    pyb::object host =
        numpy().attr("empty")(shape_tuple(t), numpy_dtype_of(t), pyb::arg("order") = !c && f ? "F" : "C");
    host[pyb::reinterpret_borrow<pyb::object>(Py_Ellipsis)] = value;
    if (c || f) {
      copy_into_device(target, host, stream);
    } else {
      int64_t lo = 0, hi = 0;
      t.extent(&lo, &hi);
      pyb::object raw = numpy().attr("empty")(hi - lo, numpy_dtype(ScalarKind::UInt8));
      HostBuffer rb(raw.ptr(), true);
      rt::DevicePtr first = rt::DevicePtr(int64_t(t.data) + lo);
      d.copy_to_host(rb.buffer().buf, first, size_t(hi - lo), handle_of(stream));
      d.synchronize_stream(handle_of(stream));
      numpy().attr("copyto")(host_window(t, raw, lo), host);
      d.copy_to_device(first, rb.buffer().buf, size_t(hi - lo), handle_of(stream));
    }
  }
  if (synchronous) pyb::cast(PyStream{stream}).attr("synchronize")();
}

// ---------------------------------------------------------------------------------------------------------
// Registration

void register_dlpack(pyb::module_& m, pyb::class_<PyDeviceArray>& cls);  // dlpack.cpp

void register_arrays(pyb::module_& m) {
  pyb::class_<PyStream>(m, "Stream")
      .def("synchronize", [](PyStream& s) {
        pyb::gil_scoped_release release;
        s.stream->synchronize();
      })
      .def("query", [](PyStream& s) { return s.stream->query(); })
      .def_property_readonly("external", [](PyStream& s) {
        // Made by another library (external_stream, or a foreign array's interface): never destroyed here.
        auto h = reinterpret_cast<uintptr_t>(s.stream->handle());
        return !s.stream->owned() && h > 2;  // 0, 1, 2: the default streams
      })
      .def_property_readonly("handle", [](PyStream& s) { return reinterpret_cast<uintptr_t>(s.stream->handle()); })
      // Two Stream objects are equal when they name one stream: the same handle on the same device (each
      // read of an array's .stream makes a new object, as each default_stream() call does).
      .def("__eq__", [](const PyStream& s, pyb::handle other) -> pyb::object {
        if (!pyb::isinstance<PyStream>(other)) return pyb::reinterpret_borrow<pyb::object>(Py_NotImplemented);
        const rt::Stream& o = *other.cast<const PyStream&>().stream;
        return pyb::bool_(&s.stream->device() == &o.device() && s.stream->handle() == o.handle());
      })
      .def("__hash__", [](const PyStream& s) {
        return std::hash<const void*>()(s.stream->handle()) ^ std::hash<const void*>()(&s.stream->device());
      })
      .def("__int__", [](PyStream& s) { return reinterpret_cast<uintptr_t>(s.stream->handle()); })
      .def("__cuda_stream__", [](PyStream& s) {
        return pyb::make_tuple(0, reinterpret_cast<uintptr_t>(s.stream->handle()));
      })
      .def("__repr__", [](PyStream& s) {
        if (!s.stream->handle()) return std::string("<gpujit default stream>");
        char text[64];
        std::snprintf(text, sizeof(text), "<gpujit stream %p>", s.stream->handle());
        return std::string(text);
      });

  m.def("stream", [] { return PyStream{rt::Stream::create(rt::Runtime::get().current_device())}; },
        "A new stream on the current device.");
  m.def("default_stream", [] { return PyStream{rt::Stream::borrow(rt::Runtime::get().current_device(), nullptr)}; },
        "The current device's default (legacy) stream.");
  // The driver's two default streams by their special handles (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD). The
  // cpu backend has one default stream, which orders work as the legacy one does: both are that stream there.
  auto default_stream_named = [](uintptr_t cuda_handle) {
    rt::Device& device = rt::Runtime::get().current_device();
    bool host = device.backend() == rt::BackendKind::Host;
    return PyStream{rt::Stream::borrow(device, host ? nullptr : reinterpret_cast<rt::StreamHandle>(cuda_handle))};
  };
  m.def("legacy_default_stream", [default_stream_named] { return default_stream_named(1); },
        "The legacy default stream (CU_STREAM_LEGACY), which synchronizes with every blocking stream.");
  m.def("per_thread_default_stream", [default_stream_named] { return default_stream_named(2); },
        "The calling thread's default stream (CU_STREAM_PER_THREAD).");
  m.def("external_stream", [](uint64_t handle) {
    return PyStream{rt::Stream::borrow(rt::Runtime::get().current_device(),
                                       reinterpret_cast<rt::StreamHandle>(uintptr_t(handle)))};
  }, pyb::arg("ptr"), "Wraps a CUDA stream handle made by another library; gpujit never destroys it.");

  pyb::class_<PyEvent>(m, "Event")
      .def("record", [](PyEvent& e, pyb::handle stream) {
        auto s = stream_from_python(stream, e.event->device());
        e.event->record(handle_of(s));
      }, pyb::arg("stream") = 0)
      .def("synchronize", [](PyEvent& e) {
        pyb::gil_scoped_release release;
        e.event->synchronize();
      })
      .def("wait", [](PyEvent& e, pyb::handle stream) {
        auto s = stream_from_python(stream, e.event->device());
        e.event->wait(handle_of(s));
      }, pyb::arg("stream") = 0)
      .def("query", [](PyEvent& e) { return e.event->query(); })
      .def("elapsed_time", [](PyEvent& start, PyEvent& end) { return rt::Event::elapsed_ms(*start.event, *end.event); });
  m.def("event", [](bool timing) {
    return PyEvent{std::make_shared<rt::Event>(rt::Runtime::get().current_device(), timing)};
  }, pyb::arg("timing") = true, "A new event on the current device.");
  m.def("event_elapsed_time", [](PyEvent& start, PyEvent& end) {
    return rt::Event::elapsed_ms(*start.event, *end.event);
  }, "Milliseconds between two recorded events.");

  auto cls = pyb::class_<PyDeviceArray>(m, "DeviceArray", "An array in device memory (numba's DeviceNDArray).");
  g_device_array_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  cls.def_property_readonly("shape", [](const PyDeviceArray& a) { return shape_tuple(a.view); })
      .def_property_readonly("strides", [](const PyDeviceArray& a) { return strides_tuple(a.view); })
      .def_property_readonly("dtype", [](const PyDeviceArray& a) { return numpy_dtype_of(a.view); })
      .def_property_readonly("ndim", [](const PyDeviceArray& a) { return a.view.ndim; })
      .def_property_readonly("size", [](const PyDeviceArray& a) { return a.view.size(); })
      .def_property_readonly("nbytes", [](const PyDeviceArray& a) { return a.view.nbytes(); })
      .def_property_readonly("itemsize", [](const PyDeviceArray& a) { return a.view.itemsize(); })
      .def_property_readonly("device_ctypes_pointer", [](const PyDeviceArray& a) {
        return pyb::module_::import("ctypes").attr("c_void_p")(a.view.data);
      })
      .def_property_readonly("stream", [](const PyDeviceArray& a) -> pyb::object {
        if (!a.stream) return pyb::int_(0);
        return pyb::cast(PyStream{a.stream});
      })
      .def_property_readonly("__cuda_array_interface__", &cuda_array_interface)
      .def("is_c_contiguous", [](const PyDeviceArray& a) { return a.view.is_c_contiguous(); })
      .def("is_f_contiguous", [](const PyDeviceArray& a) { return a.view.is_f_contiguous(); })
      .def("__len__", [](const PyDeviceArray& a) {
        if (a.view.ndim == 0) throw pyb::type_error("len() of a 0-d device array");
        return a.view.shape[0];
      })
      .def("copy_to_host", [](pyb::object self, pyb::handle ary, pyb::handle stream) -> pyb::object {
        const PyDeviceArray& a = self_array(self);
        if (a.view.record && a.view.ndim == 0 && !ary.is_none() && pyb::isinstance(ary, numpy().attr("void"))) {
          // A record scalar (numba's DeviceRecord.copy_to_host(np.void)): written field by field in Python,
          // since a NumPy scalar's buffer is read-only.
          return device_array_module().attr("_copy_record_to_host")(self, ary, stream);
        }
        return device_to_host(a, ary, stream_from_python(stream, *a.view.device));
      }, pyb::arg("ary") = pyb::none(), pyb::arg("stream") = 0,
         "Copies to a new NumPy array, or into `ary`. With a stream the copy is asynchronous.")
      .def("copy_to_device", [](PyDeviceArray& a, pyb::handle ary, pyb::handle stream) {
        copy_into_device(a, ary, stream_from_python(stream, *a.view.device));
      }, pyb::arg("ary"), pyb::arg("stream") = 0,
         "Copies a host array (or a device array of the same layout) into this one; see docs/python.md.")
      .def("__getitem__", [](pyb::object self, pyb::handle key) {
        return get_item(self, key, self_array(self).stream);
      })
      .def("getitem", [](pyb::object self, pyb::handle key, pyb::handle stream) {
        const PyDeviceArray& a = self_array(self);
        auto s = array_stream_from_python(stream, *a.view.device);
        return get_item(self, key, s ? s : a.stream);
      }, pyb::arg("item"), pyb::arg("stream") = 0, "self[item], the copy of an element made on `stream`.")
      .def("__setitem__", [](pyb::object self, pyb::handle key, pyb::handle value) {
        set_item(self, key, value, self_array(self).stream);
      })
      .def("setitem", [](pyb::object self, pyb::handle key, pyb::handle value, pyb::handle stream) {
        const PyDeviceArray& a = self_array(self);
        auto s = array_stream_from_python(stream, *a.view.device);
        set_item(self, key, value, s ? s : a.stream);
      }, pyb::arg("key"), pyb::arg("value"), pyb::arg("stream") = 0,
         "self[key] = value, enqueued on `stream` (the array's own when 0) without waiting for it.")
      .def("bind", [](const PyDeviceArray& a, pyb::handle stream) {
        return wrap_device_array(a.view, array_stream_from_python(stream, *a.view.device));
      }, pyb::arg("stream") = 0, "The same array (a new object) made for `stream`, as numba's bind().")
      .def("reshape", [](const PyDeviceArray& a, pyb::args shape, pyb::kwargs kwargs) {
        char order = 'C';
        for (auto item : kwargs) {
          if (item.first.cast<std::string>() != "order") {
            throw pyb::type_error("reshape() got an unexpected keyword argument '" +
                                  item.first.cast<std::string>() + "'");
          }
          order = order_from_python(item.second, "CFA");
        }
        return wrap_device_array(reshaped_view(a.view, reshape_args(shape), order), a.stream);
      }, "A view with another shape, in order 'C', 'F' or 'A' (NumPy's rule); NotImplementedError where the "
         "view would need a copy.")
      .def("ravel", [](const PyDeviceArray& a, pyb::handle order, pyb::handle stream) {
        auto s = array_stream_from_python(stream, *a.view.device);
        return wrap_device_array(raveled_view(a.view, order_from_python(order, "CFAK")), s ? s : a.stream);
      }, pyb::arg("order") = "C", pyb::arg("stream") = 0,
         "A 1-D view of a contiguous array's elements; NotImplementedError for a strided array.")
      .def("__repr__", [](const PyDeviceArray& a) {
        std::string shape;
        for (int i = 0; i < a.view.ndim; ++i) shape += (i ? ", " : "") + std::to_string(a.view.shape[i]);
        if (a.view.ndim == 1) shape += ",";
        return "<gpujit.DeviceArray shape=(" + shape + ") dtype=" +
               (a.view.record ? pyb::str(numpy_dtype_of(a.view)).cast<std::string>() : scalar_name(a.view.dtype)) + ">";
      });
  register_dlpack(m, cls);

  m.def("to_device", [](pyb::handle obj, pyb::handle stream, bool copy, pyb::handle to) -> pyb::object {
    rt::Device& device = rt::Runtime::get().current_device();
    auto s = array_stream_from_python(stream, device);
    if (!to.is_none()) {
      copy_into_device(to.cast<PyDeviceArray&>(), obj, s);
      return pyb::reinterpret_borrow<pyb::object>(to);
    }
    if (Py_TYPE(obj.ptr()) == g_device_array_type) {
      // A device array on the current device is returned as it is (numba's to_device); one on another
      // device is copied to a new array on the current one.
      const PyDeviceArray& src = *device_array_of(obj.ptr());
      if (!src.view.device || src.view.device == &device) return pyb::reinterpret_borrow<pyb::object>(obj);
      const rt::ArrayView& v = src.view;
      std::vector<int64_t> shape(v.shape, v.shape + v.ndim);
      bool fortran = !v.is_c_contiguous() && v.is_f_contiguous();
      if (!v.is_c_contiguous() && !fortran) {
        throw pyb::value_error("to_device: a strided array of " + device_label(*v.device) + " cannot be copied to " +
                               device_label(device) + "; copy it to a contiguous array on its device first "
                               "(arr.copy_to_host(), or a kernel)");
      }
      PyDeviceArray a = allocate_array(shape, ElementType{v.dtype, v.record}, fortran, s);
      {
        pyb::gil_scoped_release release;
        device.copy_from_device(a.view.data, *v.device, v.data, size_t(v.nbytes()), handle_of(s));
      }
      return wrap_device_array(std::move(a.view), std::move(a.stream));
    }
    return host_to_device(obj.ptr(), s);
  }, pyb::arg("obj"), pyb::arg("stream") = 0, pyb::arg("copy") = true, pyb::arg("to") = pyb::none(),
     "Copies a host array to a new device array on the current device (or into `to`); a device array of "
     "another device is copied to the current one.");

  m.def("device_array", [](pyb::handle shape, pyb::handle dtype, pyb::handle stream, const std::string& order) {
    ElementType kind = dtype.is_none() ? ElementType{} : element_from_dtype_like(dtype);
    rt::Device& device = rt::Runtime::get().current_device();
    PyDeviceArray a =
        allocate_array(shape_from_python(shape), kind, order == "F", array_stream_from_python(stream, device));
    return wrap_device_array(std::move(a.view), std::move(a.stream));
  }, pyb::arg("shape"), pyb::arg("dtype") = pyb::none(), pyb::arg("stream") = 0, pyb::arg("order") = "C",
     "A new uninitialized device array.");

  m.def("_dtype_memo_size", &dtype_memo_size);
  register_ufunc_operands(m);  // _elementwise_key, _foreign_device_array

  m.def("_device_array_like", [](pyb::handle shape, pyb::handle dtype, bool fortran, pyb::handle stream) {
    rt::Device& device = rt::Runtime::get().current_device();
    PyDeviceArray a = allocate_array(shape_from_python(shape), element_from_dtype_like(dtype),
                                     fortran, array_stream_from_python(stream, device));
    return wrap_device_array(std::move(a.view), std::move(a.stream));
  });

  m.def("_as_cuda_array", [](pyb::handle obj, pyb::handle stream) -> pyb::object {
    if (Py_TYPE(obj.ptr()) == g_device_array_type) return pyb::reinterpret_borrow<pyb::object>(obj);
    rt::ArrayView v;
    std::string error;
    if (!view_from_cuda_array_interface(obj.ptr(), &v, &error)) {
      throw pyb::type_error("as_cuda_array: " + pyb::repr(obj).cast<std::string>() + " is not a CUDA array: " + error);
    }
    v.device = &rt::Runtime::get().current_device();
    PyObject* keep = obj.ptr();
    Py_INCREF(keep);
    v.owner = std::shared_ptr<void>(keep, [](void* p) { Py_DECREF(static_cast<PyObject*>(p)); });
    return wrap_device_array(std::move(v), stream_from_python(stream, *v.device));
  }, pyb::arg("obj"), pyb::arg("stream") = pyb::none(),
     "A DeviceArray sharing the memory of an object with __cuda_array_interface__, on `stream` (none: the "
     "default stream); its interface's own stream is not read (gpujit.as_cuda_array reads it).");
  m.def("_device_view", [](pyb::handle owner, uint64_t ptr, pyb::handle shape, pyb::handle strides,
                           pyb::handle dtype, pyb::handle stream) {
    ElementType e = element_from_dtype_like(dtype);
    rt::ArrayView v;
    v.dtype = e.kind;
    v.record = e.record;
    v.data = ptr;
    std::vector<int64_t> dims = shape_from_python(shape);
    pyb::tuple steps = pyb::tuple(pyb::reinterpret_borrow<pyb::object>(strides));
    if (steps.size() != dims.size()) throw pyb::value_error("_device_view: strides do not match the shape");
    v.ndim = int(dims.size());
    for (int i = 0; i < v.ndim; ++i) {
      v.shape[i] = dims[size_t(i)];
      v.strides[i] = steps[size_t(i)].cast<int64_t>();
    }
    if (Py_TYPE(owner.ptr()) == g_device_array_type) {
      const rt::ArrayView& base = device_array_of(owner.ptr())->view;
      v.device = base.device;
      v.owner = base.owner;
    } else {
      v.device = &rt::Runtime::get().current_device();
      PyObject* keep = owner.ptr();
      Py_INCREF(keep);
      v.owner = std::shared_ptr<void>(keep, [](void* p) { Py_DECREF(static_cast<PyObject*>(p)); });
    }
    if (!v.device) v.device = &rt::Runtime::get().current_device();
    return wrap_device_array(std::move(v), array_stream_from_python(stream, *v.device));
  }, pyb::arg("owner"), pyb::arg("ptr"), pyb::arg("shape"), pyb::arg("strides"), pyb::arg("dtype"),
     pyb::arg("stream") = 0,
     "A DeviceArray of the memory at `ptr` described by shape, byte strides and dtype, on the device of "
     "`owner`, which it keeps alive (the memory's DeviceArray, or any object that holds it).");
  m.def("is_cuda_array", [](pyb::handle obj) {
    return Py_TYPE(obj.ptr()) == g_device_array_type || pyb::hasattr(obj, "__cuda_array_interface__");
  });

  pyb::class_<rt::CachingAllocator::Stats>(m, "AllocatorStats")
      .def_readonly("backend_allocations", &rt::CachingAllocator::Stats::backend_allocations)
      .def_readonly("cache_hits", &rt::CachingAllocator::Stats::cache_hits)
      .def_readonly("bytes_in_use", &rt::CachingAllocator::Stats::bytes_in_use)
      .def_readonly("bytes_cached", &rt::CachingAllocator::Stats::bytes_cached);
  m.def("allocator_stats", [] { return rt::Runtime::get().current_device().allocator().stats(); },
        "The current device's caching-allocator counters.");
  m.def("empty_cache", [] { rt::Runtime::get().current_device().allocator().release_cached(); },
        "Gives the current device's cached free blocks back to the driver.");
}

}  // namespace gpujit::py
