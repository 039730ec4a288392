// Tools from a replay table, for the CLI and batch files:
//   {"get-user": [{"args": {"id": 7}, "result": {...}}, ...], ...}
// A call whose string-keyed arguments equal an entry's "args" (maps in any
// order, 2.0 equal to 2) returns that entry's "result"; any other call is a
// tool error the program sees.
#pragma once

#include <string>

#include "include/ptc/ptc.hpp"

namespace ptc::cli {

// Returns an error message (and leaves `out` alone) when the table is malformed.
std::string replay_tools(const HostValue& table, Tools& out);

// What a tool gives back for a result recorded as JSON (an entry's "result",
// an answer's "value" in ptc resume's RESULTS.json): one conversion, so that
// a replayed call and a host's answer to a deferred one agree.
ToolResult recorded_result(const HostValue& result);

}  // namespace ptc::cli
