// Bytecode listing: one line per instruction with its operands, the jump
// target or constant it refers to, and its source line:column.
#include <fmt/format.h>

#include <cstring>

#include "compiler/proto.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/printer.hpp"

namespace ptc {

namespace {

std::string operands(const Proto& p, const Instr& in, size_t pc) {
  const char* form = op_info(in.op).operands;
  std::string out;
  auto konst = [&](uint32_t k) {
    return k < p.constants.size() ? preview(p.constants[k], 40) : std::string("?");
  };
  if (std::strcmp(form, "A") == 0) return fmt::format("{}", in.a);
  if (std::strcmp(form, "A B") == 0) return fmt::format("{} {}", in.a, in.b());
  if (std::strcmp(form, "A B C") == 0) {
    out = fmt::format("{} {} {}", in.a, in.b(), in.c());
    if (in.op == Op::CALLB || in.op == Op::CALLO || in.op == Op::REDUCE)
      out += fmt::format("    ; {}", builtin_def(in.c()).name);
    if (in.op == Op::KWGET) out += fmt::format("    ; {}", konst(in.c()));
    if (in.op == Op::GETGLOBALF) out += fmt::format("    ; else {}", builtin_def(in.c()).name);
    return out;
  }
  if (std::strcmp(form, "A Bx") == 0) {
    out = fmt::format("{} {}", in.a, in.bx());
    if (in.op == Op::LOADK || in.op == Op::GETDATA || in.op == Op::CASE || in.op == Op::TOOL)
      out += fmt::format("    ; {}", konst(in.bx()));
    return out;
  }
  if (std::strcmp(form, "A B sC") == 0) return fmt::format("{} {} {}", in.a, in.b(), in.sc());
  if (std::strcmp(form, "A sB") == 0) return fmt::format("{} {}", in.a, in.sb());
  if (std::strcmp(form, "A sBx") == 0) {
    if (in.op == Op::LOADINT) return fmt::format("{} {}", in.a, in.sbx());
    return fmt::format("{} {}    ; -> {}", in.a, in.sbx(), static_cast<int64_t>(pc) + 1 + in.sbx());
  }
  if (std::strcmp(form, "sBx") == 0)
    return fmt::format("{}    ; -> {}", in.sbx(), static_cast<int64_t>(pc) + 1 + in.sbx());
  return out;
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
