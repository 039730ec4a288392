// Hostile and malformed programs: every one ends with a precise error, never a
// crash, a hang or a native stack overflow, within the default limits.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/build_info.hpp"
#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

double elapsed_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

TEST(BadInput, UnterminatedString) {
  ptc::Error e = eval_error("(str \"abc");
  EXPECT_EQ(e.kind, ErrorKind::ParseError);
  EXPECT_EQ(e.loc.line, 1u);
  EXPECT_EQ(e.loc.col, 6u);
}

TEST(BadInput, UnterminatedForm) {
  ptc::Error e = eval_error("(let [x 1]\n  (+ x 1)");
  EXPECT_EQ(e.kind, ErrorKind::ParseError);
  EXPECT_EQ(e.loc.line, 1u);
  EXPECT_EQ(e.loc.col, 1u);
  EXPECT_NE(e.message.find("unclosed"), std::string::npos) << e.message;
}

TEST(BadInput, UnbalancedBrackets) {
  ptc::Error e = eval_error("(+ 1 2]");
  EXPECT_EQ(e.kind, ErrorKind::ParseError);
  EXPECT_EQ(e.loc.col, 7u);
  e = eval_error("(+ 1 2))");
  EXPECT_EQ(e.kind, ErrorKind::ParseError);
  EXPECT_EQ(e.loc.col, 8u);
}

TEST(BadInput, HundredThousandLevelsOfNesting) {
  for (const char* open : {"(", "[", "{", "#{"}) {
    std::string src;
    for (int i = 0; i < 100000; ++i)
      src += open;
    ptc::Error e = eval_error(src);
    EXPECT_EQ(e.kind, ErrorKind::ParseError) << open;
    EXPECT_NE(e.message.find("nesting"), std::string::npos) << e.message;
  }
  // Balanced, too: the nesting limit applies before the brackets close.
  std::string src = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(eval_error(src).kind, ErrorKind::ParseError);
}

TEST(BadInput, DeepNestingWithinTheLimitRuns) {
  std::string src;
  for (int i = 0; i < 500; ++i)
    src += "(inc ";
  src += "0";
  src += std::string(500, ')');
  EXPECT_EQ(eval(src), "500");
  std::string vec = std::string(900, '[') + "1" + std::string(900, ']');
  ptc::Step r = ptc::run("(count " + vec + ")");
  EXPECT_TRUE(r.ok) << r.error.describe();
}

TEST(BadInput, OneMegabyteProgram) {
  // Just over the default 1,000,000-byte limit: refused up front.
  std::string big;
  while (big.size() < 1048576)
    big += "(+ 1 2) ";
  ptc::Error e = eval_error(big);
  EXPECT_EQ(e.kind, ErrorKind::ProgramTooLarge);
  // Under the limit, a large program runs.
  std::string ok;
  while (ok.size() < 900000)
    ok += "(+ 1 2) ";
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(eval(ok), "3");
  EXPECT_LT(elapsed_ms(t0), 5000);
}

TEST(BadInput, InvalidUtf8) {
  ptc::Error e = eval_error("(str \"ok\")\n(str \"\xff\xfe\")");
  EXPECT_EQ(e.kind, ErrorKind::ParseError);
  EXPECT_EQ(e.loc.line, 2u);
  EXPECT_NE(e.message.find("UTF-8"), std::string::npos) << e.message;
}

TEST(BadInput, TwoHundredDigitInteger) {
  ptc::Error e = eval_error(std::string(200, '7'));
  EXPECT_EQ(e.kind, ErrorKind::ParseError);
  EXPECT_NE(e.message.find("100 digit"), std::string::npos) << e.message;
  // 100 digits is still allowed and becomes a bignum.
  EXPECT_EQ(eval(std::string(100, '9')), std::string(100, '9'));
}

TEST(BadInput, InfiniteLoopHitsLoopLimit) {
  auto t0 = std::chrono::steady_clock::now();
  ptc::Error e = eval_error("(loop [i 0] (recur (inc i)))");
  EXPECT_EQ(e.kind, ErrorKind::LoopLimitExceeded);
  EXPECT_LT(elapsed_ms(t0), 1000);
}

TEST(BadInput, InfiniteRecursionHitsCallDepth) {
  auto t0 = std::chrono::steady_clock::now();
  ptc::Error e = eval_error("(defn f [x] (+ 1 (f x))) (f 1)");
  EXPECT_EQ(e.kind, ErrorKind::CallDepthExceeded);
  EXPECT_LT(elapsed_ms(t0), 1000);
}

TEST(BadInput, RecursionThroughBuiltinsIsBounded) {
  // Each level re-enters the VM from `map`: the native stack guard stops it
  // (before the timer, also in slow sanitized builds).
  ptc::RunOptions opts;
  opts.limits.timeout_ms *= ptc::testing::kSlowdown;
  ptc::Error e = eval_error("(defn f [x] (map f [x])) (f 1)", opts);
  EXPECT_EQ(e.kind, ErrorKind::CallDepthExceeded);
  e = eval_error("(defn g [x] (reduce (fn [a b] (g b)) 0 [x])) (g 1)", opts);
  EXPECT_EQ(e.kind, ErrorKind::CallDepthExceeded);
}

TEST(Limits, LoopLimitIsConfigurable) {
  ptc::RunOptions opts;
  opts.limits.loop_limit = 5000;
  EXPECT_EQ(eval("(loop [i 0] (if (< i 4000) (recur (inc i)) i))", opts), "4000");
  EXPECT_EQ(eval_error("(loop [i 0] (if (< i 4000) (recur (inc i)) i))").kind,
            ErrorKind::LoopLimitExceeded);
  // Exactly 1000 jumps are allowed by default; the 1001st is not.
  EXPECT_EQ(eval("(loop [i 0] (if (< i 1000) (recur (inc i)) i))"), "1000");
  EXPECT_EQ(eval_error("(loop [i 0] (if (< i 1001) (recur (inc i)) i))").kind,
            ErrorKind::LoopLimitExceeded);
}

TEST(Limits, LoopLimitCountsPerLoop) {
  // 30 outer iterations x 900 inner: each loop stays under 1000 jumps.
  EXPECT_EQ(eval("(loop [i 0 n 0] (if (< i 30) (recur (inc i) (+ n (loop [j 0] (if (< j 900) "
                 "(recur (inc j)) "
                 "j)))) n))"),
            "27000");
}

TEST(Limits, TimeoutStopsLongWork) {
  ptc::RunOptions opts;
  opts.limits.timeout_ms = 100;
  opts.limits.loop_limit = 10000;
  auto t0 = std::chrono::steady_clock::now();
  ptc::Error e = eval_error(
      "(loop [i 0] (if (< i 10000) (do (loop [j 0] (if (< j 10000) (recur (inc j)))) (recur (inc "
      "i)))))",
      opts);
  EXPECT_EQ(e.kind, ErrorKind::Timeout);
  EXPECT_LT(elapsed_ms(t0), 2000);
}

TEST(Limits, DefaultTimeoutIsOneSecond) {
  auto t0 = std::chrono::steady_clock::now();
  ptc::Error e = eval_error("(count (for [a (range 3000) b (range 3000)] (+ a b)))");
  double ms = elapsed_ms(t0);
  EXPECT_TRUE(e.kind == ErrorKind::Timeout || e.kind == ErrorKind::MemoryLimit) << e.describe();
  EXPECT_LT(ms, 3000);
}

TEST(Limits, MemoryLimit) {
  ptc::RunOptions opts;
  opts.limits.max_heap_bytes = 1 << 20;
  ptc::Error e = eval_error("(count (range 1000000))", opts);
  EXPECT_EQ(e.kind, ErrorKind::MemoryLimit);
  e = eval_error(
      "(loop [v [] i 0] (if (< i 1000) (recur (conj v (range 1000)) (inc i)) (count v)))", opts);
  EXPECT_EQ(e.kind, ErrorKind::MemoryLimit);
  // Huge bignum growth is refused before computing.
  e = eval_error("(loop [x 3 i 0] (if (< i 40) (recur (* x x) (inc i)) x))", opts);
  EXPECT_EQ(e.kind, ErrorKind::MemoryLimit);
}

TEST(Limits, DeeplyNestedDataIsPrintedOrRefusedButNeverCrashes) {
  // Built by reduce (no loop limit): 100,000 levels of nested vectors.
  ptc::RunOptions opts;
  opts.limits.max_heap_bytes = 64 << 20;
  opts.limits.timeout_ms *= ptc::testing::kSlowdown;
  ptc::Step r = ptc::run("(reduce (fn [acc _] [acc]) [] (range 100000))", opts);
  if (!r.ok) {
    EXPECT_EQ(r.error.kind, ErrorKind::CallDepthExceeded) << r.error.describe();
  }
  r = ptc::run("(let [v (reduce (fn [acc _] [acc]) [] (range 100000))] (= v v))", opts);
  EXPECT_TRUE(r.ok || r.error.kind == ErrorKind::CallDepthExceeded) << r.error.describe();
}

TEST(Limits, SymbolLimit) {
  ptc::RunOptions opts;
  opts.limits.max_symbols = 50;
  std::string src = "[";
  for (int i = 0; i < 100; ++i)
    src += ":k" + std::to_string(i) + " ";
  src += "]";
  EXPECT_EQ(eval_error(src, opts).kind, ErrorKind::SymbolLimit);
}

TEST(Limits, HostSurvivesManyFailingRuns) {
  for (int i = 0; i < 200; ++i) {
    ptc::Step r =
        ptc::run(i % 2 ? "(defn f [x] (+ 1 (f x))) (f 1)" : "(loop [i 0] (recur (inc i)))");
    ASSERT_FALSE(r.ok);
  }
  EXPECT_EQ(eval("(+ 1 2)"), "3");
}

// A max_heap of SIZE_MAX is no limit at all, not a cap that wrapped around
// below what compiling the program had already used.
TEST(Limits, AMaxHeapOfSizeMaxMeansNoLimit) {
  ptc::RunOptions o;
  o.limits.max_heap_bytes = SIZE_MAX;
  EXPECT_EQ(eval("(count (vec (range 100000)))", o), "100000");
}

}  // namespace
