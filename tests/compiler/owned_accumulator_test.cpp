// Which step functions own their accumulator (compiler/owned_accumulator.cpp):
// those compile the updates of it to CALLO; every other shape keeps CALLB.
#include <gtest/gtest.h>

#include <string>

#include "ops.hpp"

namespace ptc {
namespace {

using testing::Ops;

// The step function, fn #1 of `src`: whether it owns its accumulator, and its
// calls to builtins in order (CALLO the in-place ones).
void expect_step(const std::string& src, bool owns, const Ops& builtin_calls) {
  testing::Compiled compiled(src);
  const Proto& step = compiled.arity(1);
  EXPECT_EQ(step.owns_accumulator, owns) << src;
  EXPECT_EQ(testing::builtin_calls(step), builtin_calls) << src;
}

void expect_owned(const std::string& src, const Ops& builtin_calls) {
  expect_step(src, true, builtin_calls);
}

void expect_not_owned(const std::string& src, const Ops& builtin_calls) {
  expect_step(src, false, builtin_calls);
}

TEST(OwnedAccumulator, UpdatesReturnedDirectlyAreOwned) {
  expect_owned("(fn [m o] (update m (:k o) (fnil + 0) (:n o)))", {"CALLO update"});
  expect_owned("(fn [m x] (assoc m x 1))", {"CALLO assoc"});
  expect_owned("(fn [s x] (conj s x))", {"CALLO conj"});
  expect_owned("(fn [m x] (dissoc m x))", {"CALLO dissoc"});
  expect_owned("(fn [m x] (-> m (assoc :a x) (update :n inc)))", {"CALLO assoc", "CALLO update"});
  expect_owned("(fn [m x] (if (odd? x) (assoc m x true) m))", {"CALLB odd?", "CALLO assoc"});
  expect_owned("(fn [m x] (let [k (str x)] (assoc m k x)))", {"CALLB str", "CALLO assoc"});
  expect_owned("(fn [m x] (do (println x) (assoc m x 1)))", {"CALLB println", "CALLO assoc"});
  expect_owned("(fn [m x] (cond-> m (odd? x) (assoc :odd x) (even? x) (assoc :even x)))",
               {"CALLB odd?", "CALLO assoc", "CALLB even?", "CALLO assoc"});
  expect_owned("(fn [m x] (if (neg? x) {} (assoc m x 1)))", {"CALLB neg?", "CALLO assoc"});
  expect_owned("(fn [m k v] (assoc m k v))", {"CALLO assoc"});  // reduce-kv's shape
}

TEST(OwnedAccumulator, AnyOtherReadOfTheAccumulatorIsNot) {
  expect_not_owned("(fn [m x] (assoc m x (count m)))",
                   {"CALLB count", "CALLB assoc"});  // read by another argument
  expect_not_owned("(fn [m x] (if (empty? m) m (assoc m x 1)))",
                   {"CALLB empty?", "CALLB assoc"});  // read by a test
  expect_not_owned("(fn [m x] (do (println m) (assoc m x 1)))", {"CALLB println", "CALLB assoc"});
  expect_not_owned("(fn [m x] [m (assoc m x 1)])", {"CALLB assoc"});
  expect_not_owned("(fn [m x] (let [n (assoc m x 1)] [m n]))",
                   {"CALLB assoc"});  // the old name read again
  expect_not_owned("(fn [m x] (let [f (fn [] m)] (assoc m x 1)))", {"CALLB assoc"});  // captured
  expect_not_owned("(fn [m x] (let [n (assoc m x 1) f (fn [] n)] (assoc n :b 2)))",
                   {"CALLB assoc", "CALLB assoc"});
  expect_not_owned("(fn [m x] (merge m {x 1}))", {"CALLB merge"});  // no in-place variant
  expect_not_owned("(fn [m x] (if (= x 0) (return m) (assoc m x 1)))", {"CALLB assoc"});
  expect_not_owned("(fn [m x] (if (pos? x) (recur (assoc m x 1) (dec x)) m))",
                   {"CALLB pos?", "CALLB assoc"});
  expect_not_owned("(fn [m x] (reduce (fn [a y] (assoc a y 1)) m x))", {});
  expect_not_owned("(fn [m x] (tool/save {:m (assoc m x 1)}))", {"CALLB assoc"});
  expect_not_owned("(fn [m x] (+ m x))", {});
  expect_not_owned("(fn [m x] (assoc {} x m))", {"CALLB assoc"});  // stored as a value, not updated
}

TEST(OwnedAccumulator, AHostileLetCostsABoundedAnalysis) {
  // A thousand bindings each threading the accumulator: the analysis stops at
  // its budget and compiles the ordinary calls.
  std::string src = "(fn [m x] (let [";
  for (int i = 0; i < 1000; ++i)
    src += "m (assoc m " + std::to_string(i) + " x) ";
  src += "] m))";
  expect_not_owned(src, Ops(1000, "CALLB assoc"));
}

}  // namespace
}  // namespace ptc

namespace ptc {
namespace {

// (fnil + 0) and its kin, from constants only, are made once when compiling.
TEST(FunctionsMadeFromConstants, AreConstants) {
  testing::Compiled update("(fn [m x] (update m :n (fnil + 0) x))");
  EXPECT_EQ(testing::builtin_calls(update.arity(1)), (Ops{"CALLO update"}));
  EXPECT_EQ(testing::constants(update.arity(1)), (testing::Strings{":n", "#fn[...]"}));
  for (const char* src :
       {"(fn [] (partial + 1))", "(fn [] (comp inc str))", "(fn [] (constantly [1 2]))",
        "(fn [] (complement nil?))", "(fn [] (juxt inc dec))"})
    EXPECT_EQ(testing::ops(src, 1), (Ops{"LOADK", "RETURN"})) << src;
  // Not from constants, or an argument the builtin rejects: made at run time.
  EXPECT_EQ(testing::builtin_calls(testing::Compiled("(fn [x] (fnil + x))").arity(1)),
            (Ops{"CALLB fnil"}));
  EXPECT_EQ(testing::builtin_calls(testing::Compiled("(fn [] (fnil 1 0))").arity(1)),
            (Ops{"CALLB fnil"}));
}

}  // namespace
}  // namespace ptc
