// The CPU backend's executor without the JIT: how long a barrier (a fiber switch per thread) and an empty
// launch take, and a launch that wakes every pool thread. The kernels are C++ functions with the entry signature generated code
// has (runtime/host_abi.h), so the figures measure the executor alone and the program builds anywhere the
// executor does (scripts/test-aarch64 builds it for AArch64 too).
//
//   host_barriers [--quick] [--blocks N] [--rounds R]
// prints one line per measurement: name, the figure and its unit, the best of several runs. Every kernel's
// result is checked; a wrong one exits 1.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "codegen/host_abi.h"
#include "runtime/host_executor.h"

using gpujit::HostThreadContext;

namespace {

uint32_t linear_tid(const HostThreadContext* ctx) {
  return ctx->tid[0] + ctx->ntid[0] * (ctx->tid[1] + ctx->ntid[1] * ctx->tid[2]);
}

// Each thread writes its slot of shared memory, waits, reads its neighbour's, waits: two barriers per round.
// out[global thread] = sum over rounds of (neighbour + round).
void barrier_kernel(void** params, HostThreadContext* ctx) {
  auto* out = *static_cast<int64_t**>(params[0]);
  int32_t rounds = *static_cast<int32_t*>(params[1]);
  auto* slots = reinterpret_cast<int64_t*>(ctx->shared);
  uint32_t n = ctx->ntid[0] * ctx->ntid[1] * ctx->ntid[2];
  uint32_t t = linear_tid(ctx);
  uint64_t g = uint64_t(ctx->ctaid[0]) * n + t;
  int64_t acc = 0;
  for (int32_t r = 0; r < rounds; ++r) {
    slots[t] = int64_t(g) + r;
    gpujit_host_syncthreads(ctx);
    acc += slots[(t + 1) % n];
    gpujit_host_syncthreads(ctx);
  }
  out[g] = acc;
}

void empty_kernel(void**, HostThreadContext*) {}

// out[global thread] = global thread * 2: a grid of many small blocks without barriers.
void plain_kernel(void** params, HostThreadContext* ctx) {
  auto* out = *static_cast<int64_t**>(params[0]);
  uint64_t g = uint64_t(ctx->ctaid[0]) * ctx->ntid[0] + ctx->tid[0];
  out[g] = int64_t(g) * 2;
}

double seconds_of(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double best_of(int runs, const std::function<void()>& f) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) best = std::min(best, seconds_of(f));
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  uint32_t barrier_blocks = 8;
  int32_t barrier_rounds = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--blocks") == 0 && i + 1 < argc) barrier_blocks = uint32_t(std::atoi(argv[++i]));
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) barrier_rounds = std::atoi(argv[++i]);
  }
  gpujit::HostExecutor& ex = gpujit::HostExecutor::instance();
  int runs = quick ? 3 : 7;
  bool ok = true;

  // Barriers: 8 blocks of 256 threads, 200 rounds of two barriers.
  {
    const uint32_t blocks = barrier_blocks, threads = 256;
    const int32_t rounds = barrier_rounds > 0 ? barrier_rounds : quick ? 20 : 200;
    std::vector<int64_t> out(blocks * threads);
    int64_t* out_ptr = out.data();
    int32_t r = rounds;
    void* params[] = {&out_ptr, &r};
    gpujit::HostLaunch l;
    l.entry = barrier_kernel;
    l.kernel_name = "barrier_kernel";
    l.grid[0] = blocks;
    l.block[0] = threads;
    l.params = params;
    l.static_shared_bytes = threads * sizeof(int64_t);
    l.uses_barrier = true;
    double s = best_of(runs, [&] { ex.launch(l); });
    for (uint32_t b = 0; b < blocks; ++b) {
      for (uint32_t t = 0; t < threads; ++t) {
        int64_t neighbour = int64_t(b) * threads + (t + 1) % threads;
        int64_t want = neighbour * rounds + int64_t(rounds) * (rounds - 1) / 2;
        if (out[b * threads + t] != want) ok = false;
      }
    }
    double crossings = double(blocks) * threads * rounds * 2;
    std::printf("barrier_crossing %.1f ns (per thread and barrier; %u blocks x %u threads, %d barriers, %u pool threads)\n",
                s / crossings * 1e9, blocks, threads, rounds * 2, ex.num_threads());
  }

  // Empty launches: one block of one thread, so the figure is the executor's fixed cost per launch.
  {
    gpujit::HostLaunch l;
    l.entry = empty_kernel;
    l.kernel_name = "empty_kernel";
    const int n = quick ? 200 : 2000;
    double s = best_of(runs, [&] {
      for (int i = 0; i < n; ++i) ex.launch(l);
    });
    std::printf("empty_launch %.2f us (one block of one thread)\n", s / n * 1e6);
  }

  // Pool launches: one empty block per OS thread, so every pool thread is woken and waited for; the figure is
  // the pool's hand-off cost per launch (what a short kernel pays besides its work).
  {
    gpujit::HostLaunch l;
    l.entry = empty_kernel;
    l.kernel_name = "empty_kernel";
    l.grid[0] = ex.num_threads();
    const int n = quick ? 200 : 2000;
    double s = best_of(runs, [&] {
      for (int i = 0; i < n; ++i) ex.launch(l);
    });
    std::printf("pool_launch %.2f us (%u blocks of one thread, one per OS thread)\n", s / n * 1e6, ex.num_threads());
  }

  // Many small blocks without barriers: 4096 blocks of 64 threads.
  {
    const uint32_t blocks = 4096, threads = 64;
    std::vector<int64_t> out(uint64_t(blocks) * threads);
    int64_t* out_ptr = out.data();
    void* params[] = {&out_ptr};
    gpujit::HostLaunch l;
    l.entry = plain_kernel;
    l.kernel_name = "plain_kernel";
    l.grid[0] = blocks;
    l.block[0] = threads;
    l.params = params;
    double s = best_of(runs, [&] { ex.launch(l); });
    for (uint64_t g = 0; g < out.size(); ++g) {
      if (out[g] != int64_t(g) * 2) ok = false;
    }
    std::printf("plain_grid %.1f us (%u blocks x %u threads)\n", s * 1e6, blocks, threads);
  }

  if (!ok) {
    std::fprintf(stderr, "host_barriers: a kernel computed a wrong result\n");
    return 1;
  }
  return 0;
}
