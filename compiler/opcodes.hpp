// The instruction set, declared once. Every instruction is 8 bytes:
// an opcode, a spare byte, a 16-bit operand A and a 32-bit field used either
// as two 16-bit operands B and C, or as one unsigned Bx / signed sBx.
// R[x] is register x of the current frame, K[x] a constant of the function,
// U[x] a captured value of the running closure. Jumps are relative to the
// instruction after the jump. The Notes after the table give the operands
// and neighbours that mean more than one line of it can say.
#pragma once

#include <cassert>
#include <cstdint>

namespace ptc {

// Which operands an instruction has (A is always the first when present):
// B and C are 16 bits, sB and sC their signed readings; Bx is the 32-bit
// field, sBx its signed reading. Debug builds assert it in Instr's accessors.
enum class OperandForm : uint8_t { A, AB, ABC, ABsC, AsB, ABx, AsBx, sBx };

// X(name, operand form, meaning)
#define PTC_OPCODES(X)                                                                             \
  X(MOVE, AB, "R[A] = R[B]")                                                                       \
  X(LOADK, ABx, "R[A] = K[Bx]")                                                                    \
  X(LOADNIL, A, "R[A] = nil")                                                                      \
  X(LOADBOOL, AB, "R[A] = (B != 0)")                                                               \
  X(LOADINT, AsBx, "R[A] = sBx")                                                                   \
  X(GETUPVAL, AB, "R[A] = U[B]")                                                                   \
  X(GETSELF, A, "R[A] = the running closure")                                                      \
  X(GETGLOBAL, ABx, "R[A] = global Bx; error if unbound")                                          \
  X(GETGLOBALF, ABC, "R[A] = global B if bound, else builtin C")                                   \
  X(DEFGLOBAL, ABx, "global Bx = R[A]; R[A] = #'name")                                             \
  X(ISBOUND, ABx, "R[A] = whether global Bx is bound")                                             \
  X(VARREF, ABx, "R[A] = #'name of global Bx")                                                     \
  X(GETDATA, ABx, "R[A] = context value under key K[Bx]")                                          \
  X(TURNHIST, AB, "R[A] = result of the turn B back (*1 *2 *3)")                                   \
  X(JMP, sBx, "pc += sBx")                                                                         \
  X(JMPIF, AsBx, "if R[A] is truthy: pc += sBx")                                                   \
  X(JMPIFNOT, AsBx, "if R[A] is falsy: pc += sBx")                                                 \
  X(LOOP, AsBx, "recur jump: count R[A] against loop_limit, charge a reduction, pc += sBx")        \
  X(JMPBACK, sBx, "backward jump of a generated loop: charge a reduction, pc += sBx")              \
  X(CALL, AB, "R[A] = R[A](R[A+1] ... R[A+B])")                                                    \
  X(CALLB, ABC, "R[A] = builtin C (R[A] ... R[A+B-1])")                                            \
  X(CALLO, ABC,                                                                                    \
    "CALLB on an accumulator the frame may own: updated in place when it carries the owner's tag") \
  X(REDUCE, ABC,                                                                                   \
    "(reduce R[A] R[A+1] R[A+2]) by builtin C (B = 3), or, for a closure over a vector, the "      \
    "loop of REDUCESTEP: R[A+3] index, R[A+4] owner token, R[A+5] accumulator")                    \
  X(REDUCESTEP, A,                                                                                 \
    "past the last item: R[A] = R[A+5], pc += 1; else R[A+5] = R[A](R[A+5], next item), the "      \
    "callee owning its accumulator by R[A+4]")                                                     \
  X(CLOSURE, ABx, "R[A] = closure of function Bx, capturing its declared values")                  \
  X(RETURN, A, "return R[A] to the caller")                                                        \
  X(VECTOR, ABC, "R[A] = [R[B] ... R[B+C-1]]")                                                     \
  X(MAP, ABC, "R[A] = {R[B] R[B+1] ...}, C registers of alternating keys and values")              \
  X(SET, ABC, "R[A] = #{R[B] ... R[B+C-1]}")                                                       \
  X(CASE, ABx, "pc += 1 + the clause number of R[A] in dispatch map K[Bx], if there")              \
  X(TOOL, ABx, "R[A] = call tool named K[Bx] with argument map R[A]")                              \
  X(RETSIG, A, "(return R[A]): end the program with R[A]")                                         \
  X(FAILSIG, A, "(fail R[A]): end the program with an error carrying R[A]")                        \
  X(ADD, ABC, "R[A] = R[B] + R[C]")                                                                \
  X(SUB, ABC, "R[A] = R[B] - R[C]")                                                                \
  X(MUL, ABC, "R[A] = R[B] * R[C]")                                                                \
  X(LT, ABC, "R[A] = R[B] < R[C]")                                                                 \
  X(LE, ABC, "R[A] = R[B] <= R[C]")                                                                \
  X(GT, ABC, "R[A] = R[B] > R[C]")                                                                 \
  X(GE, ABC, "R[A] = R[B] >= R[C]")                                                                \
  X(EQ, ABC, "R[A] = (= R[B] R[C])")                                                               \
  X(INC, AB, "R[A] = R[B] + 1")                                                                    \
  X(DEC, AB, "R[A] = R[B] - 1")                                                                    \
  X(KWGET, ABC, "R[A] = (K[C] R[B]): keyword lookup in a map")                                     \
  X(IFLT, AB,                                                                                      \
    "if R[A] < R[B]: skip the next instruction (a JMP to the else branch), else take that JMP")    \
  X(IFLE, AB, "if R[A] <= R[B]: skip the next instruction")                                        \
  X(IFGT, AB, "if R[A] > R[B]: skip the next instruction")                                         \
  X(IFGE, AB, "if R[A] >= R[B]: skip the next instruction")                                        \
  X(IFEQ, AB, "if (= R[A] R[B]): skip the next instruction")                                       \
  X(ADDI, ABsC, "R[A] = R[B] + sC (C a signed 16-bit integer)")                                    \
  X(SUBI, ABsC, "R[A] = R[B] - sC")                                                                \
  X(IFLTI, AsB, "if R[A] < sB: skip the next instruction (a JMP), else take that JMP")             \
  X(IFLEI, AsB, "if R[A] <= sB: skip the next instruction")                                        \
  X(IFGTI, AsB, "if R[A] > sB: skip the next instruction")                                         \
  X(IFGEI, AsB, "if R[A] >= sB: skip the next instruction")                                        \
  X(IFEQI, AsB, "if (= R[A] sB): skip the next instruction")

// Notes
//
// LOOP: A == kFrameCounter (0xFFFF, compiler.hpp; no frame has that many
//   registers) counts in the frame (the recur of a function to its own
//   arity) rather than in R[A] (a loop's counter, set to 0 before it).
//
// IF*, IF*I: always followed by the JMP to the else branch. When the
//   comparison holds that JMP is skipped; else the IF takes it (reading its
//   sBx) without dispatching it.
//
// CASE: followed by a table of JMPs, the default's first, then one per
//   clause in the order written. K[Bx] maps each clause's constant to its
//   number i from 0, and CASE skips to the JMP at pc + 1 + i; a value not in
//   the map falls through to the default's.
//
// REDUCE A 3 C: followed by REDUCESTEP A and a JMP back to it (sBx = -2).
//   Unless f is a closure and coll a vector, REDUCE calls builtin C and
//   skips both; else the VM's loop runs until REDUCESTEP skips the JMP.
//   R[A] .. R[A+7] are f, init, coll, then the loop's index and owner token,
//   then the step's call: f, accumulator, item (R[A+5], where each step's
//   result lands, holds the accumulator between steps).
//
// CALL A B: the callee's frame starts at R[A+1] (its arguments); its result
//   replaces the callee in R[A].
//
// Operands that are not registers: C of CALLB, CALLO, REDUCE and
//   GETGLOBALF is a builtin id (runtime/builtins/registry.hpp); C of KWGET and
//   Bx of LOADK, GETDATA, CASE and TOOL are constants; Bx of GETGLOBAL,
//   DEFGLOBAL, ISBOUND, VARREF and B of GETGLOBALF are global ids
//   (CompiledProgram::globals); Bx of CLOSURE indexes Proto::closures; B of
//   CALL, CALLB, CALLO and C of VECTOR, MAP, SET are counts; B of LOADBOOL
//   is 0 or 1, of TURNHIST 1, 2 or 3.

enum class Op : uint8_t {
#define PTC_X(name, form, meaning) name,
  PTC_OPCODES(PTC_X)
#undef PTC_X
};

constexpr int kOpCount = 0
#define PTC_X(name, form, meaning) +1
    PTC_OPCODES(PTC_X)
#undef PTC_X
    ;

struct OpInfo {
  const char* name;
  const char* meaning;
};
const OpInfo& op_info(Op op);

// Inline, unlike OpInfo, for the asserts in Instr's accessors.
inline constexpr OperandForm kOperandForms[] = {
#define PTC_X(name, form, meaning) OperandForm::form,
    PTC_OPCODES(PTC_X)
#undef PTC_X
};
constexpr OperandForm operand_form(Op op) {
  return kOperandForms[static_cast<int>(op)];
}

struct Instr {
  Op op;
  uint8_t x = 0;
  uint16_t a = 0;
  uint32_t bc = 0;

  // The VM reads these on every instruction: the checks are assert()s,
  // gone under NDEBUG.
  uint16_t b() const {
    assert(form_is(OperandForm::AB, OperandForm::ABC, OperandForm::ABsC));
    return static_cast<uint16_t>(bc & 0xFFFF);
  }
  uint16_t c() const {
    assert(form_is(OperandForm::ABC));
    return static_cast<uint16_t>(bc >> 16);
  }
  uint32_t bx() const {
    assert(form_is(OperandForm::ABx));
    return bc;
  }
  int32_t sbx() const {
    assert(form_is(OperandForm::AsBx, OperandForm::sBx));
    return static_cast<int32_t>(bc);
  }
  int16_t sb() const {
    assert(form_is(OperandForm::AsB));
    return static_cast<int16_t>(bc & 0xFFFF);
  }
  int16_t sc() const {
    assert(form_is(OperandForm::ABsC));
    return static_cast<int16_t>(bc >> 16);
  }

  static Instr abc(Op op, uint32_t a, uint32_t b = 0, uint32_t c = 0) {
    Instr in{op, 0, static_cast<uint16_t>(a), (b & 0xFFFF) | (c << 16)};
    assert(in.form_is(OperandForm::A, OperandForm::AB, OperandForm::ABC, OperandForm::ABsC,
                      OperandForm::AsB));
    return in;
  }
  static Instr abx(Op op, uint32_t a, uint32_t bx) {
    Instr in{op, 0, static_cast<uint16_t>(a), bx};
    assert(in.form_is(OperandForm::ABx));
    return in;
  }
  static Instr asbx(Op op, uint32_t a, int32_t sbx) {
    Instr in{op, 0, static_cast<uint16_t>(a), static_cast<uint32_t>(sbx)};
    assert(in.form_is(OperandForm::AsBx, OperandForm::sBx));
    return in;
  }

  template <class... Forms>
  constexpr bool form_is(Forms... forms) const {
    return ((operand_form(op) == forms) || ...);
  }
};
static_assert(sizeof(Instr) == 8, "instructions are 8 bytes");

}  // namespace ptc
