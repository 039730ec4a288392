#include "scheduler/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#include <new>
#include <vector>

#include "include/ptc/tools.hpp"
#include "runtime/ctx.hpp"
#include "runtime/sanitizers.hpp"
#include "runtime/stack_guard.hpp"

#if defined(PTC_SANITIZER_ADDRESS)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(PTC_SANITIZER_THREAD)
#include <sanitizer/tsan_interface.h>
#endif

#if defined(PTC_FIBER_OWN_SWITCH)
// ptc_fiber_switch(&from_sp, to_sp): saves the callee-saved registers and
// the floating-point control words on the current stack, stores its pointer
// in *from_sp, and continues on to_sp where another switch left off (or
// where a new fiber's stack was laid out to look so).
extern "C" void ptc_fiber_switch(void** from_sp, void* to_sp);
asm(R"(
  .text
  .globl ptc_fiber_switch
  .hidden ptc_fiber_switch
  .type ptc_fiber_switch, @function
ptc_fiber_switch:
  .cfi_startproc
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .cfi_endproc
  .size ptc_fiber_switch, .-ptc_fiber_switch
  .section .note.GNU-stack,"",@progbits
  .text
)");
#endif

namespace ptc {

namespace {

thread_local Fiber* t_current = nullptr;
thread_local const ToolCallContext* t_tool_call = nullptr;
thread_local Lane* t_lane = nullptr;

size_t page_size() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

// Stacks are mapped once and reused: a branch costs no mmap. Each thread
// keeps a few; beyond those they go to a small process-wide pool, so that a
// stack freed on one thread (an execution dropped or resumed elsewhere)
// serves the next fiber on another.
constexpr size_t kThreadStacks = 8;
constexpr size_t kSharedStacks = 64;

void unmap_stack(void* s) {
  ::munmap(s, Fiber::kStackBytes + page_size());
}

struct StackPool {
  std::vector<void*> free;
  ~StackPool() {
    for (void* s : free)
      unmap_stack(s);
  }
};
thread_local StackPool t_stacks;

struct SharedStacks {
  std::mutex mutex;
  std::vector<void*> free;
};
SharedStacks& shared_stacks() {
  static SharedStacks* pool = new SharedStacks;  // never destroyed: threads may outlive exit
  return *pool;
}

void* take_stack() {
  if (!t_stacks.free.empty()) {
    void* s = t_stacks.free.back();
    t_stacks.free.pop_back();
    return s;
  }
  {
    SharedStacks& shared = shared_stacks();
    std::lock_guard lock(shared.mutex);
    if (!shared.free.empty()) {
      void* s = shared.free.back();
      shared.free.pop_back();
      return s;
    }
  }
  size_t bytes = Fiber::kStackBytes + page_size();
  void* s = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (s == MAP_FAILED) throw std::bad_alloc();
  // The lowest page is a guard: running off the stack faults instead of
  // writing over whatever lies below.
  if (::mprotect(s, page_size(), PROT_NONE) != 0) {
    ::munmap(s, bytes);
    throw std::bad_alloc();
  }
  return s;
}

void give_stack(void* s) {
#if defined(PTC_SANITIZER_ADDRESS)
  // The redzones of the frames that were on it would be taken for the next
  // fiber's overflows.
  __asan_unpoison_memory_region(static_cast<char*>(s) + page_size(), Fiber::kStackBytes);
#endif
  if (t_stacks.free.size() < kThreadStacks) {
    t_stacks.free.push_back(s);
    return;
  }
  SharedStacks& shared = shared_stacks();
  {
    std::lock_guard lock(shared.mutex);
    if (shared.free.size() < kSharedStacks) {
      shared.free.push_back(s);
      return;
    }
  }
  unmap_stack(s);
}

// The lowest address the recursion checks let a fiber's frames reach.
uintptr_t stack_limit_of(void* mapping) {
  return stack_limit_for(reinterpret_cast<uintptr_t>(mapping) + page_size(), Fiber::kStackBytes);
}

}  // namespace

[[gnu::noinline]] const ToolCallContext* current_tool_call() {
  return t_tool_call;
}

[[gnu::noinline]] const ToolCallContext* exchange_current_tool_call(const ToolCallContext* call) {
  const ToolCallContext* old = t_tool_call;
  t_tool_call = call;
  return old;
}

[[gnu::noinline]] Lane* lane_slot() {
  return t_lane;
}

[[gnu::noinline]] Lane* exchange_lane_slot(Lane* lane) {
  Lane* old = t_lane;
  t_lane = lane;
  return old;
}

Fiber::Fiber(std::function<void()> body) : body_(std::move(body)), lane_(lane_slot()) {
  stack_ = take_stack();
  stack_limit_ = stack_limit_of(stack_);
#if defined(PTC_FIBER_OWN_SWITCH)
  // The new stack as ptc_fiber_switch leaves one: control words, six
  // registers, then entry() as the return address, entered with the
  // stack aligned as after a call (and a null return address above it).
  auto top = (reinterpret_cast<uintptr_t>(stack_) + page_size() + kStackBytes) & ~uintptr_t{15};
  auto* slot = reinterpret_cast<uint64_t*>(top - 72);
  slot[0] = 0x037F'0000'1F80;  // x87 control word (high half) and MXCSR: their defaults
  for (int i = 1; i <= 6; ++i)
    slot[i] = 0;  // r15 r14 r13 r12 rbx rbp
  slot[7] = reinterpret_cast<uint64_t>(&Fiber::entry);
  slot[8] = 0;
  sp_ = slot;
#else
  if (::getcontext(&context_) != 0) {
    give_stack(stack_);
    throw std::bad_alloc();
  }
  context_.uc_stack.ss_sp = static_cast<char*>(stack_) + page_size();
  context_.uc_stack.ss_size = kStackBytes;
  context_.uc_link = nullptr;  // the body never returns through the context: entry() switches back
  ::makecontext(&context_, &Fiber::entry, 0);
#endif
#if defined(PTC_SANITIZER_THREAD)
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
}

Fiber::~Fiber() {
#if defined(PTC_SANITIZER_THREAD)
  if (tsan_fiber_) __tsan_destroy_fiber(tsan_fiber_);
#endif
  // A fiber destroyed while suspended leaves its frames' destructors unrun;
  // the lane only destroys finished fibers (or ones never started).
  if (stack_) give_stack(stack_);
}

Fiber* Fiber::current() {
  return t_current;
}

void Fiber::entry() {
  Fiber* self = t_current;
#if defined(PTC_SANITIZER_ADDRESS)
  __sanitizer_finish_switch_fiber(nullptr, &self->caller_stack_bottom_, &self->caller_stack_size_);
#endif
  try {
    self->body_();
  } catch (...) {
    self->error_ = std::current_exception();
  }
  self->finished_ = true;
  self->switch_to_caller(true);
  // Never resumed again.
}

void Fiber::switch_to_fiber() {
#if defined(PTC_SANITIZER_THREAD)
  tsan_caller_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(tsan_fiber_, 0);
#endif
#if defined(PTC_SANITIZER_ADDRESS)
  void* caller_fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&caller_fake_stack, static_cast<char*>(stack_) + page_size(),
                                 kStackBytes);
#endif
#if defined(PTC_FIBER_OWN_SWITCH)
  ptc_fiber_switch(&caller_sp_, sp_);
#else
  ::swapcontext(&caller_, &context_);
#endif
#if defined(PTC_SANITIZER_ADDRESS)
  __sanitizer_finish_switch_fiber(caller_fake_stack, nullptr, nullptr);
#endif
}

void Fiber::switch_to_caller(bool final) {
#if defined(PTC_SANITIZER_THREAD)
  __tsan_switch_to_fiber(tsan_caller_, 0);
#endif
#if defined(PTC_SANITIZER_ADDRESS)
  // The last switch out passes no save slot: the fiber's fake stack is freed.
  __sanitizer_start_switch_fiber(final ? nullptr : &asan_fake_stack_, caller_stack_bottom_,
                                 caller_stack_size_);
#else
  (void) final;
#endif
#if defined(PTC_FIBER_OWN_SWITCH)
  ptc_fiber_switch(&sp_, caller_sp_);
#else
  ::swapcontext(&context_, &caller_);
#endif
#if defined(PTC_SANITIZER_ADDRESS)
  __sanitizer_finish_switch_fiber(asan_fake_stack_, &caller_stack_bottom_, &caller_stack_size_);
#endif
}

void Fiber::resume() {
  if (finished_) return;
  outer_ = t_current;
  t_current = this;
  // The fiber's thread-locals in, the caller's kept aside.
  Ctx* caller_run = CurrentRun::exchange(run_);
  const ToolCallContext* caller_call = exchange_current_tool_call(tool_call_);
  uintptr_t caller_limit = exchange_native_stack_limit(stack_limit_);
  Lane* caller_lane = exchange_lane_slot(lane_);
  switch_to_fiber();
  run_ = CurrentRun::exchange(caller_run);
  tool_call_ = exchange_current_tool_call(caller_call);
  exchange_native_stack_limit(caller_limit);
  lane_ = exchange_lane_slot(caller_lane);
  t_current = outer_;
  if (finished_ && error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void Fiber::suspend() {
  Fiber* self = t_current;
  if (self) self->switch_to_caller(false);
}

}  // namespace ptc
