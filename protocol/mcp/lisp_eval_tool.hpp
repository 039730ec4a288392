// lisp_eval over MCP (the mcp_no_tools profile): one stateless program per
// call, with `context` keys as data/ names and an optional `output_schema`
// that types the result (`validated`). Arguments are checked before the call
// takes a slot; the answer is shaped by the response profile.
#pragma once

#include <memory>
#include <string>

#include "protocol/mcp/output_schema.hpp"
#include "protocol/mcp/server.hpp"

namespace ptc::mcp {

// The checked arguments of a lisp_eval-like call (lisp_session_eval too).
struct EvalArgs {
  std::string program;
  HostValue context;  // a map, or nil
  std::optional<Signature> output;
};

// Checks `args` (a JSON object) for lisp_eval: program (required, non-blank,
// at most max_program_bytes), context (an object whose keys are usable as
// data/ names, at most max_context_bytes as JSON), output_schema (the
// supported JSON-Schema subset); `signature` is refused (use output_schema);
// `extra_allowed` names further arguments the caller's tool takes. Returns the
// args_error result to answer with, or nullopt with *out filled.
std::optional<HostValue> check_eval_args(const HostValue& args, const ServerConfig& config,
                                         std::initializer_list<std::string_view> extra_allowed,
                                         EvalArgs* out);

// The run options of a call: the server's program limits, the context, the
// cancellation flag, the mcp telemetry tags.
RunOptions eval_run_options(const EvalArgs& args, const ToolEnv& env);

// The CallToolResult of a finished run: the success payload (with
// `validated` when an output schema was given and matched) or the error
// payload (validation_error when it did not match), shaped by the profile.
// `include_memory` and `prior_memory` are for sessions.
HostValue eval_result(const Step& step, const EvalArgs& args, const ServerConfig& config,
                      bool include_memory = false, const HostValue& prior_memory = HostValue());

std::unique_ptr<McpTool> make_lisp_eval_tool(const ServerConfig& config);

// An estimate of the JSON size of a value (exact but for escapes), without
// building the text.
size_t json_size(const HostValue& v);

}  // namespace ptc::mcp
