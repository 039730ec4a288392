// The answers ptc resume gives to pending calls, read from RESULTS.json:
//   {"<call id>": {"value": JSON} | {"error": "message"}, ...}
// A value is what the tool returned (converted as a replay table's "result"
// is); an error is the tool's failure, which the program sees as tool_error.
#pragma once

#include <map>
#include <string>

#include "include/ptc/ptc.hpp"

namespace ptc::cli {

using ToolAnswers = Answers;

// An error message naming the file and what is wrong with it, or "" (and
// `out` filled).
std::string load_tool_answers(const std::string& path, ToolAnswers& out);

}  // namespace ptc::cli
