// The native tool-call transport: what tools a request offers, and the
// four ways an assistant turn is handled when lisp_eval is the model's only
// native tool (output ptc_lisp):
//  - no tool calls: a direct final answer, read against the signature (a
//    fenced program in the text gets feedback telling the model to send it
//    through lisp_eval instead);
//  - exactly one lisp_eval call: the program runs; its payload is the paired
//    tool message; (return v) checked against the signature ends the run,
//    (fail v) ends it as a failure;
//  - one call of another tool: an unknown_tool error, paired;
//  - several calls: each id paired with multiple_tool_calls; nothing runs.
// Every tool-call id is answered by exactly one tool message.
#pragma once

#include <vector>

#include "protocol/agent/messages.hpp"
#include "protocol/lisp_eval/exposure.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace ptc::protocol {

// The tools of a request: output ptc_lisp offers exactly [lisp_eval] whatever
// the app tools; output text (combined mode) offers the natively callable
// app tools and then lisp_eval.
std::vector<HostValue> request_tools(OutputMode mode, const std::vector<AgentTool>& tools);

// The error payload of a protocol error of this transport (the shape of
// render_error, without result).
std::string protocol_error(std::string_view reason, std::string_view message);

}  // namespace ptc::protocol
