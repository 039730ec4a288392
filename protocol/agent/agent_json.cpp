#include "protocol/agent/agent_json.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::protocol {

namespace {

using K = HostValue::Kind;

using host::str;

bool is_text(const HostValue* v) {
  return v && (v->kind() == K::String || v->kind() == K::Keyword);
}

[[noreturn]] void bad(std::string message) {
  throw AgentJsonError(std::move(message));
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

// An integer field that must fit an int (turn counts).
int int_field(const HostValue& obj, const char* key, const std::string& at, int dflt) {
  int64_t v = integer_field(obj, key, at, dflt);
  if (v < INT32_MIN || v > INT32_MAX) bad(fmt::format("{}.{}: out of range", at, key));
  return static_cast<int>(v);
}

NativeResultOptions read_native_result(const HostValue& nr, const std::string& at) {
  if (nr.kind() != K::Map) bad(at + ": expected an object");
  NativeResultOptions o;
  std::string preview = text_field(nr, "preview", at);
  if (preview == "rows")
    o.kind = NativeResultOptions::Kind::Rows;
  else if (preview.empty() || preview == "metadata")
    o.kind = NativeResultOptions::Kind::Metadata;
  else
    bad(fmt::format("{}.preview: \"{}\" is not metadata or rows", at, preview));
  int64_t limit = integer_field(nr, "limit", at, 20);
  if (limit < 1) bad(at + ".limit: expected a positive integer");
  o.limit = static_cast<size_t>(limit);
  return o;
}

AgentTool read_tool(const std::string& name, const HostValue& spec, const std::string& at,
                    const AgentToolFunction& function) {
  if (spec.kind() != K::Map) bad(at + ": expected an object");
  AgentTool t;
  t.name = name;
  t.description = text_field(spec, "description", at);
  t.signature = text_field(spec, "signature", at);
  if (std::string e = text_field(spec, "expose", at); !e.empty()) {
    t.expose = expose_from_name(e);
    if (!t.expose)
      bad(fmt::format("{}.expose: \"{}\" is not one of native, ptc_lisp, both", at, e));
  }
  if (const HostValue* c = spec.get("cache"); c && !c->is_nil()) {
    if (c->kind() != K::Bool) bad(at + ".cache: expected true or false");
    t.cache = c->as_bool();
  }
  if (const HostValue* nr = spec.get("native_result"); nr && !nr->is_nil())
    t.native_result = read_native_result(*nr, at + ".native_result");
  t.tool = function(name, spec, at);
  return t;
}

// The value, or its printed form when it has no JSON form (a function).
HostValue json_value(const HostValue& v) {
  try {
    to_json(v);
    return v;
  } catch (LispError&) {
    return str(format_value(v));
  }
}

HostValue turn_json(const AgentTurn& t) {
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

HostValue tokens_json(const TokenCounts& t) {
  return HostValue::map({{str("input"), HostValue::integer(t.input)},
                         {str("output"), HostValue::integer(t.output)},
                         {str("cache_creation"), HostValue::integer(t.cache_creation)},
                         {str("cache_read"), HostValue::integer(t.cache_read)}});
}

TokenCounts read_tokens(const HostValue& v, const std::string& at) {
  if (v.kind() != K::Map) bad(at + ": expected an object");
  TokenCounts t;
  t.input = integer_field(v, "input", at, 0);
  t.output = integer_field(v, "output", at, 0);
  t.cache_creation = integer_field(v, "cache_creation", at, 0);
  t.cache_read = integer_field(v, "cache_read", at, 0);
  return t;
}

}  // namespace

void read_agent_options(const HostValue& a, const std::string& at,
                        const AgentToolFunction& function, AgentOptions& out) {
  if (a.kind() != K::Map) bad(at + ": expected an object");
  std::string output = text_field(a, "output", at);
  if (output.empty() || output == "ptc_lisp")
    out.output = OutputMode::PtcLisp;
  else if (output == "text")
    out.output = OutputMode::Text;
  else
    bad(fmt::format("{}.output: \"{}\" is not ptc_lisp or text", at, output));
  if (std::string t = text_field(a, "transport", at); t == "tool_call")
    out.transport = PtcTransport::ToolCall;
  else if (t == "content")
    out.transport = PtcTransport::Content;
  else if (!t.empty())
    bad(fmt::format("{}.transport: \"{}\" is not tool_call or content", at, t));
  out.max_turns = int_field(a, "max_turns", at, out.max_turns);
  out.retry_turns = int_field(a, "retry_turns", at, out.retry_turns);
  if (const HostValue* m = a.get("max_tool_calls"); m && !m->is_nil()) {
    int64_t max_calls = integer_field(a, "max_tool_calls", at, -1);
    if (max_calls > UINT32_MAX) bad(at + ".max_tool_calls: out of range");
    out.max_tool_calls =
        max_calls >= 0 ? std::optional<uint32_t>(static_cast<uint32_t>(max_calls)) : std::nullopt;
  }
  if (a.get("signature")) out.signature = text_field(a, "signature", at);
  if (a.get("system_prompt")) out.system_prompt = text_field(a, "system_prompt", at);
  int64_t memory_limit =
      integer_field(a, "memory_limit", at, static_cast<int64_t>(out.memory_limit));
  out.memory_limit = static_cast<size_t>(std::max<int64_t>(memory_limit, 0));
  std::string strategy = text_field(a, "memory_strategy", at);
  if (strategy == "rollback")
    out.memory_strategy = MemoryStrategy::Rollback;
  else if (strategy == "strict")
    out.memory_strategy = MemoryStrategy::Strict;
  else if (!strategy.empty())
    bad(fmt::format("{}.memory_strategy: \"{}\" is not strict or rollback", at, strategy));
  if (const HostValue* ms = a.get("mission_timeout_ms"); ms && !ms->is_nil()) {
    int64_t v = integer_field(a, "mission_timeout_ms", at, 0);
    if (v < 0) bad(at + ".mission_timeout_ms: expected 0 or more");
    out.mission_timeout = std::chrono::milliseconds(v);
  }
  if (const HostValue* c = a.get("context"); c && !c->is_nil()) {
    if (c->kind() != K::Map) bad(at + ".context: expected an object");
    out.context = *c;
  }
  if (const HostValue* tools = a.get("tools"); tools && !tools->is_nil()) {
    if (tools->kind() != K::Map) bad(at + ".tools: expected an object of tool names");
    const auto& items = tools->items();
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
      std::string name = items[i].text();
      out.tools.push_back(read_tool(name, items[i + 1], at + ".tools." + name, function));
    }
  }
}

HostValue llm_request_json(const LlmRequest& r) {
  std::vector<HostValue> messages;
  messages.reserve(r.messages.size());
  for (const ChatMessage& m : r.messages)
    messages.push_back(to_openai(m));
  std::vector<std::pair<HostValue, HostValue>> fields = {
      {str("system"), str(r.system)}, {str("messages"), HostValue::vector(std::move(messages))}};
  // Content mode offers no tools: the request has no "tools" key at all.
  if (!r.tools.empty()) fields.emplace_back(str("tools"), HostValue::vector(r.tools));
  fields.emplace_back(str("turn"), HostValue::integer(r.turn));
  fields.emplace_back(str("output"), str(r.output));
  return HostValue::map(std::move(fields));
}

LlmResponse llm_response_from_json(const HostValue& m, const std::string& at) {
  LlmResponse out;
  if (m.kind() == K::Map) {
    if (const HostValue* e = m.get("error"); e && !e->is_nil()) {
      if (!is_text(e)) bad(at + ".error: expected a string");
      out.ok = false;
      out.error = e->text();
      return out;
    }
  }
  ChatMessage msg;
  std::string error;
  if (!from_openai(m, &msg, &error)) bad(fmt::format("{}: {}", at, error));
  if (msg.role != "assistant") bad(fmt::format("{}.role: expected \"assistant\"", at));
  out.content = std::move(msg.content);
  out.tool_calls = std::move(msg.tool_calls);
  if (const HostValue* t = m.get("tokens"); t && !t->is_nil())
    out.tokens = read_tokens(*t, at + ".tokens");
  return out;
}

HostValue agent_event_json(const AgentEvent& e) {
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

HostValue agent_result_json(const AgentResult& r,
                            std::vector<std::pair<HostValue, HostValue>> extra) {
  std::vector<HostValue> messages;
  for (const ChatMessage& m : r.messages)
    messages.push_back(to_openai(m));
  std::vector<HostValue> turn_records;
  for (const AgentTurn& t : r.turns)
    turn_records.push_back(turn_json(t));
  HostValue fail;
  if (!r.ok) {
    std::vector<std::pair<HostValue, HostValue>> ff{{str("reason"), str(r.fail_reason)},
                                                    {str("message"), str(r.fail_message)}};
    if (!r.llm_error_kind.empty()) {
      ff.emplace_back(str("kind"), str(r.llm_error_kind));
      ff.emplace_back(str("retryable"), HostValue::boolean(r.llm_error_retryable));
    }
    fail = HostValue::map(std::move(ff));
  }
  std::vector<std::pair<HostValue, HostValue>> f{
      {str("ok"), HostValue::boolean(r.ok)},
      {str("return"), r.ok ? json_value(r.value) : HostValue()},
      {str("fail"), std::move(fail)},
      {str("messages"), HostValue::vector(std::move(messages))},
      {str("turns"), HostValue::integer(static_cast<int64_t>(r.turns.size()))},
      {str("turn_records"), HostValue::vector(std::move(turn_records))},
      {str("memory"), json_value(r.memory)},
      {str("fallback_used"), HostValue::boolean(r.fallback_used)},
      {str("native_tool_calls"), HostValue::integer(r.native_tool_calls)},
      {str("tokens"), tokens_json(r.tokens)},
  };
  for (auto& field : extra)
    f.push_back(std::move(field));
  return HostValue::map(std::move(f));
}

}  // namespace ptc::protocol
