// The host executor (see host_executor.h): the worker pool, the per-block thread loop, the fiber scheduler
// for blocks with barriers, and the barrier entry points generated code calls (codegen/host_abi.h).
//
// The fiber scheduler runs in passes. One pass resumes every live fiber once, in index order; each runs until
// it arrives at a barrier or returns, then switches to the next (the last one back to the scheduler). After a pass every live fiber is therefore waiting at a barrier, so either all have
// returned (the block is done), none has (release the barrier: publish the predicate count and start the next
// pass), or some have and the rest wait for threads that will never come: a deadlock, reported by name.
// Every barrier call site counts as the same barrier, as bar.sync 0 does on the GPU. syncwarp() is a barrier of
// the lanes its mask names, within the warp (32 consecutive linear thread indices): its waiters run again
// once every named lane waits at a syncwarp() or has returned; warp barriers are released before the block
// barrier is considered, since lanes freed by one may go on to the other.
// The warp-level operations (shfl/vote/match_*_sync, activemask) are such warp barriers that also exchange
// values: each lane deposits its operands in its fiber's HostWarpLane, and a lane is released once every
// lane its mask names waits at a warp operation or has returned; the results are computed then for all the
// lanes released together (runtime/host_warp.h). activemask() waiters are released at the end of every pass
// with the mask of the warp's lanes that called it in that pass.
// cg.this_grid().sync() (a launch with uses_grid_sync) runs every block on an OS thread of its own; a block
// whose live fibers all wait at the grid barrier waits for the other blocks (HostGridBarrier).
// A failed bounds check (gpujit_host_index_error, kernels compiled with debug=True) ends its block at once:
// a fiber switches to the scheduler for good, a thread run on the worker's own stack longjmps to the block's
// start (generated code keeps nothing with a destructor on the stack). The block's other threads are
// abandoned, so they cannot be reported as a deadlock, and the first index error of the launch is raised
// after it in preference to any other failure.
#include "runtime/host_executor.h"

#include <fmt/format.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csetjmp>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "runtime/host_fiber.h"
#include "runtime/host_guard.h"
#include "runtime/host_warp.h"
#include "runtime/runtime_error.h"

namespace gpujit {

namespace {

enum class FiberState : uint8_t { Running, AtBarrier, AtWarpBarrier, AtGridBarrier, Done };

/// One kernel thread run as a fiber. The context comes first, so the context pointer generated code passes
/// to the barrier entry points is the fiber's address.
struct Fiber {
  HostThreadContext ctx;
  FiberContext context;
  FiberState state = FiberState::Running;
  uint32_t index = 0;  // linear thread index in the block
  HostWarpLane warp;   // AtWarpBarrier: the operation (syncwarp or HostWarpOp), its mask and operands
  HostEntryFn entry = nullptr;
  void** params = nullptr;
};
static_assert(std::is_standard_layout_v<Fiber> && offsetof(Fiber, ctx) == 0);

}  // namespace

/// Marks a block's recorded error as a `raise` (gpujit_host_raise): the rest is the raise's description and
/// the thread's place, which the launch throws as rt::KernelRaise.
constexpr std::string_view kRaisePrefix = "\x1eraise\n";

/// Barrier bookkeeping of the block a worker is running. Touched only by that worker's OS thread.
struct HostBlockState {
  FiberContext scheduler;        // where the last fiber of a pass switches to
  Fiber* fibers = nullptr;       // the block's threads, when they run as fibers
  uint32_t current = 0;          // the fiber running now (for a fault's report)
  bool in_fiber = false;         // a fiber runs (the scheduler switched to one and is not back yet)
  uint32_t threads = 0;          // threads in the block
  uint32_t live = 0;             // fibers that have not returned
  int32_t arrived_true = 0;      // nonzero predicates at the barrier being filled
  int32_t released_true = 0;     // nonzero predicates at the barrier last released
  int32_t released_threads = 0;  // threads that took part in the barrier last released
  bool misused = false;          // a barrier was reached in a block run as a plain loop
  HostGridBarrier* grid = nullptr;  // the launch's grid barrier, for launches with uses_grid_sync
  bool grid_failed = false;         // a grid sync of a block run as a plain loop could not pass
  std::jmp_buf* escape = nullptr;   // where an index error in a block run as a plain loop jumps to
  std::string index_error;  // the block's first failed bounds check or raise (kRaisePrefix), as the message
};

namespace {

/// Ends `fiber`'s turn in the pass: switches straight to the next fiber of the block that can run, or back
/// to the scheduler after the last one. Going fiber to fiber takes one switch per thread and barrier where
/// a round trip through the scheduler would take two. After a fiber's last turn (`exiting`) it is not resumed.
void pass_on(Fiber* fiber, bool exiting = false) {
  HostBlockState* block = fiber->ctx.block;
  FiberContext* to = &block->scheduler;
  for (uint32_t j = fiber->index + 1; j < block->threads; ++j) {
    Fiber& next = block->fibers[j];
    if (next.state == FiberState::Running) {
      block->current = j;
      to = &next.context;
      break;
    }
  }
  if (exiting) fiber_exit(fiber->context, *to);
  fiber_switch(fiber->context, *to);
}

[[noreturn]] void fiber_main(void* arg) {
  auto* fiber = static_cast<Fiber*>(arg);
  fiber->entry(fiber->params, &fiber->ctx);
  fiber->state = FiberState::Done;
  --fiber->ctx.block->live;
  pass_on(fiber, /*exiting=*/true);
  __builtin_unreachable();
}

/// Arrives at the block's barrier with `predicate` and returns the number of threads whose predicate was
/// nonzero once every thread has arrived.
int32_t barrier_arrive(HostThreadContext* ctx, int32_t predicate) {
  HostBlockState* block = ctx->block;
  if (block->fibers == nullptr) {
    // A plain loop cannot wait for the other threads; with one thread there is nothing to wait for.
    if (block->threads > 1) block->misused = true;
    block->released_threads = 1;
    return predicate != 0 ? 1 : 0;
  }
  auto* fiber = reinterpret_cast<Fiber*>(ctx);
  fiber->state = FiberState::AtBarrier;
  block->arrived_true += predicate != 0 ? 1 : 0;
  pass_on(fiber);
  return block->released_true;
}

/// Releases the lanes waiting at syncwarp() or a warp operation whose masks name only lanes that wait at one
/// too or have returned, computing the operations' results, and the lanes waiting at activemask(). Returns
/// whether any fiber can run again.
bool release_warp_barriers(Fiber* fibers, uint32_t n) {
  bool released_any = false;
  for (uint32_t first = 0; first < n; first += kHostWarpSize) {
    uint32_t lanes = std::min(kHostWarpSize, n - first);
    uint32_t waiting = 0, active = 0, arrived = 0;
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      const Fiber& f = fibers[first + lane];
      bool at_warp = f.state == FiberState::AtWarpBarrier;
      bool at_activemask = at_warp && f.warp.op == static_cast<uint32_t>(HostWarpOp::ActiveMask);
      if (at_activemask) active |= 1u << lane;
      if (at_warp && !at_activemask) waiting |= 1u << lane;
      if ((at_warp && !at_activemask) || f.state == FiberState::Done) arrived |= 1u << lane;
    }
    uint32_t present = lanes == 32 ? ~0u : (1u << lanes) - 1;
    uint32_t released = active;
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      if ((waiting >> lane & 1u) && (fibers[first + lane].warp.mask & present & ~arrived) == 0) {
        released |= 1u << lane;
      }
    }
    if (released == 0) continue;
    HostWarpLane warp[kHostWarpSize];
    for (uint32_t lane = 0; lane < lanes; ++lane) warp[lane] = fibers[first + lane].warp;
    host_warp_results(warp, released & ~active);
    host_warp_results(warp, active);
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      if (!(released >> lane & 1u)) continue;
      fibers[first + lane].warp.result = warp[lane].result;
      fibers[first + lane].state = FiberState::Running;
    }
    released_any = true;
  }
  return released_any;
}

/// Aligned, reusable scratch memory for a block's shared arrays.
class SharedBuffer {
 public:
  ~SharedBuffer() { std::free(data_); }
  uint8_t* reserve(size_t bytes) {
    if (bytes > capacity_) {
      std::free(data_);
      capacity_ = (bytes + kHostSharedAlign - 1) / kHostSharedAlign * kHostSharedAlign;
      data_ = static_cast<uint8_t*>(std::aligned_alloc(kHostSharedAlign, capacity_));
      if (data_ == nullptr) {
        capacity_ = 0;
        throw std::bad_alloc();
      }
    }
    return data_;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
};

/// What one OS thread of the pool keeps between blocks and launches.
struct Worker {
  SharedBuffer shared;
  std::vector<std::unique_ptr<FiberStack>> stacks;
  std::vector<Fiber> fibers;
  HostBlockState block;
  // While `busy`, the worker runs blocks on `thread`, which a cancelled launch kicks (host_guard.h).
  std::atomic<bool> busy{false};
  pthread_t thread{};
};

std::atomic<bool (*)()> g_interrupt_check{nullptr};

size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

unsigned threads_from_environment() {
  if (const char* s = std::getenv("GPUJIT_CPU_THREADS")) {
    char* end = nullptr;
    long n = std::strtol(s, &end, 10);
    if (end != s && *end == '\0' && n > 0 && n <= 4096) return static_cast<unsigned>(n);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

}  // namespace

struct HostExecutor::Impl {
  unsigned num_threads = 1;
  std::vector<std::unique_ptr<Worker>> workers;  // [0] is the launching thread's, [i] the pool's thread i-1
  std::vector<std::thread> threads;

  std::mutex launch_mutex;  // one launch at a time

  std::mutex mutex;  // guards generation, helpers, pending, stop
  std::condition_variable start_cv, done_cv;
  uint64_t generation = 0;
  unsigned helpers = 0;  // pool threads taking part in the launch in progress: workers[1..helpers]
  unsigned pending = 0;
  bool stop = false;
  std::atomic<bool> cancelled{false};  // the launching thread's interrupt check asked to stop

  // The launch in progress.
  const HostLaunch* job = nullptr;
  std::string kernel_name;  // job's, for after it ended
  uint64_t total_blocks = 0;
  std::atomic<uint64_t> next_block{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string error;
  std::string index_error;  // the first failed bounds check; raised in preference to `error`
  HostGridBarrier* grid = nullptr;  // uses_grid_sync launches: every block runs at once


  /// A pool thread: waits for each launch (one broadcast of start_cv), runs blocks, reports with finished().
  void worker_loop(unsigned index);
  /// Runs blocks on the calling thread with `worker` until none is left or the launch failed.
  void run_blocks(Worker& worker);
  void run_block(Worker& worker, uint64_t linear_block);
  /// Runs the block under the thread's guard; a fault or kick lands here and fails the launch.
  void run_block_guarded(Worker& worker, HostThreadContext& ctx);
  void report_escape(Worker& worker, const HostThreadContext& ctx, const HostGuard& guard);
  /// Called by a worker when it is done with the launch.
  void finished();
  /// Waits until every worker of the launch has finished, calling the interrupt check now and then; once
  /// it asks to stop, cancels the launch and kicks the workers still in a kernel.
  void wait_for_workers(const std::vector<Worker*>& taking_part);
  void run_block_loop(Worker& worker, HostThreadContext& ctx);
  void run_block_fibers(Worker& worker, const HostThreadContext& proto);
  void run_cooperative(uint64_t total_blocks);
  /// Waits at the grid barrier for the block `proto` names; false (the failure recorded) if it cannot pass.
  bool wait_for_grid(const HostThreadContext& proto);
  /// Records why the block `proto` names could not pass the grid barrier (nothing if another failure did it).
  void wait_failed(const HostThreadContext& proto);
  void fail(std::string message);
  /// Records a failed bounds check (the first one wins) and stops the launch as fail() does.
  void fail_index(std::string message);
  /// Throws the launch's failure, if any: its index error first, else the first other error.
  void throw_if_failed();
};

void HostExecutor::Impl::fail_index(std::string message) {
  {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (index_error.empty()) index_error = std::move(message);
  }
  fail("");
}

void HostExecutor::Impl::throw_if_failed() {
  if (cancelled.load(std::memory_order_acquire)) {
    throw HostInterrupted(fmt::format("kernel '{}' was interrupted", kernel_name));
  }
  if (!failed.load(std::memory_order_acquire)) return;
  if (index_error.rfind(kRaisePrefix, 0) == 0) throw rt::KernelRaise(index_error.substr(kRaisePrefix.size()));
  if (!index_error.empty()) throw rt::KernelIndexError(index_error);
  throw HostExecutionError(error);
}

void HostExecutor::Impl::fail(std::string message) {
  std::lock_guard<std::mutex> lock(error_mutex);
  if (!failed.load(std::memory_order_relaxed)) error = std::move(message);
  failed.store(true, std::memory_order_release);
  if (grid != nullptr) grid->abort();  // blocks waiting at a grid sync stop too
}

void HostExecutor::Impl::finished() {
  std::lock_guard<std::mutex> lock(mutex);
  if (--pending == 0) done_cv.notify_all();
}

void HostExecutor::Impl::worker_loop(unsigned index) {
  uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex);
    // A launch of fewer blocks than threads wakes the pool but wants only some of it: the others skip it.
    start_cv.wait(lock, [&] { return stop || (generation != seen && index <= helpers); });
    if (stop) return;
    seen = generation;
    lock.unlock();
    run_blocks(*workers[index]);
    finished();
  }
}

void HostExecutor::Impl::wait_for_workers(const std::vector<Worker*>& taking_part) {
  using namespace std::chrono_literals;
  std::unique_lock<std::mutex> lock(mutex);
  auto interval = 20ms;
  bool stopping = false;
  while (!done_cv.wait_for(lock, interval, [&] { return pending == 0; })) {
    if (!stopping) {
      // Cancelled by the SIGINT hook (host_guard.h), or now by the interrupt check.
      bool stop = cancelled.load(std::memory_order_acquire);
      if (!stop) {
        if (bool (*check)() = g_interrupt_check.load(std::memory_order_acquire)) {
          lock.unlock();
          stop = check();
          lock.lock();
        }
      }
      if (!stop) continue;
      stopping = true;
      cancelled.store(true, std::memory_order_release);
      fail("interrupted");  // releases blocks waiting at a grid sync
      interval = 100ms;  // workers between blocks stop by themselves; those in a kernel get kicked
    }
    for (Worker* w : taking_part) {
      if (w->busy.load(std::memory_order_acquire)) host_guard_kick(w->thread);
    }
  }
}

void HostExecutor::Impl::run_blocks(Worker& worker) {
  try {
    while (!failed.load(std::memory_order_acquire) && !cancelled.load(std::memory_order_relaxed)) {
      uint64_t b = next_block.fetch_add(1, std::memory_order_relaxed);
      if (b >= total_blocks) break;
      run_block(worker, b);
    }
  } catch (const std::exception& e) {
    fail(fmt::format("kernel '{}' failed on the cpu backend: {}", job->kernel_name, e.what()));
  }
}

void HostExecutor::Impl::run_block(Worker& worker, uint64_t linear_block) {
  worker.thread = pthread_self();
  worker.busy.store(true, std::memory_order_release);
  const HostLaunch& l = *job;
  HostThreadContext ctx{};
  for (int d = 0; d < 3; ++d) {
    ctx.ntid[d] = l.block[d];
    ctx.nctaid[d] = l.grid[d];
  }
  ctx.ctaid[0] = static_cast<uint32_t>(linear_block % l.grid[0]);
  ctx.ctaid[1] = static_cast<uint32_t>(linear_block / l.grid[0] % l.grid[1]);
  ctx.ctaid[2] = static_cast<uint32_t>(linear_block / l.grid[0] / l.grid[1]);
  ctx.warpsize = kHostWarpSize;
  size_t dynamic_offset = align_up(l.static_shared_bytes, kHostSharedAlign);
  uint8_t* shared = worker.shared.reserve(std::max<size_t>(dynamic_offset + l.dynamic_shared_bytes, 1));
  ctx.shared = shared;
  ctx.dynamic_shared = shared + dynamic_offset;
  ctx.dynamic_shared_bytes = static_cast<uint32_t>(l.dynamic_shared_bytes);
  ctx.block = &worker.block;
  worker.block = HostBlockState{};
  worker.block.threads = l.block[0] * l.block[1] * l.block[2];
  worker.block.grid = grid;
  run_block_guarded(worker, ctx);
  worker.busy.store(false, std::memory_order_release);
  // Before departing: blocks waiting at a grid sync must see this failure, not a block that left early.
  if (!worker.block.index_error.empty()) fail_index(std::move(worker.block.index_error));
  if (grid != nullptr) grid->depart();
  if (worker.block.grid_failed) wait_failed(ctx);
}

void HostExecutor::Impl::run_block_guarded(Worker& worker, HostThreadContext& ctx) {
  HostGuard& guard = host_guard();
  guard.cancelled = &cancelled;
  if (sigsetjmp(guard.escape, 0) != 0) {
    if (worker.block.in_fiber) {  // the fault jumped from a fiber's stack to this thread's own
      fiber_jumped_back(worker.block.scheduler);
      worker.block.in_fiber = false;
    }
    report_escape(worker, ctx, guard);
    return;
  }
  guard.armed = 1;
  if ((job->uses_barrier || job->uses_grid_sync) && worker.block.threads > 1) {
    run_block_fibers(worker, ctx);
  } else {
    run_block_loop(worker, ctx);
  }
  guard.armed = 0;
}

void HostExecutor::Impl::report_escape(Worker& worker, const HostThreadContext& ctx, const HostGuard& guard) {
  const HostLaunch& l = *job;
  if (guard.signal == kHostKickSignal) return;  // the launch was cancelled: that is its error
  HostBlockState& block = worker.block;
  // Which thread: the running fiber, or the plain loop's thread (unknown when the generated block entry runs
  // the whole block's loop itself).
  std::string thread;
  const FiberStack* stack = nullptr;
  if (block.fibers != nullptr) {
    const HostThreadContext& c = block.fibers[block.current].ctx;
    thread = fmt::format("thread ({}, {}, {}) of ", c.tid[0], c.tid[1], c.tid[2]);
    stack = worker.stacks[block.current].get();
  } else if (l.block_entry == nullptr || l.uses_barrier) {
    thread = fmt::format("thread ({}, {}, {}) of ", ctx.tid[0], ctx.tid[1], ctx.tid[2]);
  }
  std::string where = fmt::format("{}block ({}, {}, {})", thread, ctx.ctaid[0], ctx.ctaid[1], ctx.ctaid[2]);
  if (guard.stack_overflow || (stack != nullptr && stack->in_guard(guard.address))) {
    fail(fmt::format(
        "kernel '{}' overflowed its stack in {} on the cpu backend: recursion too deep, or local arrays too "
        "large ({})",
        l.kernel_name, where,
        stack != nullptr ? fmt::format("a kernel with barriers runs each thread on a {} KiB stack",
                                       kHostFiberStackBytes / 1024)
                         : std::string("the worker thread's stack")));
    return;
  }
  fail(fmt::format("kernel '{}' crashed in {} on the cpu backend: {} at address {}", l.kernel_name, where,
                   host_signal_name(guard.signal), guard.address));
}

bool HostExecutor::Impl::wait_for_grid(const HostThreadContext& proto) {
  if (grid->arrive_and_wait()) return true;
  wait_failed(proto);
  return false;
}

void HostExecutor::Impl::wait_failed(const HostThreadContext& proto) {
  std::string why = grid->deadlock();
  if (!why.empty()) {
    fail(fmt::format("kernel '{}' deadlocked at block ({}, {}, {}): {}", job->kernel_name, proto.ctaid[0],
                     proto.ctaid[1], proto.ctaid[2], why));
  }
}

void HostExecutor::Impl::run_cooperative(uint64_t total_blocks) {
  // One OS thread (and Worker) per block, so that every block is resident at a grid sync as on a GPU with a
  // cooperative launch; the launching thread waits as for any launch.
  std::vector<std::unique_ptr<Worker>> extra;
  std::vector<Worker*> taking_part;
  std::vector<std::thread> threads;
  HostLaunchWatch watch(&cancelled);
  auto run_one = [this](Worker& worker, uint64_t b) {
    try {
      run_block(worker, b);
    } catch (const std::exception& e) {
      worker.busy.store(false, std::memory_order_release);
      fail(fmt::format("kernel '{}' failed on the cpu backend: {}", job->kernel_name, e.what()));
      if (grid != nullptr) grid->depart();
    }
    finished();
  };
  {
    std::lock_guard<std::mutex> lock(mutex);
    pending = static_cast<unsigned>(total_blocks);
  }
  for (uint64_t b = 0; b < total_blocks; ++b) {
    extra.push_back(std::make_unique<Worker>());
    Worker* w = extra.back().get();
    taking_part.push_back(w);
    try {
      threads.emplace_back([=] { run_one(*w, b); });
    } catch (const std::system_error& e) {
      // Blocks that never start: the grid cannot pass its syncs, so the started ones are released.
      fail(fmt::format("kernel '{}': cannot start a thread for block {} of a cooperative launch: {}",
                       job->kernel_name, b, e.what()));
      std::lock_guard<std::mutex> lock(mutex);
      pending -= static_cast<unsigned>(total_blocks - b);
      if (pending == 0) done_cv.notify_all();
      break;
    }
  }
  wait_for_workers(taking_part);
  for (std::thread& t : threads) t.join();
}

namespace {

/// Runs every thread of the block `ctx` names, one after the other on the calling OS thread.
void run_threads_in_order(const HostLaunch& l, HostThreadContext& ctx) {
  if (l.block_entry != nullptr && !l.uses_barrier) {
    l.block_entry(l.params, &ctx);
    return;
  }
  uint32_t linear = 0;
  for (uint32_t z = 0; z < l.block[2]; ++z) {
    for (uint32_t y = 0; y < l.block[1]; ++y) {
      for (uint32_t x = 0; x < l.block[0]; ++x, ++linear) {
        ctx.tid[0] = x;
        ctx.tid[1] = y;
        ctx.tid[2] = z;
        ctx.laneid = linear % kHostWarpSize;
        l.entry(l.params, &ctx);
      }
    }
  }
}

/// run_threads_in_order(), with the landing place of gpujit_host_index_error's longjmp. False if a failed
/// bounds check ended the block. Only generated code runs between the setjmp and the longjmp.
bool run_threads_escapable(const HostLaunch& l, HostThreadContext& ctx) {
  std::jmp_buf escape;
  ctx.block->escape = &escape;
  if (setjmp(escape) != 0) return false;
  run_threads_in_order(l, ctx);
  ctx.block->escape = nullptr;
  return true;
}

}  // namespace

void HostExecutor::Impl::run_block_loop(Worker& worker, HostThreadContext& ctx) {
  const HostLaunch& l = *job;
  if (!run_threads_escapable(l, ctx)) return;
  if (worker.block.misused) {
    fail(fmt::format(
        "kernel '{}' reached syncthreads() but was compiled without barriers; this is a gpujit bug",
        l.kernel_name));
  }
}

void HostExecutor::Impl::run_block_fibers(Worker& worker, const HostThreadContext& proto) {
  const HostLaunch& l = *job;
  HostBlockState& block = worker.block;
  uint32_t n = block.threads;
  while (worker.stacks.size() < n)
    worker.stacks.push_back(std::make_unique<FiberStack>(kHostFiberStackBytes));
  if (worker.fibers.size() < n) worker.fibers.resize(n);
  Fiber* fibers = worker.fibers.data();
  block.fibers = fibers;
  block.live = n;
  uint32_t linear = 0;
  for (uint32_t z = 0; z < l.block[2]; ++z) {
    for (uint32_t y = 0; y < l.block[1]; ++y) {
      for (uint32_t x = 0; x < l.block[0]; ++x, ++linear) {
        Fiber& f = fibers[linear];
        f.ctx = proto;
        f.ctx.tid[0] = x;
        f.ctx.tid[1] = y;
        f.ctx.tid[2] = z;
        f.ctx.laneid = linear % kHostWarpSize;
        f.index = linear;
        f.entry = l.entry;
        f.params = l.params;
        f.state = FiberState::Running;
        fiber_prepare(f.context, *worker.stacks[linear], fiber_main, &f);
      }
    }
  }
  for (;;) {
    // One pass: the fibers that can run, in index order, each passing on to the next (pass_on).
    for (uint32_t i = 0; i < n; ++i) {
      if (fibers[i].state == FiberState::Running) {
        block.current = i;
        block.in_fiber = true;
        fiber_switch(block.scheduler, fibers[i].context);
        block.in_fiber = false;
        break;
      }
    }
    // A failed bounds check ended a fiber's turn for good: the block stops, its other fibers abandoned. So
    // does a cancelled launch, at the end of a pass: a kernel looping around a barrier stops without a kick.
    if (!block.index_error.empty()) return;
    if (cancelled.load(std::memory_order_relaxed)) return;
    if (block.live == 0) return;
    // No fiber is running now. Warp barriers first: they may free lanes that go on to the block barrier.
    if (release_warp_barriers(fibers, n)) continue;
    uint32_t at_block_barrier = 0, at_grid_barrier = 0;
    for (uint32_t i = 0; i < n; ++i) {
      at_block_barrier += fibers[i].state == FiberState::AtBarrier ? 1 : 0;
      at_grid_barrier += fibers[i].state == FiberState::AtGridBarrier ? 1 : 0;
    }
    // A grid sync: the whole block (threads that returned aside, as bar.sync counts only live threads)
    // waits for the other blocks; if the grid cannot pass, the block is abandoned.
    if (at_grid_barrier != 0 && at_grid_barrier == block.live && block.grid != nullptr) {
      if (!wait_for_grid(proto)) return;
      for (uint32_t i = 0; i < n; ++i) {
        if (fibers[i].state == FiberState::AtGridBarrier) fibers[i].state = FiberState::Running;
      }
      continue;
    }
    if (at_block_barrier == n) {
      block.released_true = block.arrived_true;
      block.released_threads = static_cast<int32_t>(n);
      block.arrived_true = 0;
      for (uint32_t i = 0; i < n; ++i) fibers[i].state = FiberState::Running;
      continue;
    }
    // The fibers still waiting are abandoned; their stacks are reused by the next block.
    if (at_grid_barrier != 0) {
      fail(fmt::format(
          "kernel '{}' deadlocked in block ({}, {}, {}): {} threads wait at cg.this_grid().sync() and {} at "
          "another barrier; every thread of the grid must reach each grid sync",
          l.kernel_name, proto.ctaid[0], proto.ctaid[1], proto.ctaid[2], at_grid_barrier,
          block.live - at_grid_barrier));
    } else if (at_block_barrier == block.live) {
      fail(fmt::format(
          "kernel '{}' deadlocked in block ({}, {}, {}): {} of {} threads wait at syncthreads() while the "
          "other "
          "{} returned without reaching it; every thread of a block must reach each syncthreads() (do not "
          "return early before a barrier)",
          l.kernel_name, proto.ctaid[0], proto.ctaid[1], proto.ctaid[2], block.live, n, n - block.live));
    } else {
      fail(fmt::format(
          "kernel '{}' deadlocked in block ({}, {}, {}): {} threads wait at syncthreads() and {} at "
          "syncwarp() or a warp operation for lanes that never arrive; every lane in a syncwarp() or "
          "shfl/vote/match_*_sync mask must reach the same call",
          l.kernel_name, proto.ctaid[0], proto.ctaid[1], proto.ctaid[2], at_block_barrier,
          block.live - at_block_barrier));
    }
    return;
  }
}

HostExecutor::HostExecutor(unsigned num_threads) : impl_(std::make_unique<Impl>()) {
  impl_->num_threads = num_threads == 0 ? threads_from_environment() : num_threads;
  for (unsigned i = 0; i < impl_->num_threads; ++i) impl_->workers.push_back(std::make_unique<Worker>());
  for (unsigned i = 1; i < impl_->num_threads; ++i) {
    impl_->threads.emplace_back([this, i] { impl_->worker_loop(i); });
  }
}

HostExecutor::~HostExecutor() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
  }
  impl_->start_cv.notify_all();
  for (std::thread& t : impl_->threads) t.join();
}

void set_host_interrupt_check(bool (*check)()) { g_interrupt_check.store(check, std::memory_order_release); }

HostExecutor& HostExecutor::instance() {
  // Never destroyed: worker threads must not be joined during static destruction, when a launch from
  // another static destructor could still arrive. A child process made by fork() (Python's multiprocessing)
  // has none of its parent's worker threads: it gets an executor of its own and abandons the parent's.
  static std::mutex mutex;
  static HostExecutor* executor = nullptr;
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mutex);
  pid_t pid = getpid();
  if (executor == nullptr || owner != pid) {
    executor = new HostExecutor();
    owner = pid;
  }
  return *executor;
}

unsigned HostExecutor::num_threads() const { return impl_->num_threads; }

void HostExecutor::launch(const HostLaunch& launch) {
  if (launch.entry == nullptr)
    throw HostExecutionError("host launch of '" + launch.kernel_name + "' has no entry");
  uint64_t threads_per_block = 1, total_blocks = 1;
  for (int d = 0; d < 3; ++d) {
    if (launch.grid[d] == 0 || launch.block[d] == 0) {
      throw HostExecutionError(fmt::format(
          "kernel '{}' launched with an empty grid or block: grid ({}, {}, {}), block ({}, {}, {})",
          launch.kernel_name, launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0],
          launch.block[1], launch.block[2]));
    }
    threads_per_block *= launch.block[d];
    total_blocks *= launch.grid[d];
  }
  if (threads_per_block > kHostMaxThreadsPerBlock) {
    throw HostExecutionError(fmt::format("kernel '{}' launched with {} threads per block; the limit is {}",
                                         launch.kernel_name, threads_per_block, kHostMaxThreadsPerBlock));
  }
  if (launch.uses_barrier && threads_per_block > 1 && !host_fibers_supported()) {
    throw HostExecutionError(fmt::format(
        "kernel '{}' uses syncthreads(), which the cpu backend supports only on x86-64 and aarch64 linux",
        launch.kernel_name));
  }

  if (launch.uses_grid_sync &&
      (total_blocks > kHostMaxCooperativeBlocks || total_blocks * threads_per_block > kHostMaxCooperativeThreads)) {
    throw HostExecutionError(fmt::format(
        "kernel '{}' uses cg.this_grid().sync(), for which the cpu backend runs every block at once: at most {} "
        "blocks and {} threads in all, but it was launched with {} blocks of {} threads",
        launch.kernel_name, kHostMaxCooperativeBlocks, kHostMaxCooperativeThreads, total_blocks,
        threads_per_block));
  }

  std::lock_guard<std::mutex> launch_lock(impl_->launch_mutex);
  Impl& s = *impl_;
  s.job = &launch;
  s.kernel_name = launch.kernel_name;
  s.total_blocks = total_blocks;
  s.next_block.store(0, std::memory_order_relaxed);
  s.failed.store(false, std::memory_order_relaxed);
  s.error.clear();
  s.index_error.clear();
  s.cancelled.store(false, std::memory_order_relaxed);
  if (launch.uses_grid_sync) {
    HostGridBarrier grid(total_blocks);
    s.grid = &grid;
    s.run_cooperative(total_blocks);
    s.grid = nullptr;
    s.job = nullptr;
    s.throw_if_failed();
    return;
  }
  // The launching thread runs blocks too (a small grid costs no thread hand-off), then waits for the pool's
  // threads, checking for Ctrl-C; a Ctrl-C while it runs a kernel reaches it through the SIGINT hook.
  HostLaunchWatch watch(&s.cancelled);
  unsigned helpers = static_cast<unsigned>(std::min<uint64_t>(s.num_threads, total_blocks) - 1);
  std::vector<Worker*> taking_part;
  for (unsigned i = 1; i <= helpers; ++i) taking_part.push_back(s.workers[i].get());
  if (helpers > 0) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.helpers = helpers;
      s.pending = helpers;
      ++s.generation;
    }
    s.start_cv.notify_all();
  }
  s.run_blocks(*s.workers[0]);
  if (helpers > 0) s.wait_for_workers(taking_part);
  s.job = nullptr;
  s.throw_if_failed();
}

/// Ends the calling thread's block after a failed check or a raise recorded in block->index_error.
[[noreturn]] void end_block(HostBlockState* block, HostThreadContext* ctx) {
  if (block->fibers != nullptr) {
    // Back to the block's scheduler for good; it sees the error and abandons the block's fibers.
    auto* fiber = reinterpret_cast<Fiber*>(ctx);
    fiber->state = FiberState::Done;
    fiber_exit(fiber->context, block->scheduler);
  }
  if (block->escape == nullptr) std::abort();  // not run by the executor: nowhere to go
  std::longjmp(*block->escape, 1);
}

}  // namespace gpujit

extern "C" {

void gpujit_host_syncthreads(gpujit::HostThreadContext* ctx) { gpujit::barrier_arrive(ctx, 0); }

int32_t gpujit_host_syncthreads_count(gpujit::HostThreadContext* ctx, int32_t predicate) {
  return gpujit::barrier_arrive(ctx, predicate);
}

int32_t gpujit_host_syncthreads_and(gpujit::HostThreadContext* ctx, int32_t predicate) {
  int32_t count = gpujit::barrier_arrive(ctx, predicate);
  return count == ctx->block->released_threads ? 1 : 0;
}

int32_t gpujit_host_syncthreads_or(gpujit::HostThreadContext* ctx, int32_t predicate) {
  return gpujit::barrier_arrive(ctx, predicate) != 0 ? 1 : 0;
}

void gpujit_host_syncwarp(gpujit::HostThreadContext* ctx, uint32_t mask) {
  gpujit::HostBlockState* block = ctx->block;
  if (block->fibers == nullptr) {
    if (block->threads > 1) block->misused = true;
    return;
  }
  auto* fiber = reinterpret_cast<gpujit::Fiber*>(ctx);
  fiber->state = gpujit::FiberState::AtWarpBarrier;
  fiber->warp = gpujit::HostWarpLane{};
  fiber->warp.op = gpujit::kHostSyncWarp;
  fiber->warp.mask = mask;
  gpujit::pass_on(fiber);
}

uint64_t gpujit_host_warp(gpujit::HostThreadContext* ctx, uint32_t op, uint32_t mask, uint64_t value,
                          uint32_t arg) {
  using gpujit::HostWarpOp;
  gpujit::HostWarpLane deposit;
  deposit.op = op;
  // activemask() names no lanes: it takes whichever lanes of the warp call it in the same pass.
  deposit.mask = op == static_cast<uint32_t>(HostWarpOp::ActiveMask) ? ~0u : mask;
  deposit.value = value;
  deposit.arg = arg;
  gpujit::HostBlockState* block = ctx->block;
  if (block->fibers == nullptr) {
    // A block of one thread runs as a plain loop: the lane operates with itself alone.
    if (block->threads > 1) block->misused = true;
    gpujit::HostWarpLane lanes[gpujit::kHostWarpSize];
    lanes[ctx->laneid] = deposit;
    gpujit::host_warp_results(lanes, 1u << ctx->laneid);
    return lanes[ctx->laneid].result;
  }
  auto* fiber = reinterpret_cast<gpujit::Fiber*>(ctx);
  fiber->state = gpujit::FiberState::AtWarpBarrier;
  fiber->warp = deposit;
  gpujit::pass_on(fiber);
  return fiber->warp.result;
}

void gpujit_host_index_error(gpujit::HostThreadContext* ctx, const char* where, int64_t index, int64_t extent,
                             uint32_t axis, uint32_t tid_x, uint32_t tid_y, uint32_t tid_z) {
  gpujit::HostBlockState* block = ctx->block;
  if (block->index_error.empty() && axis == gpujit::kTupleIndexAxis) {
    block->index_error = fmt::format(
        "tuple index out of range: index {} of a tuple of {} in {}, thread ({}, {}, {}) of block ({}, {}, {})",
        index, extent, where, tid_x, tid_y, tid_z, ctx->ctaid[0], ctx->ctaid[1], ctx->ctaid[2]);
  } else if (block->index_error.empty()) {
    block->index_error = fmt::format(
        "index {} is out of bounds for axis {} with size {} in {}, thread ({}, {}, {}) of block ({}, {}, {})",
        index, axis, extent, where, tid_x, tid_y, tid_z, ctx->ctaid[0], ctx->ctaid[1], ctx->ctaid[2]);
  }
  gpujit::end_block(block, ctx);
}

void gpujit_host_raise(gpujit::HostThreadContext* ctx, const char* description, uint32_t tid_x,
                       uint32_t tid_y, uint32_t tid_z) {
  gpujit::HostBlockState* block = ctx->block;
  if (block->index_error.empty()) {
    block->index_error =
        fmt::format("{}{}\ntid=[{}, {}, {}] ctaid=[{}, {}, {}]", gpujit::kRaisePrefix, description, tid_x,
                    tid_y, tid_z, ctx->ctaid[0], ctx->ctaid[1], ctx->ctaid[2]);
  }
  gpujit::end_block(block, ctx);
}

void gpujit_host_grid_sync(gpujit::HostThreadContext* ctx) {
  gpujit::HostBlockState* block = ctx->block;
  if (block->grid == nullptr) {
    // Not a cooperative launch (a compile bug): nothing holds the other blocks; treat it as a block barrier.
    gpujit_host_syncthreads(ctx);
    return;
  }
  if (block->fibers == nullptr) {
    // A block of one thread runs as a plain loop on its own OS thread: wait right here. If the grid cannot
    // pass, the failure is recorded and the thread runs on to the end; its results are discarded.
    if (block->threads > 1) block->misused = true;
    if (!block->grid->arrive_and_wait()) block->grid_failed = true;
    return;
  }
  auto* fiber = reinterpret_cast<gpujit::Fiber*>(ctx);
  fiber->state = gpujit::FiberState::AtGridBarrier;
  gpujit::pass_on(fiber);
}

}  // extern "C"
