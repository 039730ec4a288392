// Shared pieces of the ptc command-line tool: option parsing, reading files,
// and printing results and errors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/upstream/upstreams.hpp"

namespace ptc::cli {

// Exit codes: 0 success, 1 the program failed (for lisp-eval: an error
// payload was printed), 2 bad command line or input file.
constexpr int kExitOk = 0;
constexpr int kExitProgramError = 1;
constexpr int kExitUsage = 2;

struct CommonOptions {
  RunOptions run;
  bool json = false;
  std::optional<std::string> context_file;
  std::optional<std::string> memory_file;
  std::optional<std::string> tools_file;
  // --upstreams FILE: MCP servers the program calls with (tool/call ...),
  // started by load_context and attached to `run`.
  std::optional<std::string> upstreams_file;
  bool upstream_required = false;  // --upstream-required: one that fails to start is an error
  upstream::UpstreamLimits upstream_limits;
  std::shared_ptr<upstream::Upstreams> upstreams;
  bool isolate = false;            // --isolate: runs in a jailed worker process
  size_t isolate_max_runs = 1000;  // --isolate-max-runs
};

// Parses the options shared by commands (--context, --json, the limits).
// Consumes recognised arguments from `args`; returns an error message or "".
std::string parse_common(std::vector<std::string>& args, CommonOptions& out);
const char* common_options_help();

// Takes `flag` out of `args`; whether it was there.
bool take_flag(std::vector<std::string>& args, const std::string& flag);
// Prints "ptc: MESSAGE" and the usage line to stderr; returns kExitUsage.
int usage_error(const std::string& message, const char* usage);

std::optional<std::string> read_file(const std::string& path, std::string* error);
// A program file, or standard input for "-".
std::optional<std::string> read_program(const std::string& path, std::string* error);
// Loads --context, --memory and --tools into out.run and starts --upstreams;
// returns an error message or "".
std::string load_context(CommonOptions& out);
// Its two halves, for a command that tells the --tools table's tools from
// the upstreams' (ptc start --defer all): --context, --memory and --tools,
// then --upstreams.
std::string load_inputs(CommonOptions& out);
std::string attach_upstreams(CommonOptions& out);
// With --isolate: the pool of one worker process that out.run runs in.
std::string start_isolation(CommonOptions& out);
// The JSON object in `path` (`what` names it in messages: "context"); an error
// message naming the file, or "".
std::string load_json_object(const std::string& path, const char* what, HostValue& out);
// A --tools replay table from `path` into `out`; an error message naming the file, or "".
std::string load_tools_file(const std::string& path, Tools& out);
// Starts the upstreams in `path` (their stderr and failures go to our stderr,
// redacted); nullptr with `error` set when the file is wrong or, with
// `required`, one fails to start.
std::shared_ptr<upstream::Upstreams> start_upstreams(const std::string& path, bool required,
                                                     std::string* error);

// A successful run's value on stdout: Clojure syntax, or JSON with --json.
// False (said on stderr) when the value has no JSON form.
bool print_value(const Step& step, bool json);

// {"reason":...,"message":...,"hint":...,"line":...,"column":...}
std::string error_json(const Error& e);
std::string json_string(const std::string& s);

int cmd_eval(std::vector<std::string> args);
int cmd_run(std::vector<std::string> args);
int cmd_batch(std::vector<std::string> args);
int cmd_bench(std::vector<std::string> args);
int cmd_disasm(std::vector<std::string> args);
int cmd_agent(std::vector<std::string> args);
int cmd_mcp(std::vector<std::string> args);
const char* mcp_help();
int cmd_lisp_eval(std::vector<std::string> args);
int cmd_tool_schema(std::vector<std::string> args);
const char* lisp_eval_help();
const char* tool_schema_help();
int cmd_doc(std::vector<std::string> args);
const char* doc_help();
int cmd_repl(std::vector<std::string> args);
const char* repl_help();
int cmd_start(std::vector<std::string> args);
int cmd_resume(std::vector<std::string> args);
const char* start_help();
const char* resume_help();

}  // namespace ptc::cli
