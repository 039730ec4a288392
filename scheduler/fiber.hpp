// A fiber: a function running on a stack of its own that the thread running
// it can suspend and resume. Parallel branches run as fibers on a lane
// (scheduler/lane.hpp), so that a branch waiting for an upstream reply leaves
// its thread to the other branches; a suspendable execution runs as a fiber
// that its host resumes, from any thread (a suspended fiber holds no thread,
// and what a run allocates is not tied to one: arena chunks and register
// stacks come from the process allocator).
//
// The thread-locals a run keeps (the current run, the tool call being
// served, the stack limit the recursion checks use) belong to the fiber
// while it runs and are swapped at every switch. The switches are annotated
// for AddressSanitizer and ThreadSanitizer.
#pragma once

// x86-64 switches with a few instructions of its own (fiber.cpp); elsewhere
// ucontext does, at the price of a system call per switch (signal mask).
#if defined(__x86_64__)
#define PTC_FIBER_OWN_SWITCH 1
#else
#include <ucontext.h>
#endif

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>

namespace ptc {

class Ctx;
class Lane;
class ToolCallContext;

// Fiber-locals: what a thread keeps for the run it is working on, kept per
// fiber instead while fibers run (swapped at every switch). A fiber may be
// resumed on another thread than the one it last ran on (a suspended
// execution resumed by its host from any thread), so these thread-locals are
// only ever read and written inside fiber.cpp's functions: a frame that spans
// a switch must not keep one thread's address of them.
//
// The tool call being served, as ptc::current_tool_call() reports it.
// Returns the one it replaces.
const ToolCallContext* exchange_current_tool_call(const ToolCallContext* call);
// The lane running here (inside its fibers too), as Lane::current() reports it.
Lane* lane_slot();
Lane* exchange_lane_slot(Lane* lane);

class Fiber {
 public:
  // Throws std::bad_alloc when no stack can be mapped.
  explicit Fiber(std::function<void()> body);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the fiber on this thread until it suspends or its body returns.
  // An exception that left the body is thrown here once it has.
  void resume();
  bool finished() const { return finished_; }

  // From inside the running fiber: back to the resume() that ran it.
  static void suspend();
  // The fiber running on this thread, or nullptr.
  static Fiber* current();

  // Bytes of each fiber's stack (mapped lazily: only what is touched costs).
  static constexpr size_t kStackBytes = size_t{8} << 20;

 private:
  static void entry();
  void switch_to_fiber();
  void switch_to_caller(bool final);

  std::function<void()> body_;
  std::exception_ptr error_;
  void* stack_ = nullptr;  // the mapping, guard page first
#if defined(PTC_FIBER_OWN_SWITCH)
  void* sp_ = nullptr;         // the fiber's saved stack pointer
  void* caller_sp_ = nullptr;  // the resumer's, while the fiber runs
#else
  ucontext_t context_{}, caller_{};
#endif
  bool finished_ = false;
  Fiber* outer_ = nullptr;  // the fiber that resumed this one, if any
  // The fiber's own thread-locals while it is switched out.
  Ctx* run_ = nullptr;
  const ToolCallContext* tool_call_ = nullptr;
  Lane* lane_ = nullptr;  // the lane current where the fiber was made
  uintptr_t stack_limit_ = 0;
  // Sanitizer bookkeeping (unused in plain builds).
  void* asan_fake_stack_ = nullptr;
  const void* caller_stack_bottom_ = nullptr;
  size_t caller_stack_size_ = 0;
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
};

}  // namespace ptc
