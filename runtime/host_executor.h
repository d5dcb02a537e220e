// The host executor: runs a kernel's grid on the CPU.
//
// Blocks are spread over a pool of OS threads (our own: one condition variable broadcast per launch; LLVM's
// ThreadPool measured slower, docs/reliability.md) and the launching thread, which take block indices from an
// atomic counter; Ctrl-C cancels a launch, and a fault in a kernel fails it instead of ending the process
// (host_guard.h). Within a block, a kernel without barriers runs its threads one after the other in a plain
// loop (threadIdx.x fastest): the generated block entry's own loop when the compile provides one, else a
// call of the thread entry per thread. A kernel that uses syncthreads() runs each thread as a fiber (host_fiber.h) on
// the worker's OS thread; a barrier switches back to the block's scheduler, which resumes every fiber once all
// live ones have arrived. When every thread still running waits at a barrier while others have returned, the
// block can never finish: the launch fails with an error naming the kernel and the block instead of hanging.
//
// Launches are synchronous and serialized: launch() returns when the whole grid has run. Each block gets its
// own static and dynamic shared memory, 16-byte aligned and not cleared (as on a GPU). Every fiber has its own
// stack, so per-thread local arrays (allocas in generated code) are private to their thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "codegen/host_abi.h"

namespace gpujit {

/// A launch that cannot run or did not finish: a bad configuration, or a deadlock at a barrier.
class HostExecutionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A launch stopped because the interrupt check (set_host_interrupt_check) asked to: Ctrl-C in Python.
class HostInterrupted : public HostExecutionError {
 public:
  using HostExecutionError::HostExecutionError;
};

/// Sets the function the launching thread calls every 20 ms while it waits for the pool (it has run out of
/// blocks, or the launch is cooperative); once it returns true the launch is cancelled: no block starts any
/// more, the threads still in a kernel are kicked out of it (runtime/host_guard.h), and launch() throws
/// HostInterrupted. The Python binding installs one that runs Python's signal handlers (PyErr_CheckSignals).
/// Null (the default) checks nothing. A SIGINT cancels a launch the same way, also while the launching thread
/// runs a kernel (HostLaunchWatch).
void set_host_interrupt_check(bool (*check)());

/// Everything one launch needs. `params` must stay valid until launch() returns.
struct HostLaunch {
  HostEntryFn entry = nullptr;        // runs the thread ctx->tid names
  HostEntryFn block_entry = nullptr;  // optional: runs every thread of ctx's block (kernels without barriers)
  std::string kernel_name;            // for error messages
  uint32_t grid[3] = {1, 1, 1};       // gridDim
  uint32_t block[3] = {1, 1, 1};      // blockDim
  void** params = nullptr;            // as cuLaunchKernel's kernelParams
  size_t static_shared_bytes = 0;
  size_t dynamic_shared_bytes = 0;
  bool uses_barrier = false;  // run the threads of a block as fibers
  /// cg.this_grid().sync(): run every block at once, each on an OS thread of its own (CUDA's cooperative
  /// launch), within kHostMaxCooperativeBlocks and kHostMaxCooperativeThreads.
  bool uses_grid_sync = false;
};

/// The largest block the executor accepts, as CUDA's limit.
constexpr uint32_t kHostMaxThreadsPerBlock = 1024;

/// The largest grid (in blocks, and in threads of all its blocks) a launch with uses_grid_sync may have: each
/// block takes an OS thread and each of its threads a fiber stack while the whole grid runs at once.
constexpr uint64_t kHostMaxCooperativeBlocks = 1024;
constexpr uint64_t kHostMaxCooperativeThreads = 16384;

/// Stack size of each fiber. Reserved, not committed: only touched pages cost memory.
constexpr size_t kHostFiberStackBytes = 256 * 1024;

class HostExecutor {
 public:
  /// A pool of `num_threads` OS threads in all, the caller's included; 0 means the GPUJIT_CPU_THREADS
  /// environment variable if set, else the number of hardware threads.
  explicit HostExecutor(unsigned num_threads = 0);
  ~HostExecutor();
  HostExecutor(const HostExecutor&) = delete;
  HostExecutor& operator=(const HostExecutor&) = delete;

  /// The process-wide executor, created on first use.
  static HostExecutor& instance();

  /// Runs every block and thread of the grid; returns when all are done. Throws HostExecutionError for a
  /// bad configuration or a deadlocked block (the other blocks stop early; memory they wrote stays written),
  /// and rt::KernelIndexError (runtime/runtime_error.h) for a failed bounds check, which wins over any other
  /// failure of the same launch.
  void launch(const HostLaunch& launch);

  /// Number of OS threads that run blocks, the launching thread included.
  unsigned num_threads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpujit
