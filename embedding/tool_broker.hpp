// Calls host tools for one run: resolves the name, enforces max_tool_calls,
// answers cacheable tools from the run's cache, converts arguments and
// results between the run and the host, and keeps the ledger. Thread-safe:
// parallel branches call tools through the same broker.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "embedding/execution.hpp"
#include "embedding/journal.hpp"
#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"

namespace ptc {

class ExecutionState;

class ToolBroker {
 public:
  // `run` is the run's own context: the ledger and the cache are charged to
  // its heap, whichever branch makes the call. With `execution`, deferred
  // tools wait for the host and every call's outcome is journaled (or, when
  // the execution replays, taken from its journal).
  // `approver` (may be empty) decides approvals in place; `validator` (may
  // be empty) may refuse any call before it.
  ToolBroker(const Tools& tools, const std::vector<std::string>& deferred, const Limits& limits,
             Ctx& run, std::shared_ptr<ToolCache> shared_cache = nullptr,
             ExecutionState* execution = nullptr, uint64_t first_ledger_seq = 0,
             const Approver* approver = nullptr, const ToolCallValidator* validator = nullptr)
      : tools_(tools),
        deferred_(deferred),
        approver_(approver),
        validator_(validator),
        limits_(limits),
        run_(run),
        cache_(std::move(shared_cache)),
        execution_(execution),
        next_seq_(first_ledger_seq) {}

  // Runs tool `name` with the program's argument map; the result lives in
  // ctx's arena. Failures throw LispError (unknown_tool, tool_error,
  // tool_call_limit_exceeded).
  Value call(Ctx& ctx, std::string_view name, Value args);

  // The ledger, in the order the calls ended.
  std::vector<ToolCall> take_ledger();

 private:
  // A call's answer on its way into the run.
  struct ToolOutcome {
    bool ok = true;  // the tool succeeded: `value` is its answer
    HostValue value;
    std::string error;
    bool cached = false;
    double duration_ms = 0;
    size_t cache_charge = 0;  // heap bytes charged for storing it in the cache
  };

  const Tool& find_tool(std::string_view name) const;
  // `source`: Live, or where a loaded execution's call was pending (Host:
  // for its answer, HostApproval: for a decision).
  ToolOutcome obtain(Ctx& ctx, const Tool& tool, const ToolCall& entry, const HostValue& args,
                     uint32_t number, AnswerSource source);
  // A call that needs approval, before it runs: nullopt when approved, else
  // the failure it ends with. The approver decides, else the host through
  // the execution (it suspends); without either the call fails closed.
  std::optional<ToolResult> refusal(Ctx& ctx, const ToolCall& entry, const HostValue& args,
                                    uint32_t number);
  // The call as a host's validator or approver sees it (no id outside an
  // execution).
  PendingCall hook_call(const Ctx& ctx, const ToolCall& entry, const HostValue& args,
                        uint32_t number, PendingCall::Kind kind) const;
  Value settle(Ctx& ctx, const Tool& tool, ToolCall& entry, ToolOutcome& outcome);
  // Brings a successful answer into the run and records the call.
  Value finish(Ctx& ctx, ToolCall& entry, const ToolOutcome& outcome);
  Value replay(Ctx& ctx, const JournalCall& call);
  // Charges the ledger entry and moves it into the ledger (an execution's
  // journal).
  void record(const Ctx& ctx, ToolCall& entry, const ToolOutcome& outcome);
  // Counts bytes the broker keeps (ledger, cache) against the run's heap.
  void charge_run(size_t bytes);

  const Tools& tools_;
  const std::vector<std::string>& deferred_;
  const Approver* approver_;
  const ToolCallValidator* validator_;
  const Limits& limits_;
  Ctx& run_;
  std::atomic<uint32_t> calls_{0};
  // The host's shared cache, or one of this run's own, made at the first
  // cacheable call (most runs make none): cache() makes it, once, whichever
  // branch asks first.
  ToolCache& cache();
  std::shared_ptr<ToolCache> cache_;
  std::once_flag cache_made_;
  ExecutionState* execution_;
  std::atomic<uint64_t> next_seq_;
  std::mutex mutex_;  // guards ledger_
  std::vector<std::pair<uint64_t, ToolCall>> ledger_;
};

// Calls a host tool: what it gives back, or its exception as the tool's
// failure (a tool without a function fails too).
ToolResult call_host_tool(const Tool& tool, const HostValue& args);

// Whether a call of `tool` with `args` needs a person's approval
// (Tool::needs_approval, or Tool::approval_when; one that throws says yes).
bool needs_approval(const Tool& tool, const HostValue& args);

// A call that needs approval, before it runs: nullopt when `approver`
// approves it, else the failure the call ends with (rejected, with the
// person's reason; or no approver to ask: fails closed). An approver that
// throws rejects the call.
std::optional<ToolResult> approval_gate(const Approver& approver, const PendingCall& call);
// The failure of a call a person rejected, and of one nobody could approve.
ToolResult rejected_call(std::string_view reason);
ToolResult unapproved_call();
// A host's tool-call validator on a call: nullopt when it lets the call go
// on, else the failure the call ends with (one that throws refuses).
std::optional<ToolResult> validation_gate(const ToolCallValidator& validate,
                                          const PendingCall& call);

// The host's gates on a call it makes for an isolated run, whose worker can
// neither ask nor skip them: the tool-call validator, then (for a tool that
// needs it) the approver. nullopt when the tool may run, else the failure.
std::optional<ToolResult> gate_in_host(const RunOptions& options, const Tool& tool,
                                       PendingCall call);

// The tool_error of a call that failed with `error`: a rejection reads as
// one, with a hint to match.
[[noreturn]] void throw_tool_failure(std::string_view tool, std::string_view error);

// Whether tool/`name` is deferred under these options (Tool::deferred, or
// listed in RunOptions::deferred_tools, "*" covering the tools not given).
bool defers_tool(const Tools& tools, const std::vector<std::string>& deferred,
                 std::string_view name);
// Whether a program may call tool/`name` (given, or deferred).
bool knows_tool(const Tools& tools, const std::vector<std::string>& deferred,
                std::string_view name);

// The unknown_tool error for tool/<name>: says why when the tool is one of
// `unavailable`, else lists the tools there are (or that there are none).
[[noreturn]] void throw_unknown_tool(
    std::string_view name, const Tools& tools,
    const std::map<std::string, std::string, std::less<>>& unavailable);

// Keyword map keys become strings at every depth, as JSON would carry them.
HostValue string_keys(const HostValue& v);

// canonical_args_key of a run's argument map (nil for none), as the host
// value it exports to would give, without exporting it (nor allocating the
// key: an execution keys every call, replayed ones too).
ArgsKey canonical_args_key(Value args);

// About how many bytes a host value tree occupies (nodes and text).
size_t host_value_bytes(const HostValue& v);

}  // namespace ptc
