// One run of a program, end to end: read, analyze, compile, execute, and copy
// the result out of the run's arena. Every run gets a fresh arena and VM, so
// runs are independent and may execute on different threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "runtime/limits.hpp"

namespace ptc {

struct RunOptions {
  Limits limits;
  HostValue context;                    // a map; its keys are the program's data/ names
  bool filter_context = true;           // import only the keys the program reads
  std::vector<HostValue> turn_history;  // *1 is turn_history[0]
  size_t display_limit = 0;             // collection items shown in `printed`, 0 = all
};

struct RunResult {
  bool ok = false;
  HostValue value;                  // the result, host-owned
  std::string printed;              // the result in Clojure syntax (display floats)
  bool truncated = false;           // `printed` was cut by display_limit
  Error error;                      // when !ok
  std::vector<std::string> prints;  // println output
  uint64_t reductions = 0;
  size_t memory_bytes = 0;  // arena bytes used by the run
  double duration_us = 0;
};

RunResult run(std::string_view source, const RunOptions& options = {});

// The bytecode listing of a program (ptc disasm); throws LispError.
std::string disassemble_source(std::string_view source, const RunOptions& options = {});

}  // namespace ptc
