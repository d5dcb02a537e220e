// libNVVM, opened with dlopen at first use, as NVRTC and nvJitLink are (runtime/cuda_toolkit.h): it turns the
// NVVM IR that codegen/nvvm_ir_writer.h writes for a gpujit kernel into LTO-IR, which nvJitLink's -lto links
// with CUDA C compiled by NVRTC with -dlto, inlining the CUDA C functions into the kernel (jit(lto=True),
// docs/cuda_c.md).
//
// The search, first hit wins: the file named by GPUJIT_NVVM (and nothing else when it is set); in each
// directory set_toolkit_search_dirs() was given (the pip wheels' lib folders) and in $CUDA_HOME, $CUDA_PATH
// and /usr/local/cuda: nvvm/lib64, lib, lib64 (CUDA 13's toolkit keeps it in lib); then the loader's path.
// libdevice (libdevice.10.bc), which a kernel calling `__nv_*` functions needs, is looked for beside it
// (../libdevice, ../nvvm/libdevice). Works without a GPU; thread-safe.
#pragma once

#include <stdexcept>
#include <string>

#include "runtime/cuda_toolkit.h"

namespace gpujit::rt {

/// libNVVM rejected the IR: what() is a summary, a newline and libNVVM's log.
class NvvmCompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Loads libNVVM if it is not yet (path, and the NVVM IR version it reads as major/minor); throws
/// ToolkitMissingError naming every place it looked.
ToolkitLibrary nvvm_library();
bool nvvm_available();

/// Compiles NVVM IR text for `arch` ("sm_90" or "compute_90": compute_90 either way) at -opt=3: to LTO-IR
/// (-gen-lto) when `lto`, else to PTX; IR whose nvvm-reflect-ftz flag is 1 (a fastmath kernel) also gets -ftz=1
/// -prec-div=0 -prec-sqrt=0 -fma=1. libdevice is added lazily when the IR calls a `__nv_` function. Throws
/// NvvmCompileError (libNVVM's log), ToolkitMissingError, std::invalid_argument for a bad architecture.
std::string compile_nvvm_ir(const std::string& ir, const std::string& arch, bool lto);

}  // namespace gpujit::rt
