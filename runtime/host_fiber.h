// Fibers for the host executor: user-space execution contexts with a hand-written stack switch.
//
// The threads of a block that uses syncthreads() run as fibers on one OS thread; a barrier is a switch back to
// the block's scheduler. A switch saves only the callee-saved registers the platform ABI names (x86-64 SysV:
// rbx, rbp, r12-r15; AArch64: x19-x30, d8-d15) on the suspended stack and swaps the stack pointer: a few
// nanoseconds, no system call (glibc's swapcontext saves the signal mask with one per switch). The floating-
// point control registers (MXCSR, x87 control word, FPCR) are not switched: all fibers of a block run the same
// generated code, which never changes them.
//
// Invariants: a fiber's entry function never returns; it ends by switching away for the last time. Nothing
// with a destructor may be live on a fiber's stack when it is abandoned (the executor abandons the fibers of a
// deadlocked block), which holds for generated kernel code.
#pragma once

#include <cstddef>

namespace gpujit {

/// Whether this build has a stack switch for the host architecture (x86-64 and AArch64 do).
bool host_fibers_supported();

struct FiberContext;

/// A fiber's stack: anonymous memory reserved up front and committed by the OS page by page as it is touched,
/// with an inaccessible guard page below it so an overflow faults instead of corrupting a neighbour.
class FiberStack {
 public:
  explicit FiberStack(size_t size);
  ~FiberStack();
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;

  /// The highest usable address, 16-byte aligned (stacks grow down).
  void* top() const { return top_; }
  size_t size() const { return size_; }
  /// The lowest usable address, just above the guard page, and the end of the mapping.
  void* bottom() const;
  void* end() const { return static_cast<char*>(base_) + mapped_; }
  /// Whether `address` is in the guard page: a fault there is this stack's overflow (host_guard.h).
  bool in_guard(const void* address) const;

 private:
  friend void fiber_prepare(FiberContext& fiber, FiberStack& stack, void (*entry)(void*), void* arg);

  void* base_ = nullptr;  // start of the mapping, the guard page
  size_t mapped_ = 0;
  size_t size_ = 0;
  void* top_ = nullptr;
  void* tsan_fiber_ = nullptr;  // TSan's fiber for the context last prepared on this stack (TSan builds)
};

/// A context a fiber_switch() can suspend and resume: a fiber, or the OS thread's own context (the scheduler
/// that runs fibers), which needs no preparation.
struct FiberContext {
  void* sp = nullptr;              // the stack pointer it was suspended at (or prepared with)
  void (*entry)(void*) = nullptr;  // a prepared fiber's entry function and its argument
  void* arg = nullptr;
  // What sanitized builds tell ASan and TSan about the context (see host_fiber.cpp); unused otherwise.
  const void* stack_bottom = nullptr;  // the usable stack: a fiber's from its FiberStack, an OS thread's
  size_t stack_size = 0;               // as ASan reported it the last time the context was switched away from
  void* fake_stack = nullptr;          // ASan's fake stack (use-after-return frames) while suspended
  void* tsan_fiber = nullptr;          // TSan's handle for the context
};

/// Makes `fiber` a fresh context on `stack`: the first fiber_switch() to it calls entry(arg) there. entry must
/// never return; it ends with fiber_exit(). The stack may be reused for a new fiber once its last one has
/// exited or been abandoned.
void fiber_prepare(FiberContext& fiber, FiberStack& stack, void (*entry)(void*), void* arg);

/// Suspends the running context into `from` and resumes `to`. Returns when some context switches to `from`.
void fiber_switch(FiberContext& from, FiberContext& to);

/// The last switch away from the running fiber `from`: it is never resumed (under ASan its fake stack is
/// freed).
[[noreturn]] void fiber_exit(FiberContext& from, FiberContext& to);

/// After a jump (a fault's siglongjmp) from a fiber back onto `to`, the OS thread's own context, which
/// fiber_switch() did not make: tells the sanitizers which stack runs now and drops the abandoned fiber's
/// fake stack. Sanitized builds only; nothing otherwise.
void fiber_jumped_back(FiberContext& to);

}  // namespace gpujit
