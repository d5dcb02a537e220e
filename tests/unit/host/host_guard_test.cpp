// Kernels that fault, overflow their stack or never end, on the host executor (runtime/host_guard.h): each
// fails its launch with an error naming the kernel, the block and the thread, and the process goes on.
// Hand-written C++ kernels with the generated code's calling convention, as in host_executor_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "codegen/host_abi.h"
#include "runtime/host_executor.h"

namespace gpujit {
namespace {

HostLaunch make_launch(HostEntryFn entry, std::vector<void*>& params, uint32_t blocks, uint32_t threads) {
  HostLaunch l;
  l.entry = entry;
  l.kernel_name = "guarded";
  l.grid[0] = blocks;
  l.block[0] = threads;
  l.params = params.data();
  return l;
}

std::string launch_error(HostExecutor& exec, const HostLaunch& l) {
  try {
    exec.launch(l);
  } catch (const HostExecutionError& e) {
    return e.what();
  }
  return "(no error)";
}

/// An address nothing is mapped at, which the compiler cannot see through.
volatile int* wild_pointer() {
  volatile uintptr_t address = 16;
  return reinterpret_cast<volatile int*>(address);
}

// Thread (3, 0, 0) of block (1, 0, 0) writes through a wild pointer; every other thread writes its slot.
void wild_write_kernel(void** params, HostThreadContext* c) {
  auto* out = *static_cast<int**>(params[0]);
  if (c->ctaid[0] == 1 && c->tid[0] == 3) {
    *wild_pointer() = 1;
  }
  out[c->ctaid[0] * c->ntid[0] + c->tid[0]] = 1;
}

TEST(HostGuard, AWildWriteFailsTheLaunchNamingTheThread) {
  std::vector<int> out(4 * 8, 0);
  int* ptr = out.data();
  std::vector<void*> params{&ptr};
  HostExecutor exec(2);
  HostLaunch l = make_launch(wild_write_kernel, params, 4, 8);
  std::string e = launch_error(exec, l);
  EXPECT_NE(e.find("kernel 'guarded' crashed in thread (3, 0, 0) of block (1, 0, 0)"), std::string::npos) << e;
  EXPECT_NE(e.find("SIGSEGV"), std::string::npos) << e;
  // The same worker threads fault again (the signal is not left blocked) and then run a good launch.
  e = launch_error(exec, l);
  EXPECT_NE(e.find("SIGSEGV"), std::string::npos) << e;
  l.uses_barrier = true;  // as fibers, too
  e = launch_error(exec, l);
  EXPECT_NE(e.find("crashed in thread (3, 0, 0) of block (1, 0, 0)"), std::string::npos) << e;
}

void fill_kernel(void** params, HostThreadContext* c) {
  auto* out = *static_cast<int**>(params[0]);
  out[c->ctaid[0] * c->ntid[0] + c->tid[0]] = 7;
}

TEST(HostGuard, TheExecutorRunsOnAfterAFault) {
  std::vector<int> out(16 * 32, 0);
  int* ptr = out.data();
  std::vector<void*> params{&ptr};
  HostExecutor exec(2);
  EXPECT_NE(launch_error(exec, make_launch(wild_write_kernel, params, 4, 8)), "(no error)");
  exec.launch(make_launch(fill_kernel, params, 16, 32));
  for (int v : out) ASSERT_EQ(v, 7);
}

// Recursion that never ends; the frames are big enough to matter and the result is used so that no
// compiler turns it into a loop.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
__attribute__((noinline)) int64_t recurse(int64_t depth) {
  volatile char frame[512];
  frame[0] = char(depth);
  return recurse(depth + 1) + frame[0];
}
#pragma GCC diagnostic pop

void deep_recursion_kernel(void** params, HostThreadContext* c) {
  auto* out = *static_cast<int64_t**>(params[0]);
  if (c->tid[0] == 2) out[0] = recurse(0);
  gpujit_host_syncthreads(c);
}

TEST(HostGuard, RecursionTooDeepForAFiberStackIsAnError) {
  int64_t sink = 0;
  int64_t* ptr = &sink;
  std::vector<void*> params{&ptr};
  HostLaunch l = make_launch(deep_recursion_kernel, params, 2, 4);
  l.uses_barrier = true;
  HostExecutor exec(1);
  std::string e = launch_error(exec, l);
  EXPECT_NE(e.find("kernel 'guarded' overflowed its stack in thread (2, 0, 0) of block (0, 0, 0)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("256 KiB stack"), std::string::npos) << e;
}

void deep_recursion_loop_kernel(void** params, HostThreadContext* c) {
  auto* out = *static_cast<int64_t**>(params[0]);
  if (c->tid[0] == 1) out[0] = recurse(0);
}

TEST(HostGuard, RecursionTooDeepForAWorkerThreadIsAnError) {
  int64_t sink = 0;
  int64_t* ptr = &sink;
  std::vector<void*> params{&ptr};
  HostExecutor exec(1);
  std::string e = launch_error(exec, make_launch(deep_recursion_loop_kernel, params, 1, 2));
  EXPECT_NE(e.find("kernel 'guarded' overflowed its stack in thread (1, 0, 0) of block (0, 0, 0)"),
            std::string::npos)
      << e;
}

// Loops around a barrier forever.
void endless_barrier_kernel(void**, HostThreadContext* c) {
  for (;;) gpujit_host_syncthreads(c);
}

std::atomic<int> g_checks{0};
bool interrupt_after_three_checks() { return ++g_checks >= 3; }

std::atomic<int> g_sigints{0};
void count_sigint(int) { ++g_sigints; }

TEST(HostGuard, SigintStopsAKernelLoopingAroundABarrierOnTheLaunchingThread) {
  // One block: the launching thread runs it and cannot look at an interrupt check; the SIGINT hook, wrapped
  // around the handler installed before, cancels the launch, and that handler still runs.
  auto previous = std::signal(SIGINT, count_sigint);
  // A launch looks for a new SIGINT handler to wrap at most every 100 ms; earlier tests launched just now.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  std::vector<void*> params;
  HostLaunch l = make_launch(endless_barrier_kernel, params, 1, 32);
  l.uses_barrier = true;
  HostExecutor exec(2);
  g_sigints = 0;
  std::thread sender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(getpid(), SIGINT);
  });
  try {
    exec.launch(l);
    ADD_FAILURE() << "the launch was not interrupted";
  } catch (const HostInterrupted& e) {
    EXPECT_EQ(std::string(e.what()), "kernel 'guarded' was interrupted");
  }
  sender.join();
  EXPECT_EQ(g_sigints.load(), 1);
  std::signal(SIGINT, previous);
  // The executor is usable again.
  std::vector<int> out(4 * 4, 0);
  int* ptr = out.data();
  std::vector<void*> fill_params{&ptr};
  exec.launch(make_launch(fill_kernel, fill_params, 4, 4));
  for (int v : out) ASSERT_EQ(v, 7);
}

// Cooperative launches (every block on a thread of its own) are interrupted the same way.
TEST(HostGuard, AnInterruptCheckStopsACooperativeLaunch) {
  std::vector<void*> params;
  HostLaunch l = make_launch(endless_barrier_kernel, params, 4, 8);
  l.uses_barrier = true;
  l.uses_grid_sync = true;
  HostExecutor exec(2);
  g_checks = 0;
  set_host_interrupt_check(&interrupt_after_three_checks);
  EXPECT_THROW(exec.launch(l), HostInterrupted);
  set_host_interrupt_check(nullptr);
}

void segv_exit_42(int) { _exit(42); }

/// A launch (which installs the guard's handlers over `before`), then a fault on the calling thread, which
/// runs no kernel: the fault must reach `before` as if the guard were not there.
[[noreturn]] void fault_outside_a_kernel(void (*before)(int)) {
  std::signal(SIGSEGV, before);
  std::vector<int> out(4, 0);
  int* ptr = out.data();
  std::vector<void*> params{&ptr};
  HostExecutor exec(1);
  exec.launch(make_launch(fill_kernel, params, 1, 4));
  *wild_pointer() = 1;
  _exit(1);
}

// Death tests in the "threadsafe" style run in a freshly started copy of this program, whose first launch is
// the one that installs the guard.
TEST(HostGuardDeathTest, AFaultOutsideAKernelGoesToTheHandlerInstalledBefore) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault_outside_a_kernel(segv_exit_42), ::testing::ExitedWithCode(42), "");
}

TEST(HostGuardDeathTest, WithoutAHandlerBeforeAFaultOutsideAKernelStillEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault_outside_a_kernel(SIG_DFL), ::testing::KilledBySignal(SIGSEGV), "");
}

}  // namespace
}  // namespace gpujit
