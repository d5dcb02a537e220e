// The warp-level operations and the grid barrier of the host executor (runtime/host_executor.cpp): what a
// lane deposits at a warp operation, the rule that computes every lane's result once the lanes its mask
// names have arrived, and the barrier that holds the blocks of a cooperative launch together.
//
// A warp is 32 consecutive linear thread indices of a block; lane i of a warp is bit i of every mask. The
// results are PTX's (shfl.sync with numba-cuda's clamp operands, vote.sync, match.sync) over the lanes that
// take part: a lane's partners are the lanes of its own mask that arrived at the same operation. A source
// lane that does not take part (outside the mask, returned, or past the end of a partial warp) gives the
// caller its own value, where the GPU leaves the result undefined.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace gpujit {

/// One lane's part in a warp-level operation.
struct HostWarpLane {
  uint32_t op = 0;      // a HostWarpOp (codegen/host_abi.h), or kHostSyncWarp
  uint32_t mask = 0;    // the lanes it operates with
  uint64_t value = 0;   // the shuffled or compared bits, or the predicate
  uint32_t arg = 0;     // the source lane, delta or xor mask of a shuffle
  uint64_t result = 0;  // filled by host_warp_results()
};

/// The op of a syncwarp(), which has no result.
constexpr uint32_t kHostSyncWarp = 0xffffffffu;

/// Fills `result` of every lane in `released` (bit i: lanes[i]) from the deposits of the lanes in `released`.
void host_warp_results(HostWarpLane* lanes, uint32_t released);

/// Holds the blocks of a cooperative launch together at cg.this_grid().sync(). Every block runs on an OS
/// thread of its own; a block arrives once all its live threads wait at the grid barrier.
class HostGridBarrier {
 public:
  explicit HostGridBarrier(uint64_t blocks) : blocks_(blocks) {}

  /// Arrives and waits for every other block. False if the launch failed meanwhile or can never pass this
  /// barrier (some block returned without reaching it): the caller abandons its block.
  bool arrive_and_wait();
  /// A block that has finished; blocks still to arrive at a barrier then never can.
  void depart();
  /// Wakes every waiting block with arrive_and_wait() returning false.
  void abort();
  /// Why the barrier could not be passed ("" if it was aborted from outside).
  std::string deadlock() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t blocks_;
  uint64_t arrived_ = 0;
  uint64_t departed_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
  bool deadlocked_ = false;
};

}  // namespace gpujit
