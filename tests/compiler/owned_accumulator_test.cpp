// Which step functions own their accumulator (compiler/owned_accumulator.cpp):
// those compile the updates of it to CALLO; every other shape keeps CALLB.
#include <gtest/gtest.h>

#include <string>

#include "include/ptc/ptc.hpp"

namespace ptc {
namespace {

// Whether the first function of `src` (fn #1) owns its accumulator, and how
// many CALLO it has.
struct Shape {
  bool owns;
  size_t owned_calls;
};
Shape step_shape(const std::string& src) {
  std::string d = disassemble_source(src);
  size_t start = d.find("fn #1");
  EXPECT_NE(start, std::string::npos) << d;
  std::string step = d.substr(start, d.find("fn #2") - start);
  Shape s{step.find("owns its accumulator") != std::string::npos, 0};
  for (size_t at = step.find("CALLO"); at != std::string::npos; at = step.find("CALLO", at + 1))
    ++s.owned_calls;
  return s;
}

void expect_owned(const std::string& src, size_t calls) {
  Shape s = step_shape(src);
  EXPECT_TRUE(s.owns) << src;
  EXPECT_EQ(s.owned_calls, calls) << src;
}

void expect_not_owned(const std::string& src) {
  Shape s = step_shape(src);
  EXPECT_FALSE(s.owns) << src;
  EXPECT_EQ(s.owned_calls, 0u) << src;
}

TEST(OwnedAccumulator, UpdatesReturnedDirectlyAreOwned) {
  expect_owned("(fn [m o] (update m (:k o) (fnil + 0) (:n o)))", 1);
  expect_owned("(fn [m x] (assoc m x 1))", 1);
  expect_owned("(fn [s x] (conj s x))", 1);
  expect_owned("(fn [m x] (dissoc m x))", 1);
  expect_owned("(fn [m x] (-> m (assoc :a x) (update :n inc)))", 2);
  expect_owned("(fn [m x] (if (odd? x) (assoc m x true) m))", 1);
  expect_owned("(fn [m x] (let [k (str x)] (assoc m k x)))", 1);
  expect_owned("(fn [m x] (do (println x) (assoc m x 1)))", 1);
  expect_owned("(fn [m x] (cond-> m (odd? x) (assoc :odd x) (even? x) (assoc :even x)))", 2);
  expect_owned("(fn [m x] (if (neg? x) {} (assoc m x 1)))", 1);
  expect_owned("(fn [m k v] (assoc m k v))", 1);  // reduce-kv's shape
}

TEST(OwnedAccumulator, AnyOtherReadOfTheAccumulatorIsNot) {
  expect_not_owned("(fn [m x] (assoc m x (count m)))");            // read by another argument
  expect_not_owned("(fn [m x] (if (empty? m) m (assoc m x 1)))");  // read by a test
  expect_not_owned("(fn [m x] (do (println m) (assoc m x 1)))");
  expect_not_owned("(fn [m x] [m (assoc m x 1)])");
  expect_not_owned("(fn [m x] (let [n (assoc m x 1)] [m n]))");      // the old name read again
  expect_not_owned("(fn [m x] (let [f (fn [] m)] (assoc m x 1)))");  // captured
  expect_not_owned("(fn [m x] (let [n (assoc m x 1) f (fn [] n)] (assoc n :b 2)))");
  expect_not_owned("(fn [m x] (merge m {x 1}))");  // no in-place variant
  expect_not_owned("(fn [m x] (if (= x 0) (return m) (assoc m x 1)))");
  expect_not_owned("(fn [m x] (if (pos? x) (recur (assoc m x 1) (dec x)) m))");
  expect_not_owned("(fn [m x] (reduce (fn [a y] (assoc a y 1)) m x))");
  expect_not_owned("(fn [m x] (tool/save {:m (assoc m x 1)}))");
  expect_not_owned("(fn [m x] (+ m x))");
  expect_not_owned("(fn [m x] (assoc {} x m))");  // stored as a value, not updated
}

TEST(OwnedAccumulator, AHostileLetCostsABoundedAnalysis) {
  // A thousand bindings each threading the accumulator: the analysis stops at
  // its budget and compiles the ordinary calls.
  std::string src = "(fn [m x] (let [";
  for (int i = 0; i < 1000; ++i)
    src += "m (assoc m " + std::to_string(i) + " x) ";
  src += "] m))";
  expect_not_owned(src);
}

}  // namespace
}  // namespace ptc

namespace ptc {
namespace {

// (fnil + 0) and its kin, from constants only, are made once when compiling.
TEST(FunctionsMadeFromConstants, AreConstants) {
  std::string d = disassemble_source("(fn [m x] (update m :n (fnil + 0) x))");
  EXPECT_EQ(d.find("; fnil"), std::string::npos) << d;
  EXPECT_NE(d.find("#fn["), std::string::npos) << d;
  for (const char* src :
       {"(fn [] (partial + 1))", "(fn [] (comp inc str))", "(fn [] (constantly [1 2]))",
        "(fn [] (complement nil?))", "(fn [] (juxt inc dec))"}) {
    std::string made = disassemble_source(src);
    EXPECT_EQ(made.find("CALLB"), std::string::npos) << made;
  }
  // Not from constants, or an argument the builtin rejects: made at run time.
  EXPECT_NE(disassemble_source("(fn [x] (fnil + x))").find("; fnil"), std::string::npos);
  EXPECT_NE(disassemble_source("(fn [] (fnil 1 0))").find("; fnil"), std::string::npos);
}

}  // namespace
}  // namespace ptc
