// Shared pieces of the libFuzzer targets: the input as text, property checks
// that crash loudly (libFuzzer saves the input), and the tight limits that keep
// every input cheap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "runtime/limits.hpp"

namespace ptc::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A property every input must have; on violation, print what was expected and
// abort, which libFuzzer reports as a crash with the input saved.
[[noreturn]] inline void property_failed(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz property violated: %s\n%.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}
#define PTC_FUZZ_CHECK(cond, detail) \
  ((cond) ? (void)0 : ::ptc::fuzz::property_failed(#cond, (detail)))

// PTC_FUZZ_DEBUG=1 in the environment: targets print what they ran and how it
// ended (for reading a reproducer, e.g. `fuzz_run crash-...`).
inline bool debugging() {
  static const bool on = std::getenv("PTC_FUZZ_DEBUG") != nullptr;
  return on;
}
inline void debug(std::string_view what, std::string_view text) {
  if (debugging())
    std::fprintf(stderr, "%.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
                 static_cast<int>(text.size()), text.data());
}

// Limits for fuzzed runs: small enough that the slowest input takes a fraction
// of a second even under ASan+UBSan.
inline Limits tight_limits() {
  Limits l;
  l.max_heap_bytes = 1 << 20;
  l.timeout_ms = 100;
  l.compile_timeout_ms = 100;
  l.loop_limit = 1000;
  l.max_call_depth = 1000;
  l.max_symbols = 1000;
  l.max_program_bytes = 16384;
  l.max_print_length = 256;
  l.max_nesting_depth = 64;
  l.max_tool_calls = 16;
  l.max_tool_call_result_bytes = 1024;
  l.pmap_timeout_ms = 100;
  l.pmap_max_concurrency = 2;
  l.max_parallel_workers = 2;
  l.worker_max_heap_bytes = 1 << 20;
  return l;
}

// How a run ended, for comparing two ways of running one input: the value or
// the error, then the prints.
inline std::string outcome(const Step& s) {
  std::string out = s.ok ? "ok " + s.printed : "error " + format_error(s.error);
  for (const std::string& line : s.prints)
    out += "\nprint " + line;
  return out;
}

// Whether a run ended at a limit whose point depends on the work or heap it
// took (time, memory): two ways of running it may end there differently.
inline bool ended_at_a_limit(const Step& s) {
  auto k = s.error.kind;
  return !s.ok && (k == ErrorKind::Timeout || k == ErrorKind::MemoryLimit);
}

}  // namespace ptc::fuzz
