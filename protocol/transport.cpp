// The native tool-call transport (output ptc_lisp): one assistant turn.
#include "protocol/transport.hpp"

#include <fmt/format.h>

#include "protocol/agent_state.hpp"
#include "protocol/final_answer.hpp"

namespace ptc::protocol {

namespace {

HostValue str(std::string_view s) {
  return HostValue::string(std::string(s));
}

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
void reject(Agent::State& s, const LlmResponse& r, std::vector<ToolCallRequest> calls,
            std::string_view reason, const std::string& message) {
  AgentTurn t = turn_record(s, r);
  t.result = HostValue::map({{str("reason"), str(reason)}, {str("message"), str(message)}});
  std::string payload = protocol_error(reason, message);
  s.add_assistant(r, calls);
  for (const ToolCallRequest& c : calls)
    s.add_tool(c.id, payload);
  s.add_user(error_feedback(message, s.turn_info(), s.options.format));
  s.turns.push_back(std::move(t));
  s.next_turn();
}

void direct_answer(Agent::State& s, const LlmResponse& r) {
  const std::string& content = *r.content;
  AgentTurn t = turn_record(s, r);
  if (has_fenced_program(content)) {
    t.result = HostValue::map(
        {{str("reason"), str("fenced_program")}, {str("message"), str(kFencedProgram)}});
    s.add_assistant(r, {});
    s.add_user(error_feedback(kFencedProgram, s.turn_info(), s.options.format));
    s.turns.push_back(std::move(t));
    s.next_turn();
    return;
  }
  FinalAnswer answer = parse_final_answer(content, s.signature, JsonExtraction::Strict);
  if (!answer.ok) {
    t.result = HostValue::map(
        {{str("reason"), str("direct_final_invalid")}, {str("message"), str(answer.error)}});
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

void execute(Agent::State& s, const LlmResponse& r, std::vector<ToolCallRequest> calls) {
  const ToolCallRequest& call = calls[0];
  AgentTurn t = turn_record(s, r);
  ProgramOutcome run = run_lisp_eval(s, call);
  s.add_assistant(r, calls);
  if (!run.args_ok) {
    t.result = HostValue::map(
        {{str("reason"), str("args_error")},
         {str("message"), str(extract_program(call.args, call.args_error).message)}});
    s.add_tool(call.id, run.payload);
    s.add_user(error_feedback(t.result.get("message")->text(), s.turn_info(), s.options.format));
    s.turns.push_back(std::move(t));
    s.next_turn();
    return;
  }
  const Step& step = run.step;
  t.program = run.program;
  t.prints = step.prints;
  t.tool_calls = step.tool_calls;
  const AgentOptions& o = s.options;

  if (!step.ok) {
    if (step.error.kind == ErrorKind::Fail) {
      s.add_tool(call.id, render_step_error(step, o.format));
      t.result = step.fail_value;
      s.turns.push_back(std::move(t));
      s.stop_error("failed", step.error.message);
      return;
    }
    s.add_tool(call.id, render_step_error(step, o.format));
    t.result = HostValue::map({{str("reason"), str(ptc::reason_name(step.error.kind))},
                               {str("message"), str(step.error.message)}});
    s.last_fail = step.error;
    s.turns.push_back(std::move(t));
    s.next_turn();
    return;
  }

  bool single_shot = o.max_turns == 1 && o.retry_turns == 0;
  if (step.returned || single_shot) {
    SignatureCheck check;
    if (s.signature && step.returned) check = check_output(*s.signature, step.value);
    if (!check.ok) {
      std::string message = return_mismatch(s, step.value, check);
      s.add_tool(call.id, render_error(Reason::RuntimeError, message));
      t.result = HostValue::map(
          {{str("reason"), str("return_validation_failed")}, {str("message"), str(message)}});
      s.memory = step.memory;
      s.turns.push_back(std::move(t));
      s.next_turn();
      return;
    }
    ExecutionFeedback fb = execution_feedback(step, s.memory, o.max_turns, o.format);
    s.add_tool(call.id, render_success(step, fb));
    s.memory = step.memory;
    t.result = step.value;
    t.success = true;
    s.turns.push_back(std::move(t));
    s.stop_ok(s.signature ? check.value : step.value);
    return;
  }

  if (std::optional<std::string> over = s.memory_over_limit(step.memory)) {
    const std::string& message = *over;
    t.result =
        HostValue::map({{str("reason"), str("memory_limit")}, {str("message"), str(message)}});
    if (o.memory_strategy == MemoryStrategy::Rollback) {
      s.add_tool(call.id, render_error(Reason::MemoryLimit, message + " Last turn rolled back."));
      s.turns.push_back(std::move(t));
      s.next_turn();
      return;
    }
    s.add_tool(call.id, render_error(Reason::MemoryLimit, message));
    s.turns.push_back(std::move(t));
    s.stop_error("memory_limit_exceeded", message);
    return;
  }
  ExecutionFeedback fb = execution_feedback(step, s.memory, o.max_turns, o.format);
  s.add_tool(call.id, render_success(step, fb));
  s.keep(step);
  t.result = step.value;
  t.success = true;
  s.turns.push_back(std::move(t));
  s.next_turn();
}

}  // namespace

// The text of a failed (return v) check, for the model to fix.
std::string return_mismatch(const Agent::State& s, const HostValue& value,
                            const SignatureCheck& check) {
  std::string shown = format_value(value);
  if (shown.size() > 200) shown = shown.substr(0, 200) + "...";
  return fmt::format(
      "The returned value does not match the expected output.\nExpected: {}\nReceived: "
      "{}\nProblem: {}\nFix the program and call (return ...) with a value of the expected "
      "shape.",
      s.options.signature, shown, check.message);
}

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

void handle_tool_call_turn(Agent::State& s, const LlmResponse& r) {
  std::vector<ToolCallRequest> calls = r.tool_calls;
  s.assign_ids(calls);
  if (calls.empty()) {
    if (!r.content) {
      AgentTurn t = turn_record(s, r);
      t.result =
          HostValue::map({{str("reason"), str("no_content")}, {str("message"), str(kNoContent)}});
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
