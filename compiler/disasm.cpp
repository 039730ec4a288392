// Bytecode listing: one line per instruction with its operands, the jump
// target or constant it refers to, and its source line:column.
#include <fmt/format.h>

#include "compiler/proto.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/printer.hpp"

namespace ptc {

namespace {

std::string operands(const Proto& p, const Instr& in, size_t pc) {
  auto konst = [&](uint32_t k) {
    return k < p.constants.size() ? preview(p.constants[k], 40) : std::string("?");
  };
  auto target = [&] { return static_cast<int64_t>(pc) + 1 + in.sbx(); };
  std::string out;
  switch (operand_form(in.op)) {
    case OperandForm::A:
      return fmt::format("{}", in.a);
    case OperandForm::AB:
      return fmt::format("{} {}", in.a, in.b());
    case OperandForm::ABC:
      out = fmt::format("{} {} {}", in.a, in.b(), in.c());
      if (in.op == Op::CALLB || in.op == Op::CALLO || in.op == Op::REDUCE)
        out += fmt::format("    ; {}", builtin_def(in.c()).name);
      if (in.op == Op::KWGET) out += fmt::format("    ; {}", konst(in.c()));
      if (in.op == Op::GETGLOBALF) out += fmt::format("    ; else {}", builtin_def(in.c()).name);
      return out;
    case OperandForm::ABsC:
      return fmt::format("{} {} {}", in.a, in.b(), in.sc());
    case OperandForm::AsB:
      return fmt::format("{} {}", in.a, in.sb());
    case OperandForm::ABx:
      out = fmt::format("{} {}", in.a, in.bx());
      if (in.op == Op::LOADK || in.op == Op::GETDATA || in.op == Op::CASE || in.op == Op::TOOL)
        out += fmt::format("    ; {}", konst(in.bx()));
      return out;
    case OperandForm::AsBx:
      if (in.op == Op::LOADINT) return fmt::format("{} {}", in.a, in.sbx());
      return fmt::format("{} {}    ; -> {}", in.a, in.sbx(), target());
    case OperandForm::sBx:
      return fmt::format("{}    ; -> {}", in.sbx(), target());
  }
  return out;  // not reached: every form has its case (-Wswitch)
}

void list_fn(std::string& out, const FnProto& fn, size_t index) {
  out += fmt::format("fn #{} {}[{}]  ({}:{})\n", index,
                     fn.name.empty() ? "" : std::string(fn.name) + " ", fn.params, fn.loc.line,
                     fn.loc.col);
  for (size_t i = 0; i < fn.captures.size(); ++i)
    out += fmt::format("  capture {}: {} {}\n", i,
                       fn.captures[i].from_upvalue ? "upvalue" : "register", fn.captures[i].index);
  for (const Proto* p : fn.arities) {
    out += fmt::format("  arity {}{}: {} registers, {} constants{}\n", p->nparams,
                       p->variadic ? "+rest" : "", p->nregs, p->constants.size(),
                       p->owns_accumulator ? ", owns its accumulator" : "");
    for (size_t pc = 0; pc < p->code.size(); ++pc) {
      const Instr& in = p->code[pc];
      SourceLoc loc = p->loc_at(pc);
      out += fmt::format("    {:4}  {:<10} {:<28} {}:{}\n", pc, op_info(in.op).name,
                         operands(*p, in, pc), loc.line, loc.col);
    }
  }
}

}  // namespace

std::string disassemble(const CompiledProgram& program) {
  std::string out;
  for (size_t i = 0; i < program.fns.size(); ++i) {
    list_fn(out, *program.fns[i], i);
    out += '\n';
  }
  return out;
}

}  // namespace ptc
