// Ordering, aggregation, function combinators, clojure.walk and pmap/pcalls,
// run end to end.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// ---------------------------------------------------------------- sort

TEST(LibSort, NaturalOrder) {
  EXPECT_EQ(eval("(sort [3 1 2])"), "[1 2 3]");
  EXPECT_EQ(eval("(sort [2.5 1 -3 2])"), "[-3 1 2 2.5]");
  EXPECT_EQ(eval("(sort [\"b\" \"a\" \"c\"])"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(sort [:b :c :a])"), "[:a :b :c]");
  EXPECT_EQ(eval("(sort [[2 1] [1 2] [1 1]])"), "[[1 1] [1 2] [2 1]]");
  // Bignums take their numeric place.
  EXPECT_EQ(eval("(sort [(* 9223372036854775807 2) 1 -5])"), "[-5 1 18446744073709551614]");
}

TEST(LibSort, MixedTypesUseTheTotalTermOrder) {
  // DIV-30: numbers before nil/keywords, strings last; no error.
  EXPECT_EQ(eval("(sort [1 nil])"), "[1 nil]");
  EXPECT_EQ(eval("(sort [\"a\" 1])"), "[1 \"a\"]");
  EXPECT_EQ(eval("(sort [\"x\" nil 2 :k 1.5])"), "[1.5 2 :k nil \"x\"]");
}

TEST(LibSort, SeqablesAndNil) {
  EXPECT_EQ(eval("(sort nil)"), "[]");
  EXPECT_EQ(eval("(sort [])"), "[]");
  EXPECT_EQ(eval("(sort #{3 1 2})"), "[1 2 3]");
  EXPECT_EQ(eval("(sort {:b 2 :a 1})"), "[[:a 1] [:b 2]]");
  EXPECT_EQ(eval("(sort \"cab\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(sort > nil)"), "[]");
}

TEST(LibSort, Comparators) {
  EXPECT_EQ(eval("(sort :desc [1 3 2])"), "[3 2 1]");
  EXPECT_EQ(eval("(sort :asc [3 1 2])"), "[1 2 3]");
  EXPECT_EQ(eval("(sort nil [2 1])"), "[1 2]");  // GAP-S46: nil is the default
  EXPECT_EQ(eval("(sort > [1 3 2])"), "[3 2 1]");
  EXPECT_EQ(eval("(sort < [1 3 2])"), "[1 2 3]");
  EXPECT_EQ(eval("(sort compare [3 1 2])"), "[1 2 3]");
  EXPECT_EQ(eval("(sort (fn [a b] (compare b a)) [3 1 2])"), "[3 2 1]");
  EXPECT_EQ(eval("(sort (fn [a b] (- a b)) [3 1 2])"), "[1 2 3]");
  EXPECT_EQ(eval("(sort (fn [a b] (- a b)) [0.5 0.25 0.75])"), "[0.25 0.5 0.75]");
  // GAP-S107: a predicate that never says "before" keeps the input order.
  EXPECT_EQ(eval("(sort (fn [a b] false) [3 1 2])"), "[3 1 2]");
}

TEST(LibSort, IsStable) {
  EXPECT_EQ(eval("(sort-by :k [{:k 1 :i 0} {:k 0 :i 1} {:k 1 :i 2} {:k 0 :i 3}])"),
            "[{:k 0 :i 1} {:k 0 :i 3} {:k 1 :i 0} {:k 1 :i 2}]");
  EXPECT_EQ(eval("(sort-by :k > [{:k 1 :i 0} {:k 2 :i 1} {:k 1 :i 2}])"),
            "[{:k 2 :i 1} {:k 1 :i 0} {:k 1 :i 2}]");
  EXPECT_EQ(eval("(sort-by :k :desc [{:k 1 :i 0} {:k 2 :i 1} {:k 1 :i 2}])"),
            "[{:k 2 :i 1} {:k 1 :i 0} {:k 1 :i 2}]");
  EXPECT_EQ(eval("(map :i (sort (fn [a b] (compare (:k a) (:k b))) "
                 "  (map (fn [i] {:k (mod i 3) :i i}) (range 9))))"),
            "[0 3 6 1 4 7 2 5 8]");
}

TEST(LibSort, LargeInputs) {
  EXPECT_EQ(eval("(= (sort (map (fn [i] (mod (* i 7919) 10007)) (range 10007))) (range 10007))"),
            "true");
  EXPECT_EQ(eval("(let [s (sort > (range 5000))] [(first s) (nth s 1) (last s)])"),
            "[4999 4998 0]");
  // A comparator that is not a consistent order still terminates with a permutation.
  EXPECT_EQ(eval("(count (sort (fn [a b] (odd? (+ a b))) (range 1000)))"), "1000");
  EXPECT_EQ(eval("(reduce + (sort (fn [a b] (mod (+ a (* 3 b)) 3)) (range 1000)))"), "499500");
}

TEST(LibSort, Errors) {
  EXPECT_EQ(eval_error("(sort 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sort :name [1 2])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sort [1 2] :desc)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sort)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(sort < [1] [2])").kind, ErrorKind::ArityError);
  ptc::Error e = eval_error("(sort (fn [a b] \"x\") [2 1])");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, "the comparator returned string")) << e.message;
  e = eval_error("(sort (fn [a] 1) [2 1])");
  EXPECT_EQ(e.kind, ErrorKind::ArityError);
  EXPECT_TRUE(contains(e.message, "sort: the comparator failed")) << e.message;
}

TEST(LibSortBy, KeysAndComparators) {
  EXPECT_EQ(eval("(sort-by :price [{:price 3} {:price 1} {:price 2}])"),
            "[{:price 1} {:price 2} {:price 3}]");
  EXPECT_EQ(eval("(sort-by \"price\" [{:price 3} {:price 1}])"), "[{:price 1} {:price 3}]");
  EXPECT_EQ(eval("(sort-by :price [{\"price\" 3} {\"price\" 1}])"),
            "[{\"price\" 1} {\"price\" 3}]");
  EXPECT_EQ(eval("(sort-by first [[\"b\" 2] [\"a\" 1] [\"c\" 3]])"),
            "[[\"a\" 1] [\"b\" 2] [\"c\" 3]]");
  EXPECT_EQ(eval("(sort-by (fn [x] (nth x 1)) > [[\"a\" 2] [\"b\" 1] [\"c\" 3]])"),
            "[[\"c\" 3] [\"a\" 2] [\"b\" 1]]");
  EXPECT_EQ(eval("(sort-by :p (fn [a b] (compare b a)) [{:p 1} {:p 2}])"), "[{:p 2} {:p 1}]");
  EXPECT_EQ(eval("(sort-by second > {:food 100 :travel 500 :office 200})"),
            "[[:travel 500] [:office 200] [:food 100]]");
  EXPECT_EQ(eval("(sort-by (juxt :p :n) [{:p 2 :n \"b\"} {:p 1 :n \"z\"} {:p 2 :n \"a\"}])"),
            "[{:p 1 :n \"z\"} {:p 2 :n \"a\"} {:p 2 :n \"b\"}]");
  EXPECT_EQ(eval("(sort-by {:a 2 :b 1} [:a :b])"), "[:b :a]");  // maps are callable
  EXPECT_EQ(eval("(sort-by - #{1 3 2})"), "[3 2 1]");
  // DIV-30: a nil key sorts after the numbers.
  EXPECT_EQ(eval("(sort-by :a [{:a nil} {:a 1}])"), "[{:a 1} {:a nil}]");
  EXPECT_EQ(eval("(sort-by identity (fn [a b] false) [2 1])"), "[2 1]");
}

TEST(LibSortBy, NilAndEmpty) {
  EXPECT_EQ(eval("(sort-by :x [])"), "[]");
  EXPECT_EQ(eval("(sort-by :x nil)"), "[]");
  EXPECT_EQ(eval("(sort-by :x > nil)"), "[]");
}

TEST(LibSortBy, KeyFunctionsRunOncePerItem) {
  ptc::Step r = ptc::run("(sort-by (fn [x] (println x) x) [3 1 2])");
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "[1 2 3]");
  EXPECT_EQ(r.prints.size(), 3u);
}

TEST(LibSortBy, Errors) {
  EXPECT_EQ(eval_error("(sort-by 5 [1 2])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sort-by :a 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sort-by :a 1 [{:a 1}])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sort-by :a)").kind, ErrorKind::ArityError);
  ptc::Error e = eval_error("(sort-by inc [1 \"a\"])");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, "sort-by: the key function failed on \"a\"")) << e.message;
}

// ---------------------------------------------------------------- aggregates

TEST(LibAggregate, SumAndAvg) {
  EXPECT_EQ(eval("(sum [1 2 3 4 5])"), "15");
  EXPECT_EQ(eval("(sum [1 2.5])"), "3.5");
  EXPECT_EQ(eval("(sum [1 nil 2])"), "3");
  EXPECT_EQ(eval("(sum [9223372036854775807 1])"), "9223372036854775808");
  EXPECT_EQ(eval("(sum #{1 2})"), "3");
  EXPECT_EQ(eval("(avg [1 2 3 4 5])"), "3.0");
  EXPECT_EQ(eval("(avg [10 20])"), "15.0");
  EXPECT_EQ(eval("(avg [1 nil 2])"), "1.5");
}

TEST(LibAggregate, SumAndAvgEmpty) {
  EXPECT_EQ(eval("(sum [])"), "0");
  EXPECT_EQ(eval("(sum nil)"), "0");
  EXPECT_EQ(eval("(avg [])"), "nil");
  EXPECT_EQ(eval("(avg nil)"), "nil");
  EXPECT_EQ(eval("(avg [nil])"), "nil");
}

TEST(LibAggregate, SumAndAvgErrors) {
  EXPECT_EQ(eval_error("(sum [1 \"2\"])").kind, ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(avg [:a])").kind, ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(sum 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sum)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(avg [1] [2])").kind, ErrorKind::ArityError);
}

TEST(LibAggregate, SumByAndAvgBy) {
  EXPECT_EQ(eval("(sum-by :amount [{:amount 10} {:amount nil} {:other 5}])"), "10");
  EXPECT_EQ(eval("(avg-by :amount [{:amount 10} {:amount nil} {:amount 20}])"), "15.0");
  EXPECT_EQ(eval("(sum-by \"amount\" [{:amount 1} {\"amount\" 2}])"), "3");
  EXPECT_EQ(eval("(sum-by (fn [x] (nth x 1)) [[\"a\" 2] [\"b\" 3]])"), "5");
  EXPECT_EQ(eval("(sum-by second {:a 1 :b 2})"), "3");
  EXPECT_EQ(eval("(sum-by [:a :b] [{:a {:b 1}} {:a {:b 2}} {:a nil}])"), "3");  // a key path
  EXPECT_EQ(eval("(sum-by :x [])"), "0");
  EXPECT_EQ(eval("(sum-by :x nil)"), "0");
  EXPECT_EQ(eval("(avg-by :x [])"), "nil");
  EXPECT_EQ(eval("(avg-by :x [{:y 1}])"), "nil");
}

TEST(LibAggregate, SumByErrors) {
  ptc::Error e = eval_error("(sum-by :amount [{:amount \"10\"} {:amount 20}])");
  EXPECT_EQ(e.kind, ErrorKind::ArithmeticError);
  EXPECT_TRUE(contains(e.message, "sum-by")) << e.message;
  EXPECT_EQ(eval_error("(avg-by :value [{:value {:x 1}}])").kind, ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(sum-by 5 [{:a 1}])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sum-by :a 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(sum-by :a)").kind, ErrorKind::ArityError);
}

TEST(LibAggregate, MinByMaxBy) {
  EXPECT_EQ(eval("(min-by :price [{:price nil} {:price 10} {:price 5}])"), "{:price 5}");
  EXPECT_EQ(eval("(max-by :price [{:price nil} {:price 10} {:price 5}])"), "{:price 10}");
  EXPECT_EQ(eval("(min-by first [[\"b\" 2] [\"a\" 1]])"), "[\"a\" 1]");
  EXPECT_EQ(eval("(max-by (fn [x] (nth x 1)) [[\"a\" 2] [\"b\" 3]])"), "[\"b\" 3]");
  // The first of equal keys wins.
  EXPECT_EQ(eval("(min-by :k [{:k 1 :i 0} {:k 1 :i 1}])"), "{:k 1 :i 0}");
  EXPECT_EQ(eval("(max-by :k [{:k 1 :i 0} {:k 1 :i 1}])"), "{:k 1 :i 0}");
  // Individual items instead of a collection.
  EXPECT_EQ(eval("(min-by :x {:x 3} {:x 1} {:x 2})"), "{:x 1}");
  EXPECT_EQ(eval("(max-by count \"a\" \"abc\" \"ab\")"), "\"abc\"");
  EXPECT_EQ(eval("(max-by second {:a 1 :b 5 :c 2})"), "[:b 5]");
}

TEST(LibAggregate, MinByMaxByEmpty) {
  EXPECT_EQ(eval("(min-by :x [])"), "nil");
  EXPECT_EQ(eval("(max-by :x [])"), "nil");
  EXPECT_EQ(eval("(max-by :x nil)"), "nil");
  EXPECT_EQ(eval("(min-by :x [{:y 1}])"), "nil");
}

TEST(LibAggregate, MinByMaxByErrors) {
  EXPECT_EQ(eval_error("(min-by 5 [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(max-by :x)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(max-by inc [\"a\"])").kind, ErrorKind::TypeError);
}

TEST(LibAggregate, MinKeyMaxKey) {
  EXPECT_EQ(eval("(max-key count \"a\" \"abc\" \"ab\")"), "\"abc\"");
  EXPECT_EQ(eval("(min-key count \"abc\" \"a\" \"ab\")"), "\"a\"");
  EXPECT_EQ(eval("(max-key #(nth % 1) [\"a\" 1] [\"b\" 5] [\"c\" 3])"), "[\"b\" 5]");
  EXPECT_EQ(eval("(max-key count \"x\")"), "\"x\"");
  // GAP-S47: the later of tied values wins.
  EXPECT_EQ(eval("(min-key count \"a\" \"bb\" \"c\")"), "\"c\"");
  EXPECT_EQ(eval("(max-key count \"aa\" \"bb\" \"c\")"), "\"bb\"");
  EXPECT_EQ(eval("(max-key count \"a\" \"b\" \"c\")"), "\"c\"");
  // DIV-30: total term order for non-numbers.
  EXPECT_EQ(eval("(max-key :a {:a nil} {:a 1})"), "{:a nil}");
  EXPECT_EQ(eval("(min-key identity true false)"), "false");
  EXPECT_EQ(eval("(max-key {:a 1 :b 2} :a :b)"), ":b");
  EXPECT_EQ(eval("(apply max-key second [[:a 3] [:b 7] [:c 2]])"), "[:b 7]");
}

TEST(LibAggregate, MinKeyMaxKeyErrors) {
  EXPECT_EQ(eval_error("(max-key count)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(min-key 5 1 2)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(max-key inc \"a\" \"b\")").kind, ErrorKind::TypeError);
}

TEST(LibAggregate, DistinctBy) {
  EXPECT_EQ(eval("(distinct-by first [[\"a\" 1] [\"a\" 2] [\"b\" 3]])"), "[[\"a\" 1] [\"b\" 3]]");
  EXPECT_EQ(eval("(distinct-by :c [{:c 1 :i 1} {:c 2 :i 2} {:c 1.0 :i 3}])"),
            "[{:c 1 :i 1} {:c 2 :i 2}]");
  EXPECT_EQ(eval("(distinct-by :x [{:y 1} {:y 2}])"), "[{:y 1}]");  // both keys are nil
  EXPECT_EQ(eval("(distinct-by :x [])"), "[]");
  EXPECT_EQ(eval("(distinct-by :x nil)"), "[]");
  EXPECT_EQ(eval_error("(distinct-by :x 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(distinct-by 5 [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(distinct-by :x)").kind, ErrorKind::ArityError);
}

TEST(LibAggregate, GroupBy) {
  EXPECT_EQ(eval("(group-by first [[\"a\" 1] [\"a\" 2] [\"b\" 3]])"),
            "{\"a\" [[\"a\" 1] [\"a\" 2]] \"b\" [[\"b\" 3]]}");
  EXPECT_EQ(eval("(group-by :s [{:s :x :i 1} {:s :y :i 2} {:s :x :i 3} {:i 4}])"),
            "{:x [{:s :x :i 1} {:s :x :i 3}] :y [{:s :y :i 2}] nil [{:i 4}]}");
  EXPECT_EQ(eval("(group-by odd? [1 2 3])"), "{true [1 3] false [2]}");
  EXPECT_EQ(eval("(group-by identity \"aba\")"), "{\"a\" [\"a\" \"a\"] \"b\" [\"b\"]}");
  EXPECT_EQ(eval("(group-by #{:a} [:a :b])"), "{:a [:a] nil [:b]}");
  EXPECT_EQ(eval("(group-by second {:a 1 :b 2 :c 1})"), "{1 [[:a 1] [:c 1]] 2 [[:b 2]]}");
  EXPECT_EQ(eval("(count (group-by #(mod % 100) (range 10000)))"), "100");
  EXPECT_EQ(eval("(group-by :x nil)"), "{}");
  EXPECT_EQ(eval("(group-by :x [])"), "{}");
  EXPECT_EQ(eval_error("(group-by :x 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(group-by 5 [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(group-by :x)").kind, ErrorKind::ArityError);
}

TEST(LibAggregate, Frequencies) {
  EXPECT_EQ(eval("(frequencies [:a :b :a :c :b :a])"), "{:a 3 :b 2 :c 1}");
  EXPECT_EQ(eval("(frequencies \"hello\")"), "{\"h\" 1 \"e\" 1 \"l\" 2 \"o\" 1}");
  EXPECT_EQ(eval("(frequencies [1 1.0 2])"), "{1 2 2 1}");  // = is numeric
  EXPECT_EQ(eval("(frequencies {:a 1})"), "{[:a 1] 1}");
  EXPECT_EQ(eval("(frequencies [[1 2] [1 2] nil])"), "{[1 2] 2 nil 1}");
  EXPECT_EQ(eval("(frequencies nil)"), "{}");
  EXPECT_EQ(eval("(frequencies [])"), "{}");
  EXPECT_EQ(eval_error("(frequencies 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(frequencies)").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- apply

TEST(LibApply, Spreads) {
  EXPECT_EQ(eval("(apply + [1 2 3])"), "6");
  EXPECT_EQ(eval("(apply str [\"a\" \"b\" \"c\"])"), "\"abc\"");
  EXPECT_EQ(eval("(apply + 1 2 [3 4])"), "10");
  EXPECT_EQ(eval("(apply merge {:a 1} [{:b 2} {:c 3}])"), "{:a 1 :b 2 :c 3}");
  EXPECT_EQ(eval("(apply :name [{:name \"Alice\"}])"), "\"Alice\"");
  EXPECT_EQ(eval("(apply #{1 2 3} [2])"), "2");
  EXPECT_EQ(eval("(apply + #{1 2})"), "3");
  EXPECT_EQ(eval("(apply vector {:a 1})"), "[[:a 1]]");
  EXPECT_EQ(eval("(apply (fn [x & xs] xs) 1 2 [3 4])"), "[2 3 4]");
  EXPECT_EQ(eval("(map #(apply + %) [[1 2] [3 4]])"), "[3 7]");
  EXPECT_EQ(eval("(apply max (range 5000))"), "4999");
}

TEST(LibApply, NilAndEmpty) {
  EXPECT_EQ(eval("(apply + [])"), "0");
  // GAP-S33: nil is an empty sequence and strings spread their characters.
  EXPECT_EQ(eval("(apply + nil)"), "0");
  EXPECT_EQ(eval("(apply vector nil)"), "[]");
  EXPECT_EQ(eval("(apply str \"ab\")"), "\"ab\"");
  EXPECT_EQ(eval("(apply str \"a\" \"bc\")"), "\"abc\"");
}

TEST(LibApply, Errors) {
  EXPECT_EQ(eval_error("(apply + 1 2 3)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(apply nil [1])").kind, ErrorKind::NotCallable);
  EXPECT_EQ(eval_error("(apply 5 [1])").kind, ErrorKind::NotCallable);
  EXPECT_EQ(eval_error("(apply +)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(apply inc [1 2])").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- combinators

TEST(LibCombinators, Comp) {
  EXPECT_EQ(eval("((comp str inc) 5)"), "\"6\"");
  EXPECT_EQ(eval("((comp str +) 1 2 3)"), "\"6\"");
  EXPECT_EQ(eval("((comp inc inc inc) 0)"), "3");
  EXPECT_EQ(eval("((comp) 42)"), "42");
  EXPECT_EQ(eval("((comp inc) 5)"), "6");
  EXPECT_EQ(eval("(map (comp inc inc) [1 2 3])"), "[3 4 5]");
  EXPECT_EQ(eval("((comp inc {:a 1}) :a)"), "2");
  EXPECT_EQ(eval("((comp :b :a) {:a {:b 7}})"), "7");
  EXPECT_EQ(eval("(fn? (comp inc dec))"), "true");
  EXPECT_EQ(eval("(str (comp inc dec))"), "\"#fn[...]\"");
  EXPECT_EQ(eval_error("(comp 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("((comp nil) 1)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("((comp inc inc) 1 2)").kind, ErrorKind::ArityError);
}

TEST(LibCombinators, Partial) {
  EXPECT_EQ(eval("((partial + 10) 5)"), "15");
  EXPECT_EQ(eval("((partial + 1 2))"), "3");
  EXPECT_EQ(eval("((partial +) 1 2)"), "3");
  EXPECT_EQ(eval("((partial str \"a\" \"b\") \"c\" \"d\")"), "\"abcd\"");
  EXPECT_EQ(eval("(map (partial + 10) [1 2 3])"), "[11 12 13]");
  EXPECT_EQ(eval("((partial {:a 1}) :a)"), "1");
  EXPECT_EQ(eval("((partial get {:a 1}) :a)"), "1");
  EXPECT_EQ(eval("(fn? (partial + 1))"), "true");
  EXPECT_EQ(eval_error("(partial)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(partial 5 1)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("((partial inc 1) 2)").kind, ErrorKind::ArityError);
}

TEST(LibCombinators, Juxt) {
  EXPECT_EQ(eval("((juxt :name :age) {:name \"Alice\" :age 30})"), "[\"Alice\" 30]");
  EXPECT_EQ(eval("((juxt #(+ % 1) #(* % 2)) 5)"), "[6 10]");
  EXPECT_EQ(eval("((juxt first last) [1 2 3])"), "[1 3]");
  EXPECT_EQ(eval("((juxt + vector) 1 2 3)"), "[6 [1 2 3]]");  // GAP-S58
  EXPECT_EQ(eval("((juxt #{:a} {:a 1}) :a)"), "[:a 1]");
  EXPECT_EQ(eval("(map (juxt :x :y) [{:x 1 :y 2} {:x 3}])"), "[[1 2] [3 nil]]");
  EXPECT_EQ(eval_error("(juxt)").kind, ErrorKind::ArityError);  // GAP-S110
  EXPECT_EQ(eval_error("((juxt) 1)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(juxt :a 5)").kind, ErrorKind::TypeError);
}

TEST(LibCombinators, ComplementAndConstantly) {
  EXPECT_EQ(eval("((complement even?) 3)"), "true");
  EXPECT_EQ(eval("((complement even?) 4)"), "false");
  EXPECT_EQ(eval("((complement <) 3 2)"), "true");
  EXPECT_EQ(eval("((complement :a) {:a 1})"), "false");
  EXPECT_EQ(eval("((complement identity) nil)"), "true");
  EXPECT_EQ(eval("(filter (complement even?) [1 2 3 4])"), "[1 3]");
  EXPECT_EQ(eval("((constantly 5) 1 2 3)"), "5");
  EXPECT_EQ(eval("((constantly 5))"), "5");
  EXPECT_EQ(eval("((constantly nil) :a :b)"), "nil");
  EXPECT_EQ(eval("(map (constantly [1]) [:a :b])"), "[[1] [1]]");
  EXPECT_EQ(eval_error("(complement 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(complement)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(constantly 1 2)").kind, ErrorKind::ArityError);
}

TEST(LibCombinators, EveryPredAndSomeFn) {
  EXPECT_EQ(eval("((every-pred even? pos?) 4)"), "true");
  EXPECT_EQ(eval("((every-pred even? pos?) -4)"), "false");
  EXPECT_EQ(eval("((every-pred even? pos?) 4 6 8)"), "true");
  EXPECT_EQ(eval("((every-pred even? pos?) 4 -6 8)"), "false");
  EXPECT_EQ(eval("((every-pred :a) {:a 1})"), "true");  // always a boolean
  EXPECT_EQ(eval("((every-pred even?))"), "true");
  EXPECT_EQ(eval("(filter (every-pred even? pos?) [-2 -1 0 1 2 3 4])"), "[2 4]");
  EXPECT_EQ(eval("((some-fn :a :b) {:a 1})"), "1");
  EXPECT_EQ(eval("((some-fn :a :b) {:b 2})"), "2");
  EXPECT_EQ(eval("((some-fn :a :b) {:c 3})"), "nil");
  EXPECT_EQ(eval("((some-fn even? pos?) 3)"), "true");
  EXPECT_EQ(eval("((some-fn even? pos?) -3)"), "false");
  EXPECT_EQ(eval("((some-fn even?))"), "nil");
  EXPECT_EQ(eval("((some-fn even?) 1 3 4)"), "true");
  EXPECT_EQ(eval("((some-fn {:a nil} {:b 2}) :b)"), "2");
  EXPECT_EQ(eval_error("(every-pred)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(some-fn)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(every-pred even? 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(some-fn \"a\")").kind, ErrorKind::TypeError);
}

TEST(LibCombinators, Fnil) {
  EXPECT_EQ(eval("((fnil inc 0) nil)"), "1");
  EXPECT_EQ(eval("((fnil inc 0) 5)"), "6");
  EXPECT_EQ(eval("(update {:n nil} :n (fnil inc 0))"), "{:n 1}");
  EXPECT_EQ(eval("(update {:n nil} :n (fnil + 0) 5)"), "{:n 5}");
  EXPECT_EQ(eval("((fnil + 10 20) nil nil)"), "30");  // GAP-S42
  EXPECT_EQ(eval("((fnil vector 1 2 3) nil nil nil)"), "[1 2 3]");
  EXPECT_EQ(eval("((fnil vector 1 2 3) nil 5 nil nil)"), "[1 5 3 nil]");
  EXPECT_EQ(eval("((fnil vector 1 2) nil)"), "[1]");
  EXPECT_EQ(eval("((fnil {:a 1} :x) nil)"), "nil");
  EXPECT_EQ(eval("((fnil :a {:a 9}) nil)"), "9");
  EXPECT_EQ(eval_error("(fnil inc)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(fnil inc 1 2 3 4)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(fnil 5 1)").kind, ErrorKind::TypeError);
}

TEST(LibCombinators, UsableEverywhere) {
  EXPECT_EQ(eval("(sort-by (comp - :a) [{:a 1} {:a 3} {:a 2}])"), "[{:a 3} {:a 2} {:a 1}]");
  EXPECT_EQ(eval("(reduce (partial +) 0 [1 2 3])"), "6");
  EXPECT_EQ(eval("(apply (juxt min max) [3 1 2])"), "[1 3]");
  EXPECT_EQ(eval("(group-by (complement odd?) [1 2 3])"), "{false [1 3] true [2]}");
  EXPECT_EQ(eval("(let [f (comp (partial * 2) inc)] (f 3))"), "8");
  EXPECT_EQ(eval("((comp (juxt inc dec) (partial + 1)) 1)"), "[3 1]");
}

// ---------------------------------------------------------------- walk

TEST(LibWalk, Walk) {
  EXPECT_EQ(eval("(walk inc #(apply + %) [1 2 3])"), "9");
  EXPECT_EQ(eval("(walk identity identity [1 2 3])"), "[1 2 3]");
  EXPECT_EQ(eval("(walk inc identity #{1 2 3})"), "#{2 3 4}");
  EXPECT_EQ(eval("(walk second #(apply max %) [[1 2] [3 4] [5 6]])"), "6");
  EXPECT_EQ(eval("(walk (fn [[k v]] [k (inc v)]) identity {:a 1 :b 2})"), "{:a 2 :b 3}");
  EXPECT_EQ(eval("(walk (fn [[k v]] [v k]) identity {:a 1})"), "{1 :a}");
  EXPECT_EQ(eval("(walk inc identity 5)"), "5");  // a leaf: only outer applies
  EXPECT_EQ(eval("(walk inc str \"ab\")"), "\"ab\"");
  EXPECT_EQ(eval("(walk inc identity nil)"), "nil");
  EXPECT_EQ(eval("(walk inc identity [])"), "[]");
  EXPECT_EQ(eval("(walk {:a :x} identity [:a :b])"), "[:x nil]");
  EXPECT_EQ(eval("(clojure.walk/walk inc identity [1])"), "[2]");
}

TEST(LibWalk, WalkErrors) {
  ptc::Error e = eval_error("(walk (fn [e] 5) identity {:a 1})");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, "map entry")) << e.message;
  EXPECT_EQ(eval_error("(walk 5 identity [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(walk inc 5 [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(walk inc [1])").kind, ErrorKind::ArityError);
}

TEST(LibWalk, Prewalk) {
  EXPECT_EQ(eval("(prewalk #(if (number? %) (inc %) %) [1 [2 3]])"), "[2 [3 4]]");
  EXPECT_EQ(eval("(prewalk #(if (number? %) (inc %) %) {:a 1 :b {:c 2 :d 3}})"),
            "{:a 2 :b {:c 3 :d 4}}");
  EXPECT_EQ(eval("(prewalk #(if (and (map? %) (:value %)) (update % :value inc) %) "
                 "{:value 1 :nested {:value 2}})"),
            "{:value 2 :nested {:value 3}}");
  EXPECT_EQ(eval("(prewalk #(if (number? %) (inc %) %) #{1 2 3})"), "#{2 3 4}");
  // Parents first: the replacement's children are walked, not the original's.
  EXPECT_EQ(eval("(prewalk #(if (= % :x) [1 2] (if (number? %) (* 10 %) %)) [:x 3])"),
            "[[10 20] 30]");
  EXPECT_EQ(eval("(prewalk inc 5)"), "6");
  EXPECT_EQ(eval("(prewalk identity nil)"), "nil");
  EXPECT_EQ(eval("(prewalk identity [])"), "[]");
  EXPECT_EQ(eval("(prewalk {:a :x} [:a :b])"), "nil");
  EXPECT_EQ(eval_error("(prewalk 5 [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(prewalk inc)").kind, ErrorKind::ArityError);
}

TEST(LibWalk, Postwalk) {
  EXPECT_EQ(eval("(postwalk #(if (number? %) (inc %) %) [1 [2 3]])"), "[2 [3 4]]");
  EXPECT_EQ(eval("(postwalk #(if (vector? %) (apply + %) %) [[1 2] [3 4]])"), "10");
  EXPECT_EQ(eval("(postwalk #(if (string? %) (count %) %) {\"ab\" [\"xyz\" #{\"q\"}]})"),
            "{2 [3 #{1}]}");
  EXPECT_EQ(eval("(postwalk #(if (keyword? %) (name %) %) {:a {:b [:c]}})"),
            "{\"a\" {\"b\" [\"c\"]}}");
  // Children first: the order in which nodes are seen.
  ptc::Step r = ptc::run("(postwalk (fn [x] (println x) x) [1 [2]])");
  ASSERT_TRUE(r.ok) << r.error.describe();
  ASSERT_EQ(r.prints.size(), 4u);
  EXPECT_EQ(r.prints[0], "1");
  EXPECT_EQ(r.prints[1], "2");
  EXPECT_EQ(r.prints[2], "[2]");
  EXPECT_EQ(r.prints[3], "[1 [2]]");
  EXPECT_EQ(eval("(postwalk inc 5)"), "6");
  EXPECT_EQ(eval("(postwalk identity nil)"), "nil");
  EXPECT_EQ(eval("(postwalk identity [])"), "[]");
  EXPECT_EQ(eval_error("(postwalk nil [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(postwalk inc)").kind, ErrorKind::ArityError);
}

TEST(LibWalk, RunawayGrowthEndsWithAnError) {
  // Every number becomes a vector holding it, forever: must fail cleanly.
  ptc::Error e = eval_error("(prewalk (fn [x] (if (number? x) [x] x)) 1)");
  EXPECT_TRUE(e.kind == ErrorKind::CallDepthExceeded || e.kind == ErrorKind::Timeout)
      << e.describe();
}

// ---------------------------------------------------------------- pmap / pcalls

TEST(LibParallel, Pmap) {
  EXPECT_EQ(eval("(let [factor 10] (pmap #(* % factor) [1 2 3]))"), "[10 20 30]");
  EXPECT_EQ(eval("(pmap :name [{:name \"a\"} {:name \"b\"}])"), "[\"a\" \"b\"]");
  EXPECT_EQ(eval("(pmap inc nil)"), "[]");
  EXPECT_EQ(eval("(pmap inc [])"), "[]");
  EXPECT_EQ(eval("(pmap str \"ab\")"), "[\"a\" \"b\"]");
  EXPECT_EQ(eval("(pmap + [1 2 3] [10 20])"), "[11 22]");
  EXPECT_EQ(eval("(pmap :a [{:a 1}] [99])"), "[1]");
  EXPECT_EQ(eval("(pmap first {:a 1 :b 2})"), "[:a :b]");
  // Order is preserved and every branch runs once.
  ptc::Step r = ptc::run("(pmap (fn [x] (println x) x) [3 1 2])");
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "[3 1 2]");
  EXPECT_EQ(r.prints.size(), 3u);
}

TEST(LibParallel, PmapErrors) {
  EXPECT_EQ(eval_error("(pmap (fn [x] (/ x 0)) [1 2])").kind, ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(pmap 5 [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(pmap inc 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(pmap inc)").kind, ErrorKind::ArityError);
}

TEST(LibParallel, Pcalls) {
  EXPECT_EQ(eval("(pcalls #(+ 1 1) #(* 2 3) #(- 10 5))"), "[2 6 5]");
  EXPECT_EQ(eval("(pcalls)"), "[]");
  EXPECT_EQ(eval("(let [[a b] (pcalls (constantly 1) (fn [] {:x 2}))] [a (:x b)])"), "[1 2]");
}

TEST(LibParallel, PcallsErrors) {
  ptc::Error e = eval_error("(pcalls #(+ 1 1) #(/ 1 0))");
  EXPECT_EQ(e.kind, ErrorKind::ArithmeticError);
  EXPECT_TRUE(contains(e.message, "pcalls: function 2 of 2 failed")) << e.message;
  EXPECT_EQ(eval_error("(pcalls #(+ 1 1) 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(pcalls inc)").kind, ErrorKind::ArityError);
  e = eval_error("(pcalls (fn [] (fail \"boom\")))");
  EXPECT_EQ(e.kind, ErrorKind::Fail);
}

}  // namespace

// Vectors are functions of an index, as in Clojure (GAP-S13), wherever a
// function is accepted (GAP-S71); maps and sets already are.
TEST(LibCombinators, VectorsMapsAndSetsAreFunctions) {
  EXPECT_EQ(eval("([10 20] 1)"), "20");
  EXPECT_EQ(eval("(apply [10 20] [1])"), "20");
  EXPECT_EQ(eval("(ifn? [1 2])"), "true");
  EXPECT_EQ(eval("(map [10 20 30] [2 0])"), "[30 10]");
  EXPECT_EQ(eval("((comp [10 20] inc) 0)"), "20");
  EXPECT_EQ(eval("((juxt [:a :b] {1 :one}) 1)"), "[:b :one]");
  EXPECT_EQ(eval("(map {:a 1 :b 2} [:a :c :b])"), "[1 nil 2]");
  EXPECT_EQ(eval("(filter {:a true :b false} [:a :b :c])"), "[:a]");
  EXPECT_EQ(eval("(sort-by {:x 2 :y 1} [:x :y])"), "[:y :x]");
  // Unlike nth and get, a call out of range or with a non-integer is an error.
  EXPECT_EQ(eval_error("([1 2] 2)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("([1 2] -1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("([1 2] 1.0)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("([1 2] 0 :default)").kind, ErrorKind::ArityError);
}
