// ptc bench FILE.jsonl [-n N]: runs every program N times in-process after a
// warm-up and reports the median and p99 time and the throughput. Each run
// executes the program compiled once (as a host with a ProgramCache does) and
// reads the line's context from its JSON text (as batch lines and MCP calls
// carry it); --no-cache compiles every run, --context-as host|prepared gives
// the context parsed beforehand or prepared once.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <numeric>

#include "cli/batch_input.hpp"
#include "cli/cli.hpp"

namespace ptc::cli {

int cmd_bench(std::vector<std::string> args) {
  CommonOptions opts;
  std::string err = parse_common(args, opts);
  if (err.empty()) err = load_context(opts);  // --context/--memory/--tools: defaults for lines
  size_t n = 1000;
  bool cache = true;
  std::string context_as = "json";
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size() && err.empty(); ++i) {
    if (args[i] == "--no-cache") {
      cache = false;
    } else if (args[i] == "--prepared") {
      context_as = "prepared";
    } else if (args[i] == "--context-as") {
      if (i + 1 >= args.size()) {
        err = "--context-as needs json, host or prepared";
        break;
      }
      context_as = args[++i];
      if (context_as != "json" && context_as != "host" && context_as != "prepared")
        err = "--context-as needs json, host or prepared";
    } else if (args[i] == "-n") {
      if (i + 1 >= args.size()) {
        err = "-n needs a number";
        break;
      }
      const std::string& v = args[++i];
      auto res = std::from_chars(v.data(), v.data() + v.size(), n);
      if (res.ec != std::errc() || n == 0) err = "-n needs a positive number";
    } else {
      files.push_back(args[i]);
    }
  }
  if (err.empty() && files.size() != 1) err = "expected one input file";
  if (!err.empty()) {
    fmt::print(stderr,
               "ptc: {}\nusage: ptc bench FILE.jsonl [-n N] [--no-cache] "
               "[--context-as json|host|prepared] [--json]\n",
               err);
    return kExitUsage;
  }
  std::ifstream in(files[0], std::ios::binary);
  if (!in) {
    fmt::print(stderr, "ptc: cannot read {}\n", files[0]);
    return kExitUsage;
  }
  if (!opts.json)
    fmt::print("{:<28} {:>12} {:>12} {:>12}\n", "program", "median us", "p99 us", "runs/s");
  std::string line;
  size_t line_no = 0;
  int failures = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    BatchItem item = parse_batch_line(line, line_no);
    RunOptions ro = opts.run;
    if (!item.memory.is_nil()) ro.memory = item.memory;
    if (item.tools) ro.tools = *item.tools;
    Error failure = item.error;
    std::shared_ptr<const Program> program;
    try {
      // Each line is a program: its own upstream call cap and read-only cache.
      if (opts.upstreams) upstream::attach(ro, opts.upstreams, opts.upstream_limits);
      if (!item.context_json.empty()) {
        if (context_as == "json")
          ro.context_json = item.context_json;
        else if (context_as == "host")
          ro.context = parse_json(item.context_json);
        else
          ro.prepared_context = prepare_context(item.context_json);
      }
      if (failure.message.empty() && cache) program = compile(item.program, ro);
    } catch (LispError& e) {
      failure = e.error();
    }
    auto run_once = [&] { return program ? run(*program, ro) : run(item.program, ro); };
    if (failure.message.empty()) {
      Step first = run_once();
      if (!first.ok) failure = first.error;
    }
    if (!failure.message.empty()) {
      ++failures;
      if (opts.json)
        fmt::print("{{\"id\":{},\"ok\":false,\"error\":{}}}\n", item.id_json, error_json(failure));
      else
        fmt::print("{:<28} FAILED: {}\n", item.id_text, format_error(failure));
      continue;
    }
    size_t warmup = std::max<size_t>(n / 10, 3);
    for (size_t i = 0; i < warmup; ++i)
      (void)run_once();
    std::vector<double> us(n);
    for (size_t i = 0; i < n; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      Step r = run_once();
      us[i] =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    double total = std::accumulate(us.begin(), us.end(), 0.0);
    std::sort(us.begin(), us.end());
    double median = us[n / 2];
    double p99 = us[std::min(n - 1, static_cast<size_t>(static_cast<double>(n) * 0.99))];
    double per_sec = total > 0 ? static_cast<double>(n) / (total / 1e6) : 0;
    if (opts.json)
      fmt::print(
          "{{\"id\":{},\"ok\":true,\"runs\":{},\"median_us\":{:.2f},\"p99_us\":{:.2f},\"runs_per_"
          "sec\":{:.0f}}}\n",
          item.id_json, n, median, p99, per_sec);
    else
      fmt::print("{:<28} {:>12.2f} {:>12.2f} {:>12.0f}\n", item.id_text, median, p99, per_sec);
  }
  return failures ? kExitProgramError : kExitOk;
}

}  // namespace ptc::cli
