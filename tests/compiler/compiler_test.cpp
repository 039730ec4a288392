// Compiler: the instruction table and the shape of the bytecode it emits.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "compiler/compiler.hpp"
#include "compiler/opcodes.hpp"
#include "compiler/proto.hpp"
#include "frontend/analyzer.hpp"
#include "frontend/reader.hpp"
#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"

namespace ptc {
namespace {

std::string disasm(const std::string& src) {
  return disassemble_source(src);
}

TEST(Opcodes, TableIsCompleteAndUnique) {
  std::set<std::string> names;
  for (int i = 0; i < kOpCount; ++i) {
    const OpInfo& info = op_info(static_cast<Op>(i));
    ASSERT_NE(info.name, nullptr);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_GT(std::strlen(info.meaning), 5u) << info.name;
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(kOpCount));
}

TEST(Opcodes, InstructionOperandPacking) {
  Instr i = Instr::abc(Op::CALLB, 7, 300, 65535);
  EXPECT_EQ(i.a, 7);
  EXPECT_EQ(i.b(), 300);
  EXPECT_EQ(i.c(), 65535);
  Instr j = Instr::asbx(Op::JMP, 0, -12345);
  EXPECT_EQ(j.sbx(), -12345);
}

TEST(Compiler, RecurBecomesACountedBackwardJump) {
  std::string d = disasm("(loop [i 0] (if (< i 3) (recur (inc i)) i))");
  EXPECT_NE(d.find("LOOP"), std::string::npos) << d;
  EXPECT_NE(d.find("IFLT"), std::string::npos) << d;  // compare fused with the branch
  EXPECT_NE(d.find("INC"), std::string::npos) << d;
  EXPECT_EQ(d.find("CALL "), std::string::npos) << d;
}

TEST(Compiler, GeneratedLoopsUseUncountedJumps) {
  std::string d = disasm("(for [x [1 2]] x)");
  EXPECT_NE(d.find("JMPBACK"), std::string::npos) << d;
  EXPECT_EQ(d.find("LOOP "), std::string::npos) << d;
}

TEST(Compiler, KeywordCallIsADirectLookup) {
  std::string d = disasm("(fn [m] (:total m))");
  EXPECT_NE(d.find("KWGET"), std::string::npos) << d;
}

TEST(Compiler, ClosuresListTheirCaptures) {
  std::string d = disasm("(let [a 1 b 2] (fn [] (+ a b)))");
  EXPECT_NE(d.find("capture 0: register"), std::string::npos) << d;
  EXPECT_NE(d.find("capture 1: register"), std::string::npos) << d;
  EXPECT_NE(d.find("GETUPVAL"), std::string::npos) << d;
  std::string nested = disasm("(let [a 1] (fn [] (fn [] a)))");
  EXPECT_NE(nested.find("capture 0: upvalue 0"), std::string::npos) << nested;
}

TEST(Compiler, EveryInstructionHasASourcePosition) {
  std::string d = disasm("(defn f [x]\n  (* x 2))\n(f 3)");
  EXPECT_NE(d.find(" 2:3"), std::string::npos) << d;  // the multiplication on line 2
  EXPECT_EQ(d.find(" 0:0"), std::string::npos) << d;
}

// Constants are shared within a function, by a search while there are few
// and through an index past that.
TEST(Compiler, EachConstantIsStoredOnce) {
  for (int n : {3, 16, 17, 40}) {
    // A vector with a local in it is built at run time from the constants.
    std::string items;
    for (int i = 0; i < n; ++i)
      items += std::to_string(i) + ".5 ";
    std::string tail = "0.5 -0.0 0.0 -0.0 " + std::to_string(n / 2) + ".5]";
    std::string src = "((fn [x] [x " + items + tail + ") 1)";
    std::string d = disasm(src);
    EXPECT_NE(d.find(std::to_string(n + 2) + " constants"), std::string::npos) << n << "\n" << d;
    Step r = run(src);
    ASSERT_TRUE(r.ok) << r.error.message;
    EXPECT_NE(r.printed.find(tail), std::string::npos) << r.printed;
  }
}

TEST(Compiler, CaseUsesAJumpTable) {
  std::string d = disasm("(case 2 1 :a 2 :b :c)");
  EXPECT_NE(d.find("CASE"), std::string::npos) << d;
}

TEST(Compiler, ManyArgumentsAndLongPrograms) {
  std::string src = "(vector";
  for (int i = 0; i < 3000; ++i)
    src += " (inc " + std::to_string(i) + ")";
  src += ")";
  Step r = run("(count " + src + ")");
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "3000");
}

// recur finds its target among the loops being compiled: one in its own
// arguments comes and goes before the lookup (it grows the list of
// targets), and sibling loops before it are gone from the list.
TEST(Compiler, RecurTargetsItsOwnLoopPastLoopsInItsArguments) {
  Step r = run(
      "(loop [i 0 acc 0]"
      "  (if (< i 3)"
      "    (recur (inc i) (+ acc (loop [j 0] (if (< j 2) (recur (inc j)) (+ j (loop [k 0] (if (< k "
      "1) (recur (inc k)) k)))))))"
      "    acc))");
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "9");
  r =
      run("(defn f [n acc] (let [a (loop [x 0] (if (< x 2) (recur (inc x)) x))"
          "                      b (loop [y 5] (if (> y 3) (recur (dec y)) y))]"
          "  (if (> n 0) (recur (dec n) (+ acc a b)) acc)))"
          "(f 4 0)");
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "20");
  // Loops nested 40 deep in recur arguments: the list of targets grows
  // (and moves) while the outer recur's arguments compile.
  std::string nested = "0";
  for (int d = 0; d < 40; ++d)
    nested = "(loop [i" + std::to_string(d) + " 0 a" + std::to_string(d) + " 0] (if (< i" +
             std::to_string(d) + " 1) (recur (inc i" + std::to_string(d) + ") (+ 1 " + nested +
             ")) a" + std::to_string(d) + "))";
  r = run(nested);
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "40");
}

TEST(Compiler, ManyLoopsInOneFunction) {
  std::string src = "(+";
  for (int i = 0; i < 2000; ++i)
    src += " (loop [i 0] (if (< i 2) (recur (inc i)) i))";
  src += ")";
  Step r = run(src);
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "4000");
}

}  // namespace
}  // namespace ptc

namespace ptc {
namespace {

// The bytecode lives outside the arena but counts against the compilation's
// heap budget (the arena's cap) all the same.
TEST(Compiler, ChargesItsCodeToTheHeapBudget) {
  std::string src = "(vector";
  for (int i = 0; i < 3000; ++i)
    src += " (inc " + std::to_string(i) + ")";
  src += ")";
  Ctx ctx(Limits{});
  FormList forms = read_program(ctx.arena, src);
  AnalyzedProgram analyzed = analyze_program(ctx, forms);
  size_t before = ctx.arena.used();
  std::unique_ptr<CompiledProgram> compiled = compile_program(ctx, analyzed);
  size_t code_bytes = 0;
  for (const auto& fn : compiled->fns)
    for (const auto& p : fn->arities)
      code_bytes += p->code.size() * sizeof(Instr) + p->locs.size() * sizeof(SourceLoc);
  EXPECT_GT(code_bytes, 3000 * sizeof(Instr));
  EXPECT_GE(ctx.arena.used() - before, code_bytes);
}

}  // namespace
}  // namespace ptc
