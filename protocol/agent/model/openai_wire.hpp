// OpenAI Chat Completions (POST /chat/completions), as OpenAI serves it and
// as the OpenAI-compatible servers speak it (llama.cpp's server, vLLM,
// Ollama's /v1, OpenRouter, Groq, DeepSeek): the agent loop's LlmRequest as
// a request body, and a reply back as a WireAnswer. Pure functions over
// text; a reply is untrusted input and is never trusted to have the shape.
#pragma once

#include <string>
#include <string_view>

#include "protocol/agent/messages.hpp"
#include "protocol/agent/model/wire.hpp"

namespace ptc::model {

// The request as JSON text, the same bytes for the same request (object keys
// sorted): the system prompt as a first "system" message (left out when
// empty), the messages in the OpenAI shape (protocol::to_openai), "tools"
// with "tool_choice":"auto" when there are tools (neither otherwise),
// "model", "max_completion_tokens" ("max_tokens" when params.compat),
// "temperature" and "seed" when given, "stream": false.
std::string openai_request_body(const protocol::LlmRequest& request, const WireParams& params);

// A 200 reply: choices[0].message (content as a string, an array of text
// parts, or null; refusal taken as the content when there is none;
// tool_calls with arguments as JSON text or an object), finish_reason, usage.
// MalformedResponse says what and where ("choices[0].message.tool_calls[1].
// function.name: expected a string, got a number"); a body that is an error
// object ({"error": ...}) is classified as openai_parse_error classifies it.
WireAnswer openai_parse_answer(std::string_view body);

// Any other status: which Failure, and the provider's message (error.message
// when the body is JSON, else the body's first 300 bytes). Never None.
WireAnswer openai_parse_error(int status, std::string_view body);

// How servers word "the conversation does not fit the context window" and
// "this model/server takes no tools" (case-insensitive phrases of OpenAI,
// llama.cpp, Ollama, vLLM, OpenRouter and Anthropic); anthropic_wire.cpp
// reads its invalid_request_error messages with them too.
bool says_context_too_long(std::string_view text);
bool says_tools_unsupported(std::string_view text);

}  // namespace ptc::model
