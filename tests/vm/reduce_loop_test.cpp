// (reduce f init coll) run by the VM's own loop (REDUCE, REDUCESTEP) when f
// is a closure and coll a vector: it must give what the builtin gives, the
// same errors at the same places, and hold the same limits. (apply reduce
// ...) and a non-closure step take the builtin, so each case runs both ways.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

// The step written as `step`, over `init` and `coll`, through the VM loop and
// through the builtin (apply reduce ...), and with the step wrapped in
// (partial step) (a native function: the builtin, with no owner token).
void expect_same_three_ways(const std::string& step, const std::string& init,
                            const std::string& coll, const std::string& expected) {
  std::string loop = "(reduce " + step + " " + init + " " + coll + ")";
  std::string applied = "(apply reduce " + step + " " + init + " [" + coll + "])";
  std::string partial = "(reduce (partial " + step + ") " + init + " " + coll + ")";
  EXPECT_EQ(eval(loop), expected) << loop;
  EXPECT_EQ(eval(applied), expected) << applied;
  EXPECT_EQ(eval(partial), expected) << partial;
}

TEST(ReduceLoop, GivesWhatTheBuiltinGives) {
  expect_same_three_ways("(fn [a x] (+ a x))", "0", "[1 2 3]", "6");
  expect_same_three_ways("(fn [a x] (+ a x))", "0", "[]", "0");
  expect_same_three_ways("(fn [a x] (conj a (* x x)))", "[]", "(range 40)",
                         "[0 1 4 9 16 25 36 49 64 81 100 121 144 169 196 225 256 289 324 361 400 "
                         "441 484 529 576 625 676 729 784 841 900 961 1024 1089 1156 1225 1296 "
                         "1369 1444 1521]");
  // Owned accumulators (in place on the loop's path), and their results.
  expect_same_three_ways("(fn [m o] (update m (:s o) (fnil + 0) (:n o)))", "{}",
                         "[{:s \"a\" :n 1} {:s \"b\" :n 2} {:s \"a\" :n 3}]", "{\"a\" 4 \"b\" 2}");
  expect_same_three_ways("(fn [m x] (assoc m (mod x 7) x))", "{}", "(range 100)",
                         "{0 98 1 99 2 93 3 94 4 95 5 96 6 97}");
  expect_same_three_ways("(fn [s x] (conj s (mod x 3)))", "#{}", "(range 10)", "#{0 1 2}");
  // A step over a larger vector than one trie node (the loop indexes it).
  expect_same_three_ways("(fn [a x] (+ a x))", "0", "(vec (range 5000))", "12497500");
  // Steps of every shape: multi-arity, variadic, named and recursive, with recur.
  expect_same_three_ways("(fn ([a] a) ([a x] (+ a x)) ([a x y] 0))", "1", "[1 2]", "4");
  expect_same_three_ways("(fn [& xs] (apply + xs))", "1", "[1 2]", "4");
  expect_same_three_ways("(fn f [a x] (if (> x 1) (f a (dec x)) (+ a x)))", "0", "[3 4]", "2");
  expect_same_three_ways("(fn [a x] (if (pos? x) (recur (inc a) (dec x)) a))", "0", "[3 4]", "7");
  expect_same_three_ways("(fn [[lo hi] x] [(min lo x) (max hi x)])", "[100 -100]", "[5 -3 9]",
                         "[-3 9]");
  // Closures over the step's arguments, and a reduce inside the step.
  expect_same_three_ways("(fn [fs x] (conj fs (fn [] x)))", "[]", "[1 2]",
                         eval("(let [fs (reduce (fn [fs x] (conj fs (fn [] x))) [] [1 2])] fs)"));
  EXPECT_EQ(eval("(let [fs (reduce (fn [fs x] (conj fs (fn [] (* 10 x)))) [] [1 2 3])] "
                 "(map (fn [f] (f)) fs))"),
            "[10 20 30]");
  expect_same_three_ways("(fn [m xs] (assoc m (count xs) (reduce (fn [s x] (conj s x)) #{} xs)))",
                         "{}", "[[1 2] [3] [1 2]]", "{2 #{1 2} 1 #{3}}");
  // Every other collection takes the builtin: maps, sets, strings, nil.
  EXPECT_EQ(eval("(reduce (fn [a [k v]] (+ a v)) 0 {:a 1 :b 2})"), "3");
  EXPECT_EQ(eval("(reduce (fn [a x] (+ a x)) 0 #{1 2 3})"), "6");
  EXPECT_EQ(eval("(reduce (fn [a c] (str c a)) \"\" \"abc\")"), "\"cba\"");
  EXPECT_EQ(eval("(reduce (fn [a x] (+ a x)) 7 nil)"), "7");
  EXPECT_EQ(eval("(reduce + 0 [1 2 3])"), "6");
  EXPECT_EQ(eval("(reduce :a {:a 1} [2])"), "1");  // (:a {:a 1} 2)
}

TEST(ReduceLoop, ResultsAreOrdinaryValues) {
  // The initial value is never written, and a result given back is never
  // written again (the loop disowns it, as the builtin does).
  EXPECT_EQ(eval("(let [init {:a 1} r (reduce (fn [m x] (assoc m x x)) init [1 2])] [init r])"),
            "[{:a 1} {:a 1 1 1 2 2}]");
  EXPECT_EQ(eval("(let [f (fn [m x] (assoc m x 1)) a (reduce f {} [1 2]) b (reduce f a [3])] "
                 "[a b])"),
            "[{1 1 2 1} {1 1 2 1 3 1}]");
  // The same step in two loops at once (one inside the other's step).
  EXPECT_EQ(eval("(let [f (fn [m x] (assoc m x 1))] "
                 "(reduce (fn [acc x] (assoc acc x (reduce f {} [x (* 2 x)]))) {} [1 2]))"),
            "{1 {1 1 2 1} 2 {2 1 4 1}}");
  // The loop's result in a def, read by a later program of the session.
  EXPECT_EQ(eval("(def a (reduce (fn [m x] (assoc m x x)) {} [1 2])) "
                 "(def b (reduce (fn [m x] (assoc m x 0)) a [1 3])) [a b]"),
            "[{1 1 2 2} {1 0 2 2 3 0}]");
}

TEST(ReduceLoop, ErrorsAreTheBuiltinsAtTheSamePlaces) {
  struct Case {
    const char* loop;
    const char* builtin;
  };
  const Case cases[] = {
      {"(reduce (fn [a] a) 0 [1 2])", "(apply reduce (fn [a] a) 0 [[1 2]])"},
      {"(reduce (fn [a x y] a) 0 [1 2])", "(apply reduce (fn [a x y] a) 0 [[1 2]])"},
      {"(reduce (fn [a x] a) 0 5)", "(apply reduce (fn [a x] a) 0 [5])"},
      {"(reduce (fn [a x] a) 0 :k)", "(apply reduce (fn [a x] a) 0 [:k])"},
      {"(reduce 5 0 [1])", "(apply reduce 5 0 [[1]])"},
      {"(reduce (fn [m x] (assoc m x 1)) 5 [1])",
       "(apply reduce (fn [m x] (assoc m x 1)) 5 [[1]])"},
  };
  for (const Case& c : cases) {
    ptc::Error a = eval_error(c.loop);
    ptc::Error b = eval_error(c.builtin);
    EXPECT_EQ(a.kind, b.kind) << c.loop;
    EXPECT_EQ(a.message, b.message) << c.loop;
    EXPECT_EQ(a.hint, b.hint) << c.loop;
  }
  // The call that fails names the reduce's own line:column ...
  ptc::Error arity = eval_error("(let [xs [1 2]]\n  (println \"x\")\n  (reduce (fn [a] a) 0 xs))");
  EXPECT_EQ(arity.kind, ptc::ErrorKind::ArityError);
  EXPECT_EQ(arity.loc.line, 3u);
  EXPECT_EQ(arity.loc.col, 3u);
  // ... and an error inside the step its own, on any item.
  ptc::Error inside = eval_error("(reduce (fn [a x]\n  (/ a x)) 1 [1 2 0 4])");
  EXPECT_EQ(inside.kind, ptc::ErrorKind::ArithmeticError);
  EXPECT_EQ(inside.loc.line, 2u);
  EXPECT_EQ(inside.loc.col, 3u);
  // An error after the loop is reported where it happens, not at the loop.
  ptc::Error after = eval_error("(let [n (reduce (fn [a x] (+ a x)) 0 [1 2])]\n  (/ n 0))");
  EXPECT_EQ(after.loc.line, 2u);
  EXPECT_EQ(after.loc.col, 3u);
}

TEST(ReduceLoop, LimitsHold) {
  // Recursion through the loop's steps ends in call_depth_exceeded.
  ptc::Error deep = eval_error(
      "(defn down [n] (if (zero? n) 0 (reduce (fn [a x] (+ a (down (dec n)))) 0 [1])))"
      " (down 1000000)");
  EXPECT_EQ(deep.kind, ptc::ErrorKind::CallDepthExceeded);
  // Steps that never end in time: the run's deadline stops them.
  ptc::RunOptions o;
  o.limits.timeout_ms = 100;
  ptc::Error slow = eval_error(
      "(let [xs (vec (range 3000))] "
      "(reduce (fn [a x] (reduce (fn [b y] (+ b y)) a xs)) 0 (vec (range 100000))))",
      o);
  EXPECT_EQ(slow.kind, ptc::ErrorKind::Timeout);
  // Results that outgrow the heap end in memory_limit.
  o.limits.timeout_ms = 5000;
  o.limits.max_heap_bytes = 1 << 20;
  ptc::Error big =
      eval_error("(reduce (fn [v x] (conj v (str \"item-\" x))) [] (vec (range 1000000)))", o);
  EXPECT_EQ(big.kind, ptc::ErrorKind::MemoryLimit);
}

TEST(ReduceLoop, CompilesToTheVmLoop) {
  std::string listing = ptc::disassemble_source("(reduce (fn [a x] (+ a x)) 0 [1 2])");
  EXPECT_NE(listing.find("REDUCE "), std::string::npos) << listing;
  EXPECT_NE(listing.find("REDUCESTEP"), std::string::npos) << listing;
  // The two-argument form (no initial value) stays a builtin call.
  listing = ptc::disassemble_source("(reduce (fn [a x] (+ a x)) [1 2])");
  EXPECT_EQ(listing.find("REDUCE"), std::string::npos) << listing;
  EXPECT_NE(listing.find("CALLB"), std::string::npos) << listing;
}

}  // namespace
