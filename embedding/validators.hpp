// A host's program validator (RunOptions::validate_program) applied to a
// compiled program: in the run (embedding/run.cpp), and in the host before
// an isolated run, whose worker cannot call the host's hook.
#pragma once

#include <string_view>

#include "compiler/proto.hpp"
#include "include/ptc/ptc.hpp"

namespace ptc {

// Throws LispError (validation_error, "the host refused the program: ...")
// when `validate` refuses the program or throws.
void check_program(std::string_view source, const CompiledProgram& code,
                   const ProgramValidator& validate);

}  // namespace ptc
