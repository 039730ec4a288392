// The agent loop: budget checks before each turn, the model call, and the
// turn handed to the transport of the agent's output mode and transport; plus the pieces
// both transports share (running a lisp_eval call, message bookkeeping).
#include "protocol/agent/agent.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "embedding/tool_broker.hpp"
#include "protocol/agent/content_turn.hpp"
#include "protocol/agent/run_state.hpp"
#include "protocol/agent/tool_call_turn.hpp"
#include "protocol/lisp_eval/reference_card.hpp"
#include "protocol/lisp_eval/tool.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::protocol {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

AgentEvent event(const char* name, double duration_ms = 0) {
  AgentEvent e;
  e.event = name;
  e.duration_ms = duration_ms;
  return e;
}

using host::str;

// A short description of a context value for the first message: its kind
// and size, never its contents (a context may be large or private).
std::string describe_shape(const HostValue& v) {
  using K = HostValue::Kind;
  switch (v.kind()) {
    case K::Vector: {
      std::string s = fmt::format("a vector of {} item{}", v.size(), v.size() == 1 ? "" : "s");
      if (!v.items().empty() && v.items()[0].kind() == K::Map) {
        std::string keys;
        const auto& first = v.items()[0].items();
        for (size_t i = 0; i + 1 < first.size() && i < 24; i += 2)
          keys += (keys.empty() ? "" : ", ") + first[i].text();
        s += fmt::format(" (maps with keys {})", keys);
      }
      return s;
    }
    case K::Map:
      return fmt::format("a map of {} entr{}", v.size(), v.size() == 1 ? "y" : "ies");
    case K::Set:
      return fmt::format("a set of {} item{}", v.size(), v.size() == 1 ? "" : "s");
    case K::String:
      return v.text().size() <= 80 ? fmt::format("the string {}", format_value(v))
                                   : fmt::format("a string of {} bytes", v.text().size());
    default:
      return format_value(v);
  }
}

std::string first_user_message(const AgentOptions& o) {
  std::string out;
  if (o.context.kind() == HostValue::Kind::Map && o.context.size() > 0) {
    out += "<context_data>\nPrograms read these as data/<key>:\n";
    const auto& items = o.context.items();
    for (size_t i = 0; i + 1 < items.size(); i += 2)
      out += fmt::format("- data/{}: {}\n", items[i].text(), describe_shape(items[i + 1]));
    out += "</context_data>\n\n";
  }
  out += "<output_format>\n";
  if (o.output == OutputMode::Text) {
    out += o.signature.empty() ? "Answer in plain text."
                               : fmt::format("Answer with JSON matching {}.", o.signature);
  } else if (o.transport == PtcTransport::Content) {
    out += o.signature.empty()
               ? "End with (return value) in a program."
               : fmt::format(
                     "The answer must match {}: end a program with (return value) of "
                     "that shape.",
                     o.signature);
  } else {
    out += o.signature.empty()
               ? "End with (return value) in a program, or answer directly."
               : fmt::format(
                     "The answer must match {}: end a program with (return value) of "
                     "that shape, or answer directly with it as JSON.",
                     o.signature);
  }
  out += "\n</output_format>\n\n<mission>\n" + o.prompt + "\n</mission>";
  return out;
}

}  // namespace

// ---------------------------------------------------------------- state

void RunState::emit(AgentEvent e) const {
  if (!options.telemetry) return;
  e.turn = e.turn ? e.turn : turn;
  try {
    options.telemetry(e);
  } catch (...) {
    // A host's observer must not end the run.
  }
}

void RunState::stop_ok(HostValue value) {
  done = true;
  result.ok = true;
  result.value = std::move(value);
}

void RunState::stop_error(std::string reason, std::string message) {
  done = true;
  result.ok = false;
  result.fail_reason = std::move(reason);
  result.fail_message = std::move(message);
}

void RunState::next_turn() {
  ++turn;
  if (work_left > 0)
    --work_left;
  else
    retry_left = std::max(retry_left - 1, 0);
}

std::string RunState::turn_type() const {
  if (work_left <= 0) return "retry";
  if (work_left <= 1) return "must_return";
  return "normal";
}

TurnInfo RunState::turn_info() const {
  TurnInfo t;
  t.turn = turn;
  t.max_turns = options.max_turns;
  t.work_turns_left = work_left;
  t.retry_turns_left = retry_left;
  t.retry_turns = options.retry_turns;
  return t;
}

void RunState::assign_ids(std::vector<ToolCallRequest>& calls) {
  for (ToolCallRequest& c : calls)
    if (c.id.empty()) c.id = fmt::format("call_{}", ++synthesized_ids);
}

void RunState::add_assistant(const LlmResponse& r, std::vector<ToolCallRequest> calls) {
  ChatMessage m;
  m.role = "assistant";
  m.content = r.content ? *r.content : std::string();
  m.tool_calls = std::move(calls);
  messages.push_back(std::move(m));
}

void RunState::add_tool(const std::string& id, std::string content) {
  ChatMessage m;
  m.role = "tool";
  m.tool_call_id = id;
  m.content = std::move(content);
  messages.push_back(std::move(m));
}

void RunState::add_user(std::string content) {
  ChatMessage m;
  m.role = "user";
  m.content = std::move(content);
  messages.push_back(std::move(m));
}

// ---------------------------------------------------------------- shared pieces

namespace {

// The options of one program of the run: the agent's context (with
// data/fail after a failed program), memory, history, tools and cache.
RunOptions program_options(const RunState& s) {
  const AgentOptions& o = s.options;
  RunOptions run = o.program;
  run.context = o.context;
  if (s.last_fail) {
    // The previous program's error, for a program that wants to react to it.
    std::vector<std::pair<HostValue, HostValue>> entries;
    if (o.context.kind() == HostValue::Kind::Map) {
      const auto& items = o.context.items();
      for (size_t i = 0; i + 1 < items.size(); i += 2)
        entries.emplace_back(items[i], items[i + 1]);
    }
    entries.emplace_back(str("fail"),
                         reason_record(ptc::reason_name(s.last_fail->kind), s.last_fail->message));
    run.context = HostValue::map(std::move(entries));
  }
  run.memory = s.memory;
  run.turn_history = s.history;
  run.tool_cache = s.cache;
  run.tools.clear();
  run.unavailable_tools.clear();
  for (const AgentTool& t : o.tools) {
    if (o.output == OutputMode::PtcLisp || program_callable(t, o.output)) {
      Tool tool = t.tool;
      tool.cacheable = t.cache;
      run.tools[t.name] = std::move(tool);
    } else {
      run.unavailable_tools[t.name] =
          "it is exposed to the model as a native tool only; to call it from programs, set its "
          "expose to both (or ptc_lisp)";
    }
  }
  if (o.attach_tools) o.attach_tools(run);
  if (o.max_tool_calls) run.limits.max_tool_calls = o.max_tool_calls;
  run.caller = o.output == OutputMode::PtcLisp ? "in_process_v1" : "text_mode";
  run.profile = run.caller;
  return run;
}

}  // namespace

ProgramOutcome run_lisp_eval(RunState& s, const ToolCallRequest& call) {
  ProgramOutcome out;
  ProgramArg arg = extract_program(call.args, call.args_error);
  if (!arg.ok) {
    out.payload = render_error(Reason::ArgsError, arg.message);
    return out;
  }
  out.args_ok = true;
  out.program = arg.program;
  auto t0 = Clock::now();
  out.step = ptc::run(arg.program, program_options(s));
  AgentEvent e;
  e.event = "tool_call";
  e.tool_name = std::string(kLispEval);
  e.exposure_layer = "native";
  e.duration_ms = ms_since(t0);
  e.error = !out.step.ok;
  s.emit(e);
  emit_program_tool_calls(s, out.step);
  return out;
}

Step run_program(RunState& s, const std::string& source) {
  Step step = ptc::run(source, program_options(s));
  emit_program_tool_calls(s, step);
  return step;
}

void emit_program_tool_calls(const RunState& s, const Step& step) {
  for (const ToolCall& c : step.tool_calls) {
    AgentEvent e;
    e.event = "tool_call";
    e.tool_name = c.name;
    e.exposure_layer = "ptc_lisp";
    e.cached = c.cached;
    e.error = !c.error.empty();
    e.duration_ms = c.duration_ms;
    e.cache_key_hash = c.args_key;
    e.result_preview_truncated = c.result_truncated;
    for (const AgentTool& t : s.options.tools) {
      if (t.name != c.name || !t.cache || !c.error.empty()) continue;
      if (auto hit = s.cache->find(c.name, c.args_key)) {
        e.full_result_cached = true;
        e.retained_bytes = host_value_bytes(*hit);
      }
    }
    s.emit(e);
  }
}

namespace {

// The memory of a step, measured as JSON text; 0 when it has no JSON form.
size_t memory_bytes(const HostValue& memory) {
  try {
    return to_json(memory).size();
  } catch (LispError&) {
    return 0;  // functions have no JSON form; they are kept as their source
  }
}

}  // namespace

std::optional<std::string> RunState::memory_over_limit(const HostValue& program_memory) const {
  if (!options.memory_limit) return std::nullopt;
  size_t bytes = memory_bytes(program_memory);
  if (bytes <= options.memory_limit) return std::nullopt;
  return fmt::format("Memory limit exceeded ({} bytes > {} bytes).", bytes, options.memory_limit);
}

void RunState::keep(const Step& step) {
  memory = step.memory;
  last_fail.reset();
  if (step.returned) return;
  history.push_back(step.value);
  if (history.size() > 3) history.erase(history.begin());
}

HostValue reason_record(std::string_view reason, std::string_view message) {
  return HostValue::map({{str("reason"), str(reason)}, {str("message"), str(message)}});
}

void reject_calls(RunState& s, const LlmResponse& r, std::vector<ToolCallRequest> calls,
                  std::string_view reason, std::string_view message, const std::string& payload) {
  AgentTurn t = turn_record(s, r);
  t.result = reason_record(reason, message);
  s.add_assistant(r, calls);
  for (const ToolCallRequest& c : calls)
    s.add_tool(c.id, payload);
  s.turns.push_back(std::move(t));
}

AgentTurn turn_record(const RunState& s, const LlmResponse& r) {
  AgentTurn t;
  t.number = s.turn;
  t.type = s.turn_type();
  t.raw_response = r.content ? *r.content : "";
  if (!r.tool_calls.empty()) {
    ChatMessage m;
    m.role = "assistant";
    m.tool_calls = r.tool_calls;
    HostValue json = to_openai(m);
    const HostValue* calls = json.get("tool_calls");
    if (!t.raw_response.empty()) t.raw_response += '\n';
    t.raw_response += calls ? to_json(*calls, true) : "[]";
  }
  return t;
}

// ---------------------------------------------------------------- agent

Agent::Agent(AgentOptions options, LlmCallable llm)
    : options_(std::move(options)), llm_(std::move(llm)) {
  if (options_.max_turns < 1) throw std::invalid_argument("max_turns must be at least 1");
  if (options_.retry_turns < 0) throw std::invalid_argument("retry_turns must not be negative");
  if (!llm_) throw std::invalid_argument("the agent needs an LLM callable");
  if (options_.output == OutputMode::Text && options_.transport == PtcTransport::Content)
    throw std::invalid_argument(
        "transport content is not supported with output text: use transport tool_call for "
        "combined mode, or leave transport out");
  if (std::string problem = check_tools(options_.tools, options_.output); !problem.empty())
    throw std::invalid_argument(problem);
  if (!options_.signature.empty()) {
    try {
      signature_ = std::make_unique<Signature>(parse_signature(options_.signature));
    } catch (LispError& e) {
      throw std::invalid_argument("invalid signature: " + e.error().describe());
    }
  }
}

Agent::~Agent() = default;

std::string Agent::system_prompt() const {
  std::string out;
  if (!options_.system_prompt.empty()) out += options_.system_prompt + "\n\n";
  if (options_.output == OutputMode::PtcLisp && options_.transport == PtcTransport::Content) {
    out += content_mode_instructions();
  } else if (options_.output == OutputMode::PtcLisp) {
    out +=
        "You work by writing PTC-Lisp programs and sending each one as the `program` of a "
        "lisp_eval call; only `lisp_eval` is available as a native tool. A program computes, "
        "calls the app tools listed below as (tool/name {...}) and transforms data; its last "
        "value (or the v of (return v)) comes back to you. End the task with (return value), "
        "or with (fail reason) when it cannot be done. When you already know the answer, you "
        "may instead reply with it directly as plain content in the signature shape of the "
        "expected output. Never put a program in your reply as fenced code.";
  } else {
    out +=
        "Answer the user in plain text. When an answer needs exact computation, filtering or "
        "aggregation over large tool results, or several tool calls combined, call lisp_eval "
        "with a PTC-Lisp program: its value comes back to you as a tool result, and you then "
        "write the answer. A lisp_eval call must be the only tool call of its turn.";
  }
  if (!options_.signature.empty())
    out += (options_.output == OutputMode::Text ? "\n\nThe final answer must match: "
                                                : "\n\nExpected output: ") +
           options_.signature;
  std::string card = compact_reference_card();
  std::string inventory = program_tool_inventory(options_.tools, options_.output);
  if (options_.transport == PtcTransport::Content) {
    card = for_content_mode(std::move(card));
    inventory = for_content_mode(std::move(inventory));
  }
  out += "\n\n" + card;
  if (!inventory.empty()) out += "\n\n" + inventory;
  return out;
}

std::vector<HostValue> Agent::request_tools() const {
  if (options_.transport == PtcTransport::Content) return {};  // no native tools at all
  return protocol::request_tools(options_.output, options_.tools);
}

AgentResult Agent::run() {
  auto started = Clock::now();
  RunState s(options_, signature_.get());
  s.work_left = options_.max_turns;
  s.retry_left = options_.retry_turns;
  s.memory = options_.memory.is_nil() ? HostValue::map({}) : options_.memory;
  std::string system = system_prompt();
  s.add_user(first_user_message(options_));
  s.emit(event("run_start"));

  while (!s.done) {
    // Budget, before each turn.
    if (options_.mission_timeout && Clock::now() - started >= *options_.mission_timeout) {
      s.stop_error("mission_timeout", "the run's mission timeout passed");
      break;
    }
    if (options_.output == OutputMode::Text) {
      if (s.turn > options_.max_turns) {
        s.stop_error("max_turns_exceeded",
                     fmt::format("exceeded the max_turns limit of {}", options_.max_turns));
        break;
      }
    } else if (s.work_left <= 0 && s.retry_left <= 0) {
      // Out of turns: the newest successful program value, if it fits the signature.
      for (auto it = s.turns.rbegin(); it != s.turns.rend(); ++it) {
        if (!it->success || !it->program || it->result.is_nil()) continue;
        SignatureCheck check =
            signature_ ? check_output(*signature_, it->result) : SignatureCheck{};
        if (check.ok) {
          s.result.fallback_used = true;
          s.stop_ok(signature_ ? check.value : it->result);
        }
        break;
      }
      if (!s.done) {
        if (options_.retry_turns > 0)
          s.stop_error("budget_exhausted", "the work and retry turns are used up");
        else
          s.stop_error("max_turns_exceeded",
                       fmt::format("exceeded the max_turns limit of {}", options_.max_turns));
      }
      break;
    }

    LlmRequest request;
    request.system = system;
    request.messages = s.messages;
    request.tools = request_tools();
    request.turn = s.turn;
    request.output = options_.output == OutputMode::PtcLisp ? "ptc_lisp" : "text";
    LlmResponse response;
    auto t0 = Clock::now();
    try {
      response = llm_(request);
    } catch (const std::exception& e) {
      response = LlmResponse::failure(fmt::format("the LLM callable threw: {}", e.what()));
    } catch (...) {
      response = LlmResponse::failure("the LLM callable threw an unknown exception");
    }
    AgentEvent llm_event = event("llm_call", ms_since(t0));
    if (!response.ok) llm_event.reason = response.error;
    s.emit(llm_event);
    if (!response.ok) {
      s.stop_error("llm_error", fmt::format("LLM call failed: {}", response.error));
      s.result.llm_error_kind = response.error_kind;
      s.result.llm_error_retryable = response.retryable;
      break;
    }
    if (response.tokens) {
      s.result.tokens.input += response.tokens->input;
      s.result.tokens.output += response.tokens->output;
      s.result.tokens.cache_creation += response.tokens->cache_creation;
      s.result.tokens.cache_read += response.tokens->cache_read;
    }
    if (options_.output == OutputMode::PtcLisp && options_.transport == PtcTransport::Content)
      handle_content_turn(s, response);
    else if (options_.output == OutputMode::PtcLisp)
      handle_tool_call_turn(s, response);
    else
      handle_combined_turn(s, response);
  }

  AgentResult result = std::move(s.result);
  result.messages.push_back(ChatMessage{"system", system, {}, ""});
  for (ChatMessage& m : s.messages)
    result.messages.push_back(std::move(m));
  result.turns = std::move(s.turns);
  result.memory = std::move(s.memory);
  result.turn_history = std::move(s.history);
  result.native_tool_calls = s.native_calls;
  AgentEvent stop = event("run_stop", ms_since(started));
  stop.reason = result.ok ? "" : result.fail_reason;
  s.emit(stop);
  return result;
}

}  // namespace ptc::protocol
