// What an upstream's tools/call results carry, decoded from text the
// upstream controls (untrusted: tests/fuzz/fuzz_upstream.cpp). The HTTP
// framing and the events of an SSE body are protocol/net's.
#pragma once

#include <string>

#include "include/ptc/host_value.hpp"
#include "protocol/net/http_reply.hpp"
#include "protocol/net/sse_events.hpp"

namespace ptc::upstream {

// Their names from before protocol/net owned them (tests/regressions uses them).
using net::HttpReply;
using net::parse_http_reply;
using net::sse_event_data;

// The payload of a tools/call result: structuredContent, else the one text
// content parsed as JSON when it is an object or array, else the texts joined
// by '\n'; nil when there is none. `text_out` (when set) gets the joined texts.
HostValue tool_payload(const HostValue& result, std::string* text_out);

}  // namespace ptc::upstream
