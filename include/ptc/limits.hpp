// Resource limits of one run (spec §15.2, seed 004). Defaults are the spec's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ptc {

struct Limits {
  // Cap on the run's live heap (spec: ~10 MB): a run fails with memory_limit
  // when what is still reachable after a collection, with the bytes charged
  // to it (prints, regexes, the tool ledger), is more, or when one request
  // alone is. What it allocates in total is not capped; its memory is at
  // most about twice this.
  size_t max_heap_bytes = 10 * 1024 * 1024;
  uint32_t timeout_ms = 1000;          // wall clock for the whole run
  uint32_t loop_limit = 1000;          // loop/recur jumps per loop activation
  uint32_t max_call_depth = 10000;     // nested function calls
  uint32_t max_symbols = 10000;        // distinct keywords and symbols
  size_t max_program_bytes = 1000000;  // source size
  uint32_t max_print_length = 2000;    // characters kept per println
  uint32_t max_nesting_depth = 1000;   // reader nesting of forms
  uint32_t compile_timeout_ms = 5000;  // reading, analysis and compilation
  // Tool calls per run, counted across parallel branches; nullopt = unlimited.
  std::optional<uint32_t> max_tool_calls;
  size_t max_tool_call_result_bytes = 16384;  // per ledger entry; the program sees it all
  // Parallel branches (pmap, pcalls).
  uint32_t pmap_timeout_ms = 5000;    // one deadline shared by all branches of a call
  uint32_t pmap_max_concurrency = 0;  // branches in flight per call; 0 = 2 x hardware threads
  uint32_t max_parallel_workers = 8;  // branches alive at once across the whole run
  size_t worker_max_heap_bytes = 0;   // heap of each branch; 0 = max_heap_bytes

  static constexpr uint32_t kLoopLimitHardCap = 10000;
};

}  // namespace ptc
