// Element-type conversions at the Python boundary (see dtypes.h).
#include "dtypes.h"

#include <cstring>

namespace gpujit::py {

std::optional<ScalarKind> kind_from_format(const char* format) {
  if (!format) return ScalarKind::UInt8;  // PEP 3118: a null format means unsigned bytes
  if (*format == '<' || *format == '=' || *format == '@') ++format;
  std::string_view f(format);
  if (f == "?") return ScalarKind::Bool;
  if (f == "b") return ScalarKind::Int8;
  if (f == "B") return ScalarKind::UInt8;
  if (f == "h") return ScalarKind::Int16;
  if (f == "H") return ScalarKind::UInt16;
  if (f == "i") return ScalarKind::Int32;
  if (f == "I") return ScalarKind::UInt32;
  if (f == "l" || f == "q") return sizeof(long) == 8 || f == "q" ? ScalarKind::Int64 : ScalarKind::Int32;
  if (f == "L" || f == "Q") return sizeof(long) == 8 || f == "Q" ? ScalarKind::UInt64 : ScalarKind::UInt32;
  if (f == "e") return ScalarKind::Float16;
  if (f == "f") return ScalarKind::Float32;
  if (f == "d") return ScalarKind::Float64;
  if (f == "Zf") return ScalarKind::Complex64;
  if (f == "Zd") return ScalarKind::Complex128;
  return std::nullopt;
}

std::optional<ScalarKind> kind_from_typestr(std::string_view t) {
  if (t.size() < 3 || t[0] == '>') return std::nullopt;
  char kind = t[1];
  int size = 0;
  for (char c : t.substr(2)) {
    if (c < '0' || c > '9') return std::nullopt;
    size = size * 10 + (c - '0');
  }
  switch (kind) {
    case 'b': return size == 1 ? std::optional(ScalarKind::Bool) : std::nullopt;
    case 'i':
      if (size == 1) return ScalarKind::Int8;
      if (size == 2) return ScalarKind::Int16;
      if (size == 4) return ScalarKind::Int32;
      if (size == 8) return ScalarKind::Int64;
      return std::nullopt;
    case 'u':
      if (size == 1) return ScalarKind::UInt8;
      if (size == 2) return ScalarKind::UInt16;
      if (size == 4) return ScalarKind::UInt32;
      if (size == 8) return ScalarKind::UInt64;
      return std::nullopt;
    case 'f':
      if (size == 2) return ScalarKind::Float16;
      if (size == 4) return ScalarKind::Float32;
      if (size == 8) return ScalarKind::Float64;
      return std::nullopt;
    case 'c':
      if (size == 8) return ScalarKind::Complex64;
      if (size == 16) return ScalarKind::Complex128;
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::string typestr_of(ScalarKind k) {
  unsigned size = scalar_size(k);
  char kind = k == ScalarKind::Bool ? 'b'
              : is_signed(k)        ? 'i'
              : is_unsigned(k)      ? 'u'
              : is_float(k)         ? 'f'
                                    : 'c';
  return std::string(size == 1 ? "|" : "<") + kind + std::to_string(size);
}

void dlpack_type_of(ScalarKind k, uint8_t* code, uint8_t* bits) {
  *bits = uint8_t(scalar_size(k) * 8);
  if (k == ScalarKind::Bool) *code = 6;           // kDLBool
  else if (is_signed(k)) *code = 0;               // kDLInt
  else if (is_unsigned(k)) *code = 1;             // kDLUInt
  else if (is_float(k)) *code = 2;                // kDLFloat
  else *code = 5;                                 // kDLComplex
}

std::optional<ScalarKind> kind_from_dlpack(uint8_t code, uint8_t bits, uint16_t lanes) {
  if (lanes != 1) return std::nullopt;
  const char* kind = nullptr;
  switch (code) {
    case 0: kind = "i"; break;
    case 1: kind = "u"; break;
    case 2: kind = "f"; break;
    case 5: kind = "c"; break;
    case 6: return bits == 8 ? std::optional(ScalarKind::Bool) : std::nullopt;
    default: return std::nullopt;
  }
  return kind_from_typestr(std::string("<") + kind + std::to_string(bits / 8));
}

pyb::module_& numpy() {
  static pyb::module_* np = new pyb::module_(pyb::module_::import("numpy"));  // never released
  return *np;
}

pyb::object numpy_dtype(ScalarKind kind) {
  static pyb::object* cache[16] = {};
  auto& slot = cache[size_t(kind)];
  if (!slot) slot = new pyb::object(numpy().attr("dtype")(scalar_name(kind)));
  return *slot;
}

ScalarKind kind_from_dtype_like(pyb::handle obj) {
  auto by_name = [&](const std::string& name) -> std::optional<ScalarKind> { return parse_scalar_name(name); };
  if (pyb::isinstance<pyb::str>(obj)) {
    if (auto k = by_name(obj.cast<std::string>())) return *k;
    if (auto k = kind_from_typestr(obj.cast<std::string>())) return *k;
  } else if (obj.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) {
    return ScalarKind::Float64;
  } else if (obj.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) {
    return ScalarKind::Int64;
  } else if (obj.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) {
    return ScalarKind::Bool;
  } else if (obj.ptr() == reinterpret_cast<PyObject*>(&PyComplex_Type)) {
    return ScalarKind::Complex128;
  } else {
    // gpujit dtypes and numba types print as their name; NumPy dtypes and scalar types go through
    // numpy.dtype, which is imported already if the user holds one.
    if (pyb::hasattr(obj, "_gpujit_dtype")) {
      if (auto k = by_name(pyb::str(obj.attr("_gpujit_dtype")).cast<std::string>())) return *k;
    }
    PyObject* np = PyImport_GetModule(pyb::str("numpy").ptr());
    if (np) {
      Py_DECREF(np);
      try {
        pyb::object dt = numpy().attr("dtype")(obj);
        if (auto k = kind_from_typestr(pyb::str(dt.attr("str")).cast<std::string>())) return *k;
      } catch (const pyb::error_already_set&) {
      }
    }
    if (auto k = by_name(pyb::str(obj).cast<std::string>())) return *k;
  }
  throw pyb::type_error("not a supported dtype: " + pyb::repr(obj).cast<std::string>());
}

}  // namespace gpujit::py
