// Module setup/teardown callbacks (numba-cuda's LinkableCode setup_callback / teardown_callback): when a kernel
// that links external code (CompileResult::link non-empty) is loaded onto a device, the package's hook
// (python/gpujit/_module_callbacks.py, set by _core._set_module_hook) is called with the dispatcher, the
// device, the module's handle and the kernel's link inputs; it runs the setup callbacks of those inputs and
// keeps their teardowns for the module's unload. Kernels that link nothing never reach Python here.
//
// Loads that run callbacks are serialized (one module per kernel and device, however many threads launch it
// first): ModuleLoadLock is held across the load, the hook and the cache insertion, with the GIL released while
// waiting for it. A kernel launched from its own setup callback is a RuntimeError, not a deadlock.
#pragma once

#include <memory>
#include <mutex>
#include <thread>

#include <pybind11/pybind11.h>

#include "codegen/artifact.h"
#include "runtime/device.h"

namespace gpujit::py {

namespace pyb = pybind11;

/// Whether loading `result` calls the hook: one is set and the kernel links external code.
bool module_hook_wanted(const CompileResult& result);

/// Held (GIL released while waiting) for a load that calls the hook. RuntimeError when the calling thread
/// already holds it (a launch from inside a setup callback).
class ModuleLoadLock {
 public:
  ModuleLoadLock();
  ~ModuleLoadLock();
  ModuleLoadLock(const ModuleLoadLock&) = delete;
  ModuleLoadLock& operator=(const ModuleLoadLock&) = delete;
};

/// Calls the hook for `kernel`, just loaded on `device` for `dispatcher`; its exception propagates (the caller
/// then drops the kernel, which unloads the module).
void run_module_hook(PyObject* dispatcher, rt::Device& device, const rt::LoadedKernel& kernel,
                     const CompileResult& result);

/// _core._set_module_hook(fn), _core._unload_kernels(dispatcher, device).
void register_module_callbacks(pyb::module_& m);

}  // namespace gpujit::py
