// collect_system_info() and render_system_info() (runtime/system_info.h).
#include "runtime/system_info.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include "runtime/cuda_driver.h"
#include "runtime/device_spec.h"
#include "runtime/disk_cache.h"
#include "runtime/runtime.h"

#ifndef GPUJIT_VERSION
#define GPUJIT_VERSION "unknown"  // CMakeLists.txt defines it for this file
#endif

namespace gpujit {
namespace {

/// `path` with symbolic links and `..` resolved (the loader reports the core library through its rpath, as
/// in bin/../lib/); `path` itself if that fails.
std::string resolved(const std::string& path) {
  std::error_code ec;
  std::filesystem::path real = path.empty() ? std::filesystem::path() : std::filesystem::canonical(path, ec);
  return path.empty() || ec ? path : real.string();
}

std::string core_library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&render_system_info), &info) == 0 || info.dli_fname == nullptr)
    return {};
  return resolved(info.dli_fname);
}

/// The CUDA devices the driver sees, by its device queries alone (no context is created).
void list_cuda_devices(SystemInfo& info) {
  cuda::CudaDriver& driver = cuda::CudaDriver::get();
  int count = 0;
  if (cuda::CUresult r = driver.cuDeviceGetCount(&count); r != cuda::CUDA_SUCCESS) {
    info.driver_error = "cuDeviceGetCount failed: " + driver.error_name(r);
    return;
  }
  for (int i = 0; i < count; ++i) {
    SystemInfo::CudaDeviceInfo d;
    d.ordinal = i;
    cuda::CUdevice dev{};
    char name[256] = {};
    size_t bytes = 0;
    if (driver.cuDeviceGet(&dev, i) != cuda::CUDA_SUCCESS ||
        driver.cuDeviceGetName(name, int(sizeof name), dev) != cuda::CUDA_SUCCESS ||
        driver.cuDeviceGetAttribute(&d.cc_major, cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
            cuda::CUDA_SUCCESS ||
        driver.cuDeviceGetAttribute(&d.cc_minor, cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) !=
            cuda::CUDA_SUCCESS) {
      info.driver_error = fmt::format("querying CUDA device {} failed", i);
      continue;
    }
    if (driver.cuDeviceTotalMem(&bytes, dev) == cuda::CUDA_SUCCESS) d.total_memory = bytes;
    d.name = name;
    info.devices.push_back(std::move(d));
  }
}

/// Files and bytes under `dir`, counting regular files at any depth.
void measure_cache(SystemInfo& info) {
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(info.cache_directory, ec), end; it != end && !ec;
       it.increment(ec)) {
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec) || file_ec) continue;
    const uintmax_t size = it->file_size(file_ec);
    if (file_ec) continue;
    ++info.cache_files;
    info.cache_bytes += size;
  }
}

std::string human_bytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < (uint64_t(1) << 20)) return fmt::format("{:.1f} KiB", double(bytes) / 1024.0);
  if (bytes < (uint64_t(1) << 30)) return fmt::format("{:.1f} MiB", double(bytes) / double(1 << 20));
  return fmt::format("{:.1f} GiB", double(bytes) / double(1 << 30));
}

}  // namespace

SystemInfo collect_system_info(const Toolchain& toolchain) {
  SystemInfo info;
  info.gpujit_version = GPUJIT_VERSION;
  info.llvm_version = toolchain.llvm_version;
  info.core_library = core_library_path();
  info.libdevice = resolved(toolchain.libdevice);
  info.libdevice_searched = toolchain.libdevice_searched;

  info.driver_loaded = cuda::CudaDriver::available();
  if (info.driver_loaded) {
    cuda::CudaDriver& driver = cuda::CudaDriver::get();
    info.driver_path = driver.path();
    info.driver_version = driver.version();
    list_cuda_devices(info);
  } else {
    info.driver_error = cuda::CudaDriver::load_error();
  }

  info.backend = rt::Runtime::get().backend_name();
  const char* env_name = std::getenv("GPUJIT_DEVICE") && *std::getenv("GPUJIT_DEVICE") ? "GPUJIT_DEVICE"
                         : std::getenv("GPUJIT_BACKEND") && *std::getenv("GPUJIT_BACKEND") ? "GPUJIT_BACKEND"
                                                                                           : nullptr;
  if (env_name) {
    info.backend_reason = fmt::format("{}={} chooses it", env_name, std::getenv(env_name));
  } else if (info.backend == "cuda") {
    info.backend_reason = fmt::format("the CUDA driver sees {} device{}", info.devices.size(),
                                      info.devices.size() == 1 ? "" : "s");
  } else {
    info.backend_reason = info.driver_loaded ? "the CUDA driver sees no device" : "no CUDA driver";
  }

  if (std::optional<rt::DiskCache> cache = rt::DiskCache::for_source("")) {
    info.cache_directory = cache->directory();
    measure_cache(info);
  }
  return info;
}

std::string render_system_info(const SystemInfo& info) {
  std::string out;
  auto line = [&out](const char* name, const std::string& value) {
    out += fmt::format("{:<14}{}\n", name, value);
  };
  line("gpujit", info.gpujit_version);
  line("LLVM", info.llvm_version);
  line("core library", info.core_library.empty() ? "(unknown)" : info.core_library);
  line("libdevice", info.libdevice.empty() ? "not found; looked in " + info.libdevice_searched : info.libdevice);
  if (info.driver_loaded) {
    line("CUDA driver", fmt::format("{} (CUDA {}.{})", info.driver_path, info.driver_version / 1000,
                                    info.driver_version % 1000 / 10));
  } else {
    line("CUDA driver", "not loaded: " + info.driver_error);
  }
  if (info.devices.empty()) {
    line("devices", info.driver_loaded && !info.driver_error.empty() ? "none (" + info.driver_error + ")"
                                                                      : "no CUDA device");
  }
  for (const SystemInfo::CudaDeviceInfo& d : info.devices) {
    line(d.ordinal == 0 ? "devices" : "",
         fmt::format("cuda:{} {}, compute capability {}.{}, {}", d.ordinal, d.name, d.cc_major, d.cc_minor,
                     human_bytes(d.total_memory)));
  }
  line("backend", fmt::format("{} ({}{})", info.backend, info.backend_reason,
                              info.backend == "cpu" ? "; kernels run on the CPU" : ""));
  if (info.cache_directory.empty()) {
    line("kernel cache", "no usable folder (set GPUJIT_CACHE_DIR)");
  } else {
    line("kernel cache", fmt::format("{}: {} file{}, {}", info.cache_directory, info.cache_files,
                                     info.cache_files == 1 ? "" : "s", human_bytes(info.cache_bytes)));
    if (!std::getenv("GPUJIT_CACHE_DIR") || !*std::getenv("GPUJIT_CACHE_DIR"))
      line("", "(cache=True kernels of a writable source folder are kept in its __pycache__ instead)");
  }
  return out;
}

}  // namespace gpujit
