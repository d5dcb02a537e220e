// Linking a kernel with the code its external functions live in (declare_device's and jit's link=,
// ir/extern_function.h): the kernel's PTX and each LinkFile of CompileResult::link become one cubin for one
// architecture, through nvJitLink (runtime/cuda_toolkit.h). CUDA C sources are compiled by NVRTC first, with
// -rdc=true (their functions are called from another module): to a cubin, or to LTO-IR for a link-time-
// optimized link (which then also needs the kernel as LTO-IR or PTX; PTX takes part in the link unoptimized
// across the boundary, see docs/cuda_c.md). With the kernel's NVVM IR (jit(lto=True), CompileResult::nvvm_ir),
// libNVVM compiles the kernel to LTO-IR too (runtime/nvvm.h), and nvJitLink inlines the CUDA C functions into
// it; where libNVVM is missing or rejects the IR, the PTX takes its place and the link still succeeds.
//
// Works without a GPU: the architecture is an argument ("sm_90").
#pragma once

#include <string>

#include "codegen/artifact.h"

namespace gpujit::rt {

struct KernelLinkOptions {
  /// nvJitLink's -lto; CUDA C sources are compiled to LTO-IR for it. Needed when an input is LTO-IR.
  bool lto = false;
  /// Extra NVRTC options for every CUDA C source ("-DN=4"); include directories come with each LinkFile.
  std::vector<std::string> nvrtc_options;
  /// The kernel as NVVM IR (CompileResult::nvvm_ir); with lto, linked as libNVVM's LTO-IR instead of the PTX.
  std::string nvvm_ir;
  /// Why there is no NVVM IR though it was asked for (CompileResult::nvvm_ir_error); reported as the fallback.
  std::string nvvm_ir_error;
  /// The PTX nvJitLink's LTO makes of the whole link (-lto -ptx, numba's inspect_lto_ptx) instead of a cubin.
  /// Only with the kernel as LTO-IR: otherwise nothing is linked, KernelLinkResult::ptx stays empty and
  /// lto_fallback says why.
  bool ptx = false;
};

struct KernelLinkResult {
  std::string cubin;
  /// KernelLinkOptions::ptx: the linked PTX, in which the CUDA C functions are inlined where LTO inlined them.
  std::string ptx;
  /// The kernel took part as LTO-IR (its CUDA C functions could be inlined).
  bool kernel_as_ltoir = false;
  /// With lto and NVVM IR asked for: why the kernel took part as PTX instead (the writer's or libNVVM's
  /// message); empty otherwise.
  std::string lto_fallback;
};

/// The cubin of `result`'s PTX (or, for jit(lto=True), its NVVM IR as LTO-IR) linked with `result.link` for
/// `arch`; `*lto_fallback` says why a kernel compiled with jit(lto=True) took part as PTX (empty when it went in
/// as LTO-IR, or LTO was not asked for). Throws CudaCCompileError (a CUDA C source that does not compile,
/// NVRTC's log with its file and line), CudaLinkError (nvJitLink's log: an undefined symbol, an architecture
/// mismatch), ToolkitMissingError, std::invalid_argument (an unknown input kind).
std::string link_kernel(const CompileResult& result, const std::string& arch, std::string* lto_fallback);

/// The same for PTX and link files given directly (the binding's compile(output='cubin') and inspect_lto_ptx),
/// saying whether the kernel went in as LTO-IR and, if not though asked, why.
KernelLinkResult link_kernel_detailed(const std::string& ptx, const std::string& ptx_name,
                                      const std::vector<LinkFile>& link, const std::string& arch,
                                      const KernelLinkOptions& options = {});

}  // namespace gpujit::rt
