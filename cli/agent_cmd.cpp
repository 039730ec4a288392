// ptc agent --script FILE.json: the agent loop with a scripted model, for
// trying prompts, tools and transports without an LLM (and for black-box
// tests). The script gives the agent's options, its tools as replay tables,
// the prompt, and the model's assistant messages in order.
#include <fmt/format.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "cli/cli.hpp"
#include "protocol/agent.hpp"
#include "runtime/error.hpp"

namespace ptc::cli {

namespace {

using protocol::AgentOptions;
using protocol::AgentTool;
using protocol::ChatMessage;
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
struct ScriptError {
  std::string message;
};

[[noreturn]] void bad(std::string message) {
  throw ScriptError{std::move(message)};
}

int64_t integer_field(const HostValue& obj, const char* key, const std::string& at, int64_t dflt) {
  const HostValue* v = obj.get(key);
  if (!v || v->is_nil()) return dflt;
  if (v->kind() != K::Int) bad(fmt::format("{}.{}: expected an integer", at, key));
  return v->as_int();
}

std::string text_field(const HostValue& obj, const char* key, const std::string& at) {
  const HostValue* v = obj.get(key);
  if (!v || v->is_nil()) return "";
  if (!is_text(v)) bad(fmt::format("{}.{}: expected a string", at, key));
  return v->text();
}

AgentTool read_tool(const std::string& name, const HostValue& spec,
                    std::shared_ptr<ScriptedTool> scripted) {
  std::string at = "agent.tools." + name;
  if (spec.kind() != K::Map) bad(at + ": expected an object");
  AgentTool t;
  t.name = name;
  t.description = text_field(spec, "description", at);
  t.signature = text_field(spec, "signature", at);
  if (std::string e = text_field(spec, "expose", at); !e.empty()) {
    t.expose = protocol::expose_from_name(e);
    if (!t.expose)
      bad(fmt::format("{}.expose: \"{}\" is not one of native, ptc_lisp, both", at, e));
  }
  if (const HostValue* c = spec.get("cache"); c && !c->is_nil()) {
    if (c->kind() != K::Bool) bad(at + ".cache: expected true or false");
    t.cache = c->as_bool();
  }
  if (const HostValue* nr = spec.get("native_result"); nr && !nr->is_nil()) {
    if (nr->kind() != K::Map) bad(at + ".native_result: expected an object");
    protocol::NativeResultOptions o;
    std::string preview = text_field(*nr, "preview", at + ".native_result");
    if (preview == "rows")
      o.kind = protocol::NativeResultOptions::Kind::Rows;
    else if (preview.empty() || preview == "metadata")
      o.kind = protocol::NativeResultOptions::Kind::Metadata;
    else
      bad(fmt::format("{}.native_result.preview: \"{}\" is not metadata or rows", at, preview));
    int64_t limit = integer_field(*nr, "limit", at + ".native_result", 20);
    if (limit < 1) bad(at + ".native_result.limit: expected a positive integer");
    o.limit = static_cast<size_t>(limit);
    t.native_result = o;
  }
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
  t.tool.fn = [scripted](const HostValue& args) {
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
  return t;
}

// A scripted answer: an assistant message, or {"error": ...} (the model
// call fails) or {"throw": ...} (the callable throws).
struct ScriptedTurn {
  LlmResponse response;
  std::optional<std::string> throw_message;
};

ScriptedTurn read_turn(const HostValue& m, size_t i) {
  std::string at = fmt::format("llm[{}]", i);
  ScriptedTurn t;
  if (m.kind() == K::Map) {
    if (const HostValue* e = m.get("error"); is_text(e)) {
      t.response.ok = false;
      t.response.error = e->text();
      return t;
    }
    if (const HostValue* e = m.get("throw"); is_text(e)) {
      t.throw_message = e->text();
      return t;
    }
  }
  ChatMessage msg;
  std::string error;
  if (!protocol::from_openai(m, &msg, &error)) bad(fmt::format("{}: {}", at, error));
  if (msg.role != "assistant") bad(fmt::format("{}.role: expected \"assistant\"", at));
  t.response.content = msg.content;
  t.response.tool_calls = std::move(msg.tool_calls);
  return t;
}

HostValue json_value(const HostValue& v) {
  try {
    to_json(v);
    return v;
  } catch (LispError&) {
    return str(format_value(v));  // no JSON form (a function): its printed form
  }
}

HostValue event_json(const protocol::AgentEvent& e) {
  std::vector<std::pair<HostValue, HostValue>> f;
  f.emplace_back(str("event"), str(e.event));
  f.emplace_back(str("turn"), HostValue::integer(e.turn));
  if (e.event == "tool_call") {
    f.emplace_back(str("tool_name"), str(e.tool_name));
    f.emplace_back(str("exposure_layer"), str(e.exposure_layer));
    f.emplace_back(str("cached"), HostValue::boolean(e.cached));
    f.emplace_back(str("error"), HostValue::boolean(e.error));
    f.emplace_back(str("cache_key_hash"), str(e.cache_key_hash));
    f.emplace_back(str("full_result_cached"), HostValue::boolean(e.full_result_cached));
    f.emplace_back(str("result_preview_truncated"), HostValue::boolean(e.result_preview_truncated));
    f.emplace_back(str("retained_bytes"),
                   HostValue::integer(static_cast<int64_t>(e.retained_bytes)));
  }
  if (!e.reason.empty()) f.emplace_back(str("reason"), str(e.reason));
  return HostValue::map(std::move(f));
}

HostValue turn_json(const protocol::AgentTurn& t) {
  std::vector<HostValue> prints;
  for (const std::string& p : t.prints)
    prints.push_back(str(p));
  std::vector<HostValue> tools;
  for (const ToolCall& c : t.tool_calls)
    tools.push_back(HostValue::map({{str("name"), str(c.name)},
                                    {str("cached"), HostValue::boolean(c.cached)},
                                    {str("error"), str(c.error)}}));
  return HostValue::map({{str("number"), HostValue::integer(t.number)},
                         {str("type"), str(t.type)},
                         {str("program"), t.program ? str(*t.program) : HostValue()},
                         {str("result"), json_value(t.result)},
                         {str("prints"), HostValue::vector(std::move(prints))},
                         {str("tool_calls"), HostValue::vector(std::move(tools))},
                         {str("success"), HostValue::boolean(t.success)}});
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
    std::string output = text_field(a, "output", "agent");
    if (output.empty() || output == "ptc_lisp")
      options.output = protocol::OutputMode::PtcLisp;
    else if (output == "text")
      options.output = protocol::OutputMode::Text;
    else
      bad(fmt::format("agent.output: \"{}\" is not ptc_lisp or text", output));
    if (std::string t = text_field(a, "transport", "agent"); !t.empty() && t != "tool_call")
      bad(fmt::format("agent.transport: \"{}\" is not supported (only tool_call)", t));
    options.max_turns = static_cast<int>(integer_field(a, "max_turns", "agent", 5));
    options.retry_turns = static_cast<int>(integer_field(a, "retry_turns", "agent", 0));
    int64_t max_calls = integer_field(a, "max_tool_calls", "agent", -1);
    if (max_calls >= 0) options.max_tool_calls = static_cast<uint32_t>(max_calls);
    options.signature = text_field(a, "signature", "agent");
    options.system_prompt = text_field(a, "system_prompt", "agent");
    int64_t memory_limit = integer_field(a, "memory_limit", "agent", 1 << 20);
    options.memory_limit = static_cast<size_t>(std::max<int64_t>(memory_limit, 0));
    std::string strategy = text_field(a, "memory_strategy", "agent");
    if (strategy == "rollback")
      options.memory_strategy = protocol::MemoryStrategy::Rollback;
    else if (!strategy.empty() && strategy != "strict")
      bad(fmt::format("agent.memory_strategy: \"{}\" is not strict or rollback", strategy));
    if (const HostValue* c = a.get("context"); c && !c->is_nil()) {
      if (c->kind() != K::Map) bad("agent.context: expected an object");
      options.context = *c;
    }
    if (const HostValue* tools = a.get("tools"); tools && !tools->is_nil()) {
      if (tools->kind() != K::Map) bad("agent.tools: expected an object of tool names");
      const auto& items = tools->items();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        auto st = std::make_shared<ScriptedTool>();
        st->name = items[i].text();
        scripted[st->name] = st;
        options.tools.push_back(read_tool(st->name, items[i + 1], st));
      }
    }
    options.prompt = text_field(script, "prompt", "script");
    const HostValue* llm = script.get("llm");
    if (!llm || llm->kind() != K::Vector) bad("llm: expected an array of assistant messages");
    for (size_t i = 0; i < llm->items().size(); ++i)
      turns.push_back(read_turn(llm->items()[i], i));
  } catch (const ScriptError& e) {
    fmt::print(stderr, "ptc agent: {}\n", e.message);
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
    events.push_back(event_json(e));
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

  std::vector<HostValue> messages;
  for (const ChatMessage& m : result.messages)
    messages.push_back(protocol::to_openai(m));
  std::vector<HostValue> turn_records;
  for (const protocol::AgentTurn& t : result.turns)
    turn_records.push_back(turn_json(t));
  std::vector<std::pair<HostValue, HostValue>> executions;
  for (const auto& [name, st] : scripted)
    executions.emplace_back(str(name), HostValue::integer(st->executions.load()));
  HostValue out = HostValue::map({
      {str("ok"), HostValue::boolean(result.ok)},
      {str("return"), result.ok ? json_value(result.value) : HostValue()},
      {str("fail"), result.ok ? HostValue()
                              : HostValue::map({{str("reason"), str(result.fail_reason)},
                                                {str("message"), str(result.fail_message)}})},
      {str("messages"), HostValue::vector(std::move(messages))},
      {str("turns"), HostValue::integer(static_cast<int64_t>(result.turns.size()))},
      {str("turn_records"), HostValue::vector(std::move(turn_records))},
      {str("tool_executions"), HostValue::map(std::move(executions))},
      {str("telemetry"), HostValue::vector(std::move(events))},
      {str("memory"), json_value(result.memory)},
      {str("fallback_used"), HostValue::boolean(result.fallback_used)},
  });
  fmt::print("{}\n", to_json(out, true));
  return result.ok ? kExitOk : kExitProgramError;
}

}  // namespace ptc::cli
