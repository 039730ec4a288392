// Anthropic Messages (POST /v1/messages): the agent loop's LlmRequest (in
// the OpenAI chat shape) as a Messages request body, and a reply back as a
// WireAnswer. Pure functions over text; a reply is untrusted input.
#pragma once

#include <string>
#include <string_view>

#include "protocol/agent/messages.hpp"
#include "protocol/agent/model/wire.hpp"

namespace ptc::model {

// The request as JSON text, the same bytes for the same request (object keys
// sorted): "model", "max_tokens", "system" (the system prompt, then the text
// of any system messages; left out when empty), "temperature" when given
// (there is no seed), "tools" as {name, description, input_schema} (left
// out when none), and "messages" alternating user and assistant: assistant
// text as a text block, its tool calls as tool_use blocks {id, name, input};
// tool messages as tool_result blocks {tool_use_id, content} at the start of
// the user message that follows, merged with the tool results and user text
// around them into one user message. Empty text is never sent.
std::string anthropic_request_body(const protocol::LlmRequest& request, const WireParams& params);

// A 200 reply: text blocks (joined with "\n") as the content, tool_use
// blocks as tool calls (input as the arguments, raw_arguments its JSON),
// other blocks (thinking, redacted_thinking, server tools') left out;
// stop_reason; usage. MalformedResponse says what and where ("content[1].
// name: expected a string, got nothing"); a body {"type":"error",...} is
// classified as anthropic_parse_error classifies it.
WireAnswer anthropic_parse_answer(std::string_view body);

// Any other status: which Failure by error.type (by status, as
// openai_parse_error, when the type is absent or unknown), and the message
// (error.message, else the body's first 300 bytes). Never None.
WireAnswer anthropic_parse_error(int status, std::string_view body);

}  // namespace ptc::model
