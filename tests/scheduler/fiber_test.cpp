// Fibers (scheduler/fiber.hpp): switching, exceptions, and the thread-locals
// (current run, tool call, stack limit, floating-point mode) each side keeps.
#include <gtest/gtest.h>

#include <cfenv>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "include/ptc/tools.hpp"
#include "runtime/ctx.hpp"
#include "runtime/stack_guard.hpp"
#include "scheduler/fiber.hpp"

namespace {

using namespace ptc::testing;  // HangGuard
using ptc::Fiber;

uintptr_t frame_address() {
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
}

// Uses about `depth` KiB of stack.
[[gnu::noinline]] int burn_stack(int depth) {
  volatile char buf[1024];
  buf[0] = static_cast<char>(depth);
  buf[sizeof buf - 1] = 1;
  if (depth == 0) return buf[sizeof buf - 1];
  return burn_stack(depth - 1) + buf[sizeof buf - 1];
}

// A tool call context of the test's own, to see whose current_tool_call() is whose.
class FakeToolCall final : public ptc::ToolCallContext {
 public:
  bool cancelled() const override { return false; }
  std::chrono::steady_clock::time_point deadline() const override { return {}; }
};

TEST(Fiber, BodyRunsOnlyOnResume) {
  HangGuard guard;
  int runs = 0;
  Fiber f([&] { ++runs; });
  EXPECT_EQ(runs, 0);
  EXPECT_FALSE(f.finished());
  f.resume();
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(f.finished());
  f.resume();  // a finished fiber does nothing more
  EXPECT_EQ(runs, 1);
}

TEST(Fiber, NeverResumedFiberIsDestroyedQuietly) {
  HangGuard guard;
  bool ran = false;
  {
    Fiber f([&] { ran = true; });
  }
  EXPECT_FALSE(ran);
}

TEST(Fiber, SuspendReturnsToResumeAndResumeContinuesWhereItLeftOff) {
  HangGuard guard;
  std::vector<int> trace;
  Fiber f([&] {
    int local = 10;  // lives on the fiber's stack across the switches
    trace.push_back(1);
    Fiber::suspend();
    trace.push_back(2);
    local += 5;
    Fiber::suspend();
    trace.push_back(local);
  });
  f.resume();
  EXPECT_EQ(trace, (std::vector<int>{1}));
  EXPECT_FALSE(f.finished());
  trace.push_back(100);
  f.resume();
  EXPECT_EQ(trace, (std::vector<int>{1, 100, 2}));
  EXPECT_FALSE(f.finished());
  trace.push_back(200);
  f.resume();
  EXPECT_EQ(trace, (std::vector<int>{1, 100, 2, 200, 15}));
  EXPECT_TRUE(f.finished());
}

TEST(Fiber, LocalsOnBothSidesSurviveManySwitches) {
  HangGuard guard;
  // The same arithmetic on the fiber and on the thread, interleaved by a
  // switch at every step: callee-saved registers must come back intact.
  auto step = [](uint64_t& a, uint64_t& b, uint64_t& c, int i) {
    a = a * 6364136223846793005ULL + static_cast<uint64_t>(i);
    b ^= a >> 7;
    c += b * 31 + a;
  };
  uint64_t expected_a = 1, expected_b = 2, expected_c = 3;
  for (int i = 0; i < 5000; ++i)
    step(expected_a, expected_b, expected_c, i);

  uint64_t fa = 0, fb = 0, fc = 0;
  Fiber f([&] {
    uint64_t a = 1, b = 2, c = 3;
    for (int i = 0; i < 5000; ++i) {
      step(a, b, c, i);
      Fiber::suspend();
    }
    fa = a;
    fb = b;
    fc = c;
  });
  uint64_t a = 1, b = 2, c = 3;
  int i = 0;
  while (!f.finished()) {
    f.resume();
    if (i < 5000) step(a, b, c, i++);
  }
  EXPECT_EQ(fa, expected_a);
  EXPECT_EQ(fb, expected_b);
  EXPECT_EQ(fc, expected_c);
  EXPECT_EQ(a, expected_a);
  EXPECT_EQ(b, expected_b);
  EXPECT_EQ(c, expected_c);
}

TEST(Fiber, ExceptionFromTheBodyComesOutOfResume) {
  HangGuard guard;
  Fiber f([] {
    Fiber::suspend();
    throw std::runtime_error("boom");
  });
  EXPECT_NO_THROW(f.resume());
  EXPECT_FALSE(f.finished());
  try {
    f.resume();
    ADD_FAILURE() << "resume() did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "boom");
  }
  EXPECT_TRUE(f.finished());
  EXPECT_NO_THROW(f.resume());  // thrown once
  EXPECT_EQ(Fiber::current(), nullptr);
}

TEST(Fiber, ExceptionLeavesTheThreadsOwnStateRestored) {
  HangGuard guard;
  ptc::Limits limits;
  ptc::Ctx thread_ctx(limits);
  ptc::CurrentRun on_thread(thread_ctx);
  uintptr_t thread_limit = ptc::native_stack_limit();
  ptc::Ctx fiber_ctx(limits);
  Fiber f([&] {
    ptc::CurrentRun in_fiber(fiber_ctx);
    throw std::logic_error("out");
  });
  EXPECT_THROW(f.resume(), std::logic_error);
  EXPECT_EQ(ptc::CurrentRun::get(), &thread_ctx);
  EXPECT_EQ(ptc::native_stack_limit(), thread_limit);
  EXPECT_EQ(Fiber::current(), nullptr);
}

TEST(Fiber, CurrentIsTheFiberInsideAndNullOutside) {
  HangGuard guard;
  EXPECT_EQ(Fiber::current(), nullptr);
  Fiber* first = nullptr;
  Fiber* second = nullptr;
  Fiber* self = nullptr;
  Fiber f([&] {
    first = Fiber::current();
    Fiber::suspend();
    second = Fiber::current();
  });
  self = &f;
  f.resume();
  EXPECT_EQ(first, self);
  EXPECT_EQ(Fiber::current(), nullptr);
  f.resume();
  EXPECT_EQ(second, self);
  EXPECT_EQ(Fiber::current(), nullptr);
}

TEST(Fiber, NestedFibersEachSeeThemselvesAndReturnToTheirResumer) {
  HangGuard guard;
  std::vector<std::string> trace;
  Fiber* outer_self = nullptr;
  Fiber outer([&] {
    outer_self = Fiber::current();
    Fiber* inner_self = nullptr;
    Fiber inner([&] {
      inner_self = Fiber::current();
      trace.push_back("inner 1");
      Fiber::suspend();  // back to the outer fiber, not to the thread
      trace.push_back("inner 2");
    });
    inner.resume();
    EXPECT_EQ(inner_self, &inner);
    EXPECT_EQ(Fiber::current(), outer_self);
    trace.push_back("outer 1");
    Fiber::suspend();
    EXPECT_EQ(Fiber::current(), outer_self);
    inner.resume();
    EXPECT_TRUE(inner.finished());
    EXPECT_EQ(Fiber::current(), outer_self);
    trace.push_back("outer 2");
  });
  outer.resume();
  EXPECT_EQ(outer_self, &outer);
  EXPECT_EQ(Fiber::current(), nullptr);
  EXPECT_EQ(trace, (std::vector<std::string>{"inner 1", "outer 1"}));
  outer.resume();
  EXPECT_TRUE(outer.finished());
  EXPECT_EQ(trace, (std::vector<std::string>{"inner 1", "outer 1", "inner 2", "outer 2"}));
}

TEST(Fiber, CurrentRunBelongsToTheFiber) {
  HangGuard guard;
  ptc::Limits limits;
  ptc::Ctx thread_ctx(limits);
  ptc::Ctx fiber_ctx(limits);
  ptc::Ctx later_thread_ctx(limits);
  ptc::Ctx* sentinel = &later_thread_ctx;
  ptc::Ctx* at_start = sentinel;
  ptc::Ctx* after_set = sentinel;
  ptc::Ctx* after_resume = sentinel;
  ptc::Ctx* after_scope = sentinel;

  ptc::CurrentRun on_thread(thread_ctx);
  Fiber f([&] {
    at_start = ptc::CurrentRun::get();
    {
      ptc::CurrentRun in_fiber(fiber_ctx);
      after_set = ptc::CurrentRun::get();
      Fiber::suspend();
      after_resume = ptc::CurrentRun::get();
    }
    after_scope = ptc::CurrentRun::get();
  });
  f.resume();
  EXPECT_EQ(at_start, nullptr) << "the thread's run is visible inside the fiber";
  EXPECT_EQ(after_set, &fiber_ctx);
  EXPECT_EQ(ptc::CurrentRun::get(), &thread_ctx) << "the fiber's run leaked to the thread";
  {
    // The thread changes its own run while the fiber is suspended.
    ptc::CurrentRun later(later_thread_ctx);
    f.resume();
    EXPECT_EQ(ptc::CurrentRun::get(), &later_thread_ctx);
  }
  EXPECT_EQ(after_resume, &fiber_ctx);
  EXPECT_EQ(after_scope, nullptr);
  EXPECT_TRUE(f.finished());
  EXPECT_EQ(ptc::CurrentRun::get(), &thread_ctx);
}

TEST(Fiber, CurrentToolCallBelongsToTheFiber) {
  HangGuard guard;
  FakeToolCall thread_call, fiber_call;
  const ptc::ToolCallContext* saved = ptc::exchange_current_tool_call(&thread_call);
  const ptc::ToolCallContext* at_start = &thread_call;
  const ptc::ToolCallContext* after_resume = nullptr;
  Fiber f([&] {
    at_start = ptc::current_tool_call();
    const ptc::ToolCallContext* before = ptc::exchange_current_tool_call(&fiber_call);
    Fiber::suspend();
    after_resume = ptc::current_tool_call();
    ptc::exchange_current_tool_call(before);
  });
  f.resume();
  EXPECT_EQ(at_start, nullptr);
  EXPECT_EQ(ptc::current_tool_call(), &thread_call);
  ptc::exchange_current_tool_call(nullptr);
  f.resume();
  EXPECT_EQ(after_resume, &fiber_call);
  EXPECT_EQ(ptc::current_tool_call(), nullptr);
  ptc::exchange_current_tool_call(saved);
}

TEST(Fiber, NativeStackLimitIsTheFibersOwnStack) {
  HangGuard guard;
  uintptr_t thread_limit = ptc::native_stack_limit();
  uintptr_t inside = 0, frame = 0, after_resume = 0;
  Fiber f([&] {
    inside = ptc::native_stack_limit();
    frame = frame_address();
    Fiber::suspend();
    after_resume = ptc::native_stack_limit();
  });
  f.resume();
  EXPECT_NE(inside, thread_limit);
  EXPECT_EQ(ptc::native_stack_limit(), thread_limit);
  // The limit lies within the fiber's stack, below its frames, leaving most
  // of the stack usable (and the reserve below it).
  EXPECT_LT(inside, frame);
  EXPECT_LT(frame - inside, Fiber::kStackBytes);
  EXPECT_GT(frame - inside, Fiber::kStackBytes / 2);
  f.resume();
  EXPECT_EQ(after_resume, inside);
  EXPECT_EQ(ptc::native_stack_limit(), thread_limit);
}

TEST(Fiber, FibersAliveAtOnceHaveSeparateStacks) {
  HangGuard guard;
  constexpr int kFibers = 12;  // more than the per-thread pool of reusable stacks keeps
  std::vector<std::unique_ptr<Fiber>> fibers;
  std::vector<uintptr_t> limits(kFibers), frames(kFibers);
  std::vector<int> values(kFibers, 0);
  for (int i = 0; i < kFibers; ++i) {
    fibers.push_back(std::make_unique<Fiber>([&, i] {
      int mine = i * 7;
      limits[i] = ptc::native_stack_limit();
      frames[i] = frame_address();
      Fiber::suspend();
      values[i] = mine + burn_stack(64);
    }));
    fibers.back()->resume();
  }
  std::set<uintptr_t> distinct(limits.begin(), limits.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kFibers));
  for (int i = 0; i < kFibers; ++i) {
    EXPECT_LT(limits[i], frames[i]);
    EXPECT_LT(frames[i] - limits[i], Fiber::kStackBytes);
  }
  for (int i = kFibers; i-- > 0;)
    fibers[i]->resume();
  for (int i = 0; i < kFibers; ++i) {
    EXPECT_TRUE(fibers[i]->finished());
    EXPECT_EQ(values[i], i * 7 + 65);
  }
  // Stacks given back are taken again: many fibers one after another.
  fibers.clear();
  int sum = 0;
  for (int i = 0; i < 100; ++i) {
    Fiber f([&] { sum += burn_stack(16); });
    f.resume();
  }
  EXPECT_EQ(sum, 100 * 17);
}

TEST(Fiber, BodyMayUseMegabytesOfStack) {
  HangGuard guard;
  int result = 0;
  Fiber f([&] { result = burn_stack(3000); });  // about 3 MB
  f.resume();
  EXPECT_TRUE(f.finished());
  EXPECT_EQ(result, 3001);
}

#if defined(PTC_FIBER_OWN_SWITCH)
TEST(Fiber, FloatingPointControlStaysWithEachSide) {
  HangGuard guard;
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  int inside_after_resume = -1;
  Fiber f([&] {
    std::fesetround(FE_UPWARD);
    Fiber::suspend();
    inside_after_resume = std::fegetround();
    std::fesetround(FE_TONEAREST);
  });
  f.resume();
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
  f.resume();
  EXPECT_EQ(inside_after_resume, FE_UPWARD);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}
#endif

}  // namespace
