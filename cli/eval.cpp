// ptc eval 'EXPR' and ptc run FILE.clj: run one program and print its value.
#include <fmt/format.h>

#include <cstdio>

#include "cli/cli.hpp"
#include "runtime/strings.hpp"

namespace ptc::cli {

namespace {

// --usage: one line on stderr, whatever the outcome, so a user sees what a
// program costs against its limits (the heap cap bounds peak live bytes).
void print_usage(const Usage& u) {
  fmt::print(stderr,
             "usage: {:.1f} ms, {} reductions; heap: peak live {}, allocated {}, {} "
             "collection{} ({:.1f} ms)\n",
             u.duration_ms, u.eval_reductions, human_bytes(u.peak_live_bytes),
             human_bytes(u.allocated_bytes), u.collections, u.collections == 1 ? "" : "s",
             u.collect_ms);
}

int run_and_print(const std::string& source, CommonOptions& opts, bool show_usage) {
  Step r = run(source, opts.run);
  if (show_usage) print_usage(r.usage);
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

int setup(std::vector<std::string>& args, CommonOptions& opts, bool* show_usage,
          const char* usage) {
  *show_usage = take_flag(args, "--usage");
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
  bool show_usage = false;
  if (int rc = setup(args, opts, &show_usage, "ptc eval 'EXPR' [options]"); rc >= 0) return rc;
  return run_and_print(args[0], opts, show_usage);
}

int cmd_run(std::vector<std::string> args) {
  CommonOptions opts;
  bool show_usage = false;
  if (int rc = setup(args, opts, &show_usage, "ptc run FILE.clj [options]"); rc >= 0) return rc;
  std::string err;
  auto source = read_program(args[0], &err);
  if (!source) {
    fmt::print(stderr, "ptc: {}\n", err);
    return kExitUsage;
  }
  return run_and_print(*source, opts, show_usage);
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
