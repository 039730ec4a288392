// ptc: the command-line front end of ptc-lisp.
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <vector>

#include "cli/agent_model.hpp"
#include "cli/cli.hpp"
#include "include/ptc/ptc.hpp"

namespace {

const char* kUsage =
    "ptc - run PTC-Lisp programs (a sandboxed Clojure subset)\n"
    "\n"
    "usage:\n"
    "  ptc eval 'EXPR' [options]      run an expression and print its value\n"
    "  ptc run FILE.clj [options]     run a program file (- reads stdin)\n"
    "  ptc repl [options]             an interactive session (definitions carry over)\n"
    "  ptc batch FILE.jsonl [options] run one program per JSON line (- reads stdin)\n"
    "  ptc bench FILE.jsonl [-n N]    time each program of a batch file\n"
    "  ptc start FILE.clj --defer NAMES|all --snapshot OUT [options]\n"
    "                                 run a program until it waits on tools the host\n"
    "                                 answers; print the pending calls as JSON\n"
    "  ptc resume SNAPSHOT --results RESULTS.json --snapshot OUT [options]\n"
    "                                 continue a suspended program with the host's\n"
    "                                 answers to its calls\n"
    "  ptc disasm FILE.clj            print the bytecode (-e 'EXPR' for an expression)\n"
    "  ptc agent --model SPEC --prompt TEXT\n"
    "                                 run the agent loop with a model (openai, anthropic,\n"
    "                                 any OpenAI-compatible server; --script FILE.json: a\n"
    "                                 scripted one)\n"
    "  ptc mcp [--http] [options]     serve lisp_eval to MCP clients (stdio, or HTTP)\n"
    "  ptc lisp-eval [--profile P]    answer one lisp_eval tool call (arguments JSON on\n"
    "                                 stdin, the JSON payload on stdout)\n"
    "  ptc tool-schema [--profile P]  print the lisp_eval tool schema (--mcp: as an MCP tool)\n"
    "  ptc doc [NAME | --markdown]    list every special form and function, or one NAME's\n"
    "                                 doc (--markdown: docs/language.md)\n"
    "  ptc help [COMMAND]             this text, or a command's help\n"
    "  ptc --version                  version, git revision and build type\n"
    "\n"
    "Values print in Clojure syntax; errors go to stderr as\n"
    "  error: <reason> at <line>:<column>: <message>\n"
    "with a hint line when there is one (lisp-eval prints JSON payloads instead, and\n"
    "start and resume print their outcome, a program's error too, as JSON).\n"
    "Exit codes: 0 ok, 1 the program failed, 2 bad command line or unreadable input.\n";

const char* help_for(const std::string& cmd) {
  if (cmd == "eval")
    return "usage: ptc eval 'EXPR' [options]\n\n"
           "Runs EXPR (one or more forms; the last value is the result) and prints the\n"
           "value in Clojure syntax, or as JSON with --json. println output goes to\n"
           "stdout (stderr with --json).\n\n"
           "options:\n"
           "  --usage             after the run, print its usage to stderr: time,\n"
           "                      reductions, peak live heap, bytes allocated, collections\n";
  if (cmd == "run")
    return "usage: ptc run FILE.clj [options]\n\n"
           "Like eval, with the program read from FILE (- for stdin).\n\n"
           "options:\n"
           "  --usage             after the run, print its usage to stderr (as eval)\n";
  if (cmd == "batch")
    return "usage: ptc batch FILE.jsonl [options]\n\n"
           "Each input line is {\"id\":..., \"program\":\"...\", \"context\":{...}} (optionally\n"
           "\"memory\":{...} and \"tools\":{replay table, as --tools}); each gives one\n"
           "output line {\"id\":..., \"ok\":true, \"result\":\"<printed value>\"} or\n"
           "{\"id\":..., \"ok\":false, \"error\":{\"reason\":..., \"message\":..., \"hint\":...,\n"
           "\"line\":..., \"column\":...}}. A bad line gives an error line and the batch goes on.\n"
           "Unknown fields are ignored. FILE - reads stdin. A line without a context gets\n"
           "--context FILE's. Consecutive lines with the same context text share it, parsed\n"
           "once; a program that comes again is compiled once.\n\noptions:\n";
  if (cmd == "bench")
    return "usage: ptc bench FILE.jsonl [-n N] [--no-cache] [--context-as json|host|prepared]\n"
           "                 [--json] [options]\n\n"
           "Runs each program of a batch file N times (default 1000) after a warm-up and\n"
           "prints the median and p99 in microseconds and runs per second. Failing programs\n"
           "are reported, not timed. Each run executes the program compiled once (as a host\n"
           "with a ptc::ProgramCache does), gets the line's context as JSON text (as batch\n"
           "lines and MCP calls carry it) and copies the result out.\n\n"
           "  --no-cache          read, analyze and compile the source in every run\n"
           "  --context-as json   the context's JSON text, parsed by each run (default)\n"
           "  --context-as host   the context parsed once into host values, imported by each run\n"
           "  --context-as prepared, --prepared\n"
           "                      the context prepared once (ptc::prepare_context), read in place\n"
           "\noptions:\n";
  if (cmd == "repl") return ptc::cli::repl_help();
  if (cmd == "start") return ptc::cli::start_help();
  if (cmd == "resume") return ptc::cli::resume_help();
  if (cmd == "lisp-eval") return ptc::cli::lisp_eval_help();
  if (cmd == "tool-schema") return ptc::cli::tool_schema_help();
  if (cmd == "mcp") return ptc::cli::mcp_help();
  if (cmd == "doc") return ptc::cli::doc_help();
  if (cmd == "disasm")
    return "usage: ptc disasm FILE.clj | ptc disasm -e 'EXPR'\n\n"
           "Prints every compiled function: its captures, and per arity the register count\n"
           "and one line per instruction with operands and source line:column.\n";
  if (cmd == "agent")
    return "usage: ptc agent --model SPEC --prompt TEXT [--tools FILE] [--context FILE]\n"
           "                 [--upstreams FILE [--upstream-required]] [--output text|ptc_lisp]\n"
           "                 [--transport tool_call|content] [--signature SIG] [--max-turns N]\n"
           "                 [--json] [model flags]\n"
           "       ptc agent --script FILE.json [--upstreams FILE [--upstream-required]]\n\n"
           "Runs the agent loop (protocol/agent/agent.hpp) with a model: a real one (--model), or\n"
           "a scripted one (--script) for trying prompts and tools without an LLM.\n\n"
           "With --model it prints the answer (text as it is, other values as JSON); with\n"
           "--json the same object as --script (below) plus \"usage\": {\"calls\", \"retries\",\n"
           "\"input\", \"output\", \"cached\", \"per_call\": [...], \"cost\"}. On stderr, one\n"
           "line per turn: the model's time, tokens, retries and what the program did.\n"
           "--tools FILE is a JSON object of app tools as a script's agent.tools (replay\n"
           "tables answer their calls), --context FILE a JSON object of data/ names. A\n"
           "failed model call"
           " says which failure (timeout, rate_limited, auth_failed,\n"
           "bad_request, context_too_long, server_error, malformed_response,\n"
           "tool_calling_unsupported, replay_miss) in fail.kind, and whether it is\n"
           "retryable. Model flags:\n"
           "%MODEL_FLAGS%\n"
           "With --upstreams FILE its programs call those MCP servers (tool/call ...), as in\n"
           "ptc run --upstreams.\n\n"
           "With --script, FILE is a JSON object:\n"
           "  {\"agent\": {\"output\": \"ptc_lisp\" | \"text\",\n"
           "             \"transport\": \"tool_call\" | \"content\",\n"
           "             \"max_turns\": 5, \"retry_turns\": 0, \"max_tool_calls\": N,\n"
           "             \"signature\": \"{total :int}\", \"system_prompt\": \"...\",\n"
           "             \"context\": {...}, \"memory_limit\": BYTES,\n"
           "             \"memory_strategy\": \"strict\" | \"rollback\", \"mission_timeout_ms\": "
           "MS,\n"
           "             \"tools\": {\"NAME\": {\"description\": \"...\", \"signature\": \"...\",\n"
           "                        \"expose\": \"native\" | \"ptc_lisp\" | \"both\", \"cache\": "
           "true,\n"
           "                        \"native_result\": {\"preview\": \"metadata\" | \"rows\", "
           "\"limit\": N},\n"
           "                        \"replay\": [{\"args\": {...}, \"result\": ...} | {\"error\": "
           "\"...\"}]}}},\n"
           "   \"prompt\": \"the mission\",\n"
           "   \"llm\": [assistant messages in OpenAI format, in order]}\n"
           "output ptc_lisp with transport tool_call (the default) offers the model only\n"
           "lisp_eval; with transport content it offers no tools, and the model writes each\n"
           "program as one ```clojure block in its reply (the outcome comes back as the next\n"
           "user message). text is combined mode (transport tool_call only).\n"
           "A replay entry without \"args\" answers any call. An llm entry may also be\n"
           "{\"error\": \"...\"} (the model call fails) or {\"throw\": \"...\"}, and an\n"
           "assistant message may carry \"tokens\": {\"input\", \"output\", ...}. Running out of\n"
           "responses is an llm_error.\n\n"
           "Prints one JSON object: {\"ok\", \"return\", \"fail\": {\"reason\", \"message\"},\n"
           "\"messages\": [...], \"turns\": N, \"turn_records\": [...], \"tool_executions\":\n"
           "{NAME: times its replay ran}, \"telemetry\": [events], \"memory\", "
           "\"fallback_used\",\n\"native_tool_calls\", \"tokens\"}.\n"
           "Exit codes: 0 the run succeeded, 1 it failed, 2 a bad command line or script.\n";
  return nullptr;
}

int print_help(const std::string& cmd) {
  if (cmd.empty()) {
    fmt::print("{}\ncommon options:\n{}", kUsage, ptc::cli::common_options_help());
    return 0;
  }
  const char* h = help_for(cmd);
  if (!h) {
    fmt::print(stderr, "ptc: unknown command '{}'\n\n{}", cmd, kUsage);
    return ptc::cli::kExitUsage;
  }
  std::string text = h;
  // ptc agent's help lists the model flags where they belong (cli/agent_model.cpp).
  if (size_t at = text.find("%MODEL_FLAGS%\n"); at != std::string::npos)
    text.replace(at, 14, ptc::cli::kModelFlagsHelp);
  fmt::print("{}", text);
  if (cmd != "disasm" && cmd != "agent" && cmd != "tool-schema" && cmd != "mcp" && cmd != "doc")
    fmt::print("{}", ptc::cli::common_options_help());
  return 0;
}

int print_version() {
  ptc::BuildInfo info = ptc::build_info();
  fmt::print("ptc {} (git {}, {})\n", info.version, info.git_revision, info.build_type);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    fmt::print(stderr, "{}", kUsage);
    return ptc::cli::kExitUsage;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "help" || cmd == "--help" || cmd == "-h")
    return print_help(args.empty() ? "" : args[0]);
  if (cmd == "--version" || cmd == "version") return print_version();
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") return print_help(cmd);
  using namespace ptc::cli;
  if (cmd == "eval") return cmd_eval(args);
  if (cmd == "run") return cmd_run(args);
  if (cmd == "repl") return cmd_repl(args);
  if (cmd == "batch") return cmd_batch(args);
  if (cmd == "bench") return cmd_bench(args);
  if (cmd == "start") return cmd_start(args);
  if (cmd == "resume") return cmd_resume(args);
  if (cmd == "disasm") return cmd_disasm(args);
  if (cmd == "agent") return cmd_agent(args);
  if (cmd == "mcp") return cmd_mcp(args);
  if (cmd == "lisp-eval") return cmd_lisp_eval(args);
  if (cmd == "tool-schema") return cmd_tool_schema(args);
  if (cmd == "doc") return cmd_doc(args);
  fmt::print(stderr, "ptc: unknown command '{}'\n\n{}", cmd, kUsage);
  return kExitUsage;
}
