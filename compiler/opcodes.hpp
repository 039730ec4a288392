// The instruction set, declared once. Every instruction is 8 bytes:
// an opcode, a spare byte, a 16-bit operand A and a 32-bit field used either
// as two 16-bit operands B and C, or as one unsigned Bx / signed sBx.
// R[x] is register x of the current frame, K[x] a constant of the function,
// U[x] a captured value of the running closure. Jumps are relative to the
// instruction after the jump. The Notes after the table give the operands
// and neighbours that mean more than one line of it can say.
#pragma once

#include <cstdint>

namespace ptc {

// X(name, operands, meaning)
#define PTC_OPCODES(X)                                                                             \
  X(MOVE, "A B", "R[A] = R[B]")                                                                    \
  X(LOADK, "A Bx", "R[A] = K[Bx]")                                                                 \
  X(LOADNIL, "A", "R[A] = nil")                                                                    \
  X(LOADBOOL, "A B", "R[A] = (B != 0)")                                                            \
  X(LOADINT, "A sBx", "R[A] = sBx")                                                                \
  X(GETUPVAL, "A B", "R[A] = U[B]")                                                                \
  X(GETSELF, "A", "R[A] = the running closure")                                                    \
  X(GETGLOBAL, "A Bx", "R[A] = global Bx; error if unbound")                                       \
  X(GETGLOBALF, "A B C", "R[A] = global B if bound, else builtin C")                               \
  X(DEFGLOBAL, "A Bx", "global Bx = R[A]; R[A] = #'name")                                          \
  X(ISBOUND, "A Bx", "R[A] = whether global Bx is bound")                                          \
  X(VARREF, "A Bx", "R[A] = #'name of global Bx")                                                  \
  X(GETDATA, "A Bx", "R[A] = context value under key K[Bx]")                                       \
  X(TURNHIST, "A B", "R[A] = result of the turn B back (*1 *2 *3)")                                \
  X(JMP, "sBx", "pc += sBx")                                                                       \
  X(JMPIF, "A sBx", "if R[A] is truthy: pc += sBx")                                                \
  X(JMPIFNOT, "A sBx", "if R[A] is falsy: pc += sBx")                                              \
  X(LOOP, "A sBx", "recur jump: count R[A] against loop_limit, charge a reduction, pc += sBx")     \
  X(JMPBACK, "sBx", "backward jump of a generated loop: charge a reduction, pc += sBx")            \
  X(CALL, "A B", "R[A] = R[A](R[A+1] ... R[A+B])")                                                 \
  X(CALLB, "A B C", "R[A] = builtin C (R[A] ... R[A+B-1])")                                        \
  X(CALLO, "A B C",                                                                                \
    "CALLB on an accumulator the frame may own: updated in place when it carries the owner's tag") \
  X(REDUCE, "A B C",                                                                               \
    "(reduce R[A] R[A+1] R[A+2]) by builtin C (B = 3), or, for a closure over a vector, the "      \
    "loop of REDUCESTEP: R[A+3] index, R[A+4] owner token, R[A+5] accumulator")                    \
  X(REDUCESTEP, "A",                                                                               \
    "past the last item: R[A] = R[A+5], pc += 1; else R[A+5] = R[A](R[A+5], next item), the "      \
    "callee owning its accumulator by R[A+4]")                                                     \
  X(CLOSURE, "A Bx", "R[A] = closure of function Bx, capturing its declared values")               \
  X(RETURN, "A", "return R[A] to the caller")                                                      \
  X(VECTOR, "A B C", "R[A] = [R[B] ... R[B+C-1]]")                                                 \
  X(MAP, "A B C", "R[A] = {R[B] R[B+1] ...}, C registers of alternating keys and values")          \
  X(SET, "A B C", "R[A] = #{R[B] ... R[B+C-1]}")                                                   \
  X(CASE, "A Bx", "pc += 1 + the clause number of R[A] in dispatch map K[Bx], if there")           \
  X(TOOL, "A Bx", "R[A] = call tool named K[Bx] with argument map R[A]")                           \
  X(RETSIG, "A", "(return R[A]): end the program with R[A]")                                       \
  X(FAILSIG, "A", "(fail R[A]): end the program with an error carrying R[A]")                      \
  X(ADD, "A B C", "R[A] = R[B] + R[C]")                                                            \
  X(SUB, "A B C", "R[A] = R[B] - R[C]")                                                            \
  X(MUL, "A B C", "R[A] = R[B] * R[C]")                                                            \
  X(LT, "A B C", "R[A] = R[B] < R[C]")                                                             \
  X(LE, "A B C", "R[A] = R[B] <= R[C]")                                                            \
  X(GT, "A B C", "R[A] = R[B] > R[C]")                                                             \
  X(GE, "A B C", "R[A] = R[B] >= R[C]")                                                            \
  X(EQ, "A B C", "R[A] = (= R[B] R[C])")                                                           \
  X(INC, "A B", "R[A] = R[B] + 1")                                                                 \
  X(DEC, "A B", "R[A] = R[B] - 1")                                                                 \
  X(KWGET, "A B C", "R[A] = (K[C] R[B]): keyword lookup in a map")                                 \
  X(IFLT, "A B",                                                                                   \
    "if R[A] < R[B]: skip the next instruction (a JMP to the else branch), else take that JMP")    \
  X(IFLE, "A B", "if R[A] <= R[B]: skip the next instruction")                                     \
  X(IFGT, "A B", "if R[A] > R[B]: skip the next instruction")                                      \
  X(IFGE, "A B", "if R[A] >= R[B]: skip the next instruction")                                     \
  X(IFEQ, "A B", "if (= R[A] R[B]): skip the next instruction")                                    \
  X(ADDI, "A B sC", "R[A] = R[B] + sC (C a signed 16-bit integer)")                                \
  X(SUBI, "A B sC", "R[A] = R[B] - sC")                                                            \
  X(IFLTI, "A sB", "if R[A] < sB: skip the next instruction (a JMP), else take that JMP")          \
  X(IFLEI, "A sB", "if R[A] <= sB: skip the next instruction")                                     \
  X(IFGTI, "A sB", "if R[A] > sB: skip the next instruction")                                      \
  X(IFGEI, "A sB", "if R[A] >= sB: skip the next instruction")                                     \
  X(IFEQI, "A sB", "if (= R[A] sB): skip the next instruction")

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
#define PTC_X(name, operands, meaning) name,
  PTC_OPCODES(PTC_X)
#undef PTC_X
};

constexpr int kOpCount = 0
#define PTC_X(name, operands, meaning) +1
    PTC_OPCODES(PTC_X)
#undef PTC_X
    ;

struct OpInfo {
  const char* name;
  const char* operands;
  const char* meaning;
};
const OpInfo& op_info(Op op);

struct Instr {
  Op op;
  uint8_t x = 0;
  uint16_t a = 0;
  uint32_t bc = 0;

  uint16_t b() const { return static_cast<uint16_t>(bc & 0xFFFF); }
  uint16_t c() const { return static_cast<uint16_t>(bc >> 16); }
  uint32_t bx() const { return bc; }
  int32_t sbx() const { return static_cast<int32_t>(bc); }
  int16_t sb() const { return static_cast<int16_t>(bc & 0xFFFF); }
  int16_t sc() const { return static_cast<int16_t>(bc >> 16); }

  static Instr abc(Op op, uint32_t a, uint32_t b = 0, uint32_t c = 0) {
    return Instr{op, 0, static_cast<uint16_t>(a), (b & 0xFFFF) | (c << 16)};
  }
  static Instr abx(Op op, uint32_t a, uint32_t bx) {
    return Instr{op, 0, static_cast<uint16_t>(a), bx};
  }
  static Instr asbx(Op op, uint32_t a, int32_t sbx) {
    return Instr{op, 0, static_cast<uint16_t>(a), static_cast<uint32_t>(sbx)};
  }
};
static_assert(sizeof(Instr) == 8, "instructions are 8 bytes");

}  // namespace ptc
