// What an agent run is given and what it gives back: the options, the
// telemetry events, each turn's record and the result. Shared by the loop
// (agent.hpp) and the turn handlers (run_state.hpp), which must not include
// the loop that calls them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/agent/messages.hpp"
#include "protocol/lisp_eval/exposure.hpp"
#include "protocol/lisp_eval/feedback.hpp"

namespace ptc::protocol {

enum class MemoryStrategy {
  Strict,    // a program whose memory exceeds memory_limit ends the run
  Rollback,  // it is answered with memory_limit and its turn is undone
};

// One observable event of a run (the host's telemetry).
struct AgentEvent {
  // "run_start", "run_stop", "llm_call", "tool_call", or "preview_fallback"
  // (a host's native preview function failed; the metadata preview was used).
  std::string event;
  int turn = 0;
  double duration_ms = 0;
  // tool_call:
  std::string tool_name;       // lisp_eval, a native name, or a program's tool/ name
  std::string exposure_layer;  // "native" or "ptc_lisp"
  bool cached = false;         // answered from the tool cache without running the tool
  bool error = false;
  std::string cache_key_hash;             // canonical_args_key of the arguments ("" for lisp_eval)
  bool full_result_cached = false;        // the full result is in the cache (native preview path)
  bool result_preview_truncated = false;  // the model saw a preview, not the whole result
  size_t retained_bytes = 0;              // bytes the cache holds for this result
  // run_stop: "" when ok, else the failure reason; llm_call: the error;
  // preview_fallback: what went wrong (names the tool and the category).
  std::string reason;
};

// How programs reach the loop with output ptc_lisp.
enum class PtcTransport {
  ToolCall,  // as the `program` of a lisp_eval call (the only one combined mode takes)
  Content,   // as a fenced block in the assistant's text; the request offers no tools
};

struct AgentOptions {
  OutputMode output = OutputMode::PtcLisp;
  PtcTransport transport = PtcTransport::ToolCall;
  std::string prompt;         // the mission: the first user message
  std::string system_prompt;  // the host's own instructions, put first in the system prompt
  int max_turns = 5;
  int retry_turns = 0;  // ptc_lisp: extra turns to fix an invalid (return v)
  // Native app-tool calls per run (combined mode; lisp_eval is exempt), and
  // (tool/...) calls per program. nullopt = unlimited.
  std::optional<uint32_t> max_tool_calls;
  std::string signature;  // the answer's shape; "" = any
  std::vector<AgentTool> tools;
  HostValue context;   // data/ names of every program
  HostValue memory;    // names bound before the first program
  RunOptions program;  // limits etc. of each program (its context, memory, tools are the agent's)
  FormatOptions format;
  size_t memory_limit = size_t{1} << 20;  // bytes of memory as JSON after a program; 0 = none
  MemoryStrategy memory_strategy = MemoryStrategy::Strict;
  std::optional<std::chrono::milliseconds> mission_timeout;  // wall clock of the whole run
  std::function<void(const AgentEvent&)> telemetry;
  // Called with each program's options after the agent's tools are set, to
  // add more (e.g. upstream::attach: tool/call and tool/servers).
  std::function<void(RunOptions&)> attach_tools;
};

// What one turn did.
struct AgentTurn {
  int number = 0;
  std::string type;          // "normal", "must_return" or "retry"
  std::string raw_response;  // the model's content, and its tool calls as JSON
  std::optional<std::string> program;
  HostValue result;  // the program's value, the answer, or {reason, message} of a failure
  std::vector<std::string> prints;
  std::vector<ToolCall> tool_calls;  // (tool/...) calls of the program
  bool success = false;
};

struct AgentResult {
  bool ok = false;
  HostValue value;          // the answer
  std::string fail_reason;  // when !ok: max_turns_exceeded, llm_error, failed, ...
  std::string fail_message;
  // llm_error from a model client: its failure (LlmResponse::error_kind) and
  // whether it is worth trying again later.
  std::string llm_error_kind;
  bool llm_error_retryable = false;
  std::vector<ChatMessage> messages;  // the system prompt, then the whole conversation
  std::vector<AgentTurn> turns;
  HostValue memory;
  std::vector<HostValue> turn_history;  // values for *1 *2 *3, oldest first
  uint32_t native_tool_calls = 0;
  TokenCounts tokens;          // summed over the turns that reported them
  bool fallback_used = false;  // the answer is the last successful program's value
};

}  // namespace ptc::protocol
