// What a tools/call answers: an MCP CallToolResult ({"content": [{"type":
// "text", "text": ...}], "isError": bool[, "structuredContent": {...}]}),
// shaped by the response profile and held to its output caps:
//   slim (default)  text only: the result preview (after prints), or
//                   "<reason>: <message>\n<feedback>"; caps 20 prints / 8 KiB,
//                   feedback 8 KiB, whole result 32 KiB
//   structured      the text plus a compact structuredContent; caps 50 / 16 KiB,
//                   16 KiB, validated kept up to 32 KiB, whole 96 KiB
//   debug           the whole payload as structuredContent and as its JSON
//                   text, with the run's usage (heap, collections, time);
//                   caps 200 / 64 KiB, 64 KiB, 128 KiB, whole 512 KiB
#pragma once

#include <string_view>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/config.hpp"

namespace ptc::mcp {

// From a lisp_eval payload (the map of protocol/lisp_eval/tool.hpp's renderers:
// status, result, prints, feedback, truncated, validated | reason, message,
// feedback, result). isError is status != "ok". The debug profile adds
// `usage` (ptc::usage_value) when the run's is given.
HostValue payload_result(const HostValue& payload, ResponseProfile profile,
                         const Usage* usage = nullptr);

// A tool-level error of the server itself (busy, cancelled, shutting_down,
// unknown_tool, args_error, session errors): {status: "error", reason,
// message, feedback} as structuredContent and as its JSON text, in every
// profile.
HostValue error_result(std::string_view reason, std::string_view message,
                       std::string_view feedback);

// A structured answer of a utility tool (the session tools): structuredContent
// and its JSON text; isError as given.
HostValue structured_result(const HostValue& structured, bool is_error = false);

}  // namespace ptc::mcp
