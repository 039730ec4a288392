// ptc::format_value: Clojure syntax for host values, with the collection
// limit and the byte cap that keeps a preview of a huge value cheap.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace {

using H = ptc::HostValue;

H ints(int n) {
  std::vector<H> items;
  for (int i = 0; i < n; ++i)
    items.push_back(H::integer(i));
  return H::vector(std::move(items));
}

// The host printer and the runtime printer agree: a run's printed result
// (the runtime printer on the runtime value) equals format_value of the
// exported value, with and without a collection limit.
TEST(FormatValue, AgreesWithTheRuntimePrinter) {
  const char* programs[] = {
      "nil",
      "true",
      "[false -0 42 -7]",
      "[0.1 (/ 1.0 3) 1e20 1.5e-7 -0.0 100.0 2.5 (/ 0.0 0.0) (/ 1.0 0.0) (/ -1.0 0.0)]",
      "(* 99999999999 99999999999 99999999999)",
      "[\"a\\\"b\\n\\t\\\\c\" \"é中\" \"\"]",
      ":kw",
      "[:a :b-c]",
      "{:a 1 \"b\" [1 2 {:c #{3}}] 3 nil}",
      "#{1 2 3}",
      "[[] {} #{} [[]]]",
      "(range 60)",
      "(zipmap (range 70) (range 70))",
      "(set (range 55))",
      "{:data (range 100) :more {:x (range 3)}}",
      "(defn f [x] x)",
      "[(fn [a b] a) #\"re\"]",
      "(java.time.LocalDate/parse \"2026-05-06\")",
      "[(java.util.Date. 0)]",
  };
  for (const char* program : programs) {
    for (size_t limit : {size_t{0}, size_t{3}, size_t{50}}) {
      ptc::RunOptions o;
      o.display_limit = limit;
      ptc::Step s = ptc::run(program, o);
      ASSERT_TRUE(s.ok) << program << ": " << s.error.describe();
      bool truncated = false;
      EXPECT_EQ(ptc::format_value(s.value, limit, &truncated), s.printed) << program;
      EXPECT_EQ(truncated, s.truncated) << program << " limit " << limit;
      EXPECT_EQ(ptc::format_value(s.value, limit, &truncated, 1 << 20), s.printed) << program;
    }
  }
}

TEST(FormatValue, ValuesWithNoDataFormPrintAsTheirPrintedForm) {
  // A var, a function, a regex cross into the host as Opaque text; printing
  // shows that text, not a quoted string of it.
  EXPECT_EQ(ptc::format_value(H::opaque("#'x")), "#'x");
  ptc::Step s = ptc::run("(defn inc2 [x] (+ x 2)) {:f inc2 :r #\"a+\" :n 1}");
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(ptc::format_value(s.value), "{:f #fn[x] :r #\"a+\" :n 1}");
  // Functions in memory carry a Restorer: the same printed form.
  const H* f = s.memory.get("inc2");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ptc::format_value(*f), "#fn[x]");
  EXPECT_EQ(ptc::format_value(H::map({{H::opaque("#'k"), H::string("v")}})), "{#'k \"v\"}");
}

TEST(FormatValue, TheByteCapStopsPrintingEarly) {
  bool truncated = false;
  std::string whole = ptc::format_value(ints(100000), 0, &truncated, 0);
  EXPECT_FALSE(truncated);
  EXPECT_GT(whole.size(), 500000u);

  std::string capped = ptc::format_value(ints(100000), 0, &truncated, 100);
  EXPECT_TRUE(truncated);
  EXPECT_LT(capped.size(), 200u);
  EXPECT_EQ(capped.rfind("[0 1 2 3", 0), 0u);
  EXPECT_NE(capped.find(" ...] ("), std::string::npos);
  EXPECT_NE(capped.find("/100000)"), std::string::npos);

  // Nested collections are closed with their markers.
  H nested = H::vector({ints(1000), ints(1000)});
  capped = ptc::format_value(nested, 0, &truncated, 50);
  EXPECT_TRUE(truncated);
  EXPECT_LT(capped.size(), 120u);
  EXPECT_NE(capped.find("...] (1/2)"), std::string::npos) << capped;
}

TEST(FormatValue, TheByteCapCutsOneLongString) {
  bool truncated = false;
  std::string s = ptc::format_value(H::string(std::string(1000000, 'a')), 0, &truncated, 64);
  EXPECT_TRUE(truncated);
  EXPECT_LT(s.size(), 128u);
  EXPECT_EQ(s.rfind("\"aaaa", 0), 0u);
}

TEST(FormatValue, TheCollectionLimitAndTheCapTogether) {
  bool truncated = false;
  EXPECT_EQ(ptc::format_value(ints(100), 3, &truncated, 4096), "[0 1 2 ...] (3/100)");
  EXPECT_TRUE(truncated);
  EXPECT_EQ(ptc::format_value(ints(3), 50, &truncated, 4096), "[0 1 2]");
  EXPECT_FALSE(truncated);
}

}  // namespace
