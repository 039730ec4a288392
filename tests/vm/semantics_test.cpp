// The language's semantics where RunOptions or the Step shape them: context
// data, (fail v)'s value, print and display limits. The rest:
// tests/lang/semantics.clj.
#include <gtest/gtest.h>

#include "support/run_helpers.hpp"

using ptc::testing::eval;

namespace {

TEST(Semantics, ContextData) {
  ptc::RunOptions opts;
  opts.context = ptc::parse_json(R"({"orders":[{"total":5},{"total":30}],"user-id":"u1","n":3})");
  EXPECT_EQ(eval("(->> data/orders (filter #(> (:total %) 20)) (map :total))", opts), "[30]");
  EXPECT_EQ(eval("data/user-id", opts), "\"u1\"");
  EXPECT_EQ(eval("data/missing", opts), "nil");
  EXPECT_EQ(eval("(let [n 1] (+ n data/n))", opts), "4");
}

TEST(Semantics, ReturnAndFail) {
  ptc::Step r = ptc::run("(fail \"no input\")");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.kind, ptc::ErrorKind::Fail);
  EXPECT_EQ(r.error.message, "no input");
  EXPECT_EQ(r.error.fail_value, "\"no input\"");
  EXPECT_EQ(r.error.loc.line, 1u);
}

TEST(Semantics, PrintsAreCapturedAndTruncated) {
  ptc::RunOptions opts;
  opts.limits.max_print_length = 5;
  ptc::Step r = ptc::run("(println \"hello world\" [\"a\"]) (println 1 nil) 7", opts);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.prints.size(), 2u);
  EXPECT_EQ(r.prints[0], "hello...");
  EXPECT_EQ(r.prints[1], "1 nil");
}

TEST(Semantics, ResultDisplayLimit) {
  ptc::RunOptions opts;
  opts.display_limit = 2;
  ptc::Step r = ptc::run("[1 2 3]", opts);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.printed, "[1 2 ...] (2/3)");
  EXPECT_TRUE(r.truncated);
}

}  // namespace
