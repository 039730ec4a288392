// The cooperative waits (scheduler/cooperative.hpp): coop::CondVar between
// fibers and threads, and coop::run_blocking off the lane.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "helpers.hpp"
#include "scheduler/cooperative.hpp"
#include "scheduler/fiber.hpp"
#include "scheduler/lane.hpp"

namespace {

using namespace ptc::testing;  // HangGuard, run_lane, Clock, the chrono literals
using ptc::Fiber;
using ptc::Lane;

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

}  // namespace
