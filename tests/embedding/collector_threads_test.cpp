// Collections and threads (run under TSan too, -DPTC_TSAN=ON): executions
// collected as they park while other threads run programs and parallel
// branches, each branch's heap collected on its own thread, and results
// copied into the calling run.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace {

using ptc::Execution;
using ptc::RunOptions;
using ptc::ToolResult;

// Allocates about 4 MB and keeps almost none of it before it waits, keeps a
// small vector across the wait, and makes more garbage after.
constexpr const char* kParks =
    "(let [junk (reduce (fn [acc i] (+ acc (count (str \"row-\" i (vec (range 8)))))) 0"
    "                   (range 20000))"
    "      kept (vec (range 50))"
    "      answer (tool/wait {:n junk})]"
    "  (+ (:v answer) (reduce + kept)"
    "     (reduce (fn [acc i] (+ acc (count (vec (range i))))) 0 (range 200))))";

TEST(CollectorThreads, ParkedExecutionsAreCollectedWhileOtherThreadsRun) {
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  // Other threads keep running garbage-heavy programs and pmaps meanwhile.
  std::vector<std::thread> busy;
  for (int t = 0; t < 2; ++t)
    busy.emplace_back([&] {
      RunOptions o;
      o.limits.timeout_ms = 20000;
      while (!stop.load()) {
        ptc::Step s = ptc::run(
            "(count (pmap (fn [i] (reduce (fn [acc j] (+ acc (count (vec (range j))))) 0 (range "
            "150)))"
            " (range 6)))",
            o);
        if (!s.ok || s.printed != "6") failures.fetch_add(1);
      }
    });
  std::vector<std::thread> hosts;
  for (int t = 0; t < 3; ++t)
    hosts.emplace_back([&] {
      RunOptions o;
      o.deferred_tools = {"wait"};
      o.limits.timeout_ms = 20000;
      for (int round = 0; round < 4; ++round) {
        Execution e = ptc::start(kParks, o);
        if (e.done() || e.pending().size() != 1) {
          failures.fetch_add(1);
          continue;
        }
        // Collected as it parked: it holds far less than it allocated.
        if (e.heap_bytes() > (size_t{2} << 20)) failures.fetch_add(1);
        e.resume({{e.pending()[0].id, ToolResult::success(ptc::parse_json(R"({"v": 1000000})"))}});
        if (!e.done() || !e.step().ok || e.step().printed != "1021125") failures.fetch_add(1);
        if (e.step().usage.collections < 1) failures.fetch_add(1);
      }
    });
  for (auto& h : hosts)
    h.join();
  stop.store(true);
  for (auto& b : busy)
    b.join();
  EXPECT_EQ(failures.load(), 0);
}

// Every branch allocates far more than its 1 MB heap cap (7 MB each) and
// returns data and functions, which are copied into the calling run.
TEST(CollectorThreads, BranchHeapsCollectOnTheirOwnAndResultsAreCopiedIn) {
  RunOptions o;
  o.limits.worker_max_heap_bytes = 1 << 20;
  o.limits.pmap_max_concurrency = 4;
  o.limits.timeout_ms = 20000;
  o.limits.pmap_timeout_ms = 20000;
  ptc::Step s = ptc::run(
      "(let [rs (pmap (fn [i]"
      "                 (let [n (reduce (fn [acc j] (+ acc (count (str \"x\" j (vec (range 20))))))"
      "                                 0 (range 20000))]"
      "                   {:i i :n n :f (fn [x] (+ x i)) :re #\"a+\" :v [i (str i)]}))"
      "               (range 8))]"
      "  [(reduce + (map :n rs)) (map (fn [r] ((:f r) 100)) rs) (re-find (:re (first rs)) \"baa\")"
      "   (:v (last rs))])",
      o);
  ASSERT_TRUE(s.ok) << ptc::format_error(s.error);
  EXPECT_EQ(s.printed, "[9031120 [100 101 102 103 104 105 106 107] \"aa\" [7 \"7\"]]");
}

// A parked execution's part and the calling run: the pmap inside an
// execution waits for its branches, which park for the host; each part is
// collected and the results arrive whole.
TEST(CollectorThreads, BranchesThatParkInAnExecution) {
  RunOptions o;
  o.deferred_tools = {"get"};
  o.limits.timeout_ms = 20000;
  o.limits.pmap_timeout_ms = 20000;
  Execution e = ptc::start(
      "(pmap (fn [i] (let [junk (reduce (fn [acc j] (+ acc (count (vec (range j))))) 0 (range 300))"
      "                    r (tool/get {:i i})]"
      "                [(:v r) (str \"branch-\" i) junk]))"
      "      (range 3))",
      o);
  ASSERT_FALSE(e.done());
  ptc::Answers answers;
  for (const ptc::PendingCall& c : e.pending())
    answers.emplace(c.id, ToolResult::success(ptc::parse_json(
                              R"({"v": )" + std::to_string(c.args.get("i")->as_int() * 10) + "}")));
  e.resume(std::move(answers));
  ASSERT_TRUE(e.done());
  ASSERT_TRUE(e.step().ok) << ptc::format_error(e.step().error);
  EXPECT_EQ(e.step().printed,
            "[[0 \"branch-0\" 44850] [10 \"branch-1\" 44850] [20 \"branch-2\" 44850]]");
}

}  // namespace
