#include "embedding/validators.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "runtime/error.hpp"

namespace ptc {

void check_program(std::string_view source, const CompiledProgram& code,
                   const ProgramValidator& validate) {
  ProgramAnalysis analysis{code.tools, code.data_keys};
  std::optional<std::string> refused;
  try {
    refused = validate(source, analysis);
  } catch (const std::exception& e) {
    refused = fmt::format("the program validator failed: {}", e.what());
  } catch (...) {
    refused = "the program validator failed";
  }
  if (refused)
    throw_error(ErrorKind::ValidationError,
                fmt::format("the host refused the program: {}", *refused),
                "write a program the host allows: change what the refusal names");
}

}  // namespace ptc
