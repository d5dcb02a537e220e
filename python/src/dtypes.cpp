// Element-type conversions at the Python boundary (see dtypes.h).
#include "dtypes.h"

#include "ir/datetime_types.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

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
  if (kind == 'M' || kind == 'm') return parse_npdatetime_name(t);  // "<M8[D]", "<m8[ns]", "<M8"
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
  if (is_npdatetime(k)) {
    const char* unit = date_unit_code(date_unit(k));
    return std::string(is_datetime64(k) ? "<M8" : "<m8") + (*unit ? std::string("[") + unit + "]" : "");
  }
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
  // Read on every launch with a DLPack tensor: a table, no text (a typestr built and parsed here cost a
  // tensor about 300 instructions).
  if (lanes != 1) return std::nullopt;
  const int size = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : bits == 128 ? 4 : -1;
  if (size < 0) return std::nullopt;
  using K = ScalarKind;
  constexpr std::optional<ScalarKind> no;
  // Rows: DLPack's kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool; columns: 8, 16, 32, 64, 128 bits.
  static constexpr std::optional<ScalarKind> kinds[5][5] = {
      {K::Int8, K::Int16, K::Int32, K::Int64, no},
      {K::UInt8, K::UInt16, K::UInt32, K::UInt64, no},
      {no, K::Float16, K::Float32, K::Float64, no},
      {no, no, no, K::Complex64, K::Complex128},
      {K::Bool, no, no, no, no},
  };
  const int row = code <= 2 ? code : code == 5 ? 3 : code == 6 ? 4 : -1;
  return row < 0 ? no : kinds[row][size];
}

pyb::module_& numpy() {
  static pyb::module_* np = new pyb::module_(pyb::module_::import("numpy"));  // never released
  return *np;
}

pyb::object numpy_dtype(ScalarKind kind) {
  static pyb::object* cache[size_t(ScalarKind::TimedeltaGeneric) + 1] = {};
  auto& slot = cache[size_t(kind)];
  if (!slot) {  // a datetime by its typestr: NumPy reads "<M8" but not numba's "datetime64[]"
    std::string name = is_npdatetime(kind) ? typestr_of(kind) : std::string(scalar_name(kind));
    slot = new pyb::object(numpy().attr("dtype")(name));
  }
  return *slot;
}

namespace {

// Records made from NumPy dtypes: the dtype each record id came from (to make arrays of it again), and the
// record of each dtype seen (a dict keyed by the dtype: NumPy hashes dtypes by their full description).
std::vector<pyb::object>& numpy_of_record() {
  static auto* v = new std::vector<pyb::object>();  // never released
  return *v;
}
pyb::dict& record_of_numpy() {
  static auto* d = new pyb::dict();
  return *d;
}

/// The record of structured dtype `dt`; fixed-width string fields ('S<n>', 'U<n>') are code-unit arrays
/// marked as text (ir/record_type.h), which kernels read as CharSeqs.
const RecordType* convert_record(pyb::handle dt, const std::string& path) {
  std::vector<RecordField> fields;
  pyb::object names = dt.attr("names");
  pyb::dict by_name = dt.attr("fields");
  for (pyb::handle n : names) {
    std::string name = n.cast<std::string>();
    std::string where = path.empty() ? name : path + "." + name;
    pyb::tuple entry = by_name[n];
    RecordField f;
    f.name = name;
    f.offset = entry[1].cast<uint64_t>();
    pyb::object ft = entry[0];
    pyb::object sub = ft.attr("subdtype");
    if (!sub.is_none()) {  // a fixed-size array field: (element dtype, shape)
      pyb::tuple st = sub;
      ft = st[0];
      for (pyb::handle d : pyb::tuple(st[1])) f.shape.push_back(d.cast<int64_t>());
    }
    std::string typestr = pyb::str(ft.attr("str")).cast<std::string>();
    char string_kind = typestr.size() > 2 && typestr[0] != '>' ? typestr[1] : 0;  // 'S' or 'U': a string
    if (!ft.attr("names").is_none()) {
      f.type = Type::record_of(convert_record(ft, where));
    } else if (auto k = kind_from_typestr(typestr)) {
      f.type = Type::scalar_of(*k);
    } else if (string_kind == 'S' || string_kind == 'U') {  // kernels hold CharSeqs of it (ir/charseq.h)
      f.type = Type::scalar_of(string_kind == 'S' ? ScalarKind::UInt8 : ScalarKind::UInt32);
      f.shape.push_back(ft.attr("itemsize").cast<int64_t>() / (string_kind == 'S' ? 1 : 4));
      f.text = true;
    } else {
      throw pyb::type_error("record field '" + where + "' has dtype " + pyb::repr(ft).cast<std::string>() +
                            ", which gpujit kernels do not support; fields may be booleans, integers, floats, "
                            "complex numbers (native byte order), records, or fixed-size arrays of them");
    }
    fields.push_back(std::move(f));
  }
  // An aligned struct is aligned as its most aligned field. NumPy says so in `alignment`, except for the
  // np.record dtype a recarray has, which reports 1; the fields say the same for both.
  unsigned align = dt.attr("alignment").cast<unsigned>();
  bool aligned = dt.attr("isalignedstruct").cast<bool>();
  if (aligned) {
    for (pyb::handle n : names)
      align = std::max(align, pyb::tuple(by_name[n])[0].attr("alignment").cast<unsigned>());
  }
  std::string error;
  const RecordType* r =
      intern_record(std::move(fields), dt.attr("itemsize").cast<uint64_t>(), align, aligned, &error);
  if (!r) throw pyb::type_error("cannot use dtype " + pyb::repr(dt).cast<std::string>() + ": " + error);
  auto& dtypes = numpy_of_record();
  if (dtypes.size() < r->id + 1u) dtypes.resize(r->id + 1u);
  if (!dtypes[r->id]) dtypes[r->id] = pyb::reinterpret_borrow<pyb::object>(dt);
  return r;
}

/// The interned string dtype of NumPy's 'S<n>' or 'U<n>'; its NumPy dtype is kept for numpy_dtype_of().
const RecordType* string_dtype(char kind, uint64_t n) {
  std::string error;
  ScalarKind unit = kind == 'S' ? ScalarKind::UInt8 : ScalarKind::UInt32;
  const RecordType* r = intern_string_dtype(unit, n, &error);
  if (!r) throw pyb::type_error(error);
  auto& dtypes = numpy_of_record();
  if (dtypes.size() < r->id + 1u) dtypes.resize(r->id + 1u);
  if (!dtypes[r->id]) dtypes[r->id] = numpy().attr("dtype")((kind == 'S' ? "S" : "<U") + std::to_string(n));
  return r;
}

/// The decimal number `digits` is made of, or nullopt (no digits, or another character).
std::optional<uint64_t> decimal(std::string_view digits) {
  if (digits.empty() || digits.size() > 12) return std::nullopt;
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + uint64_t(c - '0');
  }
  return n;
}

}  // namespace

const RecordType* string_dtype_from_typestr(std::string_view t);

namespace {

/// The string dtype a dtype-like object names ('S12', '<U5', np.dtype('S3')), or null. Only text that
/// reads as one (or a NumPy dtype of kind 'S' or 'U') asks NumPy.
const RecordType* string_dtype_like(pyb::handle obj) {
  std::string text;
  if (pyb::isinstance<pyb::str>(obj)) {
    text = obj.cast<std::string>();
  } else if (pyb::hasattr(obj, "kind") && pyb::hasattr(obj, "str") && pyb::hasattr(obj, "itemsize")) {
    text = pyb::str(obj.attr("str")).cast<std::string>();
  }
  size_t k = !text.empty() && (text[0] == '<' || text[0] == '|' || text[0] == '=') ? 1 : 0;
  if (k >= text.size() || (text[k] != 'S' && text[k] != 'U')) return nullptr;
  return string_dtype_from_typestr(pyb::str(numpy().attr("dtype")(obj).attr("str")).cast<std::string>());
}

}  // namespace

const RecordType* string_dtype_from_typestr(std::string_view t) {
  if (t.size() < 3 || (t[0] != '|' && t[0] != '<' && t[0] != '=')) return nullptr;
  if (t[1] != 'S' && t[1] != 'U') return nullptr;
  std::optional<uint64_t> n = decimal(t.substr(2));
  return n ? string_dtype(t[1], *n) : nullptr;
}

const RecordType* string_dtype_from_format(const char* format) {
  if (!format) return nullptr;
  std::string_view f(format);
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '|')) f.remove_prefix(1);
  if (f.empty() || (f.back() != 's' && f.back() != 'w')) return nullptr;
  std::optional<uint64_t> n = f.size() == 1 ? std::optional<uint64_t>(1) : decimal(f.substr(0, f.size() - 1));
  return n ? string_dtype(f.back() == 's' ? 'S' : 'U', *n) : nullptr;
}

const RecordType* record_from_numpy(pyb::handle dtype) {
  if (!pyb::hasattr(dtype, "names") || dtype.attr("names").is_none()) return nullptr;
  pyb::dict& cache = record_of_numpy();
  // NumPy's dtype equality (and hash) ignores align=True when the offsets come out the same, but numba's
  // Record type, and so the kernel's signature, tells the two apart: the flag is part of the key.
  pyb::tuple key = pyb::make_tuple(dtype, dtype.attr("isalignedstruct"));
  const RecordType* r = cache.contains(key) ? record_by_id(cache[key].cast<unsigned>())
                                            : convert_record(dtype, "");
  cache[key] = r->id;
  return r;
}

namespace {

/// Element types already read from dtype-like objects whose meaning cannot change: exact strings, type objects
/// (NumPy's scalar types, numba's and gpujit's dtype classes) and NumPy dtype instances that are not
/// structured (a structured dtype's field names can be reassigned). Reading one the long way asks several
/// attributes, some of which are missing (each miss formats an AttributeError), and calls numpy.dtype: about
/// 30,000 instructions, most of what `device_array(n, np.float32)` cost (benchmarks/allocation_fake_driver.py).
/// The memo holds a reference to each key, so no address is reused while it is cached; it stops growing at
/// kMaxEntries, which a program only reaches by making dtypes in a loop.
class DtypeMemo {
 public:
  static constexpr size_t kMaxEntries = 512;

  const ElementType* find(PyObject* obj) const {
    auto it = entries_.find(obj);
    return it == entries_.end() ? nullptr : &it->second;
  }

  size_t size() const { return entries_.size(); }

  void remember(pyb::handle obj, ElementType e) {
    if (entries_.size() >= kMaxEntries || !cacheable(obj, e)) return;
    entries_.emplace(obj.inc_ref().ptr(), e);  // the reference is the memo's, for the process's lifetime
  }

 private:
  static bool cacheable(pyb::handle obj, ElementType e) {
    PyObject* o = obj.ptr();
    if (PyUnicode_CheckExact(o)) return true;
    if (PyType_Check(o)) return !e.record;  // a class's `dtype` attribute could be reassigned
    // Only a NumPy dtype is left to cache, and there is none unless NumPy is imported already.
    PyObject* np = PyImport_GetModule(pyb::str("numpy").ptr());
    if (!np) {
      PyErr_Clear();
      return false;
    }
    PyObject* dtype_class = PyObject_GetAttrString(np, "dtype");
    Py_DECREF(np);
    int is_dtype = dtype_class ? PyObject_IsInstance(o, dtype_class) : -1;
    Py_XDECREF(dtype_class);
    if (is_dtype <= 0) {
      PyErr_Clear();
      return false;
    }
    if (!e.record) return true;
    // A string dtype ('S12') has no field names; a structured one's can be reassigned in place.
    PyObject* names = PyObject_GetAttrString(o, "names");
    if (!names) {
      PyErr_Clear();
      return false;
    }
    bool fixed = names == Py_None;
    Py_DECREF(names);
    return fixed;
  }

  std::unordered_map<PyObject*, ElementType> entries_;
};

DtypeMemo& dtype_memo() {
  static DtypeMemo* memo = new DtypeMemo;  // never destroyed: it holds references past the interpreter's end
  return *memo;
}

ElementType read_element_type(pyb::handle obj);

}  // namespace

size_t dtype_memo_size() { return dtype_memo().size(); }

ElementType element_from_dtype_like(pyb::handle obj) {
  if (const ElementType* e = dtype_memo().find(obj.ptr())) return *e;
  ElementType e = read_element_type(obj);
  dtype_memo().remember(obj, e);
  return e;
}

namespace {

ElementType read_element_type(pyb::handle obj) {
  if (const RecordType* r = string_dtype_like(obj)) return ElementType{ScalarKind::UInt8, r};
  // A structured dtype, or anything np.dtype() makes one of (a list of fields, a record scalar type).
  PyObject* np = pyb::isinstance<pyb::str>(obj) ? nullptr : PyImport_GetModule(pyb::str("numpy").ptr());
  if (np) {  // NumPy is imported already if the user holds one of its dtypes
    Py_DECREF(np);
    pyb::object dt;
    if (pyb::hasattr(obj, "names") && pyb::hasattr(obj, "fields")) {
      dt = pyb::reinterpret_borrow<pyb::object>(obj);
    } else if (pyb::isinstance<pyb::list>(obj)) {
      dt = numpy().attr("dtype")(obj);
    } else if (pyb::hasattr(obj, "dtype") && !pyb::hasattr(obj, "_gpujit_dtype")) {
      // numba's Record type carries its NumPy dtype
      pyb::object d = obj.attr("dtype");
      if (pyb::hasattr(d, "names")) dt = d;
    }
    if (dt) {
      if (const RecordType* r = record_from_numpy(dt)) return ElementType{ScalarKind::UInt8, r};
    }
  }
  return ElementType{kind_from_dtype_like(obj), nullptr};
}

}  // namespace

pyb::object numpy_dtype_of(const rt::ArrayView& view) {
  if (!view.record) return numpy_dtype(view.dtype);
  auto& dtypes = numpy_of_record();
  if (view.record->id < dtypes.size() && dtypes[view.record->id]) return dtypes[view.record->id];
  throw pyb::type_error("no NumPy dtype is known for " + view.record->spelling);
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
