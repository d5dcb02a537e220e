// The host CPU target: what differs when the same lowering runs a kernel's grid on host threads.
//
// The contract with the host executor is codegen/host_abi.h. While lowering, every thread-dependent value
// comes from the thread's HostThreadContext, reached through a placeholder call `gpujit.host.ctx()`:
// special registers are invariant loads from it, barriers call gpujit_host_syncthreads*(ctx), and shared
// arrays are globals in address space 3. threadIdx is the exception: it reads a placeholder
// `gpujit.host.tid(axis)` that becomes a parameter, so that a loop over a block's threads can feed it its
// induction variable (laneid is computed from it). After lowering and finalize_module(), prepare_for_jit()
// turns all that into plain host code:
//   1. every defined function gains the hidden trailing parameters `ptr ctx, i32 tid.x, i32 tid.y, i32 tid.z`,
//      passed on at every call, and each placeholder becomes its function's parameter (unused ones vanish in
//      dead-argument elimination);
//   2. each static shared array becomes `ctx->shared + offset` (offsets chosen here, 16-byte aligned), each
//      dynamic one (shape 0) `ctx->dynamic_shared`;
//   3. entry wrappers with the uniform HostEntryFn signature load each kernel parameter from `params[i]`
//      and call the kernel, which becomes internal and always inlined into them: a per-thread one that
//      reads the thread's index from ctx->tid (for fibers), and, for a kernel without barriers, a per-block
//      one that loops over the block's threads itself, which LLVM can vectorize across threads.
// Constant memory is ordinary read-only globals (address space 0), atomics are host atomics at system scope,
// fences are seq_cst fences, and math functions are LLVM intrinsics or the host's libm (see call_math()).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "codegen/target.h"

namespace gpujit {

/// What prepare_for_jit() made of a module: what the executor needs to run it.
struct HostModuleInfo {
  std::string entry_name;          // the per-thread HostEntryFn: runs the thread ctx->tid names
  std::string block_entry_name;    // the per-block HostEntryFn: runs every thread; empty with barriers
  size_t static_shared_bytes = 0;  // the block's static shared memory, shared arrays laid out in order
  bool uses_barrier = false;       // some function reaches a barrier: run blocks as fibers
};

class HostTarget final : public Target {
 public:
  /// A target for the machine this process runs on. Returns null with *error set if LLVM cannot target it.
  static std::unique_ptr<HostTarget> create(int opt_level, bool fastmath, std::string* error);

  llvm::TargetMachine& machine() override { return *machine_; }
  void init_module(llvm::Module& module) override;
  void mark_kernel(llvm::Function& fn) override;
  llvm::Value* special_register(llvm::IRBuilder<>& b, SpecialReg reg, unsigned axis) override;
  void barrier_block(llvm::IRBuilder<>& b) override;
  llvm::Value* barrier_block_reduce(llvm::IRBuilder<>& b, BarrierReduce op, llvm::Value* pred) override;
  void barrier_warp(llvm::IRBuilder<>& b, llvm::Value* mask) override;
  void fence(llvm::IRBuilder<>& b, FenceScope scope) override;
  unsigned shared_address_space() const override { return kSharedAddressSpace; }
  unsigned constant_address_space() const override { return 0; }
  unsigned global_address_space() const override { return 0; }
  bool narrow_index_math() const override { return false; }
  std::string extern_calls_unsupported() const override {
    return "the cpu backend cannot run linked CUDA C/PTX code; run this kernel on a CUDA GPU (or compile it for "
           "one without launching: compile_ptx, or compile(..., output=\"cubin\"))";
  }
  llvm::SyncScope::ID atomic_scope(llvm::LLVMContext& ctx) const override;
  llvm::Value* dynamic_shared_size(llvm::IRBuilder<>& b) override;
  void print(llvm::IRBuilder<>& b, llvm::Value* format, llvm::ArrayRef<llvm::Value*> args) override;
  llvm::Value* load_cached(llvm::IRBuilder<>& b, std::string_view op, llvm::Type* type,
                           llvm::Value* ptr) override;
  void store_cached(llvm::IRBuilder<>& b, std::string_view op, llvm::Value* value, llvm::Value* ptr) override;
  void nanosleep(llvm::IRBuilder<>& b, llvm::Value* ns) override;
  // Bounds-check failures (debug=True): codegen/bounds_check.cpp.
  void index_error(llvm::IRBuilder<>& b, llvm::Value* where, llvm::Value* index, llvm::Value* extent,
                   unsigned axis) override;
  void raise_exception(llvm::IRBuilder<>& b, llvm::Value* description) override;
  llvm::Value* call_math(llvm::IRBuilder<>& b, std::string_view libdevice_name,
                         llvm::ArrayRef<llvm::Value*> args, llvm::Type* ret) override;
  bool finalize_module(llvm::Module& module, llvm::Function& kernel, std::string* error) override;
  // Warp operations and the grid barrier: codegen/host_warp.cpp.
  llvm::Value* warp_shuffle(llvm::IRBuilder<>& b, Shuffle mode, llvm::Value* mask, llvm::Value* value,
                            llvm::Value* lane) override;
  llvm::Value* warp_vote(llvm::IRBuilder<>& b, Vote mode, llvm::Value* mask, llvm::Value* pred) override;
  llvm::Value* warp_match(llvm::IRBuilder<>& b, bool all, llvm::Value* mask, llvm::Value* value) override;
  llvm::Value* warp_active_mask(llvm::IRBuilder<>& b) override;
  llvm::Value* lanemask_lt(llvm::IRBuilder<>& b) override;
  void grid_sync(llvm::IRBuilder<>& b) override;

  /// Runs after finalize_module() and before optimization (see the file comment). `kernel` becomes an
  /// internal function of a different type: pointers to it are invalid afterwards.
  HostModuleInfo prepare_for_jit(llvm::Module& module, llvm::Function& kernel);

  /// Shared arrays are lowered into this address space and moved to the context's buffers by prepare_for_jit.
  static constexpr unsigned kSharedAddressSpace = 3;

 private:
  HostTarget(llvm::TargetMachine* machine, bool fastmath) : machine_(machine), fastmath_(fastmath) {}

  /// The placeholders standing for the running function's context and thread index until prepare_for_jit().
  llvm::Value* context(llvm::IRBuilder<>& b);
  llvm::Value* thread_index(llvm::IRBuilder<>& b, unsigned axis);
  llvm::Value* call_runtime(llvm::IRBuilder<>& b, const char* name, llvm::Type* ret,
                            llvm::ArrayRef<llvm::Value*> extra_args);

  llvm::TargetMachine* machine_;  // owned by the per-thread cache
  bool fastmath_;
  bool uses_barrier_ = false;
  std::string unsupported_math_;  // the first math function with no host implementation, for finalize_module
};

}  // namespace gpujit
