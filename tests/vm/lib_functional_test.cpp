// clojure.walk on a value that grows forever: which limit ends it depends on
// timing. The rest of these functions: tests/lang/functional.clj.
#include <gtest/gtest.h>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval_error;

namespace {

TEST(LibWalk, RunawayGrowthEndsWithAnError) {
  // Every number becomes a vector holding it, forever: must fail cleanly.
  ptc::Error e = eval_error("(prewalk (fn [x] (if (number? x) [x] x)) 1)");
  EXPECT_TRUE(e.kind == ErrorKind::CallDepthExceeded || e.kind == ErrorKind::Timeout)
      << e.describe();
}

}  // namespace
