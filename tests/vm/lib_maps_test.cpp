// Map and set builtins: what only the C++ API shows (the reductions a run
// was charged) or generates (every map and key combination). The rest:
// tests/lang/maps.clj.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::testing::eval;

namespace {

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
