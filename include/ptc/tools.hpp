// Tools as the engine's layers see them: what a tool gives back, the host
// callable, the context of a running call, the shared result cache, the
// upstream catalog, and the ledger entries of tool and parallel calls. Part
// of the public API (ptc.hpp includes it) and the lowest layer's view of the
// host: runtime/ and scheduler/ include this, never ptc.hpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host_value.hpp"

namespace ptc {

// ---------------------------------------------------------------- tools

// What a tool gives back: a value, or an error message the program sees as a
// tool_error naming the tool.
struct ToolResult {
  bool ok = true;
  HostValue value;
  std::string error;

  static ToolResult success(HostValue v) { return {true, std::move(v), {}}; }
  static ToolResult failure(std::string message) { return {false, {}, std::move(message)}; }
};

// A host callable. `args` is the map the program passed (keyword keys become
// string keys, as JSON would carry them). May be called from several threads
// at once when the program uses pmap/pcalls.
struct Tool {
  std::function<ToolResult(const HostValue& args)> fn;
  // Calls with equal canonical arguments (string/keyword keys alike, nested
  // map order ignored, 2.0 equal to 2) are answered from the run's cache.
  bool cacheable = false;
  // Set by tools whose waits only go through ptc's own cooperative waits
  // (the upstream MCP clients): their calls stay on the branch's thread.
  // Any other tool may block its thread, so in a pmap whose branches share
  // a thread it runs on a thread of its own while the other branches go on.
  bool cooperative = false;
  // Not called by ptc: the host answers it. Under ptc::start a program that
  // calls it suspends until Execution::resume gives the answer; ptc::run
  // cannot wait, and fails such a call with args_error. `fn` may be empty.
  bool deferred = false;
  // A person approves each call before the tool runs (a write: send mail,
  // refund an order). Under ptc::start the program suspends at the call with
  // an approval pending, and goes on once it is approved (the tool runs) or
  // rejected (the call fails with a tool_error that says so); ptc::run asks
  // RunOptions::approver, and without one the call fails and the tool is not
  // called. A call answered from the tool cache runs nothing and asks no one.
  bool needs_approval = false;
  // Decides per call, from its arguments, whether it needs approval as
  // needs_approval does (tool/call: the upstream tool it names).
  std::function<bool(const HostValue& args)> approval_when = nullptr;
};

// What a tool may ask about the call it is serving, while it runs (on the
// thread that runs it): whether the run was cancelled or stopped, and the
// deadline it must finish by. A tool that waits (on a network, a process)
// should stop waiting when cancelled() turns true.
class ToolCallContext {
 public:
  virtual bool cancelled() const = 0;
  virtual std::chrono::steady_clock::time_point deadline() const = 0;

 protected:
  ~ToolCallContext() = default;
};
// The context of the tool call running on this thread; nullptr outside one.
const ToolCallContext* current_tool_call();

// Tools by the name programs use after tool/ (kebab-case: "get-user").
using Tools = std::map<std::string, Tool, std::less<>>;

// Results of cacheable tools, by tool name and canonical arguments
// (canonical_args_key), shared by several runs: an agent's native tool calls
// and the (tool/...) calls of its programs answer each other from it.
// Thread-safe. Entries live as long as the cache; nothing is evicted.
class ToolCache {
 public:
  std::optional<HostValue> find(std::string_view tool, std::string_view args_key) const;
  void store(std::string_view tool, std::string_view args_key, HostValue result);
  size_t size() const;

 private:
  static std::string key(std::string_view tool, std::string_view args_key);
  mutable std::mutex mutex_;
  std::map<std::string, HostValue, std::less<>> entries_;
};

// Tools of other MCP servers, for discovery by programs: (dir "fs") lists a
// server's tools, (doc "fs/read") and (meta "fs/read") describe one, and
// (apropos "read") searches them beside the language's own names. An upstream
// aggregator (protocol/upstream) attaches its frozen catalog to each run.
struct CatalogTool {
  std::string server;
  std::string name;
  std::string description;
  HostValue input_schema;  // the tool's JSON Schema, as data
  bool read_only = false;
};
struct ToolCatalog {
  std::vector<std::pair<std::string, std::string>> servers;  // name, description
  std::vector<CatalogTool> tools;                            // by server, then name
  const CatalogTool* find(std::string_view server, std::string_view tool) const {
    for (const CatalogTool& t : tools)
      if (t.server == server && t.name == tool) return &t;
    return nullptr;
  }
};

// The cache identity of a tool call's arguments: map keys compared as
// strings whether they came as keywords or strings, with - and _ alike
// ("was-improved" is "was_improved"), map order ignored at every depth,
// integral floats equal to the integer (2.0 is 2), and arguments that are not
// a map kept apart from every map. 32 hex digits (128-bit xxHash).
std::string canonical_args_key(const HostValue& args);

// One entry of the tool-call ledger. Arguments and result are kept whole when
// they print within max_tool_call_result_bytes, else as a string preview of
// that length: the ledger lives as long as the run and is charged to its heap.
struct ToolCall {
  std::string name;
  HostValue args;  // a preview when the arguments printed longer than the cap
  bool args_truncated = false;
  std::string args_key;  // canonical_args_key of the whole arguments: the call's identity
  HostValue result;      // a preview when the result printed longer than the cap
  bool result_truncated = false;
  std::string error;  // empty when the call succeeded
  double duration_ms = 0;
  bool cached = false;
};

// One pmap or pcalls call.
struct ParallelCall {
  std::string kind;  // "pmap" or "pcalls"
  size_t count = 0;
  size_t success_count = 0;
  size_t error_count = 0;
  double duration_ms = 0;
};

}  // namespace ptc
