// The mapping follows the types of the official `openai` npm package (6.x,
// resources/chat/completions/completions.d.ts: ChatCompletionCreateParams,
// ChatCompletion, ChatCompletionMessage, ChatCompletionMessageFunctionToolCall,
// CompletionUsage; core/error.d.ts: the {"error": {message, type, param,
// code}} body), widened where compatible servers differ from OpenAI: content
// as an array of parts, arguments as an object, an integer error code
// (llama.cpp, vLLM), an error as a string (Ollama), a top-level error object
// (older vLLM), FastAPI's {"detail"}.
#include "protocol/agent/model/openai_wire.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "protocol/agent/model/wire_json.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"
#include "runtime/host_value.hpp"
#include "runtime/strings.hpp"

namespace ptc::model {

namespace {

using protocol::ChatMessage;
using protocol::LlmRequest;
using protocol::TokenCounts;
using protocol::ToolCallRequest;

using host::str;
using wire_json::is_absent;
using wire_json::is_string;

using wire_json::failed;
using wire_json::Malformed;
using wire_json::malformed;

// The start of a body for a person to read: its first `limit` bytes (a
// character that would cross the limit left out), invalid UTF-8 replaced by
// U+FFFD, as the message goes on into JSON; no surrounding whitespace.
std::string body_head(std::string_view body, size_t limit) {
  const std::string_view space = " \t\r\n";
  size_t start = body.find_first_not_of(space);
  if (start == std::string_view::npos) return "";
  body.remove_prefix(start);
  std::string head;
  size_t pos = 0;
  while (pos < body.size()) {
    int32_t code_point = 0;
    size_t length = decode_utf8(body, pos, &code_point);
    size_t step = length == 0 ? 1 : length;
    if (pos + step > limit) break;
    head.append(length == 0 ? std::string_view("\xEF\xBF\xBD") : body.substr(pos, length));
    pos += step;
  }
  head.erase(head.find_last_not_of(space) + 1);
  return head;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c);
  });
  return out;
}

bool contains_any(std::string_view text, std::span<const std::string_view> phrases) {
  std::string lowered = lowercase(text);
  return std::any_of(phrases.begin(), phrases.end(),
                     [&](std::string_view p) { return lowered.find(p) != std::string::npos; });
}

// What an error body says, in the shapes servers send it.
struct ProviderError {
  std::string message;
  std::string code;     // a string code, or an integer one in decimal
  int code_status = 0;  // the code when it is an HTTP status (llama.cpp, vLLM, OpenRouter)
  std::string type;
};

void read_error_fields(const HostValue& e, ProviderError& out) {
  if (const HostValue* m = e.get("message"); is_string(m))
    out.message = m->text();
  else if (const HostValue* d = e.get("detail"); is_string(d))
    out.message = d->text();
  if (const HostValue* t = e.get("type"); is_string(t)) out.type = t->text();
  if (const HostValue* c = e.get("code")) {
    if (is_string(c)) {
      out.code = c->text();
    } else if (c->kind() == HostValue::Kind::Int) {
      out.code = std::to_string(c->as_int());
      if (c->as_int() >= 100 && c->as_int() <= 599) out.code_status = static_cast<int>(c->as_int());
    }
  }
}

ProviderError read_provider_error(std::string_view body, bool unwrap = true) {
  ProviderError out;
  HostValue json;
  try {
    json = parse_json(body);
  } catch (const LispError&) {
    return out;
  }
  if (json.kind() != HostValue::Kind::Map) return out;
  const HostValue* error = json.get("error");
  if (error && error->kind() == HostValue::Kind::Map) {
    read_error_fields(*error, out);
  } else if (is_string(error)) {
    out.message = error->text();
    // Ollama passes llama.cpp's error body on as the text of its own.
    if (unwrap) {
      ProviderError inner = read_provider_error(error->text(), false);
      if (!inner.message.empty()) return inner;
    }
  } else {
    read_error_fields(json, out);  // older vLLM: {"object":"error","message",...}
  }
  return out;
}

constexpr std::string_view kOutOfCreditPhrases[] = {"insufficient_quota", "billing_error"};
constexpr std::string_view kRateLimitedPhrases[] = {"rate_limit", "rate limit"};
constexpr std::string_view kAuthFailedPhrases[] = {"authentication", "invalid_api_key",
                                                   "permission"};
constexpr std::string_view kBadRequestPhrases[] = {"invalid_request"};

Failure classify(int status, const ProviderError& e) {
  std::string words = e.message + " " + e.code + " " + e.type;
  if (status == 401 || status == 402 || status == 403) return Failure::AuthFailed;
  // Out of credit: no pause makes the next call succeed; a person must act,
  // as for a bad key.
  if (contains_any(words, kOutOfCreditPhrases)) return Failure::AuthFailed;
  if (status == 429) return Failure::RateLimited;
  if (status == 408) return Failure::Timeout;
  // llama.cpp answers "tools param requires --jinja flag" with a 500.
  bool read_wording = status < 300 || (status >= 400 && status <= 500);
  if (read_wording && says_context_too_long(words)) return Failure::ContextTooLong;
  if (read_wording && says_tools_unsupported(words)) return Failure::ToolCallingUnsupported;
  if (status == 413) return Failure::ContextTooLong;
  if (status >= 500 || (status > 0 && status < 200)) return Failure::ServerError;
  if (status >= 300) return Failure::BadRequest;
  // An error in a success status (OpenRouter passes an upstream's error on
  // this way): its code, when an HTTP status, else its type says which.
  if (e.code_status >= 300) return classify(e.code_status, e);
  if (contains_any(words, kRateLimitedPhrases)) return Failure::RateLimited;
  if (contains_any(words, kAuthFailedPhrases)) return Failure::AuthFailed;
  if (contains_any(words, kBadRequestPhrases)) return Failure::BadRequest;
  return Failure::ServerError;
}

int64_t token_count(const HostValue& usage, std::string_view key, const std::string& at) {
  const HostValue* v = usage.get(key);
  if (is_absent(v)) return 0;
  if (v->kind() == HostValue::Kind::Int && v->as_int() >= 0) return v->as_int();
  if (v->kind() == HostValue::Kind::Float && v->as_float() >= 0 && v->as_float() < 9e15 &&
      std::floor(v->as_float()) == v->as_float())
    return static_cast<int64_t>(v->as_float());
  malformed(fmt::format("{}.{}", at, key), "a token count", v);
}

TokenCounts read_usage(const HostValue& usage) {
  TokenCounts t;
  t.input = token_count(usage, "prompt_tokens", "usage");
  t.output = token_count(usage, "completion_tokens", "usage");
  const HostValue* details = usage.get("prompt_tokens_details");
  if (!is_absent(details)) {
    if (details->kind() != HostValue::Kind::Map)
      malformed("usage.prompt_tokens_details", "an object or null", details);
    t.cache_read = token_count(*details, "cached_tokens", "usage.prompt_tokens_details");
    t.cache_creation = token_count(*details, "cache_write_tokens", "usage.prompt_tokens_details");
  }
  // DeepSeek counts its cache hits at the top level.
  if (t.cache_read == 0) t.cache_read = token_count(usage, "prompt_cache_hit_tokens", "usage");
  return t;
}

// content as a string, null, or an array of parts (text parts joined; a
// refusal part kept apart; other parts, e.g. thinking, left out).
std::optional<std::string> read_content(const HostValue* content, const std::string& at,
                                        std::string& refusal) {
  if (is_absent(content)) return std::nullopt;
  if (is_string(content)) return content->text();
  if (content->kind() != HostValue::Kind::Vector)
    malformed(at, "a string, an array of parts or null", content);
  std::optional<std::string> text;
  for (size_t i = 0; i < content->items().size(); ++i) {
    const HostValue& part = content->items()[i];
    std::string part_at = fmt::format("{}[{}]", at, i);
    if (part.kind() != HostValue::Kind::Map) malformed(part_at, "an object", &part);
    const HostValue* type = part.get("type");
    if (!is_string(type)) malformed(part_at + ".type", "a string", type);
    if (type->text() == "text") {
      const HostValue* t = part.get("text");
      if (!is_string(t)) malformed(part_at + ".text", "a string", t);
      text = text.value_or("") + t->text();
    } else if (type->text() == "refusal") {
      const HostValue* r = part.get("refusal");
      if (!is_string(r)) malformed(part_at + ".refusal", "a string", r);
      refusal += r->text();
    }
  }
  return text;
}

std::vector<ToolCallRequest> read_tool_calls(const HostValue& calls, const std::string& at) {
  ChatMessage m;
  std::string error;
  if (!protocol::from_openai(HostValue::map({{str("tool_calls"), calls}}), &m, &error))
    throw Malformed{fmt::format("{}.{}", at, error)};
  for (size_t i = 0; i < m.tool_calls.size(); ++i) {
    if (m.tool_calls[i].name.empty())
      throw Malformed{fmt::format("{}.tool_calls[{}]: the function has an empty name", at, i)};
  }
  return std::move(m.tool_calls);
}

WireAnswer read_answer(const HostValue& json, std::string_view body) {
  if (json.kind() != HostValue::Kind::Map) malformed("body", "an object", &json);
  const HostValue* error = json.get("error");
  const HostValue* object = json.get("object");
  if (!is_absent(error) || (is_string(object) && object->text() == "error"))
    return openai_parse_error(200, body);
  const HostValue* choices = json.get("choices");
  if (!choices || choices->kind() != HostValue::Kind::Vector)
    malformed("choices", "an array", choices);
  if (choices->items().empty()) throw Malformed{"choices: expected one choice, got an empty array"};
  const HostValue& choice = choices->items()[0];
  if (choice.kind() != HostValue::Kind::Map) malformed("choices[0]", "an object", &choice);
  const HostValue* message = choice.get("message");
  if (!message || message->kind() != HostValue::Kind::Map)
    malformed("choices[0].message", "an object", message);

  WireAnswer answer;
  std::string refusal;
  answer.response.content =
      read_content(message->get("content"), "choices[0].message.content", refusal);
  if (const HostValue* r = message->get("refusal"); !is_absent(r)) {
    if (!is_string(r)) malformed("choices[0].message.refusal", "a string or null", r);
    refusal += r->text();
  }
  // A refusal is what the model said when it said nothing else.
  if (!refusal.empty() && answer.response.content.value_or("").empty())
    answer.response.content = refusal;
  if (const HostValue* calls = message->get("tool_calls"); !is_absent(calls))
    answer.response.tool_calls = read_tool_calls(*calls, "choices[0].message");
  if (const HostValue* reason = choice.get("finish_reason"); !is_absent(reason)) {
    if (!is_string(reason)) malformed("choices[0].finish_reason", "a string or null", reason);
    answer.stop_reason = reason->text();
  }
  if (const HostValue* usage = json.get("usage"); !is_absent(usage)) {
    if (usage->kind() != HostValue::Kind::Map) malformed("usage", "an object or null", usage);
    answer.response.tokens = read_usage(*usage);
  }
  return answer;
}

}  // namespace

std::string openai_request_body(const LlmRequest& request, const WireParams& params) {
  std::vector<HostValue> messages;
  if (!request.system.empty())
    messages.push_back(
        HostValue::map({{str("role"), str("system")}, {str("content"), str(request.system)}}));
  for (const ChatMessage& m : request.messages)
    messages.push_back(protocol::to_openai(m));

  std::vector<std::pair<HostValue, HostValue>> fields;
  fields.emplace_back(str("model"), str(params.model));
  fields.emplace_back(str("messages"), HostValue::vector(std::move(messages)));
  fields.emplace_back(str(params.compat ? "max_tokens" : "max_completion_tokens"),
                      HostValue::integer(params.max_tokens));
  fields.emplace_back(str("stream"), HostValue::boolean(false));
  if (params.temperature)
    fields.emplace_back(str("temperature"), HostValue::floating(*params.temperature));
  if (params.seed) fields.emplace_back(str("seed"), HostValue::integer(*params.seed));
  if (!request.tools.empty()) {
    fields.emplace_back(str("tools"), HostValue::vector(request.tools));
    // Said outright: some servers (vLLM) ignore the tools without it, or
    // refuse it when they cannot call tools, which is better than silence.
    fields.emplace_back(str("tool_choice"), str("auto"));
  }
  return to_json(HostValue::map(std::move(fields)), true);
}

WireAnswer openai_parse_answer(std::string_view body) {
  HostValue json;
  try {
    json = parse_json(body);
  } catch (const LispError& e) {
    return failed(Failure::MalformedResponse,
                  fmt::format("body: expected JSON ({}), got: {}", e.error().describe(),
                              body_head(body, 300)));
  }
  try {
    return read_answer(json, body);
  } catch (const Malformed& m) {
    return failed(Failure::MalformedResponse, m.message);
  }
}

WireAnswer openai_parse_error(int status, std::string_view body) {
  ProviderError e = read_provider_error(body);
  // Not JSON (a proxy's HTML page, plain text): its start is the message,
  // and its wording is read as an error message's would be.
  if (e.message.empty()) e.message = body_head(body, 300);
  Failure failure = classify(status, e);
  if (e.message.empty()) e.message = fmt::format("HTTP status {} with an empty body", status);
  return failed(failure, std::move(e.message));
}

// Who says it so: OpenAI ("This model's maximum context length is ...",
// code context_length_exceeded, "exceeds the context window"), vLLM ("...
// maximum context length is ...", "... longer than the maximum model
// length"), llama.cpp and Ollama through it ("request (N tokens) exceeds the
// available context size", type exceed_context_size_error), Ollama ("the
// input length exceeds the context length"), Anthropic ("prompt is too
// long", "input length and `max_tokens` exceed context limit").
constexpr std::string_view kContextTooLongPhrases[] = {
    "context_length_exceeded",
    "maximum context",
    "context window",
    "exceeds the available context size",
    "exceed_context_size",
    "exceeds the context length",
    "context length exceeded",
    "maximum model length",
    "reduce the length of the messages",
    "prompt is too long",
    "exceed context limit",
    "input is too long",
    "too many tokens",
};

// Ollama ("<model> does not support tools"), OpenAI ("Unsupported parameter:
// 'tools' is not supported with this model."), llama.cpp without --jinja
// ("tools param requires --jinja flag", "Unsupported param: tool_choice"),
// vLLM without --enable-auto-tool-choice ("\"auto\" tool choice requires
// ..."), OpenRouter ("No endpoints found that support tool use"). The request
// sends tool_choice only as "auto", so a complaint about it is one about
// calling tools at all.
constexpr std::string_view kToolsUnsupportedPhrases[] = {
    "does not support tool",
    "doesn't support tool",
    "tools is not supported",
    "'tools' is not supported",
    "tools are not supported",
    "tools not supported",
    "tool use is not supported",
    "tool calling is not supported",
    "function calling is not supported",
    "does not support function calling",
    "tools param requires",
    "tool_choice",
    "tool choice",
    "support tool use",
};

bool says_context_too_long(std::string_view text) {
  return contains_any(text, kContextTooLongPhrases);
}

bool says_tools_unsupported(std::string_view text) {
  return contains_any(text, kToolsUnsupportedPhrases);
}

}  // namespace ptc::model
