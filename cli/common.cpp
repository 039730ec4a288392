#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/cli.hpp"
#include "cli/replay_tools.hpp"
#include "runtime/strings.hpp"

namespace ptc::cli {

namespace {
bool parse_u64(const std::string& s, uint64_t* out) {
  auto res = std::from_chars(s.data(), s.data() + s.size(), *out);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}
}  // namespace

const char* common_options_help() {
  return "  --context FILE      JSON object whose top-level keys become data/ names\n"
         "  --json              print the result as JSON instead of Clojure syntax\n"
         "  --timeout MS        wall-clock limit of the run (default 1000)\n"
         "  --max-heap BYTES    cap on the run's live heap: what is still reachable when\n"
         "                      its heap is collected (default 10485760)\n"
         "  --loop-limit N      loop/recur jumps per loop (default 1000, at most 10000)\n"
         "  --max-depth N       nested calls (default 10000)\n"
         "  --memory FILE       JSON object of names bound by earlier runs (def)\n"
         "  --tools FILE        replay table {\"tool-name\": [{\"args\": {...}, \"result\": "
         "...}]}\n"
         "  --upstreams FILE    MCP servers programs call: (tool/call {:server :tool :args})\n"
         "  --upstream-required fail when an upstream does not start (else it is unavailable)\n"
         "  --max-upstream-calls N  upstream calls per program (default 50)\n"
         "  --signature SIG     validate the result, e.g. '{total :int}' or '[:string]'\n"
         "  --float-precision N round floats in the result to N decimals\n"
         "  --no-filter-context import every context key, not only those the program reads\n"
         "  --compile-timeout MS, --max-symbols N, --max-program-bytes N,\n"
         "  --max-print-length N, --max-tool-calls N, --pmap-timeout MS,\n"
         "  --pmap-max-concurrency N, --max-parallel-workers N, --worker-max-heap BYTES\n"
         "                      the other limits of a run (defaults as ptc::RunOptions)\n"
         "  --isolate           run programs in a jailed worker process (seccomp, rlimits,\n"
         "                      namespaces): a crash or runaway ends only that run\n"
         "  --isolate-max-runs N  runs a worker takes before it is replaced (default 1000)\n";
}

std::string parse_common(std::vector<std::string>& args, CommonOptions& out) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* v) -> bool {
      if (i + 1 >= args.size()) return false;
      *v = args[++i];
      return true;
    };
    std::string v;
    uint64_t n = 0;
    if (a == "--json") {
      out.json = true;
    } else if (a == "--context") {
      if (!value(&v)) return "--context needs a file name";
      out.context_file = v;
    } else if (a == "--memory" || a == "--tools" || a == "--signature") {
      if (!value(&v)) return fmt::format("{} needs a value", a);
      if (a == "--memory") out.memory_file = v;
      if (a == "--tools") out.tools_file = v;
      if (a == "--signature") out.run.signature = v;
    } else if (a == "--upstreams") {
      if (!value(&v)) return "--upstreams needs a file name";
      out.upstreams_file = v;
    } else if (a == "--upstream-required") {
      out.upstream_required = true;
    } else if (a == "--max-upstream-calls") {
      if (!value(&v) || !parse_u64(v, &n) || n > 100000)
        return "--max-upstream-calls needs a number from 0 to 100000";
      out.upstream_limits.max_calls_per_program = static_cast<uint32_t>(n);
    } else if (a == "--isolate") {
      out.isolate = true;
    } else if (a == "--isolate-max-runs") {
      uint64_t runs = 0;
      if (!value(&v) || !parse_u64(v, &runs) || runs > 100000000)
        return "--isolate-max-runs needs a number of runs (0: no limit)";
      out.isolate_max_runs = static_cast<size_t>(runs);
    } else if (a == "--no-filter-context") {
      out.run.filter_context = false;
    } else if (a == "--float-precision") {
      if (!value(&v) || !parse_u64(v, &n) || n > 15)
        return "--float-precision needs a number of decimals from 0 to 15";
      out.run.float_precision = static_cast<int>(n);
    } else if (a == "--compile-timeout" || a == "--max-symbols" || a == "--max-program-bytes" ||
               a == "--max-print-length" || a == "--max-tool-calls" || a == "--pmap-timeout" ||
               a == "--pmap-max-concurrency" || a == "--max-parallel-workers" ||
               a == "--worker-max-heap") {
      if (!value(&v) || !parse_u64(v, &n) || n == 0)
        return fmt::format("{} needs a positive number", a);
      Limits& l = out.run.limits;
      auto u32 = static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX));
      if (a == "--compile-timeout") l.compile_timeout_ms = std::min<uint32_t>(u32, 3600000);
      if (a == "--max-symbols") l.max_symbols = u32;
      if (a == "--max-program-bytes") l.max_program_bytes = n;
      if (a == "--max-print-length") l.max_print_length = u32;
      if (a == "--max-tool-calls") l.max_tool_calls = u32;
      if (a == "--pmap-timeout") l.pmap_timeout_ms = std::min<uint32_t>(u32, 3600000);
      if (a == "--pmap-max-concurrency") l.pmap_max_concurrency = std::min<uint32_t>(u32, 64);
      if (a == "--max-parallel-workers") l.max_parallel_workers = std::min<uint32_t>(u32, 64);
      if (a == "--worker-max-heap") l.worker_max_heap_bytes = n;
    } else if (a == "--timeout" || a == "--max-heap" || a == "--loop-limit" || a == "--max-depth") {
      if (!value(&v) || !parse_u64(v, &n) || n == 0)
        return fmt::format("{} needs a positive number", a);
      if (a == "--timeout")
        out.run.limits.timeout_ms = static_cast<uint32_t>(std::min<uint64_t>(n, 3600000));
      if (a == "--max-heap") out.run.limits.max_heap_bytes = n;
      if (a == "--loop-limit") {
        if (n > Limits::kLoopLimitHardCap)
          return fmt::format("--loop-limit is at most {}", Limits::kLoopLimitHardCap);
        out.run.limits.loop_limit = static_cast<uint32_t>(n);
      }
      if (a == "--max-depth")
        out.run.limits.max_call_depth = static_cast<uint32_t>(std::min<uint64_t>(n, 100000));
    } else {
      rest.push_back(a);
    }
  }
  args.swap(rest);
  return "";
}

std::optional<std::string> read_file(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = fmt::format("cannot read {}", path);
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<std::string> read_program(const std::string& path, std::string* error) {
  if (path != "-") return read_file(path, error);
  return std::string(std::istreambuf_iterator<char>(std::cin), {});
}

std::string load_json_object(const std::string& path, const char* what, HostValue& out) {
  std::string err;
  auto text = read_file(path, &err);
  if (!text) return err;
  try {
    HostValue v = parse_json(*text);
    if (v.kind() != HostValue::Kind::Map)
      return fmt::format("{}: the {} must be a JSON object", path, what);
    out = std::move(v);
  } catch (LispError& e) {
    return fmt::format("{}: {}", path, format_error(e.error()));
  }
  return "";
}

std::string load_tools_file(const std::string& path, Tools& out) {
  HostValue table;
  if (std::string err = load_json_object(path, "tools table", table); !err.empty()) return err;
  if (std::string err = replay_tools(table, out); !err.empty())
    return fmt::format("{}: {}", path, err);
  return "";
}

std::string load_inputs(CommonOptions& out) {
  std::string err;
  if (out.context_file) err = load_json_object(*out.context_file, "context", out.run.context);
  if (err.empty() && out.memory_file)
    err = load_json_object(*out.memory_file, "memory", out.run.memory);
  if (err.empty() && out.tools_file) err = load_tools_file(*out.tools_file, out.run.tools);
  return err;
}

std::string attach_upstreams(CommonOptions& out) {
  if (!out.upstreams_file) return "";
  if (std::string conflict = upstream::host_tool_conflict(out.run.tools); !conflict.empty())
    return fmt::format("{}: {}", out.tools_file.value_or("--tools"), conflict);
  std::string err;
  out.upstreams = start_upstreams(*out.upstreams_file, out.upstream_required, &err);
  if (out.upstreams) upstream::attach(out.run, out.upstreams, out.upstream_limits);
  return err;
}

std::string start_isolation(CommonOptions& out) {
  if (!out.isolate) return "";
  WorkerPoolOptions pool;
  pool.workers = 1;  // the commands run one program at a time
  pool.max_runs = out.isolate_max_runs;
  pool.max_heap_bytes = std::max(pool.max_heap_bytes, out.run.limits.max_heap_bytes);
  try {
    out.run.isolate = std::make_shared<WorkerPool>(pool);
  } catch (LispError& e) {
    return fmt::format("--isolate: {}", format_error(e.error()));
  }
  return "";
}

std::string load_context(CommonOptions& out) {
  std::string err = load_inputs(out);
  if (err.empty()) err = attach_upstreams(out);
  if (err.empty()) err = start_isolation(out);
  return err;
}

std::shared_ptr<upstream::Upstreams> start_upstreams(const std::string& path, bool required,
                                                     std::string* error) {
  upstream::UpstreamsConfig config;
  if (std::string err = upstream::load_upstreams(path, config); !err.empty()) {
    *error = err;
    return nullptr;
  }
  // The redactor lives in the Upstreams; the log only ever gets redacted lines.
  auto log = [](std::string_view line) { fmt::print(stderr, "ptc: {}\n", line); };
  std::vector<std::string> errors;
  auto ups = upstream::Upstreams::start(std::move(config), required, log, &errors);
  if (!ups) {
    *error = errors.empty() ? std::string("the upstreams did not start") : errors.front();
    for (size_t i = 1; i < errors.size(); ++i)
      *error += "; " + errors[i];
    return nullptr;
  }
  for (const std::string& e : errors)
    fmt::print(stderr, "ptc: {} (marked unavailable)\n", e);
  return ups;
}

bool print_value(const Step& step, bool json) {
  if (!json) {
    fmt::print("{}\n", step.printed);
    return true;
  }
  try {
    fmt::print("{}\n", to_json(step.value));
    return true;
  } catch (LispError& e) {
    fmt::print(stderr, "error: the result cannot be written as JSON: {}\n", e.error().message);
    return false;
  }
}

// Never throws: invalid UTF-8 (e.g. quoted from a bad program) becomes U+FFFD.
std::string json_string(const std::string& s) {
  std::string clean;
  for (size_t i = 0; i < s.size();) {
    size_t bad = 0;
    std::string_view rest(s.data() + i, s.size() - i);
    if (is_valid_utf8(rest, &bad)) {
      clean.append(rest);
      break;
    }
    clean.append(rest.substr(0, bad));
    clean += "\xEF\xBF\xBD";
    i += bad + 1;
  }
  return to_json(HostValue::string(clean));
}

std::string error_json(const Error& e) {
  std::string out =
      fmt::format("{{\"reason\":{},\"message\":{}", json_string(std::string(reason_name(e.kind))),
                  json_string(e.message));
  if (!e.hint.empty()) out += fmt::format(",\"hint\":{}", json_string(e.hint));
  if (e.loc.known()) out += fmt::format(",\"line\":{},\"column\":{}", e.loc.line, e.loc.col);
  if (!e.fail_value.empty()) out += fmt::format(",\"result\":{}", json_string(e.fail_value));
  out += "}";
  return out;
}

bool take_flag(std::vector<std::string>& args, const std::string& flag) {
  for (auto it = args.begin(); it != args.end(); ++it)
    if (*it == flag) {
      args.erase(it);
      return true;
    }
  return false;
}

int usage_error(const std::string& message, const char* usage) {
  fmt::print(stderr, "ptc: {}\nusage: {}\n", message, usage);
  return kExitUsage;
}

}  // namespace ptc::cli
