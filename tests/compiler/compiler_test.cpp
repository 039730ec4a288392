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
#include "ops.hpp"
#include "runtime/ctx.hpp"

namespace ptc {
namespace {

using testing::Compiled;
using testing::Ops;
using testing::ops;
using testing::Strings;

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

// Reading an operand the instruction's form lacks, or building it with the
// wrong shape, stops a build with assertions (the accessors are the VM's hot
// path: Release, with NDEBUG, reads without checking).
TEST(Opcodes, AccessorsAssertTheOperandForm) {
#ifdef NDEBUG
  GTEST_SKIP() << "assert() is off under NDEBUG";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Instr add = Instr::abc(Op::ADD, 0, 1, 2);
  EXPECT_EQ(add.c(), 2);
  EXPECT_DEATH(add.sc(), "form_is");
  EXPECT_DEATH(Instr::asbx(Op::JMP, 0, 3).b(), "form_is");
  EXPECT_DEATH(Instr::abx(Op::JMP, 0, 3), "form_is");
#endif
}

// No CALL: (< i 3) is an IFLTI fused with its JMP, inc an INC, and recur
// moves the new value into i and jumps back with LOOP, which counts.
TEST(Compiler, RecurBecomesACountedBackwardJump) {
  EXPECT_EQ(ops("(loop [i 0] (if (< i 3) (recur (inc i)) i))"),
            (Ops{"LOADINT", "LOADINT",   // i, the loop's counter
                 "IFLTI", "JMP",         // (< i 3), else to the MOVE
                 "INC", "MOVE", "LOOP",  // (recur (inc i))
                 "JMP", "MOVE", "RETURN"}));
}

// A loop the program did not write (for) jumps back with JMPBACK, no LOOP:
// its iterations do not count against loop_limit.
TEST(Compiler, GeneratedLoopsUseUncountedJumps) {
  EXPECT_EQ(ops("(for [x [1 2]] x)"),
            (Ops{"CALLB", "MOVE",                             // the result's builder
                 "LOADK", "LOADK",   "CALLB",   "MOVE",       // the items as a vector
                 "MOVE",  "CALLB",   "MOVE",    "LOADINT",    // their count, index 0
                 "IFLT",  "JMP",                              // (< index count)
                 "MOVE",  "MOVE",    "CALLB",   "MOVE",       // x = (nth items index)
                 "MOVE",  "MOVE",    "CALLB",   "MOVE",       // push x
                 "INC",   "MOVE",    "JMPBACK",               // the next index
                 "JMP",   "LOADNIL",                          // the loop's own value, nil
                 "MOVE",  "CALLB",   "MOVE",    "RETURN"}));  // the result, finished
}

TEST(Compiler, KeywordCallIsADirectLookup) {
  EXPECT_EQ(ops("(fn [m] (:total m))", 1), (Ops{"KWGET", "RETURN"}));
}

// A closure captures its creator's registers; one nested deeper captures
// its creator's captured value (an upvalue). Both read them with GETUPVAL.
TEST(Compiler, ClosuresListTheirCaptures) {
  Compiled flat("(let [a 1 b 2] (fn [] (+ a b)))");
  EXPECT_EQ(testing::captures(flat.fn(1)), (Strings{"register 1", "register 2"}));
  EXPECT_EQ(ops(flat.arity(1)), (Ops{"GETUPVAL", "GETUPVAL", "ADD", "RETURN"}));
  Compiled nested("(let [a 1] (fn [] (fn [] a)))");
  EXPECT_EQ(testing::captures(nested.fn(1)), (Strings{"register 1"}));
  EXPECT_EQ(testing::captures(nested.fn(2)), (Strings{"upvalue 0"}));
  EXPECT_EQ(ops(nested.arity(2)), (Ops{"GETUPVAL", "RETURN"}));
}

// None at 0:0 (unknown): each is where its form starts; an arity's RETURN
// is at its parameter vector, the top level's at the first form.
TEST(Compiler, EveryInstructionHasASourcePosition) {
  Compiled c("(defn f [x]\n  (* x 2))\n(f 3)");
  EXPECT_EQ(testing::ops_with_positions(c.arity(0)),
            (Ops{"CLOSURE 1:1", "DEFGLOBAL 1:1", "GETGLOBAL 3:2", "LOADINT 3:4", "CALL 3:1",
                 "RETURN 1:1"}));
  EXPECT_EQ(testing::ops_with_positions(c.arity(1)), (Ops{"LOADINT 2:8", "MUL 2:3", "RETURN 1:9"}));
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
    // The n items, -0.0 and 0.0 (distinct constants); 0.5, the second -0.0
    // and n/2 + 0.5 are repeats.
    EXPECT_EQ(Compiled(src).arity(1).constants.size(), static_cast<size_t>(n + 2)) << n;
    Step r = run(src);
    ASSERT_TRUE(r.ok) << r.error.message;
    EXPECT_EQ(r.printed, "[1 " + items + tail);
  }
}

// CASE looks the value up once and lands in its table of jumps (the
// default's, then one per clause); each body then jumps to the end.
TEST(Compiler, CaseUsesAJumpTable) {
  EXPECT_EQ(ops("(case 2 1 :a 2 :b :c)"),
            (Ops{"LOADINT", "CASE", "JMP", "JMP", "JMP",  // the table: :c, :a, :b
                 "LOADK", "JMP", "LOADK", "JMP", "LOADK", "JMP", "RETURN"}));
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
