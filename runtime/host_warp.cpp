// Warp-level operation results and the grid barrier of the host executor (see host_warp.h).
#include "runtime/host_warp.h"

#include "codegen/host_abi.h"

namespace gpujit {

namespace {

bool has(uint32_t mask, uint32_t lane) { return (mask >> lane) & 1u; }

/// shfl.sync's source lane for `lane` (numba-cuda's clamp: 0 for up, 31 otherwise; no segments), or `lane`
/// itself when the source is outside the warp.
uint32_t shuffle_source(HostWarpOp op, uint32_t lane, uint32_t arg) {
  int b = static_cast<int>(arg & 31u), i = static_cast<int>(lane), j = i;
  switch (op) {
    case HostWarpOp::ShflIdx:
      j = b;
      break;
    case HostWarpOp::ShflUp:
      j = i - b >= 0 ? i - b : i;
      break;
    case HostWarpOp::ShflDown:
      j = i + b <= 31 ? i + b : i;
      break;
    default:
      j = i ^ b;
      break;
  }
  return static_cast<uint32_t>(j);
}

}  // namespace

void host_warp_results(HostWarpLane* lanes, uint32_t released) {
  for (uint32_t i = 0; i < kHostWarpSize; ++i) {
    if (!has(released, i)) continue;
    HostWarpLane& me = lanes[i];
    // The lanes this one operates with: those of its mask at the same operation, itself included.
    uint32_t partners = 1u << i;
    for (uint32_t j = 0; j < kHostWarpSize; ++j) {
      if (has(released, j) && has(me.mask, j) && lanes[j].op == me.op) partners |= 1u << j;
    }
    uint32_t nonzero = 0, equal = 0;
    for (uint32_t j = 0; j < kHostWarpSize; ++j) {
      if (!has(partners, j)) continue;
      if (lanes[j].value != 0) nonzero |= 1u << j;
      if (lanes[j].value == me.value) equal |= 1u << j;
    }
    if (me.op == kHostSyncWarp) {
      me.result = 0;
      continue;
    }
    auto op = static_cast<HostWarpOp>(me.op);
    switch (op) {
      case HostWarpOp::ShflIdx:
      case HostWarpOp::ShflUp:
      case HostWarpOp::ShflDown:
      case HostWarpOp::ShflXor: {
        uint32_t j = shuffle_source(op, i, me.arg);
        me.result = has(partners, j) ? lanes[j].value : me.value;
        break;
      }
      case HostWarpOp::VoteAll:
        me.result = nonzero == partners ? 1 : 0;
        break;
      case HostWarpOp::VoteAny:
        me.result = nonzero != 0 ? 1 : 0;
        break;
      case HostWarpOp::VoteEq:
        me.result = nonzero == 0 || nonzero == partners ? 1 : 0;
        break;
      case HostWarpOp::VoteBallot:
        me.result = nonzero;
        break;
      case HostWarpOp::MatchAny:
        me.result = equal;
        break;
      case HostWarpOp::MatchAll:
        me.result = equal == partners ? (uint64_t{1} << 32) | partners : 0;
        break;
      case HostWarpOp::ActiveMask:
        me.result = partners;
        break;
    }
  }
}

bool HostGridBarrier::arrive_and_wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (aborted_) return false;
  ++arrived_;
  if (arrived_ + departed_ == blocks_) {
    if (departed_ != 0) {
      deadlocked_ = aborted_ = true;
      cv_.notify_all();
      return false;
    }
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
    return true;
  }
  uint64_t generation = generation_;
  cv_.wait(lock, [&] { return generation_ != generation || aborted_; });
  return !aborted_ || generation_ != generation;
}

void HostGridBarrier::depart() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++departed_;
  if (arrived_ != 0 && arrived_ + departed_ == blocks_) {
    deadlocked_ = aborted_ = true;
    cv_.notify_all();
  }
}

void HostGridBarrier::abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  aborted_ = true;
  cv_.notify_all();
}

std::string HostGridBarrier::deadlock() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!deadlocked_) return "";
  return "some blocks wait at cg.this_grid().sync() while others returned without reaching it; every thread "
         "of the grid must reach each grid sync";
}

}  // namespace gpujit
