// The mapping follows the types of the official `@anthropic-ai/sdk` npm
// package (src/resources/messages/messages.ts: MessageCreateParams,
// MessageParam, TextBlockParam, ToolUseBlockParam, ToolResultBlockParam,
// Tool, Message, ContentBlock, ToolUseBlock, StopReason, Usage;
// src/resources/shared.ts: ErrorResponse {"type":"error","error":{type,
// message}} and the ErrorType union), and Anthropic's rule that a user
// message answering tool_use blocks starts with their tool_result blocks.
#include "protocol/agent/model/anthropic_wire.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "protocol/agent/model/openai_wire.hpp"
#include "protocol/agent/model/wire_json.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"
#include "runtime/host_value.hpp"

namespace ptc::model {

namespace {

using protocol::ChatMessage;
using protocol::LlmRequest;
using protocol::TokenCounts;
using protocol::ToolCallRequest;

using host::str;
using wire_json::is_absent;
using wire_json::is_string;

// ------------------------------------------------------------------ request

// One message of the request being built: tool results first, as the API
// wants them, then the other blocks in order.
struct Turn {
  std::string role;
  std::vector<HostValue> tool_results;
  std::vector<HostValue> blocks;
};

// Consecutive blocks of one role share a message: the API takes only
// alternating roles.
void add_block(std::vector<Turn>& turns, std::string_view role, HostValue block,
               bool is_tool_result = false) {
  if (turns.empty() || turns.back().role != role) turns.push_back(Turn{std::string(role), {}, {}});
  (is_tool_result ? turns.back().tool_results : turns.back().blocks).push_back(std::move(block));
}

HostValue text_block(const std::string& text) {
  return HostValue::map({{str("type"), str("text")}, {str("text"), str(text)}});
}

HostValue tool_use_block(const ToolCallRequest& call) {
  // The API takes only an object as input; arguments that were not one were
  // answered with an error the conversation already holds.
  HostValue input = call.args.kind() == HostValue::Kind::Map ? call.args : HostValue::map({});
  return HostValue::map({{str("type"), str("tool_use")},
                         {str("id"), str(call.id)},
                         {str("name"), str(call.name)},
                         {str("input"), std::move(input)}});
}

// ChatMessage has no error flag, so is_error is never sent: a failed tool's
// result says so in its own text.
HostValue tool_result_block(const ChatMessage& m) {
  std::vector<std::pair<HostValue, HostValue>> fields;
  fields.emplace_back(str("type"), str("tool_result"));
  fields.emplace_back(str("tool_use_id"), str(m.tool_call_id));
  if (m.content && !m.content->empty()) fields.emplace_back(str("content"), str(*m.content));
  return HostValue::map(std::move(fields));
}

// {name, description, input_schema} from an OpenAI function schema
// {"type":"function","function":{name, description, parameters}} (or the
// function object itself).
HostValue anthropic_tool(const HostValue& tool) {
  const HostValue* function = tool.get("function");
  const HostValue& f = function && function->kind() == HostValue::Kind::Map ? *function : tool;
  std::vector<std::pair<HostValue, HostValue>> fields;
  const HostValue* name = f.get("name");
  fields.emplace_back(str("name"), is_string(name) ? *name : str(""));
  if (const HostValue* d = f.get("description"); is_string(d) && !d->text().empty())
    fields.emplace_back(str("description"), *d);
  const HostValue* parameters = f.get("parameters");
  fields.emplace_back(str("input_schema"),
                      parameters && parameters->kind() == HostValue::Kind::Map
                          ? *parameters
                          : HostValue::map({{str("type"), str("object")},
                                            {str("properties"), HostValue::map({})}}));
  return HostValue::map(std::move(fields));
}

// ------------------------------------------------------------------- answer

using wire_json::failed;
using wire_json::Malformed;
using wire_json::malformed;

const std::string& required_string(const HostValue& object, std::string_view key,
                                   const std::string& at) {
  const HostValue* v = object.get(key);
  if (!is_string(v)) malformed(fmt::format("{}.{}", at, key), "a string", v);
  return v->text();
}

int64_t token_count(const HostValue& usage, std::string_view key) {
  const HostValue* v = usage.get(key);
  if (is_absent(v)) return 0;
  if (v->kind() == HostValue::Kind::Int && v->as_int() >= 0) return v->as_int();
  if (v->kind() == HostValue::Kind::Float && v->as_float() >= 0 && v->as_float() < 9e15 &&
      std::floor(v->as_float()) == v->as_float())
    return static_cast<int64_t>(v->as_float());
  malformed(fmt::format("usage.{}", key), "a token count", v);
}

ToolCallRequest read_tool_use(const HostValue& block, const std::string& at) {
  ToolCallRequest call;
  call.id = required_string(block, "id", at);
  call.name = required_string(block, "name", at);
  if (call.name.empty())
    throw Malformed{fmt::format("{}.name: expected a tool's name, got \"\"", at)};
  const HostValue* input = block.get("input");
  if (is_absent(input)) return call;  // no arguments: nil, as from_openai reads them
  call.args = *input;
  try {
    call.raw_arguments = to_json(*input);
  } catch (const LispError&) {
    // Parsed JSON always writes back; kept total for safety.
  }
  if (input->kind() != HostValue::Kind::Map)
    call.args_error =
        fmt::format("the arguments must be a JSON object, got {}", json_kind_name(input->kind()));
  return call;
}

WireAnswer read_answer(const HostValue& json, std::string_view body) {
  if (json.kind() != HostValue::Kind::Map) malformed("body", "an object", &json);
  const HostValue* type = json.get("type");
  if ((is_string(type) && type->text() == "error") || !is_absent(json.get("error")))
    return anthropic_parse_error(200, body);
  if (is_string(type) && type->text() != "message")
    throw Malformed{fmt::format("type: expected \"message\", got \"{}\"", type->text())};
  if (!is_absent(type) && !is_string(type)) malformed("type", "\"message\"", type);
  const HostValue* content = json.get("content");
  if (!content || content->kind() != HostValue::Kind::Vector)
    malformed("content", "an array", content);

  WireAnswer answer;
  std::optional<std::string> text;
  for (size_t i = 0; i < content->items().size(); ++i) {
    const HostValue& block = content->items()[i];
    std::string at = fmt::format("content[{}]", i);
    if (block.kind() != HostValue::Kind::Map) malformed(at, "an object", &block);
    const std::string& block_type = required_string(block, "type", at);
    if (block_type == "text") {
      const std::string& t = required_string(block, "text", at);
      text = text ? *text + "\n" + t : t;
    } else if (block_type == "tool_use") {
      answer.response.tool_calls.push_back(read_tool_use(block, at));
    }
    // thinking, redacted_thinking and server tools' blocks are not the answer.
  }
  answer.response.content = std::move(text);
  if (const HostValue* reason = json.get("stop_reason"); !is_absent(reason)) {
    if (!is_string(reason)) malformed("stop_reason", "a string or null", reason);
    answer.stop_reason = reason->text();
  }
  if (const HostValue* usage = json.get("usage"); !is_absent(usage)) {
    if (usage->kind() != HostValue::Kind::Map) malformed("usage", "an object or null", usage);
    TokenCounts t;
    t.input = token_count(*usage, "input_tokens");
    t.output = token_count(*usage, "output_tokens");
    t.cache_read = token_count(*usage, "cache_read_input_tokens");
    t.cache_creation = token_count(*usage, "cache_creation_input_tokens");
    answer.response.tokens = t;
  }
  return answer;
}

// What error.type says, when it is one of the API's; nullopt otherwise.
std::optional<Failure> failure_of_type(std::string_view type, std::string_view message) {
  if (type == "authentication_error" || type == "permission_error") return Failure::AuthFailed;
  // Out of credit: no pause helps; a person must act, as for a bad key.
  if (type == "billing_error") return Failure::AuthFailed;
  if (type == "rate_limit_error") return Failure::RateLimited;
  if (type == "overloaded_error" || type == "api_error") return Failure::ServerError;
  if (type == "timeout_error") return Failure::Timeout;
  if (type == "request_too_large") return Failure::ContextTooLong;
  if (type == "not_found_error") return Failure::BadRequest;
  if (type == "invalid_request_error") {
    if (says_context_too_long(message)) return Failure::ContextTooLong;
    if (says_tools_unsupported(message)) return Failure::ToolCallingUnsupported;
    return Failure::BadRequest;
  }
  return std::nullopt;
}

}  // namespace

std::string anthropic_request_body(const LlmRequest& request, const WireParams& params) {
  std::string system = request.system;
  std::vector<Turn> turns;
  for (const ChatMessage& m : request.messages) {
    bool has_text = m.content && !m.content->empty();
    if (m.role == "system" || m.role == "developer") {
      // The API has no system role in its messages: its text joins the system prompt.
      if (has_text) system += (system.empty() ? "" : "\n\n") + *m.content;
    } else if (m.role == "assistant") {
      if (has_text) add_block(turns, "assistant", text_block(*m.content));
      for (const ToolCallRequest& call : m.tool_calls)
        add_block(turns, "assistant", tool_use_block(call));
    } else if (m.role == "tool") {
      add_block(turns, "user", tool_result_block(m), true);
    } else if (has_text) {
      add_block(turns, "user", text_block(*m.content));
    }
  }
  std::vector<HostValue> messages;
  for (Turn& t : turns) {
    std::vector<HostValue> content = std::move(t.tool_results);
    content.insert(content.end(), t.blocks.begin(), t.blocks.end());
    messages.push_back(HostValue::map(
        {{str("role"), str(t.role)}, {str("content"), HostValue::vector(std::move(content))}}));
  }

  std::vector<std::pair<HostValue, HostValue>> fields;
  fields.emplace_back(str("model"), str(params.model));
  fields.emplace_back(str("max_tokens"), HostValue::integer(params.max_tokens));
  fields.emplace_back(str("messages"), HostValue::vector(std::move(messages)));
  if (!system.empty()) fields.emplace_back(str("system"), str(system));
  if (params.temperature)
    fields.emplace_back(str("temperature"), HostValue::floating(*params.temperature));
  if (!request.tools.empty()) {
    std::vector<HostValue> tools;
    for (const HostValue& tool : request.tools)
      tools.push_back(anthropic_tool(tool));
    fields.emplace_back(str("tools"), HostValue::vector(std::move(tools)));
  }
  return to_json(HostValue::map(std::move(fields)), true);
}

WireAnswer anthropic_parse_answer(std::string_view body) {
  HostValue json;
  try {
    json = parse_json(body);
  } catch (const LispError& e) {
    // The same words and cut as an error body's, with the parser's reason.
    WireAnswer head = openai_parse_error(200, body);
    return failed(Failure::MalformedResponse, fmt::format("body: expected JSON ({}), got: {}",
                                                          e.error().describe(), head.message));
  }
  try {
    return read_answer(json, body);
  } catch (const Malformed& m) {
    return failed(Failure::MalformedResponse, m.message);
  }
}

WireAnswer anthropic_parse_error(int status, std::string_view body) {
  // The message, and the failure by status and wording, as for OpenAI's
  // shape (which Anthropic's error body also has: error.message).
  WireAnswer answer = openai_parse_error(status, body);
  std::string type;
  try {
    HostValue json = parse_json(body);
    const HostValue* error = json.kind() == HostValue::Kind::Map ? json.get("error") : nullptr;
    if (error && error->kind() == HostValue::Kind::Map && is_string(error->get("type")))
      type = error->get("type")->text();
  } catch (const LispError&) {
    // Not JSON: the status decides.
  }
  if (std::optional<Failure> f = failure_of_type(type, answer.message)) answer.failure = *f;
  return answer;
}

}  // namespace ptc::model
