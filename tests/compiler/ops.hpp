// The bytecode of a program as data, for tests that state it exactly (as
// Lua's testes/code.lua does): EXPECT_EQ(ops("(inc x)"), (Ops{...})).
// Functions are numbered as `ptc disasm` numbers them: fn #0 is the top
// level, the others follow in the order their `fn` forms compile.
#pragma once

#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compiler.hpp"
#include "compiler/proto.hpp"
#include "frontend/analyzer.hpp"
#include "frontend/reader.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/ctx.hpp"
#include "runtime/printer.hpp"

namespace ptc::testing {

using Strings = std::vector<std::string>;
using Ops = Strings;  // opcode names, each maybe with a detail: "MUL 2:3"

// A program compiled as `ptc disasm` compiles it, with the context its
// constants live in.
class Compiled {
 public:
  explicit Compiled(std::string_view source) : ctx_(Limits{}) {
    FormList forms = read_program(ctx_.arena, source);
    program_ = compile_program(ctx_, analyze_program(ctx_, forms));
  }
  const FnProto& fn(size_t index) const { return *program_->fns[index]; }
  const Proto& arity(size_t fn_index, size_t arity_index = 0) const {
    return *fn(fn_index).arities[arity_index];
  }

 private:
  Ctx ctx_;
  std::unique_ptr<CompiledProgram> program_;
};

// Opcode names in order.
inline Ops ops(const Proto& p) {
  Ops out;
  for (const Instr& in : p.code)
    out.push_back(op_info(in.op).name);
  return out;
}

// The opcodes of the first arity of function `fn` of `source`.
inline Ops ops(std::string_view source, size_t fn = 0) {
  return ops(Compiled(source).arity(fn));
}

// Each opcode with its source position, "MUL 2:3".
inline Ops ops_with_positions(const Proto& p) {
  Ops out;
  for (size_t pc = 0; pc < p.code.size(); ++pc)
    out.push_back(
        fmt::format("{} {}:{}", op_info(p.code[pc].op).name, p.loc_at(pc).line, p.loc_at(pc).col));
  return out;
}

// The calls to builtins in order, each with the builtin's name: "CALLO assoc".
inline Ops builtin_calls(const Proto& p) {
  Ops out;
  for (const Instr& in : p.code)
    if (in.op == Op::CALLB || in.op == Op::CALLO)
      out.push_back(fmt::format("{} {}", op_info(in.op).name, builtin_def(in.c()).name));
  return out;
}

// The constants as previews: ":n", "#fn[...]".
inline Strings constants(const Proto& p) {
  Strings out;
  for (Value v : p.constants)
    out.push_back(preview(v));
  return out;
}

// Where each captured value comes from: "register 1", "upvalue 0".
inline Strings captures(const FnProto& fn) {
  Strings out;
  for (const Capture& c : fn.captures)
    out.push_back(fmt::format("{} {}", c.from_upvalue ? "upvalue" : "register", c.index));
  return out;
}

}  // namespace ptc::testing
