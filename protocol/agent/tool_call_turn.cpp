// The native tool-call transport (output ptc_lisp): one assistant turn.
#include "protocol/agent/tool_call_turn.hpp"

#include <fmt/format.h>

#include "protocol/agent/final_answer.hpp"
#include "protocol/agent/program_turn.hpp"
#include "protocol/agent/run_state.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::protocol {

namespace {

using host::str;

constexpr std::string_view kNoContent =
    "Your turn had no content and no tool calls. Call lisp_eval with a program, or reply with "
    "the final answer.";
constexpr std::string_view kFencedProgram =
    "This agent uses the tool-call transport (ptc_transport: tool_call): send the program as "
    "the `program` of a lisp_eval call instead of writing it as fenced code in your reply.";
constexpr std::string_view kMultipleCalls = "exactly one lisp_eval call per assistant turn";

// A turn that the transport answers with an error and the model retries:
// every call id gets the same payload, then one user message with the
// feedback and the turn line.
void reject(RunState& s, const LlmResponse& r, std::vector<ToolCallRequest> calls,
            std::string_view reason, const std::string& message) {
  reject_calls(s, r, std::move(calls), reason, message, protocol_error(reason, message));
  s.add_user(error_feedback(message, s.turn_info(), s.options.format));
  s.next_turn();
}

void direct_answer(RunState& s, const LlmResponse& r) {
  const std::string& content = *r.content;
  AgentTurn t = turn_record(s, r);
  if (has_fenced_program(content)) {
    t.result = reason_record("fenced_program", kFencedProgram);
    s.add_assistant(r, {});
    s.add_user(error_feedback(kFencedProgram, s.turn_info(), s.options.format));
    s.turns.push_back(std::move(t));
    s.next_turn();
    return;
  }
  FinalAnswer answer = parse_final_answer(content, s.signature, JsonExtraction::Strict);
  if (!answer.ok) {
    t.result = reason_record("direct_final_invalid", answer.error);
    s.add_assistant(r, {});
    s.add_user(error_feedback(answer.error, s.turn_info(), s.options.format));
    s.turns.push_back(std::move(t));
    s.next_turn();
    return;
  }
  t.result = answer.value;
  t.success = true;
  s.add_assistant(r, {});
  s.turns.push_back(std::move(t));
  s.stop_ok(std::move(answer.value));
}

void execute(RunState& s, const LlmResponse& r, std::vector<ToolCallRequest> calls) {
  const ToolCallRequest& call = calls[0];
  AgentTurn t = turn_record(s, r);
  ProgramOutcome run = run_lisp_eval(s, call);
  s.add_assistant(r, calls);
  if (!run.args_ok) {
    t.result = reason_record("args_error", extract_program(call.args, call.args_error).message);
    s.add_tool(call.id, run.payload);
    s.add_user(error_feedback(t.result.get("message")->text(), s.turn_info(), s.options.format));
    s.turns.push_back(std::move(t));
    s.next_turn();
    return;
  }
  ProgramTurn decided = decide_program_turn(s, run.program, run.step, ProgramEnds::Run, t);
  s.add_tool(call.id, program_payload(s, run.step, decided));
  s.turns.push_back(std::move(t));
  settle_program_turn(s, decided, run.step);
}

}  // namespace

std::vector<HostValue> request_tools(OutputMode mode, const std::vector<AgentTool>& tools) {
  std::vector<HostValue> out;
  if (mode == OutputMode::Text)
    for (const AgentTool& t : tools)
      if (native_callable(t, mode)) out.push_back(native_tool_schema(t));
  out.push_back(openai_tool_schema(mode == OutputMode::PtcLisp ? Profile::InProcessWithAppTools
                                                               : Profile::InProcessTextMode));
  return out;
}

std::string protocol_error(std::string_view reason, std::string_view message) {
  return to_json(HostValue::map({{str("status"), str("error")},
                                 {str("reason"), str(reason)},
                                 {str("message"), str(message)},
                                 {str("feedback"), str(message)}}),
                 true);
}

void handle_tool_call_turn(RunState& s, const LlmResponse& r) {
  std::vector<ToolCallRequest> calls = r.tool_calls;
  s.assign_ids(calls);
  if (calls.empty()) {
    if (!r.content) {
      AgentTurn t = turn_record(s, r);
      t.result = reason_record("no_content", kNoContent);
      s.add_assistant(r, {});
      s.add_user(error_feedback(kNoContent, s.turn_info(), s.options.format));
      s.turns.push_back(std::move(t));
      s.next_turn();
      return;
    }
    direct_answer(s, r);
    return;
  }
  if (calls.size() > 1) {
    reject(s, r, std::move(calls), "multiple_tool_calls", std::string(kMultipleCalls));
    return;
  }
  if (calls[0].name != kLispEval) {
    std::string message = fmt::format(
        "Unknown native tool `{}`. Only `lisp_eval` is available natively in this transport; "
        "call app tools as (tool/name {{...}}) inside a program.",
        calls[0].name);
    reject(s, r, std::move(calls), "unknown_tool", message);
    return;
  }
  execute(s, r, std::move(calls));
}

}  // namespace ptc::protocol
