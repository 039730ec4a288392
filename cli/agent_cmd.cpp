// ptc agent: the agent loop with a real model (--model SPEC, protocol/agent/model)
// or a scripted one (--script FILE.json), for trying prompts, tools and
// transports (tool_call, content) without an LLM, and for black-box tests.
// A script gives the agent's options, its tools as replay tables, the
// prompt, and the model's assistant messages in order; with --model the
// same options come from flags and files (--tools holds the same tool
// objects as a script's agent.tools).
#include <fmt/format.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "cli/agent_model.hpp"
#include "cli/cli.hpp"
#include "protocol/agent/agent.hpp"
#include "protocol/agent/agent_json.hpp"
#include "protocol/agent/model/model_json.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::cli {

namespace {

using protocol::AgentOptions;
using protocol::LlmRequest;
using protocol::LlmResponse;
using K = HostValue::Kind;

using host::str;

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

// A script's agent options, prompt and model turns (see ptc agent --help).
void read_script(const std::string& text, const std::string& path,
                 const protocol::AgentToolFunction& replay, AgentOptions& options,
                 std::vector<ScriptedTurn>& turns) {
  HostValue script;
  try {
    script = parse_json(text);
  } catch (LispError& e) {
    bad(fmt::format("{} is not valid JSON: {}", path, e.error().describe()));
  }
  if (script.kind() != K::Map) bad("the script must be a JSON object");
  const HostValue empty = HostValue::map({});
  const HostValue* agent = script.get("agent");
  if (agent && agent->kind() != K::Map) bad("agent: expected an object");
  protocol::read_agent_options(agent ? *agent : empty, "agent", replay, options);
  if (const HostValue* prompt = script.get("prompt"); prompt && !prompt->is_nil()) {
    if (!is_text(prompt)) bad("script.prompt: expected a string");
    options.prompt = prompt->text();
  }
  const HostValue* llm = script.get("llm");
  if (!llm || llm->kind() != K::Vector) bad("llm: expected an array of assistant messages");
  for (size_t i = 0; i < llm->items().size(); ++i)
    turns.push_back(read_turn(llm->items()[i], i));
}

}  // namespace

namespace {

// The flags of the --model mode that shape the agent (the rest are
// read_model_flag's).
struct ModelRunFlags {
  ModelFlags model;
  std::string prompt, tools_path, context_path, output, transport, signature;
  std::optional<int64_t> max_turns;
  bool json = false;
};

// An agent object like a script's, from the --model mode's flags and files.
HostValue agent_object(const ModelRunFlags& f) {
  std::vector<std::pair<HostValue, HostValue>> a;
  if (!f.output.empty()) a.emplace_back(str("output"), str(f.output));
  if (!f.transport.empty()) a.emplace_back(str("transport"), str(f.transport));
  if (!f.signature.empty()) a.emplace_back(str("signature"), str(f.signature));
  if (f.max_turns) a.emplace_back(str("max_turns"), HostValue::integer(*f.max_turns));
  auto load = [](const std::string& path, const char* what) {
    std::string error;
    auto text = read_file(path, &error);
    if (!text) bad(error);
    HostValue v;
    try {
      v = parse_json(*text);
    } catch (LispError& e) {
      bad(fmt::format("{} is not valid JSON: {}", path, e.error().describe()));
    }
    if (v.kind() != K::Map) bad(fmt::format("{} ({}) must be a JSON object", path, what));
    return v;
  };
  if (!f.tools_path.empty()) a.emplace_back(str("tools"), load(f.tools_path, "--tools"));
  if (!f.context_path.empty()) a.emplace_back(str("context"), load(f.context_path, "--context"));
  return HostValue::map(std::move(a));
}

// What a successful run answered, on stdout: text as it is, other values as JSON.
void print_answer(const protocol::AgentResult& r) {
  if (r.value.kind() == K::String)
    fmt::print("{}\n", r.value.text());
  else
    fmt::print("{}\n", to_json(r.value, true));
}

}  // namespace

int cmd_agent(std::vector<std::string> args) {
  std::string script_path, upstreams_path;
  bool upstream_required = false;
  ModelRunFlags mf;
  auto int_flag = [](const std::string& flag, const std::string& v, std::string* error) {
    std::optional<int64_t> n = integer(v);
    if (!n || *n < 1) {
      *error = fmt::format("{} '{}': expected a positive integer", flag, v);
      return std::optional<int64_t>();
    }
    return n;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string error;
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (read_model_flag(args, i, mf.model, &error)) {
    } else if (a == "--script" && has_value) {
      script_path = args[++i];
    } else if (a == "--upstreams" && has_value) {
      upstreams_path = args[++i];
    } else if (a == "--upstream-required") {
      upstream_required = true;
    } else if (a == "--prompt" && has_value) {
      mf.prompt = args[++i];
    } else if (a == "--tools" && has_value) {
      mf.tools_path = args[++i];
    } else if (a == "--context" && has_value) {
      mf.context_path = args[++i];
    } else if (a == "--output" && has_value) {
      mf.output = args[++i];
    } else if (a == "--transport" && has_value) {
      mf.transport = args[++i];
    } else if (a == "--signature" && has_value) {
      mf.signature = args[++i];
    } else if (a == "--max-turns" && has_value) {
      ++i;
      mf.max_turns = int_flag(a, args[i], &error);
    } else if (a == "--json") {
      mf.json = true;
    } else {
      fmt::print(stderr, "ptc agent: unknown argument '{}' (see ptc agent --help)\n", a);
      return kExitUsage;
    }
    if (!error.empty()) {
      fmt::print(stderr, "ptc agent: {}\n", error);
      return kExitUsage;
    }
  }
  bool with_model = !mf.model.spec.empty();
  if (script_path.empty() == !with_model) {
    fmt::print(stderr,
               "ptc agent: give --script FILE.json or --model SPEC (see ptc agent --help)\n");
    return kExitUsage;
  }
  if (with_model && mf.prompt.empty()) {
    fmt::print(stderr, "ptc agent: --model needs --prompt TEXT (the mission)\n");
    return kExitUsage;
  }

  AgentOptions options;
  std::map<std::string, std::shared_ptr<ScriptedTool>> scripted;
  std::vector<ScriptedTurn> turns;
  auto replay = [&](const std::string& name, const HostValue& spec, const std::string& at) {
    auto st = std::make_shared<ScriptedTool>();
    st->name = name;
    scripted[name] = st;
    return replay_tool(spec, at, st);
  };
  try {
    if (with_model) {
      protocol::read_agent_options(agent_object(mf), "agent", replay, options);
      options.prompt = mf.prompt;
    } else {
      std::string error;
      auto text = read_file(script_path, &error);
      if (!text) bad(error);
      read_script(*text, script_path, replay, options, turns);
    }
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
    std::string error;
    upstreams = start_upstreams(upstreams_path, upstream_required, &error);
    if (!upstreams) {
      fmt::print(stderr, "ptc agent: {}\n", error);
      return kExitUsage;
    }
    options.attach_tools = [upstreams](RunOptions& o) { upstream::attach(o, upstreams); };
  }

  std::vector<HostValue> events;
  std::mutex events_mutex;
  AgentProgress progress(stderr);
  options.telemetry = [&](const protocol::AgentEvent& e) {
    std::lock_guard lock(events_mutex);
    events.push_back(protocol::agent_event_json(e));
    if (with_model) progress.event(e);
  };
  std::unique_ptr<ModelClient> model;
  protocol::LlmCallable llm;
  if (with_model) {
    mf.model.options.on_attempt = [&](const ModelCallReport& r) {
      std::lock_guard lock(events_mutex);
      progress.attempt(r);
    };
    try {
      model = model_client(mf.model.spec, mf.model.options);
    } catch (const std::invalid_argument& e) {
      fmt::print(stderr, "ptc agent: {}\n", e.what());
      return kExitUsage;
    }
    llm = model->callable();
  } else {
    auto next = std::make_shared<size_t>(0);
    llm = [next, &turns](const LlmRequest&) -> LlmResponse {
      if (*next >= turns.size())
        return LlmResponse::failure(fmt::format(
            "the script has no response left for turn {} (it has {})", *next + 1, turns.size()));
      const ScriptedTurn& t = turns[(*next)++];
      if (t.throw_message) throw std::runtime_error(*t.throw_message);
      return t.response;
    };
  }

  protocol::AgentResult result;
  try {
    protocol::Agent agent(std::move(options), llm);
    result = agent.run();
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ptc agent: {}\n", e.what());
    return kExitUsage;
  }
  progress.finish();

  if (with_model && !mf.json) {
    if (result.ok) {
      print_answer(result);
      return kExitOk;
    }
    fmt::print(stderr, "ptc agent: {}: {}\n", result.fail_reason, result.fail_message);
    return kExitProgramError;
  }
  std::vector<std::pair<HostValue, HostValue>> executions;
  for (const auto& [name, st] : scripted)
    executions.emplace_back(str(name), HostValue::integer(st->executions.load()));
  std::vector<std::pair<HostValue, HostValue>> extra{
      {str("tool_executions"), HostValue::map(std::move(executions))},
      {str("telemetry"), HostValue::vector(std::move(events))}};
  if (model) extra.emplace_back(str("usage"), model::usage_json(model->usage()));
  HostValue out = protocol::agent_result_json(result, std::move(extra));
  fmt::print("{}\n", to_json(out, true));
  return result.ok ? kExitOk : kExitProgramError;
}

}  // namespace ptc::cli
