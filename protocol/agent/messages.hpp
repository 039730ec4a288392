// Chat messages between an agent and its model, in the shape of the OpenAI
// chat format that most providers speak: roles system, user, assistant and
// tool; an assistant message may carry native tool calls, each answered by
// one tool message with its id.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace ptc::protocol {

// One native tool call the model made.
struct ToolCallRequest {
  std::string id;    // as sent; the agent gives calls without one an id of its own
  std::string name;  // the tool's native name
  HostValue args;    // the decoded arguments (normally a map); nil when absent
  // Set when the arguments could not be used: the text did not decode as
  // JSON, or decoded to something that is not an object.
  std::string args_error;
  std::string raw_arguments;  // the arguments text as sent, when it was text
};

struct ChatMessage {
  std::string role;                         // "system", "user", "assistant" or "tool"
  std::optional<std::string> content;       // an assistant message with tool calls may have none
  std::vector<ToolCallRequest> tool_calls;  // assistant only
  std::string tool_call_id;                 // tool only
};

// {"role":...,"content":...,"tool_calls":[{"id":...,"type":"function",
// "function":{"name":...,"arguments":"<JSON text>"}}],"tool_call_id":...}
// (fields that do not apply left out).
HostValue to_openai(const ChatMessage& m);

// Reads an assistant message in that format (content may be a string, null
// or absent; function.arguments a JSON string or an object). Returns false
// with *error saying what and where ("tool_calls[1].function.name: expected
// a string") when the message itself is malformed; a call whose arguments
// do not decode is kept, with args_error set.
bool from_openai(const HostValue& json, ChatMessage* out, std::string* error);

struct TokenCounts {
  int64_t input = 0;
  int64_t output = 0;
  int64_t cache_creation = 0;
  int64_t cache_read = 0;
};

// What the agent asks its model for one turn.
struct LlmRequest {
  std::string system;                 // the system prompt
  std::vector<ChatMessage> messages;  // the conversation so far
  std::vector<HostValue> tools;       // OpenAI-format function schemas offered natively
  int turn = 1;                       // 1-based
  std::string output;                 // "ptc_lisp" or "text"
};

// The model's answer: an assistant message, or an error.
struct LlmResponse {
  bool ok = true;
  std::optional<std::string> content;
  std::vector<ToolCallRequest> tool_calls;
  std::optional<TokenCounts> tokens;
  std::string error;  // when !ok: why the call failed
  // When !ok and a model client knows: which of its failures
  // (model::failure_name: "rate_limited", "timeout", ...) and whether trying
  // again later may work.
  std::string error_kind;
  bool retryable = false;

  static LlmResponse failure(std::string why) {
    LlmResponse r;
    r.ok = false;
    r.error = std::move(why);
    return r;
  }
};

// The host's model: never called by ptc itself otherwise. May throw; the
// agent turns a throw into an llm_error.
using LlmCallable = std::function<LlmResponse(const LlmRequest&)>;

}  // namespace ptc::protocol
