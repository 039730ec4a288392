// The filtering family over the same inputs, generated; the rest of the
// sequence library: tests/lang/sequences.clj.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

ErrorKind kind_of(const std::string& src) {
  return eval_error(src).kind;
}

TEST(LibSequences, FilterRemoveKeep) {
  for (const char* f : {"filter", "filterv", "remove", "keep", "keep-indexed", "map-indexed"}) {
    EXPECT_EQ(eval(std::string("(") + f + " identity nil)"), "[]") << f;
    EXPECT_EQ(eval(std::string("(") + f + " identity [])"), "[]") << f;
    EXPECT_EQ(kind_of(std::string("(") + f + " identity 5)"), ErrorKind::TypeError) << f;
    EXPECT_EQ(kind_of(std::string("(") + f + " 5 [1])"), ErrorKind::TypeError) << f;
    EXPECT_EQ(kind_of(std::string("(") + f + " identity)"), ErrorKind::ArityError) << f;
  }
}

}  // namespace
