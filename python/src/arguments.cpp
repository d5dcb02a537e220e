// Argument classification, packing and NumPy copy-back for one launch (see arguments.h).
#include "arguments.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <cstring>
#include <utility>

#include "dlpack.h"
#include "dtypes.h"
#include "enums.h"
#include "named_tuples.h"
#include "foreign_arrays.h"
#include "runtime/device_array.h"
#include "runtime/graph.h"
#include "ir/bfloat16.h"

namespace gpujit::py {

PyObject* g_arg_hint_types[3] = {nullptr, nullptr, nullptr};

namespace {

PyTypeObject* g_ndarray_type = nullptr;
// NumPy scalar types seen so far and their kinds; a handful at most, so a vector beats a hash map.
std::vector<std::pair<PyTypeObject*, ScalarKind>> g_numpy_scalars;

ScalarKind kind_of(rt::ArgCode code) { return rt::kind_of_code(code); }

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = int32_t((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = x & 0x7FFFFFu;
  if (((x >> 23) & 0xFF) == 0xFF) return uint16_t(sign | 0x7C00u | (mant ? 0x200u : 0));  // inf, nan
  if (exp >= 31) return uint16_t(sign | 0x7C00u);                                           // overflow
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000u;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;
  return uint16_t(half);
}

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FFu;
  float f;
  if (exp == 0) {
    f = std::ldexp(float(mant), -24);
    return sign ? -f : f;
  }
  uint32_t x = exp == 31 ? (sign | 0x7F800000u | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  std::memcpy(&f, &x, 4);
  return f;
}

/// A scalar's value in the widest form of its family.
struct Wide {
  bool is_float = false, is_unsigned = false;
  double f = 0, imag = 0;
  int64_t i = 0;
};

Wide read_scalar(const unsigned char* p, ScalarKind k) {
  Wide w;
  auto get = [&](auto t) {
    decltype(t) v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (k) {
    case ScalarKind::Bool: w.i = p[0] != 0; break;
    case ScalarKind::Int8: w.i = get(int8_t{}); break;
    case ScalarKind::Int16: w.i = get(int16_t{}); break;
    case ScalarKind::Int32: w.i = get(int32_t{}); break;
    case ScalarKind::Int64: w.i = get(int64_t{}); break;
    case ScalarKind::UInt8: w.i = get(uint8_t{}); break;
    case ScalarKind::UInt16: w.i = get(uint16_t{}); break;
    case ScalarKind::UInt32: w.i = get(uint32_t{}); break;
    case ScalarKind::UInt64: w.i = int64_t(get(uint64_t{})); w.is_unsigned = true; break;
    case ScalarKind::Float16: w.is_float = true; w.f = half_to_float(get(uint16_t{})); break;
    case ScalarKind::BFloat16: w.is_float = true; w.f = bfloat16_to_float(get(uint16_t{})); break;
    case ScalarKind::Float32: w.is_float = true; w.f = get(float{}); break;
    case ScalarKind::Float64: w.is_float = true; w.f = get(double{}); break;
    case ScalarKind::Complex64: {
      float parts[2];
      std::memcpy(parts, p, 8);
      w.is_float = true, w.f = parts[0], w.imag = parts[1];
      break;
    }
    case ScalarKind::Complex128: {
      double parts[2];
      std::memcpy(parts, p, 16);
      w.is_float = true, w.f = parts[0], w.imag = parts[1];
      break;
    }
    default:  // datetime64 and timedelta64: an int64 count of units
      w.i = get(int64_t{});
      break;
  }
  return w;
}

void write_scalar(const Wide& w, ScalarKind k, unsigned char* out) {
  if (is_fp8(k)) {  // no host value is an fp8 (gpujit.fp8): a signature naming one cannot take an argument
    throw pybind11::type_error(std::string("a kernel cannot take a ") + scalar_name(k) +
                               " argument: pass its uint8 storage (or a float) and convert inside the kernel");
  }
  double f = w.is_float ? w.f : (w.is_unsigned ? double(uint64_t(w.i)) : double(w.i));
  // Float to integer truncates toward zero, as a C cast and numba do.
  int64_t i = w.is_float ? int64_t(w.f) : w.i;
  auto put = [&](auto v) { std::memcpy(out, &v, sizeof(v)); };
  switch (k) {
    case ScalarKind::Bool: out[0] = w.is_float ? (w.f != 0 || w.imag != 0) : (w.i != 0); break;
    case ScalarKind::Int8: put(int8_t(i)); break;
    case ScalarKind::Int16: put(int16_t(i)); break;
    case ScalarKind::Int32: put(int32_t(i)); break;
    case ScalarKind::Int64: put(int64_t(i)); break;
    case ScalarKind::UInt8: put(uint8_t(i)); break;
    case ScalarKind::UInt16: put(uint16_t(i)); break;
    case ScalarKind::UInt32: put(uint32_t(i)); break;
    case ScalarKind::UInt64: put(w.is_float ? uint64_t(w.f) : uint64_t(w.i)); break;
    case ScalarKind::Float16: put(float_to_half(float(f))); break;
    case ScalarKind::BFloat16: put(bfloat16_from_double(f)); break;
    case ScalarKind::Float32: put(float(f)); break;
    case ScalarKind::Float64: put(f); break;
    case ScalarKind::Complex64: {
      float parts[2] = {float(f), float(w.imag)};
      std::memcpy(out, parts, 8);
      break;
    }
    case ScalarKind::Complex128: {
      double parts[2] = {f, w.imag};
      std::memcpy(out, parts, 16);
      break;
    }
    default:  // datetime64 and timedelta64: an int64 count of units
      put(int64_t(i));
      break;
  }
}

/// Reads a NumPy (or other number-protocol) scalar of a known kind into `out`.
void read_number(PyObject* obj, ScalarKind k, unsigned char* out) {
  Wide w;
  if (is_complex(k)) {
    Py_complex c = PyComplex_AsCComplex(obj);
    if (c.real == -1.0 && PyErr_Occurred()) throw pybind11::error_already_set();
    w.is_float = true, w.f = c.real, w.imag = c.imag;
  } else if (is_float(k)) {
    w.is_float = true;
    w.f = PyFloat_AsDouble(obj);
    if (w.f == -1.0 && PyErr_Occurred()) throw pybind11::error_already_set();
  } else if (k == ScalarKind::Bool) {
    int t = PyObject_IsTrue(obj);
    if (t < 0) throw pybind11::error_already_set();
    w.i = t;
  } else {
    PyObject* index = PyNumber_Index(obj);
    if (!index) throw pybind11::error_already_set();
    if (k == ScalarKind::UInt64) {
      w.i = int64_t(PyLong_AsUnsignedLongLong(index));
      w.is_unsigned = true;
    } else {
      w.i = PyLong_AsLongLong(index);
    }
    Py_DECREF(index);
    if (PyErr_Occurred()) throw pybind11::error_already_set();
  }
  write_scalar(w, k, out);
}

/// Whether NumPy is imported (it is if the caller holds one of its objects); NumPy is never imported here.
bool numpy_loaded() {
  PyObject* np = PyImport_GetModule(pybind11::str("numpy").ptr());
  if (!np) {
    PyErr_Clear();
    return false;
  }
  Py_DECREF(np);
  return true;
}

/// Whether `obj` is a NumPy structured scalar of a subclass of np.void (np.record).
bool is_numpy_void(PyObject* obj) { return numpy_loaded() && pybind11::isinstance(obj, numpy().attr("void")); }

/// The code of a dtype passed as an argument (numba's NumberClass: a NumPy scalar type such as np.int32, a
/// gpujit dtype, a numba number type), else kArgInvalid. Not for NumPy's non-number scalar types (np.void,
/// np.str_, np.object_), which are no kernel dtype.
rt::ArgCode dtype_class_code(PyObject* obj) {
  pybind11::handle h(obj);
  bool dtype_object = false;
  if (PyType_Check(obj)) {
    dtype_object = numpy_loaded() && PyObject_IsSubclass(obj, numpy().attr("number").ptr()) == 1;
    if (!dtype_object && numpy_loaded()) dtype_object = PyObject_IsSubclass(obj, numpy().attr("bool_").ptr()) == 1;
    PyErr_Clear();
  } else {
    pybind11::object mod = pybind11::getattr(pybind11::type::handle_of(h), "__module__", pybind11::none());
    std::string m = pybind11::isinstance<pybind11::str>(mod) ? mod.cast<std::string>() : "";
    dtype_object = m == "gpujit._types" ? pybind11::hasattr(h, "_gpujit_dtype")
                                        : m.rfind("numba", 0) == 0 && pybind11::hasattr(h, "bitwidth");
  }
  if (!dtype_object) return rt::kArgInvalid;
  try {
    return rt::class_code(kind_from_dtype_like(h));
  } catch (const pybind11::error_already_set&) {
    PyErr_Clear();
  } catch (const pybind11::type_error&) {
  }
  return rt::kArgInvalid;
}

/// An object of a type launches read through its __cuda_array_interface__ (known_launch_foreign_type), read
/// as classify_slow() reads it; false, with `out` unusable, where that read fails (classify_slow says why).
bool interface_view(PyObject* obj, rt::ArrayView* out) {
  std::string error;
  uint64_t stream = 0;
  if (!view_from_cuda_array_interface(obj, out, &error, &stream)) return false;
  sync_interface_stream(stream);  // numba's rule, as in classify_slow()
  return true;
}

std::string describe(const std::string& kernel, const std::string& param, size_t index) {
  return "kernel '" + kernel + "': argument '" + param + "' (position " + std::to_string(index + 1) + ")";
}

/// A Python int, float or bool, or a NumPy scalar of a type seen before, read into `bytes`; kArgInvalid for
/// anything else. Exact-type checks only: this is the launch path's fast case.
inline rt::ArgCode fast_number(PyObject* obj, unsigned char* bytes, const std::string& kernel,
                               const std::string& param, size_t i) {
  PyTypeObject* type = Py_TYPE(obj);
  if (type == &PyFloat_Type) {
    double d = PyFloat_AS_DOUBLE(obj);
    std::memcpy(bytes, &d, 8);
    return rt::scalar_code(ScalarKind::Float64);
  }
  if (type == &PyLong_Type) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow == 0) {
      std::memcpy(bytes, &x, 8);
      return rt::scalar_code(ScalarKind::Int64);
    }
    unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(obj) : 0;
    if (overflow < 0 || PyErr_Occurred()) {
      PyErr_Clear();
      throw pybind11::value_error(describe(kernel, param, i) + " is an int too large for int64 and uint64");
    }
    std::memcpy(bytes, &u, 8);
    return rt::scalar_code(ScalarKind::UInt64);
  }
  if (type == &PyBool_Type) {
    bytes[0] = obj == Py_True;
    return rt::scalar_code(ScalarKind::Bool);
  }
  for (const auto& [t, kind] : g_numpy_scalars) {
    if (t == type) {
      read_number(obj, kind, bytes);
      return rt::scalar_code(kind);
    }
  }
  return rt::kArgInvalid;
}

/// A NumPy scalar of a type not seen before (remembered for fast_number) or a complex, read into `bytes`;
/// kArgInvalid for anything else.
rt::ArgCode slow_number(PyObject* obj, unsigned char* bytes) {
  const char* type_name = Py_TYPE(obj)->tp_name;
  if (std::strcmp(type_name, "numpy.datetime64") == 0 || std::strcmp(type_name, "numpy.timedelta64") == 0) {
    // One Python type for every unit, so never remembered for fast_number: the unit is the dtype's.
    pybind11::handle h(obj);
    std::string typestr = pybind11::str(h.attr("dtype").attr("str")).cast<std::string>();
    std::optional<ScalarKind> kind = kind_from_typestr(typestr);
    if (!kind) return rt::kArgInvalid;  // a multiple of a unit ("<M8[5m]"), which kernels do not take
    int64_t count = h.attr("view")("int64").cast<int64_t>();
    std::memcpy(bytes, &count, 8);
    return rt::scalar_code(*kind);
  }
  if (std::strncmp(type_name, "numpy.", 6) == 0) {
    // Its 0-d buffer says which kind it is.
    HostBuffer probe(obj, std::nothrow);
    if (probe.ok() && probe.buffer().ndim == 0) {
      g_numpy_scalars.emplace_back(Py_TYPE(obj), probe.kind());
      read_number(obj, probe.kind(), bytes);
      return rt::scalar_code(probe.kind());
    }
  }
  if (PyComplex_Check(obj)) {
    read_number(obj, ScalarKind::Complex128, bytes);
    return rt::scalar_code(ScalarKind::Complex128);
  }
  return rt::kArgInvalid;
}

/// Arguments::pack() for a launch of arrays and of Python floats and ints that no signature converts (the
/// common launch: what classify_fast() takes): each array's pointer, extents and byte strides (4 bytes each
/// when its code says they fit), each number's 8 bytes. Out of pack()'s loop, which tests every parameter
/// for the other kinds and keeps its writer in memory (callgrind: about 90 instructions per one-dimensional
/// array there). `Value` is Arguments' private slot type, deduced; `Writer` is ParamBuffer's Writer (values
/// and kernelParams pointers) or BytesWriter (the values alone).
template <class Writer, class Value>
void write_plain(Writer& w, const rt::ArgCode* codes, const Value* values, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const rt::ArrayView* a = values[i].array;
    if (!a) {
      uint64_t value;
      std::memcpy(&value, values[i].bytes, 8);
      w.u64(value);
      continue;
    }
    const int ndim = a->ndim;
    if (ndim == 1 && rt::is_index32_code(codes[i])) {  // the commonest array
      w.vector_index32(a->data, uint32_t(a->shape[0]), uint32_t(a->strides[0]));
      continue;
    }
    w.u64(a->data);
    if (rt::is_index32_code(codes[i])) {
      for (int d = 0; d < ndim; ++d) w.u32(uint32_t(a->shape[d]));
      for (int d = 0; d < ndim; ++d) w.u32(uint32_t(a->strides[d]));
    } else {
      for (int d = 0; d < ndim; ++d) w.u64(uint64_t(a->shape[d]));
      for (int d = 0; d < ndim; ++d) w.u64(uint64_t(a->strides[d]));
    }
  }
}

/// write_plain() into `params`: with `buffer_only` (LoadedKernel::packed_param_bytes, non-zero) the values
/// alone, and null returned when they come to that size (the launch hands the driver the buffer; no
/// kernelParams pointers are built); else, or when the size differs, the values and the pointers.
template <class Value>
[[gnu::noinline]] void** pack_plain(rt::ParamBuffer& params, const rt::ArgCode* codes, const Value* values, size_t n,
                                    size_t most, size_t buffer_only) {
  if (buffer_only) {
    rt::ParamBuffer::BytesWriter w = params.start_bytes(most);
    write_plain(w, codes, values, n);
    params.finish(w);
    if (params.size_bytes() == buffer_only) return nullptr;
  }
  rt::ParamBuffer::Writer w = params.start(most);
  write_plain(w, codes, values, n);
  params.finish(w);
  return params.pointers();
}

}  // namespace

void Arguments::reset_slow(size_t n) {
  if (codes_.size() < n) {
    codes_.resize(n);
    values_.resize(n);
  }
  views_.reserve(n);
  copies_.clear();
  record_copies_.clear();
}

void Arguments::grow_slots() {
  size_t n = std::max<size_t>(8, codes_.size() * 2);
  codes_.resize(n);
  values_.resize(n);
}

void Arguments::grow_views() {
  // Only a tuple holding arrays gets here (reset() reserves a view per argument); the values recorded so far
  // point into the old storage.
  std::less<const rt::ArrayView*> before;
  const rt::ArrayView* old_begin = views_.data();
  const rt::ArrayView* old_end = old_begin + views_.size();
  views_.reserve(std::max<size_t>(8, 2 * views_.capacity()));
  for (size_t k = 0; k < count_; ++k) {
    const rt::ArrayView*& a = values_[k].array;
    if (a && !before(a, old_begin) && before(a, old_end)) a = views_.data() + (a - old_begin);
  }
}

void Arguments::classify_other(PyObject* obj, size_t i, const std::string& kernel, const std::string& param,
                         rt::Device& device, const std::shared_ptr<rt::Stream>& stream) {
  Value& v = add_slot();
  PyTypeObject* type = Py_TYPE(obj);
  if (type == g_device_array_type) {
    const PyDeviceArray* a = device_array_of(obj);
    if (a->view.device != &device && a->view.device) {
      // Kernels read only their own device's memory (gpujit enables no peer access): name both devices and
      // the way out.
      throw pybind11::type_error(describe(kernel, param, i) + " is an array on " + device_label(*a->view.device) +
                                 " but the launch is on " + device_label(device) +
                                 "; copy it with gpu.to_device(array) while the launch's device is current, or "
                                 "launch inside 'with gpu.gpus[" + std::to_string(a->view.device->ordinal()) +
                                 "]:'");
    }
    v.array = &a->view;
    last_code() = a->code;
    return;
  }
  if (const ForeignType* foreign = known_launch_foreign_type(type)) {
    // A tensor or CuPy array passed before, or an object of a type launches read through its
    // __cuda_array_interface__ (classify_slow's last test but one): straight to its reader. Before the
    // numbers' test: no type in that table is one fast_number() takes (they reach classify_slow's readers
    // only after its number tests declined them). What the reader cannot read goes the long way, which says
    // why.
    rt::ArrayView& view = own_view();
    rt::ArgCode code = rt::kArgInvalid;
    try {
      if (!is_interface_type(foreign)) {
        code = launch_foreign_view(obj, foreign, device, &view);
      } else if (interface_view(obj, &view)) {
        code = rt::array_code_of(view);
      }
    } catch (const ForeignDeviceError& e) {
      throw pybind11::type_error(describe(kernel, param, i) + " " + e.what());
    }
    if (code) {
      view.device = &device;
      v.array = &view;
      last_code() = code;
      return;
    }
    views_.pop_back();
  }
  if (rt::ArgCode code = fast_number(obj, v.bytes, kernel, param, i)) {
    last_code() = code;
    return;
  }
  if (type == g_ndarray_type) {
    host_array(obj, device, stream);
    return;
  }
  classify_slow(obj, i, kernel, param, device, stream);
}

void Arguments::classify_tuple(PyObject* tuple, size_t i, const std::string& kernel, const std::string& param,
                               rt::Device& device, const std::shared_ptr<rt::Stream>& stream) {
  Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  if (size_t(n) > rt::kMaxTupleSize) {
    throw pybind11::type_error(describe(kernel, param, i) + " is a tuple of " + std::to_string(n) +
                               " elements; at most " + std::to_string(rt::kMaxTupleSize) + " can be passed");
  }
  last_code() = rt::tuple_code(unsigned(n));
  for (Py_ssize_t e = 0; e < n; ++e) {
    PyObject* item = PyTuple_GET_ITEM(tuple, e);
    // Each slot is filled before the next one is added: add_slot() may move the earlier ones.
    unsigned char* bytes = add_slot().bytes;
    if (PyTuple_CheckExact(item)) {
      classify_tuple(item, i, kernel, param, device, stream);
      continue;
    }
    rt::ArgCode code = fast_number(item, bytes, kernel, param, i);
    if (!code) {
      if (std::strcmp(Py_TYPE(item)->tp_name, "numpy.void") == 0 || is_numpy_void(item)) {
        throw pybind11::type_error(describe(kernel, param, i) + " is a tuple whose element " + std::to_string(e) +
                                   " is a record; records inside tuple arguments are not supported (pass the "
                                   "record as an argument of its own)");
      }
      code = slow_number(item, bytes);
    }
    if (code) {
      last_code() = code;
      continue;
    }
    // An array element is classified as an argument of its own would be (numba passes tuples of arrays).
    last_value() = Value();
    classify_slow(item, i, kernel, param, device, stream);
    if (rt::is_class_code(last_code())) {
      throw pybind11::type_error(describe(kernel, param, i) + " is a tuple whose element " + std::to_string(e) +
                                 " is a dtype; a dtype can be passed as an argument of its own only");
    }
  }
}

void Arguments::classify_slow(PyObject* obj, size_t i, const std::string& kernel, const std::string& param,
                              rt::Device& device, const std::shared_ptr<rt::Stream>& stream) {
  Value& v = last_value();
  PyTypeObject* type = Py_TYPE(obj);
  const char* name = type->tp_name;
  if (std::strcmp(name, "numpy.ndarray") == 0) {
    g_ndarray_type = type;
    host_array(obj, device, stream);
    return;
  }
  if (PyTuple_CheckExact(obj)) {
    classify_tuple(obj, i, kernel, param, device, stream);
    return;
  }
  if (PyTuple_Check(obj) && is_named_tuple_instance(obj)) {
    classify_named_tuple(obj, i, kernel, param, device, stream);
    return;
  }
  if (is_enum_member(obj)) {  // before the numbers: an IntEnum's member is an int too
    classify_enum(obj, i, kernel, param, device, stream);
    return;
  }
  for (int direction = 0; direction < 3; ++direction) {
    if (!g_arg_hint_types[direction] || !PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(g_arg_hint_types[direction])))
      continue;
    // In (0), Out (1), InOut (2) around a host array set its copies; around anything else they mean nothing.
    pybind11::object value = pybind11::handle(obj).attr("value");
    if (std::strcmp(Py_TYPE(value.ptr())->tp_name, "numpy.ndarray") == 0) g_ndarray_type = Py_TYPE(value.ptr());
    if (g_ndarray_type && PyObject_TypeCheck(value.ptr(), g_ndarray_type)) {
      host_array(value.ptr(), device, stream, direction != 1, direction != 0);
      return;
    }
    classify_slow(value.ptr(), i, kernel, param, device, stream);
    return;
  }
  if (PyObject_TypeCheck(obj, g_device_array_type)) {
    v.array = device_array_view(obj);
    last_code() = rt::array_code_of(*v.array);
    return;
  }
  if (!g_ndarray_type && numpy_loaded()) {
    g_ndarray_type = reinterpret_cast<PyTypeObject*>(numpy().attr("ndarray").ptr());  // a subclass (recarray)
  }
  // An ndarray subclass with __cuda_array_interface__ (gpujit.mapped_array) is used in place, not copied; a
  // plain ndarray has none, so only subclasses pay for the attribute lookup.
  if (g_ndarray_type && PyObject_TypeCheck(obj, g_ndarray_type) &&
      (Py_TYPE(obj) == g_ndarray_type || !PyObject_HasAttrString(obj, "__cuda_array_interface__"))) {
    host_array(obj, device, stream);
    return;
  }
  // np.void, and its subclass np.record (a recarray's element)
  if (std::strcmp(name, "numpy.void") == 0 || is_numpy_void(obj)) {
    record_scalar(obj, device, stream);
    return;
  }
  if (rt::ArgCode code = slow_number(obj, v.bytes)) {
    last_code() = code;
    return;
  }
  if (rt::ArgCode code = dtype_class_code(obj)) {  // numba's NumberClass: compile-time, no parameter
    last_code() = code;
    return;
  }
  std::string cai_error, dlpack_error;
  rt::ArrayView& view = own_view();
  uint64_t producer_stream = 0;
  bool found = false;
  try {
    found = fast_foreign_view(obj, &view);
    if (!found && view_from_cuda_array_interface(obj, &view, &cai_error, &producer_stream)) {
      found = true;
      // Every test above looked at the type alone, except for these: a tuple's (a namedtuple's _fields), an
      // ndarray subclass's (the object's own __cuda_array_interface__), a NumPy scalar's (its buffer), a
      // type object's (a dtype). Any other type's next objects skip them (classify_other).
      if (!PyTuple_Check(obj) && !PyType_Check(obj) && std::strncmp(name, "numpy.", 6) != 0 &&
          !(g_ndarray_type && PyObject_TypeCheck(obj, g_ndarray_type))) {
        mark_interface_type(type);
      }
    }
    // numba's rule for an array read through its interface: wait for the stream it names (config switch).
    if (found) sync_interface_stream(producer_stream);
    if (!found && cai_error.find("no __cuda_array_interface__") != std::string::npos) {
      found = view_from_dlpack(obj, &view, &dlpack_error);
    }
  } catch (const ForeignDeviceError& e) {
    throw pybind11::type_error(describe(kernel, param, i) + " " + e.what());
  }
  if (found) {
    view.device = &device;
    v.array = &view;
    last_code() = rt::array_code_of(view);
    return;
  }
  views_.pop_back();
  std::string why = dlpack_error.empty() ? cai_error : dlpack_error;
  if (why.find("neither") != std::string::npos) {
    throw pybind11::type_error(describe(kernel, param, i) + " has unsupported type '" + name +
                               "'; pass a device array, a NumPy array, a number, or an object with "
                               "__cuda_array_interface__ or __dlpack__");
  }
  throw pybind11::type_error(describe(kernel, param, i) + " of type '" + name + "' cannot be passed: " + why);
}

void Arguments::classify_named_tuple(PyObject* obj, size_t i, const std::string& kernel, const std::string& param,
                                     rt::Device& device, const std::shared_ptr<rt::Stream>& stream) {
  const NamedTupleType& c = named_tuple_type_of(pybind11::type::handle_of(obj));
  if (size_t(PyTuple_GET_SIZE(obj)) != c.fields.size()) {
    throw pybind11::type_error(describe(kernel, param, i) + " is an instance of namedtuple '" + c.name + "' with " +
                               std::to_string(PyTuple_GET_SIZE(obj)) + " elements but " +
                               std::to_string(c.fields.size()) + " fields");
  }
  last_code() = rt::named_tuple_code(c.id);
  add_slot();  // the tuple's header follows the class's
  classify_tuple(obj, i, kernel, param, device, stream);
}

void Arguments::classify_enum(PyObject* obj, size_t i, const std::string& kernel, const std::string& param,
                              rt::Device& device, const std::shared_ptr<rt::Stream>& stream) {
  const EnumType* e = nullptr;
  try {
    e = &enum_type_of(pybind11::type::handle_of(obj));
  } catch (const pybind11::type_error& error) {
    throw pybind11::type_error(describe(kernel, param, i) + " is a member of an Enum kernels cannot take: " +
                               error.what());
  }
  last_code() = rt::enum_code(e->id);
  pybind11::object value = pybind11::handle(obj).attr("_value_");
  unsigned char* bytes = add_slot().bytes;  // the value's slot; the header's stays as it is
  if (PyTuple_CheckExact(value.ptr())) {
    classify_tuple(value.ptr(), i, kernel, param, device, stream);
    return;
  }
  rt::ArgCode code = fast_number(value.ptr(), bytes, kernel, param, i);
  if (!code) code = slow_number(value.ptr(), bytes);
  if (!code)
    throw pybind11::type_error(describe(kernel, param, i) + " is an Enum member whose value is not a number");
  last_code() = code;
}

namespace {

/// A host argument is copied to a temporary device buffer around the launch and back after it: a graph would
/// replay the launch on a buffer freed long before, and the copy back waits for the kernel.
void refuse_in_capture(const rt::Device& device, const std::shared_ptr<rt::Stream>& stream, const char* what) {
  if (!rt::capture_of(&device, stream ? stream->handle() : nullptr)) return;
  throw rt::CaptureError(std::string(what) +
                         " cannot be an argument of a launch captured into a graph: the launch would copy it to a "
                         "temporary device buffer and back, which a replay cannot repeat; pass device arrays "
                         "(gpu.to_device before the `with gpu.graph()` block)");
}

}  // namespace

void Arguments::host_array(PyObject* obj, rt::Device& device, const std::shared_ptr<rt::Stream>& stream,
                           bool copy_in, bool copy_back) {
  refuse_in_capture(device, stream, "a NumPy (host) array");
  HostCopy copy;
  copy.original = obj;
  copy.buffer = std::make_unique<HostBuffer>(obj);
  rt::ArrayView hv = copy.buffer->view();
  if (!hv.is_c_contiguous() && !hv.is_f_contiguous()) {
    copy.contiguous = numpy().attr("ascontiguousarray")(pybind11::handle(obj));
    copy.buffer = std::make_unique<HostBuffer>(copy.contiguous.ptr());
    hv = copy.buffer->view();
  }
  rt::StreamHandle handle = stream ? stream->handle() : nullptr;
  copy.device = rt::DeviceBuffer::make(device, size_t(hv.nbytes()), stream);
  if (copy_in) device.copy_to_device(copy.device->ptr(), copy.buffer->buffer().buf, size_t(hv.nbytes()), handle);
  copy.write_back = copy_back && !copy.buffer->buffer().readonly;
  rt::ArrayView& view = own_view();
  view = hv;
  view.data = copy.device->ptr();
  view.device = &device;
  last_value().array = &view;
  last_code() = rt::array_code_of(view);
  copies_.push_back(std::move(copy));
}

void Arguments::record_scalar(PyObject* obj, rt::Device& device, const std::shared_ptr<rt::Stream>& stream) {
  refuse_in_capture(device, stream, "a NumPy record scalar");
  pybind11::handle h(obj);
  const RecordType* record = record_from_numpy(h.attr("dtype"));
  if (!record) throw pybind11::type_error("a NumPy void scalar without fields cannot be passed to a kernel");
  HostBuffer bytes(obj);
  if (size_t(bytes.buffer().len) != record->size) throw pybind11::type_error("a record scalar's buffer differs from its dtype");
  RecordCopy copy;
  copy.original = pybind11::reinterpret_borrow<pybind11::object>(obj);
  copy.host = bytes.buffer().buf;
  copy.size = record->size;
  // An element of an array (a[0]) is a view of the array's memory: the kernel's writes go back there.
  pybind11::object base = h.attr("base");
  copy.write_back = pybind11::isinstance(base, numpy().attr("ndarray")) &&
                    base.attr("flags").attr("writeable").cast<bool>();
  copy.device = rt::DeviceBuffer::make(device, copy.size, stream);
  device.copy_to_device(copy.device->ptr(), copy.host, copy.size, stream ? stream->handle() : nullptr);
  uint64_t address = copy.device->ptr();
  std::memcpy(last_value().bytes, &address, 8);
  last_code() = rt::record_code(record->id, 0);
  record_copies_.push_back(std::move(copy));
}

void** Arguments::pack(const rt::ArgCode* targets, size_t buffer_only) {
  size_t n = count_;
  // Locals, not members: the writer's byte stores could alias *this, and the loop would reload them.
  const rt::ArgCode* codes = codes_.data();
  const Value* values = values_.data();
  if (wide_scalars_ == n && !targets) {
    // Only Python floats and ints, taken as they came: one 8-byte parameter each (callgrind: 256 of them
    // packed in about 10 instructions fewer each than through the loop below).
    auto write = [&](auto w) {
      for (size_t i = 0; i < n; ++i) {
        uint64_t value;
        std::memcpy(&value, values[i].bytes, 8);
        w.u64(value);
      }
      params_.finish(w);
    };
    if (buffer_only == 8 * n && n != 0) {  // the buffer alone: no kernelParams pointers (pack_plain)
      write(params_.start_bytes(n));
      return nullptr;
    }
    write(params_.start(n));
    return params_.pointers();
  }
  // classify_fast_run() took every argument: arrays, Python floats and ints, their parameters counted.
  if (fast_params_ != kUncounted && !targets) {
    return pack_plain(params_, codes, values, n, fast_params_, buffer_only);
  }
  size_t most = 0;  // parameters, at most: an array's 1 + 2 * ndim, a scalar's 1 or 2 (complex)
  bool plain = !targets;  // arrays, and Python floats and ints, none converted: pack_plain() takes them
  for (size_t i = 0; i < n; ++i) {
    if (values[i].array && !rt::is_header_code(codes[i])) {
      most += 1 + 2 * size_t(values[i].array->ndim);
    } else {
      most += 2;
      plain = plain && (codes[i] == kFloat64Code || codes[i] == kInt64Code);
    }
  }
  if (plain) return pack_plain(params_, codes, values, n, most, buffer_only);
  rt::ParamBuffer::Writer w = params_.start(most);
  for (size_t i = 0; i < n; ++i) {
    const Value& v = values[i];
    // The commonest parameter first: a Python float or int that the kernel takes as it came (no explicit
    // signature converts it), its 8 bytes as classification stored them.
    if ((codes[i] == kFloat64Code || codes[i] == kInt64Code) && (!targets || targets[i] == codes[i])) {
      uint64_t value;
      std::memcpy(&value, v.bytes, 8);
      w.u64(value);
      continue;
    }
    if (rt::is_header_code(codes[i])) continue;  // its elements (value) follow
    if (rt::is_class_code(codes[i])) continue;   // a dtype: compile-time, no parameter
    if (v.array) {
      const rt::ArrayView& a = *v.array;
      w.u64(a.data);
      if (rt::is_index32_code(codes[i])) {  // the code says the extents and strides fit
        for (int d = 0; d < a.ndim; ++d) w.u32(uint32_t(a.shape[d]));
        for (int d = 0; d < a.ndim; ++d) w.u32(uint32_t(a.strides[d]));
      } else {
        for (int d = 0; d < a.ndim; ++d) w.u64(uint64_t(a.shape[d]));
        for (int d = 0; d < a.ndim; ++d) w.u64(uint64_t(a.strides[d]));
      }
      continue;
    }
    if (rt::is_record_code(codes[i])) {  // a record scalar: the address of its copy
      uint64_t address;
      std::memcpy(&address, v.bytes, 8);
      w.u64(address);
      continue;
    }
    ScalarKind from = kind_of(codes[i]);
    // A pointer parameter (numba's CPointer) takes an integer argument as the address, all 64 bits of it.
    ScalarKind to = !targets ? from : rt::is_pointer_code(targets[i]) ? ScalarKind::UInt64 : kind_of(targets[i]);
    if (to == from && from != ScalarKind::Complex64 && from != ScalarKind::Complex128) {
      // The common case: one parameter, its bytes as classification stored them (a Python float or int: 8).
      if (from == ScalarKind::Float64 || from == ScalarKind::Int64) {
        uint64_t value;
        std::memcpy(&value, v.bytes, 8);
        w.u64(value);
      } else {
        w.bytes(v.bytes, scalar_size(from));
      }
      continue;
    }
    const unsigned char* bytes = v.bytes;
    alignas(8) unsigned char converted[16];
    if (to != from) {
      write_scalar(read_scalar(v.bytes, from), to, converted);
      bytes = converted;
    }
    if (is_complex(to)) {
      unsigned half = scalar_size(to) / 2;
      w.bytes(bytes, half);
      w.bytes(bytes + half, half);
    } else {
      w.bytes(bytes, scalar_size(to));
    }
  }
  params_.finish(w);
  return params_.pointers();
}

void Arguments::finish(rt::Device& device, rt::StreamHandle stream) {
  if (copies_.empty() && record_copies_.empty()) return;
  size_t bytes = 0;
  for (HostCopy& c : copies_) bytes += c.write_back ? size_t(c.buffer->buffer().len) : 0;
  // Waits for the kernel on a CUDA device: other Python threads run meanwhile.
  blocking_call(device, bytes, [&] {
    for (RecordCopy& c : record_copies_) {
      if (c.write_back) device.copy_to_host(c.host, c.device->ptr(), c.size, stream);
    }
    for (HostCopy& c : copies_) {
      if (c.write_back) device.copy_to_host(c.buffer->buffer().buf, c.device->ptr(), size_t(c.buffer->buffer().len), stream);
    }
    device.synchronize_stream(stream);
  });
  for (HostCopy& c : copies_) {
    if (c.write_back && c.contiguous) numpy().attr("copyto")(pybind11::handle(c.original), c.contiguous);
  }
  copies_.clear();
  record_copies_.clear();
}

namespace {
// Not thread_local Arguments: a thread_local with a destructor is reached through an initialization guard,
// and each of two such variables through a TLS lookup of its own, which every launch paid for (callgrind:
// about 100 instructions of the scope's 195 for a launch of no arguments). The owner below, which frees the
// thread's Arguments when the thread ends, is touched at its first launch only.
constinit thread_local ThreadArguments tl_arguments;
thread_local std::unique_ptr<Arguments> tl_owner;

#ifndef Py_GIL_DISABLED
// The process's Arguments, which a scope takes first: reaching even a constinit thread_local costs the binding
// (a module loaded with dlopen) a __tls_get_addr call per launch, a global a load. A scope is made and ended
// with the GIL held, so two threads never take this one at once; a launch that releases the GIL while it
// holds it (the CPU backend runs its grid without it) makes a launch of another thread meanwhile use that
// thread's own, as a launch inside a launch's classification takes a fresh one. Reachable until the process
// ends (never freed: it may be in use by a daemon thread's launch then).
constinit ThreadArguments g_process_arguments;
#endif

[[gnu::noinline]] Arguments* first_arguments(ThreadArguments& t) {
  if (&t == &tl_arguments) {
    tl_owner = std::make_unique<Arguments>();
    return t.args = tl_owner.get();
  }
  return t.args = new Arguments();
}
}  // namespace

ArgumentScope::ArgumentScope(size_t n) {
#ifndef Py_GIL_DISABLED
  ThreadArguments* t = &g_process_arguments;
  if (t->in_use) [[unlikely]] t = &tl_arguments;
#else
  ThreadArguments* t = &tl_arguments;  // no GIL: each thread has its own
#endif
  if (t->in_use) [[unlikely]] {
    nested_ = std::make_unique<Arguments>();
    args_ = nested_.get();
  } else {
    t->in_use = true;
    thread_ = t;
    args_ = t->args ? t->args : first_arguments(*t);
  }
  args_->reset(n);
}

ArgumentScope::~ArgumentScope() {
  // Drops temporaries (device copies, foreign views) even when the launch failed half-way.
  args_->reset(0);
  if (thread_) thread_->in_use = false;
}

}  // namespace gpujit::py
