// The CUDA driver, opened with dlopen at first use.
//
// CudaDriver holds one function pointer per entry of GPUJIT_CUDA_FUNCTIONS (runtime/cuda_api.h). The library
// is `libcuda.so.1`, or the file named by the environment variable GPUJIT_CUDA_DRIVER (the tests point it at
// a fake driver). Loading happens once per process, on the first call of CudaDriver::get(); a machine with no
// driver gets a NoDriverError from every get() with the reason, and everything that does not run kernels
// (importing, compiling, inspecting PTX) never calls get().
//
// Every call goes through check(): a failing result throws DriverError naming the function and the CUDA
// error (cuGetErrorName/cuGetErrorString).
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "runtime/cuda_api.h"
#include "runtime/runtime_error.h"

namespace gpujit::cuda {

// cuLibrary* (CUDA 12.0+), optional entry points (CudaDriver); runtime/cuda_api.h lists the required ones.
struct CUlib_st;
using CUlibrary = CUlib_st*;

class CudaDriver {
 public:
  /// The process's driver, loaded and cuInit'ed on first use. Throws NoDriverError if it cannot be.
  static CudaDriver& get();
  /// True if get() would succeed; never throws.
  static bool available();
  /// Why the driver could not be loaded ("" if it was, or was not tried yet).
  static std::string load_error();
  /// Whether get() or available() has been called in this process.
  static bool load_attempted();

  /// Throws DriverError for a failing result of `function` (ForkedProcessError in a forked child).
  void check(CUresult result, const char* function) const {
    if (result != CUDA_SUCCESS) throw_error(result, function);
  }
  /// Whether this process was forked from one that had initialized the driver (a fork handler sets it): the
  /// driver cannot be used here. One relaxed load.
  static bool forked() { return forked_.load(std::memory_order_relaxed); }
  /// Throws ForkedProcessError if forked(): called before a device's work, so a child fails with numba's
  /// message instead of whatever the inherited driver state answers.
  static void check_not_forked() {
    if (forked()) [[unlikely]] throw_forked();
  }
  /// Throws DriverError; `context` says what gpujit was doing. A sticky error (a kernel's fault) also names
  /// the last kernel launched, since it surfaces at a later call.
  [[noreturn]] void throw_error(CUresult result, const char* function, const std::string& context = {}) const;
  [[noreturn]] static void throw_forked();
  /// Records the kernel a launch ran, for the message of a later sticky error: one relaxed load and compare
  /// per launch, a copy of the name only when the kernel changes.
  void note_launch(const void* kernel, const std::string& name) {
    if (last_kernel_.load(std::memory_order_relaxed) != kernel) note_launch_slow(kernel, name);
  }
  /// Called when a kernel is destroyed, so that another one at its address is not mistaken for it.
  void forget_kernel(const void* kernel);
  /// "CUDA_ERROR_OUT_OF_MEMORY", or "CUDA_ERROR_<code>" if the driver does not know it.
  std::string error_name(CUresult result) const;

  /// The path dlopen() was given.
  const std::string& path() const { return path_; }
  /// The driver's CUDA version, 13000 for 13.0.
  int version() const { return version_; }

#define GPUJIT_CUDA_MEMBER(name, symbol, params) CUresult(*name) params = nullptr;
  GPUJIT_CUDA_FUNCTIONS(GPUJIT_CUDA_MEMBER)
#undef GPUJIT_CUDA_MEMBER
  /// cuFuncGetParamInfo (CUDA 12.4+): each parameter's offset and size, for CUDA C kernels (the Python
  /// binding's RawKernel). Optional: null on an older driver, which loads all the same.
  CUresult (*cuFuncGetParamInfo)(CUfunction function, size_t index, size_t* offset, size_t* size) = nullptr;
  /// cuLibraryLoadData, cuLibraryGetModule, cuLibraryUnload (CUDA 12.0+): a linked kernel is loaded as a
  /// library, whose handle the module setup/teardown callbacks of its link inputs get (numba-cuda's contract:
  /// cuLibraryGetGlobal on it reaches the kernel's own globals). Optional: null on an older driver, and then
  /// such a kernel is loaded with cuModuleLoadData.
  CUresult (*cuLibraryLoadData)(CUlibrary* library, const void* image, void* jit_options, void** jit_values,
                                unsigned num_jit_options, void* library_options, void** library_values,
                                unsigned num_library_options) = nullptr;
  CUresult (*cuLibraryGetModule)(CUmodule* module, CUlibrary library) = nullptr;
  CUresult (*cuLibraryUnload)(CUlibrary library) = nullptr;

 private:
  CudaDriver() = default;
  /// Opens the library and resolves every entry; returns "" or the reason it failed.
  std::string load();

  void note_launch_slow(const void* kernel, const std::string& name);

  void* handle_ = nullptr;
  std::string path_;
  int version_ = 0;
  std::atomic<const void*> last_kernel_{nullptr};
  static inline std::atomic<bool> forked_{false};
  mutable std::mutex launch_mutex_;  // guards last_kernel_name_
  std::string last_kernel_name_;
};

}  // namespace gpujit::cuda

/// Calls driver function `fn` with the given arguments and checks its result.
#define GPUJIT_CU(driver, fn, ...) (driver).check((driver).fn(__VA_ARGS__), #fn)
