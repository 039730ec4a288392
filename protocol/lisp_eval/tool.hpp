// The lisp_eval tool: its name, the capability profiles and their
// descriptions, the tool schemas (OpenAI function format and MCP
// inputSchema, from one definition), validation of the `program` argument,
// and the JSON payloads a call answers with (success and error). One
// definition serves the in-process transports, combined mode and the MCP
// server. Payloads are compact JSON with keys sorted at every depth.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "protocol/lisp_eval/feedback.hpp"

namespace ptc::protocol {

inline constexpr std::string_view kLispEval = "lisp_eval";

// Who is calling, which decides what the description promises.
enum class Profile {
  InProcessWithAppTools,  // lisp_eval is the only native tool; app tools inside programs
  InProcessTextMode,      // combined mode: lisp_eval beside native app tools
  McpNoTools,             // MCP server: no tools inside programs, data via `context`
};
std::string_view profile_name(Profile p);  // "in_process_with_app_tools", ...
std::optional<Profile> profile_from_name(std::string_view name);

// One constant string per profile, stating its capabilities only.
std::string_view tool_description(Profile p);
// The description of the `program` parameter (the same in every profile).
std::string_view program_description();
// {"type":"function","function":{"name":"lisp_eval","description":...,
//  "parameters":<input schema>}}
HostValue openai_tool_schema(Profile p);
// The JSON Schema of the arguments: {"type":"object","properties":{"program":
// ...},"required":["program"],"additionalProperties":false}; for McpNoTools
// also the optional `context` (object) and `output_schema` (object).
HostValue input_schema(Profile p);
// The tool as an MCP server lists it: {"name":"lisp_eval","description":...,
// "inputSchema":<input schema>}.
HostValue mcp_tool(Profile p);

// The closed set of reasons an error payload carries.
enum class Reason {
  ParseError,
  RuntimeError,
  Timeout,
  MemoryLimit,
  ArgsError,
  Fail,
  ValidationError,
};
std::string_view reason_name(Reason r);  // "parse_error", ...
// The reason a name stands for ("timeout" -> Timeout); nullopt for any other text.
std::optional<Reason> reason_from_name(std::string_view name);
// Every reason's name, for messages: "parse_error, runtime_error, ..., validation_error".
std::string reason_names();
// The payload reason of a run's error: parse_error when the source could not
// be read (ErrorKind::ParseError only: analysis errors such as invalid_form
// are runtime_error, as in the reference), timeout, memory_limit, fail,
// args_error (also program_too_large: oversized arguments),
// validation_error; every other kind (unbound_var, type_error, tool_error,
// loop_limit_exceeded, ...) is runtime_error. The message keeps the kind.
Reason classify(ErrorKind kind);

// The `program` argument: absent (nullptr or nil) -> "lisp_eval requires a
// non-empty `program` string argument."; not a string -> "lisp_eval
// `program` must be a string, got <value in Clojure syntax, shortened>.";
// blank (Unicode whitespace only) -> "lisp_eval `program` must be a
// non-empty string." On success `program` is the text as given (untrimmed).
struct ProgramArg {
  bool ok = false;
  std::string program;
  std::string message;  // the args_error message when !ok
};
ProgramArg validate_program(const HostValue* program);
// From a call's arguments: `args_error` (the arguments did not decode as
// JSON) wins -> "Invalid tool arguments: <args_error>"; args that are not a
// map count as absent; else validate_program(args["program"]).
ProgramArg extract_program(const HostValue& args, std::string_view args_error = {});
// The `context` argument: absent or null, or an object whose keys are data/
// names (non-empty, no '/'). The args_error message, or "" when it is good.
std::string check_context(const HostValue* context);
// The telemetry tags (RunOptions::caller, ::profile) a lisp_eval run gets
// under each profile.
void tag_run(Profile p, RunOptions& run);

// Options of render_success. Payload keys: status "ok", result (see the
// elision rule below), prints, feedback, truncated, memory (when
// include_memory) and validated (when given).
struct SuccessOptions {
  bool include_memory = true;
  std::optional<HostValue> validated;
};
// `result` is left out only when the preview is absent and the program's
// value is nil; a value with no preview (a var, from (def x 1)) gives
// "result": null. With include_memory false, `truncated` is the visible
// truncation (prints and result) only. A `validated` value that has no JSON
// form (to_json_value) gives a validation_error payload instead.
std::string render_success(const Step& step, const ExecutionFeedback& execution,
                           const SuccessOptions& options = {});
// The payload itself, before it is encoded (for hosts that wrap it further,
// such as the MCP server's envelopes).
HostValue success_payload(const Step& step, const ExecutionFeedback& execution,
                          const SuccessOptions& options = {});
// The same options given as a map (string or keyword keys, as from JSON):
// include_memory, validated; unknown keys are ignored.
std::string render_success(const Step& step, const ExecutionFeedback& execution,
                           const HostValue& options);

// For one-shot callers: builds the execution feedback itself (no prior
// memory; max_turns 1, or 2 when include_memory is set so that the memory
// block reaches the feedback) and leaves memory out unless include_memory
// is set.
std::string render_success_from_step(const Step& step, const SuccessOptions& options = {false, {}},
                                     const FormatOptions& format = {});

// Payload keys: status "error", reason, message, feedback (message unless
// given), and result only for Reason::Fail (null when not given).
struct ErrorOptions {
  std::optional<std::string> feedback;
  std::optional<std::string> result;  // Fail only: the printed value of (fail v)
};
std::string render_error(Reason reason, std::string_view message, const ErrorOptions& options = {});
HostValue error_payload(Reason reason, std::string_view message, const ErrorOptions& options = {});
// The same options as a map (feedback, result); unknown keys are ignored. A
// result that is not a string is shown in Clojure syntax.
std::string render_error(Reason reason, std::string_view message, const HostValue& options);
// The error payload of a failed run (!step.ok): classify(error.kind), the
// error's description (with line:column and hint) as message; for (fail v)
// the printed v as message (cut to feedback_max_chars) and its preview as
// result (capped like a preview, without the "user=> " prefix).
std::string render_step_error(const Step& step, const FormatOptions& format = {});
HostValue step_error_payload(const Step& step, const FormatOptions& format = {});

// A value as JSON data for a typed `validated` field: keywords become
// strings; maps need string or keyword keys (any other key is an error,
// so 1 and "1" cannot collide); sets become arrays; NaN/Inf floats and
// values with no data form (functions, regexes, vars) are errors. The error
// names where: "non-JSON-encodable value at rows[0].ts" ("<root>" for the
// value itself; map keys joined with ".", indices as [i]).
struct JsonValue {
  bool ok = false;
  HostValue value;
  std::string error;
};
JsonValue to_json_value(const HostValue& v);

}  // namespace ptc::protocol
