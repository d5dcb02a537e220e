// The ufuncs' per-call reads of their operands (see ufunc_operands.h).
#include "ufunc_operands.h"

#include <memory>
#include <string>

#include "arrays.h"
#include "dlpack.h"
#include "foreign_arrays.h"
#include "runtime/runtime.h"

namespace gpujit::py {
namespace {

/// Reads a PyTorch tensor or CuPy array as a launch does (fast_foreign_view); false for anything else and
/// for a tensor that path does not take (a CPU tensor, an unsupported dtype): those go through the generic
/// protocols, as they do on a launch. A tensor of another device is a TypeError, as on a launch.
bool foreign_view(PyObject* obj, rt::ArrayView* view) {
  try {
    return fast_foreign_view(obj, view, known_fast_foreign_type(Py_TYPE(obj)));
  } catch (const ForeignDeviceError& e) {
    throw pyb::type_error(std::string("the array ") + e.what());
  }
}

}  // namespace

void register_ufunc_operands(pyb::module_& m) {
  // The key of vectorize's fast path (ufunc.py, UFunc.__call__): (n, (dtype code of each input, then of out
  // or None)) when every input is a 1-D array of n elements of a scalar dtype (a DeviceArray, or a tensor or
  // CuPy array that the launch path reads by its own attributes) and out is None or one more such array; None
  // otherwise. The fast path then launches on the arrays as given, so a foreign one is read once more there.
  m.def("_elementwise_key", [](pyb::tuple args, pyb::handle out) -> pyb::object {
    const size_t count = args.size();
    if (count == 0) return pyb::none();
    int64_t n = -1;
    auto code = [&](PyObject* obj) -> PyObject* {
      rt::ArrayView foreign;
      const rt::ArrayView* v = nullptr;
      if (Py_TYPE(obj) == g_device_array_type) {
        v = &device_array_of(obj)->view;
      } else {
        try {
          if (!foreign_view(obj, &foreign)) return nullptr;
        } catch (const pyb::type_error&) {
          return nullptr;  // the general path raises it with the ufunc's context
        }
        v = &foreign;
      }
      if (v->ndim != 1 || v->record) return nullptr;
      if (n < 0) n = v->size();
      if (v->size() != n) return nullptr;
      return PyLong_FromLong(static_cast<long>(v->dtype));
    };
    pyb::tuple key(count + 1);
    for (size_t i = 0; i < count; ++i) {
      PyObject* c = code(args[i].ptr());
      if (!c) return pyb::none();
      PyTuple_SET_ITEM(key.ptr(), i, c);
    }
    if (out.is_none()) {
      PyTuple_SET_ITEM(key.ptr(), count, pyb::none().release().ptr());
    } else {
      PyObject* c = code(out.ptr());
      if (!c) return pyb::none();
      PyTuple_SET_ITEM(key.ptr(), count, c);
    }
    return pyb::make_tuple(n, std::move(key));
  });

  m.def("_foreign_device_array", [](pyb::handle obj) -> pyb::object {
    rt::ArrayView v;
    if (!foreign_view(obj.ptr(), &v)) return pyb::none();
    v.device = &rt::Runtime::get().current_device();
    PyObject* keep = obj.ptr();
    Py_INCREF(keep);
    v.owner = std::shared_ptr<void>(keep, [](void* p) { Py_DECREF(static_cast<PyObject*>(p)); });
    return wrap_device_array(std::move(v), nullptr);
  }, pyb::arg("obj"),
     "A DeviceArray over a PyTorch tensor's or CuPy array's memory (kept alive by it), read by the library's "
     "own attributes as a kernel launch reads it: no __cuda_array_interface__ dict, no wait for its stream; "
     "None for any other object (and a CPU tensor).");
}

}  // namespace gpujit::py
