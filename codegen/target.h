// The target interface: what the target-independent lowering asks of the machine it lowers for.
//
// Lowering (codegen/lowering.h) turns a typed program into LLVM IR that is the same for every target except
// at the few points this interface names: the module's triple and data layout, how a kernel entry is marked,
// the thread-index registers, barriers, the address spaces of shared and constant memory, the scope of
// atomics and the external functions behind math builtins. A target finishes the module once lowering is
// done (linking a math library, internalizing helpers) and owns the TargetMachine the pipeline runs.
//
// NVPTX is the one target today (codegen/nvptx_target.h). A host CPU target that runs a kernel's grid on host
// threads fills in the same methods: its special registers read the loop indices of the grid it simulates,
// its barrier is a thread barrier, its math names are libm's.
#pragma once

#include <string>
#include <string_view>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace llvm {
class TargetMachine;
}

namespace gpujit {

/// The per-thread index registers of the CUDA execution model. Dimensioned ones take an axis 0..2 (x, y, z).
enum class SpecialReg { ThreadIdx, BlockDim, BlockIdx, GridDim, LaneId, WarpSize };

class Target {
 public:
  virtual ~Target() = default;

  /// The machine that optimizes and emits code for this target; owned by the target (or a process cache).
  virtual llvm::TargetMachine& machine() = 0;

  /// Sets the triple, data layout and target-wide module flags of a fresh module.
  virtual void init_module(llvm::Module& module) = 0;

  /// Makes `fn` a kernel entry point (calling convention, attributes).
  virtual void mark_kernel(llvm::Function& fn) = 0;

  /// Reads a special register as an i32 value (its range is known to LLVM where the target can say so).
  virtual llvm::Value* special_register(llvm::IRBuilder<>& b, SpecialReg reg, unsigned axis) = 0;

  /// A barrier across the threads of a block (syncthreads).
  virtual void barrier_block(llvm::IRBuilder<>& b) = 0;
  /// syncthreads_count / _and / _or: a block barrier that also reduces an i1 predicate over the block's
  /// threads; Count gives an i32, And and Or give an i1.
  enum class BarrierReduce { Count, And, Or };
  virtual llvm::Value* barrier_block_reduce(llvm::IRBuilder<>& b, BarrierReduce op, llvm::Value* pred) = 0;
  /// A barrier across the lanes of `mask` in a warp (syncwarp).
  virtual void barrier_warp(llvm::IRBuilder<>& b, llvm::Value* mask) = 0;
  /// A memory fence at block, device or system scope (threadfence_block, threadfence, threadfence_system).
  enum class FenceScope { Block, Device, System };
  virtual void fence(llvm::IRBuilder<>& b, FenceScope scope) = 0;

  /// Warp-level operations (codegen/warp_lowering.cpp), with the semantics of PTX's shfl.sync, vote.sync
  /// and match.sync as numba-cuda issues them; `mask` is the i32 lane mask of the lanes taking part.
  /// shfl_*_sync: `value` is an i32 or i64 (shuffled as two 32-bit halves where the machine has no 64-bit
  /// shuffle), `lane` an i32 source lane (Idx), delta (Up, Down) or lane mask (Xor). A source lane outside
  /// the warp (Up below 0, Down past 31) gives the caller its own value. Returns `value`'s type.
  enum class Shuffle { Idx, Up, Down, Xor };
  virtual llvm::Value* warp_shuffle(llvm::IRBuilder<>& b, Shuffle mode, llvm::Value* mask, llvm::Value* value,
                                    llvm::Value* lane) = 0;
  /// all_sync/any_sync/eq_sync give an i1, ballot_sync an i32, from an i1 predicate.
  enum class Vote { All, Any, Eq, Ballot };
  virtual llvm::Value* warp_vote(llvm::IRBuilder<>& b, Vote mode, llvm::Value* mask, llvm::Value* pred) = 0;
  /// match_any_sync (`all` false: an i32 mask) or match_all_sync (`all` true: {i32 mask, i1 all equal}) of
  /// an i32 or i64 value.
  virtual llvm::Value* warp_match(llvm::IRBuilder<>& b, bool all, llvm::Value* mask, llvm::Value* value) = 0;
  /// activemask(): the i32 mask of the lanes executing this call together.
  virtual llvm::Value* warp_active_mask(llvm::IRBuilder<>& b) = 0;
  /// lanemask_lt(): the i32 mask of the lanes below the caller's.
  virtual llvm::Value* lanemask_lt(llvm::IRBuilder<>& b) = 0;
  /// cg.this_grid().sync(): a barrier across every thread of the grid, with device-wide memory ordering.
  /// A kernel that reaches one is launched with all its blocks resident at once
  /// (CompileResult::uses_grid_sync).
  virtual void grid_sync(llvm::IRBuilder<>& b) = 0;

  /// cuda.ldcs(ary, i), cuda.stcg(ary, i, v) ...: a load of `type` from, or a store of `value` to, the
  /// global-memory element at generic pointer `ptr` with PTX cache operator `op` ("ca", "cg", "cs", "lu",
  /// "cv" for loads; "cg", "cs", "wb", "wt" for stores). `type` is an integer or float of 8 to 64 bits.
  /// Neither is merged with, or moved across, other memory accesses.
  virtual llvm::Value* load_cached(llvm::IRBuilder<>& b, std::string_view op, llvm::Type* type,
                                   llvm::Value* ptr) = 0;
  virtual void store_cached(llvm::IRBuilder<>& b, std::string_view op, llvm::Value* value,
                            llvm::Value* ptr) = 0;
  /// cuda.nanosleep(ns): suspends the thread for about `ns` (an i32) nanoseconds.
  virtual void nanosleep(llvm::IRBuilder<>& b, llvm::Value* ns) = 0;

  /// Address space of memory shared by a block (shared.array), of read-only constant memory
  /// (const.array_like). Lowering keeps every pointer generic (address space 0) after taking the address of
  /// such a global; LLVM's address-space inference recovers the specific space for loads and stores.
  virtual unsigned shared_address_space() const = 0;
  virtual unsigned constant_address_space() const = 0;
  /// Address space of device (global) memory, where a captured device array's address points.
  virtual unsigned global_address_space() const = 0;

  /// Whether element offsets of index32 arrays (ir/types.h) are computed in 32 bits. A GPU does 64-bit
  /// integer multiplies in several instructions; a CPU does them in one, and vectorizes 64-bit induction
  /// variables better than truncated ones.
  virtual bool narrow_index_math() const = 0;

  /// The synchronization scope of atomic.* operations (CUDA's atomicAdd is device-wide).
  virtual llvm::SyncScope::ID atomic_scope(llvm::LLVMContext& ctx) const = 0;

  /// The bytes of dynamic shared memory the running launch has (its 4th launch parameter), as an i32.
  virtual llvm::Value* dynamic_shared_size(llvm::IRBuilder<>& b) = 0;

  /// Prints a line: `format` is a generic pointer to a C printf format made at compile time, `args` its
  /// values already promoted as C varargs are (i64, double, ptr to a string). The GPU's output appears when
  /// the device synchronizes; the host's is flushed at once.
  virtual void print(llvm::IRBuilder<>& b, llvm::Value* format, llvm::ArrayRef<llvm::Value*> args) = 0;

  /// An array index outside its axis in code compiled with bounds checks (CompileOptions::debug): reports it
  /// and ends the thread. Lowering puts `unreachable` after the call, so the emitted code must not return.
  /// `where` is a generic pointer to a C string naming the function and source line ("kernel 'k' at
  /// file.py:12"), `index` the i64 index as written, `extent` the axis' i64 size. The GPU prints the message
  /// and traps (the launch then fails at the next synchronization); the host records it for the executor,
  /// which raises it after the launch (codegen/bounds_check.cpp).
  virtual void index_error(llvm::IRBuilder<>& b, llvm::Value* where, llvm::Value* index, llvm::Value* extent,
                           unsigned axis) = 0;

  /// An int8 or uint8 value converted to float16 (round to nearest). By default LLVM's sitofp/uitofp.
  virtual llvm::Value* byte_to_half(llvm::IRBuilder<>& b, llvm::Value* v, bool is_signed) {
    return is_signed ? b.CreateSIToFP(v, b.getHalfTy()) : b.CreateUIToFP(v, b.getHalfTy());
  }

  /// A `raise` statement ran: `description` is a generic pointer to its text (ir/sema_raise.cpp), which the
  /// runtime hands back to Python with the thread's place. Ends the thread; lowering puts `unreachable` after
  /// it. The host records it for the executor; the GPU fills the module's error record and exits
  /// (codegen/device_error.h). Either way the launch throws rt::KernelRaise.
  virtual void raise_exception(llvm::IRBuilder<>& b, llvm::Value* description) = 0;

  /// Why this target cannot compute in bfloat16, or "" when it can (codegen/bf16_lowering.cpp).
  virtual std::string bfloat16_unsupported() const { return ""; }
  /// Why this target cannot call external (linked) device code; empty where it can (NVPTX).
  virtual std::string extern_calls_unsupported() const { return ""; }
  /// Whether LLVM's bfloat operations and conversions give the exact results here (NVPTX). Where they do not
  /// (x86's vcvtneps2bf16 flushes subnormals), lowering computes in float32 and rounds with integer code.
  virtual bool native_bfloat16() const { return false; }
  /// a * b + c of bfloat16 values rounded once, as one instruction the compiler will not rewrite or fuse
  /// further (the _rn operations); only targets with native_bfloat16() are asked.
  virtual llvm::Value* bfloat16_fma_rn(llvm::IRBuilder<>& b, llvm::Value* a, llvm::Value* x, llvm::Value* c) {
    return nullptr;
  }

  /// Calls the math function the builtins table names by its libdevice name ("__nv_expf", "__nv_erf").
  /// `args` already have the function's parameter types; the result has type `ret`.
  virtual llvm::Value* call_math(llvm::IRBuilder<>& b, std::string_view libdevice_name,
                                 llvm::ArrayRef<llvm::Value*> args, llvm::Type* ret) = 0;

  /// Finishes a lowered module before optimization: links what call_math asked for and gives every function
  /// but the kernel internal linkage. Returns false with a message in *error when a library the module needs
  /// cannot be found or read (an installation problem, not a compiler bug); the message says where it looked.
  virtual bool finalize_module(llvm::Module& module, llvm::Function& kernel, std::string* error) = 0;
};

}  // namespace gpujit
