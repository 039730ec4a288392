// The agent loop in JSON, for hosts that drive it from outside C++: the
// options of a run from a JSON object, the request a model gets and the
// answer it gives, and the outcome. One mapping for `ptc agent --script`
// (cli/agent_cmd.cpp) and the C API of libptc_protocol (protocol/libptc_protocol/), so
// that a scripted CLI run and a host's run of the same script agree.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocol/agent/agent.hpp"

namespace ptc::protocol {

// Input that does not fit: the message says what and where
// ("agent.output: \"x\" is not ptc_lisp or text").
class AgentJsonError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Gives the app tool `name` its host function; `spec` is its object in
// agent.tools and `at` where that stands ("agent.tools.get-user"), for
// messages. Throws AgentJsonError.
using AgentToolFunction =
    std::function<Tool(const std::string& name, const HostValue& spec, const std::string& at)>;

// Reads an agent object into `out` (fields left out keep their value in
// `out`; `at` names the object in messages, e.g. "agent"):
//   output           "ptc_lisp" (default) | "text"
//   transport        "tool_call" (default) | "content" (output ptc_lisp only:
//                    the program comes as a fenced block in the reply)
//   max_turns, retry_turns, max_tool_calls (absent or negative: unlimited),
//   memory_limit (bytes; 0 = none), mission_timeout_ms: integers
//   memory_strategy  "strict" | "rollback"
//   signature, system_prompt: strings
//   context          an object (data/ names)
//   tools            {name: {description, signature, expose (native |
//                    ptc_lisp | both), cache (bool), native_result
//                    ({preview: metadata | rows, limit})}}, in that order;
//                    each function from `function`
// Other keys are ignored. Throws AgentJsonError.
void read_agent_options(const HostValue& agent, const std::string& at,
                        const AgentToolFunction& function, AgentOptions& out);

// What the model is asked for one turn:
// {"system", "messages": [OpenAI chat messages, to_openai], "tools": [OpenAI
// function schemas], "turn", "output": "ptc_lisp" | "text"}; no "tools" key
// when none are offered (content mode).
HostValue llm_request_json(const LlmRequest& request);

// The model's answer: an assistant message in the OpenAI chat format
// (content, tool_calls; a role other than "assistant" is refused), with an
// optional "tokens" {input, output, cache_creation, cache_read}; or
// {"error": "why"} when the call failed. `at` prefixes messages ("llm[2]").
// Throws AgentJsonError for a malformed message.
LlmResponse llm_response_from_json(const HostValue& answer, const std::string& at);

// One telemetry event: {"event", "turn"}, for tool calls the tool's name,
// layer, cache facts and error flag, and "reason" when there is one.
HostValue agent_event_json(const AgentEvent& e);

// The outcome: {"ok", "return" (the answer; null when failed), "fail" (null,
// or {"reason", "message"}), "messages" (OpenAI format, the system prompt
// first), "turns" (how many), "turn_records" ([{number, type, program,
// result, prints, tool_calls, success}]), "memory", "fallback_used",
// "native_tool_calls", "tokens" ({input, output, cache_creation,
// cache_read})} plus `extra` fields. A value with no JSON form (a function)
// is given as its printed form.
HostValue agent_result_json(const AgentResult& r,
                            std::vector<std::pair<HostValue, HostValue>> extra = {});

}  // namespace ptc::protocol
