// ptc lisp-eval and ptc tool-schema: the lisp_eval tool from the command
// line, as an MCP server or an agent would call it and describe it.
#include <fmt/format.h>

#include <iostream>
#include <iterator>

#include "cli/cli.hpp"
#include "protocol/lisp_eval/call.hpp"
#include "protocol/lisp_eval/text.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace ptc::cli {

namespace {

using protocol::Profile;

// Takes --profile NAME out of `args`; an error message or "".
std::string take_profile(std::vector<std::string>& args, std::optional<Profile>& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--profile") continue;
    if (i + 1 >= args.size())
      return "--profile needs a name: in_process_with_app_tools, in_process_text_mode or "
             "mcp_no_tools";
    out = protocol::profile_from_name(args[i + 1]);
    if (!out)
      return fmt::format(
          "unknown profile '{}' (in_process_with_app_tools, in_process_text_mode or "
          "mcp_no_tools)",
          args[i + 1]);
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    return "";
  }
  return "";
}

int print_payload(const std::string& payload, bool ok) {
  fmt::print("{}\n", payload);
  return ok ? kExitOk : kExitProgramError;
}

constexpr const char* kLispEvalUsage = "ptc lisp-eval [--profile P] [options] < ARGS.json";

}  // namespace

const char* lisp_eval_help() {
  return "usage: ptc lisp-eval [--profile P] [--include-memory] [options] < ARGS.json\n\n"
         "Answers one lisp_eval tool call. stdin holds the call's arguments, a JSON object\n"
         "{\"program\": \"...\", \"context\": {...}}: context keys become data/ names, other\n"
         "fields are ignored. stdout is the JSON payload the tool answers with (keys sorted,\n"
         "compact): {\"status\":\"ok\", \"result\":\"user=> ...\", \"prints\", \"feedback\",\n"
         "\"truncated\"} or {\"status\":\"error\", \"reason\", \"message\", \"feedback\"} (and\n"
         "\"result\" for (fail v)). Arguments that are not a JSON object, or a missing, blank\n"
         "or non-string program, give an args_error payload; so does a program over\n"
         "--max-program-bytes.\n\n"
         "  --profile P         in_process_with_app_tools, in_process_text_mode or\n"
         "                      mcp_no_tools (default: a one-shot MCP call); sets the\n"
         "                      run's telemetry tags. --tools FILE needs an in_process\n"
         "                      profile: mcp_no_tools has no tools inside programs\n"
         "  --include-memory    add the memory block (changed names, stored keys), as a\n"
         "                      turn of a conversation does; --memory FILE gives the\n"
         "                      names bound before the call\n"
         "  --signature SIG     validate the result; the typed value comes back as\n"
         "                      \"validated\"\n\n"
         "Exit codes: 0 a success payload, 1 an error payload (both on stdout), 2 a bad\n"
         "command line (message on stderr, nothing on stdout).\n\n"
         "options (--context and --json do not apply: the context comes on stdin and the\n"
         "output is always JSON; an `output_schema` argument is ignored, use --signature):\n";
}

const char* tool_schema_help() {
  return "usage: ptc tool-schema [--profile P] [--mcp]\n\n"
         "Prints the lisp_eval tool definition as JSON (keys sorted, compact): the OpenAI\n"
         "function-tool form {\"type\":\"function\",\"function\":{\"name\",\"description\",\n"
         "\"parameters\"}}, or with --mcp the MCP tool object {\"name\",\"description\",\n"
         "\"inputSchema\"}. The profile chooses the description (and, for mcp_no_tools, the\n"
         "`context` and `output_schema` arguments): in_process_with_app_tools (the default),\n"
         "in_process_text_mode or mcp_no_tools (the default with --mcp).\n";
}

int cmd_lisp_eval(std::vector<std::string> args) {
  std::optional<Profile> profile;
  if (std::string err = take_profile(args, profile); !err.empty())
    return usage_error(err, kLispEvalUsage);
  Profile p = profile.value_or(Profile::McpNoTools);
  bool include_memory = take_flag(args, "--include-memory");
  CommonOptions opts;
  if (std::string err = parse_common(args, opts); !err.empty())
    return usage_error(err, kLispEvalUsage);
  if (!args.empty())
    return usage_error(fmt::format("unexpected argument '{}'", args[0]), kLispEvalUsage);
  if (opts.context_file || opts.json)
    return usage_error("the context comes in the arguments on stdin, and the output is always JSON",
                       kLispEvalUsage);
  if (opts.tools_file && p == Profile::McpNoTools)
    return usage_error(
        "the mcp_no_tools profile has no tools inside programs; use --profile "
        "in_process_with_app_tools or in_process_text_mode with --tools",
        kLispEvalUsage);
  if (std::string err = load_context(opts); !err.empty()) return usage_error(err, kLispEvalUsage);
  std::string input(std::istreambuf_iterator<char>(std::cin), {});
  protocol::LispEvalAnswer answer =
      protocol::answer_lisp_eval(input, p, std::move(opts.run), include_memory);
  return print_payload(answer.payload, answer.ok);
}

int cmd_tool_schema(std::vector<std::string> args) {
  constexpr const char* kUsage = "ptc tool-schema [--profile P] [--mcp]";
  std::optional<Profile> profile;
  if (std::string err = take_profile(args, profile); !err.empty()) return usage_error(err, kUsage);
  bool mcp = take_flag(args, "--mcp");
  if (!args.empty()) return usage_error(fmt::format("unexpected argument '{}'", args[0]), kUsage);
  Profile p = profile.value_or(mcp ? Profile::McpNoTools : Profile::InProcessWithAppTools);
  HostValue tool = mcp ? protocol::mcp_tool(p) : protocol::openai_tool_schema(p);
  fmt::print("{}\n", to_json(tool, true));
  return kExitOk;
}

}  // namespace ptc::cli
