// Regex and JSON results too big for the heap: under a heap cap set through
// RunOptions, or ended by whichever limit strikes first. The rest of these
// helpers: tests/lang/regex_json_dates.clj.
#include <gtest/gtest.h>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval_error;

namespace {

TEST(LibRegex, HugeMatchCountsHitTheHeapCap) {
  ptc::RunOptions opts;
  opts.limits.max_heap_bytes = 2 * 1024 * 1024;
  ptc::Error e = eval_error("(count (re-seq #\"(a)\" (apply str (repeat 60000 \"a\"))))", opts);
  EXPECT_EQ(e.kind, ErrorKind::MemoryLimit);
}

TEST(LibJson, SharedStructureCannotExpandPastTheHeap) {
  ptc::Error e = eval_error("(json/generate-string (reduce (fn [v _] [v v]) 1 (range 40)))");
  EXPECT_TRUE(e.kind == ErrorKind::MemoryLimit || e.kind == ErrorKind::Timeout) << e.describe();
}

}  // namespace
