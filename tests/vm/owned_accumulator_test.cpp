// Accumulators updated in place (runtime/builtins/owned.cpp): every result is
// the persistent one, and no value anyone else can see ever changes.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::testing::eval;

namespace {

TEST(OwnedAccumulator, ReduceResultsAreThePersistentOnes) {
  EXPECT_EQ(eval("(reduce (fn [m o] (update m (:s o) (fnil + 0) (:n o))) {} "
                 "[{:s \"a\" :n 1} {:s \"b\" :n 2} {:s \"a\" :n 3}])"),
            "{\"a\" 4 \"b\" 2}");
  EXPECT_EQ(eval("(reduce (fn [m x] (assoc m x (* x x))) {} (range 5))"), "{0 0 1 1 2 4 3 9 4 16}");
  // Past the small form (8 entries) the map becomes a large one.
  EXPECT_EQ(eval("(count (reduce (fn [m x] (assoc m x x)) {} (range 100)))"), "100");
  EXPECT_EQ(eval("(get (reduce (fn [m x] (update m (mod x 20) (fnil inc 0))) {} (range 100)) 7)"),
            "5");
  EXPECT_EQ(eval("(reduce (fn [s x] (conj s (mod x 3))) #{} (range 10))"), "#{0 1 2}");
  EXPECT_EQ(eval("(count (reduce (fn [s x] (conj s x)) #{} (range 50)))"), "50");
  EXPECT_EQ(eval("(reduce (fn [m x] (dissoc m x)) {1 1 2 2 3 3 4 4} [2 4 9])"), "{1 1 3 3}");
  EXPECT_EQ(eval("(reduce (fn [m x] (if (odd? x) (assoc m x true) m)) nil (range 4))"),
            "{1 true 3 true}");
  EXPECT_EQ(eval("(reduce (fn [m x] (cond-> m (odd? x) (update :odd (fnil inc 0)) "
                 "(even? x) (update :even (fnil inc 0)))) {} (range 7))"),
            "{:even 4 :odd 3}");
  EXPECT_EQ(eval("(reduce-kv (fn [m k v] (assoc m v k)) {} {:a 1 :b 2})"), "{1 :a 2 :b}");
  EXPECT_EQ(eval("(reduce-kv (fn [m i v] (assoc m v i)) {} [:x :y])"), "{:x 0 :y 1}");
  // update keeps writing under the key it found (string key, keyword accessor).
  EXPECT_EQ(eval("(reduce (fn [m x] (update m :a + x)) {\"a\" 0} [1 2 3])"), "{\"a\" 6}");
  // Keys equal but not the same object (strings built per step) find their entry.
  EXPECT_EQ(eval("(reduce (fn [m x] (update m (str \"k\" (mod x 2)) (fnil + 0) x)) {} (range 6))"),
            "{\"k0\" 6 \"k1\" 9}");
  EXPECT_EQ(eval("(reduce (fn [m x] (update m (keyword (str \"k\" (mod x 2))) (fnil inc 0))) {} "
                 "(range 5))"),
            "{:k0 3 :k1 2}");
  // Vectors keep conj's own path.
  EXPECT_EQ(eval("(reduce (fn [v x] (conj v x)) [] (range 4))"), "[0 1 2 3]");
}

TEST(OwnedAccumulator, TheInitialValueIsNeverWritten) {
  EXPECT_EQ(eval("(let [init {:a 1} r (reduce (fn [m x] (assoc m x x)) init [1 2])] [init r])"),
            "[{:a 1} {:a 1 1 1 2 2}]");
  EXPECT_EQ(eval("(let [init #{:a} r (reduce (fn [s x] (conj s x)) init [1])] [init r])"),
            "[#{:a} #{:a 1}]");
  // The same initial value given to two reduces.
  EXPECT_EQ(eval("(let [f (fn [m x] (update m :n + x)) init {:n 0}] "
                 "[(reduce f init [1 2]) (reduce f init [10]) init])"),
            "[{:n 3} {:n 10} {:n 0}]");
  // A step that returns its accumulator unchanged, or a fresh value.
  EXPECT_EQ(eval("(let [init {:a 1} r (reduce (fn [m x] m) init [1 2])] [init r])"),
            "[{:a 1} {:a 1}]");
  EXPECT_EQ(eval("(reduce (fn [m x] (if (= x 2) {} (assoc m x 1))) {:a 1} [1 2 3])"), "{3 1}");
}

TEST(OwnedAccumulator, AResultOnceReturnedIsNeverWrittenAgain) {
  // A finished reduce's result is an ordinary value: a second reduce from it copies.
  EXPECT_EQ(eval("(let [f (fn [m x] (assoc m x 1)) a (reduce f {} [1 2]) b (reduce f a [3])] "
                 "[a b])"),
            "[{1 1 2 1} {1 1 2 1 3 1}]");
  // The step function called directly (no owner) never writes in place.
  EXPECT_EQ(eval("(let [f (fn [m x] (assoc m x 1)) a (f {} 1) b (f a 2)] [a b])"),
            "[{1 1} {1 1 2 1}]");
  // A step called from inside another reduce's step: only reduce hands out owners.
  EXPECT_EQ(
      eval("(let [g (fn [m x] (assoc m x 1)) "
           "     r (reduce (fn [acc x] (let [a (g acc x) b (g acc (- x))] [a b])) {} [1])] r)"),
      "[{1 1} {-1 1}]");
  // Nested reduces, each with its own accumulator.
  EXPECT_EQ(eval("(reduce (fn [m xs] (assoc m (count xs) (reduce (fn [s x] (conj s x)) #{} xs))) "
                 "{} [[1 2] [3] [1 2]])"),
            "{2 #{1 2} 1 #{3}}");
  // The result kept in memory and used as the next turn's initial value.
  EXPECT_EQ(eval("(def a (reduce (fn [m x] (assoc m x x)) {} [1 2])) "
                 "(def b (reduce (fn [m x] (assoc m x 0)) a [1 3])) [a b]"),
            "[{1 1 2 2} {1 0 2 2 3 0}]");
}

TEST(OwnedAccumulator, ErrorsAreTheOrdinaryOnes) {
  EXPECT_NE(eval("(reduce (fn [m x] (update m :a x)) {} [1])").find("ERROR"), std::string::npos);
  EXPECT_NE(eval("(reduce (fn [m x] (assoc m x)) {} [1])").find("ERROR"), std::string::npos);
  EXPECT_NE(eval("(reduce (fn [m x] (assoc m x 1)) 5 [1])").find("ERROR type_error"),
            std::string::npos);
  EXPECT_NE(eval("(reduce (fn [m x] (update m x inc)) {} [1])").find("ERROR"), std::string::npos);
}

}  // namespace

namespace {

TEST(FunctionsMadeFromConstants, BehaveAsWhenMadeAtRunTime) {
  EXPECT_EQ(eval("(map (fnil inc 0) [1 nil 3])"), "[2 1 4]");
  EXPECT_EQ(eval("((comp str inc) 1)"), "\"2\"");
  EXPECT_EQ(eval("(let [f (constantly [1 2])] [(conj (f) 3) (conj (f) 4) (f)])"),
            "[[1 2 3] [1 2 4] [1 2]]");
  // A rejected argument still fails at run time, where it is written.
  ptc::Error err = ptc::testing::eval_error("(do 1\n  (fnil 1 0))");
  EXPECT_EQ(err.kind, ptc::ErrorKind::TypeError);
  EXPECT_EQ(err.loc.line, 2u);
  EXPECT_EQ(err.loc.col, 3u);
}

// A step that owns its accumulator and calls a tool for every item: the
// equivalence corpus (embedding/equivalence_corpus_test.cpp) also runs this
// program through start/resume and dump/load, suspending inside the reduce.
TEST(OwnedAccumulator, StepsThatCallTools) {
  ptc::RunOptions o;
  o.tools["price"] = {[](const ptc::HostValue& args) {
    return ptc::ToolResult::success(ptc::HostValue::integer(args.get("id")->as_int() * 10));
  }};
  ptc::Step s = ptc::run("(reduce (fn [m id] (assoc m id (tool/price {:id id}))) {} [1 2 3])", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "{1 10 2 20 3 30}");
}

}  // namespace
