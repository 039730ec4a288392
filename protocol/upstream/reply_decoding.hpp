// What an upstream's replies carry, decoded from text the upstream controls
// (untrusted: tests/fuzz/fuzz_upstream.cpp): the events of an SSE body, and
// the payload of a tools/call result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/host_value.hpp"

namespace ptc::upstream {

// An HTTP/1.1 response as far as it has arrived.
struct HttpReply {
  bool head_complete = false;  // the status line and headers are all here
  bool is_http = false;        // the status line starts with "HTTP/"
  int status = 0;
  std::string content_type;  // lower case
  std::string session;       // Mcp-Session-Id
  bool chunked = false;
  std::optional<size_t> content_length;
  bool event_stream = false;
  // The body is whole: Content-Length bytes, the last chunk, or (an SSE
  // stream, which may stay open) an event answering the request's id.
  bool complete = false;
  std::string body;  // decoded: the complete chunks so far; at most Content-Length bytes
  // The connection may carry another request: HTTP/1.1 without
  // "Connection: close" (or HTTP/1.0 with keep-alive).
  bool keep_alive = false;
  // Bytes of the whole response when it is complete and framed (by its
  // Content-Length, or chunks up to the final blank line); 0 otherwise.
  size_t length = 0;
};

// Reads the bytes of a response received so far. `expect_id` is the JSON-RPC
// id an SSE stream must answer (-1: none). Never throws.
HttpReply parse_http_reply(std::string_view bytes, int64_t expect_id);

// The data of each event of a text/event-stream body, in order: its "data:"
// lines joined by '\n' (one space after the colon dropped); other fields are
// ignored; a last event without its blank line still counts.
std::vector<std::string> sse_event_data(std::string_view body);

// The payload of a tools/call result: structuredContent, else the one text
// content parsed as JSON when it is an object or array, else the texts joined
// by '\n'; nil when there is none. `text_out` (when set) gets the joined texts.
HostValue tool_payload(const HostValue& result, std::string* text_out);

}  // namespace ptc::upstream
