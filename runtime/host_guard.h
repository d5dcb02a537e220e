// Faults and interruptions of kernels running on the CPU backend's worker threads.
//
// Every block runs (on a pool thread or the launching one) under the thread's HostGuard: a sigsetjmp point
// the guard's signal handlers jump back to. The handlers are process-wide, installed once, and run on an
// alternate signal stack each such thread has (its own, or one the guard gives it), so a stack overflow can
// still be handled:
// - A fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP) on a thread whose guard is armed records the signal
//   and address and jumps to the guard; the executor fails the launch with an error naming the kernel, the
//   block and, where it knows it, the thread. A fault on any other thread goes to the handler that was there
//   before (Python's faulthandler, or the default action), as if the guard were not installed.
// - The kick (kHostKickSignal, SIGURG, whose default action is to ignore it, as Go's preemption uses it) is
//   sent to the threads running a cancelled launch (Ctrl-C: HostLaunchWatch). A thread jumps to its guard
//   only if the kick interrupted generated code: code in no loaded object, which is where JIT-compiled kernels
//   live. A kick that lands in a library (libc's printf, the runtime's own helpers, which may hold a lock)
//   arms the thread's timer to kick it again 20 ms later.
// What a jump leaves behind: the block's fibers are abandoned (their stacks are reused) and nothing is
// unwound; generated code keeps nothing that needs unwinding. A kernel that wrote through a wild pointer may
// have corrupted memory before it faulted; the process goes on, but only the error is trustworthy.
#pragma once

#include <pthread.h>

#include <atomic>
#include <csetjmp>
#include <csignal>

namespace gpujit {

constexpr int kHostKickSignal = SIGURG;

struct HostGuard {
  sigjmp_buf escape;
  volatile sig_atomic_t armed = 0;                 // escape is valid: a fault or kick jumps there
  const std::atomic<bool>* cancelled = nullptr;    // a kick escapes only once this is set
  // Set by the handler before it jumps:
  volatile sig_atomic_t signal = 0;
  void* volatile address = nullptr;  // the faulting address (si_addr)
  bool stack_overflow = false;       // the address is in the guard region below this thread's own stack
};

/// The calling thread's guard. The first call on a thread installs the process-wide handlers (once) and gives
/// the thread its alternate signal stack.
HostGuard& host_guard();

/// Sends the kick to `thread`.
void host_guard_kick(pthread_t thread);

/// While it lives, a launch runs: Ctrl-C (SIGINT) cancels it. Python's SIGINT handler stays in charge (it still
/// raises KeyboardInterrupt later); the guard's hook, wrapped around it, also sets *cancelled and kicks the
/// launching thread, which may itself be running a kernel and could not see the interrupt otherwise. The hook
/// is (re)installed here if someone replaced it; where SIGINT is ignored or has its default action it is left
/// alone.
class HostLaunchWatch {
 public:
  explicit HostLaunchWatch(std::atomic<bool>* cancelled);
  ~HostLaunchWatch();
  HostLaunchWatch(const HostLaunchWatch&) = delete;
  HostLaunchWatch& operator=(const HostLaunchWatch&) = delete;
};

/// "SIGSEGV (invalid memory access at 0x...)" and the like, for an error message.
const char* host_signal_name(int signal);

}  // namespace gpujit
