// ptc agent --script FILE.json: the agent loop with a scripted model, for
// trying prompts, tools and transports (tool_call, content) without an LLM
// (and for black-box tests). The script gives the agent's options, its tools
// as replay tables, the prompt, and the model's assistant messages in order.
#include <fmt/format.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "cli/cli.hpp"
#include "protocol/agent.hpp"
#include "protocol/agent_json.hpp"
#include "runtime/error.hpp"

namespace ptc::cli {

namespace {

using protocol::AgentOptions;
using protocol::LlmRequest;
using protocol::LlmResponse;
using K = HostValue::Kind;

HostValue str(std::string_view s) {
  return HostValue::string(std::string(s));
}

bool is_text(const HostValue* v) {
  return v && (v->kind() == K::String || v->kind() == K::Keyword);
}

// One recorded call of a scripted tool: without "args" it answers any call.
struct ReplayEntry {
  std::optional<std::string> args_key;
  HostValue result;
  std::optional<std::string> error;
};

struct ScriptedTool {
  std::string name;
  std::vector<ReplayEntry> entries;
  std::atomic<int> executions{0};
};

// Problems with the script are reported with where they are.
[[noreturn]] void bad(std::string message) {
  throw protocol::AgentJsonError(std::move(message));
}

// The replay table of a scripted tool (agent.tools.<name>.replay) as its function.
Tool replay_tool(const HostValue& spec, const std::string& at,
                 const std::shared_ptr<ScriptedTool>& scripted) {
  const HostValue* replay = spec.get("replay");
  if (replay && !replay->is_nil()) {
    if (replay->kind() != K::Vector) bad(at + ".replay: expected an array");
    for (size_t i = 0; i < replay->items().size(); ++i) {
      const HostValue& e = replay->items()[i];
      std::string eat = fmt::format("{}.replay[{}]", at, i);
      if (e.kind() != K::Map) bad(eat + ": expected an object");
      ReplayEntry entry;
      if (const HostValue* a = e.get("args"); a && !a->is_nil())
        entry.args_key = canonical_args_key(*a);
      const HostValue* result = e.get("result");
      const HostValue* error = e.get("error");
      if (!result && !error) bad(eat + ": needs a \"result\" or an \"error\"");
      if (result) entry.result = *result;
      if (error) {
        if (!is_text(error)) bad(eat + ".error: expected a string");
        entry.error = error->text();
      }
      scripted->entries.push_back(std::move(entry));
    }
  }
  Tool tool;
  tool.fn = [scripted](const HostValue& args) {
    ++scripted->executions;
    std::string key = canonical_args_key(args);
    for (const ReplayEntry& e : scripted->entries) {
      if (e.args_key && *e.args_key != key) continue;
      if (e.error) return ToolResult::failure(*e.error);
      return ToolResult::success(e.result);
    }
    return ToolResult::failure(fmt::format("no recorded call of {} with arguments {}",
                                           scripted->name, format_value(args)));
  };
  return tool;
}

// A scripted answer: an assistant message, or {"error": ...} (the model
// call fails) or {"throw": ...} (the callable throws).
struct ScriptedTurn {
  LlmResponse response;
  std::optional<std::string> throw_message;
};

ScriptedTurn read_turn(const HostValue& m, size_t i) {
  ScriptedTurn t;
  if (m.kind() == K::Map) {
    if (const HostValue* e = m.get("throw"); is_text(e)) {
      t.throw_message = e->text();
      return t;
    }
  }
  t.response = protocol::llm_response_from_json(m, fmt::format("llm[{}]", i));
  return t;
}

}  // namespace

int cmd_agent(std::vector<std::string> args) {
  std::string script_path, upstreams_path;
  bool upstream_required = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--script" && i + 1 < args.size()) {
      script_path = args[++i];
    } else if (args[i] == "--upstreams" && i + 1 < args.size()) {
      upstreams_path = args[++i];
    } else if (args[i] == "--upstream-required") {
      upstream_required = true;
    } else {
      fmt::print(stderr, "ptc agent: unknown argument '{}' (see ptc agent --help)\n", args[i]);
      return kExitUsage;
    }
  }
  if (script_path.empty()) {
    fmt::print(stderr, "ptc agent: --script FILE.json is required (see ptc agent --help)\n");
    return kExitUsage;
  }
  std::string error;
  auto text = read_file(script_path, &error);
  if (!text) {
    fmt::print(stderr, "ptc agent: {}\n", error);
    return kExitUsage;
  }

  AgentOptions options;
  std::map<std::string, std::shared_ptr<ScriptedTool>> scripted;
  std::vector<ScriptedTurn> turns;
  try {
    HostValue script;
    try {
      script = parse_json(*text);
    } catch (LispError& e) {
      bad(fmt::format("{} is not valid JSON: {}", script_path, e.error().describe()));
    }
    if (script.kind() != K::Map) bad("the script must be a JSON object");
    const HostValue empty = HostValue::map({});
    const HostValue* agent = script.get("agent");
    if (agent && agent->kind() != K::Map) bad("agent: expected an object");
    const HostValue& a = agent ? *agent : empty;
    auto replay = [&](const std::string& name, const HostValue& spec, const std::string& at) {
      auto st = std::make_shared<ScriptedTool>();
      st->name = name;
      scripted[name] = st;
      return replay_tool(spec, at, st);
    };
    protocol::read_agent_options(a, "agent", replay, options);
    if (const HostValue* prompt = script.get("prompt"); prompt && !prompt->is_nil()) {
      if (!is_text(prompt)) bad("script.prompt: expected a string");
      options.prompt = prompt->text();
    }
    const HostValue* llm = script.get("llm");
    if (!llm || llm->kind() != K::Vector) bad("llm: expected an array of assistant messages");
    for (size_t i = 0; i < llm->items().size(); ++i)
      turns.push_back(read_turn(llm->items()[i], i));
  } catch (const protocol::AgentJsonError& e) {
    fmt::print(stderr, "ptc agent: {}\n", e.what());
    return kExitUsage;
  }

  // --upstreams: every program of the agent may call them (tool/call ...).
  std::shared_ptr<upstream::Upstreams> upstreams;
  if (!upstreams_path.empty()) {
    Tools named;
    for (const protocol::AgentTool& t : options.tools)
      named[t.name] = t.tool;
    if (std::string conflict = upstream::host_tool_conflict(named); !conflict.empty()) {
      fmt::print(stderr, "ptc agent: {}\n", conflict);
      return kExitUsage;
    }
    upstreams = start_upstreams(upstreams_path, upstream_required, &error);
    if (!upstreams) {
      fmt::print(stderr, "ptc agent: {}\n", error);
      return kExitUsage;
    }
    options.attach_tools = [upstreams](RunOptions& o) { upstream::attach(o, upstreams); };
  }

  std::vector<HostValue> events;
  std::mutex events_mutex;
  options.telemetry = [&](const protocol::AgentEvent& e) {
    std::lock_guard lock(events_mutex);
    events.push_back(protocol::agent_event_json(e));
  };
  size_t next = 0;
  auto llm = [&](const LlmRequest&) -> LlmResponse {
    if (next >= turns.size())
      return LlmResponse{false,
                         {},
                         {},
                         {},
                         fmt::format("the script has no response left for turn {} (it has {})",
                                     next + 1, turns.size())};
    const ScriptedTurn& t = turns[next++];
    if (t.throw_message) throw std::runtime_error(*t.throw_message);
    return t.response;
  };

  protocol::AgentResult result;
  try {
    protocol::Agent agent(std::move(options), llm);
    result = agent.run();
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ptc agent: {}\n", e.what());
    return kExitUsage;
  }

  std::vector<std::pair<HostValue, HostValue>> executions;
  for (const auto& [name, st] : scripted)
    executions.emplace_back(str(name), HostValue::integer(st->executions.load()));
  HostValue out = protocol::agent_result_json(
      result, {{str("tool_executions"), HostValue::map(std::move(executions))},
               {str("telemetry"), HostValue::vector(std::move(events))}});
  fmt::print("{}\n", to_json(out, true));
  return result.ok ? kExitOk : kExitProgramError;
}

}  // namespace ptc::cli
