// Lanes (scheduler/lane.hpp): many fibers on one thread, parked until a
// deadline, a wake or a ready descriptor (coop::poll).
#include <poll.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "helpers.hpp"
#include "scheduler/cooperative.hpp"
#include "scheduler/fiber.hpp"
#include "scheduler/lane.hpp"

namespace {

using namespace ptc::testing;  // HangGuard, run_lane, Pipe, Clock, the chrono literals
using ptc::Fiber;
using ptc::Lane;

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

}  // namespace
