// Loading the CUDA driver and turning its error codes into exceptions (see cuda_driver.h).
#include "runtime/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>

#include <fmt/format.h>

namespace gpujit::rt {

namespace {

// The CUDA errors after which "the process must be terminated and relaunched" (the driver API's words): a
// kernel faulted, and the context is unusable, every later call failing with the same error.
constexpr int kStickyErrors[] = {
    700,  // CUDA_ERROR_ILLEGAL_ADDRESS
    702,  // CUDA_ERROR_LAUNCH_TIMEOUT
    714,  // CUDA_ERROR_HARDWARE_STACK_ERROR
    715,  // CUDA_ERROR_ILLEGAL_INSTRUCTION
    716,  // CUDA_ERROR_MISALIGNED_ADDRESS
    717,  // CUDA_ERROR_INVALID_ADDRESS_SPACE
    718,  // CUDA_ERROR_INVALID_PC
    719,  // CUDA_ERROR_LAUNCH_FAILED
};
// The device is gone for this process: the driver shut down, or the GPU fell off the bus or was reset.
constexpr int kLostDeviceErrors[] = {
    4,    // CUDA_ERROR_DEINITIALIZED
    100,  // CUDA_ERROR_NO_DEVICE
};
// CUDA_ERROR_DEVICE_UNAVAILABLE: the device is busy (held by another process in exclusive mode, or in
// prohibited compute mode) or lost; a later call may succeed once it is free, so it is not fatal.
constexpr int kDeviceUnavailable = 46;

template <size_t N>
bool contains(const int (&codes)[N], int code) {
  for (int c : codes) {
    if (c == code) return true;
  }
  return false;
}

std::string message(const std::string& function, int code, const std::string& name, const std::string& text,
                    const std::string& context) {
  std::string m = fmt::format("{} failed: {} ({})", function, name, text);
  if (!context.empty()) m += "; " + context;
  if (contains(kStickyErrors, code)) {
    m += ". This error is sticky: the CUDA context is now unusable and every later CUDA call in this process "
         "fails with it; restart the process to use the GPU again";
  } else if (contains(kLostDeviceErrors, code)) {
    m +=
        ". The GPU can no longer be used by this process (it was lost or reset, or the driver shut down); "
        "restart the process once it is back (gpujit.select_device('cpu') runs kernels on the CPU meanwhile)";
  } else if (code == kDeviceUnavailable) {
    m += ". The GPU is busy or gone: another process may hold it in exclusive mode, or it was lost; a later "
         "call works once it is free, a lost GPU needs the process restarted (gpujit.select_device('cpu') "
         "runs "
         "kernels on the CPU meanwhile)";
  }
  return m;
}

}  // namespace

DriverError::DriverError(std::string function, int code, std::string name, std::string text,
                         std::string context)
    : std::runtime_error(message(function, code, name, text, context)),
      function_(std::move(function)),
      code_(code),
      name_(std::move(name)),
      text_(std::move(text)),
      context_(std::move(context)) {}

bool DriverError::recoverable(int code) { return !sticky(code) && !contains(kLostDeviceErrors, code); }

bool DriverError::sticky(int code) { return contains(kStickyErrors, code); }

DriverError DriverError::with_context(const std::string& more) const {
  return DriverError(function_, code_, name_, text_, context_.empty() ? more : context_ + "; " + more);
}

}  // namespace gpujit::rt

namespace gpujit::cuda {
namespace {

std::once_flag g_once;
std::atomic<bool> g_attempted{false};
CudaDriver* g_driver = nullptr;  // leaked on purpose: kernels and arrays may outlive static destructors
std::string g_error;

}  // namespace

std::string CudaDriver::load() {
  const char* override_path = std::getenv("GPUJIT_CUDA_DRIVER");
  path_ = override_path && *override_path ? override_path : "libcuda.so.1";
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    return fmt::format("no CUDA driver found: could not load {} ({})", path_, why ? why : "unknown reason");
  }
#define GPUJIT_CUDA_RESOLVE(name, symbol, params)                                          \
  name = reinterpret_cast<decltype(name)>(dlsym(handle_, symbol));                        \
  if (!name) return fmt::format("the CUDA driver {} has no entry point {}; it is too old", \
                                path_, symbol);
  GPUJIT_CUDA_FUNCTIONS(GPUJIT_CUDA_RESOLVE)
#undef GPUJIT_CUDA_RESOLVE
  cuFuncGetParamInfo = reinterpret_cast<decltype(cuFuncGetParamInfo)>(dlsym(handle_, "cuFuncGetParamInfo"));
  cuLibraryLoadData = reinterpret_cast<decltype(cuLibraryLoadData)>(dlsym(handle_, "cuLibraryLoadData"));
  cuLibraryGetModule = reinterpret_cast<decltype(cuLibraryGetModule)>(dlsym(handle_, "cuLibraryGetModule"));
  cuLibraryUnload = reinterpret_cast<decltype(cuLibraryUnload)>(dlsym(handle_, "cuLibraryUnload"));
  if (!cuLibraryLoadData || !cuLibraryGetModule || !cuLibraryUnload) {
    cuLibraryLoadData = nullptr;  // all three or none
    cuLibraryGetModule = nullptr;
    cuLibraryUnload = nullptr;
  }
  CUresult r = cuInit(0);
  if (r != CUDA_SUCCESS) {
    // cuInit fails this way on machines with the driver library but no usable GPU.
    const char* text = nullptr;
    if (cuGetErrorString(r, &text) != CUDA_SUCCESS || !text) text = "unknown error";
    return fmt::format("no CUDA driver found: cuInit failed with {} ({}) in {}", error_name(r), text, path_);
  }
  check(cuDriverGetVersion(&version_), "cuDriverGetVersion");
  // A child forked from here inherits the driver's state but cannot use it: its calls fail with
  // ForkedProcessError (numba's CudaDriverError) instead of what the inherited state would answer.
  pthread_atfork(nullptr, nullptr, [] { forked_.store(true, std::memory_order_relaxed); });
  return {};
}

CudaDriver& CudaDriver::get() {
  std::call_once(g_once, [] {
    g_attempted = true;
    std::unique_ptr<CudaDriver> driver(new CudaDriver());
    g_error = driver->load();
    // A driver that loaded is kept for good (see g_driver); one that did not is freed here.
    if (g_error.empty()) g_driver = driver.release();
  });
  if (!g_driver) throw rt::NoDriverError(g_error);
  return *g_driver;
}

bool CudaDriver::available() {
  try {
    get();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::string CudaDriver::load_error() { return g_error; }

bool CudaDriver::load_attempted() { return g_attempted; }

std::string CudaDriver::error_name(CUresult result) const {
  const char* name = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) == CUDA_SUCCESS && name) return name;
  return fmt::format("CUDA_ERROR_{}", result);
}

void CudaDriver::throw_forked() {
  throw rt::ForkedProcessError(
      "CUDA initialized before forking: this process was forked from one that had initialized CUDA, and a "
      "forked child cannot use its parent's CUDA state; start worker processes with the 'spawn' (or "
      "'forkserver') method, e.g. multiprocessing.get_context('spawn'), or fork before the first CUDA call");
}

void CudaDriver::throw_error(CUresult result, const char* function, const std::string& context) const {
  if (forked()) throw_forked();  // whatever the inherited state answered, this is why
  const char* text = nullptr;
  if (!cuGetErrorString || cuGetErrorString(result, &text) != CUDA_SUCCESS || !text) text = "unknown error";
  std::string where = context;
  if (rt::DriverError::sticky(result)) {
    // A kernel's fault surfaces at a later call: name the kernel most likely to have caused it.
    std::lock_guard<std::mutex> lock(launch_mutex_);
    if (!last_kernel_name_.empty()) {
      where += fmt::format(
          "{}the error comes from a kernel that ran earlier, most likely the last one launched, "
          "'{}' (a kernel's fault is reported by the next call that waits for the GPU)",
          where.empty() ? "" : "; ", last_kernel_name_);
    }
  }
  throw rt::DriverError(function, result, error_name(result), text, where);
}

void CudaDriver::note_launch_slow(const void* kernel, const std::string& name) {
  std::lock_guard<std::mutex> lock(launch_mutex_);
  last_kernel_.store(kernel, std::memory_order_relaxed);
  last_kernel_name_ = name;
}

void CudaDriver::forget_kernel(const void* kernel) {
  const void* expected = kernel;
  last_kernel_.compare_exchange_strong(expected, nullptr, std::memory_order_relaxed);
}

}  // namespace gpujit::cuda
