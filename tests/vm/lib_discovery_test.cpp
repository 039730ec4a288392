// (doc ...) prints pages of text, of which these tests check parts; the
// rest of the discovery forms: tests/lang/discovery.clj.
#include <gtest/gtest.h>

#include <string>

#include "include/ptc/ptc.hpp"

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
}

}  // namespace
