// The CPU backend's warp-operation rule (host_warp_results) and grid barrier (HostGridBarrier), on their own:
// the results PTX gives for the lanes that take part, and the barrier's release, reuse and deadlock report.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "codegen/host_abi.h"
#include "runtime/host_warp.h"

namespace gpujit {
namespace {

constexpr uint32_t kAll = 0xffffffffu;

std::vector<HostWarpLane> lanes(HostWarpOp op, uint32_t mask, uint32_t arg, uint64_t (*value)(uint32_t)) {
  std::vector<HostWarpLane> w(kHostWarpSize);
  for (uint32_t i = 0; i < kHostWarpSize; ++i) {
    w[i].op = static_cast<uint32_t>(op);
    w[i].mask = mask;
    w[i].arg = arg;
    w[i].value = value(i);
  }
  return w;
}

uint64_t lane_times_ten(uint32_t i) { return 10u * i + (uint64_t{1} << 40); }

TEST(HostWarp, ShufflesFollowPtxClampsAndKeepOwnValueOutOfRange) {
  auto up = lanes(HostWarpOp::ShflUp, kAll, 3, lane_times_ten);
  host_warp_results(up.data(), kAll);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(up[i].result, lane_times_ten(i >= 3 ? i - 3 : i)) << i;

  auto down = lanes(HostWarpOp::ShflDown, kAll, 35, lane_times_ten);  // 35 % 32 = 3
  host_warp_results(down.data(), kAll);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(down[i].result, lane_times_ten(i + 3 <= 31 ? i + 3 : i)) << i;

  auto idx = lanes(HostWarpOp::ShflIdx, kAll, uint32_t(-1), lane_times_ten);  // lane 31
  host_warp_results(idx.data(), kAll);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(idx[i].result, lane_times_ten(31)) << i;

  auto xr = lanes(HostWarpOp::ShflXor, kAll, 5, lane_times_ten);
  host_warp_results(xr.data(), kAll);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(xr[i].result, lane_times_ten(i ^ 5)) << i;
}

TEST(HostWarp, OnlyLanesTakingPartAreSources) {
  // A partial warp of 8 lanes: a source past the last lane gives the caller its own value.
  auto down = lanes(HostWarpOp::ShflDown, kAll, 4, lane_times_ten);
  host_warp_results(down.data(), 0xffu);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(down[i].result, lane_times_ten(i < 4 ? i + 4 : i)) << i;
  // Lanes outside the caller's mask are not sources either.
  auto idx = lanes(HostWarpOp::ShflIdx, 0x0000ffffu, 20, lane_times_ten);
  host_warp_results(idx.data(), 0x0000ffffu);
  EXPECT_EQ(idx[0].result, lane_times_ten(0));
}

uint64_t even_lanes(uint32_t i) { return i % 2 == 0 ? 1 : 0; }
uint64_t all_one(uint32_t) { return 7; }

TEST(HostWarp, VotesAndMatches) {
  auto ballot = lanes(HostWarpOp::VoteBallot, kAll, 0, even_lanes);
  host_warp_results(ballot.data(), kAll);
  EXPECT_EQ(ballot[3].result, 0x55555555u);
  auto ballot_half = lanes(HostWarpOp::VoteBallot, 0x0000ffffu, 0, even_lanes);
  host_warp_results(ballot_half.data(), 0x0000ffffu);
  EXPECT_EQ(ballot_half[0].result, 0x5555u);
  auto all = lanes(HostWarpOp::VoteAll, kAll, 0, even_lanes);
  host_warp_results(all.data(), kAll);
  EXPECT_EQ(all[0].result, 0u);
  auto any = lanes(HostWarpOp::VoteAny, kAll, 0, even_lanes);
  host_warp_results(any.data(), kAll);
  EXPECT_EQ(any[1].result, 1u);
  auto eq = lanes(HostWarpOp::VoteEq, kAll, 0, all_one);
  host_warp_results(eq.data(), kAll);
  EXPECT_EQ(eq[9].result, 1u);
  auto match_any = lanes(HostWarpOp::MatchAny, kAll, 0, even_lanes);
  host_warp_results(match_any.data(), kAll);
  EXPECT_EQ(match_any[1].result, 0xaaaaaaaau);
  auto match_all = lanes(HostWarpOp::MatchAll, kAll, 0, all_one);
  host_warp_results(match_all.data(), kAll);
  EXPECT_EQ(match_all[0].result, (uint64_t{1} << 32) | kAll);
  auto match_none = lanes(HostWarpOp::MatchAll, kAll, 0, even_lanes);
  host_warp_results(match_none.data(), kAll);
  EXPECT_EQ(match_none[0].result, 0u);
}

TEST(HostGridBarrier, ReleasesOnlyWhenEveryBlockArrivesAndCanBeReused) {
  constexpr int kBlocks = 6, kRounds = 50;
  HostGridBarrier barrier(kBlocks);
  std::atomic<int> phase_sum{0};
  std::atomic<bool> early{false};
  std::vector<std::thread> threads;
  for (int b = 0; b < kBlocks; ++b) {
    threads.emplace_back([&] {
      for (int round = 0; round < kRounds; ++round) {
        phase_sum.fetch_add(1);
        ASSERT_TRUE(barrier.arrive_and_wait());
        if (phase_sum.load() < (round + 1) * kBlocks) early = true;
        ASSERT_TRUE(barrier.arrive_and_wait());
      }
      barrier.depart();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(early.load());
  EXPECT_EQ(barrier.deadlock(), "");
}

TEST(HostGridBarrier, ABlockThatReturnsFirstIsADeadlock) {
  HostGridBarrier barrier(3);
  std::thread waiter([&] { EXPECT_FALSE(barrier.arrive_and_wait()); });
  barrier.depart();  // block 1 returned without the barrier
  EXPECT_FALSE(barrier.arrive_and_wait());
  waiter.join();
  EXPECT_NE(barrier.deadlock().find("returned without reaching it"), std::string::npos);
}

}  // namespace
}  // namespace gpujit
