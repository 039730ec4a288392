// Small integer literals carried in the instruction (ADDI, SUBI, IF*I) and
// calls placed in their destination register: the bytecode is shorter and
// every result and error is what the general instructions give.
#include <gtest/gtest.h>

#include <string>

#include "include/ptc/ptc.hpp"
#include "ops.hpp"

namespace ptc {
namespace {

using testing::Ops;
using testing::ops;

std::string outcome(std::string_view source) {
  Step s = run(source);
  return s.ok ? s.printed : "error " + s.error.describe();
}

TEST(ImmediateOperands, AreUsedForSmallLiteralsOnTheRight) {
  testing::Compiled narrow("(fn [n] (if (< n 2) (+ n 1) (- n -32768)))");
  const Proto& p = narrow.arity(1);
  EXPECT_EQ(ops(p), (Ops{"IFLTI", "JMP", "ADDI", "JMP", "SUBI", "RETURN"}));
  EXPECT_EQ(p.code[0].sb(), 2);
  EXPECT_EQ(p.code[2].sc(), 1);
  EXPECT_EQ(p.code[4].sc(), -32768);
  // Too wide for 16 bits, or on the left: the literal is loaded into a
  // register for the general instructions.
  EXPECT_EQ(ops("(fn [n] (if (< n 40000) (+ n 32768) (+ 1 n)))", 1),
            (Ops{"LOADINT", "IFLT", "JMP", "LOADINT", "ADD", "JMP", "LOADINT", "ADD", "RETURN"}));
}

TEST(ImmediateOperands, GiveWhatTheGeneralInstructionsGive) {
  // Each program is run as written and with the literal out of reach of
  // the immediate form (bound in a let, so it travels in a register).
  struct Case {
    const char* with_literal;
    const char* with_register;
  };
  const Case cases[] = {
      {"(let [x 9223372036854775807] (+ x 1))", "(let [x 9223372036854775807 k 1] (+ x k))"},
      {"(let [x -9223372036854775808] (- x 1))", "(let [x -9223372036854775808 k 1] (- x k))"},
      {"(let [x 2.5] [(+ x 1) (- x 1)])", "(let [x 2.5 k 1] [(+ x k) (- x k)])"},
      {"(let [x \"a\"] (+ x 1))", "(let [x \"a\" k 1] (+ x k))"},
      {"(let [x nil] (- x 1))", "(let [x nil k 1] (- x k))"},
      {"(let [x ##NaN] [(if (< x 1) :y :n) (if (>= x 1) :y :n) (if (= x 1) :y :n)])",
       "(let [x ##NaN k 1] [(if (< x k) :y :n) (if (>= x k) :y :n) (if (= x k) :y :n)])"},
      {"(let [x 1.0] [(if (= x 1) :y :n) (if (<= x 1) :y :n) (if (> x 0) :y :n)])",
       "(let [x 1.0 k 1 z 0] [(if (= x k) :y :n) (if (<= x k) :y :n) (if (> x z) :y :n)])"},
      {"(let [x 100000000000000000000] [(if (> x 5) :y :n) (- x 5)])",
       "(let [x 100000000000000000000 k 5] [(if (> x k) :y :n) (- x k)])"},
      {"(let [x :a] (if (< x 1) :y :n))", "(let [x :a k 1] (if (< x k) :y :n))"},
      {"(loop [i 1 acc 0] (if (> i 1000) acc (recur (inc i) (+ acc i))))",
       "(let [n 1000] (loop [i 1 acc 0] (if (> i n) acc (recur (inc i) (+ acc i)))))"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.with_literal);
    std::string expected = outcome(c.with_register);
    std::string got = outcome(c.with_literal);
    // The error's column differs with the text; the rest must agree.
    if (expected.rfind("error ", 0) == 0) {
      ASSERT_EQ(got.rfind("error ", 0), 0u) << got;
      EXPECT_EQ(got.substr(0, got.find(" at ")), expected.substr(0, expected.find(" at ")));
      EXPECT_EQ(got.substr(got.find(": ")), expected.substr(expected.find(": ")));
    } else {
      EXPECT_EQ(got, expected);
    }
  }
}

// Each call's result is left in the register the + reads it from: no MOVE
// after a CALL.
TEST(CallsInPlace, ResultsLandWhereTheyBelong) {
  EXPECT_EQ(ops("(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))", 1),
            (Ops{"IFLTI", "JMP", "MOVE", "JMP",  // (< n 2): n
                 "GETGLOBAL", "SUBI", "CALL",    // (fib (- n 1))
                 "GETGLOBAL", "SUBI", "CALL",    // (fib (- n 2))
                 "ADD", "RETURN"}));
  EXPECT_EQ(outcome("(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 15)"),
            "610");
  // Arguments that read locals below the destination, nested calls and
  // calls whose arguments are calls.
  EXPECT_EQ(outcome("(let [f (fn [a b] (- a b)) x 10] [(f x 3) (+ (f x 1) (f (f x 2) 1))])"),
            "[7 16]");
  EXPECT_EQ(outcome("(let [g (fn [& xs] xs) a 1] (g (g a) (g a (g a 2)) a))"), "[[1] [1 [1 2]] 1]");
  EXPECT_EQ(
      outcome(
          "(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc ((fn [x] (* x x)) i))) acc))"),
      "[0 1 4]");
}

}  // namespace
}  // namespace ptc
