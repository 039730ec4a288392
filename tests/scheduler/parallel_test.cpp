// Parallel branches (scheduler/parallel.cpp) through ptc::run: pmap branches
// as fibers on lanes, host tools on the worker pool, failures and order.
#include <poll.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "include/ptc/ptc.hpp"
#include "scheduler/cooperative.hpp"
#include "support/build_info.hpp"

namespace {

using namespace ptc::testing;  // HangGuard, Pipe, Clock, the chrono literals
using ptc::ErrorKind;
using ptc::RunOptions;
using ptc::Step;
using ptc::ToolResult;
using H = ptc::HostValue;

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
