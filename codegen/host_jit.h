// Compiling kernels for the host CPU: the back half of compile() for TargetKind::Host
// (compile_typed_for_host, declared in codegen/codegen.h), and the JIT that keeps the machine code loaded.
//
// The same typed program the NVPTX path lowers goes through the same lowering with a HostTarget
// (codegen/host_target.h); the module is optimized for this CPU and handed to one ORC LLJIT per process,
// each kernel in a JITDylib of its own so that dropping a kernel frees its code. What comes back is a
// HostCode: the kernel's HostEntryFns (codegen/host_abi.h: `entry(params, ctx)`, with `params` laid out as
// CompileResult::params says, exactly cuLaunchKernel's kernelParams) for one thread and, without barriers,
// for a whole block, plus what the executor needs to run them.
// This header is LLVM-free.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "codegen/artifact.h"
#include "codegen/host_abi.h"

namespace gpujit {

/// A kernel compiled for the host and loaded into the process's JIT. The code stays loaded until the last
/// shared_ptr to this object goes.
struct GPUJIT_API HostCode {
  HostEntryFn entry = nullptr;        // runs the one thread ctx->tid names (the executor's fibers use it)
  HostEntryFn block_entry = nullptr;  // runs every thread of ctx's block; null when the kernel has barriers
  std::string entry_name;             // `entry`'s symbol in the JIT
  size_t static_shared_bytes = 0;     // per block, for the kernel's shared.array's
  bool uses_barrier = false;          // the kernel reaches syncthreads()/syncwarp(): run its blocks as fibers

  HostCode() = default;
  ~HostCode();
  HostCode(const HostCode&) = delete;
  HostCode& operator=(const HostCode&) = delete;

  /// The JIT's handle of the kernel's code (a JITDylib); released by the destructor.
  void* jit_dylib = nullptr;
};

}  // namespace gpujit
