// What a model in combined mode is told about PTC-Lisp: a compact reference
// card (forms, the functions that matter most, context access, cache reuse,
// one example), and the inventory of app tools its programs may call. The
// card's function lists come from the builtin table, so it never names a
// function that does not exist.
#pragma once

#include <string>
#include <vector>

#include "protocol/lisp_eval/exposure.hpp"

namespace ptc::protocol {

// <ptc_lisp_reference> ... </ptc_lisp_reference>; at most 2200 bytes.
std::string compact_reference_card();

// <ptc_tools> with one line per program-callable tool, sorted by name:
// - `(tool/NAME {...})` — `SIGNATURE` — DESCRIPTION (empty parts left out);
// "" when no tool is program-callable.
std::string program_tool_inventory(const std::vector<AgentTool>& tools, OutputMode mode);

}  // namespace ptc::protocol
