// ptc start and ptc resume: a program that suspends at deferred tools
// (ptc::start), written to a snapshot file, and continued from it with the
// host's answers (ptc::load, Execution::resume). Each step prints one JSON
// object: the pending calls, or the outcome.
#include <fmt/format.h>

#include <set>

#include "cli/cli.hpp"
#include "cli/snapshot_file.hpp"
#include "cli/tool_answers.hpp"

namespace ptc::cli {

namespace {

const char* kStartUsage = "ptc start FILE.clj --defer NAMES|all --snapshot OUT [options]";
const char* kResumeUsage = "ptc resume SNAPSHOT --results RESULTS.json --snapshot OUT [options]";

// Input the command cannot use (exit 2): said on stderr as a run's error is.
int input_error(const Error& error) {
  fmt::print(stderr, "error: {}\n", format_error(error));
  return kExitUsage;
}

// What ptc resume cannot use, said with hints that name the commands: the
// engine's snapshot hints name the C++ calls (load, dump).
int resume_error(Error error) {
  if (error.kind == ErrorKind::SnapshotError)
    error.hint =
        "give the whole file that ptc start or ptc resume wrote with --snapshot, and the "
        "--key-file it was written with (none for an unsigned one)";
  if (error.kind == ErrorKind::SnapshotDivergence)
    error.hint = "resume a snapshot with the ptc that wrote it (ptc --version), unchanged";
  return input_error(error);
}

int input_error(ErrorKind kind, std::string message, std::string hint) {
  Error error;
  error.kind = kind;
  error.message = std::move(message);
  error.hint = std::move(hint);
  return input_error(error);
}

// Takes every `flag VALUE` out of `args` into `values`; an error message or "".
std::string take_values(std::vector<std::string>& args, const std::string& flag,
                        std::vector<std::string>& values) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] != flag) {
      rest.push_back(args[i]);
      continue;
    }
    if (i + 1 >= args.size()) return fmt::format("{} needs a value", flag);
    values.push_back(args[++i]);
  }
  args.swap(rest);
  return "";
}

// A flag given at most once.
std::string take_value(std::vector<std::string>& args, const std::string& flag,
                       std::optional<std::string>& value) {
  std::vector<std::string> values;
  if (std::string err = take_values(args, flag, values); !err.empty()) return err;
  if (values.size() > 1) return fmt::format("{} is given more than once", flag);
  if (!values.empty()) value = values.front();
  return "";
}

// Where the snapshot goes and the key it is signed with.
struct SnapshotFlags {
  std::string out;
  std::string key;  // the --key-file's content; never printed
};

std::string take_snapshot_flags(std::vector<std::string>& args, SnapshotFlags& flags) {
  std::optional<std::string> out, key_file;
  if (std::string err = take_value(args, "--snapshot", out); !err.empty()) return err;
  if (std::string err = take_value(args, "--key-file", key_file); !err.empty()) return err;
  if (!out || out->empty()) return "--snapshot OUT is required";
  flags.out = *out;
  if (key_file) {
    std::string err;
    std::optional<std::string> key = read_file(*key_file, &err);
    if (!key) return fmt::format("--key-file: {}", err);
    if (key->empty()) return fmt::format("--key-file: {} is empty", *key_file);
    flags.key = std::move(*key);
  }
  return "";
}

// The parts of --defer or --approval: tool names, or `all`.
struct ToolNames {
  bool all = false;
  std::set<std::string, std::less<>> names;
  bool empty() const { return !all && names.empty(); }
};

std::string parse_tool_names(const char* flag, const std::vector<std::string>& values,
                             ToolNames& out) {
  for (const std::string& value : values) {
    size_t from = 0;
    while (true) {
      size_t comma = value.find(',', from);
      std::string name = value.substr(from, comma == std::string::npos ? comma : comma - from);
      if (name.empty()) return fmt::format("{} {}: an empty tool name", flag, value);
      if (name == "*") return fmt::format("{}: write all, not *, for every tool", flag);
      if (name == "all")
        out.all = true;
      else
        out.names.insert(name);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  return "";
}

// Deferral through the tools themselves (Tool::deferred, or a tool of its own
// with no function): after load, such a tool is the host's again unless ptc
// resume's --tools gives it.
void apply_deferrals(const ToolNames& deferrals, const std::set<std::string>& table_tools,
                     RunOptions& run) {
  if (deferrals.all) {
    run.deferred_tools.push_back("*");  // every tool the program calls that `tools` does not give
    for (const std::string& name : table_tools)
      run.tools[name].deferred = true;
  }
  for (const std::string& name : deferrals.names) {
    if (auto found = run.tools.find(name); found != run.tools.end())
      found->second.deferred = true;
    else
      run.tools[name] = Tool{nullptr, false, false, true};
  }
}

// --approval: the tools a person approves each call of. `all` covers every
// tool given (the --tools table, the upstreams, the tools --defer names).
void apply_approvals(const ToolNames& approvals, RunOptions& run) {
  for (auto& [name, tool] : run.tools)
    if (approvals.all || approvals.names.count(name)) tool.needs_approval = true;
  for (const std::string& name : approvals.names)
    if (!run.tools.count(name)) run.tools[name] = Tool{nullptr, false, false, true, true};
}

std::string strings_json(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? "," : "") + json_string(items[i]);
  return out + "]";
}

// {"id":...,"tool":...,"args":{...}}, and for a call that waits for a
// person's decision "kind":"approval" and where the program makes it
// ("line", "column"); arguments with no JSON form (a function, a map with
// collection keys) come as their Clojure syntax.
std::string call_json(const PendingCall& call) {
  std::string args;
  try {
    args = fmt::format("\"args\":{}", to_json(call.args));
  } catch (const LispError&) {
    args = fmt::format("\"args_clojure\":{}", json_string(format_value(call.args)));
  }
  bool approval = call.kind == PendingCall::Kind::Approval;
  std::string kind = approval ? ",\"kind\":\"approval\"" : "";
  std::string at = approval && call.loc.known()
                       ? fmt::format(",\"line\":{},\"column\":{}", call.loc.line, call.loc.col)
                       : "";
  return fmt::format("{{\"id\":{},\"tool\":{}{},{}{}}}", json_string(call.id),
                     json_string(call.tool), kind, args, at);
}

std::string outcome_json(const Execution& execution) {
  if (!execution.done()) {
    std::string calls;
    for (const PendingCall& call : execution.pending())
      calls += (calls.empty() ? "" : ",") + call_json(call);
    return fmt::format("{{\"status\":\"suspended\",\"calls\":[{}]}}", calls);
  }
  const Step& step = execution.step();
  if (!step.ok)
    return fmt::format("{{\"status\":\"done\",\"ok\":false,\"error\":{}}}", error_json(step.error));
  return fmt::format("{{\"status\":\"done\",\"ok\":true,\"value\":{},\"prints\":{}}}",
                     json_string(step.printed), strings_json(step.prints));
}

// Writes (suspended) or removes (done) the snapshot, then prints the outcome:
// stdout gets nothing when the snapshot cannot be written.
int settle(const Execution& execution, const SnapshotFlags& flags) {
  std::string json = outcome_json(execution);
  std::string err;
  if (!execution.done()) {
    try {
      err = write_snapshot_file(flags.out, execution.dump(flags.key));
    } catch (const LispError& e) {
      return input_error(e.error());
    }
  } else {
    err = remove_snapshot_file(flags.out);
  }
  if (!err.empty()) {
    fmt::print(stderr, "ptc: {}\n", err);
    return kExitUsage;
  }
  fmt::print("{}\n", json);
  return execution.done() && !execution.step().ok ? kExitProgramError : kExitOk;
}

// The options of ptc run that ptc resume cannot take: the snapshot has them.
std::string refused_by_resume(const CommonOptions& opts) {
  auto from_snapshot = [](const char* flag) {
    return fmt::format("{} comes from the snapshot (give it to ptc start)", flag);
  };
  if (opts.context_file) return from_snapshot("--context");
  if (opts.memory_file) return from_snapshot("--memory");
  if (!opts.run.signature.empty()) return from_snapshot("--signature");
  if (opts.run.float_precision) return from_snapshot("--float-precision");
  if (!opts.run.filter_context) return from_snapshot("--no-filter-context");
  return "";
}

// Executions wait in this process (ptc::start and ptc::load refuse isolation).
const char* kNoIsolate = "--isolate: ptc start and ptc resume run in-process only";

const char* kNoJson =
    "--json does not apply: the output is always JSON, the value in Clojure syntax";

const char* kResultsShape =
    "RESULTS.json is {\"<call id>\": {\"value\": JSON} or {\"error\": \"message\"}, ...}, and for "
    "an approval {\"approve\": true} or {\"reject\": \"reason\"}";

}  // namespace

int cmd_start(std::vector<std::string> args) {
  SnapshotFlags flags;
  std::vector<std::string> defer_values, approval_values;
  ToolNames deferrals, approvals;
  CommonOptions opts;
  std::string err = take_snapshot_flags(args, flags);
  if (err.empty()) err = take_values(args, "--defer", defer_values);
  if (err.empty()) err = parse_tool_names("--defer", defer_values, deferrals);
  if (err.empty()) err = take_values(args, "--approval", approval_values);
  if (err.empty()) err = parse_tool_names("--approval", approval_values, approvals);
  if (err.empty() && deferrals.empty() && approvals.empty())
    err =
        "--defer NAMES|all or --approval NAMES|all is required (the tools the host answers, or "
        "whose calls a person approves)";
  if (err.empty()) err = parse_common(args, opts);
  if (err.empty() && opts.json) err = kNoJson;
  if (err.empty() && opts.isolate) err = kNoIsolate;
  if (err.empty() && args.size() != 1) err = "expected one program file";
  if (!err.empty()) return usage_error(err, kStartUsage);

  err = load_inputs(opts);
  std::set<std::string> table_tools;  // before the upstreams add theirs
  for (const auto& [name, tool] : opts.run.tools)
    table_tools.insert(name);
  if (err.empty()) err = attach_upstreams(opts);
  std::optional<std::string> source;
  if (err.empty()) source = read_program(args[0], &err);
  if (!source) {
    fmt::print(stderr, "ptc: {}\n", err);
    return kExitUsage;
  }
  apply_deferrals(deferrals, table_tools, opts.run);
  apply_approvals(approvals, opts.run);
  try {
    Execution execution = start(*source, opts.run);
    return settle(execution, flags);
  } catch (const LispError& e) {  // options the engine refuses
    return input_error(e.error());
  }
}

int cmd_resume(std::vector<std::string> args) {
  SnapshotFlags flags;
  std::optional<std::string> results_file;
  std::vector<std::string> approval_values;
  ToolNames approvals;
  std::string err = take_snapshot_flags(args, flags);
  if (err.empty()) err = take_value(args, "--results", results_file);
  if (err.empty()) err = take_values(args, "--approval", approval_values);
  if (err.empty()) err = parse_tool_names("--approval", approval_values, approvals);
  if (err.empty() && !results_file) err = "--results RESULTS.json is required";
  // A first reading for the snapshot's path and bad flags; the second one
  // below lays the flags given over the snapshot's limits.
  std::vector<std::string> positional = args;
  CommonOptions given;
  if (err.empty()) err = parse_common(positional, given);
  if (err.empty()) err = refused_by_resume(given);
  if (err.empty() && given.json) err = kNoJson;
  if (err.empty() && given.isolate) err = kNoIsolate;
  if (err.empty() && positional.size() != 1) err = "expected one snapshot file";
  if (!err.empty()) return usage_error(err, kResumeUsage);

  std::optional<std::string> bytes = read_file(positional[0], &err);
  if (!bytes) return resume_error(Error{ErrorKind::SnapshotError, err, "", {}, ""});
  ToolAnswers answers;
  if (err = load_tool_answers(*results_file, answers); !err.empty())
    return input_error(ErrorKind::ArgsError, err, kResultsShape);
  CommonOptions opts;
  try {
    opts.run.limits = inspect_snapshot(*bytes, flags.key).limits;
  } catch (const LispError& e) {
    return resume_error(e.error());
  }
  parse_common(args, opts);  // read without error above
  if (err = load_context(opts); !err.empty()) {
    fmt::print(stderr, "ptc: {}\n", err);
    return kExitUsage;
  }
  apply_approvals(approvals, opts.run);
  try {
    Execution execution = load(*bytes, opts.run, flags.key);
    // A limit reached while replaying ends it: that outcome, answers unused.
    if (!execution.done()) execution.resume(std::move(answers));
    return settle(execution, flags);
  } catch (const LispError& e) {  // snapshot_error, snapshot_divergence, ids not pending
    return resume_error(e.error());
  }
}

const char* start_help() {
  return "usage: ptc start FILE.clj --defer NAMES|all --snapshot OUT [--key-file FILE] [options]\n"
         "       ptc start FILE.clj --approval NAMES|all --snapshot OUT [options]\n"
         "\n"
         "Runs a program (FILE - reads stdin) until it finishes or until every live part\n"
         "of it waits on a deferred tool, a tool the host answers (with ptc resume), or\n"
         "on a person's approval of a call.\n"
         "  --defer NAMES       comma-separated names of the tools the host answers (the\n"
         "                      flag may be repeated); all: every tool the program calls,\n"
         "                      the --tools table's included\n"
         "  --approval NAMES    comma-separated names of the tools whose every call a\n"
         "                      person approves before it runs (repeatable); all: every\n"
         "                      tool given (the --tools table, the upstreams, the tools\n"
         "                      --defer names). A call of one suspends with\n"
         "                      \"kind\":\"approval\"; approved, the tool runs (a deferred one\n"
         "                      is then pending as a call with the same id); rejected, the\n"
         "                      program fails with a tool_error that says so\n"
         "  --snapshot OUT      where a suspended execution is written, atomically and\n"
         "                      readable by its owner only; when the program finishes\n"
         "                      instead, an OUT left by an earlier step is removed\n"
         "  --key-file FILE     sign the snapshot with HMAC-SHA256 keyed by FILE's content\n"
         "                      (ptc resume must be given the same key)\n"
         "A --tools table's tools that are not deferred are answered from it, as in ptc run.\n"
         "\n"
         "Prints one JSON object on stdout:\n"
         "  {\"status\":\"suspended\",\"calls\":[{\"id\":\"c0\",\"tool\":\"get-user\","
         "\"args\":{...}}]}\n"
         "  {\"status\":\"done\",\"ok\":true,\"value\":\"<Clojure syntax>\",\"prints\":[...]}\n"
         "  {\"status\":\"done\",\"ok\":false,\"error\":{\"reason\":...,\"message\":...,"
         "\"hint\":...,\n"
         "   \"line\":...,\"column\":...}}\n"
         "A pmap suspends once, with the calls of all its running branches (at most\n"
         "--pmap-max-concurrency of them). Call ids are stable: \"c1\" is the program's\n"
         "second tool call, \"p0.2/c0\" the first of branch 2 of its first pmap.\n"
         "A call whose arguments have no JSON form has \"args_clojure\" (them in Clojure\n"
         "syntax) instead of \"args\". An approval's \"line\" and \"column\" say where the\n"
         "program makes the call.\n"
         "Exit codes: 0 suspended or done ok, 1 the program failed, 2 a bad command line\n"
         "or input (nothing is written, the error goes to stderr).\n"
         "\n"
         "options (as ptc run's; --json does not apply):\n";
}

const char* resume_help() {
  return "usage: ptc resume SNAPSHOT --results RESULTS.json --snapshot OUT [--key-file FILE]\n"
         "                  [options]\n"
         "\n"
         "Continues the execution in SNAPSHOT (written by ptc start or ptc resume) with\n"
         "answers to some or all of its pending calls, until it finishes or every live\n"
         "part of it waits again, and prints what ptc start prints (the calls still\n"
         "pending with the new ones). RESULTS.json answers calls by id:\n"
         "  {\"c0\": {\"value\": {\"name\": \"Ada\"}}, \"c1\": {\"error\": \"no such user\"}}\n"
         "A value is what the tool returned (read as a --tools table's \"result\" is); an\n"
         "error is the tool's failure, which the program sees as a tool_error. A call\n"
         "pending with \"kind\":\"approval\" is answered with a decision:\n"
         "  {\"c2\": {\"approve\": true}, \"p0.1/c0\": {\"reject\": \"not to that address\"}}\n"
         "  --results FILE      the answers\n"
         "  --approval NAMES    as for ptc start, for the tools given again (calls that\n"
         "                      waited for approval in SNAPSHOT still do)\n"
         "  --snapshot OUT      as for ptc start (OUT may be SNAPSHOT itself)\n"
         "  --key-file FILE     the key SNAPSHOT was signed with: required for a signed\n"
         "                      snapshot, refused for an unsigned one; signs OUT\n"
         "The program, context, memory, signature and what the tools and the clock\n"
         "answered so far come from SNAPSHOT, which is replayed to where it stood. It runs\n"
         "under the limits SNAPSHOT recorded, except those given again as flags. Every\n"
         "tool the program knows that --tools does not give is answered by the host: give\n"
         "the same --tools (and --upstreams) as to ptc start to keep those answered there.\n"
         "Exit codes: 0 suspended or done ok, 1 the program failed, 2 (nothing written,\n"
         "the error on stderr) a bad command line, an unreadable, truncated, corrupt or\n"
         "wrongly signed snapshot (snapshot_error), one that does not replay on this\n"
         "engine (snapshot_divergence), answers to ids that are not pending or a\n"
         "malformed RESULTS.json (args_error).\n"
         "\n"
         "options: the limits, --tools, --upstreams, --upstream-required and\n"
         "--max-upstream-calls of this list (--context, --memory, --signature,\n"
         "--float-precision and --no-filter-context come from the snapshot, and --json\n"
         "does not apply):\n";
}

}  // namespace ptc::cli
