// The REPL's commands: a line that starts with : (":context FILE", ":reset",
// ...) acts on the session instead of running as a program.
#pragma once

#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"

namespace ptc::cli {

enum class CommandResult { Continue, Quit };

// Whether `line` is a command (its first non-blank character is :).
bool is_command(std::string_view line);
// Runs the command on `session`, printing what it did (stdout) or what is
// wrong with it (stderr, with a hint).
CommandResult run_command(std::string_view line, Session& session);
// One line per command, for :help and ptc help repl.
std::string commands_help();

}  // namespace ptc::cli
