// ptc repl: an interactive session. Each complete input runs as a program in
// one ptc::Session, so definitions carry from one input to the next and the
// last results are *1 *2 *3; lines that start with : are commands.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "cli/cli.hpp"
#include "cli/error_display.hpp"
#include "cli/repl_commands.hpp"
#include "cli/repl_history.hpp"
#include "cli/repl_input.hpp"
#include "cli/sigint_cancels.hpp"
#include "frontend/reader.hpp"

namespace ptc::cli {

namespace {

constexpr const char* kPrompt = "ptc> ";
constexpr const char* kContinuationPrompt = "...> ";
constexpr const char* kUsage = "ptc repl [--no-history] [options]";

// Runs one complete input: what it printed (println, doc, apropos) comes
// first, then its value or its error under the source line it points at.
// Ctrl-C meanwhile stops the run, not the REPL.
// --upstreams: each input is a program with its own upstream call cap and
// read-only cache, so the tools are attached afresh before each one.
std::function<void(RunOptions&)> fresh_upstreams;

void evaluate(Session& session, const std::string& source, bool json, std::atomic<bool>& cancel) {
  SigintCancels ctrl_c_cancels(cancel);
  Step step;
  try {
    if (fresh_upstreams) fresh_upstreams(session.options());
    step = session.eval(source);
  } catch (const LispError& e) {  // :tools loaded a tool named call or servers
    step.ok = false;
    step.error = e.error();
  }
  for (const std::string& line : step.prints)
    fmt::print("{}\n", line);
  if (step.ok) {
    print_value(step, json);
  } else {
    std::fflush(stdout);
    // The terminal echoed the ^C that stopped the run: the error starts below it.
    if (step.error.kind == ErrorKind::Cancelled && isatty(STDERR_FILENO)) fmt::print(stderr, "\n");
    fmt::print(stderr, "{}", describe_error_at_source(step.error, source));
  }
  std::fflush(stdout);
}

// `on_terminal`: Ctrl-C must never end an interactive REPL, so between runs
// too it raises the flag (and so stops the run about to start: it was
// pressed after Enter). While a line is edited it is a key, not a signal.
// From a pipe, Ctrl-C between runs ends the REPL, as it ends any filter.
int read_eval_print(Session& session, ReplInput& input, bool json, bool on_terminal) {
  std::atomic<bool> cancel{false};
  session.options().cancel = &cancel;
  std::optional<SigintCancels> ctrl_c_never_ends;
  if (on_terminal) ctrl_c_never_ends.emplace(cancel);
  const Limits& limits = session.options().limits;
  ReaderOptions reader;
  reader.max_nesting_depth = limits.max_nesting_depth;
  std::string pending;  // the lines of a form still open
  std::string line;
  for (;;) {
    cancel.store(false);  // a Ctrl-C from now on is meant for the next run
    auto result = input.read_line(pending.empty() ? kPrompt : kContinuationPrompt, &line);
    if (result == ReplInput::Result::End) break;
    if (result == ReplInput::Result::Interrupted) {
      pending.clear();
      continue;
    }
    if (line.find_first_not_of(" \t") != std::string::npos) input.remember(line);
    if (pending.empty() && is_command(line)) {
      if (run_command(line, session) == CommandResult::Quit) return kExitOk;
      std::fflush(stdout);
      continue;
    }
    pending += line;
    pending += '\n';
    InputStatus status = input_status(pending, reader);
    // A form that never closes is run once it is too long to be a program,
    // which reports that, rather than growing without end.
    if (status == InputStatus::Incomplete && pending.size() <= limits.max_program_bytes) continue;
    if (status != InputStatus::Blank) evaluate(session, pending, json, cancel);
    pending.clear();
  }
  // The input ended inside a form: running it says what is left open.
  if (!pending.empty()) evaluate(session, pending, json, cancel);
  return kExitOk;
}

}  // namespace

const char* repl_help() {
  static const std::string help = fmt::format(
      "usage: {}\n\n"
      "An interactive session: each input runs as a program, with the names that\n"
      "earlier inputs defined (def, defn) and their results as *1 *2 *3 (a failed\n"
      "input changes neither). A form may span lines: input is read until its\n"
      "brackets and strings close. What the program printed (println, (doc f),\n"
      "(apropos \"text\")) comes first, then the value in Clojure syntax (JSON with\n"
      "--json); an error shows the source line with a caret under its column.\n\n"
      "A line that starts with : is a command:\n{}\n"
      "On a terminal, lines are edited with libedit (emacs keys, ~/.editrc) and\n"
      "arrow-up recalls earlier lines, also those of earlier sessions: they are kept\n"
      "in the history file, $PTC_REPL_HISTORY if set, else ~/.ptc_history (the\n"
      "newest {} lines are read). Ctrl-C stops a running program or drops the line\n"
      "being typed; Ctrl-D at an empty prompt leaves (exit code 0).\n\n"
      "When stdin is not a terminal, lines are read as they come, without prompts,\n"
      "editing or history, so a session can be scripted: echo '(+ 1 2)' | ptc repl\n"
      "prints 3. Errors go to stderr; the exit code is 0 at the end of the input.\n\n"
      "options:\n"
      "  --no-history        neither read nor write the history file\n",
      kUsage, commands_help(), HistoryFile::kMaxEntries);
  return help.c_str();
}

int cmd_repl(std::vector<std::string> args) {
  CommonOptions opts;
  std::string err = parse_common(args, opts);
  if (err.empty()) err = load_context(opts);
  if (!err.empty()) {
    fmt::print(stderr, "ptc: {}\n", err);
    return kExitUsage;
  }
  bool keep_history = true;
  for (const std::string& a : args) {
    if (a != "--no-history") {
      fmt::print(stderr, "ptc: unexpected argument '{}'\nusage: {}\n", a, kUsage);
      return kExitUsage;
    }
    keep_history = false;
  }
  Session session(opts.run);
  if (opts.upstreams)
    fresh_upstreams = [&opts](RunOptions& o) {
      upstream::attach(o, opts.upstreams, opts.upstream_limits);
    };
  if (!isatty(STDIN_FILENO)) return read_eval_print(session, *plain_input(), opts.json, false);
  std::optional<HistoryFile> history;
  if (keep_history)
    if (std::optional<std::string> path = HistoryFile::default_path()) history.emplace(*path);
  std::unique_ptr<ReplInput> input = terminal_input(std::move(history));
  fmt::print("ptc repl - PTC-Lisp; :help lists the commands, Ctrl-D leaves\n");
  return read_eval_print(session, *input, opts.json, true);
}

}  // namespace ptc::cli
