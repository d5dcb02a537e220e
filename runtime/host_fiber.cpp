// The stack switch and fiber stacks (see host_fiber.h).
//
// The switch is a leaf function in assembly: push the callee-saved registers on the running stack, store the
// stack pointer, load the other one, pop its registers, return. A fresh fiber's stack is laid out as if it
// had been suspended inside gpujit_fiber_switch: its saved registers carry fn and arg, and its return address
// is a trampoline that moves arg into the first argument register and calls fn with an aligned stack. Only
// ELF targets are handled (the symbols carry no underscore prefix).
//
// Sanitized builds tell the sanitizers about every switch, as they cannot see one made in assembly. ASan
// (__sanitizer_start/finish_switch_fiber): which stack is about to run and its bounds, so that its stack
// bookkeeping (reports, __asan_handle_no_return, the fake stack that catches use after return) follows the
// running context; each context keeps its own fake stack while suspended. Instrumented frames that never
// return (a fiber's last ones, or an abandoned fiber's) leave their redzones poisoned, so a stack is unpoisoned
// above the last context's stack pointer before it is reused. TSan (__tsan_switch_to_fiber): which of its
// fibers runs now, so that its shadow call stack and happens-before state follow the switch; a fresh TSan fiber
// is made each time a stack is prepared, so that frames left behind by the last context do not accumulate.
#include "runtime/host_fiber.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define GPUJIT_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUJIT_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define GPUJIT_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GPUJIT_FIBER_TSAN 1
#endif
#endif
#if defined(GPUJIT_FIBER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(GPUJIT_FIBER_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

/// The stack switch, in assembly: saves the running context, stores its stack pointer in *save_sp, and
/// resumes the context whose stack pointer is `resume_sp`. Returns when some other context switches back to the
/// stack pointer stored in *save_sp.
extern "C" void gpujit_fiber_switch(void** save_sp, void* resume_sp);

#ifdef GPUJIT_BOOST_FIBERS
// Boost.Context's jump_fcontext behind the same API, for comparing the two (the GPUJIT_BOOST_FIBERS build
// option, off by default; docs/reliability.md has the figures). jump_fcontext hands the resumed side the
// suspended side's context and a pointer: the switcher passes its save_sp and the resumed side stores the
// context there. A fresh fiber finds its function and argument at a fixed offset from its first context.
#include <boost/context/detail/fcontext.hpp>
namespace {
namespace fctx = boost::context::detail;
struct SwitchFrom {
  void** save_sp;
  void* resume_sp;
};
struct FreshFiber {
  void (*fn)(void*);
  void* arg;
};
std::atomic<std::ptrdiff_t> g_fresh_offset{0};  // from a fresh fiber's context to its FreshFiber
void boost_fiber_start(fctx::transfer_t t) {
  auto* from = static_cast<SwitchFrom*>(t.data);
  *from->save_sp = t.fctx;
  auto* fresh = reinterpret_cast<FreshFiber*>(static_cast<char*>(from->resume_sp) + g_fresh_offset.load());
  fresh->fn(fresh->arg);
  std::abort();  // a fiber's entry never returns
}
}  // namespace
extern "C" void gpujit_fiber_switch(void** save_sp, void* resume_sp) {
  SwitchFrom from{save_sp, resume_sp};
  fctx::transfer_t t = fctx::jump_fcontext(resume_sp, &from);
  *static_cast<SwitchFrom*>(t.data)->save_sp = t.fctx;
}
#elif defined(__x86_64__) && defined(__ELF__)
#define GPUJIT_FIBER_X86_64 1
// Saved frame, from the stack pointer up: r15 r14 r13 r12 rbx rbp, then the return address.
asm(R"(
  .text
  .globl gpujit_fiber_switch
  .type gpujit_fiber_switch, @function
  .p2align 4
gpujit_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size gpujit_fiber_switch, .-gpujit_fiber_switch

  .globl gpujit_fiber_trampoline
  .hidden gpujit_fiber_trampoline
  .type gpujit_fiber_trampoline, @function
  .p2align 4
gpujit_fiber_trampoline:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size gpujit_fiber_trampoline, .-gpujit_fiber_trampoline
)");
#elif defined(__aarch64__) && defined(__ELF__)
#define GPUJIT_FIBER_AARCH64 1
// Saved frame, 160 bytes from the stack pointer up: x19..x30 (x29 frame pointer, x30 return address), d8..d15.
asm(R"(
  .text
  .globl gpujit_fiber_switch
  .type gpujit_fiber_switch, %function
  .p2align 4
gpujit_fiber_switch:
  sub sp, sp, #160
  stp x19, x20, [sp, #0]
  stp x21, x22, [sp, #16]
  stp x23, x24, [sp, #32]
  stp x25, x26, [sp, #48]
  stp x27, x28, [sp, #64]
  stp x29, x30, [sp, #80]
  stp d8, d9, [sp, #96]
  stp d10, d11, [sp, #112]
  stp d12, d13, [sp, #128]
  stp d14, d15, [sp, #144]
  mov x9, sp
  str x9, [x0]
  mov sp, x1
  ldp x19, x20, [sp, #0]
  ldp x21, x22, [sp, #16]
  ldp x23, x24, [sp, #32]
  ldp x25, x26, [sp, #48]
  ldp x27, x28, [sp, #64]
  ldp x29, x30, [sp, #80]
  ldp d8, d9, [sp, #96]
  ldp d10, d11, [sp, #112]
  ldp d12, d13, [sp, #128]
  ldp d14, d15, [sp, #144]
  add sp, sp, #160
  ret
  .size gpujit_fiber_switch, .-gpujit_fiber_switch

  .globl gpujit_fiber_trampoline
  .hidden gpujit_fiber_trampoline
  .type gpujit_fiber_trampoline, %function
  .p2align 4
gpujit_fiber_trampoline:
  mov x0, x19
  blr x20
  brk #0
  .size gpujit_fiber_trampoline, .-gpujit_fiber_trampoline
)");
#else
// No switch for this platform: host_fibers_supported() says so and the executor refuses barrier kernels
// before it would get here.
extern "C" void gpujit_fiber_switch(void**, void*) {
  std::fputs("gpujit: fibers are not supported on this platform\n", stderr);
  std::abort();
}
#endif

#if defined(GPUJIT_FIBER_X86_64) || defined(GPUJIT_FIBER_AARCH64)
extern "C" void gpujit_fiber_trampoline();
#endif

namespace gpujit {

bool host_fibers_supported() {
#if defined(GPUJIT_FIBER_X86_64) || defined(GPUJIT_FIBER_AARCH64) || defined(GPUJIT_BOOST_FIBERS)
  return true;
#else
  return false;
#endif
}

FiberStack::FiberStack(size_t size) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_ = (size + page - 1) / page * page;
  mapped_ = size_ + page;
  // MAP_NORESERVE: a thousand fibers reserve their stacks but commit only the pages they touch.
  void* p =
      mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  if (mprotect(p, page, PROT_NONE) != 0) {
    munmap(p, mapped_);
    throw std::bad_alloc();
  }
  base_ = p;
  // Stacks are page-aligned, so the hot tops of hundreds of them would compete for the same cache sets. Each
  // stack starts at a different offset instead (a multiple of 17 cache lines, cycling through at most 16 KiB
  // and a quarter of the stack). The 16 bytes always kept above the first frame stop stack walks from reading
  // past the mapping.
  static std::atomic<unsigned> next_color{0};
  size_t color_range = std::min<size_t>(16 * 1024, size_ / 4 / 64 * 64);
  size_t color =
      color_range == 0 ? 0 : next_color.fetch_add(1, std::memory_order_relaxed) * 17 * 64 % color_range;
  top_ = static_cast<uint8_t*>(p) + mapped_ - 16 - color;
}

FiberStack::~FiberStack() {
#if defined(GPUJIT_FIBER_TSAN)
  if (tsan_fiber_ != nullptr) __tsan_destroy_fiber(tsan_fiber_);
#endif
  if (base_ != nullptr) munmap(base_, mapped_);
}

bool FiberStack::in_guard(const void* address) const {
  auto a = reinterpret_cast<uintptr_t>(address), b = reinterpret_cast<uintptr_t>(base_);
  return a >= b && a < b + (mapped_ - size_);
}

void* FiberStack::bottom() const { return static_cast<uint8_t*>(base_) + (mapped_ - size_); }

namespace {

#if defined(GPUJIT_FIBER_ASAN)
/// The context that switched away last on this OS thread: the resumed side records the stack bounds ASan
/// reports for it (an OS thread's own stack is learned that way, the first time it switches to a fiber).
thread_local FiberContext* t_switched_from = nullptr;
#endif

/// Completes a switch on the resumed side (sanitized builds): hands ASan the resumed context's fake stack.
void finish_switch(void* fake_stack) {
#if defined(GPUJIT_FIBER_ASAN)
  const void* bottom = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
  if (t_switched_from != nullptr) {
    t_switched_from->stack_bottom = bottom;
    t_switched_from->stack_size = size;
  }
#else
  (void)fake_stack;
#endif
}

void switch_context(FiberContext& from, FiberContext& to, [[maybe_unused]] bool exiting) {
#if defined(GPUJIT_FIBER_ASAN)
  // An exiting context's fake stack is freed; a suspended one keeps its own until it is resumed.
  __sanitizer_start_switch_fiber(exiting ? nullptr : &from.fake_stack, to.stack_bottom, to.stack_size);
#endif
#if defined(GPUJIT_FIBER_TSAN)
  from.tsan_fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(to.tsan_fiber, 0);
#endif
#if defined(GPUJIT_FIBER_ASAN)
  t_switched_from = &from;
#endif
  gpujit_fiber_switch(&from.sp, to.sp);
  finish_switch(from.fake_stack);
}

/// Where a prepared fiber starts (through the trampoline): completes the switch, then runs the entry.
[[noreturn]] void fiber_start(void* arg) {
  finish_switch(nullptr);
  auto* fiber = static_cast<FiberContext*>(arg);
  fiber->entry(fiber->arg);
  std::fputs("gpujit: a fiber's entry function returned\n", stderr);
  std::abort();
}

void* prepared_stack_pointer(const FiberStack& stack, void (*fn)(void*), void* arg) {
  auto* top = static_cast<uintptr_t*>(stack.top());
#if defined(GPUJIT_BOOST_FIBERS)
  auto* fresh = reinterpret_cast<FreshFiber*>(top - 4);  // 32 bytes below the top: sp stays 16-byte aligned
  fresh->fn = fn;
  fresh->arg = arg;
  void* ctx = fctx::make_fcontext(fresh, stack.size() - 64, boost_fiber_start);
  g_fresh_offset.store(reinterpret_cast<char*>(fresh) - static_cast<char*>(ctx));  // the same for every stack
  return ctx;
#elif defined(GPUJIT_FIBER_X86_64)
  // Return address at top-8, so the trampoline starts with a 16-byte aligned stack and its call leaves the
  // callee the alignment the SysV ABI promises. Below it rbp, rbx, r12 (arg), r13 (fn), r14, r15.
  uintptr_t* sp = top - 7;
  sp[6] = reinterpret_cast<uintptr_t>(&gpujit_fiber_trampoline);
  sp[5] = 0;                                 // rbp: ends frame-pointer walks
  sp[4] = 0;                                 // rbx
  sp[3] = reinterpret_cast<uintptr_t>(arg);  // r12
  sp[2] = reinterpret_cast<uintptr_t>(fn);   // r13
  sp[1] = 0;                                 // r14
  sp[0] = 0;                                 // r15
  return sp;
#elif defined(GPUJIT_FIBER_AARCH64)
  uintptr_t* sp = top - 20;  // the 160-byte frame; sp stays 16-byte aligned
  for (int i = 0; i < 20; ++i) sp[i] = 0;
  sp[0] = reinterpret_cast<uintptr_t>(arg);                        // x19
  sp[1] = reinterpret_cast<uintptr_t>(fn);                         // x20
  sp[11] = reinterpret_cast<uintptr_t>(&gpujit_fiber_trampoline);  // x30
  return sp;
#else
  (void)top;
  (void)fn;
  (void)arg;
  return nullptr;
#endif
}

}  // namespace

void fiber_switch(FiberContext& from, FiberContext& to) { switch_context(from, to, false); }

void fiber_exit(FiberContext& from, FiberContext& to) {
  switch_context(from, to, true);
  std::fputs("gpujit: an exited fiber was resumed\n", stderr);
  std::abort();
}

// Not instrumented: ASan would give this function's frame a place on the fake stack the call below frees.
#if defined(GPUJIT_FIBER_ASAN)
__attribute__((no_sanitize("address")))
#endif
void fiber_jumped_back([[maybe_unused]] FiberContext& to) {
#if defined(GPUJIT_FIBER_ASAN)
  // Without this, ASan would still take the abandoned fiber's stack for the running one, and the next
  // __asan_handle_no_return (a throw, a longjmp) would warn that its bounds make no sense. The fiber's fake
  // stack is freed; the thread's own, kept in `to` when it switched to the first fiber, is back.
  const void* bottom = to.stack_bottom;
  size_t size = to.stack_size;
  pthread_attr_t attr;
  if (bottom == nullptr && pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* b = nullptr;
    if (pthread_attr_getstack(&attr, &b, &size) == 0) bottom = b;
    pthread_attr_destroy(&attr);
  }
  __sanitizer_start_switch_fiber(nullptr, bottom, size);  // null: the fiber's fake stack is freed
  __sanitizer_finish_switch_fiber(to.fake_stack, nullptr, nullptr);
  to.fake_stack = nullptr;
#endif
#if defined(GPUJIT_FIBER_TSAN)
  if (to.tsan_fiber != nullptr) __tsan_switch_to_fiber(to.tsan_fiber, 0);
#endif
}

void fiber_prepare(FiberContext& fiber, FiberStack& stack, void (*entry)(void*), void* arg) {
  auto* low = static_cast<uint8_t*>(stack.bottom());
  auto* high = static_cast<uint8_t*>(stack.end());
#if defined(GPUJIT_FIBER_ASAN)
  // The last context on this stack (when it was this one) used it above its stack pointer; any other, or none,
  // may have used all of it.
  auto* used = static_cast<uint8_t*>(fiber.sp);
  if (fiber.stack_bottom != low || used < low || used >= high) used = low;
  __asan_unpoison_memory_region(used, static_cast<size_t>(high - used));
#endif
#if defined(GPUJIT_FIBER_TSAN)
  if (stack.tsan_fiber_ != nullptr) __tsan_destroy_fiber(stack.tsan_fiber_);
  stack.tsan_fiber_ = __tsan_create_fiber(0);
#endif
  fiber.entry = entry;
  fiber.arg = arg;
  fiber.stack_bottom = low;
  fiber.stack_size = static_cast<size_t>(high - low);
  fiber.fake_stack = nullptr;
  fiber.tsan_fiber = stack.tsan_fiber_;
  fiber.sp = prepared_stack_pointer(stack, fiber_start, &fiber);
}

}  // namespace gpujit
