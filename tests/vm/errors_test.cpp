// Errors through the C++ API: Error::describe, and programs built from
// shared prefixes, one per family of failing instructions. Reasons,
// locations and messages of the rest: tests/lang/errors.clj.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval_error;

namespace {

TEST(Errors, DescribeFormat) {
  ptc::Error e = eval_error("(+ 1 :a)");
  EXPECT_EQ(e.describe(), "type_error at 1:1: +: expected a number (argument 2), got keyword :a");
}

}  // namespace

// The pc rule (vm/vm.cpp, at SAVE_PC): an instruction that raises reports
// its own line, never that of an earlier instruction that saved pc (the
// println before it here). One case per family of instructions that can
// raise; the deep ones make compare and equals hit the native stack guard.
TEST(Errors, EveryInstructionThatCanFailReportsItsOwnLine) {
  const std::string deep =
      "(let [a (reduce (fn [acc _] [acc]) [] (range 60000))\n"
      "      b (reduce (fn [acc _] [acc]) [] (range 60000))]\n"
      "  (println \"built\")\n";
  const std::string flat = "(let [n 1 k :k f 5 s \"s\"]\n  (println \"p\")\n";
  struct Case {
    const char* family;
    std::string program;
    ErrorKind kind;
    uint32_t line;
  };
  const Case cases[] = {
      {"EQ", deep + "  (let [r (= a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"LT", deep + "  (let [r (< a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"LE", deep + "  (let [r (<= a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"GT", deep + "  (let [r (> a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"GE", deep + "  (let [r (>= a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"IFLT", deep + "  (if (< a b) 1 2))", ErrorKind::CallDepthExceeded, 4},
      {"IFEQ", deep + "  (if (= a b) 1 2))", ErrorKind::CallDepthExceeded, 4},
      {"ADD", flat + "  (+ n k))", ErrorKind::TypeError, 3},
      {"SUB", flat + "  (- n k))", ErrorKind::TypeError, 3},
      {"MUL", flat + "  (* n k))", ErrorKind::TypeError, 3},
      {"INC", flat + "  (inc s))", ErrorKind::TypeError, 3},
      {"DEC", flat + "  (dec s))", ErrorKind::TypeError, 3},
      {"CALL", flat + "  (f 1))", ErrorKind::NotCallable, 3},
      {"CALLB", flat + "  (nth k 0))", ErrorKind::TypeError, 3},
      {"GETGLOBAL", "(println \"p\")\n(do\n  later)\n(def later 1)", ErrorKind::UnboundVar, 3},
  };
  for (const Case& c : cases) {
    ptc::Error e = eval_error(c.program);
    EXPECT_EQ(e.kind, c.kind) << c.family << ": " << e.describe();
    EXPECT_EQ(e.loc.line, c.line) << c.family << ": " << e.describe();
  }
}
