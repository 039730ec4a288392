// The events of a text/event-stream body (Server-Sent Events), as MCP
// servers and model providers stream them. The text comes from the server:
// untrusted (tests/fuzz/fuzz_upstream.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptc::net {

// The data of each event, in order: its "data:" lines joined by '\n' (one
// space after the colon dropped); other fields are ignored; a last event
// without its blank line still counts.
std::vector<std::string> sse_event_data(std::string_view body);

}  // namespace ptc::net
