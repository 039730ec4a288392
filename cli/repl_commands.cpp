#include "cli/repl_commands.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <vector>

#include "cli/cli.hpp"
#include "protocol/upstream/upstreams.hpp"

namespace ptc::cli {

namespace {

struct Command {
  const char* name;      // ":context"
  const char* argument;  // "FILE", or "" for none
  const char* help;
  CommandResult (*run)(const std::string& argument, Session& session);
};

void report_error(std::string_view message, std::string_view hint) {
  std::fflush(stdout);  // what came before shows first
  fmt::print(stderr, "error: {}\n  hint: {}\n", message, hint);
}

// "data/a data/b" (the first few of a map's keys, with `prefix`).
std::string key_list(const HostValue& map, std::string_view prefix) {
  constexpr size_t kShown = 10;
  const std::vector<HostValue>& items = map.items();
  std::string out;
  for (size_t i = 0; i + 1 < items.size() && i / 2 < kShown; i += 2)
    out += fmt::format("{}{}{}", out.empty() ? "" : " ", prefix, items[i].text());
  if (map.size() > kShown) out += fmt::format(" ... ({} in all)", map.size());
  return out.empty() ? "none" : out;
}

CommandResult load_context_command(const std::string& path, Session& session) {
  HostValue context;
  if (std::string err = load_json_object(path, "context", context); !err.empty()) {
    report_error(err, ":context FILE needs a readable JSON object");
    return CommandResult::Continue;
  }
  fmt::print("context from {}: {}\n", path, key_list(context, "data/"));
  session.options().context = std::move(context);
  return CommandResult::Continue;
}

CommandResult load_tools_command(const std::string& path, Session& session) {
  Tools tools;
  if (std::string err = load_tools_file(path, tools); !err.empty()) {
    report_error(err,
                 ":tools FILE needs a replay table {\"tool-name\": [{\"args\": {...}, "
                 "\"result\": ...}]}");
    return CommandResult::Continue;
  }
  // With --upstreams, tool/call and tool/servers are theirs (attached anew
  // before each input).
  if (session.options().tool_catalog) {
    if (std::string conflict = upstream::host_tool_conflict(tools); !conflict.empty()) {
      report_error(fmt::format("{}: {}", path, conflict),
                   "with --upstreams, tool/call and tool/servers reach the upstreams");
      return CommandResult::Continue;
    }
  }
  std::string names;
  for (const auto& [name, tool] : tools)
    names += fmt::format("{}tool/{}", names.empty() ? "" : " ", name);
  fmt::print("tools from {}: {}\n", path, names.empty() ? "none" : names);
  session.options().tools = std::move(tools);
  return CommandResult::Continue;
}

CommandResult reset_command(const std::string&, Session& session) {
  session.reset();
  fmt::print("definitions and *1 *2 *3 forgotten\n");
  return CommandResult::Continue;
}

CommandResult help_command(const std::string&, Session&) {
  fmt::print(
      "commands (a line that starts with : is one):\n{}"
      "Anything else runs as PTC-Lisp; a form may span lines. *1 *2 *3 are the last\n"
      "results; (doc f) and (apropos \"text\") describe the builtins. Ctrl-C stops a\n"
      "running program or drops the line being typed.\n",
      commands_help());
  return CommandResult::Continue;
}

CommandResult quit_command(const std::string&, Session&) {
  return CommandResult::Quit;
}

const Command kCommands[] = {
    {":context", "FILE", "a JSON object whose keys become data/ names", load_context_command},
    {":tools", "FILE", "a replay table of tools (as --tools)", load_tools_command},
    {":reset", "", "forget the definitions (def, defn) and *1 *2 *3", reset_command},
    {":help", "", "list the commands", help_command},
    {":quit", "", "leave (Ctrl-D at the prompt does too)", quit_command},
};

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string command_names() {
  std::string names;
  for (const Command& c : kCommands)
    names += fmt::format("{}{}", names.empty() ? "" : " ", c.name);
  return names;
}

}  // namespace

bool is_command(std::string_view line) {
  return trim(line).starts_with(':');
}

CommandResult run_command(std::string_view line, Session& session) {
  line = trim(line);
  size_t space = line.find_first_of(" \t");
  std::string_view name = line.substr(0, space);
  std::string argument(space == std::string_view::npos ? "" : trim(line.substr(space)));
  for (const Command& c : kCommands) {
    if (name != c.name) continue;
    const bool wants_argument = *c.argument != '\0';
    if (wants_argument && argument.empty()) {
      report_error(fmt::format("{} needs a {}", c.name, c.argument),
                   fmt::format("{} {}: {}", c.name, c.argument, c.help));
      return CommandResult::Continue;
    }
    if (!wants_argument && !argument.empty()) {
      report_error(fmt::format("{} takes no argument, got \"{}\"", c.name, argument),
                   fmt::format("write {} alone", c.name));
      return CommandResult::Continue;
    }
    return c.run(argument, session);
  }
  report_error(fmt::format("unknown command {}", name),
               fmt::format("the commands are {}; :help explains them", command_names()));
  return CommandResult::Continue;
}

std::string commands_help() {
  std::string out;
  for (const Command& c : kCommands)
    out += fmt::format("  {:<15} {}\n", fmt::format("{} {}", c.name, c.argument), c.help);
  return out;
}

}  // namespace ptc::cli
