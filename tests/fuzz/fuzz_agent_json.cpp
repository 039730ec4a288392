// What the agent loop reads of a model's answers (untrusted: an LLM's
// message, through a host or `ptc agent --script`): the input as the text of
// a content-mode reply (protocol/agent/content_turn.hpp: the program found in it,
// the reply as kept), and, when it is JSON, as an answer and as a host's
// agent options (protocol/agent/agent_json.hpp). Properties: a program found is
// not empty; a JSON value that does not fit is refused with AgentJsonError
// (or std::invalid_argument from the Agent it configures), never another
// exception or a crash; a tool call's arguments are an object (with no
// args_error), none, or args_error says why not.
#include <stdexcept>
#include <string>

#include "include/ptc/ptc.hpp"
#include "protocol/agent/agent.hpp"
#include "protocol/agent/agent_json.hpp"
#include "protocol/agent/content_turn.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;
namespace protocol = ptc::protocol;

void read_as_answer(const HostValue& value) {
  protocol::LlmResponse response;
  try {
    response = protocol::llm_response_from_json(value, "llm[1]");
  } catch (const protocol::AgentJsonError& e) {
    ptc::fuzz::debug("answer refused", e.what());
    return;
  }
  for (const auto& call : response.tool_calls) {
    // An object is taken as it is; anything else but "none" says why not.
    bool is_map = call.args.kind() == HostValue::Kind::Map;
    PTC_FUZZ_CHECK(
        is_map ? call.args_error.empty() : call.args.is_nil() || !call.args_error.empty(),
        call.raw_arguments + " / " + call.args_error);
  }
}

void read_as_options(const HostValue& value) {
  protocol::AgentOptions options;
  auto function = [](const std::string&, const HostValue&, const std::string&) {
    return ptc::Tool{[](const HostValue&) { return ptc::ToolResult::success(HostValue()); }, false};
  };
  try {
    protocol::read_agent_options(value, "agent", function, options);
  } catch (const protocol::AgentJsonError& e) {
    ptc::fuzz::debug("options refused", e.what());
    return;
  }
  options.program.limits = ptc::fuzz::tight_limits();
  try {
    protocol::Agent agent(std::move(options),
                          [](const protocol::LlmRequest&) { return protocol::LlmResponse{}; });
    (void)agent.system_prompt();
    (void)agent.request_tools();
  } catch (const std::invalid_argument& e) {
    ptc::fuzz::debug("agent refused", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return -1;
  std::string_view text = ptc::fuzz::as_text(data, size);
  protocol::ContentProgram found = protocol::extract_content_program(text);
  if (found.kind == protocol::ContentProgram::Kind::Program)
    PTC_FUZZ_CHECK(!found.source.empty(), text);
  (void)protocol::strip_to_program(text);
  HostValue value;
  try {
    value = ptc::parse_json(text);
  } catch (const ptc::LispError&) {
    return 0;  // the JSON parser has its own target
  }
  read_as_answer(value);
  read_as_options(value);
  return 0;
}
