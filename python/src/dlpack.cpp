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

enum class DLTensorRead { Ok, NotCuda, Unsupported };

/// The ForeignDeviceError for a CUDA tensor on device `id` where `device` is current. Out of line: the
/// message's strings would give every read a large stack frame.
[[noreturn, gnu::noinline, gnu::cold]] void throw_other_device(int32_t id, const rt::Device& device) {
  throw ForeignDeviceError("is a tensor on CUDA device " + std::to_string(id) + " but " +
                           device_label(device) + " is current; use it inside 'with gpu.gpus[" +
                           std::to_string(id) + "]:'");
}

/// Copies a DLTensor's description into `out` (not its owner, nor its device); NotCuda or Unsupported (an
/// element type gpujit has not, or too many dimensions) with `out` unusable. A CUDA tensor of another
/// device than `device` (the launch's, the current one) is a ForeignDeviceError. With `code`, also the
/// view's argument code, rt::array_code_of(*out), computed in the same pass over the dimensions (the core
/// library's function makes three, size, extent and C-contiguity, each asking for the element size again):
/// the same rules, for views whose extents are all in [1, 2**31); any other view (an empty one, an extent
/// too large for 32-bit indexing or past the 2**62 limit) is left to array_code_of, which also raises for
/// the latter. test_foreign_arrays.py checks that the two agree.
DLTensorRead read_dltensor(const DLTensor& t, const rt::Device& device, rt::ArrayView* out,
                           rt::ArgCode* code = nullptr) {
  if (t.device.device_type == kDLCUDA) {
    // DLPack says which GPU holds the tensor (the CUDA array interface does not): one of another device than
    // the current one is an error here rather than an illegal address in the kernel. The id first: it is
    // the cheap test, and it differs only in that error.
    if (t.device.device_id != device.ordinal() && device.backend() == rt::BackendKind::Cuda) [[unlikely]]
      throw_other_device(t.device.device_id, device);
  } else if (t.device.device_type != kDLCUDAManaged) {
    return DLTensorRead::NotCuda;
  }
  const std::optional<ScalarKind> kind = kind_from_dlpack(t.dtype.code, t.dtype.bits, t.dtype.lanes);
  const int ndim = t.ndim;
  if (!kind || ndim < 0 || ndim > rt::kMaxDims) return DLTensorRead::Unsupported;
  const int64_t itemsize = t.dtype.bits / 8;  // scalar_size(*kind): kind_from_dlpack takes whole bytes only
  out->dtype = *kind;
  out->record = nullptr;
  out->ndim = ndim;
  out->data = rt::DevicePtr(reinterpret_cast<uintptr_t>(t.data) + t.byte_offset);
  // From the last dimension on: `run` is the C stride of dimension d as ArrayView::set_c_strides() makes it
  // (for a tensor without strides), and, while every extent is positive, what is_c_contiguous() expects.
  constexpr int64_t kLimit32 = int64_t{1} << 31;
  uint64_t run = uint64_t(itemsize);  // wrapping, as the core's products do
  bool in_range = true, c_contiguous = true;
  __int128 lo = 0, hi = itemsize;  // the elements' byte offsets from data, as array_code_of bounds them
  for (int d = ndim - 1; d >= 0; --d) {
    const int64_t n = t.shape[d];
    const int64_t stride = t.strides ? t.strides[d] * itemsize : int64_t(run);
    out->shape[d] = n;
    out->strides[d] = stride;
    if (!code) {
      run *= uint64_t(n > 0 ? n : 1);
      continue;
    }
    in_range = in_range && n >= 1 && n < kLimit32;
    c_contiguous = c_contiguous && (n == 1 || uint64_t(stride) == run);
    run *= uint64_t(n > 0 ? n : 1);
    const __int128 span = __int128(n - 1) * stride;
    (span < 0 ? lo : hi) += span;
  }
  if (code) {
    *code = !in_range ? rt::array_code_of(*out)
                      : rt::array_code(*kind, unsigned(ndim),
                                       c_contiguous                               ? Layout::C
                                       : ndim > 1 && out->is_f_contiguous() ? Layout::F
                                                                                  : Layout::Any,
                                       lo > -kLimit32 && hi < kLimit32);
  }
  return DLTensorRead::Ok;
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
  const DLTensor& t = managed->dl_tensor;
  switch (read_dltensor(t, rt::Runtime::get().current_device(), out)) {
    case DLTensorRead::Ok: out->owner = std::move(owner); return true;
    case DLTensorRead::NotCuda:
      *error = "its __dlpack__ tensor is not in CUDA device memory (device type " +
               std::to_string(t.device.device_type) + ")";
      return false;
    case DLTensorRead::Unsupported:
      *error = "its __dlpack__ tensor has an unsupported element type or too many dimensions";
      return false;
  }
  return false;
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
  return read_dltensor(t, rt::Runtime::get().current_device(), out) == DLTensorRead::Ok;
}

rt::ArgCode launch_view_from_exchange_api(const DLPackExchangeAPI* api, PyObject* obj,
                                          const rt::Device& device, rt::ArrayView* out) {
  DLTensor t{};
  if (api->dltensor_from_py_object_no_sync(obj, &t) != 0) [[unlikely]] {
    PyErr_Clear();
    return rt::kArgInvalid;
  }
  rt::ArgCode code = rt::kArgInvalid;
  return read_dltensor(t, device, out, &code) == DLTensorRead::Ok ? code : rt::kArgInvalid;
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
