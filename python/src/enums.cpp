// Python's Enum classes at the binding (see enums.h).
#include "enums.h"

#include <cstring>
#include <unordered_map>

#include "dtypes.h"

namespace gpujit::py {

std::optional<ConstValue> constant_from_python(pyb::handle value) {
  PyObject* v = value.ptr();
  if (PyBool_Check(v)) return ConstValue::of_bool(v == Py_True);
  if (PyLong_Check(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) return ConstValue::of_int(x);
    unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(v) : 0;
    if (overflow < 0 || PyErr_Occurred()) {
      PyErr_Clear();
      return std::nullopt;
    }
    return ConstValue::of_int(int64_t(u), ScalarKind::UInt64);
  }
  if (PyFloat_Check(v)) return ConstValue::of_float(PyFloat_AS_DOUBLE(v));
  if (PyUnicode_Check(v)) return ConstValue::of_string(value.cast<std::string>(), false);
  if (PyTuple_Check(v)) {
    std::vector<ConstValue> elements;
    for (pyb::handle e : value) {
      std::optional<ConstValue> c = constant_from_python(e);
      if (!c) return std::nullopt;
      elements.push_back(std::move(*c));
    }
    return ConstValue::of_tuple(std::move(elements));
  }
  if (std::strncmp(Py_TYPE(v)->tp_name, "numpy.", 6) == 0 && pyb::hasattr(value, "dtype")) {
    std::optional<ScalarKind> k =
        kind_from_typestr(pyb::str(value.attr("dtype").attr("str")).cast<std::string>());
    if (!k || !(*k == ScalarKind::Bool || is_integer(*k) || is_float(*k))) return std::nullopt;
    std::optional<ConstValue> c = constant_from_python(value.attr("item")());
    if (!c) return std::nullopt;
    c->scalar = *k;
    if (c->kind == ConstValue::Kind::Int && is_float(*k)) return std::nullopt;
    return c;
  }
  return std::nullopt;
}

bool is_enum_member(PyObject* obj) {
  PyObject* module = PyImport_GetModule(pyb::str("enum").ptr());
  if (!module) {
    PyErr_Clear();
    return false;
  }
  pyb::object m = pyb::reinterpret_steal<pyb::object>(module);
  int r = PyObject_IsInstance(obj, m.attr("Enum").ptr());
  if (r < 0) throw pyb::error_already_set();
  return r == 1;
}

const EnumType& enum_type_of(pyb::handle cls) {
  static auto* cache =
      new std::unordered_map<PyObject*, const EnumType*>();  // never released, as the classes
  if (auto it = cache->find(cls.ptr()); it != cache->end()) return *it->second;
  EnumDescription d;
  d.name = pyb::str(cls.attr("__qualname__")).cast<std::string>();
  d.module = pyb::str(cls.attr("__module__")).cast<std::string>();
  d.is_int = PyObject_IsSubclass(cls.ptr(), reinterpret_cast<PyObject*>(&PyLong_Type)) == 1;
  d.identity = cls.ptr();
  pyb::dict members = pyb::dict(cls.attr("__members__"));
  for (auto [name, member] : members) {
    pyb::object value = member.attr("_value_");
    std::optional<ConstValue> c = constant_from_python(value);
    if (!c) {
      throw pyb::type_error(
          "the value " + pyb::repr(value).cast<std::string>() + " of member '" + name.cast<std::string>() +
          "' of Enum '" + d.name +
          "' is not a number, a bool or a tuple of them; kernels hold an Enum member as its "
          "value");
    }
    d.members.emplace_back(name.cast<std::string>(), std::move(*c));
  }
  std::string error;
  const EnumType* e = intern_enum(std::move(d), &error);
  if (!e) throw pyb::type_error(error);
  Py_INCREF(cls.ptr());  // the identity stays valid: the class lives as long as its EnumType
  cache->emplace(cls.ptr(), e);
  return *e;
}

}  // namespace gpujit::py
