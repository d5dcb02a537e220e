// The runtime's memory and device services beyond arrays, bound for the Python package (see memory_api.h).
//
// The External Memory Management hook: a device given a Python callable by _set_external_allocator makes its
// arrays' memory by calling it with the size in bytes; the callable (gpujit._memory_manager) calls the
// plugin's memalloc and returns (address, owner). The owner, a Python object, is held by the array's buffer
// (rt::DeviceBuffer) and released when the buffer dies, under the GIL, so the plugin's finalizer runs then.
// Devices without one (every device, unless a plugin is set) allocate as before: the runtime tests one
// pointer (runtime/device_array.cpp).
#include "memory_api.h"

#include <cstring>
#include <memory>

#include "arrays.h"
#include "runtime/runtime.h"

namespace gpujit::py {
namespace {

namespace pyb = pybind11;

/// A strong reference to a Python object that any thread may drop: the last owner takes the GIL to release
/// it (nothing is released once the interpreter is finalizing, when the object goes with the process).
std::shared_ptr<void> hold(pyb::handle obj) {
  PyObject* p = obj.inc_ref().ptr();
  return std::shared_ptr<void>(p, [](void* raw) {
#if PY_VERSION_HEX >= 0x030D0000
    if (!Py_IsInitialized() || Py_IsFinalizing()) return;
#else
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
#endif
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(static_cast<PyObject*>(raw));
    PyGILState_Release(gil);
  });
}

/// An ExternalAllocator over a Python callable `allocate(size) -> (address, owner)`.
class PythonAllocator final : public rt::ExternalAllocator {
 public:
  explicit PythonAllocator(pyb::handle allocate) : allocate_(hold(allocate)) {}

  Allocation allocate(size_t bytes) override {
    pyb::gil_scoped_acquire gil;
    pyb::handle fn(static_cast<PyObject*>(allocate_.get()));
    pyb::object result = fn(bytes);
    if (!PyTuple_Check(result.ptr()) || PyTuple_GET_SIZE(result.ptr()) != 2) {
      throw pyb::type_error("an external allocator must return (address, owner)");
    }
    pyb::handle address = PyTuple_GET_ITEM(result.ptr(), 0);
    pyb::handle owner = PyTuple_GET_ITEM(result.ptr(), 1);
    return {address.cast<uint64_t>(), hold(owner)};
  }

 private:
  std::shared_ptr<void> allocate_;
};

rt::IpcMemHandle ipc_handle_from(const pyb::bytes& data) {
  std::string raw = data;
  rt::IpcMemHandle h;
  if (raw.size() != sizeof(h.bytes)) {
    throw pyb::value_error("a CUDA IPC handle has " + std::to_string(sizeof(h.bytes)) + " bytes, not " +
                           std::to_string(raw.size()));
  }
  std::memcpy(h.bytes, raw.data(), sizeof(h.bytes));
  return h;
}

void* host_address(uint64_t ptr) { return reinterpret_cast<void*>(uintptr_t(ptr)); }

/// Device memory from gpujit's own caching allocator, whatever allocator the device's arrays use: numba's
/// default manager (gpujit's GpujitMemoryManager) hands it out, also to a plugin that derives from it and
/// calls super().memalloc, which must not come back to the plugin.
struct OwnDeviceMemory {
  std::shared_ptr<rt::DeviceBuffer> buffer;
};

}  // namespace

void register_memory_api(pyb::module_& m) {
  m.def("_set_external_allocator", [](PyDevice& d, pyb::object allocate) {
    if (allocate.is_none()) {
      d.device->set_external_allocator(nullptr);
    } else {
      d.device->set_external_allocator(std::make_shared<PythonAllocator>(allocate));
    }
  }, pyb::arg("device"), pyb::arg("allocate"),
     "Makes `device`'s arrays take their memory from allocate(size) -> (address, owner); None: gpujit's own.");
  pyb::class_<OwnDeviceMemory>(m, "_OwnDeviceMemory")
      .def_property_readonly("address", [](const OwnDeviceMemory& o) { return uint64_t(o.buffer->ptr()); })
      .def_property_readonly("size", [](const OwnDeviceMemory& o) { return o.buffer->bytes(); });
  m.def("_own_device_memory", [](PyDevice& d, size_t bytes) {
    d.device->activate();
    return OwnDeviceMemory{std::make_shared<rt::DeviceBuffer>(*d.device, bytes, nullptr)};
  }, pyb::arg("device"), pyb::arg("bytes"),
     "`bytes` of device memory from the device's caching allocator, never from an external allocator.");
  m.def("_push_context_if_none", [](PyDevice& d) {
    // numba's current_context() leaves the device's context current on a thread that had none, so that a
    // `with cuda.gpus[i]` block after it restores that context, and the driver's own calls see it.
    // A context another library created (cuCtxCreate) and left current is refused, as numba-cuda refuses it:
    // gpujit works in primary contexts only, and replacing the caller's context behind its back would break it.
    if (d.device->backend() != rt::BackendKind::Cuda) return;
    if (d.device->thread_context() == nullptr) {
      d.device->activate();
    } else {
      d.device->check_thread_context();
    }
  }, pyb::arg("device"),
     "Makes the device's CUDA context current on this thread if no context is; RuntimeError if a non-primary "
     "context is.");
  m.def("_set_transfer_hook", [](pyb::object hook) {
    if (hook.is_none()) {
      rt::Device::set_transfer_hook(nullptr);
      return;
    }
    std::shared_ptr<void> held = hold(hook);
    rt::Device::set_transfer_hook([held](bool to_device, uintptr_t dst, uintptr_t src, size_t bytes,
                                         rt::StreamHandle stream) {
      pyb::gil_scoped_acquire gil;
      pyb::handle(static_cast<PyObject*>(held.get()))(to_device, dst, src, bytes, uintptr_t(stream));
    });
  }, pyb::arg("hook"),
     "hook(to_device, dst, src, nbytes, stream) does every host<->device copy instead of the device (numba's "
     "driver.cuMemcpyHtoD/DtoH replaced, gpujit/cudadrv/driver.py); None: the devices copy again.");
  m.def("_raw_copy", [](bool to_device, uint64_t dst, uint64_t src, size_t bytes, uint64_t stream) {
    rt::Device& d = rt::Runtime::get().current_device();
    auto s = reinterpret_cast<rt::StreamHandle>(uintptr_t(stream));
    pyb::gil_scoped_release release;
    rt::Device::TransferHookBypass bypass;  // the device's own copy, whatever hook is set
    if (to_device) {
      d.copy_to_device(dst, reinterpret_cast<const void*>(uintptr_t(src)), bytes, s);
    } else {
      d.copy_to_host(reinterpret_cast<void*>(uintptr_t(dst)), src, bytes, s);
    }
    if (!s) d.synchronize_stream(s);  // the driver's synchronous copies return with the copy done
  }, pyb::arg("to_device"), pyb::arg("dst"), pyb::arg("src"), pyb::arg("nbytes"), pyb::arg("stream") = 0,
     "A host<->device copy on the current device, never through the transfer hook.");
  m.def("_has_external_allocator", [](PyDevice& d) { return d.device->external_allocator() != nullptr; });
  m.def("_set_first_use_hook", [](pyb::object hook) {
    if (hook.is_none()) {
      rt::Runtime::get().set_first_use_hook(nullptr);
      return;
    }
    std::shared_ptr<void> held = hold(hook);
    rt::Runtime::get().set_first_use_hook([held](rt::Device& device) {
      pyb::gil_scoped_acquire gil;
      pyb::handle(static_cast<PyObject*>(held.get()))(PyDevice{&device});
    });
  }, pyb::arg("hook"),
     "hook(device) is called the first time each device becomes a thread's current device (runtime/runtime.h).");
  m.def("_reset_devices", [] { rt::Runtime::get().reset_devices(); },
        "Forgets which devices were used, and every thread chooses its device anew (numba's cuda.close()).");
  m.def("_used_devices", [] {
    pyb::list out;
    for (rt::Device* d : rt::Runtime::get().used_devices()) out.append(PyDevice{d});
    return out;
  }, "The devices some thread has made current since the process started (or since _reset_devices).");
  m.def("_forget_current_device", [] { rt::Runtime::get().forget_current_device(); },
        "The calling thread chooses its device anew at its next use.");

  m.def("_defer_release", [](PyDevice& d, bool defer) {
    if (defer) {
      d.device->allocator().defer_release();
    } else {
      d.device->allocator().resume_release();
    }
  }, pyb::arg("device"), pyb::arg("defer"), "Defers (or resumes) giving cached memory back (defer_cleanup()).");
  m.def("_release_deferred", [](PyDevice& d) { return d.device->allocator().release_deferred(); });
  m.def("_release_cached", [](PyDevice& d) {
    rt::Device& device = *d.device;
    pyb::gil_scoped_release release;
    device.allocator().release_cached();
  }, "Synchronizes `device` and gives its cached free blocks back to the driver.");

  m.def("_address_range", [](PyDevice& d, uint64_t ptr) { return d.device->address_range(ptr); },
        "(base, size) of the driver allocation holding `ptr` (cuMemGetAddressRange).");
  m.def("_ipc_handle", [](PyDevice& d, uint64_t ptr) {
    rt::DevicePtr base = 0;
    size_t bytes = 0;
    rt::IpcMemHandle h = d.device->ipc_handle(ptr, &base, &bytes);
    return pyb::make_tuple(pyb::bytes(reinterpret_cast<const char*>(h.bytes), sizeof(h.bytes)), base, bytes);
  }, "(handle bytes, base, size) of the allocation holding `ptr` (cuIpcGetMemHandle).");
  m.def("_open_ipc_handle", [](PyDevice& d, const pyb::bytes& handle) {
    return d.device->open_ipc_handle(ipc_handle_from(handle));
  }, "The address of another process's allocation, mapped here (cuIpcOpenMemHandle).");
  m.def("_close_ipc_handle", [](PyDevice& d, uint64_t base) { d.device->close_ipc_handle(base); },
        "Unmaps what _open_ipc_handle gave (cuIpcCloseMemHandle).");

  m.def("_register_host", [](PyDevice& d, uint64_t ptr, size_t bytes, bool mapped) {
    return d.device->register_host(host_address(ptr), bytes, mapped);
  }, pyb::arg("device"), pyb::arg("ptr"), pyb::arg("bytes"), pyb::arg("mapped"),
     "Page-locks host memory in place (cuMemHostRegister); mapped: returns the address kernels use, else 0.");
  m.def("_mapped_pointer", [](PyDevice& d, uint64_t ptr) { return d.device->mapped_pointer(host_address(ptr)); },
        "The address kernels use for mapped host memory (cuMemHostGetDevicePointer).");
  m.def("_unregister_host", [](PyDevice& d, uint64_t ptr) { d.device->unregister_host(host_address(ptr)); });
  m.def("_set_profiling", [](PyDevice& d, bool on) { d.device->set_profiling(on); },
        "Starts or stops the profiler's collection (cuProfilerStart/cuProfilerStop).");
}

}  // namespace gpujit::py
