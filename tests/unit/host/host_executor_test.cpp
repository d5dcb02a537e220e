// The host executor and fibers, driven by hand-written C++ "kernels" with the calling convention the host JIT
// gives generated kernels (HostEntryFn): parameters through a kernelParams array, the thread's identity and
// shared memory through HostThreadContext, barriers through the gpujit_host_syncthreads* entry points.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/host_abi.h"
#include "runtime/host_executor.h"
#include "runtime/host_fiber.h"

namespace gpujit {
namespace {

// ---- fibers ----

struct PingPong {
  FiberContext main;
  FiberContext fiber;
  std::vector<int> trace;
};

void ping_pong_fiber(void* arg) {
  auto* p = static_cast<PingPong*>(arg);
  for (int i = 0; i < 3; ++i) {
    p->trace.push_back(100 + i);
    fiber_switch(p->fiber, p->main);
  }
  p->trace.push_back(-1);
  fiber_exit(p->fiber, p->main);
}

TEST(HostFiber, SwitchesBackAndForthKeepingState) {
  ASSERT_TRUE(host_fibers_supported());
  FiberStack stack(64 * 1024);
  PingPong p;
  fiber_prepare(p.fiber, stack, ping_pong_fiber, &p);
  for (int i = 0; i < 4; ++i) {
    p.trace.push_back(i);
    fiber_switch(p.main, p.fiber);
  }
  EXPECT_EQ(p.trace, (std::vector<int>{0, 100, 1, 101, 2, 102, 3, -1}));
}

struct FloatKeeper {
  FiberContext main;
  FiberContext fiber;
  double result = 0;
};

// Keeps doubles live across switches: callee-saved state must survive both ways.
void float_fiber(void* arg) {
  auto* k = static_cast<FloatKeeper*>(arg);
  volatile double seed = 1.5;
  double a = seed, b = seed * 2;
  fiber_switch(k->fiber, k->main);
  a += 1;
  fiber_switch(k->fiber, k->main);
  k->result = a * b;
  fiber_exit(k->fiber, k->main);
}

TEST(HostFiber, PreservesFloatingPointStateAcrossSwitches) {
  FiberStack stack(64 * 1024);
  FloatKeeper k;
  fiber_prepare(k.fiber, stack, float_fiber, &k);
  volatile double mine = 7.25;
  double x = mine;
  for (int i = 0; i < 3; ++i) {
    fiber_switch(k.main, k.fiber);
    x = x * 2;
  }
  EXPECT_DOUBLE_EQ(k.result, 2.5 * 3.0);
  EXPECT_DOUBLE_EQ(x, 58.0);
}

// Exceptions thrown and caught on a fiber's stack. A throw tells ASan to unpoison the running stack
// (__asan_handle_no_return), for which it needs the running fiber's bounds: without the switch annotations of
// host_fiber.cpp it warns that it cannot, and false reports may follow (scripts/sanitize fails on the warning).
void throwing_fiber(void* arg) {
  auto* p = static_cast<PingPong*>(arg);
  for (int i = 0; i < 3; ++i) {
    try {
      throw std::runtime_error("thrown on a fiber");
    } catch (const std::runtime_error& e) {
      p->trace.push_back(200 + i);
    }
    fiber_switch(p->fiber, p->main);
  }
  fiber_exit(p->fiber, p->main);
}

TEST(HostFiber, ExceptionsThrownAndCaughtOnAFiber) {
  FiberStack stack(64 * 1024);
  PingPong p;
  fiber_prepare(p.fiber, stack, throwing_fiber, &p);
  for (int i = 0; i < 4; ++i) fiber_switch(p.main, p.fiber);
  EXPECT_EQ(p.trace, (std::vector<int>{200, 201, 202}));
}

// A stack reused after its fiber was abandoned mid-call (as the executor abandons a deadlocked block's fibers)
// and after one that exited: the new fiber's frames start where the old ones were still live.
[[gnu::noinline]] void fill_frame(PingPong* p, int n) {
  volatile char buf[512];
  for (int i = 0; i < 512; ++i) buf[i] = static_cast<char>(i + n);
  p->trace.push_back(buf[n]);  // i + n at i = n
}

void abandoned_fiber(void* arg) {
  auto* p = static_cast<PingPong*>(arg);
  volatile char deep[2048];
  deep[0] = 1;
  p->trace.push_back(deep[0]);
  fiber_switch(p->fiber, p->main);  // never resumed
  fiber_exit(p->fiber, p->main);
}

void filling_fiber(void* arg) {
  auto* p = static_cast<PingPong*>(arg);
  fill_frame(p, 7);
  fiber_exit(p->fiber, p->main);
}

TEST(HostFiber, StackReusedAfterAnAbandonedAndAnExitedFiber) {
  FiberStack stack(64 * 1024);
  PingPong p;
  fiber_prepare(p.fiber, stack, abandoned_fiber, &p);
  fiber_switch(p.main, p.fiber);
  fiber_prepare(p.fiber, stack, filling_fiber, &p);
  fiber_switch(p.main, p.fiber);
  fiber_prepare(p.fiber, stack, filling_fiber, &p);
  fiber_switch(p.main, p.fiber);
  EXPECT_EQ(p.trace, (std::vector<int>{1, 14, 14}));
}

// ---- kernels ----

HostLaunch make_launch(HostEntryFn entry, std::vector<void*>& params, std::array<uint32_t, 3> grid,
                       std::array<uint32_t, 3> block) {
  HostLaunch l;
  l.entry = entry;
  l.kernel_name = "test_kernel";
  for (int d = 0; d < 3; ++d) {
    l.grid[d] = grid[d];
    l.block[d] = block[d];
  }
  l.params = params.data();
  return l;
}

uint64_t global_linear(const HostThreadContext* c) {
  uint64_t gx = uint64_t(c->ctaid[0]) * c->ntid[0] + c->tid[0];
  uint64_t gy = uint64_t(c->ctaid[1]) * c->ntid[1] + c->tid[1];
  uint64_t gz = uint64_t(c->ctaid[2]) * c->ntid[2] + c->tid[2];
  uint64_t width = uint64_t(c->nctaid[0]) * c->ntid[0], height = uint64_t(c->nctaid[1]) * c->ntid[1];
  return (gz * height + gy) * width + gx;
}

// out[global linear id] = packed (tid, ctaid) so the test can check every thread ran once with its identity.
void identity_kernel(void** params, HostThreadContext* c) {
  auto* out = *static_cast<uint64_t**>(params[0]);
  uint64_t id = global_linear(c);
  out[id] = (uint64_t(c->tid[0]) | uint64_t(c->tid[1]) << 10 | uint64_t(c->tid[2]) << 20 |
             uint64_t(c->ctaid[0]) << 30 | uint64_t(c->ctaid[1]) << 40 | uint64_t(c->ctaid[2]) << 50) +
            1;
  EXPECT_EQ(c->warpsize, kHostWarpSize);
  uint32_t linear_tid = (c->tid[2] * c->ntid[1] + c->tid[1]) * c->ntid[0] + c->tid[0];
  EXPECT_EQ(c->laneid, linear_tid % kHostWarpSize);
}

TEST(HostExecutor, RunsEveryThreadOfA3DGridOnceWithItsIdentity) {
  std::array<uint32_t, 3> grid{3, 2, 2}, block{4, 3, 2};
  size_t n = 3 * 2 * 2 * 4 * 3 * 2;
  std::vector<uint64_t> out(n, 0);
  uint64_t* ptr = out.data();
  std::vector<void*> params{&ptr};
  HostExecutor exec(2);
  exec.launch(make_launch(identity_kernel, params, grid, block));
  for (uint32_t bz = 0; bz < 2; ++bz)
    for (uint32_t by = 0; by < 2; ++by)
      for (uint32_t bx = 0; bx < 3; ++bx)
        for (uint32_t tz = 0; tz < 2; ++tz)
          for (uint32_t ty = 0; ty < 3; ++ty)
            for (uint32_t tx = 0; tx < 4; ++tx) {
              uint64_t gx = bx * 4 + tx, gy = by * 3 + ty, gz = bz * 2 + tz;
              uint64_t id = (gz * 6 + gy) * 12 + gx;
              uint64_t want = (tx | ty << 10 | uint64_t(tz) << 20 | uint64_t(bx) << 30 | uint64_t(by) << 40 |
                               uint64_t(bz) << 50) +
                              1;
              ASSERT_EQ(out[id], want) << "thread " << id;
            }
}

void count_kernel(void** params, HostThreadContext*) {
  static_cast<std::atomic<uint64_t>*>(*static_cast<void**>(params[0]))->fetch_add(1);
}

TEST(HostExecutor, SpreadsManyBlocksOverThePool) {
  std::atomic<uint64_t> counter{0};
  void* p = &counter;
  std::vector<void*> params{&p};
  HostExecutor exec(4);
  EXPECT_EQ(exec.num_threads(), 4u);
  for (int rep = 0; rep < 3; ++rep) exec.launch(make_launch(count_kernel, params, {1000, 3, 1}, {64, 1, 1}));
  EXPECT_EQ(counter.load(), 3u * 1000 * 3 * 64);
}

// Block sum in shared memory with a tree reduction: wrong without a real barrier between the steps.
void block_sum_kernel(void** params, HostThreadContext* c) {
  const float* in = *static_cast<float**>(params[0]);
  float* out = *static_cast<float**>(params[1]);
  auto* sh = reinterpret_cast<float*>(c->shared);
  uint32_t t = c->tid[0];
  sh[t] = in[c->ctaid[0] * c->ntid[0] + t];
  gpujit_host_syncthreads(c);
  for (uint32_t s = c->ntid[0] / 2; s > 0; s /= 2) {
    if (t < s) sh[t] += sh[t + s];
    gpujit_host_syncthreads(c);
  }
  if (t == 0) out[c->ctaid[0]] = sh[0];
}

TEST(HostExecutor, SharedMemoryReductionWithBarriers) {
  const uint32_t blocks = 37, threads = 256;
  std::vector<float> in(blocks * threads), out(blocks, -1);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 13);
  float *pin = in.data(), *pout = out.data();
  std::vector<void*> params{&pin, &pout};
  HostLaunch l = make_launch(block_sum_kernel, params, {blocks, 1, 1}, {threads, 1, 1});
  l.static_shared_bytes = threads * sizeof(float);
  l.uses_barrier = true;
  HostExecutor exec(2);
  exec.launch(l);
  for (uint32_t b = 0; b < blocks; ++b) {
    float want = 0;
    for (uint32_t t = 0; t < threads; ++t) want += in[b * threads + t];
    EXPECT_EQ(out[b], want) << "block " << b;
  }
}

// Each thread fills a local array, waits for the whole block, then checks it: fibers must not share stacks.
void local_array_kernel(void** params, HostThreadContext* c) {
  int* ok = *static_cast<int**>(params[0]);
  volatile int local[64];
  for (int i = 0; i < 64; ++i) local[i] = int(c->tid[0]) * 1000 + i;
  gpujit_host_syncthreads(c);
  int good = 1;
  for (int i = 0; i < 64; ++i) good &= local[i] == int(c->tid[0]) * 1000 + i;
  ok[c->ctaid[0] * c->ntid[0] + c->tid[0]] = good;
}

TEST(HostExecutor, LocalArraysArePrivateToEachFiber) {
  std::vector<int> ok(4 * 128, 0);
  int* p = ok.data();
  std::vector<void*> params{&p};
  HostLaunch l = make_launch(local_array_kernel, params, {4, 1, 1}, {128, 1, 1});
  l.uses_barrier = true;
  HostExecutor exec(1);
  exec.launch(l);
  EXPECT_EQ(std::accumulate(ok.begin(), ok.end(), 0), 4 * 128);
}

// syncthreads_count/and/or over a predicate true for the even threads of a 2D block, and dynamic shared memory
// holding each thread's results.
void predicate_kernel(void** params, HostThreadContext* c) {
  int32_t* out = *static_cast<int32_t**>(params[0]);
  uint32_t t = c->tid[1] * c->ntid[0] + c->tid[0];
  auto* dyn = reinterpret_cast<int32_t*>(c->dynamic_shared);
  int32_t count = gpujit_host_syncthreads_count(c, t % 2 == 0);
  int32_t all_even = gpujit_host_syncthreads_and(c, t % 2 == 0);
  int32_t all_small = gpujit_host_syncthreads_and(c, t < 10000);
  int32_t any_big = gpujit_host_syncthreads_or(c, t == 5);
  int32_t none = gpujit_host_syncthreads_or(c, 0);
  dyn[t] = count * 10000 + all_even * 1000 + all_small * 100 + any_big * 10 + none;
  gpujit_host_syncthreads(c);
  out[t] = dyn[(t + 1) % (c->ntid[0] * c->ntid[1])];
}

TEST(HostExecutor, BarrierPredicatesAndDynamicSharedMemory) {
  std::vector<int32_t> out(8 * 6, -1);
  int32_t* p = out.data();
  std::vector<void*> params{&p};
  HostLaunch l = make_launch(predicate_kernel, params, {1, 1, 1}, {8, 6, 1});
  l.dynamic_shared_bytes = out.size() * sizeof(int32_t);
  l.static_shared_bytes = 12;  // dynamic memory starts after it, aligned
  l.uses_barrier = true;
  HostExecutor exec(1);
  exec.launch(l);
  for (int32_t v : out) EXPECT_EQ(v, 24 * 10000 + 0 * 1000 + 100 + 10 + 0);
}

// Threads past the first 16 return before the barrier the others wait at.
void early_return_kernel(void**, HostThreadContext* c) {
  if (c->tid[0] >= 16) return;
  gpujit_host_syncthreads(c);
}

TEST(HostExecutor, DeadlockAtABarrierIsAnErrorNamingTheKernel) {
  std::vector<void*> params;
  HostLaunch l = make_launch(early_return_kernel, params, {2, 1, 1}, {64, 1, 1});
  l.kernel_name = "early_exit";
  l.uses_barrier = true;
  HostExecutor exec(1);
  try {
    exec.launch(l);
    FAIL() << "expected a deadlock error";
  } catch (const HostExecutionError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "kernel 'early_exit' deadlocked in block (0, 0, 0): 16 of 64 threads wait at syncthreads() while the "
        "other 48 returned without reaching it; every thread of a block must reach each syncthreads() (do "
        "not return early before a barrier)");
  }
  // The abandoned fibers' stacks are reused: the executor still runs barrier kernels afterwards.
  std::vector<float> in(64, 1.0f), out(1, 0);
  float *pin = in.data(), *pout = out.data();
  std::vector<void*> params2{&pin, &pout};
  HostLaunch ok = make_launch(block_sum_kernel, params2, {1, 1, 1}, {64, 1, 1});
  ok.static_shared_bytes = 64 * sizeof(float);
  ok.uses_barrier = true;
  exec.launch(ok);
  EXPECT_EQ(out[0], 64.0f);
}

// A warp-level tree reduction in shared memory with syncwarp() between steps, in each of two warps; lanes 16..31
// of each warp leave after the first step and are no longer named in the masks.
void warp_sum_kernel(void** params, HostThreadContext* c) {
  int32_t* out = *static_cast<int32_t**>(params[0]);
  auto* sh = reinterpret_cast<int32_t*>(c->shared);
  uint32_t t = c->tid[0], lane = c->laneid, warp = t / kHostWarpSize;
  sh[t] = int32_t(t);
  gpujit_host_syncwarp(c, 0xffffffffu);
  if (lane < 16) sh[t] += sh[t + 16];
  gpujit_host_syncwarp(c, 0xffffffffu);
  if (lane >= 16) return;
  for (uint32_t s = 8; s > 0; s /= 2) {
    if (lane < s) sh[t] += sh[t + s];
    gpujit_host_syncwarp(c, 0x0000ffffu);
  }
  if (lane == 0) out[warp] = sh[t];
}

TEST(HostExecutor, SyncwarpIsABarrierOfTheLanesInTheMask) {
  std::vector<int32_t> out(2, -1);
  int32_t* p = out.data();
  std::vector<void*> params{&p};
  HostLaunch l = make_launch(warp_sum_kernel, params, {1, 1, 1}, {64, 1, 1});
  l.static_shared_bytes = 64 * sizeof(int32_t);
  l.uses_barrier = true;
  HostExecutor exec(1);
  exec.launch(l);
  EXPECT_EQ(out[0], 31 * 32 / 2);
  EXPECT_EQ(out[1], (32 + 63) * 32 / 2);
}

// Lane 0 waits at syncwarp for lane 1, which waits at syncthreads: neither can go on.
void crossed_barriers_kernel(void**, HostThreadContext* c) {
  if (c->laneid == 0) {
    gpujit_host_syncwarp(c, 0x3u);
  } else {
    gpujit_host_syncthreads(c);
  }
}

TEST(HostExecutor, CrossedWarpAndBlockBarriersAreADeadlock) {
  std::vector<void*> params;
  HostLaunch l = make_launch(crossed_barriers_kernel, params, {1, 1, 1}, {2, 1, 1});
  l.kernel_name = "crossed";
  l.uses_barrier = true;
  HostExecutor exec(1);
  try {
    exec.launch(l);
    FAIL() << "expected a deadlock error";
  } catch (const HostExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'crossed' deadlocked in block (0, 0, 0): 1 threads wait at "
                                         "syncthreads() and 1 at syncwarp()"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostExecutor, AForkedChildGetsAnExecutorOfItsOwn) {
  // The parent's pool exists before the fork; the child has none of its threads and must not wait for them.
  std::atomic<uint64_t> counter{0};
  void* p = &counter;
  std::vector<void*> params{&p};
  HostExecutor::instance().launch(make_launch(count_kernel, params, {8, 1, 1}, {4, 1, 1}));
  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    alarm(20);  // a hang fails the test instead of stalling it
    counter = 0;
    HostExecutor::instance().launch(make_launch(count_kernel, params, {64, 1, 1}, {4, 1, 1}));
    _exit(counter.load() == 256 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

TEST(HostExecutor, RejectsBadConfigurations) {
  std::vector<void*> params;
  HostExecutor exec(1);
  HostLaunch empty = make_launch(count_kernel, params, {0, 1, 1}, {1, 1, 1});
  EXPECT_THROW(exec.launch(empty), HostExecutionError);
  HostLaunch too_big = make_launch(count_kernel, params, {1, 1, 1}, {32, 32, 2});
  try {
    exec.launch(too_big);
    FAIL();
  } catch (const HostExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("2048 threads per block; the limit is 1024"), std::string::npos);
  }
}

TEST(HostExecutor, BarrierInABlockRunAsALoopIsReported) {
  std::vector<void*> params;
  HostLaunch l = make_launch(early_return_kernel, params, {1, 1, 1}, {8, 1, 1});
  l.uses_barrier = false;  // what a codegen bug would report
  HostExecutor exec(1);
  EXPECT_THROW(exec.launch(l), HostExecutionError);
}

}  // namespace
}  // namespace gpujit
