// PyTorch and CuPy arrays read by their own attributes (see foreign_arrays.h).
#include "foreign_arrays.h"

#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "dtypes.h"

namespace gpujit::py {
namespace {

enum class Library : uint8_t { Other, Torch, CuPy };

// Types seen so far (strong references: a type may not die while it is a key here). Few entries.
std::vector<std::pair<PyTypeObject*, Library>> g_types;
// dtype objects (torch.float32, numpy dtypes of CuPy arrays) and their kinds; nullopt-free: unsupported
// dtypes are not cached and fall back.
std::vector<std::pair<PyObject*, ScalarKind>> g_dtypes;

PyObject* interned(const char* s) {
  PyObject* o = PyUnicode_InternFromString(s);
  return o;  // never released: module-lifetime constants
}

bool is_instance_of(PyObject* obj, const char* module, const char* cls) {
  PyObject* name = PyUnicode_FromString(module);
  PyObject* mod = name ? PyImport_GetModule(name) : nullptr;
  Py_XDECREF(name);
  if (!mod) {
    PyErr_Clear();
    return false;
  }
  PyObject* type = PyObject_GetAttrString(mod, cls);
  Py_DECREF(mod);
  if (!type) {
    PyErr_Clear();
    return false;
  }
  int r = PyObject_IsInstance(obj, type);
  Py_DECREF(type);
  if (r < 0) PyErr_Clear();
  return r == 1;
}

Library library_of(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  for (const auto& [t, lib] : g_types) {
    if (t == type) return lib;
  }
  Library lib = is_instance_of(obj, "torch", "Tensor")  ? Library::Torch
                : is_instance_of(obj, "cupy", "ndarray") ? Library::CuPy
                                                         : Library::Other;
  Py_INCREF(type);
  g_types.emplace_back(type, lib);
  return lib;
}

/// The kind of a dtype object, cached by identity; false if unsupported.
bool kind_of_dtype(PyObject* dtype, Library lib, ScalarKind* kind) {
  for (const auto& [d, k] : g_dtypes) {
    if (d == dtype) {
      *kind = k;
      return true;
    }
  }
  std::optional<ScalarKind> found;
  if (lib == Library::Torch) {
    // str(torch.float32) == "torch.float32"
    PyObject* text = PyObject_Str(dtype);
    if (!text) {
      PyErr_Clear();
      return false;
    }
    std::string s = PyUnicode_AsUTF8(text);
    Py_DECREF(text);
    if (s.rfind("torch.", 0) == 0) found = parse_scalar_name(s.substr(6));
  } else {
    PyObject* str = PyObject_GetAttrString(dtype, "str");  // numpy dtype: "<f4"
    if (!str) {
      PyErr_Clear();
      return false;
    }
    found = kind_from_typestr(PyUnicode_AsUTF8(str));
    Py_DECREF(str);
  }
  if (!found) return false;
  Py_INCREF(dtype);
  g_dtypes.emplace_back(dtype, *found);
  *kind = *found;
  return true;
}

/// Fills shape (and, when `strides` is a tuple, byte strides) from tuples of ints.
bool read_dims(PyObject* shape, PyObject* strides, int64_t stride_scale, rt::ArrayView* out) {
  if (!PyTuple_Check(shape) || !PyTuple_Check(strides)) return false;
  Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
  if (ndim > rt::kMaxDims || PyTuple_GET_SIZE(strides) != ndim) return false;
  out->ndim = int(ndim);
  for (Py_ssize_t i = 0; i < ndim; ++i) {
    out->shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    out->strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i)) * stride_scale;
  }
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

bool torch_view(PyObject* t, rt::ArrayView* out) {
  static PyObject* s_is_cuda = interned("is_cuda");
  static PyObject* s_data_ptr = interned("data_ptr");
  static PyObject* s_shape = interned("shape");
  static PyObject* s_stride = interned("stride");
  static PyObject* s_dtype = interned("dtype");
  pybind11::object is_cuda = pybind11::reinterpret_steal<pybind11::object>(PyObject_GetAttr(t, s_is_cuda));
  if (!is_cuda || is_cuda.ptr() != Py_True) {
    PyErr_Clear();
    return false;
  }
  auto dtype = pybind11::reinterpret_steal<pybind11::object>(PyObject_GetAttr(t, s_dtype));
  ScalarKind kind;
  if (!dtype || !kind_of_dtype(dtype.ptr(), Library::Torch, &kind)) {
    PyErr_Clear();
    return false;
  }
  auto ptr = pybind11::reinterpret_steal<pybind11::object>(PyObject_CallMethodNoArgs(t, s_data_ptr));
  auto shape = pybind11::reinterpret_steal<pybind11::object>(PyObject_GetAttr(t, s_shape));
  auto strides = pybind11::reinterpret_steal<pybind11::object>(PyObject_CallMethodNoArgs(t, s_stride));
  if (!ptr || !shape || !strides) {
    PyErr_Clear();
    return false;
  }
  out->dtype = kind;
  if (!read_dims(shape.ptr(), strides.ptr(), int64_t(scalar_size(kind)), out)) return false;
  out->data = PyLong_AsUnsignedLongLong(ptr.ptr());
  return !PyErr_Occurred() || (PyErr_Clear(), false);
}

bool cupy_view(PyObject* a, rt::ArrayView* out) {
  static PyObject* s_data = interned("data");
  static PyObject* s_ptr = interned("ptr");
  static PyObject* s_shape = interned("shape");
  static PyObject* s_strides = interned("strides");
  static PyObject* s_dtype = interned("dtype");
  auto dtype = pybind11::reinterpret_steal<pybind11::object>(PyObject_GetAttr(a, s_dtype));
  ScalarKind kind;
  if (!dtype || !kind_of_dtype(dtype.ptr(), Library::CuPy, &kind)) {
    PyErr_Clear();
    return false;
  }
  auto data = pybind11::reinterpret_steal<pybind11::object>(PyObject_GetAttr(a, s_data));
  auto ptr = data ? pybind11::reinterpret_steal<pybind11::object>(PyObject_GetAttr(data.ptr(), s_ptr))
                  : pybind11::object();
  auto shape = pybind11::reinterpret_steal<pybind11::object>(PyObject_GetAttr(a, s_shape));
  auto strides = pybind11::reinterpret_steal<pybind11::object>(PyObject_GetAttr(a, s_strides));
  if (!ptr || !shape || !strides) {
    PyErr_Clear();
    return false;
  }
  out->dtype = kind;
  if (!read_dims(shape.ptr(), strides.ptr(), 1, out)) return false;
  out->data = PyLong_AsUnsignedLongLong(ptr.ptr());
  return !PyErr_Occurred() || (PyErr_Clear(), false);
}

}  // namespace

bool fast_foreign_view(PyObject* obj, rt::ArrayView* out) {
  switch (library_of(obj)) {
    case Library::Torch: return torch_view(obj, out);
    case Library::CuPy: return cupy_view(obj, out);
    case Library::Other: return false;
  }
  return false;
}

}  // namespace gpujit::py
