// Calls host tools for one run: resolves the name, enforces max_tool_calls,
// answers cacheable tools from the run's cache, converts arguments and
// results between the run and the host, and keeps the ledger. Thread-safe:
// parallel branches call tools through the same broker.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"

namespace ptc {

class ToolBroker {
 public:
  // `run` is the run's own context: the ledger and the cache are charged to
  // its heap, whichever branch makes the call.
  ToolBroker(const Tools& tools, const Limits& limits, Ctx& run,
             std::shared_ptr<ToolCache> shared_cache = nullptr)
      : tools_(tools),
        limits_(limits),
        run_(run),
        cache_(shared_cache ? std::move(shared_cache) : std::make_shared<ToolCache>()) {}

  // Runs tool `name` with the program's argument map; the result lives in
  // ctx's arena. Failures throw LispError (unknown_tool, tool_error,
  // tool_call_limit_exceeded).
  Value call(Ctx& ctx, std::string_view name, Value args);

  std::vector<ToolCall> take_ledger();

 private:
  void record(ToolCall entry);
  // Brings a successful result into the run and records the call.
  Value finish(Ctx& ctx, ToolCall entry, const HostValue& result);
  // Counts bytes the broker keeps (ledger, cache) against the run's heap.
  void charge_run(size_t bytes);

  const Tools& tools_;
  const Limits& limits_;
  Ctx& run_;
  std::atomic<uint32_t> calls_{0};
  std::shared_ptr<ToolCache> cache_;
  std::mutex mutex_;  // guards ledger_
  std::vector<ToolCall> ledger_;
};

// The unknown_tool error for tool/<name>: says why when the tool is one of
// `unavailable`, else lists the tools there are (or that there are none).
[[noreturn]] void throw_unknown_tool(
    std::string_view name, const Tools& tools,
    const std::map<std::string, std::string, std::less<>>& unavailable);

// Keyword map keys become strings at every depth, as JSON would carry them.
HostValue string_keys(const HostValue& v);

// About how many bytes a host value tree occupies (nodes and text).
size_t host_value_bytes(const HostValue& v);

}  // namespace ptc
