// The guard's signal handlers, alternate stacks and kicks (see host_guard.h).
#include "runtime/host_guard.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <mutex>

namespace gpujit {

namespace {

constexpr int kGuardedSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, kHostKickSignal};
constexpr size_t kAltStackBytes = 64 * 1024;
/// A fault this close below the lowest address of a thread's own stack is that stack's overflow.
constexpr uintptr_t kOverflowSlack = 64 * 1024;

struct sigaction g_previous[NSIG];

// The SIGINT hook: the handler it wraps, and the launch it cancels (HostLaunchWatch).
struct sigaction g_previous_sigint;
std::mutex g_sigint_mutex;  // installing the hook
std::atomic<std::atomic<bool>*> g_launch_cancelled{nullptr};
std::atomic<pthread_t> g_launcher{};
constexpr long kRetryNanoseconds = 20'000'000;

/// Per-thread: the guard, its alternate signal stack and the thread's stack bounds. Reached from the
/// handler through an initial-exec pointer, which needs no allocation in the handler.
struct ThreadGuard {
  HostGuard guard;
  void* alt_stack = nullptr;  // ours, if the thread had none (Python's faulthandler gives the main thread one)
  uintptr_t stack_low = 0;
  timer_t retry{};  // kicks this thread again when a kick landed outside generated code
  bool has_retry = false;

  ThreadGuard() {
    sigevent ev{};
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = kHostKickSignal;
    ev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
    has_retry = timer_create(CLOCK_MONOTONIC, &ev, &retry) == 0;
    stack_t current{};
    bool has_alt_stack = sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE);
    alt_stack = has_alt_stack
                    ? MAP_FAILED
                    : mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (alt_stack != MAP_FAILED) {
      stack_t ss{};
      ss.ss_sp = alt_stack;
      ss.ss_size = kAltStackBytes;
      if (sigaltstack(&ss, nullptr) != 0) {
        munmap(alt_stack, kAltStackBytes);
        alt_stack = nullptr;
      }
    } else {
      alt_stack = nullptr;
    }
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      size_t size = 0;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0) stack_low = reinterpret_cast<uintptr_t>(addr);
      pthread_attr_destroy(&attr);
    }
  }
  ~ThreadGuard();
};

__attribute__((tls_model("initial-exec"))) thread_local ThreadGuard* t_guard = nullptr;

ThreadGuard::~ThreadGuard() {
  t_guard = nullptr;
  if (has_retry) timer_delete(retry);
  if (alt_stack != nullptr) {
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    munmap(alt_stack, kAltStackBytes);
  }
}

void* interrupted_pc(void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
#if defined(__x86_64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return nullptr;
#endif
}

/// What the signal would have done without the guard.
void chain(int sig, siginfo_t* info, void* context) {
  const struct sigaction& p = g_previous[sig];
  if (p.sa_flags & SA_SIGINFO) {
    if (p.sa_sigaction != nullptr) p.sa_sigaction(sig, info, context);
    return;
  }
  if (p.sa_handler == SIG_IGN) return;
  if (p.sa_handler == SIG_DFL) {
    if (sig == kHostKickSignal) return;  // SIGURG's default is to ignore it
    // Put the default back: a fault happens again when the instruction is retried, and the process ends as
    // it would have; a signal someone sent is sent again.
    sigaction(sig, &p, nullptr);
    if (info->si_code <= 0) raise(sig);
    return;
  }
  p.sa_handler(sig);
}

/// A kick (or SIGINT) on an armed thread of a cancelled launch: true if it may jump out now, else the
/// thread's timer kicks it again shortly.
bool may_escape(ThreadGuard* tg, void* context) {
  HostGuard& g = tg->guard;
  if (g.cancelled == nullptr || !g.cancelled->load(std::memory_order_acquire)) return false;
  dl_find_object found;
  if (_dl_find_object(interrupted_pc(context), &found) != 0) return true;  // generated code
  if (tg->has_retry) {
    itimerspec again{};
    again.it_value.tv_nsec = kRetryNanoseconds;
    timer_settime(tg->retry, 0, &again, nullptr);
  }
  return false;
}

[[noreturn]] void escape(ThreadGuard* tg, int sig, siginfo_t* info);

void on_signal(int sig, siginfo_t* info, void* context) {
  ThreadGuard* tg = t_guard;
  if (tg == nullptr || !tg->guard.armed) {
    chain(sig, info, context);
    return;
  }
  if (sig == kHostKickSignal && !may_escape(tg, context)) return;
  escape(tg, sig, info);
}

void on_sigint(int sig, siginfo_t* info, void* context) {
  // Python's handler first: it records the interrupt and raises KeyboardInterrupt once the launch returns.
  const struct sigaction& p = g_previous_sigint;
  if (p.sa_flags & SA_SIGINFO) {
    if (p.sa_sigaction != nullptr) p.sa_sigaction(sig, info, context);
  } else if (p.sa_handler != SIG_IGN && p.sa_handler != SIG_DFL) {
    p.sa_handler(sig);
  }
  std::atomic<bool>* cancelled = g_launch_cancelled.load(std::memory_order_acquire);
  if (cancelled == nullptr) return;
  cancelled->store(true, std::memory_order_release);
  pthread_t launcher = g_launcher.load(std::memory_order_acquire);
  ThreadGuard* tg = t_guard;
  if (!pthread_equal(launcher, pthread_self())) {
    pthread_kill(launcher, kHostKickSignal);
  } else if (tg != nullptr && tg->guard.armed && may_escape(tg, context)) {
    escape(tg, kHostKickSignal, info);
  }
}

void escape(ThreadGuard* tg, int sig, siginfo_t* info) {
  HostGuard& g = tg->guard;
  g.signal = sig;
  g.address = sig == kHostKickSignal ? nullptr : info->si_addr;
  auto a = reinterpret_cast<uintptr_t>(info->si_addr);
  g.stack_overflow = sig == SIGSEGV && tg->stack_low != 0 && a < tg->stack_low + 4096 &&
                     a + kOverflowSlack >= tg->stack_low;
  g.armed = 0;
  // The handler runs with `sig` blocked and the escape does not restore the mask (sigsetjmp(.., 0), which
  // costs no system call per block): unblock it, or the next fault on this thread would kill the process.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  siglongjmp(g.escape, 1);
}

/// Wraps the current SIGINT handler in on_sigint, unless it is already or SIGINT is ignored or default. Looks
/// at most every 100 ms (a launch pays a clock read, not a system call): a handler someone installs over the
/// hook is wrapped at the next launch after that.
void hook_sigint() {
  static std::atomic<int64_t> last_look{INT64_MIN / 2};
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  if (now - last_look.load(std::memory_order_relaxed) < 100) return;
  last_look.store(now, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_sigint_mutex);
  struct sigaction current{};
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sigint) return;
  if (!(current.sa_flags & SA_SIGINFO) && (current.sa_handler == SIG_IGN || current.sa_handler == SIG_DFL)) return;
  struct sigaction sa{};
  sa.sa_sigaction = on_sigint;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  // Block SIGINT while g_previous_sigint changes, so that no SIGINT on this thread sees half of it.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  g_previous_sigint = current;
  sigaction(SIGINT, &sa, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void install_handlers() {
  struct sigaction sa{};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : kGuardedSignals) sigaction(sig, &sa, &g_previous[sig]);
}

}  // namespace

HostGuard& host_guard() {
  if (t_guard == nullptr) {
    static std::once_flag installed;
    std::call_once(installed, install_handlers);
    static thread_local ThreadGuard mine;
    t_guard = &mine;
  }
  return t_guard->guard;
}

void host_guard_kick(pthread_t thread) { pthread_kill(thread, kHostKickSignal); }

HostLaunchWatch::HostLaunchWatch(std::atomic<bool>* cancelled) {
  host_guard();
  hook_sigint();
  g_launcher.store(pthread_self(), std::memory_order_release);
  g_launch_cancelled.store(cancelled, std::memory_order_release);
}

HostLaunchWatch::~HostLaunchWatch() { g_launch_cancelled.store(nullptr, std::memory_order_release); }

const char* host_signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (misaligned or unmapped memory access)";
    case SIGFPE: return "SIGFPE (arithmetic fault, such as an integer division by zero)";
    case SIGILL: return "SIGILL (illegal instruction, such as a trap)";
    case SIGTRAP: return "SIGTRAP (breakpoint trap)";
    default: return "a signal";
  }
}

}  // namespace gpujit
