// ptc batch FILE.jsonl: one program per input line, one result per output
// line, in order. A bad line yields an error line and the batch goes on.
// Consecutive lines with the same context text share one prepared context,
// and a program that comes again is compiled once (a bounded cache).
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "cli/batch_input.hpp"
#include "cli/cli.hpp"

namespace ptc::cli {

int cmd_batch(std::vector<std::string> args) {
  CommonOptions opts;
  std::string err = parse_common(args, opts);
  if (err.empty()) err = load_context(opts);  // --context/--memory/--tools: defaults for lines
  if (!err.empty() || args.size() != 1) {
    fmt::print(stderr, "ptc: {}\nusage: ptc batch FILE.jsonl|- [options]\n",
               err.empty() ? "expected one input" : err);
    return kExitUsage;
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  if (args[0] != "-") {
    file.open(args[0], std::ios::binary);
    if (!file) {
      fmt::print(stderr, "ptc: cannot read {}\n", args[0]);
      return kExitUsage;
    }
    in = &file;
  }
  std::string line;
  size_t line_no = 0;
  ProgramCache programs(64);
  std::string last_context;
  std::shared_ptr<const PreparedContext> prepared;  // of last_context, once it repeats
  while (std::getline(*in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    BatchItem item = parse_batch_line(line, line_no);
    if (!item.error.message.empty()) {
      fmt::print("{{\"id\":{},\"ok\":false,\"error\":{}}}\n", item.id_json, error_json(item.error));
      continue;
    }
    RunOptions ro = opts.run;
    if (!item.context_json.empty()) {
      ro.context_json = item.context_json;
      if (item.context_json != last_context) {
        last_context = item.context_json;
        prepared.reset();
      } else if (!prepared) {
        try {
          prepared = prepare_context(item.context_json);
        } catch (LispError&) {
          // Malformed: each run reports it from context_json.
        }
      }
      ro.prepared_context = prepared;
    }
    if (!item.memory.is_nil()) ro.memory = item.memory;
    if (item.tools) ro.tools = *item.tools;
    // Each line is a program: its own upstream call cap and read-only cache.
    Step r;
    try {
      if (opts.upstreams) upstream::attach(ro, opts.upstreams, opts.upstream_limits);
      r = programs.run(item.program, ro);
    } catch (const LispError& e) {  // the line's tools clash with the upstreams
      r.ok = false;
      r.error = e.error();
    }
    if (r.ok)
      fmt::print("{{\"id\":{},\"ok\":true,\"result\":{}}}\n", item.id_json, json_string(r.printed));
    else
      fmt::print("{{\"id\":{},\"ok\":false,\"error\":{}}}\n", item.id_json, error_json(r.error));
    std::fflush(stdout);
  }
  return kExitOk;
}

}  // namespace ptc::cli
