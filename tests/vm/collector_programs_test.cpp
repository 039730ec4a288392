// The heap cap bounds live data (issue 33): programs that allocate far more
// than max_heap while holding little pass at the default cap, and programs
// whose live data is more than the cap still end in memory_limit, promptly.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "include/ptc/ptc.hpp"
#include "support/build_info.hpp"
#include "support/run_helpers.hpp"

namespace ptc {
namespace {

// 15,000 log events as JSON (about 1.7 MB): service, level, latency, user.
std::string log_events_json() {
  const char* services[] = {"auth", "billing", "search", "mail", "export"};
  const char* levels[] = {"info", "warn", "error"};
  std::string out = "{\"events\": [";
  for (int i = 0; i < 15000; ++i) {
    if (i) out += ',';
    out += "{\"id\":" + std::to_string(i) + ",\"service\":\"" + services[i % 5] +
           "\",\"level\":\"" + levels[(i / 7) % 3] +
           "\",\"latency_ms\":" + std::to_string((i * 37) % 900) + ",\"user\":\"user-" +
           std::to_string(i % 1300) + "\",\"message\":\"request handled by node " +
           std::to_string(i % 17) + " after retries\",\"region\":\"eu-west-" +
           std::to_string(i % 3) + "\"}";
  }
  return out + "]}";
}

// Default limits (a 10 MB heap), the timeout scaled for the sanitizer builds.
Step run_default(const std::string& src, const std::string& context_json = "") {
  RunOptions o;
  o.limits.timeout_ms *= ptc::testing::kSlowdown;
  if (!context_json.empty()) o.context_json = context_json;
  return run(src, o);
}

TEST(CollectedPrograms, GarbageHeavyProgramsPassAtTheDefaultCap) {
  auto value = [](const char* src) {
    Step s = run_default(src);
    return s.ok ? s.printed : s.error.describe();
  };
  EXPECT_EQ(value("(count (reduce (fn [m i] (assoc m i (* i i))) {} (range 50000)))"), "50000");
  EXPECT_EQ(value("(count (reduce (fn [s x] (str s x \",\")) \"\" (range 3000)))"), "13890");
  EXPECT_EQ(value("(count (reduce (fn [m i] (assoc m (mod i 10) (vec (range 100)))) {} "
                  "(range 5000)))"),
            "10");
  // 9000 steps, each summing a fresh (range 3000): 430 MB allocated, 48 KB held.
  RunOptions long_run;
  long_run.limits.timeout_ms = 30000 * ptc::testing::kSlowdown;
  Step s = run("(reduce (fn [acc i] (+ acc (reduce + (range 3000)))) 0 (range 9000))", long_run);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, std::to_string(9000LL * (2999LL * 3000 / 2)));
  EXPECT_GT(s.usage.allocated_bytes, size_t{400} << 20);
  EXPECT_GE(s.usage.collections, 20u);
  EXPECT_LT(s.usage.peak_live_bytes, size_t{10} << 20);
}

TEST(CollectedPrograms, ALogPipelineOverAJsonContext) {
  std::string events = log_events_json();
  ASSERT_GT(events.size(), size_t{1600000});
  Step s = run_default(
      "(let [rows (map (fn [e] (assoc e :slow (> (:latency_ms e) 500))) data/events)"
      "      bad (filter (fn [e] (or (:slow e) (= (:level e) \"error\"))) rows)"
      "      slim (map #(select-keys % [:service :level :slow]) bad)"
      "      by (group-by :service slim)]"
      "  (sort (map (fn [[k v]] [k (count v)]) by)))",
      events);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed,
            R"([["auth" 1877] ["billing" 1889] ["export" 1887] ["mail" 1889] ["search" 1889]])");
  s = run_default(
      "(count (reduce (fn [acc e] (update acc (:user e) (fnil inc 0))) {} data/events))", events);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "1300");
}

TEST(CollectedPrograms, LiveDataPastTheCapIsStillAMemoryLimit) {
  const char* programs[] = {
      "(count (vec (range 2000000)))",                                           // a 2M vector
      "(count (reduce (fn [m i] (assoc m i i)) {} (range 400000)))",             // 400k entries
      "(count (mapv (fn [i] (apply str i (repeat 200 \"x\"))) (range 60000)))",  // 60k strings
      "(count (reduce (fn [v i] (conj v (str \"row-\" i))) [] (range 1000000)))",
  };
  for (const char* src : programs) {
    auto t0 = std::chrono::steady_clock::now();
    Step s = run_default(src);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_FALSE(s.ok) << src;
    EXPECT_EQ(s.error.kind, ErrorKind::MemoryLimit) << src << ": " << s.error.describe();
    EXPECT_LT(ms, 1500 * ptc::testing::kSlowdown) << src;  // within the timeout
  }
  // The message names what was still live.
  Step s = run_default("(count (reduce (fn [m i] (assoc m i i)) {} (range 400000)))");
  EXPECT_NE(s.error.message.find("still reachable after a collection"), std::string::npos)
      << s.error.message;
}

TEST(CollectedPrograms, UsageReportsTheHeap) {
  Step s = run_default("(count (reduce (fn [m i] (assoc m (mod i 100) [i i])) {} (range 200000)))");
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_GT(s.usage.allocated_bytes, size_t{10} << 20);  // more than the cap, in total
  EXPECT_EQ(s.usage.memory_bytes >= s.usage.allocated_bytes, true);
  EXPECT_GE(s.usage.collections, 1u);
  EXPECT_GT(s.usage.collect_ms, 0.0);
  EXPECT_LT(s.usage.peak_live_bytes, size_t{10} << 20);
  EXPECT_GT(s.usage.peak_live_bytes, 0u);
  // A run that allocates little is never collected; what it allocated counts as live.
  Step tiny = run_default("(+ 1 2)");
  EXPECT_EQ(tiny.usage.collections, 0u);
  EXPECT_EQ(tiny.usage.peak_live_bytes, tiny.usage.allocated_bytes);
}

// A smaller cap holds the same way: a garbage-heavy loop collects often and
// passes; the same data kept alive fails.
TEST(CollectedPrograms, ASmallCap) {
  RunOptions o;
  o.limits.max_heap_bytes = 256 << 10;
  Step s = run("(reduce (fn [acc i] (+ acc (count (vec (range 1000))))) 0 (range 2000))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "2000000");
  s = run("(count (reduce (fn [acc i] (conj acc (vec (range 100)))) [] (range 2000)))", o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::MemoryLimit);
}

}  // namespace
}  // namespace ptc
