// What an upstream's replies carry, decoded from text the upstream controls
// (untrusted: tests/fuzz/fuzz_upstream.cpp): the events of an SSE body, and
// the payload of a tools/call result.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/host_value.hpp"

namespace ptc::upstream {

// The data of each event of a text/event-stream body, in order: its "data:"
// lines joined by '\n' (one space after the colon dropped); other fields are
// ignored; a last event without its blank line still counts.
std::vector<std::string> sse_event_data(std::string_view body);

// The payload of a tools/call result: structuredContent, else the one text
// content parsed as JSON when it is an object or array, else the texts joined
// by '\n'; nil when there is none. `text_out` (when set) gets the joined texts.
HostValue tool_payload(const HostValue& result, std::string* text_out);

}  // namespace ptc::upstream
