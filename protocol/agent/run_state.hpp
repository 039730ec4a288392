// Internal: the state of one agent run, shared by the loop (agent.cpp), the
// program decision (program_turn.cpp) and the three turn shapes
// (tool_call_turn.cpp, content_turn.cpp, combined_turn.cpp).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/agent/agent_options.hpp"
#include "runtime/signature.hpp"

namespace ptc::protocol {

struct RunState {
  RunState(const AgentOptions& o, const Signature* sig) : options(o), signature(sig) {}

  const AgentOptions& options;
  const Signature* signature;  // nullptr: any answer

  int turn = 1;  // the turn being handled (1-based)
  int work_left = 0;
  int retry_left = 0;
  HostValue memory;
  std::vector<HostValue> history;  // *1 is the last
  std::optional<Error> last_fail;  // the previous program's error, as data/fail
  std::shared_ptr<ToolCache> cache = std::make_shared<ToolCache>();
  std::vector<ChatMessage> messages;  // the conversation (without the system prompt)
  std::vector<AgentTurn> turns;
  uint32_t native_calls = 0;
  int synthesized_ids = 0;

  // Set when the run ends.
  bool done = false;
  AgentResult result;

  void emit(AgentEvent e) const;
  void stop_ok(HostValue value);
  void stop_error(std::string reason, std::string message);
  // A turn that continues the run: counts it against the budget.
  void next_turn();
  // The message for a program whose memory after it ran is past
  // memory_limit ("Memory limit exceeded (N bytes > M bytes)."); nullopt
  // when it is within the limit or there is none.
  std::optional<std::string> memory_over_limit(const HostValue& program_memory) const;
  // A program that ran and is kept: its memory becomes the run's, no error
  // stands as data/fail, and its value becomes *1 (unless it ended with
  // (return v), which ends the program, not the run).
  void keep(const Step& step);
  // "normal", "must_return" or "retry".
  std::string turn_type() const;
  TurnInfo turn_info() const;

  // Gives calls without an id one ("call_<n>"), so that every call can be
  // answered by exactly one tool message.
  void assign_ids(std::vector<ToolCallRequest>& calls);
  void add_assistant(const LlmResponse& r, std::vector<ToolCallRequest> calls);
  void add_tool(const std::string& id, std::string content);
  void add_user(std::string content);
};

// What running one lisp_eval call produced.
struct ProgramOutcome {
  bool args_ok = false;  // false: the arguments were unusable (payload is args_error)
  std::string program;
  Step step;
  std::string payload;  // the tool message content
};

// Runs the program of a lisp_eval call with the agent's context, memory,
// history, program-callable tools and shared cache. Does not update state.
ProgramOutcome run_lisp_eval(RunState& s, const ToolCallRequest& call);

// Runs a program's source as run_lisp_eval does, without the lisp_eval
// call around it (content mode): only the program's (tool/...) calls are
// reported as telemetry.
Step run_program(RunState& s, const std::string& source);

// Records the (tool/...) calls of a program as telemetry events.
void emit_program_tool_calls(const RunState& s, const Step& step);

// The turn's record of an assistant turn.
AgentTurn turn_record(const RunState& s, const LlmResponse& r);
// {reason, message}: what a turn that failed or was refused records.
HostValue reason_record(std::string_view reason, std::string_view message);
// A turn whose every call is answered with one error `payload` and recorded
// as {reason, message}; the caller tells the model more, or not, and goes on.
void reject_calls(RunState& s, const LlmResponse& r, std::vector<ToolCallRequest> calls,
                  std::string_view reason, std::string_view message, const std::string& payload);

// The tool-call transport (output ptc_lisp): one turn.
void handle_tool_call_turn(RunState& s, const LlmResponse& r);
// Content mode (output ptc_lisp, transport content): one turn.
void handle_content_turn(RunState& s, const LlmResponse& r);
// Combined mode (output text): one turn.
void handle_combined_turn(RunState& s, const LlmResponse& r);

}  // namespace ptc::protocol
