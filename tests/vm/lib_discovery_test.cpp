// REPL discovery forms and the Clojure-compatibility helpers.
#include <gtest/gtest.h>

#include "support/run_helpers.hpp"

using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

TEST(LibDiscovery, DocPrintsAndReturnsNil) {
  ptc::Step r = ptc::run("(doc map)");
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "nil");
  ASSERT_EQ(r.prints.size(), 1u);
  EXPECT_NE(r.prints[0].find("clojure.core/map"), std::string::npos) << r.prints[0];
  EXPECT_NE(r.prints[0].find("Signature: (map f coll)"), std::string::npos) << r.prints[0];
  // Special forms are documented too, and strings and quoted symbols work as refs.
  r = ptc::run("(doc \"let\") (doc 'if)");
  ASSERT_EQ(r.prints.size(), 2u);
  EXPECT_NE(r.prints[0].find("special-form"), std::string::npos);
  r = ptc::run("(doc no-such-thing)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.prints[0], "no documentation for no-such-thing");
}

TEST(LibDiscovery, BareSymbolsAreNamesNotValues) {
  // (doc x) never evaluates x, even when x is bound to something else.
  EXPECT_EQ(eval("(let [inc 5] (:name (meta inc)))"), "\"inc\"");
  EXPECT_EQ(eval("(:kind (meta when))"), "\"special-form\"");
  EXPECT_EQ(eval("(meta nope)"), "nil");
}

TEST(LibDiscovery, DirAprioposAndNamespaces) {
  EXPECT_EQ(eval("(count (dir clojure.core {:limit 5}))"), "5");
  EXPECT_EQ(eval("(first (dir clojure.core {:limit 1 :offset 0}))") == eval("(first (dir core))"),
            true);
  EXPECT_EQ(eval("(first (apropos \"reduce\"))").rfind("\"local: clojure.core/reduce", 0), 0u);
  EXPECT_EQ(eval("(all-ns)"),
            "[\"clojure.core\" \"clojure.set\" \"clojure.string\" \"clojure.walk\" \"json\"]");
  EXPECT_EQ(eval("(ns-name str)"), "\"clojure.string\"");
  EXPECT_EQ(eval("(map? (ns-publics clojure.core))"), "true");
  EXPECT_EQ(eval_error("(dir nowhere)").kind, ptc::ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(ns-name nowhere)").kind, ptc::ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(dir core {:limit 0})").kind, ptc::ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(apropos 5)").kind, ptc::ErrorKind::TypeError);
}

TEST(LibDiscovery, SourceHasNothingForBuiltins) {
  ptc::Step r = ptc::run("(source map)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.printed, "nil");
  ASSERT_EQ(r.prints.size(), 1u);
  EXPECT_EQ(r.prints[0], "no source available");
}

TEST(LibCompat, DoallAndDorun) {
  EXPECT_EQ(eval("(doall (map inc [1 2]))"), "[2 3]");
  EXPECT_EQ(eval("(dorun (map inc [1 2]))"), "nil");
}

TEST(LibCompat, LeftOutClojureNamesExplainThemselves) {
  ptc::Error e = eval_error("(swap! a inc)");
  EXPECT_NE(e.hint.find("no mutable state"), std::string::npos) << e.hint;
  e = eval_error("(printf \"%d\" 1)");
  EXPECT_NE(e.hint.find("format"), std::string::npos) << e.hint;
  e = eval_error("(rand-int 10)");
  EXPECT_NE(e.hint.find("deterministic"), std::string::npos) << e.hint;
  e = eval_error("(clojure.string/frobnicate \"a\")");
  EXPECT_NE(e.hint.find("clojure.string functions:"), std::string::npos) << e.hint;
}

}  // namespace
