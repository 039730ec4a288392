// split's literal path against the regex engine, over generated inputs; the
// rest of the string builtins: tests/lang/strings.clj.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::testing::eval;

// A regex with no special characters splits without the regex engine: the
// pieces are those of an equivalent regex that does go through it.
TEST(LibStrings, SplitOnALiteralRegexMatchesTheRegexEngine) {
  const char* texts[] = {"a, b,, c", ", a, ", "", ", ", "no delimiter", "é, ü,, ", "a, b, c, , , "};
  for (const char* t : texts) {
    for (const char* limit : {"", " 2", " -1"}) {
      std::string text = std::string("\"") + t + "\"";
      std::string literal = "(clojure.string/split " + text + " #\", \"" + limit + ")";
      std::string engine = "(clojure.string/split " + text + " #\"[,][ ]\"" + limit + ")";
      EXPECT_EQ(eval(literal), eval(engine)) << literal;
    }
  }
}
