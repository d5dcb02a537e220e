// Module setup/teardown callbacks (see module_callbacks.h).
#include "module_callbacks.h"

#include <atomic>
#include <cstdint>

#include "arrays.h"
#include "dispatcher_internal.h"
#include "link_files.h"
#include "runtime/cuda_device.h"

namespace gpujit::py {

extern PyTypeObject* g_dispatcher_type;  // dispatcher.cpp

namespace {

PyObject* g_hook = nullptr;  // a strong reference, never released: the interpreter may still load kernels at exit
std::mutex g_load_mutex;
std::atomic<std::thread::id> g_load_owner{};

/// The handle the callbacks get: the CUlibrary a linked CUDA kernel was loaded as (numba-cuda's ObjectCode
/// handle), else its CUmodule; on the host backend the kernel object's address, unique while it is loaded.
uintptr_t module_handle(const rt::LoadedKernel& kernel) {
  if (auto* cuda = dynamic_cast<const cuda::CudaKernel*>(&kernel)) {
    return cuda->library ? reinterpret_cast<uintptr_t>(cuda->library) : reinterpret_cast<uintptr_t>(cuda->module);
  }
  return reinterpret_cast<uintptr_t>(&kernel);
}

}  // namespace

bool module_hook_wanted(const CompileResult& result) { return g_hook != nullptr && !result.link.empty(); }

ModuleLoadLock::ModuleLoadLock() {
  if (g_load_owner.load() == std::this_thread::get_id()) {
    throw std::runtime_error(
        "a kernel that links code with module callbacks was launched (or loaded) from inside a module setup "
        "callback; a setup callback must not launch kernels whose module is still being set up");
  }
  {
    pyb::gil_scoped_release release;
    g_load_mutex.lock();
  }
  g_load_owner.store(std::this_thread::get_id());
}

ModuleLoadLock::~ModuleLoadLock() {
  g_load_owner.store(std::thread::id());
  g_load_mutex.unlock();
}

void run_module_hook(PyObject* dispatcher, rt::Device& device, const rt::LoadedKernel& kernel,
                     const CompileResult& result) {
  pyb::handle hook(g_hook);
  hook(pyb::handle(dispatcher), pyb::cast(PyDevice{&device}), pyb::int_(module_handle(kernel)),
       link_files_to_py(result.link));
}

void register_module_callbacks(pyb::module_& m) {
  m.def("_set_module_hook", [](pyb::object hook) {
    if (!hook.is_none() && !PyCallable_Check(hook.ptr())) throw pyb::type_error("the module hook must be callable");
    PyObject* old = g_hook;
    g_hook = hook.is_none() ? nullptr : hook.release().ptr();
    Py_XDECREF(old);
  }, "hook(dispatcher, device, handle, link_inputs), called when a kernel that links external code is loaded "
     "(python/gpujit/_module_callbacks.py); None: no hook.");
  m.def("_unload_kernels", [](pyb::handle dispatcher, const PyDevice& device) {
    if (!PyObject_TypeCheck(dispatcher.ptr(), g_dispatcher_type)) throw pyb::type_error("not a gpujit dispatcher");
    return state_of(dispatcher.ptr()).cache.drop_loaded(device.device);
  }, "Unloads the kernels `dispatcher` loaded on `device` (a context reset); the next launch loads them again. "
     "Returns how many were unloaded.");
}

}  // namespace gpujit::py
