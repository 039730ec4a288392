// ptc eval 'EXPR' and ptc run FILE.clj: run one program and print its value.
#include <fmt/format.h>

#include <cstdio>

#include "cli/cli.hpp"

namespace ptc::cli {

namespace {

int run_and_print(const std::string& source, CommonOptions& opts) {
  Step r = run(source, opts.run);
  // println output: stdout normally; stderr when stdout must be pure JSON.
  std::FILE* prints = opts.json ? stderr : stdout;
  for (const std::string& line : r.prints)
    fmt::print(prints, "{}\n", line);
  if (!r.ok) {
    if (opts.json) fmt::print("{{\"ok\":false,\"error\":{}}}\n", error_json(r.error));
    fmt::print(stderr, "error: {}\n", format_error(r.error));
    return kExitProgramError;
  }
  return print_value(r, opts.json) ? kExitOk : kExitProgramError;
}

int setup(std::vector<std::string>& args, CommonOptions& opts, const char* usage) {
  std::string err = parse_common(args, opts);
  if (err.empty()) err = load_context(opts);
  if (!err.empty()) {
    fmt::print(stderr, "ptc: {}\n", err);
    return kExitUsage;
  }
  if (args.size() != 1) {
    fmt::print(stderr, "ptc: expected one argument\nusage: {}\n", usage);
    return kExitUsage;
  }
  return -1;
}

}  // namespace

int cmd_eval(std::vector<std::string> args) {
  CommonOptions opts;
  if (int rc = setup(args, opts, "ptc eval 'EXPR' [options]"); rc >= 0) return rc;
  return run_and_print(args[0], opts);
}

int cmd_run(std::vector<std::string> args) {
  CommonOptions opts;
  if (int rc = setup(args, opts, "ptc run FILE.clj [options]"); rc >= 0) return rc;
  std::string err;
  auto source = read_program(args[0], &err);
  if (!source) {
    fmt::print(stderr, "ptc: {}\n", err);
    return kExitUsage;
  }
  return run_and_print(*source, opts);
}

int cmd_disasm(std::vector<std::string> args) {
  CommonOptions opts;
  std::string source;
  if (args.size() == 2 && args[0] == "-e") {
    source = args[1];
  } else if (args.size() == 1) {
    std::string err;
    auto text = read_file(args[0], &err);
    if (!text) {
      fmt::print(stderr, "ptc: {}\n", err);
      return kExitUsage;
    }
    source = *text;
  } else {
    fmt::print(stderr, "usage: ptc disasm FILE.clj | ptc disasm -e 'EXPR'\n");
    return kExitUsage;
  }
  try {
    fmt::print("{}", disassemble_source(source, opts.run));
  } catch (LispError& e) {
    fmt::print(stderr, "error: {}\n", format_error(e.error()));
    return kExitProgramError;
  }
  return kExitOk;
}

}  // namespace ptc::cli
