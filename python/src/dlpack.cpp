// DLPack export of DeviceArray and import of other libraries' tensors (see dlpack.h).
#include "dlpack.h"

#include <pybind11/pybind11.h>

#include "arrays.h"
#include "dtypes.h"
#include "runtime/runtime.h"

namespace gpujit::py {
namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

// What an exported tensor owns: its shape and strides, and a reference to the DeviceArray.
struct Export {
  DLManagedTensor managed{};
  int64_t shape[rt::kMaxDims];
  int64_t strides[rt::kMaxDims];
  PyObject* array;
};

void delete_export(DLManagedTensor* self) {
  auto* e = static_cast<Export*>(self->manager_ctx);
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(e->array);
  PyGILState_Release(gil);
  delete e;
}

void capsule_destructor(PyObject* capsule) {
  // A capsule nobody consumed still owns its tensor.
  if (PyCapsule_IsValid(capsule, kCapsuleName)) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
    if (managed && managed->deleter) managed->deleter(managed);
  }
}

pybind11::object export_dlpack(pybind11::handle self, pybind11::handle stream) {
  const PyDeviceArray& a = self.cast<const PyDeviceArray&>();
  if (a.view.record) throw pybind11::type_error("DLPack has no structured (record) element types");
  if (is_npdatetime(a.view.dtype))
    throw pybind11::type_error("DLPack has no datetime64 or timedelta64 element types; export a.view(np.int64)");
  // The consumer will use the data on its stream; work on ours must be done first unless both are the
  // default stream.
  if (a.stream && !(stream.is_none() || (PyLong_Check(stream.ptr()) && PyLong_AsLongLong(stream.ptr()) == -1))) {
    pybind11::gil_scoped_release release;
    a.stream->synchronize();
  }
  auto* e = new Export();
  const rt::ArrayView& v = a.view;
  unsigned itemsize = v.itemsize();
  for (int i = 0; i < v.ndim; ++i) {
    e->shape[i] = v.shape[i];
    e->strides[i] = v.strides[i] / int64_t(itemsize);
  }
  e->array = self.ptr();
  Py_INCREF(e->array);
  DLTensor& t = e->managed.dl_tensor;
  t.data = reinterpret_cast<void*>(uintptr_t(v.data));
  t.device = {kDLCUDA, v.device ? v.device->ordinal() : 0};
  t.ndim = v.ndim;
  dlpack_type_of(v.dtype, &t.dtype.code, &t.dtype.bits);
  t.dtype.lanes = 1;
  t.shape = e->shape;
  t.strides = e->strides;
  t.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = delete_export;
  PyObject* capsule = PyCapsule_New(&e->managed, kCapsuleName, capsule_destructor);
  if (!capsule) {
    delete_export(&e->managed);
    throw pybind11::error_already_set();
  }
  return pybind11::reinterpret_steal<pybind11::object>(capsule);
}

}  // namespace

namespace {

/// Copies a DLTensor's description into `out` (not its owner); false with *error set if it is not in CUDA
/// memory or has an unsupported element type or too many dimensions.
bool view_of_dltensor(const DLTensor& t, rt::ArrayView* out, std::string* error) {
  if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAManaged) {
    *error = "its __dlpack__ tensor is not in CUDA device memory (device type " +
             std::to_string(t.device.device_type) + ")";
    return false;
  }
  if (t.device.device_type == kDLCUDA) {
    // DLPack says which GPU holds the tensor (the CUDA array interface does not): one of another device than
    // the current one is an error here rather than an illegal address in the kernel.
    rt::Device& current = rt::Runtime::get().current_device();
    if (current.backend() == rt::BackendKind::Cuda && t.device.device_id != current.ordinal()) {
      throw ForeignDeviceError("is a tensor on CUDA device " + std::to_string(t.device.device_id) + " but " +
                               device_label(current) + " is current; use it inside 'with gpu.gpus[" +
                               std::to_string(t.device.device_id) + "]:'");
    }
  }
  auto kind = kind_from_dlpack(t.dtype.code, t.dtype.bits, t.dtype.lanes);
  if (!kind || t.ndim < 0 || t.ndim > rt::kMaxDims) {
    *error = "its __dlpack__ tensor has an unsupported element type or too many dimensions";
    return false;
  }
  out->dtype = *kind;
  out->ndim = t.ndim;
  for (int i = 0; i < t.ndim; ++i) out->shape[i] = t.shape[i];
  if (t.strides) {
    for (int i = 0; i < t.ndim; ++i) out->strides[i] = t.strides[i] * int64_t(scalar_size(*kind));
  } else {
    out->set_c_strides();
  }
  out->data = rt::DevicePtr(reinterpret_cast<uintptr_t>(t.data) + t.byte_offset);
  return true;
}

}  // namespace

bool view_from_dlpack(PyObject* obj, rt::ArrayView* out, std::string* error) {
  PyObject* method = PyObject_GetAttrString(obj, "__dlpack__");
  if (!method) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw pybind11::error_already_set();
    PyErr_Clear();
    *error = "it has neither __cuda_array_interface__ nor __dlpack__";
    return false;
  }
  PyObject* capsule = PyObject_CallNoArgs(method);
  Py_DECREF(method);
  if (!capsule) throw pybind11::error_already_set();
  pybind11::object holder = pybind11::reinterpret_steal<pybind11::object>(capsule);
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (!managed) throw pybind11::error_already_set();
  // From here on the tensor is ours to release.
  PyCapsule_SetName(capsule, kUsedCapsuleName);
  std::shared_ptr<void> owner(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  if (!view_of_dltensor(managed->dl_tensor, out, error)) return false;
  out->owner = std::move(owner);
  return true;
}

const DLPackExchangeAPI* exchange_api_of(PyTypeObject* type) {
  static PyObject* name = PyUnicode_InternFromString("__dlpack_c_exchange_api__");  // never released
  PyObject* attr = _PyType_Lookup(type, name);  // borrowed; no error set when missing
  const void* table = nullptr;
  if (attr && PyCapsule_CheckExact(attr)) {
    table = PyCapsule_GetPointer(attr, PyCapsule_GetName(attr));
  } else if (attr && PyLong_CheckExact(attr)) {
    table = PyLong_AsVoidPtr(attr);
  }
  if (PyErr_Occurred()) PyErr_Clear();
  auto* api = static_cast<const DLPackExchangeAPI*>(table);
  if (!api || api->version.major != 1 || api->version.minor < 3 || !api->dltensor_from_py_object_no_sync) {
    return nullptr;
  }
  return api;
}

bool view_from_exchange_api(const DLPackExchangeAPI* api, PyObject* obj, rt::ArrayView* out) {
  DLTensor t{};
  if (api->dltensor_from_py_object_no_sync(obj, &t) != 0) {
    PyErr_Clear();
    return false;
  }
  std::string error;
  return view_of_dltensor(t, out, &error);
}

void register_dlpack(pybind11::module_& m, pybind11::class_<PyDeviceArray>& cls) {
  cls.def(
      "__dlpack__",
      [](pybind11::handle self, pybind11::handle stream, pybind11::kwargs) { return export_dlpack(self, stream); },
      pybind11::arg("stream") = pybind11::none());
  cls.def("__dlpack_device__", [](const PyDeviceArray& a) {
    return pybind11::make_tuple(kDLCUDA, a.view.device ? a.view.device->ordinal() : 0);
  });
  m.def(
      "from_dlpack",
      [](pybind11::handle obj) -> pybind11::object {
        if (Py_TYPE(obj.ptr()) == g_device_array_type) return pybind11::reinterpret_borrow<pybind11::object>(obj);
        rt::ArrayView v;
        std::string error;
        bool found = false;
        try {
          found = view_from_dlpack(obj.ptr(), &v, &error);
        } catch (const ForeignDeviceError& e) {
          throw pybind11::value_error("from_dlpack: " + pybind11::repr(obj).cast<std::string>() + " " + e.what());
        }
        if (!found) {
          throw pybind11::type_error("from_dlpack: " + pybind11::repr(obj).cast<std::string>() + ": " + error);
        }
        v.device = &rt::Runtime::get().current_device();
        return wrap_device_array(std::move(v), nullptr);
      },
      pybind11::arg("obj"), "A DeviceArray sharing the memory of an object with __dlpack__ (zero-copy).");
}

}  // namespace gpujit::py
