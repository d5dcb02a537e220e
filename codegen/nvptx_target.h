// The NVPTX target: what differs when lowering for an NVIDIA GPU.
//
// Kernels get the ptx_kernel calling convention (LLVM 22's replacement for nvvm.annotations), special
// registers are llvm.nvvm.read.ptx.sreg.* intrinsics, shared memory is address space 3 and constant memory
// address space 4, math builtins call libdevice, which is linked only into modules that use it.
//
// TargetMachines are expensive to build and cheap to reuse: one per (architecture, optimization level) is
// kept per thread (a TargetMachine must not run two codegen pipelines at once) for the life of the process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/Module.h>

#include "codegen/target.h"

namespace gpujit {

class NvptxTarget final : public Target {
 public:
  /// `arch` is "sm_75" or newer. Returns null with *error set for an architecture LLVM cannot target.
  static std::unique_ptr<NvptxTarget> create(const std::string& arch, int opt_level, bool fastmath,
                                             std::string* error);

  llvm::TargetMachine& machine() override { return *machine_; }
  void init_module(llvm::Module& module) override;
  void mark_kernel(llvm::Function& fn) override;
  llvm::Value* special_register(llvm::IRBuilder<>& b, SpecialReg reg, unsigned axis) override;
  void barrier_block(llvm::IRBuilder<>& b) override;
  llvm::Value* barrier_block_reduce(llvm::IRBuilder<>& b, BarrierReduce op, llvm::Value* pred) override;
  void barrier_warp(llvm::IRBuilder<>& b, llvm::Value* mask) override;
  void fence(llvm::IRBuilder<>& b, FenceScope scope) override;
  unsigned shared_address_space() const override { return 3; }
  unsigned constant_address_space() const override { return 4; }
  unsigned global_address_space() const override { return 1; }
  bool narrow_index_math() const override { return true; }
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
  /// The first failing thread fills the module's error record (codegen/device_error.h) with `kind`, the
  /// text at `text` (a constant string in global memory), its thread and block and the slot values of
  /// `extra`; every failing thread then exits.
  void record_error(llvm::IRBuilder<>& b, uint64_t kind, llvm::Value* text,
                    const std::vector<std::pair<unsigned, llvm::Value*>>& extra);
  llvm::Value* call_math(llvm::IRBuilder<>& b, std::string_view libdevice_name,
                         llvm::ArrayRef<llvm::Value*> args, llvm::Type* ret) override;
  llvm::Value* byte_to_half(llvm::IRBuilder<>& b, llvm::Value* v, bool is_signed) override;
  /// numba-cuda's rule: bfloat16 needs sm_80 or newer (its bf16 instructions).
  std::string bfloat16_unsupported() const override;
  bool native_bfloat16() const override { return true; }
  /// fma.rn.bf16 as inline assembly: LLVM folds its own fma intrinsics with constant operands back into an
  /// fadd or fmul, which instruction selection then fuses with their neighbours.
  llvm::Value* bfloat16_fma_rn(llvm::IRBuilder<>& b, llvm::Value* a, llvm::Value* x, llvm::Value* c) override;
  bool finalize_module(llvm::Module& module, llvm::Function& kernel, std::string* error) override;
  /// After the module's optimization: links and inlines the optimized libdevice functions finalize_module
  /// set aside (codegen/libdevice.h); nothing when it set none aside.
  bool link_after_optimization(llvm::Module& module, std::string* error);
  bool links_after_optimization() const { return !optimized_libdevice_.empty(); }
  /// Emits the optimized `module` as PTX: with the code generator prepare_nvptx_codegen built ahead for
  /// this architecture and level when one is ready (*prepared_ahead true), else with one built now.
  std::string emit(llvm::Module& module, bool* prepared_ahead);
  // Warp operations and the grid barrier: codegen/nvptx_warp.cpp.
  llvm::Value* warp_shuffle(llvm::IRBuilder<>& b, Shuffle mode, llvm::Value* mask, llvm::Value* value,
                            llvm::Value* lane) override;
  llvm::Value* warp_vote(llvm::IRBuilder<>& b, Vote mode, llvm::Value* mask, llvm::Value* pred) override;
  llvm::Value* warp_match(llvm::IRBuilder<>& b, bool all, llvm::Value* mask, llvm::Value* value) override;
  llvm::Value* warp_active_mask(llvm::IRBuilder<>& b) override;
  llvm::Value* lanemask_lt(llvm::IRBuilder<>& b) override;
  void grid_sync(llvm::IRBuilder<>& b) override;

 private:
  NvptxTarget(llvm::TargetMachine* machine, int opt_level, bool fastmath)
      : machine_(machine), opt_level_(opt_level), fastmath_(fastmath) {}

  llvm::TargetMachine* machine_;  // owned by the per-thread cache
  int opt_level_;
  bool fastmath_;
  bool uses_libdevice_ = false;
  std::vector<std::unique_ptr<llvm::Module>> optimized_libdevice_;  // see link_after_optimization
};

/// Parses "sm_80" into 80; 0 if malformed.
unsigned parse_sm_version(const std::string& arch);

/// Caps the registers each thread of `kernel` may use (numba's max_registers): LLVM 22 reads the
/// "nvvm.maxnreg" function attribute, which replaced the nvvm.annotations entry, and emits `.maxnreg N`.
void limit_registers(llvm::Function& kernel, int count);

}  // namespace gpujit
