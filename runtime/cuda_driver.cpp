// Loading the CUDA driver and turning its error codes into exceptions (see cuda_driver.h).
#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

namespace gpujit::rt {

DriverError::DriverError(std::string function, int code, std::string name, std::string text)
    : std::runtime_error(fmt::format("{} failed: {} ({})", function, name, text)),
      function_(std::move(function)),
      code_(code),
      name_(std::move(name)) {}

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
  CUresult r = cuInit(0);
  if (r != CUDA_SUCCESS) {
    // cuInit fails this way on machines with the driver library but no usable GPU.
    return fmt::format("no CUDA driver found: cuInit failed with {} in {}", error_name(r), path_);
  }
  check(cuDriverGetVersion(&version_), "cuDriverGetVersion");
  return {};
}

CudaDriver& CudaDriver::get() {
  std::call_once(g_once, [] {
    g_attempted = true;
    auto* driver = new CudaDriver();
    g_error = driver->load();
    if (g_error.empty()) g_driver = driver;
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

void CudaDriver::throw_error(CUresult result, const char* function) const {
  const char* text = nullptr;
  if (!cuGetErrorString || cuGetErrorString(result, &text) != CUDA_SUCCESS || !text) text = "unknown error";
  throw rt::DriverError(function, result, error_name(result), text);
}

}  // namespace gpujit::cuda
