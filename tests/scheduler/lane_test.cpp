// Fibers (vm/fiber.hpp), lanes (vm/lane.hpp), the cooperative waits
// (vm/cooperative.hpp) and parallel branches running as fibers on lanes
// (vm/parallel.cpp), through their own interfaces and through ptc::run.
//
// Every test runs under a hang guard: a wait that never ends (a lost wake-up,
// a lane blocked by a wait that should have let it go) aborts the binary
// with the test's name instead of hanging it.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cfenv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "embedding/tool_broker.hpp"
#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"
#include "runtime/stack_guard.hpp"
#include "scheduler/cooperative.hpp"
#include "scheduler/fiber.hpp"
#include "scheduler/lane.hpp"
#include "support/build_info.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using ptc::ErrorKind;
using ptc::Fiber;
using ptc::HostValue;
using ptc::Lane;
using ptc::RunOptions;
using ptc::Step;
using ptc::ToolResult;
using H = HostValue;

// Aborts the process when the test it guards has not ended within `limit`.
class HangGuard {
 public:
  explicit HangGuard(std::chrono::seconds limit = 60s) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    name_ = info ? std::string(info->test_suite_name()) + "." + info->name() : "?";
    thread_ = std::thread([this, limit] {
      std::unique_lock lock(mutex_);
      if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
        std::fprintf(stderr, "hang guard: %s did not end within %lld s\n", name_.c_str(),
                     static_cast<long long>(limit.count()));
        std::fflush(stderr);
        std::abort();
      }
    });
  }
  ~HangGuard() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  HangGuard(const HangGuard&) = delete;
  HangGuard& operator=(const HangGuard&) = delete;

 private:
  std::string name_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Runs `bodies` as fibers of `lane`, on this thread, in order of start.
void run_lane(Lane& lane, std::vector<std::function<void()>> bodies) {
  size_t next = 0;
  lane.run([&]() -> std::function<void()> {
    if (next < bodies.size()) return bodies[next++];
    return {};
  });
}

// A pipe closed at scope exit.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2");
  }
  ~Pipe() {
    ::close(fd[0]);
    ::close(fd[1]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return fd[0]; }
  void put(char c) const { ASSERT_EQ(::write(fd[1], &c, 1), 1); }
  char take() const {
    char c = 0;
    return ::read(fd[0], &c, 1) == 1 ? c : '\0';
  }
};

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

// ================================================================ Fiber

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

// ================================================================ Lane

TEST(Lane, RunsEveryFiberOfItsSourceToCompletion) {
  HangGuard guard;
  Lane lane;
  EXPECT_EQ(Lane::current(), nullptr);
  std::vector<int> done;
  std::vector<std::function<void()>> bodies;
  for (int i = 0; i < 5; ++i)
    bodies.push_back([&, i] {
      EXPECT_EQ(Lane::current(), &lane);
      EXPECT_NE(lane.running(), nullptr);
      EXPECT_NE(Fiber::current(), nullptr);
      EXPECT_TRUE(ptc::coop::on_lane());
      // Each waits a little, so several are alive at once.
      lane.park(Clock::now() + std::chrono::milliseconds(5 * (5 - i)));
      done.push_back(i);
    });
  run_lane(lane, std::move(bodies));
  EXPECT_EQ(Lane::current(), nullptr);
  EXPECT_FALSE(ptc::coop::on_lane());
  ASSERT_EQ(done.size(), 5u);
  std::set<int> all(done.begin(), done.end());
  EXPECT_EQ(all, (std::set<int>{0, 1, 2, 3, 4}));
  // Shorter waits ended first: the last started had the shortest.
  EXPECT_EQ(done.front(), 4);
}

TEST(Lane, SourceIsAskedAgainUntilItHasNoMoreWork) {
  HangGuard guard;
  Lane lane;
  int asked = 0, made = 0, ran = 0;
  lane.run([&]() -> std::function<void()> {
    ++asked;
    if (made == 4) return {};
    ++made;
    return [&] { ++ran; };
  });
  EXPECT_EQ(ran, 4);
  EXPECT_GE(asked, 5);
}

TEST(Lane, ParkWithADeadlineReturnsAfterIt) {
  HangGuard guard;
  Lane lane;
  Clock::time_point until, returned;
  run_lane(lane, {[&] {
             until = Clock::now() + 30ms;
             lane.park(until);
             returned = Clock::now();
           }});
  EXPECT_GE(returned, until);
}

TEST(Lane, ShorterDeadlineOfTwoParkedFibersEndsFirst) {
  HangGuard guard;
  Lane lane;
  std::vector<char> order;
  run_lane(lane, {[&] {
                    lane.park(Clock::now() + 200ms);
                    order.push_back('a');
                  },
                  [&] {
                    lane.park(Clock::now() + 10ms);
                    order.push_back('b');
                  }});
  EXPECT_EQ(order, (std::vector<char>{'b', 'a'}));
}

TEST(Lane, WakeFromAnotherThreadResumesAParkedFiber) {
  HangGuard guard;
  Lane lane;
  std::atomic<Lane::Task*> task{nullptr};
  std::atomic<bool> woken_by_thread{false};
  bool resumed = false;
  std::thread waker([&] {
    while (!task.load())
      std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(20ms);  // very likely parked by now; either way it must wake
    woken_by_thread = true;
    lane.wake(task.load());
  });
  run_lane(lane, {[&] {
             task = lane.running();
             while (!woken_by_thread.load())  // no deadline: only wake() ends it
               lane.park(Clock::time_point::max());
             resumed = true;
           }});
  waker.join();
  EXPECT_TRUE(resumed);
}

TEST(Lane, WakeWhileRunningMakesTheNextParkReturnAtOnce) {
  HangGuard guard;
  Lane lane;
  Clock::time_point until, returned;
  run_lane(lane, {[&] {
             lane.wake(lane.running());
             lane.park(Clock::time_point::max());  // returns at once: it was woken
             // The wake-up was used up: this one waits for its deadline.
             until = Clock::now() + 20ms;
             lane.park(until);
             returned = Clock::now();
           }});
  EXPECT_GE(returned, until);
}

TEST(Lane, ExceptionFromAFiberIsThrownByRunAfterAllEnded) {
  HangGuard guard;
  Lane lane;
  bool other_finished = false;
  EXPECT_THROW(run_lane(lane, {[] { throw std::runtime_error("first"); },
                               [&] {
                                 lane.park(Clock::now() + 10ms);
                                 other_finished = true;
                               }}),
               std::runtime_error);
  EXPECT_TRUE(other_finished);
  EXPECT_EQ(Lane::current(), nullptr);
}

TEST(Lane, CoopPollSeesAWriteByAnotherFiberOfTheLane) {
  HangGuard guard;
  Lane lane;
  Pipe pipe;
  auto lane_thread = std::this_thread::get_id();
  int ready = -1;
  short revents = 0;
  bool writer_ran_first = false;
  char got = 0;
  bool writer_done = false;
  run_lane(lane, {[&] {
                    pollfd pfd{pipe.read_end(), POLLIN, 0};
                    ready = ptc::coop::poll(&pfd, 1, 10000);
                    revents = pfd.revents;
                    writer_ran_first = writer_done;
                    got = pipe.take();
                    EXPECT_EQ(std::this_thread::get_id(), lane_thread);
                  },
                  [&] {
                    EXPECT_EQ(std::this_thread::get_id(), lane_thread);
                    pipe.put('x');
                    writer_done = true;
                  }});
  EXPECT_EQ(ready, 1);
  EXPECT_TRUE(revents & POLLIN);
  EXPECT_TRUE(writer_ran_first) << "the poll blocked the lane instead of parking the fiber";
  EXPECT_EQ(got, 'x');
}

TEST(Lane, CoopPollTimesOutWithNothingReady) {
  HangGuard guard;
  Lane lane;
  Pipe pipe;
  int ready = -1;
  short revents = -1;
  run_lane(lane, {[&] {
             pollfd pfd{pipe.read_end(), POLLIN, 0};
             ready = ptc::coop::poll(&pfd, 1, 20);
             revents = pfd.revents;
           }});
  EXPECT_EQ(ready, 0);
  EXPECT_EQ(revents, 0);
}

// poll(2) fills revents in; so must coop::poll, also when a pending wake()
// makes it return at once: readiness left from an earlier poll is not news.
TEST(Lane, CoopPollReportsNoStaleReadiness) {
  HangGuard guard;
  Lane lane;
  Pipe pipe;  // nothing is ever written
  int ready = -1;
  short revents = -1;
  run_lane(lane, {[&] {
             lane.wake(lane.running());  // a wake-up pending: the next wait returns at once
             pollfd pfd{pipe.read_end(), POLLIN, POLLIN};  // as an earlier poll left it
             ready = ptc::coop::poll(&pfd, 1, 20);
             revents = pfd.revents;
           }});
  EXPECT_EQ(ready, 0);
  EXPECT_EQ(revents, 0);
}

TEST(Lane, AwakeSinceIsWhenTheLaneLastCameOutOfItsPoll) {
  HangGuard guard;
  Lane lane;
  Clock::time_point until, awake, before;
  run_lane(lane, {[&] {
             before = Clock::now();
             EXPECT_LE(lane.awake_since(), before);
             until = before + 15ms;
             lane.park(until);  // the lane sleeps in its poll until then
             awake = lane.awake_since();
           }});
  EXPECT_GE(awake, until);
}

TEST(Lane, TwoFibersPollingTwoPipesWrittenByAnotherThreadBothResume) {
  HangGuard guard;
  Lane lane;
  Pipe first, second;
  std::atomic<int> polling{0};
  std::thread writer([&] {
    while (polling.load() < 2)
      std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(10ms);
    second.put('b');
    std::this_thread::sleep_for(10ms);
    first.put('a');
  });
  int ready_a = -1, ready_b = -1;
  char got_a = 0, got_b = 0;
  auto waiter = [&](const Pipe& pipe, int& ready, char& got) {
    return [&] {
      pollfd pfd{pipe.read_end(), POLLIN, 0};
      ++polling;
      ready = ptc::coop::poll(&pfd, 1, 20000);
      got = pipe.take();
    };
  };
  run_lane(lane, {waiter(first, ready_a, got_a), waiter(second, ready_b, got_b)});
  writer.join();
  EXPECT_EQ(ready_a, 1);
  EXPECT_EQ(ready_b, 1);
  EXPECT_EQ(got_a, 'a');
  EXPECT_EQ(got_b, 'b');
}

TEST(Lane, PollSeesOnlyTheDescriptorThatBecameReady) {
  HangGuard guard;
  Lane lane;
  Pipe quiet, loud;
  short quiet_revents = -1, loud_revents = 0;
  int ready = -1;
  run_lane(lane, {[&] {
                    pollfd pfds[2] = {{quiet.read_end(), POLLIN, 0}, {loud.read_end(), POLLIN, 0}};
                    ready = ptc::coop::poll(pfds, 2, 20000);
                    quiet_revents = pfds[0].revents;
                    loud_revents = pfds[1].revents;
                  },
                  [&] { loud.put('!'); }});
  EXPECT_EQ(ready, 1);
  EXPECT_EQ(quiet_revents, 0);
  EXPECT_TRUE(loud_revents & POLLIN);
}

// A fiber parked with a deadline only (no descriptors), and after it a fiber
// polling a pipe that another thread writes: the poller must resume when
// its pipe is readable, while the first is still parked.
TEST(Lane, PollerParkedAfterAFiberWithoutDescriptorsSeesItsPipe) {
  HangGuard guard;
  Lane lane;
  Pipe pipe;
  std::atomic<bool> polling{false};
  std::thread writer([&] {
    while (!polling.load())
      std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(10ms);
    pipe.put('p');
  });
  bool sleeper_done = false;
  bool sleeper_done_when_polled = true;
  bool poller_done = false;
  Lane::Task* sleeper = nullptr;
  int ready = -1;
  run_lane(lane, {[&] {
                    sleeper = lane.running();
                    auto until = Clock::now() + 3s;
                    while (!poller_done && Clock::now() < until)
                      lane.park(until);  // a deadline, no descriptors
                    sleeper_done = true;
                  },
                  [&] {
                    pollfd pfd{pipe.read_end(), POLLIN, 0};
                    polling = true;
                    ready = ptc::coop::poll(&pfd, 1, 20000);
                    sleeper_done_when_polled = sleeper_done;
                    poller_done = true;
                    lane.wake(sleeper);
                  }});
  writer.join();
  EXPECT_EQ(ready, 1);
  EXPECT_FALSE(sleeper_done_when_polled)
      << "the poller resumed only after the other fiber's deadline had passed";
}

TEST(Lane, AddSourceFromInsideAFiberStartsItsWorkFirst) {
  HangGuard guard;
  Lane lane;
  std::vector<std::string> started;
  int inner_done = 0;
  Lane::Task* outer_task = nullptr;
  bool removed = false;
  run_lane(lane, {[&] {
                    started.push_back("A");
                    outer_task = lane.running();
                    int made = 0;
                    size_t id = lane.add_source([&]() -> std::function<void()> {
                      if (made == 2) return {};
                      int n = ++made;
                      return [&, n] {
                        started.push_back("C" + std::to_string(n));
                        ++inner_done;
                        lane.wake(outer_task);
                      };
                    });
                    while (inner_done < 2)
                      lane.park(Clock::time_point::max());
                    lane.remove_source(id);
                    removed = true;
                  },
                  [&] { started.push_back("B"); }});
  EXPECT_TRUE(removed);
  EXPECT_EQ(inner_done, 2);
  // The newest source goes first: the inner work before the outer's next fiber.
  EXPECT_EQ(started, (std::vector<std::string>{"A", "C1", "C2", "B"}));
}

// ================================================================ coop::CondVar

TEST(CoopCondVar, FiberWaitsAndAThreadNotifies) {
  HangGuard guard;
  Lane lane;
  std::mutex m;
  ptc::coop::CondVar cv;
  bool flag = false;
  std::atomic<bool> waiting{false};
  bool saw_flag = false;
  std::thread notifier([&] {
    while (!waiting.load())
      std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(10ms);
    {
      std::lock_guard lock(m);
      flag = true;
    }
    cv.notify_one();
  });
  run_lane(lane, {[&] {
             std::unique_lock lock(m);
             waiting = true;
             cv.wait(lock, [&] { return flag; });
             saw_flag = flag;
             EXPECT_TRUE(lock.owns_lock());
           }});
  notifier.join();
  EXPECT_TRUE(saw_flag);
}

TEST(CoopCondVar, FiberWaitLetsAnotherFiberOfTheLaneRun) {
  HangGuard guard;
  Lane lane;
  std::mutex m;
  ptc::coop::CondVar cv;
  bool flag = false;
  std::cv_status status = std::cv_status::timeout;
  run_lane(lane, {[&] {
                    std::unique_lock lock(m);
                    // One wait: the other fiber can only notify when this
                    // wait parks the fiber rather than blocking the lane.
                    status = cv.wait_until(lock, Clock::now() + 20s);
                  },
                  [&] {
                    {
                      std::lock_guard lock(m);
                      flag = true;
                    }
                    cv.notify_one();
                  }});
  EXPECT_TRUE(flag);
  EXPECT_EQ(status, std::cv_status::no_timeout);
}

TEST(CoopCondVar, ThreadWaitsAndAFiberNotifies) {
  HangGuard guard;
  std::mutex m;
  ptc::coop::CondVar cv;
  bool flag = false;
  std::thread lane_thread([&] {
    Lane lane;
    run_lane(lane, {[&] {
               lane.park(Clock::now() + 10ms);
               {
                 std::lock_guard lock(m);
                 flag = true;
               }
               cv.notify_one();
             }});
  });
  bool got;
  {
    std::unique_lock lock(m);
    got = cv.wait_until(lock, Clock::now() + 20s, [&] { return flag; });
  }
  lane_thread.join();
  EXPECT_TRUE(got);
}

TEST(CoopCondVar, WaitUntilOnAFiberTimesOutWhenNobodyNotifies) {
  HangGuard guard;
  Lane lane;
  std::mutex m;
  ptc::coop::CondVar cv;
  std::cv_status status = std::cv_status::no_timeout;
  Clock::time_point until, returned;
  bool held = false;
  run_lane(lane, {[&] {
             std::unique_lock lock(m);
             until = Clock::now() + 20ms;
             status = cv.wait_until(lock, until);
             returned = Clock::now();
             held = lock.owns_lock();
           }});
  EXPECT_EQ(status, std::cv_status::timeout);
  EXPECT_GE(returned, until);
  EXPECT_TRUE(held);
}

TEST(CoopCondVar, WaitUntilOnAThreadTimesOutWhenNobodyNotifies) {
  HangGuard guard;
  std::mutex m;
  ptc::coop::CondVar cv;
  std::unique_lock lock(m);
  auto until = Clock::now() + 20ms;
  EXPECT_EQ(cv.wait_until(lock, until), std::cv_status::timeout);
  EXPECT_GE(Clock::now(), until);
  EXPECT_FALSE(cv.wait_until(lock, Clock::now() + 5ms, [] { return false; }));
  EXPECT_EQ(cv.wait_for(lock, 5ms), std::cv_status::timeout);
}

TEST(CoopCondVar, NotifyAllWakesEveryWaitingFiber) {
  HangGuard guard;
  Lane lane;
  std::mutex m;
  ptc::coop::CondVar cv;
  int waiting = 0;
  bool flag = false;
  std::vector<std::cv_status> statuses;
  std::vector<std::function<void()>> bodies;
  for (int i = 0; i < 3; ++i)
    bodies.push_back([&] {
      std::unique_lock lock(m);
      ++waiting;
      // One wait each, no loop: only a notify_all reaching all three ends
      // every wait before its deadline.
      statuses.push_back(cv.wait_until(lock, Clock::now() + 10s));
      EXPECT_TRUE(flag);
    });
  int waiting_when_notified = -1;
  bodies.push_back([&] {
    {
      std::lock_guard lock(m);
      waiting_when_notified = waiting;
      flag = true;
    }
    cv.notify_all();
  });
  run_lane(lane, std::move(bodies));
  EXPECT_EQ(waiting_when_notified, 3);
  EXPECT_EQ(statuses, (std::vector<std::cv_status>(3, std::cv_status::no_timeout)));
}

TEST(CoopCondVar, NotifyAllWakesFibersAndThreadsAlike) {
  HangGuard guard;
  std::mutex m;
  ptc::coop::CondVar cv;
  bool flag = false;
  std::atomic<int> woke{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&] {
      std::unique_lock lock(m);
      if (cv.wait_until(lock, Clock::now() + 20s, [&] { return flag; })) ++woke;
    });
  std::thread lane_thread([&] {
    Lane lane;
    std::vector<std::function<void()>> bodies;
    for (int i = 0; i < 2; ++i)
      bodies.push_back([&] {
        std::unique_lock lock(m);
        if (cv.wait_until(lock, Clock::now() + 20s, [&] { return flag; })) ++woke;
      });
    run_lane(lane, std::move(bodies));
  });
  std::this_thread::sleep_for(20ms);
  {
    std::lock_guard lock(m);
    flag = true;
  }
  cv.notify_all();
  for (auto& t : threads)
    t.join();
  lane_thread.join();
  EXPECT_EQ(woke.load(), 4);
}

// ================================================================ coop::run_blocking

TEST(CoopRunBlocking, OnALaneRunsOnAnotherThread) {
  HangGuard guard;
  Lane lane;
  auto lane_thread = std::this_thread::get_id();
  std::thread::id fn_thread = lane_thread;
  bool on_lane_inside = true;
  bool on_lane_after = false;
  run_lane(lane, {[&] {
             ptc::coop::run_blocking([&] {
               fn_thread = std::this_thread::get_id();
               on_lane_inside = ptc::coop::on_lane();
             });
             on_lane_after = ptc::coop::on_lane();
             EXPECT_EQ(std::this_thread::get_id(), lane_thread);
           }});
  EXPECT_NE(fn_thread, lane_thread);
  EXPECT_FALSE(on_lane_inside);
  EXPECT_TRUE(on_lane_after);
}

TEST(CoopRunBlocking, OtherFibersOfTheLaneRunWhileFnBlocks) {
  HangGuard guard;
  Lane lane;
  std::promise<int> promise;
  std::future<int> future = promise.get_future();
  bool ready_in_time = false;
  int value = 0;
  run_lane(lane, {[&] {
                    ptc::coop::run_blocking([&] {
                      // Fulfilled by the lane's other fiber: only if this wait
                      // left the lane free to run it.
                      ready_in_time = future.wait_for(20s) == std::future_status::ready;
                      if (ready_in_time) value = future.get();
                    });
                  },
                  [&] { promise.set_value(42); }});
  EXPECT_TRUE(ready_in_time) << "run_blocking blocked the lane";
  EXPECT_EQ(value, 42);
}

TEST(CoopRunBlocking, ExceptionFromFnIsRethrown) {
  HangGuard guard;
  Lane lane;
  std::string caught;
  bool ran_after = false;
  run_lane(lane, {[&] {
             try {
               ptc::coop::run_blocking([] { throw std::runtime_error("from the pool"); });
             } catch (const std::runtime_error& e) {
               caught = e.what();
             }
             ran_after = true;
           }});
  EXPECT_EQ(caught, "from the pool");
  EXPECT_TRUE(ran_after);
}

TEST(CoopRunBlocking, OffALaneRunsOnTheCallingThread) {
  HangGuard guard;
  std::thread::id fn_thread;
  ptc::coop::run_blocking([&] { fn_thread = std::this_thread::get_id(); });
  EXPECT_EQ(fn_thread, std::this_thread::get_id());
  EXPECT_THROW(ptc::coop::run_blocking([] { throw std::out_of_range("here"); }), std::out_of_range);
  // Inside a fiber but not on a lane: also here.
  Fiber f([&] { ptc::coop::run_blocking([&] { fn_thread = std::this_thread::get_id(); }); });
  fn_thread = {};
  f.resume();
  EXPECT_EQ(fn_thread, std::this_thread::get_id());
}

TEST(CoopRunBlocking, ManyFibersBlockAtOnce) {
  HangGuard guard;
  // Four fibers each block on a pool thread until all four are blocked: only
  // possible when each blocking call runs on a thread of its own.
  Lane lane;
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  int all_arrived = 0;
  std::vector<std::function<void()>> bodies;
  for (int i = 0; i < 4; ++i)
    bodies.push_back([&] {
      ptc::coop::run_blocking([&] {
        std::unique_lock lock(m);
        ++arrived;
        cv.notify_all();
        if (cv.wait_for(lock, 20s, [&] { return arrived == 4; })) ++all_arrived;
      });
    });
  run_lane(lane, std::move(bodies));
  EXPECT_EQ(all_arrived, 4);
}

// ================================================================ through ptc::run

// A host tool that sleeps and records how many calls ran at once.
struct ConcurrencyProbe {
  std::atomic<int> in_flight{0};
  std::atomic<int> peak{0};
  std::mutex mutex;
  std::set<std::thread::id> threads;

  ptc::Tool tool(std::chrono::milliseconds sleep) {
    return {[this, sleep](const H& args) {
              int now = ++in_flight;
              int seen = peak.load();
              while (now > seen && !peak.compare_exchange_weak(seen, now)) {}
              {
                std::lock_guard lock(mutex);
                threads.insert(std::this_thread::get_id());
              }
              std::this_thread::sleep_for(sleep);
              --in_flight;
              const H* x = args.get("x");
              return ToolResult::success(x ? *x : H::nil());
            },
            false};
  }
};

TEST(ParallelLanes, HostToolsRunAsManyAtOnceAsTheConcurrency) {
  HangGuard guard;
  ConcurrencyProbe probe;
  RunOptions o;
  o.limits.timeout_ms = 20000;
  o.limits.pmap_timeout_ms = 20000;
  o.limits.pmap_max_concurrency = 4;
  o.tools["slow"] = probe.tool(40ms);
  Step s = ptc::run("(pmap (fn [x] (tool/slow {:x x})) (range 8))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[0 1 2 3 4 5 6 7]");
  EXPECT_EQ(s.tool_calls.size(), 8u);
  EXPECT_EQ(probe.peak.load(), 4);
  // Branches share the calling thread's lane; blocking tools run elsewhere.
  EXPECT_EQ(probe.threads.count(std::this_thread::get_id()), 0u);
}

TEST(ParallelLanes, ConcurrencyOneRunsHostToolsOneAtATime) {
  HangGuard guard;
  ConcurrencyProbe probe;
  RunOptions o;
  o.limits.timeout_ms = 20000;
  o.limits.pmap_timeout_ms = 20000;
  o.limits.pmap_max_concurrency = 1;
  o.tools["slow"] = probe.tool(30ms);
  Step s = ptc::run("(pmap (fn [x] (tool/slow {:x x})) (range 8))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[0 1 2 3 4 5 6 7]");
  EXPECT_EQ(probe.peak.load(), 1);
}

TEST(ParallelLanes, BlockingHostToolsAllInFlightAtOnce) {
  HangGuard guard;
  // A barrier: each call waits until all four are in. Branches sharing one
  // lane would deadlock here if a host tool held the lane's thread.
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  RunOptions o;
  o.limits.timeout_ms = 30000;
  o.limits.pmap_timeout_ms = 30000;
  o.limits.pmap_max_concurrency = 4;
  o.tools["barrier"] = {[&](const H& args) {
                          std::unique_lock lock(m);
                          ++arrived;
                          cv.notify_all();
                          if (!cv.wait_for(lock, 20s, [&] { return arrived >= 4; }))
                            return ToolResult::failure("not all four calls were in flight");
                          return ToolResult::success(*args.get("x"));
                        },
                        false};
  Step s = ptc::run("(pmap (fn [x] (tool/barrier {:x x})) (range 4))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[0 1 2 3]");
}

TEST(ParallelLanes, CooperativeToolWaitsLetOtherBranchesRun) {
  HangGuard guard;
  // A cooperative tool waits through coop::CondVar: on a lane that parks the
  // branch, so all four calls can meet even on one thread.
  std::mutex m;
  ptc::coop::CondVar cv;
  int arrived = 0;
  std::atomic<int> on_lane{0};
  std::atomic<int> saw_call_context{0};
  RunOptions o;
  o.limits.timeout_ms = 30000;
  o.limits.pmap_timeout_ms = 30000;
  o.limits.pmap_max_concurrency = 4;
  o.tools["meet"] = {[&](const H& args) {
                       if (ptc::coop::on_lane()) ++on_lane;
                       const ptc::ToolCallContext* self = ptc::current_tool_call();
                       std::unique_lock lock(m);
                       ++arrived;
                       cv.notify_all();
                       if (!cv.wait_until(lock, Clock::now() + 20s, [&] { return arrived >= 4; }))
                         return ToolResult::failure("not all four calls met");
                       // Still this call's context after the other branches ran.
                       if (self && ptc::current_tool_call() == self) ++saw_call_context;
                       return ToolResult::success(*args.get("x"));
                     },
                     false, true};
  Step s = ptc::run("(pmap (fn [x] (tool/meet {:x x})) (range 4))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[0 1 2 3]");
  EXPECT_EQ(on_lane.load(), 4);
  EXPECT_EQ(saw_call_context.load(), 4);
}

TEST(ParallelLanes, HostToolsSeeTheirCallContextOnThePoolThread) {
  HangGuard guard;
  std::atomic<int> with_context{0};
  RunOptions o;
  o.limits.timeout_ms = 20000;
  o.limits.pmap_timeout_ms = 20000;
  o.limits.pmap_max_concurrency = 4;
  o.tools["probe"] = {[&](const H&) {
                        const ptc::ToolCallContext* call = ptc::current_tool_call();
                        if (call && !call->cancelled() && call->deadline() > Clock::now())
                          ++with_context;
                        std::this_thread::sleep_for(5ms);
                        return ToolResult::success(H::nil());
                      },
                      false};
  Step s = ptc::run("(count (pmap (fn [x] (tool/probe {})) (range 8)))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(with_context.load(), 8);
  EXPECT_EQ(ptc::current_tool_call(), nullptr);
}

TEST(ParallelLanes, CancellingTheRunReachesBlockingToolsOnPoolThreads) {
  HangGuard guard;
  std::atomic<bool> cancel{false};
  std::atomic<int> started{0}, saw_cancel{0};
  RunOptions o;
  o.cancel = &cancel;
  o.limits.timeout_ms = 30000;
  o.limits.pmap_timeout_ms = 30000;
  o.limits.pmap_max_concurrency = 4;
  o.tools["wait"] = {[&](const H&) {
                       ++started;
                       const ptc::ToolCallContext* call = ptc::current_tool_call();
                       auto give_up = Clock::now() + 20s;
                       while (call && Clock::now() < give_up) {
                         if (call->cancelled()) {
                           ++saw_cancel;
                           break;
                         }
                         std::this_thread::sleep_for(1ms);
                       }
                       return ToolResult::success(H::nil());
                     },
                     false};
  std::thread canceller([&] {
    while (started.load() < 4)
      std::this_thread::sleep_for(1ms);
    cancel = true;
  });
  Step s = ptc::run("(pmap (fn [x] (tool/wait {})) (range 4))", o);
  canceller.join();
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::Cancelled) << s.error.describe();
  EXPECT_EQ(saw_cancel.load(), 4);
}

// One branch waits for a host tool (run_blocking parks it on a condition
// variable: no descriptors), the other polls a pipe in a cooperative tool, as
// an upstream MCP client does. The poller must see its pipe while the host
// tool still waits (here: for the poller).
TEST(ParallelLanes, CooperativePollIsSeenWhileAnotherBranchWaitsForAHostTool) {
  HangGuard guard;
  Pipe pipe;
  std::atomic<bool> polling{false}, read_done{false};
  std::thread writer([&] {
    while (!polling.load())
      std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(10ms);
    pipe.put('r');
  });
  RunOptions o;
  o.limits.timeout_ms = 30000;
  o.limits.pmap_timeout_ms = 30000;
  o.limits.pmap_max_concurrency = 2;
  o.tools["hold"] = {[&](const H&) {
                       auto give_up = Clock::now() + 3s;
                       while (!read_done.load() && Clock::now() < give_up)
                         std::this_thread::sleep_for(1ms);
                       return ToolResult::success(H::boolean(read_done.load()));
                     },
                     false};
  o.tools["read"] = {[&](const H&) {
                       pollfd pfd{pipe.read_end(), POLLIN, 0};
                       polling = true;
                       int n = ptc::coop::poll(&pfd, 1, 20000);
                       char c = pipe.take();
                       read_done = true;
                       return ToolResult::success(H::string(std::to_string(n) + c));
                     },
                     false, true};
  Step s = ptc::run("(pmap (fn [x] (if (= x 0) (tool/hold {}) (tool/read {}))) [0 1])", o);
  writer.join();
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[true \"1r\"]")
      << "the cooperative poll was only seen once the host tool gave up";
}

TEST(ParallelLanes, NativeRecursionInABranchFailsCleanly) {
  HangGuard guard;
  RunOptions o;
  o.limits.timeout_ms = 10000 * ptc::testing::kSlowdown;
  o.limits.pmap_timeout_ms = o.limits.timeout_ms;
  o.limits.pmap_max_concurrency = 4;
  // Each level re-enters the VM from `map`: only the native stack guard
  // (the fiber's own limit) stops it.
  Step s = ptc::run("(defn f [x] (map f [x])) (pmap (fn [_] (f 1)) [1 2])", o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::CallDepthExceeded) << s.error.describe();
  s = ptc::run("(defn g [x] (reduce (fn [a b] (g b)) 0 [x])) (pmap (fn [_] (g 1)) (range 3))", o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::CallDepthExceeded) << s.error.describe();
}

TEST(ParallelLanes, DeeplyNestedDataInABranchIsPrintedOrRefusedButNeverCrashes) {
  HangGuard guard;
  RunOptions o;
  o.limits.max_heap_bytes = 64 << 20;
  o.limits.timeout_ms = 10000 * ptc::testing::kSlowdown;
  o.limits.pmap_timeout_ms = o.limits.timeout_ms;
  o.limits.pmap_max_concurrency = 4;
  Step s = ptc::run(
      "(pmap (fn [_] (let [v (reduce (fn [acc _] [acc]) [] (range 100000))] "
      "(count (str v)))) [1 2])",
      o);
  EXPECT_TRUE(s.ok || s.error.kind == ErrorKind::CallDepthExceeded) << s.error.describe();
  s = ptc::run(
      "(pmap (fn [_] (let [v (reduce (fn [acc _] [acc]) [] (range 100000))] (= v v))) [1 2])", o);
  EXPECT_TRUE(s.ok || s.error.kind == ErrorKind::CallDepthExceeded) << s.error.describe();
}

TEST(ParallelLanes, ModerateNativeRecursionInABranchWorks) {
  HangGuard guard;
  // Recursion through builtins a hundred levels deep fits any stack: the
  // fiber's limit must not refuse it (as a limit of another stack would).
  RunOptions o;
  o.limits.timeout_ms = 10000;
  o.limits.pmap_timeout_ms = 10000;
  o.limits.pmap_max_concurrency = 4;
  Step s = ptc::run(
      "(defn d [n] (if (= n 0) 0 (inc (first (map d [(dec n)]))))) "
      "(pmap (fn [n] (d n)) [100 50 10])",
      o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[100 50 10]");
  Step t = ptc::run(
      "(pmap (fn [_] (let [v (reduce (fn [acc _] [acc]) [] (range 100))] (count (str v)))) [1 2])",
      o);
  ASSERT_TRUE(t.ok) << t.error.describe();
  EXPECT_EQ(t.printed, "[202 202]");
}

TEST(ParallelLanes, ResultsKeepBranchOrderWhateverOrderToolsFinish) {
  HangGuard guard;
  RunOptions o;
  o.limits.timeout_ms = 20000;
  o.limits.pmap_timeout_ms = 20000;
  o.limits.pmap_max_concurrency = 4;
  // Later branches answer sooner.
  o.tools["square"] = {[](const H& args) {
                         int64_t x = args.get("x")->as_int();
                         std::this_thread::sleep_for(std::chrono::milliseconds(5 * (8 - x)));
                         return ToolResult::success(H::integer(x * x));
                       },
                       false};
  Step s = ptc::run("(pmap (fn [x] (println x) (tool/square {:x x})) (range 8))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[0 1 4 9 16 25 36 49]");
  EXPECT_EQ(s.prints, (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7"}));
  ASSERT_EQ(s.pmap_calls.size(), 1u);
  EXPECT_EQ(s.pmap_calls[0].success_count, 8u);
}

TEST(ParallelLanes, AFailingBranchIsReported) {
  HangGuard guard;
  RunOptions o;
  o.limits.timeout_ms = 20000;
  o.limits.pmap_timeout_ms = 20000;
  o.limits.pmap_max_concurrency = 4;
  o.tools["slow"] = {[](const H& args) {
                       std::this_thread::sleep_for(10ms);
                       return ToolResult::success(*args.get("x"));
                     },
                     false};
  o.tools["broken"] = {[](const H&) { return ToolResult::failure("the disk is on fire"); }, false};
  Step s = ptc::run("(pmap (fn [x] (if (= x 5) (fail \"five\") (tool/slow {:x x}))) (range 8))", o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::Fail) << s.error.describe();
  EXPECT_EQ(s.error.message, "five");

  s = ptc::run("(pmap (fn [x] (if (= x 2) (tool/broken {}) (tool/slow {:x x}))) (range 8))", o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::ToolError) << s.error.describe();
  EXPECT_NE(s.error.message.find("the disk is on fire"), std::string::npos) << s.error.message;

  s = ptc::run("(pmap (fn [x] (/ 10 (- x 3))) (range 8))", o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::ArithmeticError) << s.error.describe();
}

TEST(ParallelLanes, NestedPmapInsideABranchCompletes) {
  HangGuard guard;
  ConcurrencyProbe probe;
  RunOptions o;
  o.limits.timeout_ms = 20000;
  o.limits.pmap_timeout_ms = 20000;
  o.limits.pmap_max_concurrency = 3;
  o.limits.max_parallel_workers = 16;
  o.tools["slow"] = probe.tool(10ms);
  Step s = ptc::run(
      "(pmap (fn [i] (reduce + (pmap (fn [j] (tool/slow {:x (+ (* 10 i) j)})) (range 3)))) "
      "(range 3))",
      o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[3 33 63]");
  EXPECT_EQ(s.tool_calls.size(), 9u);
}

// Runs `program` at concurrency 4 with tool/where, a cooperative tool (so it
// runs on its branch's own thread) that records that thread; returns the step
// and the threads the branches ran on.
std::pair<Step, std::set<std::thread::id>> run_recording_threads(const char* program) {
  std::mutex m;
  std::set<std::thread::id> threads;
  RunOptions o;
  o.limits.timeout_ms = 30000;
  o.limits.pmap_timeout_ms = 30000;
  o.limits.pmap_max_concurrency = 4;
  o.tools["where"] = {[&](const H&) {
                        std::lock_guard lock(m);
                        threads.insert(std::this_thread::get_id());
                        return ToolResult::success(H::nil());
                      },
                      false, true};
  Step s = ptc::run(program, o);
  return {std::move(s), threads};
}

TEST(ParallelLanes, ComputeBoundBranchesSpreadOverThreads) {
  HangGuard guard;
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread";
  // After a long computation without waiting, some branches must be on
  // another lane.
  auto [s, threads] = run_recording_threads(
      "(pmap (fn [i] (let [n (reduce + (map (fn [k] (mod (* k k) 7)) (range 200000)))] "
      "(tool/where {}) n)) (range 4))");
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_GE(threads.size(), 2u);
}

TEST(ParallelLanes, ManyShortComputeBoundBranchesSpreadOverThreads) {
  HangGuard guard;
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread";
  // No branch computes for long, but the lane never sleeps between them: it
  // is busy, so branches must go to another lane too.
  auto [s, threads] = run_recording_threads(
      "(count (pmap (fn [i] (let [n (reduce + (range 300))] (tool/where {}) n)) (range 3000)))");
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "3000");
  EXPECT_GE(threads.size(), 2u);
}

}  // namespace
