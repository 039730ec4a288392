// Hostile programs against the library: each ends quickly, either with a
// correct result or with a clear limit error, under the default limits.
#include <gtest/gtest.h>

#include <chrono>

#include "support/build_info.hpp"
#include "support/run_helpers.hpp"

namespace {

using ptc::ErrorKind;

struct Outcome {
  ptc::Step result;
  double ms;
};

// How long a hostile program may take before a limit stops it.
constexpr double kMaxMs = 3000.0 * ptc::testing::kSlowdown;

Outcome timed(const std::string& src, const ptc::RunOptions& options = {}) {
  auto t0 = std::chrono::steady_clock::now();
  ptc::Step r = ptc::run(src, options);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return {std::move(r), ms};
}

bool is_limit(ErrorKind k) {
  return k == ErrorKind::MemoryLimit || k == ErrorKind::Timeout ||
         k == ErrorKind::LoopLimitExceeded;
}

TEST(Hostile, CountOfAHundredMillionRange) {
  Outcome o = timed("(count (range 100000000))");
  ASSERT_FALSE(o.result.ok);
  EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, kMaxMs);
}

TEST(Hostile, TenMillionCharacterString) {
  Outcome o = timed("(apply str (repeat 10000000 \"x\"))");
  ASSERT_FALSE(o.result.ok) << "10 MB of text cannot fit the 10 MB heap";
  EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, kMaxMs);
}

TEST(Hostile, SortingAMillionNumbers) {
  Outcome o = timed("(sort (range 1000000))");
  if (o.result.ok) {
    EXPECT_EQ(o.result.value.size(), 1000000u);
  } else {
    EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  }
  EXPECT_LT(o.ms, kMaxMs);
}

TEST(Hostile, CatastrophicBacktrackingRegexIsLinear) {
  Outcome o = timed("(re-find #\"(a+)+b\" (apply str (repeat 50 \"a\")))");
  ASSERT_TRUE(o.result.ok) << o.result.error.describe();
  EXPECT_EQ(o.result.printed, "nil");
  EXPECT_LT(o.ms, 1000);
  // A larger input stays linear.
  o = timed("(re-find #\"(a+)+b\" (apply str (repeat 100000 \"a\")))");
  ASSERT_TRUE(o.result.ok || is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, kMaxMs);
}

TEST(Hostile, QuadraticBuiltinWorkHitsTheTimeout) {
  // Each step is cheap; there are 10^10 of them.
  Outcome o = timed("(count (for [a (range 100000) b (range 100000)] 1))");
  ASSERT_FALSE(o.result.ok);
  EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, kMaxMs);
}

TEST(Hostile, ExponentialStringDoubling) {
  Outcome o = timed("(reduce (fn [s _] (str s s)) \"ab\" (range 64))");
  ASSERT_FALSE(o.result.ok);
  EXPECT_EQ(o.result.error.kind, ErrorKind::MemoryLimit) << o.result.error.describe();
  EXPECT_LT(o.ms, kMaxMs);
}

TEST(Hostile, ExponentialCollectionDoubling) {
  Outcome o = timed("(count (reduce (fn [v _] (into v v)) [1] (range 64)))");
  ASSERT_FALSE(o.result.ok);
  EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, kMaxMs);
}

// A billion-item value built from shared structure in a few KB of heap: every
// deep walk over it (printing, comparing, copying the result out) must stay
// bounded by the time and memory limits, not by the size it would print to.
const std::string kShared =
    "(let [v (vec (range 1000)) w (vec (repeat 1000 v)) x (vec (repeat 1000 w))] ";

TEST(Hostile, PrintingSharedStructureIsCapped) {
  for (const char* body : {"(count (str x)))", "(count (pr-str x)))", "(count (format \"%s\" x)))",
                           "(count (str/join \",\" x)))"}) {
    // The heap cap, not the timer, must be what stops it, also in slow
    // (sanitized) builds.
    ptc::RunOptions options;
    options.limits.timeout_ms *= ptc::testing::kSlowdown;
    Outcome o = timed(kShared + body, options);
    ASSERT_FALSE(o.result.ok) << body;
    EXPECT_EQ(o.result.error.kind, ErrorKind::MemoryLimit) << body << o.result.error.describe();
    EXPECT_LT(o.ms, kMaxMs) << body;
  }
}

TEST(Hostile, PrintedOutputOfSharedStructureIsCut) {
  Outcome o = timed(kShared + "(println x) (prn x) :done)");
  ASSERT_TRUE(o.result.ok) << o.result.error.describe();
  ASSERT_EQ(o.result.prints.size(), 2u);
  for (const std::string& line : o.result.prints) {
    EXPECT_LE(line.size(), 2003u);  // max_print_length characters, then "..."
    EXPECT_EQ(line.substr(line.size() - 3), "...");
  }
  EXPECT_LT(o.ms, kMaxMs);
}

TEST(Hostile, ReturningSharedStructureIsAMemoryLimit) {
  Outcome o = timed(kShared + "x)");
  ASSERT_FALSE(o.result.ok);
  EXPECT_EQ(o.result.error.kind, ErrorKind::MemoryLimit) << o.result.error.describe();
  EXPECT_NE(o.result.error.hint.find("shared structure"), std::string::npos);
  EXPECT_LT(o.ms, kMaxMs);
}

TEST(Hostile, ResultAndMemoryShareOneCopyBudget) {
  // About 6 MB when copied out: it fits the 10 MB heap once, not three times.
  const std::string def = "(def a (vec (repeat 100 (vec (range 1000))))) ";
  Outcome once = timed(def + "(count a)");
  ASSERT_TRUE(once.result.ok) << once.result.error.describe();
  Outcome thrice = timed(def + "(def b a) (def c a) (count a)");
  ASSERT_FALSE(thrice.result.ok);
  EXPECT_EQ(thrice.result.error.kind, ErrorKind::MemoryLimit) << thrice.result.error.describe();
  EXPECT_LT(thrice.ms, kMaxMs);
}

TEST(Hostile, ComparingSharedStructureHitsTheTimeout) {
  // Equal but not identical: a full walk of 10^9 items would be needed.
  for (const char* body :
       {"(= x (vec (repeat 1000 (vec (repeat 1000 (vec (range 1000))))))))",
        "(compare x (vec (repeat 1000 (vec (repeat 1000 (vec (range 1000))))))))",
        "(count (sort [x (vec (repeat 1000 (vec (repeat 1000 (vec (range 1000))))))])))"}) {
    Outcome o = timed(kShared + body);
    ASSERT_FALSE(o.result.ok) << body;
    EXPECT_TRUE(is_limit(o.result.error.kind)) << body << o.result.error.describe();
    EXPECT_LT(o.ms, kMaxMs) << body;
  }
}

TEST(Hostile, FailWithSharedStructureKeepsAShortMessage) {
  Outcome o = timed(kShared + "(fail x))");
  ASSERT_FALSE(o.result.ok);
  EXPECT_EQ(o.result.error.kind, ErrorKind::Fail);
  EXPECT_LE(o.result.error.fail_value.size(), (size_t{1} << 20) + 64);
  EXPECT_LT(o.ms, kMaxMs);
}

}  // namespace
