// Map and set builtins (maps.cpp, sets.cpp), end to end.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

// True when `text` starts with "ERROR <reason>:" and contains `part`.
::testing::AssertionResult fails_with(const std::string& src, const std::string& reason,
                                      const std::string& part = "") {
  std::string out = eval(src);
  std::string prefix = "ERROR " + reason + ":";
  if (out.rfind(prefix, 0) != 0)
    return ::testing::AssertionFailure() << src << " gave " << out << ", expected " << prefix;
  if (out.find(part) == std::string::npos)
    return ::testing::AssertionFailure() << src << " gave " << out << ", missing " << part;
  return ::testing::AssertionSuccess();
}

// ------------------------------------------------------------ construction

TEST(LibMaps, HashMapAndArrayMap) {
  EXPECT_EQ(eval("(hash-map :a 1 :b 2)"), "{:a 1 :b 2}");
  EXPECT_EQ(eval("(hash-map)"), "{}");
  EXPECT_EQ(eval("(hash-map :a 1 :a 2)"), "{:a 2}");  // later value wins, first position kept
  EXPECT_EQ(eval("(array-map :b 1 :a 2)"), "{:b 1 :a 2}");
  EXPECT_EQ(eval("(count (apply hash-map (range 40)))"), "20");
  EXPECT_TRUE(fails_with("(hash-map :a)", "arity_error", "key/value pairs"));
}

// ------------------------------------------------------------ get / get-in

TEST(LibMaps, Get) {
  EXPECT_EQ(eval("(get {:a 1} :a)"), "1");
  EXPECT_EQ(eval("(get {:a 1} :b)"), "nil");
  EXPECT_EQ(eval("(get {:a 1} :b \"default\")"), "\"default\"");
  EXPECT_EQ(eval("(get {:a nil} :a :d)"), "nil");  // present nil is not missing
  // Flexible keys (spec §7.5): keyword and string match, exact type wins.
  EXPECT_EQ(eval("(get {\"a\" 1} :a)"), "1");
  EXPECT_EQ(eval("(get {:a 1} \"a\")"), "1");
  EXPECT_EQ(eval("(get {:a 9 \"a\" 1} :a)"), "9");
  EXPECT_EQ(eval("(get {:a 9 \"a\" 1} \"a\")"), "1");
  EXPECT_EQ(eval("(get {:turn_summaries 3} :turn-summaries)"), "3");
  // Vectors and strings by index, sets by member (GAP-S12, GAP-S36).
  EXPECT_EQ(eval("(get [10 20] 1)"), "20");
  EXPECT_EQ(eval("(get [10 20] 2 :x)"), ":x");
  EXPECT_EQ(eval("(get [10 20] -1)"), "nil");
  EXPECT_EQ(eval("(get \"abc\" 1)"), "\"b\"");
  EXPECT_EQ(eval("(get \"ab\" 9 :x)"), ":x");
  EXPECT_EQ(eval("(get #{1 2} 1)"), "1");
  EXPECT_EQ(eval("(get #{1 2} 3 :x)"), ":x");
  EXPECT_EQ(eval("(get #{nil} nil :x)"), "nil");
  // nil and non-collections are missing everything.
  EXPECT_EQ(eval("(get nil :a)"), "nil");
  EXPECT_EQ(eval("(get nil :a 0)"), "0");
  EXPECT_EQ(eval("(get 42 :a :x)"), ":x");
  EXPECT_EQ(eval("(get {} :a)"), "nil");
  EXPECT_EQ(eval("(get {[1 2] :v} [1 2])"), ":v");  // a vector key matches exactly
  EXPECT_TRUE(fails_with("(get {:a 1})", "arity_error", "get expects 2 to 3 arguments"));
  EXPECT_TRUE(fails_with("(get {:a 1} :a 1 2)", "arity_error"));
}

TEST(LibMaps, GetIn) {
  EXPECT_EQ(eval("(get-in {:user {:name \"A\"}} [:user :name])"), "\"A\"");
  EXPECT_EQ(eval("(get-in {:results [{:title \"A\"}]} [:results 0 :title])"), "\"A\"");
  EXPECT_EQ(eval("(get-in [[1 2] [3 4]] [1 0])"), "3");
  EXPECT_EQ(eval("(get-in [1 2 3] [10])"), "nil");
  EXPECT_EQ(eval("(get-in [1 2 3] [-1])"), "nil");
  EXPECT_EQ(eval("(get-in {:a 1} [:b :c] :none)"), ":none");
  // Flexible at each level independently.
  EXPECT_EQ(eval("(get-in {\"user\" {:email \"e\"}} [:user \"email\"])"), "\"e\"");
  // A present nil is returned, not the default (GAP-S22)...
  EXPECT_EQ(eval("(get-in {:a nil} [:a] :missing)"), "nil");
  EXPECT_EQ(eval("(get-in {:a {:b nil}} [:a :b] :missing)"), "nil");
  EXPECT_EQ(eval("(get-in [nil :b] [0] :missing)"), "nil");
  // ...but a path that continues past it is missing.
  EXPECT_EQ(eval("(get-in {:a nil} [:a :b] :missing)"), ":missing");
  // Empty and nil paths are the root (GAP-S144), even with a default.
  EXPECT_EQ(eval("(get-in {:a 1} [])"), "{:a 1}");
  EXPECT_EQ(eval("(get-in {:a 1} nil)"), "{:a 1}");
  EXPECT_EQ(eval("(get-in {:a 1} nil :d)"), "{:a 1}");
  // nil roots, sets and strings (GAP-S19, GAP-S36, GAP-S12).
  EXPECT_EQ(eval("(get-in nil [:a])"), "nil");
  EXPECT_EQ(eval("(get-in nil [:a] :x)"), ":x");
  EXPECT_EQ(eval("(get-in #{:a} [:a])"), ":a");
  EXPECT_EQ(eval("(get-in #{:a} [:b] :missing)"), ":missing");
  EXPECT_EQ(eval("(get-in #{nil} [nil] :missing)"), "nil");
  EXPECT_EQ(eval("(get-in \"ab\" [0])"), "\"a\"");
  EXPECT_EQ(eval("(get-in {:a 5} [:a :b] :d)"), ":d");  // a number has no keys
  EXPECT_TRUE(
      fails_with("(get-in {:a 1} :a)", "type_error", "get-in: expected a sequence of keys"));
  EXPECT_TRUE(fails_with("(get-in {:a 1} 5)", "type_error", "(argument 2)"));
  EXPECT_TRUE(fails_with("(get-in {:a 1})", "arity_error"));
}

TEST(LibMaps, FindKeyVal) {
  EXPECT_EQ(eval("(find {:a 1 :b 2} :b)"), "[:b 2]");
  EXPECT_EQ(eval("(find {:a 1} :b)"), "nil");
  EXPECT_EQ(eval("(find {:a nil} :a)"), "[:a nil]");
  EXPECT_EQ(eval("(find {\"a\" 1} :a)"), "[\"a\" 1]");  // the stored key
  EXPECT_EQ(eval("(find nil :a)"), "nil");
  EXPECT_EQ(eval("(find {} :a)"), "nil");
  EXPECT_EQ(eval("(find [10 20 30] 2)"), "[2 30]");
  EXPECT_EQ(eval("(find [nil :b] 0)"), "[0 nil]");
  EXPECT_EQ(eval("(find [10 20] 2)"), "nil");
  EXPECT_EQ(eval("(find [10 20] -1)"), "nil");
  EXPECT_EQ(eval("(find [10 20] :a)"), "nil");
  // Not associative: a type error (DIV-48).
  EXPECT_TRUE(fails_with("(find #{nil} nil)", "type_error", "find: expected a map or vector"));
  EXPECT_TRUE(fails_with("(find \"abc\" 0)", "type_error", "got string"));
  EXPECT_TRUE(fails_with("(find {:a 1})", "arity_error"));

  EXPECT_EQ(eval("(key (first (entries {:a 1})))"), ":a");
  EXPECT_EQ(eval("(val (first (entries {:a 1})))"), "1");
  EXPECT_EQ(eval("(map key {:a 1 :b 2})"), "[:a :b]");
  EXPECT_EQ(eval("(map val {:a 1 :b 2})"), "[1 2]");
  EXPECT_EQ(eval("(key (find {:a 1} :a))"), ":a");
  // No separate map-entry type (DIV-49): any [k v] vector is an entry.
  EXPECT_EQ(eval("(val [:a 1])"), "1");
  EXPECT_TRUE(fails_with("(key nil)", "type_error", "key: expected a map entry"));
  EXPECT_TRUE(fails_with("(val [1 2 3])", "type_error", "val: expected a map entry"));
  EXPECT_TRUE(fails_with("(key {:a 1})", "type_error"));
  EXPECT_TRUE(fails_with("(key)", "arity_error"));
}

TEST(LibMaps, SelectKeys) {
  EXPECT_EQ(eval("(select-keys {:a 1 :b 2 :c 3} [:a :c])"), "{:a 1 :c 3}");
  EXPECT_EQ(eval("(select-keys {:a 1 :b 2} [:c])"), "{}");
  EXPECT_EQ(eval("(select-keys {:a nil} [:a])"), "{:a nil}");
  EXPECT_EQ(eval("(select-keys {:a 1} nil)"), "{}");  // GAP-S23
  EXPECT_EQ(eval("(select-keys nil [:a])"), "{}");
  EXPECT_EQ(eval("(select-keys {} [:a])"), "{}");
  // Flexible lookup, keyed as requested (DIV-46).
  EXPECT_EQ(eval("(select-keys {:a 1} [\"a\"])"), "{\"a\" 1}");
  EXPECT_EQ(eval("(select-keys {:a 1 :b 2} \":a\")"), "{\"a\" 1}");
  EXPECT_EQ(eval("(select-keys {\"id\" 7 \"x\" 0} [:id])"), "{:id 7}");
  EXPECT_EQ(eval("(select-keys {:a 1 :b 2} #{:b})"), "{:b 2}");
  EXPECT_EQ(eval("(select-keys [10 20] [0 1 5])"), "{0 10 1 20}");  // GAP-S43
  EXPECT_TRUE(
      fails_with("(select-keys {:a 1} :a)", "type_error", "select-keys: expected a sequence"));
  EXPECT_TRUE(fails_with("(select-keys 5 [:a])", "type_error", "select-keys: expected a map"));
  EXPECT_TRUE(fails_with("(select-keys {:a 1})", "arity_error"));
}

TEST(LibMaps, KeysValsEntries) {
  EXPECT_EQ(eval("(keys {:a 1 :b 2})"), "[:a :b]");
  EXPECT_EQ(eval("(vals {:a 1 :b 2})"), "[1 2]");
  EXPECT_EQ(eval("(keys {:b 2 :a 1})"), "[:b :a]");  // insertion order
  EXPECT_EQ(eval("(keys {})"), "nil");
  EXPECT_EQ(eval("(vals {})"), "nil");
  EXPECT_EQ(eval("(keys nil)"), "nil");
  EXPECT_EQ(eval("(vals nil)"), "nil");
  EXPECT_EQ(eval("(count (keys (reduce #(assoc %1 %2 %2) {} (range 100))))"), "100");
  EXPECT_EQ(eval("(entries {:a 1 :b 2})"), "[[:a 1] [:b 2]]");
  EXPECT_EQ(eval("(entries {})"), "[]");
  EXPECT_EQ(eval("(entries nil)"), "[]");
  EXPECT_TRUE(fails_with("(keys [1 2])", "type_error", "keys: expected a map (argument 1)"));
  EXPECT_TRUE(fails_with("(vals \"ab\")", "type_error", "vals: expected a map"));
  EXPECT_TRUE(fails_with("(entries #{1})", "type_error", "entries: expected a map"));
  EXPECT_TRUE(fails_with("(keys)", "arity_error"));
}

// ------------------------------------------------------------ assoc / dissoc

TEST(LibMaps, Assoc) {
  EXPECT_EQ(eval("(assoc {:a 1} :b 2)"), "{:a 1 :b 2}");
  EXPECT_EQ(eval("(assoc {:a 1} :a 5)"), "{:a 5}");
  EXPECT_EQ(eval("(assoc {} :a 1 :b 2 :c 3)"), "{:a 1 :b 2 :c 3}");
  EXPECT_EQ(eval("(assoc nil :a 1)"), "{:a 1}");
  EXPECT_EQ(eval("(assoc [1 2 3] 1 5)"), "[1 5 3]");
  EXPECT_EQ(eval("(assoc [1 2] 2 3)"), "[1 2 3]");  // index = count appends
  EXPECT_EQ(eval("(assoc [] 0 :x)"), "[:x]");
  // assoc sets the key exactly as given.
  EXPECT_EQ(eval("(assoc {\"a\" 1} :a 2)"), "{\"a\" 1 :a 2}");
  EXPECT_EQ(eval("(count (reduce (fn [m i] (assoc m i i)) {} (range 1000)))"), "1000");
  EXPECT_TRUE(fails_with("(assoc [1 2 3] 5 0)", "runtime_error", "index 5 is out of bounds"));
  EXPECT_TRUE(fails_with("(assoc [1 2 3] -1 0)", "runtime_error", "out of bounds"));
  EXPECT_TRUE(fails_with("(assoc [1] :a 0)", "type_error", "an integer index"));
  EXPECT_TRUE(fails_with("(assoc [1] 0 0 :k 1)", "type_error", "(argument 4)"));
  EXPECT_TRUE(
      fails_with("(assoc \"ab\" 0 \"x\")", "type_error", "assoc: expected a map or vector"));
  EXPECT_TRUE(fails_with("(assoc #{} 0 1)", "type_error"));
  EXPECT_TRUE(fails_with("(assoc {} :a 1 :b)", "arity_error", "key/value pairs"));
  EXPECT_TRUE(fails_with("(assoc {})", "arity_error"));  // GAP-S105
}

TEST(LibMaps, Dissoc) {
  EXPECT_EQ(eval("(dissoc {:a 1 :b 2} :b)"), "{:a 1}");
  EXPECT_EQ(eval("(dissoc {:a 1 :b 2 :c 3} :a :b)"), "{:c 3}");
  EXPECT_EQ(eval("(dissoc {:a 1} :z)"), "{:a 1}");
  EXPECT_EQ(eval("(dissoc {:a 1})"), "{:a 1}");
  EXPECT_EQ(eval("(dissoc {} :a)"), "{}");
  EXPECT_EQ(eval("(dissoc nil :a)"), "nil");              // GAP-S19
  EXPECT_EQ(eval("(dissoc {\"a\" 1} :a)"), "{\"a\" 1}");  // exact key
  EXPECT_EQ(eval("(count (apply dissoc (reduce #(assoc %1 %2 %2) {} (range 50)) (range 10 50)))"),
            "10");
  EXPECT_TRUE(fails_with("(dissoc [1 2] 0)", "type_error", "dissoc: expected a map (argument 1)"));
  EXPECT_TRUE(fails_with("(dissoc)", "arity_error"));
}

TEST(LibMaps, AssocIn) {
  EXPECT_EQ(eval("(assoc-in {} [:user :name] \"Bob\")"), "{:user {:name \"Bob\"}}");
  EXPECT_EQ(eval("(assoc-in {:a {:b 1 :c 2}} [:a :b] 9)"), "{:a {:b 9 :c 2}}");
  EXPECT_EQ(eval("(assoc-in nil [:a :b] 1)"), "{:a {:b 1}}");
  EXPECT_EQ(eval("(assoc-in [1 2 3] [1] 99)"), "[1 99 3]");
  EXPECT_EQ(eval("(assoc-in [[1 2] [3 4]] [0 1] 99)"), "[[1 99] [3 4]]");
  EXPECT_EQ(eval("(assoc-in {:xs [{:n 1}]} [:xs 0 :n] 2)"), "{:xs [{:n 2}]}");
  EXPECT_EQ(eval("(assoc-in [] [0 :a] 1)"), "[{:a 1}]");
  // Empty or nil path: the nil key (GAP-S68).
  EXPECT_EQ(eval("(assoc-in {:a 1} [] 2)"), "{:a 1 nil 2}");
  EXPECT_EQ(eval("(assoc-in {} [] 1)"), "{nil 1}");
  EXPECT_EQ(eval("(assoc-in {:a 1} nil 2)"), "{:a 1 nil 2}");
  // The path descends into string-keyed maps; the last key is set exactly.
  EXPECT_EQ(eval("(assoc-in {\"user\" {\"name\" \"A\"}} [:user :age] 3)"),
            "{\"user\" {\"name\" \"A\" :age 3}}");
  // A deep generated path does not exhaust the stack.
  EXPECT_EQ(eval("(get-in (assoc-in {} (range 20000) :deep) (range 20000))"), ":deep");
  EXPECT_TRUE(fails_with("(assoc-in {:a 5} [:a :b] 1)", "type_error", "not a map or vector"));
  EXPECT_TRUE(fails_with("(assoc-in [1 2] [5] 0)", "runtime_error", "out of bounds"));
  EXPECT_TRUE(fails_with("(assoc-in {} :a 1)", "type_error", "expected a sequence of keys"));
  EXPECT_TRUE(fails_with("(assoc-in 5 [:a] 1)", "type_error", "(argument 1)"));
  EXPECT_TRUE(fails_with("(assoc-in {} [:a])", "arity_error"));
}

// ------------------------------------------------------------ update / update-in

TEST(LibMaps, Update) {
  EXPECT_EQ(eval("(update {:n 1} :n inc)"), "{:n 2}");
  EXPECT_EQ(eval("(update {:n 1} :n + 5)"), "{:n 6}");
  EXPECT_EQ(eval("(update {:n 1} :n + 1 2 3 4)"), "{:n 11}");
  EXPECT_EQ(eval("(update {:n nil} :n (fnil inc 0))"), "{:n 1}");
  EXPECT_EQ(eval("(update {:n nil} :n (fnil + 0) 5)"), "{:n 5}");
  EXPECT_EQ(eval("(update {} :xs conj 1)"), "{:xs [1]}");
  EXPECT_EQ(eval("(update {:a 1} :b (fn [x] x))"), "{:a 1 :b nil}");
  EXPECT_EQ(eval("(update {:m {:a 1}} :m :a)"), "{:m 1}");    // keyword as the function
  EXPECT_EQ(eval("(update nil :a (fnil inc 0))"), "{:a 1}");  // GAP-S19
  EXPECT_EQ(eval("(update [1 2 3] 0 inc)"), "[2 2 3]");
  EXPECT_EQ(eval("(update [10 20] 2 (fnil inc 0))"), "[10 20 1]");  // GAP-S83
  // Read-modify-write on string-keyed data writes back where it read.
  EXPECT_EQ(eval("(update {\"a\" 1} :a inc)"), "{\"a\" 2}");
  EXPECT_EQ(eval("(update {:a 9 \"a\" 1} \"a\" inc)"), "{:a 9 \"a\" 2}");
  EXPECT_EQ(eval("(update {:turn_count 1} :turn-count inc)"), "{:turn_count 2}");
  EXPECT_TRUE(
      fails_with("(update [1 2] 5 inc)", "runtime_error", "update: index 5 is out of bounds"));
  EXPECT_TRUE(
      fails_with("(update \"ab\" 0 inc)", "type_error", "update: expected a map or vector"));
  EXPECT_TRUE(
      fails_with("(update {:a 1} :a 5)", "type_error", "update: expected a function (argument 3)"));
  EXPECT_TRUE(fails_with("(update {:a \"x\"} :a inc)", "type_error"));
  EXPECT_TRUE(fails_with("(update {:a 1} :a)", "arity_error"));
}

TEST(LibMaps, UpdateIn) {
  EXPECT_EQ(eval("(update-in {:a {:b 1}} [:a :b] + 10)"), "{:a {:b 11}}");
  EXPECT_EQ(eval("(update-in {:a {:b 1}} [:a :b] inc)"), "{:a {:b 2}}");
  EXPECT_EQ(eval("(update-in {} [:a :b] (fnil inc 0))"), "{:a {:b 1}}");
  EXPECT_EQ(eval("(update-in nil [:a] (fnil inc 0))"), "{:a 1}");
  EXPECT_EQ(eval("(update-in [1 2 3] [1] inc)"), "[1 3 3]");
  EXPECT_EQ(eval("(update-in {:xs [{:n 1} {:n 2}]} [:xs 1 :n] * 10)"), "{:xs [{:n 1} {:n 20}]}");
  EXPECT_EQ(eval("(update-in [10 20] [2] (fnil inc 0))"), "[10 20 1]");  // GAP-S83
  EXPECT_EQ(eval("(update-in [] [0] (fnil identity :x))"), "[:x]");
  // Empty or nil path: the nil key (GAP-S55).
  EXPECT_EQ(eval("(update-in {:a 1} [] identity)"), "{:a 1 nil nil}");
  EXPECT_EQ(eval("(update-in {:a 1} [] (constantly 2))"), "{:a 1 nil 2}");
  EXPECT_EQ(eval("(update-in {:a 1} nil identity)"), "{:a 1 nil nil}");
  EXPECT_EQ(eval("(update-in {nil 1 \"\" 5} [] inc)"), "{nil 2 \"\" 5}");
  // String-keyed data, at every level.
  EXPECT_EQ(eval("(update-in {\"user\" {\"visits\" 1}} [:user :visits] inc)"),
            "{\"user\" {\"visits\" 2}}");
  EXPECT_TRUE(
      fails_with("(update-in {:a \"s\"} [:a :b] inc)", "type_error", "not a map or vector"));
  EXPECT_TRUE(fails_with("(update-in [1] [nil] inc)", "type_error", "an integer index"));
  EXPECT_TRUE(fails_with("(update-in [1] [3] inc)", "runtime_error", "out of bounds"));
  EXPECT_TRUE(fails_with("(update-in {:a 1} [:a] nil)", "type_error", "expected a function"));
  EXPECT_TRUE(fails_with("(update-in {:a 1} :a inc)", "type_error", "sequence of keys"));
  EXPECT_TRUE(fails_with("(update-in {:a 1} [:a])", "arity_error"));
}

// ------------------------------------------------------------ merging

TEST(LibMaps, Merge) {
  EXPECT_EQ(eval("(merge {:a 1} {:b 2} {:a 3})"), "{:a 3 :b 2}");
  EXPECT_EQ(eval("(merge {:a 1} nil {:b 2})"), "{:a 1 :b 2}");
  EXPECT_EQ(eval("(merge nil {:a 1})"), "{:a 1}");
  EXPECT_EQ(eval("(merge {} {:a 1})"), "{:a 1}");
  EXPECT_EQ(eval("(merge {:a 1})"), "{:a 1}");
  // Nothing truthy: nil (GAP-S54).
  EXPECT_EQ(eval("(merge)"), "nil");
  EXPECT_EQ(eval("(merge nil)"), "nil");
  EXPECT_EQ(eval("(merge nil nil)"), "nil");
  // One argument is returned as it is (GAP-S146); vector targets conj (GAP-S90);
  // a [k v] source is an entry (GAP-S100).
  EXPECT_EQ(eval("(merge \"ab\")"), "\"ab\"");
  EXPECT_EQ(eval("(merge [1 2])"), "[1 2]");
  EXPECT_EQ(eval("(merge [1 2] [3 4])"), "[1 2 [3 4]]");
  EXPECT_EQ(eval("(merge {:a 1} [:b 2])"), "{:a 1 :b 2}");
  // Exact keys: a string key and a keyword key stay apart.
  EXPECT_EQ(eval("(merge {\"a\" 1} {:a 2})"), "{\"a\" 1 :a 2}");
  // Small into large and large into small give the same map.
  EXPECT_EQ(eval("(let [big (reduce #(assoc %1 %2 %2) {} (range 100))]"
                 "  [(count (merge big {:x 1})) (get (merge big {5 :five}) 5)"
                 "   (count (merge {:x 1} big)) (first (keys (merge {:x 1} big)))"
                 "   (= (merge big big) big)])"),
            "[101 :five 101 :x true]");
  EXPECT_TRUE(fails_with("(merge {:a 1} 5)", "type_error", "merge: expected a map"));
  EXPECT_TRUE(fails_with("(merge {:a 1} [1 2 3])", "type_error", "(argument 2)"));
  EXPECT_TRUE(fails_with("(merge \"ab\" {:a 1})", "type_error", "(argument 1)"));
}

TEST(LibMaps, MergeWith) {
  EXPECT_EQ(eval("(merge-with + {:a 1 :b 2} {:a 3 :c 4})"), "{:a 4 :b 2 :c 4}");
  EXPECT_EQ(eval("(merge-with + {:a 1} {:a 2} {:a 3})"), "{:a 6}");
  EXPECT_EQ(eval("(merge-with conj {:a [1]} {:a 2 :b [3]})"), "{:a [1 2] :b [3]}");
  EXPECT_EQ(eval("(merge-with + nil {:a 1})"), "{:a 1}");
  EXPECT_EQ(eval("(merge-with + {:a 1} nil)"), "{:a 1}");
  EXPECT_EQ(eval("(merge-with +)"), "nil");  // GAP-S54
  EXPECT_EQ(eval("(merge-with + nil)"), "nil");
  EXPECT_EQ(eval("(merge-with + \"ab\")"), "\"ab\"");  // GAP-S146
  EXPECT_EQ(eval("(merge-with + [1 2])"), "[1 2]");
  EXPECT_EQ(eval("(merge-with + [1 2] {1 10})"), "[1 12]");  // GAP-S90
  EXPECT_EQ(eval("(merge-with + [1 2] {2 10})"), "[1 2 10]");
  // Many entries take the table path: same result as the persistent path.
  EXPECT_EQ(eval("(let [a (reduce #(assoc %1 %2 1) {} (range 50)) b (reduce #(assoc %1 %2 2) {} "
                 "(range 25 75))"
                 "      m (merge-with + a b)]"
                 "  [(count m) (get m 0) (get m 30) (get m 70) (first (keys m))])"),
            "[75 1 3 2 0]");
  EXPECT_TRUE(
      fails_with("(merge-with + {:a 1} [:a 2])", "type_error", "merge-with: expected a map"));
  EXPECT_TRUE(fails_with("(merge-with + [1] {5 1})", "runtime_error", "out of bounds"));
  EXPECT_TRUE(fails_with("(merge-with 5 {:a 1} {:a 2})", "type_error", "expected a function"));
  EXPECT_TRUE(fails_with("(merge-with)", "arity_error"));
}

// ------------------------------------------------------------ update-keys / update-vals

TEST(LibMaps, UpdateKeysAndVals) {
  EXPECT_EQ(eval("(update-vals {:a 1 :b 2} inc)"), "{:a 2 :b 3}");
  EXPECT_EQ(eval("(update-keys {:a 1 :b 2} str)"), "{\":a\" 1 \":b\" 2}");
  EXPECT_EQ(eval("(update-keys {:a 1 :b 2} name)"), "{\"a\" 1 \"b\" 2}");
  EXPECT_EQ(eval("(update-keys {1 :a 2 :b} (constantly 0))"), "{0 :b}");  // later wins
  EXPECT_EQ(eval("(update-vals (group-by :s [{:s :x} {:s :y} {:s :x}]) count)"), "{:x 2 :y 1}");
  EXPECT_EQ(eval("(update-vals {} inc)"), "{}");
  EXPECT_EQ(eval("(update-keys {} inc)"), "{}");
  EXPECT_EQ(eval("(update-keys nil name)"), "{}");  // GAP-S24
  EXPECT_EQ(eval("(update-vals nil inc)"), "{}");
  EXPECT_EQ(eval("(update-keys [10 20] inc)"), "{1 10 2 20}");  // GAP-S75
  EXPECT_EQ(eval("(update-vals [10 20] inc)"), "[11 21]");
  EXPECT_EQ(eval("(update-vals [] inc)"), "[]");
  EXPECT_EQ(eval("(update-keys [] inc)"), "{}");
  EXPECT_EQ(eval("(update-vals {:a :x :b :y} {:x 1 :y 2})"), "{:a 1 :b 2}");
  EXPECT_TRUE(fails_with("(update-vals \"ab\" inc)", "type_error", "update-vals: expected a map"));
  EXPECT_TRUE(
      fails_with("(update-keys {:a 1} 3)", "type_error", "expected a function (argument 2)"));
  EXPECT_TRUE(fails_with("(update-vals {:a 1})", "arity_error"));
}

// ------------------------------------------------------------ sets

TEST(LibSets, Construction) {
  EXPECT_EQ(eval("(hash-set 1 1 2)"), "#{1 2}");
  EXPECT_EQ(eval("(hash-set)"), "#{}");
  EXPECT_EQ(eval("(set [1 2 2 3])"), "#{1 2 3}");
  EXPECT_EQ(eval("(set nil)"), "#{}");  // GAP-S30
  EXPECT_EQ(eval("(set \"abca\")"), "#{\"a\" \"b\" \"c\"}");
  EXPECT_EQ(eval("(set {:a 1})"), "#{[:a 1]}");
  EXPECT_EQ(eval("(set [])"), "#{}");
  EXPECT_EQ(eval("(= (set [1 2]) #{2 1})"), "true");
  EXPECT_EQ(eval("(set? (set [1]))"), "true");
  EXPECT_EQ(eval("(set? [1])"), "false");
  EXPECT_TRUE(fails_with("(set 5)", "type_error", "set: expected a collection"));
  EXPECT_TRUE(fails_with("(set)", "arity_error"));
}

TEST(LibSets, Contains) {
  EXPECT_EQ(eval("(contains? #{1 2} 1)"), "true");
  EXPECT_EQ(eval("(contains? #{1 2} 3)"), "false");
  EXPECT_EQ(eval("(contains? #{nil} nil)"), "true");
  EXPECT_EQ(eval("(contains? {:a nil} :a)"), "true");
  EXPECT_EQ(eval("(contains? {\"a\" 1} :a)"), "true");  // flexible keys (DIV-47)
  EXPECT_EQ(eval("(contains? {:a 1} :b)"), "false");
  // Vectors: membership, not index (DIV-27).
  EXPECT_EQ(eval("(contains? [1 2] 2)"), "true");
  EXPECT_EQ(eval("(contains? [10 20] 1)"), "false");
  EXPECT_EQ(eval("(contains? nil :a)"), "false");
  EXPECT_EQ(eval("(contains? [] 1)"), "false");
  // Strings: index (GAP-S35).
  EXPECT_EQ(eval("(contains? \"abc\" 1)"), "true");
  EXPECT_EQ(eval("(contains? \"abc\" 1.0)"), "true");
  EXPECT_EQ(eval("(contains? \"abc\" 3)"), "false");
  EXPECT_EQ(eval("(contains? \"abc\" \"a\")"), "false");
  EXPECT_TRUE(fails_with("(contains? 5 1)", "type_error", "contains?: expected a collection"));
  EXPECT_TRUE(fails_with("(contains? #{1})", "arity_error"));
}

TEST(LibSets, Disj) {
  EXPECT_EQ(eval("(disj #{1 2 3} 2)"), "#{1 3}");
  EXPECT_EQ(eval("(disj #{1 2 3} 2 3)"), "#{1}");
  EXPECT_EQ(eval("(disj #{1 2} 9)"), "#{1 2}");
  EXPECT_EQ(eval("(disj #{1})"), "#{1}");
  EXPECT_EQ(eval("(disj #{} 1)"), "#{}");
  EXPECT_EQ(eval("(disj nil 1)"), "nil");
  EXPECT_TRUE(fails_with("(disj [1 2] 1)", "type_error", "disj: expected a set (argument 1)"));
  EXPECT_TRUE(fails_with("(disj)", "arity_error"));
}

TEST(LibSets, Union) {
  EXPECT_EQ(eval("(clojure.set/union #{1 2} #{2 3})"), "#{1 2 3}");
  EXPECT_EQ(eval("(clojure.set/union #{1} #{2} #{3 4})"), "#{3 4 1 2}");
  EXPECT_EQ(eval("(union #{1 2} #{2 3})"), "#{1 2 3}");
  EXPECT_EQ(eval("(clojure.set/union)"), "#{}");
  EXPECT_EQ(eval("(clojure.set/union #{1})"), "#{1}");
  EXPECT_EQ(eval("(clojure.set/union nil #{1})"), "#{1}");  // GAP-S30
  EXPECT_EQ(eval("(clojure.set/union #{1} nil)"), "#{1}");
  EXPECT_EQ(eval("(clojure.set/union nil nil)"), "nil");
  EXPECT_EQ(eval("(clojure.set/union #{} #{})"), "#{}");
  EXPECT_EQ(eval("(clojure.set/union {:a 1} #{[:b 2]})"), "{:a 1 :b 2}");
  EXPECT_EQ(eval("(clojure.set/union #{\"a\" \"b\" \"c\"} \"ab\" \"ad\")"),
            "#{\"a\" \"b\" \"c\" \"d\"}");
  EXPECT_EQ(eval("(count (clojure.set/union (set (range 100)) #{-1} (set (range 50 150))))"),
            "151");
  EXPECT_TRUE(fails_with("(clojure.set/union #{1} 5)", "type_error", "(argument 2)"));
  EXPECT_TRUE(fails_with("(clojure.set/union \"ab\" #{1})", "type_error", "union: expected sets"));
}

TEST(LibSets, Intersection) {
  EXPECT_EQ(eval("(clojure.set/intersection #{1 2 3} #{2 3 4})"), "#{2 3}");
  EXPECT_EQ(eval("(clojure.set/intersection #{1 2 3} #{2 3 4} #{3 9})"), "#{3}");
  EXPECT_EQ(eval("(clojure.set/intersection #{1 2} #{3})"), "#{}");
  EXPECT_EQ(eval("(clojure.set/intersection #{1})"), "#{1}");
  EXPECT_EQ(eval("(clojure.set/intersection nil #{1})"), "nil");  // GAP-S30
  EXPECT_EQ(eval("(clojure.set/intersection #{1 2} nil)"), "nil");
  EXPECT_EQ(eval("(clojure.set/intersection {:a 1} #{[:a 1]})"), "{:a 1}");
  // A vector argument is tested for membership, as contains? does (DIV-27).
  EXPECT_EQ(eval("(clojure.set/intersection #{1 2} [2 3])"), "#{2}");
  EXPECT_EQ(eval("(clojure.set/intersection [1 2] #{2})"), "#{2}");
  EXPECT_TRUE(fails_with("(clojure.set/intersection [1 2] [2])", "type_error", "expected a set"));
  EXPECT_TRUE(fails_with("(clojure.set/intersection #{1} 5)", "type_error"));
  EXPECT_TRUE(fails_with("(clojure.set/intersection)", "arity_error"));
}

TEST(LibSets, Difference) {
  EXPECT_EQ(eval("(clojure.set/difference #{1 2 3} #{2})"), "#{1 3}");
  EXPECT_EQ(eval("(clojure.set/difference #{1 2 3} #{2} #{3})"), "#{1}");
  EXPECT_EQ(eval("(clojure.set/difference #{1 2})"), "#{1 2}");
  EXPECT_EQ(eval("(clojure.set/difference nil #{1})"), "nil");  // GAP-S30
  EXPECT_EQ(eval("(clojure.set/difference #{1 2} nil)"), "#{1 2}");
  EXPECT_EQ(eval("(clojure.set/difference #{1 2} [2])"), "#{1}");
  EXPECT_EQ(eval("(clojure.set/difference #{[:a 1]} {:a 1})"), "#{}");
  EXPECT_EQ(eval("(clojure.set/difference #{\"a\" \"b\" \"c\"} \"ab\")"), "#{\"c\"}");
  EXPECT_EQ(eval("(count (clojure.set/difference (set (range 1000)) #{5 6}))"), "998");
  EXPECT_EQ(eval("(count (clojure.set/difference (set (range 10)) (set (range 5 100))))"), "5");
  EXPECT_TRUE(fails_with("(clojure.set/difference [1 2] #{1})", "type_error", "expected a set"));
  EXPECT_TRUE(fails_with("(clojure.set/difference #{1} 5)", "type_error"));
  EXPECT_TRUE(fails_with("(clojure.set/difference)", "arity_error"));
}

TEST(LibSets, SubsetSuperset) {
  EXPECT_EQ(eval("(clojure.set/subset? #{1} #{1 2})"), "true");
  EXPECT_EQ(eval("(clojure.set/subset? #{1 3} #{1 2})"), "false");
  EXPECT_EQ(eval("(clojure.set/subset? #{} #{1})"), "true");
  EXPECT_EQ(eval("(clojure.set/subset? nil #{1})"), "true");
  EXPECT_EQ(eval("(clojure.set/subset? #{1} nil)"), "false");
  EXPECT_EQ(eval("(clojure.set/superset? #{1 2} #{1})"), "true");
  EXPECT_EQ(eval("(clojure.set/superset? #{1} #{1 2})"), "false");
  EXPECT_TRUE(
      fails_with("(clojure.set/subset? [1] #{1})", "type_error", "subset?: expected a set"));
  EXPECT_TRUE(fails_with("(clojure.set/superset? #{1})", "arity_error"));
}

TEST(LibSets, RenameKeys) {
  EXPECT_EQ(eval("(clojure.set/rename-keys {:a 1 :b 2} {:a :x})"), "{:b 2 :x 1}");
  EXPECT_EQ(eval("(clojure.set/rename-keys {:a 1 :b 2} {:a :b :b :a})"), "{:b 1 :a 2}");
  EXPECT_EQ(eval("(clojure.set/rename-keys {:a 1} {:z :y})"), "{:a 1}");
  EXPECT_EQ(eval("(clojure.set/rename-keys {\"id\" 1} {:id :user-id})"), "{:user-id 1}");
  EXPECT_EQ(eval("(clojure.set/rename-keys nil {:a :b})"), "nil");
  EXPECT_EQ(eval("(clojure.set/rename-keys {:a 1} {})"), "{:a 1}");
  EXPECT_TRUE(fails_with("(clojure.set/rename-keys [1] {:a :b})", "type_error", "expected a map"));
  EXPECT_TRUE(fails_with("(clojure.set/rename-keys {:a 1} [:a :b])", "type_error", "(argument 2)"));
}

TEST(LibMaps, LargeInputsChargeReductions) {
  // Work proportional to the input is charged, so a huge input hits the timeout.
  const std::string setup =
      "(let [a (reduce #(assoc %1 %2 %2) {} (range 4000)) "
      "b (reduce #(assoc %1 %2 %2) {} (range 4000 8000)) s (set (range 4000))] ";
  ptc::Step base = ptc::run(setup + "(count a))");
  ASSERT_TRUE(base.ok) << base.error.describe();
  for (const char* body : {"(count (merge a b))", "(count (keys a))", "(count (update-vals a inc))",
                           "(count (select-keys a (range 4000)))",
                           "(count (clojure.set/difference s (set (range 2000 6000))))"}) {
    ptc::Step r = ptc::run(setup + body + ")");
    ASSERT_TRUE(r.ok) << body << ": " << r.error.describe();
    EXPECT_GE(r.usage.eval_reductions, base.usage.eval_reductions + 3000) << body;
  }
}

}  // namespace

// (:k m) has an inline path for small maps (the VM's KWGET); it must find
// what get finds, in every combination of keyword, string, underscored and
// foreign keys, including a keyword whose string twin comes first.
TEST(LibMaps, KeywordCallFindsWhatGetFinds) {
  const char* maps[] = {
      "{\"a\" 1 :a 2}",
      "{:a 2 \"a\" 1}",
      "{\"a\" 1}",
      "{\"b_c\" 3}",
      "{\"b-c\" 4 :b_c 5}",
      "{:b_c 5 \"b_c\" 6}",
      "{'a 1 \"a\" 7}",
      "{1 2 nil 3 \"a\" 8}",
      "(zipmap (map #(keyword (str \"k\" %)) (range 20)) (range 20))",
      "(json/parse-string \"{\\\"a\\\": 9, \\\"b-c\\\": 10}\")",
  };
  for (const char* m : maps) {
    for (const char* k : {":a", ":b-c", ":b_c", ":k3", ":zz"}) {
      std::string inline_call = std::string("(let [m ") + m + "] (" + k + " m))";
      std::string general = std::string("(let [m ") + m + "] (get m " + k + "))";
      EXPECT_EQ(eval(inline_call), eval(general)) << inline_call;
    }
  }
}
