// Combined mode (output text): native app tools beside lisp_eval. One turn:
// a final text answer, one lisp_eval call alone, or native calls; a
// lisp_eval call never shares its turn. Native calls of `expose: both,
// cache: true` tools go through the agent's tool cache and answer with a
// preview; programs calling the same tool with equal canonical arguments
// reuse the cached result.
#include <fmt/format.h>

#include <chrono>
#include <exception>

#include "embedding/tool_broker.hpp"
#include "protocol/agent/final_answer.hpp"
#include "protocol/agent/program_turn.hpp"
#include "protocol/agent/run_state.hpp"
#include "protocol/lisp_eval/native_preview.hpp"
#include "protocol/lisp_eval/tool.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::protocol {

namespace {

using Clock = std::chrono::steady_clock;

using host::str;

// Protocol errors of combined mode carry no feedback (the model sees the
// message) and no user follow-up.
std::string combined_error(std::string_view reason, std::string_view message) {
  return to_json(HostValue::map({{str("status"), str("error")},
                                 {str("reason"), str(reason)},
                                 {str("message"), str(message)}}),
                 true);
}

std::string error_object(std::string_view message) {
  return to_json(HostValue::map({{str("error"), str(message)}}), true);
}

// JSON of a tool result for the model; a result with no JSON form is shown
// in Clojure syntax as a string.
std::string result_json(const HostValue& v) {
  try {
    return to_json(v, true);
  } catch (LispError&) {
    return to_json(str(format_value(v, 50)), true);
  }
}

void whole_turn_reject(RunState& s, const LlmResponse& r, std::vector<ToolCallRequest> calls,
                       std::string_view reason, std::string_view message) {
  reject_calls(s, r, std::move(calls), reason, message, combined_error(reason, message));
  s.next_turn();
}

void final_text(RunState& s, const LlmResponse& r) {
  AgentTurn t = turn_record(s, r);
  const AgentOptions& o = s.options;
  if (!r.content) {
    std::string message = "the model replied with neither content nor tool calls";
    if (s.turn >= o.max_turns) {
      s.turns.push_back(std::move(t));
      s.stop_error("empty_response", message);
      return;
    }
    s.add_user("Error: " + message + ". Call a tool or reply with the final answer.");
    s.turns.push_back(std::move(t));
    s.next_turn();
    return;
  }
  FinalAnswer answer = parse_final_answer(*r.content, s.signature, JsonExtraction::Lenient);
  s.add_assistant(r, {});
  if (answer.ok) {
    t.result = answer.value;
    t.success = true;
    s.turns.push_back(std::move(t));
    s.stop_ok(std::move(answer.value));
    return;
  }
  t.result = reason_record("validation_error", answer.error);
  s.turns.push_back(std::move(t));
  if (s.turn >= o.max_turns) {
    s.stop_error(
        answer.error.starts_with("Could not parse") ? "json_parse_error" : "validation_error",
        answer.error);
    return;
  }
  s.add_user(
      fmt::format("Error: {} Reply with the answer in the expected output format.", answer.error));
  s.next_turn();
}

void lisp_eval_call(RunState& s, const LlmResponse& r, std::vector<ToolCallRequest> calls) {
  const ToolCallRequest& call = calls[0];
  AgentTurn turn = turn_record(s, r);
  ProgramOutcome run = run_lisp_eval(s, call);
  s.add_assistant(r, calls);
  // Every path answers the call, records the turn, then continues or stops.
  auto done = [&](std::string payload) {
    s.add_tool(call.id, std::move(payload));
    s.turns.push_back(std::move(turn));
  };
  if (!run.args_ok) {
    done(run.payload);
    s.next_turn();
    return;
  }
  ProgramTurn decided = decide_program_turn(s, run.program, run.step, ProgramEnds::Turn, turn);
  turn.success = true;  // the turn worked; the program's own outcome is in its payload
  done(program_payload(s, run.step, decided));
  settle_program_turn(s, decided, run.step);
}

// Runs one valid native call; returns the tool message content.
std::string native_call(RunState& s, const AgentTool& tool, const ToolCallRequest& call) {
  AgentEvent e;
  e.event = "tool_call";
  e.tool_name = call.name;
  e.exposure_layer = "native";
  HostValue args = call.args.is_nil() ? HostValue::map({}) : call.args;
  std::string key = canonical_args_key(args);
  e.cache_key_hash = key;
  bool bridge = tool.cache && effective_expose(tool, OutputMode::Text) == Expose::Both;
  auto t0 = Clock::now();
  std::optional<HostValue> full;
  if (bridge) {
    full = s.cache->find(tool.name, key);
    e.cached = full.has_value();
  }
  std::string failure;
  if (!full) {
    ToolResult r;
    try {
      r = tool.tool.fn ? tool.tool.fn(args) : ToolResult::failure("the tool has no implementation");
    } catch (const std::exception& ex) {
      r = ToolResult::failure(ex.what());
    } catch (...) {
      r = ToolResult::failure("the tool raised an unknown exception");
    }
    if (r.ok)
      full = std::move(r.value);
    else
      failure = r.error.empty() ? "the tool failed" : r.error;
  }
  e.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::string content;
  if (!full) {
    e.error = true;
    content = to_json(HostValue::map({{str("tool"), str(tool.name)},
                                      {str("error"), str(failure)},
                                      {str("args_received"), args}}),
                      true);
  } else if (bridge) {
    if (!e.cached) s.cache->store(tool.name, key, *full);
    NativePreview p = native_preview(
        tool.name, *full, args, tool.native_result ? *tool.native_result : NativeResultOptions{});
    if (p.fell_back) {
      // The host's preview function failed: say so, as a warning the host logs.
      AgentEvent w;
      w.event = "preview_fallback";
      w.tool_name = tool.name;
      w.reason = p.fallback_message;
      s.emit(w);
    }
    e.full_result_cached = true;
    e.result_preview_truncated = true;  // the model sees a preview, never the whole result
    e.retained_bytes = host_value_bytes(*full);
    content = result_json(p.payload);
  } else {
    content = result_json(*full);
  }
  s.emit(e);
  return content;
}

void native_calls(RunState& s, const LlmResponse& r, std::vector<ToolCallRequest> calls) {
  const AgentOptions& o = s.options;
  AgentTurn t = turn_record(s, r);
  s.add_assistant(r, calls);
  std::vector<std::pair<std::string, std::string>> answers;  // id, content, in call order
  for (const ToolCallRequest& c : calls) {
    const AgentTool* tool = find_by_native_name(o.tools, c.name);
    if (!tool || !native_callable(*tool, OutputMode::Text)) {
      answers.emplace_back(
          c.id, combined_error("unknown_tool", fmt::format("Unknown native tool `{}`.", c.name)));
      continue;
    }
    if (!c.args_error.empty()) {
      answers.emplace_back(c.id, error_object(c.args_error));
      continue;
    }
    if (o.max_tool_calls && s.native_calls >= *o.max_tool_calls) {
      ++s.native_calls;  // a skipped call still counts as used
      answers.emplace_back(
          c.id, error_object(fmt::format("Tool call limit reached (max: {})", *o.max_tool_calls)));
      continue;
    }
    ++s.native_calls;
    answers.emplace_back(c.id, native_call(s, *tool, c));
  }
  for (auto& [id, content] : answers)
    s.add_tool(id, std::move(content));
  t.success = true;
  s.turns.push_back(std::move(t));
  s.next_turn();
}

}  // namespace

void handle_combined_turn(RunState& s, const LlmResponse& r) {
  std::vector<ToolCallRequest> calls = r.tool_calls;
  s.assign_ids(calls);
  if (calls.empty()) {
    final_text(s, r);
    return;
  }
  size_t evals = 0;
  for (const ToolCallRequest& c : calls)
    evals += c.name == kLispEval;
  if (evals >= 2) {
    whole_turn_reject(s, r, std::move(calls), "multiple_tool_calls",
                      "exactly one lisp_eval call per assistant turn");
    return;
  }
  if (evals == 1 && calls.size() > 1) {
    whole_turn_reject(s, r, std::move(calls), "mixed_with_lisp_eval",
                      "lisp_eval must be the only tool call of its assistant turn; send the other "
                      "calls in another turn, or make them from inside the program");
    return;
  }
  if (evals == 1) {
    lisp_eval_call(s, r, std::move(calls));
    return;
  }
  native_calls(s, r, std::move(calls));
}

}  // namespace ptc::protocol
