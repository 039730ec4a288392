// Arithmetic and comparisons of number literals are done by the analyzer
// (fold_numbers): a folded call gives what the builtin gives at run time, and
// a call the builtin rejects still fails at run time, at its own position.
#include <gtest/gtest.h>

#include <string>

#include "include/ptc/ptc.hpp"
#include "support/run_helpers.hpp"

using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

// The same call with its arguments in locals, which the analyzer never folds.
std::string unfolded(const std::string& head, const std::string& args) {
  std::string binds, names;
  size_t i = 0, pos = 0;
  while (pos < args.size()) {
    size_t end = args.find(' ', pos);
    if (end == std::string::npos) end = args.size();
    std::string name = "a" + std::to_string(i++);
    binds += name + " " + args.substr(pos, end - pos) + " ";
    names += " " + name;
    pos = end + 1;
  }
  return "(let [" + binds + "] (" + head + names + "))";
}

TEST(CompileTimeFolding, GivesWhatTheRunGives) {
  const char* heads[] = {"+",   "-",   "*",   "/",     "inc",  "dec",  "quot",  "rem",
                         "mod", "abs", "max", "min",   "=",    "==",   "not=",  "<",
                         ">",   "<=",  ">=",  "zero?", "pos?", "neg?", "even?", "odd?"};
  const char* argument_lists[] = {"7",
                                  "-7",
                                  "0",
                                  "2.5",
                                  "7 2",
                                  "-7 2",
                                  "7 -2",
                                  "7.5 2",
                                  "1 2 3",
                                  "3 2 1",
                                  "1 1.0",
                                  "0.0 -0.0",
                                  "9223372036854775807 1",
                                  "-9223372036854775808 -1",
                                  "##NaN 1",
                                  "##Inf 1",
                                  "6 3 2"};
  int compared = 0;
  for (const char* head : heads) {
    for (const char* args : argument_lists) {
      std::string literal = std::string("(") + head + " " + args + ")";
      std::string folded = eval(literal), run = eval(unfolded(head, args));
      EXPECT_EQ(folded, run) << literal;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 24 * 17);
}

TEST(CompileTimeFolding, NestedLiteralsBecomeOneConstant) {
  std::string d = ptc::disassemble_source("(+ 1 (* 2 3) (- 10 4) (* (+ 1 1) 5))");
  EXPECT_NE(d.find("LOADINT    0 23"), std::string::npos) << d;
  EXPECT_EQ(d.find("CALLB"), std::string::npos) << d;
  EXPECT_EQ(d.find("MUL"), std::string::npos) << d;
  // Not numbers, or not all constants: the call stays.
  struct Kept {
    const char* src;
    const char* op;
  };
  for (Kept k : {Kept{"(+ 1 \"a\")", "ADD "}, Kept{"(fn [x] (* 2 x))", "MUL "},
                 Kept{"(= 1 :a)", "EQ "}, Kept{"(max 1 :a)", "CALLB "}}) {
    std::string code = ptc::disassemble_source(k.src);
    EXPECT_NE(code.find(k.op), std::string::npos) << k.src << "\n" << code;
  }
}

TEST(CompileTimeFolding, RejectedCallsFailAtRunTimeWhereWritten) {
  ptc::Error e = eval_error("(do 1\n  (quot 7 (- 2 2)))");
  EXPECT_EQ(e.kind, ptc::ErrorKind::ArithmeticError) << e.message;
  EXPECT_EQ(e.loc.line, 2u);
  EXPECT_EQ(e.loc.col, 3u);
  e = eval_error("(if false 1\n   (mod 1 0))");
  EXPECT_EQ(e.loc.line, 2u);
  EXPECT_EQ(e.loc.col, 4u);
  // A branch never taken never fails.
  EXPECT_EQ(eval("(if true 1 (quot 1 0))"), "1");
  e = eval_error("(+ 1 \"a\")");
  EXPECT_EQ(e.kind, ptc::ErrorKind::TypeError) << e.message;
}

// Locals: the newest 32 bindings are searched from the innermost out, older
// ones through an index; shadowing holds across that boundary both ways.
TEST(LocalScopes, ShadowingAcrossTheIndexedBoundary) {
  for (int n : {1, 31, 32, 33, 64, 200}) {
    std::string binds = "x :outer ";
    for (int i = 0; i < n; ++i)
      binds += "b" + std::to_string(i) + " " + std::to_string(i) + " ";
    std::string program = "(let [" + binds + "] [x b0 (let [x :inner b0 :b] [x b0]) x b" +
                          std::to_string(n - 1) + " (let [" + binds + "x :last] x) x])";
    EXPECT_EQ(eval(program),
              "[:outer 0 [:inner :b] :outer " + std::to_string(n - 1) + " :last :outer]")
        << n;
  }
  // A function's parameters past the window, captured by an inner function.
  std::string params, args;
  for (int i = 0; i < 40; ++i) {
    params += " p" + std::to_string(i);
    args += " " + std::to_string(i);
  }
  EXPECT_EQ(eval("((fn [" + params + "] ((fn [] (+ p0 p39)))) " + args + ")"), "39");
}

}  // namespace
