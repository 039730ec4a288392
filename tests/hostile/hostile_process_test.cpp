// Hostile programs, each in a process of its own (ptc_hostile_probe), so that
// the process's peak RSS can be held to the bound a host plans for:
//   max_heap + max_parallel_workers x worker_max_heap + 64 MB,
// and the time to the bound of the limit that stops it: timeout (or
// compile_timeout) + 100 ms. Runaway shapes run under an address-space cap
// so that a regression fails here instead of exhausting the machine.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "runtime/unique_fd.hpp"
#include "support/build_info.hpp"

extern char** environ;

namespace {

using ptc::HostValue;

constexpr double kMB = 1024.0 * 1024.0;
// Allowed lateness past a limit's deadline; sanitized code runs slower.
// Sanitized builds get twice their usual slowdown: with a malloc per object,
// winding down a hundred thousand parallel branches is itself slow there.
constexpr double kLateMs = 100.0 * ptc::testing::kSlowdown * (ptc::testing::kSanitized ? 2 : 1);

struct ProbeResult {
  bool ok = false;
  std::string reason, message;
  double ms = 0;
  double peak_rss_mb = 0;
  bool after_ok = false;
  bool as_capped = false;
  int exit_status = -1;
  std::string raw;
};

// Runs the probe on `program` with `args`; kills it after `kill_after_s`.
ProbeResult probe(const std::string& program, const std::vector<std::string>& args,
                  int kill_after_s = 60) {
  static int counter = 0;
  auto file = std::filesystem::temp_directory_path() / ("ptc_hostile_" + std::to_string(getpid()) +
                                                        "_" + std::to_string(counter++) + ".clj");
  std::ofstream(file, std::ios::binary) << program;

  std::vector<std::string> argv_s{PTC_HOSTILE_PROBE, file.string()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s)
    argv.push_back(s.data());
  argv.push_back(nullptr);

  ptc::PipeEnds out = ptc::open_pipe(0);
  EXPECT_TRUE(out.read_end);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.write_end.get(), 1);
  posix_spawn_file_actions_addclose(&actions, out.read_end.get());
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  out.write_end.reset();  // the child's: its exit ends our reads
  ProbeResult r;
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << argv[0];
    return r;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kill_after_s);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      ADD_FAILURE() << "the probe did not finish within " << kill_after_s << " s";
      break;
    }
    pollfd p{out.read_end.get(), POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    ssize_t n = read(out.read_end.get(), buf, sizeof buf);
    if (n <= 0) break;
    r.raw.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::filesystem::remove(file);
  if (r.exit_status != 0 || r.raw.empty()) return r;
  HostValue rep = ptc::parse_json(r.raw);
  r.ok = rep.get("ok")->as_bool();
  r.reason = rep.get("reason")->text();
  r.message = rep.get("message")->text();
  r.ms = rep.get("ms")->as_float();
  r.peak_rss_mb = static_cast<double>(rep.get("peak_rss_kb")->as_int()) / 1024.0;
  r.after_ok = rep.get("after_ok")->as_bool();
  r.as_capped = rep.get("as_capped")->as_bool();
  return r;
}

std::string repeat_join(size_t n, const std::function<std::string(size_t)>& item) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ' ';
    s += item(i);
  }
  return s;
}

struct Case {
  const char* name;
  std::function<std::string()> program;
  std::vector<std::string> args;
  std::set<std::string> outcomes;  // reasons the run may end with; "" = success
  double deadline_ms;              // the limit that must stop it (timeout or compile_timeout)
  double heap_mb, workers, worker_heap_mb;  // for the RSS bound
};

const ptc::Limits kDefaults;
const double kDefaultHeapMb = static_cast<double>(kDefaults.max_heap_bytes) / kMB;
constexpr const char* kRunawayCap = "3221225472";  // 3 GiB of address space

std::vector<Case> cases() {
  double heap = kDefaultHeapMb, workers = kDefaults.max_parallel_workers;
  std::string fib = "(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))";
  std::string mb_string = "(def s (apply str (repeat 1000 (apply str (repeat 1000 \"x\")))))";
  return {
      // Analysis of literals is linear: these finish far inside compile_timeout.
      {"SetLiteralOfAHundredThousandIntegers",
       [] {
         return "(count #{" + repeat_join(100000, [](size_t i) { return std::to_string(i); }) +
                "})";
       },
       {"--compile-timeout", std::to_string(300 * ptc::testing::kSlowdown)},
       {""},
       300,
       heap,
       0,
       0},
      {"MapLiteralOfSixtyThousandKeys",
       [] {
         return "(count {" +
                repeat_join(60000, [](size_t i) { return "\"k" + std::to_string(i) + "\" 1"; }) +
                "})";
       },
       {"--compile-timeout", std::to_string(300 * ptc::testing::kSlowdown)},
       {""},
       300,
       heap,
       0,
       0},
      {"NestedLiteralsWithAVariableAtTheBottom",
       [] {
         std::string inner = "[" + repeat_join(50000, [](size_t i) { return std::to_string(i); });
         std::string s = "(let [x 1] ";
         for (int d = 0; d < 400; ++d)
           s += "[";
         s += inner + " x]";
         for (int d = 0; d < 400; ++d)
           s += " x]";
         return s + " 1)";
       },
       {"--compile-timeout", std::to_string(300 * ptc::testing::kSlowdown)},
       {""},
       300,
       heap,
       0,
       0},
      {"ThirtyThousandLocals",
       [] {
         return "(let [" +
                repeat_join(
                    30000,
                    [](size_t i) { return "a" + std::to_string(i) + " " + std::to_string(i); }) +
                "] ((fn [] (+ " +
                repeat_join(30000, [](size_t i) { return "a" + std::to_string(i); }) + "))))";
       },
       {"--compile-timeout", std::to_string(300 * ptc::testing::kSlowdown)},
       {""},
       300,
       heap,
       0,
       0},
      {"SixtyThousandContextKeys",
       [] {
         return "(count [" +
                repeat_join(60000, [](size_t i) { return "data/k" + std::to_string(i); }) + "])";
       },
       {"--compile-timeout", std::to_string(300 * ptc::testing::kSlowdown)},
       {""},
       300,
       heap,
       0,
       0},
      {"LongSimilarUnknownNames",
       [] {
         std::string a(400000, 'a'), b = a;
         b.back() = 'b';
         return "(def " + a + " 1) " + b;
       },
       {"--compile-timeout", std::to_string(300 * ptc::testing::kSlowdown)},
       {"unbound_var"},
       300,
       heap,
       0,
       0},

      // Parallel branches share the run's deadline and hold only live heaps.
      {"HundredThousandShortBranches",
       [fib] { return fib + " (count (pmap (fn [_] (fib 22)) (range 100000)))"; },
       {"--as-limit", kRunawayCap},
       {"timeout"},
       1000,
       heap,
       workers,
       heap},
      {"PcallsOfManyBranches",
       [fib] { return fib + " (count (apply pcalls (repeat 20000 (fn [] (fib 22)))))"; },
       {"--as-limit", kRunawayCap},
       {"timeout"},
       1000,
       heap,
       workers,
       heap},
      {"BranchesThatEachBuildAHalfMillionVector",
       [] { return "(count (pmap (fn [_] (count (vec (range 500000)))) (range 1024)))"; },
       {"--as-limit", kRunawayCap},
       {"", "timeout"},
       1000,
       heap,
       workers,
       heap},
      {"NestedPmapOfBigVectors",
       [] {
         return "(count (pmap (fn [_] (count (pmap (fn [_] (count (vec (range 300000)))) "
                "(range 64)))) (range 64)))";
       },
       {"--as-limit", kRunawayCap},
       {"", "timeout", "parallel_capacity_exceeded"},
       1000,
       heap,
       workers,
       heap},
      {"NestedPmapWithRoomForTheInnerLevel",
       [] {
         return "(count (pmap (fn [_] (count (pmap (fn [_] (count (vec (range 300000)))) "
                "(range 64)))) (range 64)))";
       },
       {"--max-parallel-workers", "16", "--as-limit", kRunawayCap},
       {"", "timeout", "parallel_capacity_exceeded"},
       1000,
       heap,
       16,
       heap},
      {"BranchesPrintingTwoKilobytes",
       [] {
         return "(count (pmap (fn [i] (println (apply str (repeat 2000 \"x\"))) i) (range "
                "100000)))";
       },
       {"--as-limit", kRunawayCap},
       {"memory_limit", "timeout"},
       1000,
       heap,
       workers,
       heap},
      {"BranchResultsOfAMegabyteEach",
       [] {
         return "(count (pmap (fn [i] (apply str (repeat 1000 (apply str (repeat 1000 \"y\"))))) "
                "(range "
                "1000)))";
       },
       {"--as-limit", kRunawayCap},
       {"memory_limit", "timeout"},
       1000,
       heap,
       workers,
       heap},

      // One long native operation: printing an integer of ~40 million digits
      // (the heap raised to 100 MB) is refused before it starts.
      {"PrintingAHugeInteger",
       [] { return "(count (str (reduce * (repeat 4500000 99999999))))"; },
       {"--max-heap", "104857600", "--as-limit", kRunawayCap},
       {"memory_limit", "timeout"},
       1000,
       100,
       0,
       0},

      // The tool ledger and the tool results are charged to the run.
      {"HundredThousandCallsWithAMegabyteArgument",
       [mb_string] { return mb_string + " (dotimes [i 100000] (tool/sink {:s s :i i}))"; },
       {"--as-limit", kRunawayCap},
       {"memory_limit", "timeout"},
       1000,
       heap,
       0,
       0},
      {"PmapOfCallsWithAMegabyteArgument",
       [mb_string] {
         return mb_string + " (count (pmap (fn [i] (tool/sink {:s s :i i})) (range 20000)))";
       },
       {"--as-limit", kRunawayCap},
       {"memory_limit", "timeout"},
       1000,
       heap,
       workers,
       heap},
      {"HundredThousandMegabyteResults",
       [] { return "(dotimes [i 100000] (count (tool/blob {:n 1000000 :i i})))"; },
       {"--as-limit", kRunawayCap},
       {"memory_limit", "timeout"},
       1000,
       heap,
       0,
       0},
      {"PmapOfMegabyteResults",
       [] { return "(count (pmap (fn [i] (count (tool/blob {:n 1000000 :i i}))) (range 20000)))"; },
       {"--as-limit", kRunawayCap},
       {"memory_limit", "timeout"},
       1000,
       heap,
       workers,
       heap},
  };
}

class HostileProcess : public ::testing::TestWithParam<Case> {};

TEST_P(HostileProcess, EndsInItsLimitWithinTheBounds) {
  const Case& c = GetParam();
  ProbeResult r = probe(c.program(), c.args);
  ASSERT_EQ(r.exit_status, 0) << r.raw;
  std::string outcome = r.ok ? "" : r.reason;
  EXPECT_TRUE(c.outcomes.count(outcome)) << "ended with \"" << outcome << "\": " << r.message;
  EXPECT_LE(r.ms, c.deadline_ms + kLateMs) << r.message;
  EXPECT_TRUE(r.after_ok) << "the next run in the process failed";
  double bound = c.heap_mb + c.workers * c.worker_heap_mb + 64;
  if (!ptc::testing::kSanitized) {  // the sanitizers' own memory is not the program's
    EXPECT_LE(r.peak_rss_mb, bound) << "peak RSS " << r.peak_rss_mb << " MB";
  }
  std::printf("[ measured ] %s: %s in %.0f ms, peak RSS %.1f MB (bound %.0f MB)\n", c.name,
              outcome.empty() ? "ok" : outcome.c_str(), r.ms, r.peak_rss_mb, bound);
}

INSTANTIATE_TEST_SUITE_P(Shapes, HostileProcess, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// When the process cannot get memory (here an address-space cap far below
// max_heap), the run fails with memory_limit and the process lives on.
TEST(AllocationFailure, IsAMemoryLimitNotACrash) {
  if (ptc::testing::kSanitized) GTEST_SKIP() << "address-space caps break the sanitizers";
  struct Shape {
    const char* program;
    std::vector<std::string> args;
    std::set<std::string> outcomes;
  };
  const std::string huge = "17179869184", gib = "1073741824";
  std::vector<Shape> shapes = {
      {"(count (vec (range 200000000)))",
       {"--max-heap", huge, "--timeout", "20000", "--as-limit", gib},
       {"memory_limit"}},
      {"(count (apply str (repeat 400000000 \"ab\")))",
       {"--max-heap", huge, "--timeout", "20000", "--as-limit", gib},
       {"memory_limit"}},
      {"(count (pmap (fn [_] (count (vec (range 20000000)))) (range 64)))",
       {"--max-heap", huge, "--worker-max-heap", huge, "--timeout", "10000", "--as-limit", gib},
       {"memory_limit"}},
      // Once aborted the process under a 6 GB cap: the ledger kept every argument whole.
      {"(def s (apply str (repeat 512 (apply str (repeat 1024 \"x\"))))) "
       "(count (pmap (fn [i] (tool/sink {:s s :i i})) (range 20000)))",
       {"--as-limit", "6442450944"},
       {"memory_limit", "timeout"}},
  };
  for (const Shape& s : shapes) {
    ProbeResult r = probe(s.program, s.args);
    ASSERT_EQ(r.exit_status, 0) << s.program << "\n" << r.raw;
    EXPECT_TRUE(r.as_capped);
    EXPECT_FALSE(r.ok) << s.program;
    EXPECT_TRUE(s.outcomes.count(r.reason)) << s.program << ": " << r.reason << ": " << r.message;
    EXPECT_TRUE(r.after_ok) << s.program;
  }
}

// A host value in static storage outlives the thread-local state of the
// main thread; destroying it at exit must not touch that state (ASan).
TEST(Exit, StaticHostValueIsReleasedCleanly) {
  ProbeResult r = probe("(+ 1 2)", {"--static-host-value"});
  EXPECT_EQ(r.exit_status, 0) << r.raw;
  EXPECT_TRUE(r.ok);
}

}  // namespace
