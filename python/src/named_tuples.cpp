// collections.namedtuple classes at the binding (see named_tuples.h).
#include "named_tuples.h"

#include <unordered_map>

namespace gpujit::py {

bool is_named_tuple_instance(PyObject* obj) {
  if (!PyTuple_Check(obj) || PyTuple_CheckExact(obj)) return false;
  PyObject* fields = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)), "_fields");
  if (!fields) {
    PyErr_Clear();
    return false;
  }
  bool named = PyTuple_Check(fields);
  for (Py_ssize_t i = 0; named && i < PyTuple_GET_SIZE(fields); ++i) named = PyUnicode_Check(PyTuple_GET_ITEM(fields, i));
  Py_DECREF(fields);
  return named;
}

const NamedTupleType& named_tuple_type_of(pyb::handle cls) {
  static auto* cache =
      new std::unordered_map<PyObject*, const NamedTupleType*>();  // never released, as the classes
  if (auto it = cache->find(cls.ptr()); it != cache->end()) return *it->second;
  NamedTupleDescription d;
  d.name = pyb::str(cls.attr("__name__")).cast<std::string>();
  d.qualname = pyb::str(cls.attr("__qualname__")).cast<std::string>();
  d.module = pyb::str(cls.attr("__module__")).cast<std::string>();
  for (pyb::handle f : cls.attr("_fields")) d.fields.push_back(pyb::str(f).cast<std::string>());
  d.identity = cls.ptr();
  std::string error;
  const NamedTupleType* c = intern_named_tuple(std::move(d), &error);
  if (!c) throw pyb::type_error(error);
  Py_INCREF(cls.ptr());  // the identity stays valid: the class lives as long as its NamedTupleType
  cache->emplace(cls.ptr(), c);
  return *c;
}

}  // namespace gpujit::py
