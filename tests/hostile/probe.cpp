// ptc_hostile_probe: runs one program in a fresh process and reports how it
// ended and what the process needed, for the hostile-process tests. Peak RSS
// is a property of a whole process, so each hostile program gets its own.
//
//   ptc_hostile_probe PROGRAM_FILE [--timeout MS] [--compile-timeout MS]
//       [--max-heap BYTES] [--worker-max-heap BYTES] [--max-parallel-workers N]
//       [--pmap-timeout MS] [--as-limit BYTES] [--context FILE]
//       [--static-host-value]
//
// Prints one JSON line: ok, reason, message, ms (the run), peak_rss_kb,
// after_ok (a second, tiny run in the same process still works) and whether
// the address-space cap was applied. Tools: echo (returns its arguments),
// sink (returns true), blob ({:n N} returns a string of N bytes).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "include/ptc/ptc.hpp"
#include "support/build_info.hpp"

namespace {

using ptc::HostValue;
using ptc::ToolResult;

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A host value in static storage, destroyed after thread-locals at exit:
// its release must not touch per-thread state that is already gone.
HostValue& static_value() {
  static HostValue v;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ptc_hostile_probe PROGRAM_FILE [options]\n");
    return 2;
  }
  std::string program = read_file(argv[1]);
  ptc::RunOptions o;
  size_t as_limit = 0;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--static-host-value") {
      std::vector<HostValue> inner{HostValue::integer(1), HostValue::string("x")};
      static_value() = HostValue::vector({HostValue::vector(inner), HostValue::vector(inner)});
      continue;
    }
    if (i + 1 >= argc) return 2;
    std::string v = argv[++i];
    uint64_t n = std::strtoull(v.c_str(), nullptr, 10);
    if (a == "--timeout")
      o.limits.timeout_ms = static_cast<uint32_t>(n);
    else if (a == "--compile-timeout")
      o.limits.compile_timeout_ms = static_cast<uint32_t>(n);
    else if (a == "--max-heap")
      o.limits.max_heap_bytes = n;
    else if (a == "--worker-max-heap")
      o.limits.worker_max_heap_bytes = n;
    else if (a == "--max-parallel-workers")
      o.limits.max_parallel_workers = static_cast<uint32_t>(n);
    else if (a == "--pmap-timeout")
      o.limits.pmap_timeout_ms = static_cast<uint32_t>(n);
    else if (a == "--max-program-bytes")
      o.limits.max_program_bytes = n;
    else if (a == "--max-symbols")
      o.limits.max_symbols = static_cast<uint32_t>(n);
    else if (a == "--as-limit")
      as_limit = n;
    else if (a == "--context")
      o.context = ptc::parse_json(read_file(v.c_str()));
    else
      return 2;
  }
  o.tools["echo"] = {[](const HostValue& args) { return ToolResult::success(args); }};
  o.tools["sink"] = {
      [](const HostValue&) { return ToolResult::success(HostValue::boolean(true)); }};
  o.tools["blob"] = {[](const HostValue& args) {
    const HostValue* n = args.get("n");
    size_t bytes = n && n->kind() == HostValue::Kind::Int ? static_cast<size_t>(n->as_int()) : 0;
    return ToolResult::success(HostValue::string(std::string(bytes, 'y')));
  }};

  // Address-space caps break the sanitizers' shadow memory: only plain builds apply them.
  bool capped = false;
  if (as_limit && !ptc::testing::kSanitized) {
    rlimit r{as_limit, as_limit};
    capped = setrlimit(RLIMIT_AS, &r) == 0;
  }

  auto t0 = std::chrono::steady_clock::now();
  ptc::Step s = ptc::run(program, o);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);

  ptc::RunOptions small;
  ptc::Step after = ptc::run("(reduce + (map inc [1 2 3]))", small);
  bool after_ok = after.ok && after.printed == "9";

  std::string message = s.ok ? "" : s.error.message.substr(0, 300);
  HostValue report = HostValue::map({
      {HostValue::string("ok"), HostValue::boolean(s.ok)},
      {HostValue::string("reason"),
       HostValue::string(s.ok ? "" : std::string(ptc::reason_name(s.error.kind)))},
      {HostValue::string("message"), HostValue::string(message)},
      {HostValue::string("ms"), HostValue::floating(ms)},
      {HostValue::string("peak_rss_kb"), HostValue::integer(ru.ru_maxrss)},
      {HostValue::string("after_ok"), HostValue::boolean(after_ok)},
      {HostValue::string("as_capped"), HostValue::boolean(capped)},
  });
  std::printf("%s\n", ptc::to_json(report).c_str());
  return 0;
}
