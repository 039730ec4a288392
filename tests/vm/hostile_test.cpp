// Hostile programs against the library: each ends quickly, either with a
// correct result or with a clear limit error, under the default limits.
#include <gtest/gtest.h>

#include <chrono>

#include "support/run_helpers.hpp"

namespace {

using ptc::ErrorKind;

struct Outcome {
  ptc::RunResult result;
  double ms;
};

Outcome timed(const std::string& src) {
  auto t0 = std::chrono::steady_clock::now();
  ptc::RunResult r = ptc::run(src);
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
  EXPECT_LT(o.ms, 3000);
}

TEST(Hostile, TenMillionCharacterString) {
  Outcome o = timed("(apply str (repeat 10000000 \"x\"))");
  ASSERT_FALSE(o.result.ok) << "10 MB of text cannot fit the 10 MB heap";
  EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, 3000);
}

TEST(Hostile, SortingAMillionNumbers) {
  Outcome o = timed("(sort (range 1000000))");
  if (o.result.ok) {
    EXPECT_EQ(o.result.value.size(), 1000000u);
  } else {
    EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  }
  EXPECT_LT(o.ms, 3000);
}

TEST(Hostile, CatastrophicBacktrackingRegexIsLinear) {
  Outcome o = timed("(re-find #\"(a+)+b\" (apply str (repeat 50 \"a\")))");
  ASSERT_TRUE(o.result.ok) << o.result.error.describe();
  EXPECT_EQ(o.result.printed, "nil");
  EXPECT_LT(o.ms, 1000);
  // A larger input stays linear.
  o = timed("(re-find #\"(a+)+b\" (apply str (repeat 100000 \"a\")))");
  ASSERT_TRUE(o.result.ok || is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, 3000);
}

TEST(Hostile, QuadraticBuiltinWorkHitsTheTimeout) {
  // Each step is cheap; there are 10^10 of them.
  Outcome o = timed("(count (for [a (range 100000) b (range 100000)] 1))");
  ASSERT_FALSE(o.result.ok);
  EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, 3000);
}

TEST(Hostile, ExponentialStringDoubling) {
  Outcome o = timed("(reduce (fn [s _] (str s s)) \"ab\" (range 64))");
  ASSERT_FALSE(o.result.ok);
  EXPECT_EQ(o.result.error.kind, ErrorKind::MemoryLimit) << o.result.error.describe();
  EXPECT_LT(o.ms, 3000);
}

TEST(Hostile, ExponentialCollectionDoubling) {
  Outcome o = timed("(count (reduce (fn [v _] (into v v)) [1] (range 64)))");
  ASSERT_FALSE(o.result.ok);
  EXPECT_TRUE(is_limit(o.result.error.kind)) << o.result.error.describe();
  EXPECT_LT(o.ms, 3000);
}

}  // namespace
