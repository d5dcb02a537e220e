// What `gpujit info` and `python -m gpujit info` report: versions, where the core library and libdevice
// are, the CUDA driver and its devices, the backend a launch would use and the kernel cache.
//
// Collecting the report loads the CUDA driver (to list devices) but creates no context and no backend, so
// it does not change which backend a later launch uses. What the compiler alone knows (LLVM's version, where
// libdevice is) comes in from the compile driver's toolchain() (compiler/compiler.h), so that the runtime
// stays free of LLVM: `collect_system_info(toolchain())` is the whole report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/artifact.h"  // GPUJIT_API

namespace gpujit {

struct SystemInfo {
  struct CudaDeviceInfo {
    int ordinal = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    uint64_t total_memory = 0;  // bytes
  };

  std::string gpujit_version;
  std::string llvm_version;
  std::string core_library;       // the loaded libgpujit_core.so
  std::string libdevice;          // empty when not found
  std::string libdevice_searched; // where it was looked for
  bool driver_loaded = false;
  std::string driver_path;        // what dlopen() was given (libcuda.so.1 or $GPUJIT_CUDA_DRIVER)
  int driver_version = 0;         // 13000 for CUDA 13.0
  std::string driver_error;       // why the driver did not load or a device query failed
  std::vector<CudaDeviceInfo> devices;
  std::string backend;            // "cuda" or "cpu": what a launch would use now
  std::string backend_reason;
  std::string cache_directory;    // the user-level kernel cache; empty when none is usable
  uint64_t cache_files = 0, cache_bytes = 0;
};

/// The report for this process.
GPUJIT_API SystemInfo collect_system_info(const Toolchain& toolchain);
/// The report as aligned "name  value" lines, as `gpujit info` prints it.
GPUJIT_API std::string render_system_info(const SystemInfo& info);

}  // namespace gpujit
