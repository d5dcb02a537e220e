// The NVPTX target's warp operations and grid barrier (see Target in codegen/target.h).
//
// Shuffles are llvm.nvvm.shfl.sync.{idx,up,down,bfly}.i32 with numba-cuda's clamp operand: 0x1f for idx,
// down and xor, 0 for up, so an out-of-range source lane gives the caller's own value; a 64-bit value is
// shuffled as two 32-bit halves, as numba does. Votes are vote.sync, matches match.sync (sm_70+; gpujit
// targets sm_75 and newer).
//
// The grid barrier is cooperative groups' algorithm over a counter of our own, the module's global
// `gpujit_grid_barrier` (CUDA's grid.sync() keeps it in a driver-provided workspace instead): after a block
// barrier, thread 0 of each block adds 1 to the counter (block 0 adds 0x80000000 - (blocks - 1)), so the
// arrival of the last block flips the counter's top bit; each thread 0 spins until it sees the top bit
// differ from what it read when it arrived, then a block barrier releases the rest of its block. The low
// 31 bits return to their value after every barrier, so the counter needs no reset between barriers or
// launches. All blocks must be resident at once, which the runtime ensures with cuLaunchCooperativeKernel
// (CompileResult::uses_grid_sync); two launches of the same module running concurrently would share the
// counter and must not both use it.
#include <llvm/IR/Constants.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "codegen/nvptx_target.h"
#include "frontend/diagnostics.h"

namespace gpujit {

namespace {

constexpr const char* kGridBarrier = "gpujit_grid_barrier";
constexpr unsigned kGlobalAddressSpace = 1;

llvm::Value* shuffle32(llvm::IRBuilder<>& b, Target::Shuffle mode, llvm::Value* mask, llvm::Value* value,
                       llvm::Value* lane) {
  using namespace llvm::Intrinsic;
  ID id = nvvm_shfl_sync_idx_i32;
  uint32_t clamp = 0x1f;
  switch (mode) {
    case Target::Shuffle::Idx:
      break;
    case Target::Shuffle::Up:
      id = nvvm_shfl_sync_up_i32;
      clamp = 0;
      break;
    case Target::Shuffle::Down:
      id = nvvm_shfl_sync_down_i32;
      break;
    case Target::Shuffle::Xor:
      id = nvvm_shfl_sync_bfly_i32;
      break;
  }
  return b.CreateIntrinsic(id, {}, {mask, value, lane, b.getInt32(clamp)});
}

}  // namespace

llvm::Value* NvptxTarget::warp_shuffle(llvm::IRBuilder<>& b, Shuffle mode, llvm::Value* mask,
                                       llvm::Value* value, llvm::Value* lane) {
  if (value->getType()->isIntegerTy(32)) return shuffle32(b, mode, mask, value, lane);
  if (!value->getType()->isIntegerTy(64))
    throw InternalError("warp_shuffle of a value that is not i32 or i64");
  llvm::Value* lo = shuffle32(b, mode, mask, b.CreateTrunc(value, b.getInt32Ty()), lane);
  llvm::Value* hi = shuffle32(b, mode, mask, b.CreateTrunc(b.CreateLShr(value, 32), b.getInt32Ty()), lane);
  llvm::Value* wide_hi = b.CreateShl(b.CreateZExt(hi, b.getInt64Ty()), 32);
  return b.CreateOr(wide_hi, b.CreateZExt(lo, b.getInt64Ty()));
}

llvm::Value* NvptxTarget::warp_vote(llvm::IRBuilder<>& b, Vote mode, llvm::Value* mask, llvm::Value* pred) {
  using namespace llvm::Intrinsic;
  switch (mode) {
    case Vote::All:
      return b.CreateIntrinsic(nvvm_vote_all_sync, {}, {mask, pred});
    case Vote::Any:
      return b.CreateIntrinsic(nvvm_vote_any_sync, {}, {mask, pred});
    case Vote::Eq:
      return b.CreateIntrinsic(nvvm_vote_uni_sync, {}, {mask, pred});
    case Vote::Ballot:
      return b.CreateIntrinsic(nvvm_vote_ballot_sync, {}, {mask, pred});
  }
  throw InternalError("unknown warp vote");
}

llvm::Value* NvptxTarget::warp_match(llvm::IRBuilder<>& b, bool all, llvm::Value* mask, llvm::Value* value) {
  using namespace llvm::Intrinsic;
  bool wide = value->getType()->isIntegerTy(64);
  if (all)
    return b.CreateIntrinsic(wide ? nvvm_match_all_sync_i64p : nvvm_match_all_sync_i32p, {}, {mask, value});
  return b.CreateIntrinsic(wide ? nvvm_match_any_sync_i64 : nvvm_match_any_sync_i32, {}, {mask, value});
}

llvm::Value* NvptxTarget::warp_active_mask(llvm::IRBuilder<>& b) {
  return b.CreateIntrinsic(b.getInt32Ty(), llvm::Intrinsic::nvvm_activemask, {});
}

llvm::Value* NvptxTarget::lanemask_lt(llvm::IRBuilder<>& b) {
  return b.CreateIntrinsic(b.getInt32Ty(), llvm::Intrinsic::nvvm_read_ptx_sreg_lanemask_lt, {});
}

void NvptxTarget::grid_sync(llvm::IRBuilder<>& b) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::LLVMContext& c = module.getContext();
  llvm::GlobalVariable* counter = module.getGlobalVariable(kGridBarrier, true);
  if (!counter) {
    counter = new llvm::GlobalVariable(module, b.getInt32Ty(), false, llvm::GlobalValue::InternalLinkage,
                                       b.getInt32(0), kGridBarrier, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, kGlobalAddressSpace);
    counter->setAlignment(llvm::Align(4));
  }
  auto sreg = [&](SpecialReg reg, unsigned axis) { return special_register(b, reg, axis); };
  auto is_zero3 = [&](SpecialReg reg) {
    llvm::Value* any = b.CreateOr(b.CreateOr(sreg(reg, 0), sreg(reg, 1)), sreg(reg, 2));
    return b.CreateICmpEQ(any, b.getInt32(0));
  };

  barrier_block(b);
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* arrive = llvm::BasicBlock::Create(c, "grid.arrive", fn);
  auto* spin = llvm::BasicBlock::Create(c, "grid.spin", fn);
  auto* left = llvm::BasicBlock::Create(c, "grid.left", fn);
  auto* done = llvm::BasicBlock::Create(c, "grid.done", fn);
  b.CreateCondBr(is_zero3(SpecialReg::ThreadIdx), arrive, done);

  b.SetInsertPoint(arrive);
  llvm::Value* blocks = b.CreateMul(b.CreateMul(sreg(SpecialReg::GridDim, 0), sreg(SpecialReg::GridDim, 1)),
                                    sreg(SpecialReg::GridDim, 2));
  llvm::Value* first_add = b.CreateSub(b.getInt32(0x80000000u), b.CreateSub(blocks, b.getInt32(1)));
  llvm::Value* add = b.CreateSelect(is_zero3(SpecialReg::BlockIdx), first_add, b.getInt32(1));
  llvm::SyncScope::ID device = atomic_scope(c);
  fence(b, FenceScope::Device);  // this block's writes before its arrival
  llvm::Value* old = b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, counter, add, llvm::Align(4),
                                       llvm::AtomicOrdering::AcquireRelease, device);
  b.CreateBr(spin);

  b.SetInsertPoint(spin);
  llvm::LoadInst* now = b.CreateAlignedLoad(b.getInt32Ty(), counter, llvm::Align(4));
  now->setAtomic(llvm::AtomicOrdering::Acquire, device);
  llvm::Value* flipped = b.CreateAnd(b.CreateXor(old, now), b.getInt32(0x80000000u));
  b.CreateCondBr(b.CreateICmpNE(flipped, b.getInt32(0)), left, spin);

  b.SetInsertPoint(left);
  fence(b, FenceScope::Device);  // the other blocks' writes before this block goes on
  b.CreateBr(done);

  b.SetInsertPoint(done);
  barrier_block(b);
}

}  // namespace gpujit
