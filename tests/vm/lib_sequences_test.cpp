// The sequence library end to end: collection access and construction
// (collections.cpp), the higher-order functions and generators
// (sequences.cpp), and slicing/reshaping (seq_ops.cpp). Each family covers
// normal use, nil punning, empty collections, and its errors.
#include <gtest/gtest.h>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

ErrorKind kind_of(const std::string& src) {
  return eval_error(src).kind;
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- collections.cpp ----------------------------------------------------------

TEST(LibSequences, CountAndConstruction) {
  EXPECT_EQ(eval("(count [1 2 3])"), "3");
  EXPECT_EQ(eval("(count {:a 1 :b 2})"), "2");
  EXPECT_EQ(eval("(count #{1 2})"), "2");
  EXPECT_EQ(eval("(count \"héllo\")"), "5");
  EXPECT_EQ(eval("(count nil)"), "0");
  EXPECT_EQ(eval("(count [])"), "0");
  EXPECT_EQ(eval("(vector 1 :a)"), "[1 :a]");
  EXPECT_EQ(eval("(list 1 2)"), "[1 2]");
  EXPECT_EQ(eval("(list)"), "[]");
  EXPECT_EQ(eval("(vec {:a 1})"), "[[:a 1]]");
  EXPECT_EQ(eval("(vec \"ab\")"), "[\"a\" \"b\"]");
  EXPECT_EQ(eval("(vec nil)"), "[]");
  EXPECT_EQ(kind_of("(count 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(vec :a)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(count [1] [2])"), ErrorKind::ArityError);
}

TEST(LibSequences, Seq) {
  EXPECT_EQ(eval("(seq [1 2 3])"), "[1 2 3]");
  EXPECT_EQ(eval("(seq \"hey\")"), "[\"h\" \"e\" \"y\"]");
  EXPECT_EQ(eval("(seq {:b 2 :a 1})"), "[[:b 2] [:a 1]]");  // insertion order
  EXPECT_EQ(eval("(seq #{3 1})"), "[3 1]");
  EXPECT_EQ(eval("(seq [])"), "nil");
  EXPECT_EQ(eval("(seq \"\")"), "nil");
  EXPECT_EQ(eval("(seq {})"), "nil");
  EXPECT_EQ(eval("(seq nil)"), "nil");
  EXPECT_EQ(kind_of("(seq 1)"), ErrorKind::TypeError);
}

TEST(LibSequences, FirstSecondLast) {
  EXPECT_EQ(eval("(first [1 2 3])"), "1");
  EXPECT_EQ(eval("(second [1 2 3])"), "2");
  EXPECT_EQ(eval("(last [1 2 3])"), "3");
  EXPECT_EQ(eval("(first \"héllo\")"), "\"h\"");
  EXPECT_EQ(eval("(second \"héllo\")"), "\"é\"");
  EXPECT_EQ(eval("(last \"héllo\")"), "\"o\"");
  EXPECT_EQ(eval("(first nil)"), "nil");
  EXPECT_EQ(eval("(second nil)"), "nil");
  EXPECT_EQ(eval("(last nil)"), "nil");
  EXPECT_EQ(eval("(first [])"), "nil");
  EXPECT_EQ(eval("(second [1])"), "nil");
  EXPECT_EQ(eval("(last \"\")"), "nil");
  // Maps and sets have no positions (DIV-29, spec §3.9); seq gives an ordered view.
  ptc::Error e = eval_error("(first {:a 1})");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(mentions(e.message, "first")) << e.message;
  EXPECT_TRUE(mentions(e.hint, "(seq m)")) << e.hint;
  EXPECT_EQ(kind_of("(last #{1 2})"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(second {:a 1})"), ErrorKind::TypeError);
  EXPECT_EQ(eval("(first (seq {:a 1}))"), "[:a 1]");
  EXPECT_EQ(kind_of("(first 1)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(first)"), ErrorKind::ArityError);
}

TEST(LibSequences, RestNextButlast) {
  EXPECT_EQ(eval("(rest [1 2 3])"), "[2 3]");
  EXPECT_EQ(eval("(rest [1])"), "[]");
  EXPECT_EQ(eval("(rest [])"), "[]");
  EXPECT_EQ(eval("(rest nil)"), "[]");
  EXPECT_EQ(eval("(rest \"abc\")"), "[\"b\" \"c\"]");
  EXPECT_EQ(eval("(next [1 2 3])"), "[2 3]");
  EXPECT_EQ(eval("(next [1])"), "nil");
  EXPECT_EQ(eval("(next nil)"), "nil");
  EXPECT_EQ(eval("(next \"a\")"), "nil");
  EXPECT_EQ(eval("(butlast [1 2 3 4])"), "[1 2 3]");
  EXPECT_EQ(eval("(butlast [1])"), "nil");
  EXPECT_EQ(eval("(butlast [])"), "nil");
  EXPECT_EQ(eval("(butlast nil)"), "nil");
  EXPECT_EQ(eval("(butlast \"ab\")"), "[\"a\"]");
  // A vector with a trie (more than 32 items) slices correctly.
  EXPECT_EQ(eval("(= (rest (vec (range 100))) (range 1 100))"), "true");
  EXPECT_EQ(eval("(= (butlast (vec (range 100))) (range 99))"), "true");
  EXPECT_EQ(kind_of("(rest {:a 1})"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(next #{1})"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(butlast {:a 1})"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(rest 3)"), ErrorKind::TypeError);
}

TEST(LibSequences, FirstAndNextCompositions) {
  EXPECT_EQ(eval("(ffirst [[1 2] [3]])"), "1");
  EXPECT_EQ(eval("(fnext [1 2 3])"), "2");
  EXPECT_EQ(eval("(nfirst [[1 2] [3]])"), "[2]");
  EXPECT_EQ(eval("(nnext [1 2 3 4])"), "[3 4]");
  EXPECT_EQ(eval("(nnext [1 2])"), "nil");
  EXPECT_EQ(eval("(ffirst nil)"), "nil");
  EXPECT_EQ(eval("(fnext nil)"), "nil");
  EXPECT_EQ(eval("(nfirst nil)"), "nil");
  EXPECT_EQ(eval("(nnext nil)"), "nil");
  EXPECT_EQ(eval("(ffirst [\"ab\"])"), "\"a\"");
  EXPECT_EQ(kind_of("(ffirst [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(fnext {:a 1 :b 2})"), ErrorKind::TypeError);
}

TEST(LibSequences, Nth) {
  EXPECT_EQ(eval("(nth [1 2 3] 1)"), "2");
  EXPECT_EQ(eval("(nth [1 2 3] 10)"), "nil");  // DIV-26
  EXPECT_EQ(eval("(nth [1 2 3] -1)"), "nil");
  EXPECT_EQ(eval("(nth [1 2] 5 :x)"), ":x");
  EXPECT_EQ(eval("(nth nil 0)"), "nil");
  EXPECT_EQ(eval("(nth nil 0 :x)"), ":x");
  EXPECT_EQ(eval("(nth \"héllo\" 1)"), "\"é\"");
  EXPECT_EQ(eval("(nth [10 20] 1.0)"), "20");  // GAP-S79
  EXPECT_EQ(kind_of("(nth {:a 1} 0)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(nth #{1} 0)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(nth [1] :a)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(nth [1])"), ErrorKind::ArityError);
}

TEST(LibSequences, PeekPopSubvec) {
  EXPECT_EQ(eval("(peek [1 2 3])"), "3");
  EXPECT_EQ(eval("(peek [])"), "nil");
  EXPECT_EQ(eval("(peek nil)"), "nil");
  EXPECT_EQ(eval("(pop [1 2 3])"), "[1 2]");
  EXPECT_EQ(eval("(pop [1])"), "[]");
  EXPECT_EQ(eval("(pop [])"), "nil");  // DIV-26
  EXPECT_EQ(eval("(pop nil)"), "nil");
  EXPECT_EQ(eval("(subvec [0 1 2 3 4] 1 3)"), "[1 2]");
  EXPECT_EQ(eval("(subvec [0 1 2 3 4] 2)"), "[2 3 4]");
  EXPECT_EQ(eval("(subvec [1 2 3] 0 9)"), "[1 2 3]");  // clamped (DIV-26)
  EXPECT_EQ(eval("(subvec [1 2 3] -1)"), "[1 2 3]");
  EXPECT_EQ(eval("(subvec [1 2 3] 2 1)"), "[]");
  EXPECT_EQ(eval("(subvec [1 2 3] 0.9 2.9)"), "[1 2]");  // GAP-S79
  EXPECT_EQ(eval("(subvec [] 0)"), "[]");
  EXPECT_EQ(kind_of("(peek \"ab\")"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(pop #{1})"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(subvec \"abc\" 1)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(subvec [1] :a)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(subvec [1])"), ErrorKind::ArityError);
}

TEST(LibSequences, EmptyAndNotEmpty) {
  EXPECT_EQ(eval("(empty [1 2 3])"), "[]");
  EXPECT_EQ(eval("(empty {:a 1})"), "{}");
  EXPECT_EQ(eval("(empty #{1})"), "#{}");
  EXPECT_EQ(eval("(empty nil)"), "nil");
  EXPECT_EQ(eval("(empty \"abc\")"), "nil");  // GAP-S56
  EXPECT_EQ(eval("(empty 1)"), "nil");        // GAP-S88
  EXPECT_EQ(eval("(empty :a)"), "nil");
  EXPECT_EQ(eval("(not-empty [1 2])"), "[1 2]");
  EXPECT_EQ(eval("(not-empty {:a 1})"), "{:a 1}");
  EXPECT_EQ(eval("(not-empty \"abc\")"), "\"abc\"");
  EXPECT_EQ(eval("(not-empty [])"), "nil");
  EXPECT_EQ(eval("(not-empty \"\")"), "nil");
  EXPECT_EQ(eval("(not-empty nil)"), "nil");
  EXPECT_EQ(kind_of("(not-empty 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(empty)"), ErrorKind::ArityError);
}

TEST(LibSequences, ConsAndConj) {
  EXPECT_EQ(eval("(cons 0 [1 2 3])"), "[0 1 2 3]");
  EXPECT_EQ(eval("(cons 0 nil)"), "[0]");
  EXPECT_EQ(eval("(cons 0 [])"), "[0]");
  EXPECT_EQ(eval("(cons :x \"ab\")"), "[:x \"a\" \"b\"]");
  EXPECT_EQ(eval("(cons 0 {:a 1})"), "[0 [:a 1]]");
  EXPECT_EQ(eval("(conj [1 2] 3)"), "[1 2 3]");
  EXPECT_EQ(eval("(conj [1] 2 3)"), "[1 2 3]");
  EXPECT_EQ(eval("(conj [1] nil)"), "[1 nil]");
  EXPECT_EQ(eval("(conj nil 1)"), "[1]");
  EXPECT_EQ(eval("(conj nil :a :b)"), "[:a :b]");  // DIV-25: no lists
  EXPECT_EQ(eval("(conj)"), "[]");
  EXPECT_EQ(eval("(conj [1])"), "[1]");
  EXPECT_EQ(eval("(conj #{1 2} 3)"), "#{1 2 3}");
  EXPECT_EQ(eval("(conj #{1} 1 2)"), "#{1 2}");
  EXPECT_EQ(eval("(conj {:a 1} [:b 2])"), "{:a 1 :b 2}");
  EXPECT_EQ(eval("(conj {:a 1} {:b 2 :a 3})"), "{:a 3 :b 2}");  // GAP-S76
  EXPECT_EQ(eval("(conj {:a 1} nil)"), "{:a 1}");
  EXPECT_EQ(eval("(conj {:a 1} [:b 2] [:c 3])"), "{:a 1 :b 2 :c 3}");
  // A vector with a trie keeps its items.
  EXPECT_EQ(eval("(= (conj (vec (range 40)) 40 41) (range 42))"), "true");
  EXPECT_EQ(kind_of("(conj {:a 1} [:b])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(conj \"ab\" \"c\")"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(cons 1 2)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(cons 1)"), ErrorKind::ArityError);
}

TEST(LibSequences, Into) {
  EXPECT_EQ(eval("(into [] [1 2 3])"), "[1 2 3]");
  EXPECT_EQ(eval("(into [0] (list 1 2))"), "[0 1 2]");
  EXPECT_EQ(eval("(into [] {:a 1 :b 2})"), "[[:a 1] [:b 2]]");
  EXPECT_EQ(eval("(into #{} [1 2 2 3])"), "#{1 2 3}");
  EXPECT_EQ(eval("(into #{} \"ab\")"), "#{\"a\" \"b\"}");  // GAP-S41
  EXPECT_EQ(eval("(into {} [[:a 1] [:b 2]])"), "{:a 1 :b 2}");
  EXPECT_EQ(eval("(into #{} {:a 1})"), "#{[:a 1]}");
  EXPECT_EQ(eval("(into {} #{[:a 1]})"), "{:a 1}");
  EXPECT_EQ(eval("(into {:a 1} {:a 2 :b 3})"), "{:a 2 :b 3}");
  EXPECT_EQ(eval("(into {} [{:a 1} nil])"), "{:a 1}");
  EXPECT_EQ(eval("(into nil [1 2])"), "[1 2]");
  EXPECT_EQ(eval("(into [1] nil)"), "[1]");
  EXPECT_EQ(eval("(into)"), "[]");
  EXPECT_EQ(eval("(into [1])"), "[1]");
  // Few items into a big collection take the persistent path; same result.
  EXPECT_EQ(eval("(= (into (vec (range 100)) [100]) (range 101))"), "true");
  EXPECT_EQ(eval("(count (into (set (range 100)) [1 100]))"), "101");
  EXPECT_EQ(eval("(get (into (zipmap (range 100) (range 100)) [[5 :x]]) 5)"), ":x");
  EXPECT_EQ(kind_of("(into {} [[1 2 3]])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(into \"ab\" [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(into [] 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(into [] [1] [2])"), ErrorKind::ArityError);
}

TEST(LibSequences, Zipmap) {
  EXPECT_EQ(eval("(zipmap [:a :b :c] [1 2 3])"), "{:a 1 :b 2 :c 3}");
  EXPECT_EQ(eval("(zipmap [:a :b] [1 2 3])"), "{:a 1 :b 2}");
  EXPECT_EQ(eval("(zipmap \"ab\" [1 2])"), "{\"a\" 1 \"b\" 2}");
  EXPECT_EQ(eval("(zipmap nil [1])"), "{}");
  EXPECT_EQ(eval("(zipmap [] [])"), "{}");
  EXPECT_EQ(kind_of("(zipmap 1 [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(zipmap [1])"), ErrorKind::ArityError);
}

// ---- sequences.cpp ------------------------------------------------------------

TEST(LibSequences, MapAndMapv) {
  EXPECT_EQ(eval("(map inc [1 2 3])"), "[2 3 4]");
  EXPECT_EQ(eval("(mapv inc [1 2 3])"), "[2 3 4]");
  EXPECT_EQ(eval("(map + [1 2 3] [10 20])"), "[11 22]");
  EXPECT_EQ(eval("(map vector \"ab\" [1 2])"), "[[\"a\" 1] [\"b\" 2]]");  // GAP-S102
  EXPECT_EQ(eval("(map (fn [a b c d] (+ a b c d)) [1] [2] [3] [4])"), "[10]");
  EXPECT_EQ(eval("(map (fn [[k v]] v) {:a 1 :b 2})"), "[1 2]");
  EXPECT_EQ(eval("(map :name [{:name \"A\"} {\"name\" \"B\"}])"), "[\"A\" \"B\"]");
  EXPECT_EQ(eval("(map inc nil)"), "[]");
  EXPECT_EQ(eval("(map inc [])"), "[]");
  EXPECT_EQ(eval("(map + [1] nil)"), "[]");
  EXPECT_EQ(eval("(map [1 2] [1])"), "[2]");  // vectors are functions (GAP-S13)
  ptc::Error e = eval_error("(map \"ab\" [1])");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(mentions(e.message, "expected a function")) << e.message;
  EXPECT_EQ(kind_of("(map inc 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(map inc)"), ErrorKind::ArityError);
}

TEST(LibSequences, FilterRemoveKeep) {
  EXPECT_EQ(eval("(filter even? [1 2 3 4])"), "[2 4]");
  EXPECT_EQ(eval("(filterv odd? [1 2 3 4])"), "[1 3]");
  EXPECT_EQ(eval("(remove even? [1 2 3 4])"), "[1 3]");
  EXPECT_EQ(eval("(filter #{:a :b} [:a :c :b])"), "[:a :b]");
  EXPECT_EQ(eval("(filter (fn [[k v]] (> v 1)) {:a 1 :b 2})"), "[[:b 2]]");
  EXPECT_EQ(eval("(filter #(= \"l\" %) \"hello\")"), "[\"l\" \"l\"]");
  EXPECT_EQ(eval("(keep identity [false nil 1 2 nil 3])"), "[false 1 2 3]");
  EXPECT_EQ(eval("(keep (fn [[k v]] (when (> v 1) k)) {:a 1 :b 2 :c 3})"), "[:b :c]");
  EXPECT_EQ(eval("(keep-indexed (fn [i v] (if (odd? i) v)) [:a :b :c :d])"), "[:b :d]");
  EXPECT_EQ(eval("(map-indexed (fn [i x] [i x]) [\"a\" \"b\"])"), "[[0 \"a\"] [1 \"b\"]]");
  EXPECT_EQ(eval("(map-indexed vector \"ab\")"), "[[0 \"a\"] [1 \"b\"]]");
  for (const char* f : {"filter", "filterv", "remove", "keep", "keep-indexed", "map-indexed"}) {
    EXPECT_EQ(eval(std::string("(") + f + " identity nil)"), "[]") << f;
    EXPECT_EQ(eval(std::string("(") + f + " identity [])"), "[]") << f;
    EXPECT_EQ(kind_of(std::string("(") + f + " identity 5)"), ErrorKind::TypeError) << f;
    EXPECT_EQ(kind_of(std::string("(") + f + " 5 [1])"), ErrorKind::TypeError) << f;
    EXPECT_EQ(kind_of(std::string("(") + f + " identity)"), ErrorKind::ArityError) << f;
  }
}

TEST(LibSequences, Mapcat) {
  EXPECT_EQ(eval("(mapcat (fn [x] [x (* x 2)]) [1 2 3])"), "[1 2 2 4 3 6]");
  EXPECT_EQ(eval("(mapcat identity [[1 2] [3 4] [5]])"), "[1 2 3 4 5]");
  // GAP-S49: several collections, string and nil results.
  EXPECT_EQ(eval("(mapcat vector [1 2] [:a :b])"), "[1 :a 2 :b]");
  EXPECT_EQ(eval("(mapcat identity [\"ab\" \"c\"])"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(mapcat (fn [x] nil) [1 2])"), "[]");
  EXPECT_EQ(eval("(mapcat identity [{:a 1}])"), "[[:a 1]]");
  EXPECT_EQ(eval("(mapcat identity nil)"), "[]");
  EXPECT_EQ(kind_of("(mapcat identity [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(mapcat 1 [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(mapcat identity)"), ErrorKind::ArityError);
}

TEST(LibSequences, SomeEveryNotAnyNotEvery) {
  EXPECT_EQ(eval("(some even? [1 2 3])"), "true");
  EXPECT_EQ(eval("(some even? [1 3])"), "nil");
  EXPECT_EQ(eval("(some #{\"x\"} [\"a\" \"x\"])"), "\"x\"");
  EXPECT_EQ(eval("(some :admin [{:admin false} {:admin :yes}])"), ":yes");
  EXPECT_EQ(eval("(some (fn [[k v]] (when (= v 2) k)) {:a 1 :b 2})"), ":b");
  EXPECT_EQ(eval("(some #(= % \"b\") \"abc\")"), "true");
  EXPECT_EQ(eval("(every? even? [2 4])"), "true");
  EXPECT_EQ(eval("(every? even? [2 3])"), "false");
  EXPECT_EQ(eval("(not-any? even? [1 3])"), "true");
  EXPECT_EQ(eval("(not-any? even? [1 2])"), "false");
  EXPECT_EQ(eval("(not-every? even? [2 3])"), "true");
  EXPECT_EQ(eval("(not-every? :active [{:active true}])"), "false");
  // Empty and nil collections.
  EXPECT_EQ(eval("(some even? nil)"), "nil");
  EXPECT_EQ(eval("(every? even? [])"), "true");
  EXPECT_EQ(eval("(every? even? nil)"), "true");
  EXPECT_EQ(eval("(not-any? even? nil)"), "true");
  EXPECT_EQ(eval("(not-every? even? [])"), "false");
  // Stops at the first decisive item.
  EXPECT_EQ(eval("(every? #(< (/ 1 %) 1) [2 0.5 0])"), "false");
  EXPECT_EQ(kind_of("(some even? 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(every? 5 [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(not-any? even?)"), ErrorKind::ArityError);
}

TEST(LibSequences, Reduce) {
  EXPECT_EQ(eval("(reduce + [1 2 3])"), "6");
  EXPECT_EQ(eval("(reduce - 10 [1 2 3])"), "4");
  EXPECT_EQ(eval("(reduce (fn [acc [k v]] (+ acc v)) 0 {:a 1 :b 2})"), "3");
  EXPECT_EQ(eval("(reduce (fn [acc x] (str acc \"-\" x)) \"a\" \"bc\")"), "\"a-b-c\"");
  EXPECT_EQ(eval("(reduce + 0 #{1 2 3})"), "6");
  // GAP-S21: no init on empty input calls (f); one item is returned as is.
  EXPECT_EQ(eval("(reduce + [])"), "0");
  EXPECT_EQ(eval("(reduce + nil)"), "0");
  EXPECT_EQ(eval("(reduce vector [])"), "[]");
  EXPECT_EQ(eval("(reduce (fn [a b] :never) [7])"), "7");
  EXPECT_EQ(eval("(reduce (fn ([] :empty) ([a b] a)) [])"), ":empty");
  EXPECT_EQ(eval("(reduce + 5 nil)"), "5");
  EXPECT_EQ(kind_of("(reduce + 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(reduce 1 [1 2])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(reduce +)"), ErrorKind::ArityError);
}

TEST(LibSequences, ReduceKv) {
  EXPECT_EQ(eval("(reduce-kv (fn [acc k v] (+ acc v)) 0 {:a 1 :b 2 :c 3})"), "6");
  EXPECT_EQ(eval("(reduce-kv (fn [acc k v] (assoc acc k (* v 2))) {} {:a 1 :b 2})"), "{:a 2 :b 4}");
  // GAP-S59: vectors give index and item.
  EXPECT_EQ(eval("(reduce-kv (fn [acc k v] (conj acc [k v])) [] [:a :b])"), "[[0 :a] [1 :b]]");
  EXPECT_EQ(eval("(reduce-kv (fn [acc k v] (conj acc [k v])) [] [])"), "[]");
  EXPECT_EQ(eval("(reduce-kv (fn [acc k v] acc) :init nil)"), ":init");
  EXPECT_EQ(kind_of("(reduce-kv (fn [a k v] a) 0 \"ab\")"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(reduce-kv (fn [a k v] a) 0 #{1})"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(reduce-kv (fn [a k v] a) {})"), ErrorKind::ArityError);
}

TEST(LibSequences, TreeSeq) {
  EXPECT_EQ(eval("(tree-seq vector? seq [[1 2 [3]] [4]])"),
            "[[[1 2 [3]] [4]] [1 2 [3]] 1 2 [3] 3 [4] 4]");
  EXPECT_EQ(eval("(tree-seq vector? seq [])"), "[[]]");
  EXPECT_EQ(eval("(tree-seq vector? seq 42)"), "[42]");
  EXPECT_EQ(eval("(tree-seq vector? seq nil)"), "[nil]");
  EXPECT_EQ(eval("(let [tree {:id 1 :children [{:id 2 :children []} {:id 3 :children []}]}]"
                 "  (map :id (tree-seq :children :children tree)))"),
            "[1 2 3]");
  EXPECT_EQ(eval("(tree-seq map? vals {:a {:b 1} :c 2})"), "[{:a {:b 1} :c 2} {:b 1} 1 2]");
  // GAP-S77: characters of a string are leaves, as in Clojure.
  EXPECT_EQ(eval("(tree-seq string? seq \"ab\")"), "[\"ab\" \"a\" \"b\"]");
  EXPECT_EQ(eval("(tree-seq string? seq \"a\")"), "[\"a\" \"a\"]");
  // Deep trees do not exhaust the native stack.
  EXPECT_EQ(eval("(count (tree-seq vector? seq (reduce (fn [t _] [t]) [] (range 20000))))"),
            "20001");
  EXPECT_EQ(kind_of("(tree-seq vector? (fn [x] 5) [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(tree-seq 1 seq [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(tree-seq vector? seq)"), ErrorKind::ArityError);
}

TEST(LibSequences, Range) {
  EXPECT_EQ(eval("(range 5)"), "[0 1 2 3 4]");
  EXPECT_EQ(eval("(range 5 10)"), "[5 6 7 8 9]");
  EXPECT_EQ(eval("(range 0 10 3)"), "[0 3 6 9]");
  EXPECT_EQ(eval("(range 10 0 -2)"), "[10 8 6 4 2]");
  EXPECT_EQ(eval("(range 5 5)"), "[]");
  EXPECT_EQ(eval("(range 0 10 -1)"), "[]");
  EXPECT_EQ(eval("(range -3)"), "[]");
  EXPECT_EQ(eval("(range 0 2.5)"), "[0 1 2]");
  EXPECT_EQ(eval("(range 1 4 1.5)"), "[1 2.5]");
  EXPECT_EQ(eval("(range 10 0 -2.5)"), "[10 7.5 5.0 2.5]");
  // Floats accumulate by repeated addition, as in Clojure: 11 items.
  EXPECT_EQ(eval("(count (range 0 1 0.1))"), "11");
  // Crossing the int64 range promotes instead of wrapping.
  EXPECT_EQ(eval("(range 9223372036854775806 9223372036854775809)"),
            "[9223372036854775806 9223372036854775807 9223372036854775808]");
  EXPECT_EQ(eval("(range 5 5 0)"), "[]");
  // A zero step or an infinite bound never ends (DIV-02).
  ptc::Error e = eval_error("(range 1 5 0)");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(mentions(e.message, "step of 0")) << e.message;
  EXPECT_EQ(kind_of("(range 0 ##Inf)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(range nil)"), ErrorKind::TypeError);  // GAP-S99
  EXPECT_EQ(kind_of("(range \"1\" 3)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(range 1 5 nil)"), ErrorKind::TypeError);
  // (range) alone is endless; under take it is a prefix.
  EXPECT_TRUE(mentions(eval_error("(range)").hint, "(take n (range))"));
  EXPECT_EQ(kind_of("(range 1 2 3 4)"), ErrorKind::ArityError);
}

// (take n (range ...)) builds only the prefix it keeps, so ranges that would
// never end on their own work as they do in Clojure (spec §8 Sequence Generation).
TEST(LibSequences, TakeOfRangeMakesOnlyThePrefix) {
  EXPECT_EQ(eval("(take 3 (range 1 5 0))"), "[1 1 1]");
  EXPECT_EQ(eval("(take 3 (range 5 5 0))"), "[]");
  EXPECT_EQ(eval("(->> (range 0 ##Inf) (take 3))"), "[0 1 2]");
  EXPECT_EQ(eval("(take 3 (range))"), "[0 1 2]");
  EXPECT_EQ(eval("(take 2 (range 0 1e300 1e299))"), "[0 1.0E299]");
  EXPECT_EQ(eval("(take 4 (range 3))"), "[0 1 2]");
  EXPECT_EQ(eval("(take 0 (range 1 5 0))"), "[]");
  EXPECT_EQ(eval("(take -2 (range 10))"), "[]");
  EXPECT_EQ(eval("(take 2.9 (range 10))"), "[0 1]");
  // A billion-item range is never built: only the prefix is charged.
  EXPECT_EQ(eval("(take 2 (range 1000000000000))"), "[0 1]");
  // Argument errors still name the function the program called.
  EXPECT_TRUE(mentions(eval_error("(take :x (range 3))").message, "take"));
  EXPECT_TRUE(mentions(eval_error("(take 2 (range 1 nil))").message, "range"));
  // A shadowed take or range is not rewritten.
  EXPECT_EQ(eval("(let [take (fn [n xs] n)] (take 3 (range 1 5)))"), "3");
  // A huge prefix of an endless range is still refused by the heap cap.
  EXPECT_EQ(kind_of("(take 1000000000000 (range 1 5 0))"), ErrorKind::MemoryLimit);
}

TEST(LibSequences, Repeat) {
  EXPECT_EQ(eval("(repeat 3 :x)"), "[:x :x :x]");
  EXPECT_EQ(eval("(repeat 0 :x)"), "[]");
  EXPECT_EQ(eval("(repeat -2 :x)"), "[]");
  EXPECT_EQ(eval("(repeat 2 nil)"), "[nil nil]");
  EXPECT_EQ(eval("(count (repeat 100 [1]))"), "100");
  ptc::Error e = eval_error("(repeat :x)");
  EXPECT_EQ(e.kind, ErrorKind::ArityError);
  EXPECT_TRUE(mentions(e.message, "infinite")) << e.message;
  EXPECT_TRUE(mentions(e.hint, "(repeat n x)")) << e.hint;
  EXPECT_EQ(kind_of("(repeat \"a\" :x)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(repeat)"), ErrorKind::ArityError);
  EXPECT_EQ(kind_of("(repeat 1 2 3)"), ErrorKind::ArityError);
}

// ---- seq_ops.cpp --------------------------------------------------------------

TEST(LibSequences, TakeAndDrop) {
  EXPECT_EQ(eval("(take 2 [1 2 3 4])"), "[1 2]");
  EXPECT_EQ(eval("(take 10 [1 2 3])"), "[1 2 3]");
  EXPECT_EQ(eval("(take 2 \"hello\")"), "[\"h\" \"e\"]");
  EXPECT_EQ(eval("(take 2 {:a 1 :b 2 :c 3})"), "[[:a 1] [:b 2]]");
  EXPECT_EQ(eval("(take 2 #{5 6 7})"), "[5 6]");
  EXPECT_EQ(eval("(take -1 [1 2])"), "[]");       // GAP-S32
  EXPECT_EQ(eval("(take 1.0 [10 20])"), "[10]");  // GAP-S79
  EXPECT_EQ(eval("(drop 2 [1 2 3 4])"), "[3 4]");
  EXPECT_EQ(eval("(drop 10 [1 2 3])"), "[]");
  EXPECT_EQ(eval("(drop -1 [1 2])"), "[1 2]");
  EXPECT_EQ(eval("(drop 1 \"abc\")"), "[\"b\" \"c\"]");
  EXPECT_EQ(eval("(drop 1 {:a 1 :b 2})"), "[[:b 2]]");
  EXPECT_EQ(eval("(nthrest [1 2 3] 1)"), "[2 3]");
  EXPECT_EQ(eval("(nthrest [1 2 3] 0)"), "[1 2 3]");
  EXPECT_EQ(eval("(nthnext [1 2 3] 1.0)"), "[2 3]");
  EXPECT_EQ(eval("(nthnext [1 2 3] 3)"), "nil");
  for (const char* src : {"(take 2 nil)", "(drop 2 nil)", "(take 2 [])", "(nthrest nil 1)"})
    EXPECT_EQ(eval(src), "[]") << src;
  EXPECT_EQ(eval("(nthnext nil 1)"), "nil");
  EXPECT_EQ(kind_of("(take :a [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(drop 1 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(nthrest 1 [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(take 1)"), ErrorKind::ArityError);
}

TEST(LibSequences, TakeLastDropLast) {
  EXPECT_EQ(eval("(take-last 2 [1 2 3])"), "[2 3]");
  EXPECT_EQ(eval("(take-last 5 [1 2 3])"), "[1 2 3]");
  EXPECT_EQ(eval("(take-last 2 \"abc\")"), "[\"b\" \"c\"]");
  // Nil whenever nothing is taken (GAP-S32, GAP-S48).
  EXPECT_EQ(eval("(take-last 2 nil)"), "nil");
  EXPECT_EQ(eval("(take-last 2 [])"), "nil");
  EXPECT_EQ(eval("(take-last 0 [1 2])"), "nil");
  EXPECT_EQ(eval("(take-last -1 \"ab\")"), "nil");
  EXPECT_EQ(eval("(drop-last [1 2 3])"), "[1 2]");
  EXPECT_EQ(eval("(drop-last 2 [1 2 3])"), "[1]");
  EXPECT_EQ(eval("(drop-last 5 [1 2 3])"), "[]");
  EXPECT_EQ(eval("(drop-last -1 [1 2])"), "[1 2]");
  EXPECT_EQ(eval("(drop-last 1 \"ab\")"), "[\"a\"]");
  EXPECT_EQ(eval("(drop-last nil)"), "[]");
  EXPECT_EQ(kind_of("(take-last 1 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(drop-last 1 2 3)"), ErrorKind::ArityError);
}

TEST(LibSequences, TakeWhileDropWhileSplit) {
  EXPECT_EQ(eval("(take-while :active [{:active true} {:active true} {:active false}])"),
            "[{:active true} {:active true}]");
  EXPECT_EQ(eval("(drop-while :pending [{:pending true} {:pending false}])"), "[{:pending false}]");
  EXPECT_EQ(eval("(take-while #(not= \"c\" %) \"abcd\")"), "[\"a\" \"b\"]");
  EXPECT_EQ(eval("(drop-while (fn [[k v]] (< v 2)) {:a 1 :b 2})"), "[[:b 2]]");
  EXPECT_EQ(eval("(take-while pos? nil)"), "[]");
  EXPECT_EQ(eval("(drop-while pos? [])"), "[]");
  EXPECT_EQ(eval("(split-at 2 [1 2 3 4 5])"), "[[1 2] [3 4 5]]");
  EXPECT_EQ(eval("(split-at 0 [1 2 3])"), "[[] [1 2 3]]");
  EXPECT_EQ(eval("(split-at -1 [1 2 3])"), "[[] [1 2 3]]");
  EXPECT_EQ(eval("(split-at 1 \"ab\")"), "[[\"a\"] [\"b\"]]");
  EXPECT_EQ(eval("(split-at 1 nil)"), "[[] []]");
  EXPECT_EQ(eval("(split-with pos? [1 2 -1 3])"), "[[1 2] [-1 3]]");
  EXPECT_EQ(eval("(split-with pos? nil)"), "[[] []]");
  EXPECT_EQ(kind_of("(take-while 5 [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(drop-while pos? 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(split-at \"a\" [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(split-with pos?)"), ErrorKind::ArityError);
}

TEST(LibSequences, Partition) {
  EXPECT_EQ(eval("(partition 2 [1 2 3 4 5 6])"), "[[1 2] [3 4] [5 6]]");
  EXPECT_EQ(eval("(partition 3 [1 2 3 4 5])"), "[[1 2 3]]");
  EXPECT_EQ(eval("(partition 2 1 [1 2 3 4])"), "[[1 2] [2 3] [3 4]]");
  EXPECT_EQ(eval("(partition 3 3 [0] [1 2 3 4 5])"), "[[1 2 3] [4 5 0]]");
  EXPECT_EQ(eval("(partition 3 3 [0 0 0 0] [1 2 3 4])"), "[[1 2 3] [4 0 0]]");
  EXPECT_EQ(eval("(partition 3 3 nil [1 2])"), "[[1 2]]");        // GAP-S31
  EXPECT_EQ(eval("(partition -1 [1 2 3])"), "[]");                // GAP-S53
  EXPECT_EQ(eval("(partition 2 1.0 [1 2 3])"), "[[1 2] [2 3]]");  // GAP-S79
  EXPECT_EQ(eval("(partition 2 \"abc\")"), "[[\"a\" \"b\"]]");
  EXPECT_EQ(eval("(partition 2 nil)"), "[]");
  EXPECT_EQ(eval("(partition-all 2 [1 2 3 4 5])"), "[[1 2] [3 4] [5]]");
  EXPECT_EQ(eval("(partition-all 2 1 [1 2 3])"), "[[1 2] [2 3] [3]]");
  EXPECT_EQ(eval("(partition-all 0 1 [1 2])"), "[[] []]");
  EXPECT_EQ(eval("(partition-all 2 [])"), "[]");
  EXPECT_EQ(eval("(partition-by odd? [1 1 2 2 3])"), "[[1 1] [2 2] [3]]");
  EXPECT_EQ(eval("(partition-by identity \"aab\")"), "[[\"a\" \"a\"] [\"b\"]]");
  EXPECT_EQ(eval("(partition-by odd? nil)"), "[]");
  // A step that does not advance would repeat a window forever.
  ptc::Error e = eval_error("(partition 0 [1 2])");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(mentions(e.message, "forever")) << e.message;
  EXPECT_EQ(kind_of("(partition 2 0 [1 2 3])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(partition-all -1 [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(partition :a [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(partition-by 1 [1])"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(partition 1)"), ErrorKind::ArityError);
  EXPECT_EQ(kind_of("(partition-all 1 1 1 [1])"), ErrorKind::ArityError);
}

TEST(LibSequences, DistinctAndDedupe) {
  EXPECT_EQ(eval("(distinct [1 2 1 3 2])"), "[1 2 3]");
  EXPECT_EQ(eval("(distinct [1 1.0 2])"), "[1 2]");  // = is numeric type-independent
  EXPECT_EQ(eval("(distinct \"abca\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(distinct [[1] [1] {:a 1} {:a 1}])"), "[[1] {:a 1}]");
  EXPECT_EQ(eval("(count (distinct (concat (range 1000) (range 1000))))"), "1000");
  EXPECT_EQ(eval("(distinct nil)"), "[]");
  EXPECT_EQ(eval("(distinct [])"), "[]");
  EXPECT_EQ(eval("(dedupe [1 1 2 3 3 2])"), "[1 2 3 2]");
  EXPECT_EQ(eval("(dedupe \"aabcc\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(dedupe nil)"), "[]");
  EXPECT_EQ(kind_of("(distinct {:a 1})"), ErrorKind::TypeError);  // GAP-S134
  EXPECT_EQ(kind_of("(distinct #{1})"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(dedupe 1)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(distinct)"), ErrorKind::ArityError);
}

TEST(LibSequences, InterleaveInterpose) {
  EXPECT_EQ(eval("(interleave [1 2 3] [:a :b :c])"), "[1 :a 2 :b 3 :c]");
  EXPECT_EQ(eval("(interleave [1 2] [3 4] [5 6])"), "[1 3 5 2 4 6]");
  EXPECT_EQ(eval("(interleave [1 2 3] [:a])"), "[1 :a]");
  EXPECT_EQ(eval("(interleave \"ab\" [1 2])"), "[\"a\" 1 \"b\" 2]");  // GAP-S98
  EXPECT_EQ(eval("(interleave)"), "[]");                              // GAP-S143
  EXPECT_EQ(eval("(interleave [1 2])"), "[1 2]");
  EXPECT_EQ(eval("(interleave nil [1])"), "[]");
  EXPECT_EQ(eval("(interpose \", \" [\"a\" \"b\" \"c\"])"), "[\"a\" \", \" \"b\" \", \" \"c\"]");
  EXPECT_EQ(eval("(interpose \",\" \"ab\")"), "[\"a\" \",\" \"b\"]");  // GAP-S60
  EXPECT_EQ(eval("(interpose 0 [1])"), "[1]");
  EXPECT_EQ(eval("(interpose 0 nil)"), "[]");
  EXPECT_EQ(kind_of("(interleave {:a 1} [:x])"), ErrorKind::TypeError);  // DIV-29
  EXPECT_EQ(kind_of("(interpose :x {:a 1})"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(interpose :x 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(interpose :x)"), ErrorKind::ArityError);
}

TEST(LibSequences, ConcatFlattenReverse) {
  EXPECT_EQ(eval("(concat [1 2] [3 4])"), "[1 2 3 4]");
  EXPECT_EQ(eval("(concat [1] nil [2] [])"), "[1 2]");
  EXPECT_EQ(eval("(concat \"ab\" \"cd\")"), "[\"a\" \"b\" \"c\" \"d\"]");  // GAP-S57
  EXPECT_EQ(eval("(concat {:a 1} #{2})"), "[[:a 1] 2]");
  EXPECT_EQ(eval("(concat)"), "[]");
  EXPECT_EQ(eval("(concat nil)"), "[]");
  EXPECT_EQ(eval("(flatten [[1 2] [3 [4]]])"), "[1 2 3 4]");
  EXPECT_EQ(eval("(flatten [1 [2 {:a 3}] \"str\" #{[5]}])"), "[1 2 {:a 3} \"str\" #{[5]}]");
  EXPECT_EQ(eval("(flatten [[] [[]]])"), "[]");
  // A root that is not a vector flattens to [] (GAP-S81).
  for (const char* src : {"(flatten nil)", "(flatten 1)", "(flatten \"ab\")", "(flatten {:a [1]})"})
    EXPECT_EQ(eval(src), "[]") << src;
  EXPECT_EQ(eval("(flatten (reduce (fn [v _] [v 1]) [] (range 20000)))"),
            eval("(vec (repeat 20000 1))"));
  EXPECT_EQ(eval("(reverse [1 2 3])"), "[3 2 1]");
  EXPECT_EQ(eval("(reverse \"héllo\")"), "[\"o\" \"l\" \"l\" \"é\" \"h\"]");
  EXPECT_EQ(eval("(reverse nil)"), "[]");
  EXPECT_EQ(eval("(reverse [])"), "[]");
  EXPECT_EQ(eval("(= (reverse (range 100)) (range 99 -1 -1))"), "true");
  EXPECT_EQ(kind_of("(concat [1] 2)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(reverse {:a 1 :b 2})"), ErrorKind::TypeError);  // DIV-29
  EXPECT_EQ(kind_of("(reverse 5)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(flatten)"), ErrorKind::ArityError);
}

TEST(LibSequences, ZipAndCombinations) {
  EXPECT_EQ(eval("(zip [1 2] [:a :b])"), "[[1 :a] [2 :b]]");
  EXPECT_EQ(eval("(zip [1 2 3] \"ab\")"), "[[1 \"a\"] [2 \"b\"]]");
  EXPECT_EQ(eval("(zip nil [1])"), "[]");
  EXPECT_EQ(eval("(combinations [1 2 3] 2)"), "[[1 2] [1 3] [2 3]]");
  EXPECT_EQ(eval("(combinations [1 2 3 4] 3)"), "[[1 2 3] [1 2 4] [1 3 4] [2 3 4]]");
  EXPECT_EQ(eval("(combinations [1 2 3] 0)"), "[[]]");
  EXPECT_EQ(eval("(combinations [1 2] 3)"), "[]");
  EXPECT_EQ(eval("(combinations [1 2] -1)"), "[]");
  EXPECT_EQ(eval("(combinations \"abc\" 2)"), "[[\"a\" \"b\"] [\"a\" \"c\"] [\"b\" \"c\"]]");
  EXPECT_EQ(eval("(combinations nil 0)"), "[[]]");
  EXPECT_EQ(eval("(combinations nil 1)"), "[]");
  EXPECT_EQ(eval("(count (combinations (range 10) 5))"), "252");
  EXPECT_EQ(kind_of("(combinations (range 60) 30)"), ErrorKind::MemoryLimit);
  EXPECT_EQ(kind_of("(zip [1] 2)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(combinations [1] :a)"), ErrorKind::TypeError);
  EXPECT_EQ(kind_of("(zip [1])"), ErrorKind::ArityError);
}

// ---- limits -------------------------------------------------------------------

// Hostile sizes end with a memory limit error instead of building the result.
TEST(LibSequences, OversizedResultsAreRefusedUpFront) {
  for (const char* src : {"(count (range 100000000))", "(count (repeat 10000000 \"x\"))",
                          "(count (partition 1000 1 (range 100000)))",
                          "(count (range 0.0 1e9 0.5))", "(count (combinations (range 100) 50))"}) {
    ptc::Error e = eval_error(src);
    EXPECT_EQ(e.kind, ErrorKind::MemoryLimit) << src << ": " << e.describe();
  }
}

}  // namespace
