// The host target's warp operations and grid barrier (see Target in codegen/target.h).
//
// Each warp operation is one call of gpujit_host_warp(ctx, op, mask, value, arg) (codegen/host_abi.h): the
// executor runs the lanes of a warp as fibers and answers once every lane the mask names has deposited its
// value, so a kernel that uses any of them runs its blocks as fibers, like one with a barrier. Values go
// through the call zero-extended to 64 bits; 64-bit values need no splitting on the host. lanemask_lt needs
// no rendezvous: it is computed from the lane index. The grid barrier is gpujit_host_grid_sync(ctx).
#include <llvm/IR/Constants.h>

#include "codegen/host_target.h"
#include "frontend/diagnostics.h"
#include "codegen/host_abi.h"

namespace gpujit {

namespace {

llvm::Value* op_code(llvm::IRBuilder<>& b, HostWarpOp op) { return b.getInt32(static_cast<uint32_t>(op)); }

}  // namespace

llvm::Value* HostTarget::warp_shuffle(llvm::IRBuilder<>& b, Shuffle mode, llvm::Value* mask,
                                      llvm::Value* value, llvm::Value* lane) {
  uses_barrier_ = true;
  HostWarpOp op = HostWarpOp::ShflIdx;
  switch (mode) {
    case Shuffle::Idx:
      break;
    case Shuffle::Up:
      op = HostWarpOp::ShflUp;
      break;
    case Shuffle::Down:
      op = HostWarpOp::ShflDown;
      break;
    case Shuffle::Xor:
      op = HostWarpOp::ShflXor;
      break;
  }
  llvm::Type* type = value->getType();
  llvm::Value* wide = b.CreateZExt(value, b.getInt64Ty());
  llvm::Value* r = call_runtime(b, "gpujit_host_warp", b.getInt64Ty(), {op_code(b, op), mask, wide, lane});
  return b.CreateTrunc(r, type);
}

llvm::Value* HostTarget::warp_vote(llvm::IRBuilder<>& b, Vote mode, llvm::Value* mask, llvm::Value* pred) {
  uses_barrier_ = true;
  HostWarpOp op = mode == Vote::All   ? HostWarpOp::VoteAll
                  : mode == Vote::Any ? HostWarpOp::VoteAny
                  : mode == Vote::Eq  ? HostWarpOp::VoteEq
                                      : HostWarpOp::VoteBallot;
  llvm::Value* r = call_runtime(b, "gpujit_host_warp", b.getInt64Ty(),
                                {op_code(b, op), mask, b.CreateZExt(pred, b.getInt64Ty()), b.getInt32(0)});
  if (mode == Vote::Ballot) return b.CreateTrunc(r, b.getInt32Ty());
  return b.CreateICmpNE(r, b.getInt64(0));
}

llvm::Value* HostTarget::warp_match(llvm::IRBuilder<>& b, bool all, llvm::Value* mask, llvm::Value* value) {
  uses_barrier_ = true;
  HostWarpOp op = all ? HostWarpOp::MatchAll : HostWarpOp::MatchAny;
  llvm::Value* r = call_runtime(b, "gpujit_host_warp", b.getInt64Ty(),
                                {op_code(b, op), mask, b.CreateZExt(value, b.getInt64Ty()), b.getInt32(0)});
  llvm::Value* lanes = b.CreateTrunc(r, b.getInt32Ty());
  if (!all) return lanes;
  llvm::Value* pred = b.CreateTrunc(b.CreateLShr(r, 32), b.getInt1Ty());
  llvm::Type* pair = llvm::StructType::get(b.getContext(), {b.getInt32Ty(), b.getInt1Ty()});
  llvm::Value* agg = b.CreateInsertValue(llvm::PoisonValue::get(pair), lanes, {0});
  return b.CreateInsertValue(agg, pred, {1});
}

llvm::Value* HostTarget::warp_active_mask(llvm::IRBuilder<>& b) {
  uses_barrier_ = true;
  llvm::Value* r =
      call_runtime(b, "gpujit_host_warp", b.getInt64Ty(),
                   {op_code(b, HostWarpOp::ActiveMask), b.getInt32(0), b.getInt64(0), b.getInt32(0)});
  return b.CreateTrunc(r, b.getInt32Ty());
}

llvm::Value* HostTarget::lanemask_lt(llvm::IRBuilder<>& b) {
  llvm::Value* lane = special_register(b, SpecialReg::LaneId, 0);
  return b.CreateSub(b.CreateShl(b.getInt32(1), lane), b.getInt32(1));
}

void HostTarget::grid_sync(llvm::IRBuilder<>& b) {
  uses_barrier_ = true;
  call_runtime(b, "gpujit_host_grid_sync", b.getVoidTy(), {});
}

}  // namespace gpujit
