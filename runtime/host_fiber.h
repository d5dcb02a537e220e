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
  /// Whether `address` is in the guard page: a fault there is this stack's overflow (host_guard.h).
  bool in_guard(const void* address) const;

 private:
  void* base_ = nullptr;  // start of the mapping, the guard page
  size_t mapped_ = 0;
  size_t size_ = 0;
  void* top_ = nullptr;
};

/// Prepares `stack` so that the first fiber_switch() to the returned stack pointer calls fn(arg) on it.
/// fn must never return.
void* fiber_prepare(const FiberStack& stack, void (*fn)(void*), void* arg);

}  // namespace gpujit

/// The stack switch, in assembly (host_fiber.cpp): saves the running context, stores its stack pointer in
/// *save_sp, and resumes the context whose stack pointer is `resume_sp`. Returns when some other context
/// switches back to the stack pointer stored in *save_sp.
extern "C" void gpujit_fiber_switch(void** save_sp, void* resume_sp);

namespace gpujit {
inline void fiber_switch(void** save_sp, void* resume_sp) { gpujit_fiber_switch(save_sp, resume_sp); }
}  // namespace gpujit
