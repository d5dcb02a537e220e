// PyTorch and CuPy arrays read by their own attributes (see foreign_arrays.h).
#include "foreign_arrays.h"

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "dlpack.h"
#include "dtypes.h"

namespace gpujit::py {
namespace {

enum class Library : uint8_t { Other, Torch, CuPy, Exchange };

}  // namespace

/// A type fast_foreign_view() has seen, and how it reads it.
struct ForeignType {
  PyTypeObject* type;
  Library library;
  const DLPackExchangeAPI* exchange;  // Library::Exchange's table
  bool by_interface = false;          // Library::Other read by launches through __cuda_array_interface__
};

namespace {

// Types seen so far (strong references: a type may not die while it is a key here). Few entries; a deque,
// so the ForeignType pointers known_fast_foreign_type() hands out stay valid as types are added.
std::deque<ForeignType> g_types;
// The entry known_launch_foreign_type() found last (only one it returns): a launch passes several tensors of
// one type, and this spares each the walk of the table.
const ForeignType* g_last_launch_type = nullptr;
bool g_use_exchange_api = true;
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

const ForeignType& known_type_of(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  for (const ForeignType& k : g_types) {
    if (k.type == type) return k;
  }
  // DLPack's C exchange API first: one C call per read, whatever the library (PyTorch 2.11 has it).
  const DLPackExchangeAPI* exchange = g_use_exchange_api ? exchange_api_of(type) : nullptr;
  Library lib = exchange                                 ? Library::Exchange
                : is_instance_of(obj, "torch", "Tensor")  ? Library::Torch
                : is_instance_of(obj, "cupy", "ndarray") ? Library::CuPy
                                                         : Library::Other;
  Py_INCREF(type);
  return g_types.emplace_back(ForeignType{type, lib, exchange});
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

/// Fills shape and, unless `strides` is null, byte strides from tuples of ints (strides in units of
/// `stride_scale` bytes).
bool read_dims(PyObject* shape, PyObject* strides, int64_t stride_scale, rt::ArrayView* out) {
  if (!PyTuple_Check(shape) || (strides && !PyTuple_Check(strides))) return false;
  Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
  if (ndim > rt::kMaxDims || (strides && PyTuple_GET_SIZE(strides) != ndim)) return false;
  out->ndim = int(ndim);
  for (Py_ssize_t i = 0; i < ndim; ++i) {
    out->shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    if (strides) out->strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i)) * stride_scale;
  }
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

using Object = pybind11::object;
Object steal(PyObject* o) { return pybind11::reinterpret_steal<Object>(o); }

/// Reads one attribute: through the type's data descriptor (a C getter such as torch's `dtype`) when it has
/// one, which skips the generic attribute lookup, else by name. It remembers the last type it read from
/// and that type's descriptor (strong references), looked up again when the type is modified.
class AttributeReader {
 public:
  explicit AttributeReader(const char* name) : name_(interned(name)) {}
  /// A new reference, or null with a Python error set.
  PyObject* get(PyObject* obj) {
    refresh(Py_TYPE(obj));
    // A getter defined in C (Cython's properties, PyTorch's) is called as the descriptor would call it,
    // less the descriptor's own check that `obj` is of its type, which the lookup on Py_TYPE(obj) ensured.
    if (getset_) return getset_->get(obj, getset_->closure);
    return getter_ ? getter_(descr_, obj, reinterpret_cast<PyObject*>(type_)) : PyObject_GetAttr(obj, name_);
  }
  /// `obj.name()`. A method the type defines in C (torch's data_ptr, stride) is called through its C
  /// function, found once per type, which skips the lookup along the type's MRO. Like PyTorch's own C++
  /// functions, this reads the tensor through its type and ignores an attribute of that name set on one
  /// instance; a subclass that overrides the method in Python has a different descriptor and goes through
  /// the ordinary call.
  PyObject* call(PyObject* obj) {
    refresh(Py_TYPE(obj));
    if (noargs_) return noargs_(obj, nullptr);  // what the descriptor does for a METH_NOARGS method
    if (method_) return PyObject_Vectorcall(descr_, &obj, 1, nullptr);
    return PyObject_CallMethodNoArgs(obj, name_);
  }

 private:
  void refresh(PyTypeObject* type) {
    // The version tag changes whenever the type or a base is modified (a monkeypatched attribute).
    if (type == type_ && type->tp_version_tag == version_ && version_ != 0) return;
    Py_INCREF(type);
    Py_XDECREF(type_);
    type_ = type;
    PyObject* descr = _PyType_Lookup(type, name_);  // gives the type a version tag if it can have one
    version_ = type->tp_version_tag;
    Py_XINCREF(descr);
    Py_XDECREF(descr_);
    descr_ = descr;
    getter_ = descr_ && PyDescr_IsData(descr_) ? Py_TYPE(descr_)->tp_descr_get : nullptr;
    getset_ = nullptr;
    if (descr_ && Py_IS_TYPE(descr_, &PyGetSetDescr_Type)) {
      PyGetSetDef* def = reinterpret_cast<PyGetSetDescrObject*>(descr_)->d_getset;
      if (def->get) getset_ = def;  // else the descriptor raises "not readable": let it
    }
    method_ = descr_ && Py_IS_TYPE(descr_, &PyMethodDescr_Type);
    noargs_ = nullptr;
    if (method_) {
      PyMethodDef* def = reinterpret_cast<PyMethodDescrObject*>(descr_)->d_method;
      if ((def->ml_flags & (METH_VARARGS | METH_FASTCALL | METH_NOARGS | METH_O | METH_KEYWORDS |
                            METH_METHOD)) == METH_NOARGS) {
        noargs_ = def->ml_meth;
      }
    }
  }

  PyObject* name_;
  PyTypeObject* type_ = nullptr;  // strong references, so the descriptor stays valid
  unsigned int version_ = 0;      // type_'s tp_version_tag when descr_ was looked up; 0: none valid
  PyObject* descr_ = nullptr;
  descrgetfunc getter_ = nullptr;  // set when descr_ is a data descriptor
  PyGetSetDef* getset_ = nullptr;  // set when descr_ is a C getter's descriptor
  bool method_ = false;            // descr_ is a method defined in C
  PyCFunction noargs_ = nullptr;   // set when that method takes no arguments (METH_NOARGS)
};

AttributeReader g_is_cuda("is_cuda"), g_dtype("dtype"), g_shape("shape"), g_version("_version");
AttributeReader g_data_ptr("data_ptr"), g_stride("stride");

bool read_u64(PyObject* o, uint64_t* out) {
  if (!o) return false;
  *out = PyLong_AsUnsignedLongLong(o);
  Py_DECREF(o);
  return !PyErr_Occurred();
}

bool torch_view_uncached(PyObject* t, rt::ArrayView* out) {
  Object is_cuda = steal(g_is_cuda.get(t));
  if (!is_cuda || is_cuda.ptr() != Py_True) {
    PyErr_Clear();
    return false;
  }
  Object dtype = steal(g_dtype.get(t));
  ScalarKind kind;
  if (!dtype || !kind_of_dtype(dtype.ptr(), Library::Torch, &kind)) {
    PyErr_Clear();
    return false;
  }
  Object ptr = steal(g_data_ptr.call(t));
  Object shape = steal(g_shape.get(t));
  Object strides = steal(g_stride.call(t));
  if (!ptr || !shape || !strides) {
    PyErr_Clear();
    return false;
  }
  out->dtype = kind;
  if (!read_dims(shape.ptr(), strides.ptr(), int64_t(scalar_size(kind)), out)) return false;
  out->data = PyLong_AsUnsignedLongLong(ptr.ptr());
  return !PyErr_Occurred() || (PyErr_Clear(), false);
}

// Tensors read recently. Reading a tensor's five attributes costs about 0.4 us; a tensor launched again
// is recognized by identity (a weak reference, so a new tensor at a dead one's address is not taken for
// it) and checked by its `_version` counter, data_ptr() and dtype instead. PyTorch bumps `_version` on
// every in-place operation, including the ones that change shape or strides only (resize_, set_,
// transpose_, unsqueeze_, as_strided_...), so a changed tensor is read again. The one change it does not
// count is assigning `t.data`: that is caught when the pointer or the dtype changes, but not for a view
// that keeps both (`t.data = t.data.t()`), which PyTorch itself documents as unsafe. The cache is only
// touched with the GIL held.
struct CachedTensor {
  PyObject* object = nullptr;  // borrowed, compared by identity only while `ref` is alive
  PyObject* ref = nullptr;     // owned weak reference
  PyObject* dtype = nullptr;   // borrowed: g_dtypes holds a reference
  uint64_t version = 0, data = 0;
  rt::ArrayView view;
};
constexpr size_t kCachedTensors = 16;
CachedTensor g_tensors[kCachedTensors];
size_t g_next_tensor = 0;
TensorCacheCounts g_counts;

/// The tensor's version, pointer and dtype (new reference); false if any is unreadable.
bool tensor_identity(PyObject* t, uint64_t* version, uint64_t* data, Object* dtype) {
  if (!read_u64(g_version.get(t), version) || !read_u64(g_data_ptr.call(t), data)) {
    PyErr_Clear();
    return false;
  }
  *dtype = steal(g_dtype.get(t));
  if (!*dtype) PyErr_Clear();
  return bool(*dtype);
}

bool torch_view(PyObject* t, rt::ArrayView* out) {
  uint64_t version = 0, data = 0;
  Object dtype;
  if (!tensor_identity(t, &version, &data, &dtype)) {
    ++g_counts.uncacheable;
    return torch_view_uncached(t, out);
  }
  CachedTensor* slot = nullptr;
  for (CachedTensor& c : g_tensors) {
    if (c.object == t && PyWeakref_GetObject(c.ref) == t) {
      if (c.version == version && c.data == data && c.dtype == dtype.ptr()) {
        *out = c.view;
        ++g_counts.hits;
        return true;
      }
      slot = &c;
      break;
    }
  }
  if (!torch_view_uncached(t, out)) return false;
  if (!slot) {
    PyObject* ref = PyWeakref_NewRef(t, nullptr);
    if (!ref) {
      PyErr_Clear();
      ++g_counts.uncacheable;
      return true;
    }
    slot = &g_tensors[g_next_tensor++ % kCachedTensors];
    Py_XDECREF(slot->ref);
    slot->ref = ref;
    slot->object = t;
  }
  slot->version = version;
  slot->data = data;
  slot->dtype = dtype.ptr();  // torch dtypes are module constants, and kind_of_dtype keeps this one
  slot->view = *out;
  ++g_counts.misses;
  return true;
}

// CuPy's own readers: a reader remembers one type, and a process may pass tensors and CuPy arrays in turn.
AttributeReader g_cupy_dtype("dtype"), g_cupy_data("data"), g_cupy_ptr("ptr"), g_cupy_shape("shape"),
    g_cupy_strides("strides"), g_cupy_c_contiguous("_c_contiguous");

/// Whether a CuPy array says it is C-contiguous. `_c_contiguous` is the flag CuPy keeps up to date on every
/// change of shape or strides (its `flags.c_contiguous` reads it); a bool, so reading it allocates nothing,
/// where `strides` builds a tuple. Anything unexpected reads as false, and the strides are read.
bool cupy_c_contiguous(PyObject* a) {
  PyObject* flag = g_cupy_c_contiguous.get(a);
  if (!flag) {
    PyErr_Clear();
    return false;
  }
  bool yes = flag == Py_True;
  Py_DECREF(flag);
  return yes;
}

bool cupy_view(PyObject* a, rt::ArrayView* out) {
  Object dtype = steal(g_cupy_dtype.get(a));
  ScalarKind kind;
  if (!dtype || !kind_of_dtype(dtype.ptr(), Library::CuPy, &kind)) {
    PyErr_Clear();
    return false;
  }
  Object data = steal(g_cupy_data.get(a));
  Object ptr = data ? steal(g_cupy_ptr.get(data.ptr())) : Object();
  Object shape = steal(g_cupy_shape.get(a));
  bool c_contiguous = shape && cupy_c_contiguous(a);
  Object strides = c_contiguous ? Object() : steal(g_cupy_strides.get(a));
  if (!ptr || !shape || (!c_contiguous && !strides)) {
    PyErr_Clear();
    return false;
  }
  out->dtype = kind;
  if (c_contiguous) {
    // Row-major strides address the same elements as the array's own, which may differ only along
    // extents of 1 (never stepped along) or when it is empty (nothing addressed).
    if (!read_dims(shape.ptr(), nullptr, 1, out)) return false;
    out->set_c_strides();
  } else if (!read_dims(shape.ptr(), strides.ptr(), 1, out)) {
    return false;
  }
  out->data = PyLong_AsUnsignedLongLong(ptr.ptr());
  return !PyErr_Occurred() || (PyErr_Clear(), false);
}

/// The library's own calls of one read: what fast_foreign_view() asks PyTorch or CuPy for on a launch (the
/// exchange API's function; CuPy's getters; for older PyTorch the cache check's _version, data_ptr() and
/// dtype), without anything gpujit does with the answers. The answers are held until the read ends and then
/// released, as the read holds and releases them, so freeing them (CuPy's shape tuple and pointer int are
/// new objects on every call) counts as the library's here too.
bool library_calls_only(PyObject* obj, const ForeignType& k) {
  switch (k.library) {
    case Library::Exchange: {
      DLTensor t{};
      return k.exchange->dltensor_from_py_object_no_sync(obj, &t) == 0 || (PyErr_Clear(), false);
    }
    case Library::Torch: {
      Object version = steal(g_version.get(obj));
      Object ptr = version ? steal(g_data_ptr.call(obj)) : Object();
      Object dtype = ptr ? steal(g_dtype.get(obj)) : Object();
      return dtype || (PyErr_Clear(), false);
    }
    case Library::CuPy: {
      Object dtype = steal(g_cupy_dtype.get(obj));
      Object data = dtype ? steal(g_cupy_data.get(obj)) : Object();
      Object ptr = data ? steal(g_cupy_ptr.get(data.ptr())) : Object();
      Object shape = ptr ? steal(g_cupy_shape.get(obj)) : Object();
      bool ok = bool(shape);
      Object strides = ok && !cupy_c_contiguous(obj) ? steal(g_cupy_strides.get(obj)) : Object();
      if (!ok) PyErr_Clear();
      return ok;
    }
    case Library::Other:
      return false;
  }
  return false;
}

}  // namespace

TensorCacheCounts tensor_cache_counts() { return g_counts; }

void use_exchange_api(bool enabled) {
  g_use_exchange_api = enabled;
  g_last_launch_type = nullptr;
  for (const ForeignType& k : g_types) Py_DECREF(k.type);
  g_types.clear();  // types are recognized again, the new way
}

const ForeignType* known_fast_foreign_type(PyTypeObject* type) {
  for (const ForeignType& k : g_types) {
    if (k.type == type) return k.library != Library::Other ? &k : nullptr;
  }
  return nullptr;
}

const ForeignType* known_launch_foreign_type(PyTypeObject* type) {
  if (g_last_launch_type && g_last_launch_type->type == type) return g_last_launch_type;
  for (const ForeignType& k : g_types) {
    if (k.type != type) continue;
    if (k.library == Library::Other && !k.by_interface) return nullptr;  // mark_interface_type may change it
    return g_last_launch_type = &k;
  }
  return nullptr;
}

bool is_interface_type(const ForeignType* known) { return known->library == Library::Other; }

void mark_interface_type(PyTypeObject* type) {
  for (ForeignType& k : g_types) {
    if (k.type == type && k.library == Library::Other) k.by_interface = true;
  }
}

bool foreign_library_calls(PyObject* obj, const ForeignType* known) {
  return library_calls_only(obj, known ? *known : known_type_of(obj));
}

rt::ArgCode launch_foreign_view(PyObject* obj, const ForeignType* known, const rt::Device& device,
                                rt::ArrayView* out) {
  if (known->library == Library::Exchange) {
    return launch_view_from_exchange_api(known->exchange, obj, device, out);
  }
  return fast_foreign_view(obj, out, known) ? rt::array_code_of(*out) : rt::kArgInvalid;
}

bool fast_foreign_view(PyObject* obj, rt::ArrayView* out, const ForeignType* known) {
  const ForeignType& k = known ? *known : known_type_of(obj);
  switch (k.library) {
    case Library::Exchange: return view_from_exchange_api(k.exchange, obj, out);
    case Library::Torch: return torch_view(obj, out);
    case Library::CuPy: return cupy_view(obj, out);
    case Library::Other: return false;
  }
  return false;
}

}  // namespace gpujit::py
