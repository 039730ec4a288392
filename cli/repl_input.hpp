// Where the REPL's lines come from: a terminal, edited with libedit and kept
// in a history, or any other stdin (a pipe, a file) read as plain lines,
// without prompts, so that a REPL session can be scripted.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/repl_history.hpp"

namespace ptc::cli {

class ReplInput {
 public:
  enum class Result {
    Line,         // a line was entered
    Interrupted,  // Ctrl-C: drop what was typed, including earlier lines of the form
    End,          // Ctrl-D at an empty prompt, or the end of the input
  };
  virtual ~ReplInput() = default;
  // Reads one line, without its line break, after showing `prompt`.
  virtual Result read_line(const char* prompt, std::string* line) = 0;
  // Keeps an entered line for arrow-up (and in the history file).
  virtual void remember(const std::string& line) = 0;
};

// libedit on the terminal (stdin/stdout): emacs key bindings, ~/.editrc,
// arrow-up through this session's lines and those of `history` (none when
// nullopt), to which entered lines are appended.
std::unique_ptr<ReplInput> terminal_input(std::optional<HistoryFile> history);
// stdin as plain lines: no prompt, no history.
std::unique_ptr<ReplInput> plain_input();

}  // namespace ptc::cli
