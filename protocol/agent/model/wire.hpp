// What the model providers' wire formats share: the closed set of ways a
// model call fails, the parameters of a request, and one decoded answer.
// Each format (openai_wire.hpp, anthropic_wire.hpp) maps the agent loop's
// LlmRequest to a request body and a provider's reply back, as pure
// functions over text: the reply is untrusted input
// (tests/fuzz/fuzz_model_response.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/agent/messages.hpp"

namespace ptc::model {

// Why a model call failed. Closed: hosts and the agent result name them.
enum class Failure {
  None,
  Timeout,                 // no whole answer in time (connect, or the request's timeout)
  RateLimited,             // 429, or the provider says so in its error
  AuthFailed,              // 401/403: the key is missing, wrong or not allowed
  BadRequest,              // 400/404/422 that is none of the below: the request is wrong
  ContextTooLong,          // the conversation does not fit the model's context window
  ServerError,             // 5xx, 529 (overloaded), a dropped connection, no connection
  MalformedResponse,       // a 200 whose body is not the format's answer
  ToolCallingUnsupported,  // the model or server does not take tools
  ReplayMiss,              // --replay: the recording holds no answer to this request
};

// "timeout", "rate_limited", ... ("" for None).
std::string_view failure_name(Failure f);
// Worth trying again after a pause: Timeout, RateLimited, ServerError.
bool failure_retryable(Failure f);

struct WireParams {
  std::string model;                  // as the provider names it ("gpt-4.1-mini")
  std::optional<double> temperature;  // left out when not given
  int64_t max_tokens = 4096;
  std::optional<int64_t> seed;  // OpenAI formats only (Anthropic has none; it is left out)
  // openai: true for openai-compat servers (llama.cpp, vLLM, Ollama, ...),
  // which take "max_tokens"; OpenAI itself takes "max_completion_tokens".
  bool compat = false;
};

// A provider's reply, decoded.
struct WireAnswer {
  Failure failure = Failure::None;
  std::string message;             // when failed: what the provider said, for a person
  protocol::LlmResponse response;  // when not failed: content, tool calls, tokens
  // The provider's own stop reason as sent ("stop", "tool_calls", "length",
  // "end_turn", "tool_use", "max_tokens", ...), "" when absent.
  std::string stop_reason;
};

}  // namespace ptc::model
