// The compiler: core IR to register bytecode. Registers are allocated like a
// stack (Lua style): locals hold a register while in scope, temporaries are
// freed as soon as the expression that needed them is done, and call
// arguments are placed in consecutive registers above everything live so the
// callee's frame starts right there.
#pragma once

#include <memory>

#include "compiler/proto.hpp"
#include "frontend/ir.hpp"

namespace ptc {

class Ctx;

// Throws LispError for programs beyond the bytecode's limits (65,535
// registers per function). Constants stay in ctx's arena.
std::unique_ptr<CompiledProgram> compile_program(Ctx& ctx, const AnalyzedProgram& program);

// LOOP's A when the count is the frame's (opcodes.hpp, Notes).
constexpr uint16_t kFrameCounter = 0xFFFF;

}  // namespace ptc
