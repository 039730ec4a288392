#include "protocol/mcp/session_tools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <utility>

#include "protocol/lisp_eval/feedback.hpp"
#include "protocol/lisp_eval/text.hpp"
#include "protocol/lisp_eval/tool.hpp"
#include "protocol/mcp/envelope.hpp"
#include "protocol/mcp/lisp_eval_tool.hpp"
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/memory_sessions.hpp"
#include "protocol/mcp/output_schema.hpp"
#include "protocol/mcp/redis_sessions.hpp"
#include "protocol/mcp/shared_store.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::mcp {

namespace {

using Kind = HostValue::Kind;
using Entries = std::vector<std::pair<HostValue, HostValue>>;

constexpr size_t kPreviewChars = 512;  // a binding or *N in inspect
constexpr size_t kNoteNames = 20;      // names listed in the slim text's session note
constexpr size_t kReasonChars = 200;   // lisp_session_close `reason`
constexpr std::string_view kArgsFeedback =
    "Fix that argument and call again; the tool's input schema lists every argument.";

using host::str;
HostValue num(uint64_t n) {
  return HostValue::integer(static_cast<int64_t>(std::min<uint64_t>(n, INT64_MAX)));
}
HostValue flag(bool b) {
  return HostValue::boolean(b);
}
HostValue strings(const std::vector<std::string>& items) {
  std::vector<HostValue> out;
  out.reserve(items.size());
  for (const std::string& s : items)
    out.push_back(str(s));
  return HostValue::vector(std::move(out));
}

// `map` with `key` set to `value` (replaced in place, or added at the end).
HostValue with_entry(const HostValue& map, std::string_view key, HostValue value) {
  Entries entries;
  bool replaced = false;
  const auto& items = map.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i].kind() == Kind::String && items[i].text() == key) {
      entries.emplace_back(items[i], std::move(value));
      replaced = true;
    } else {
      entries.emplace_back(items[i], items[i + 1]);
    }
  }
  if (!replaced) entries.emplace_back(str(key), std::move(value));
  return HostValue::map(std::move(entries));
}

// `s` as a JSON string for a message, cut to `max_chars` characters.
std::string quoted(std::string_view s, size_t max_chars = 40) {
  bool cut = false;
  std::string text = protocol::cut_text(protocol::utf8_text(s), max_chars, &cut);
  return to_json(HostValue::string(cut ? text + "..." : text));
}

std::vector<std::string> binding_names(const HostValue& memory) {
  std::vector<std::string> names;
  const auto& items = memory.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    names.push_back(items[i].text());
  std::sort(names.begin(), names.end());
  return names;
}

// ---------------------------------------------------------------- results

// The session block of an eval's payload.
HostValue eval_session_json(const SessionInfo& i) {
  return HostValue::map({{str("session_id"), str(i.id)},
                         {str("turn"), num(i.turn)},
                         {str("memory_bytes"), num(i.memory_bytes)},
                         {str("binding_count"), num(i.binding_count)}});
}

// What list and inspect tell about a session.
HostValue session_json(const SessionInfo& i) {
  return HostValue::map({{str("session_id"), str(i.id)},
                         {str("title"), str(i.title)},
                         {str("mode"), str(i.mode)},
                         {str("turn"), num(i.turn)},
                         {str("memory_bytes"), num(i.memory_bytes)},
                         {str("binding_count"), num(i.binding_count)},
                         {str("busy"), flag(i.busy)},
                         {str("created_at"), str(utc_timestamp(i.created_at))},
                         {str("last_used_at"), str(utc_timestamp(i.last_used_at))},
                         {str("expires_at"), str(utc_timestamp(i.expires_at))},
                         {str("idle_expires_at"), str(utc_timestamp(i.idle_expires_at))}});
}

HostValue limits_json(const ServerConfig& c, uint64_t ttl_ms) {
  return HostValue::map({{str("ttl_ms"), num(ttl_ms)},
                         {str("idle_timeout_ms"), num(c.session_idle_timeout_ms)},
                         {str("max_session_memory_bytes"), num(c.max_session_memory_bytes)},
                         {str("max_session_bindings"), num(c.max_session_bindings)},
                         {str("max_history_entry_bytes"), num(kMaxHistoryEntryBytes)},
                         {str("max_print_entries"), num(kMaxSessionPrintEntries)},
                         {str("max_print_bytes"), num(kMaxSessionPrintBytes)},
                         {str("max_program_bytes"), num(c.max_program_bytes)},
                         {str("max_context_bytes"), num(c.max_context_bytes)},
                         {str("program_timeout_ms"), num(c.program_timeout_ms)},
                         {str("program_memory_limit_bytes"), num(c.program_memory_limit_bytes)}});
}

HostValue ok_result(Entries entries) {
  entries.insert(entries.begin(), {str("status"), str("ok")});
  return structured_result(HostValue::map(std::move(entries)));
}

HostValue args_error(const std::string& message) {
  return error_result("session_args_error", message, kArgsFeedback);
}

std::string_view store_feedback(std::string_view reason) {
  if (reason == "session_not_found")
    return "Use a session_id that lisp_session_start gave this client; lisp_session_list shows "
           "your open sessions.";
  if (reason == "session_closed")
    return "The session and what it held are gone; start a new one with lisp_session_start.";
  if (reason == "session_busy")
    return "Wait for the running eval to answer, then call again; a session runs one eval at a "
           "time.";
  if (reason == kStoreUnavailableReason) return kStoreUnavailableHint;
  return "Close sessions you no longer need with lisp_session_close, then call again.";
}

HostValue store_error(const SessionError& e) {
  return error_result(e.reason, e.message, store_feedback(e.reason));
}

// ---------------------------------------------------------------- arguments

std::string_view json_type(const HostValue& v) {
  switch (v.kind()) {
    case Kind::Nil:
      return "null";
    case Kind::Bool:
      return "a boolean";
    case Kind::Int:
    case Kind::BigInt:
    case Kind::Float:
      return "a number";
    case Kind::String:
    case Kind::Keyword:
      return "a string";
    case Kind::Vector:
    case Kind::Set:
      return "an array";
    case Kind::Map:
      return "an object";
    case Kind::Opaque:
      break;
  }
  return "a value";
}

// A call's arguments, read one by one: an object (null counts as {}) with no
// key outside `allowed`. The first problem found is kept in error(); getters
// called after it return empty values.
class Args {
 public:
  Args(std::string_view tool, const HostValue& args, std::vector<std::string_view> allowed)
      : tool_(tool), args_(args) {
    if (args.is_nil()) return;
    if (args.kind() != Kind::Map) {
      fail(fmt::format("{} arguments must be a JSON object, got {}.", tool, json_type(args)));
      return;
    }
    const auto& items = args.items();
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
      const std::string& key = items[i].text();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      if (allowed.empty())
        fail(fmt::format("{} takes no arguments, got {}.", tool, quoted(key)));
      else
        fail(fmt::format("{} has no argument {}; it takes: {}.", tool, quoted(key),
                         fmt::join(allowed, ", ")));
      return;
    }
  }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

  // nullptr when absent or null (null stands for "not given").
  const HostValue* find(std::string_view name) const {
    if (!ok() || args_.kind() != Kind::Map) return nullptr;
    const HostValue* v = args_.get(name);
    return v && !v->is_nil() ? v : nullptr;
  }

  std::optional<std::string> string(std::string_view name, bool required, size_t max_chars = 0) {
    const HostValue* v = find(name);
    if (!v) {
      if (required && ok())
        fail(fmt::format("{} needs the `{}` argument (a string).", tool_, name));
      return std::nullopt;
    }
    if (v->kind() != Kind::String) {
      fail(fmt::format("{} `{}` must be a string, got {}.", tool_, name, json_type(*v)));
      return std::nullopt;
    }
    if (max_chars) {
      bool cut = false;
      protocol::cut_text(v->text(), max_chars, &cut);
      if (cut) {
        fail(fmt::format("{} `{}` must be at most {} characters.", tool_, name, max_chars));
        return std::nullopt;
      }
    }
    return v->text();
  }

  std::string session_id() {
    std::optional<std::string> id = string("session_id", true);
    if (!id) return "";
    if (!is_session_id(*id)) {
      fail(fmt::format(
          "{} `session_id` must be an id that lisp_session_start returned (\"ptcs_\" and 24 "
          "characters), got {}.",
          tool_, quoted(*id)));
      return "";
    }
    return *id;
  }

  std::optional<uint64_t> positive_integer(std::string_view name) {
    const HostValue* v = find(name);
    if (!v) return std::nullopt;
    if (v->kind() == Kind::Int && v->as_int() >= 1) return static_cast<uint64_t>(v->as_int());
    if (v->kind() == Kind::BigInt && v->text()[0] != '-') return UINT64_MAX;  // clamped anyway
    fail(fmt::format("{} `{}` must be a positive integer, got {}.", tool_, name,
                     v->kind() == Kind::Int ? std::to_string(v->as_int()) : json_type(*v)));
    return std::nullopt;
  }

  // An array of strings, each one of `choices` when given.
  std::vector<std::string> string_list(std::string_view name,
                                       const std::vector<std::string_view>& choices = {}) {
    const HostValue* v = find(name);
    if (!v) return {};
    if (v->kind() != Kind::Vector) {
      fail(fmt::format("{} `{}` must be an array of strings, got {}.", tool_, name, json_type(*v)));
      return {};
    }
    std::vector<std::string> out;
    for (size_t i = 0; i < v->items().size(); ++i) {
      const HostValue& x = v->items()[i];
      if (x.kind() != Kind::String) {
        fail(fmt::format("{} `{}[{}]` must be a string, got {}.", tool_, name, i, json_type(x)));
        return {};
      }
      if (!choices.empty() &&
          std::find(choices.begin(), choices.end(), x.text()) == choices.end()) {
        fail(fmt::format("{} `{}[{}]` must be one of {}, got {}.", tool_, name, i,
                         fmt::join(choices, ", "), quoted(x.text())));
        return {};
      }
      out.push_back(x.text());
    }
    return out;
  }

  // One of `choices`, or `fallback` when absent.
  std::string choice(std::string_view name, const std::vector<std::string_view>& choices,
                     std::string_view fallback) {
    std::optional<std::string> v = string(name, false);
    if (!v) return std::string(fallback);
    if (std::find(choices.begin(), choices.end(), *v) == choices.end()) {
      fail(fmt::format("{} `{}` must be one of {}, got {}.", tool_, name, fmt::join(choices, ", "),
                       quoted(*v)));
      return std::string(fallback);
    }
    return *v;
  }

 private:
  std::string_view tool_;
  const HostValue& args_;
  std::string error_;
};

// ---------------------------------------------------------------- definitions

HostValue typed(std::string_view type, std::string_view description) {
  return HostValue::map({{str("type"), str(type)}, {str("description"), str(description)}});
}

HostValue enum_of(std::vector<std::string_view> values) {
  std::vector<HostValue> out;
  for (std::string_view v : values)
    out.push_back(str(v));
  return HostValue::vector(std::move(out));
}

HostValue definition_of(std::string_view name, std::string_view description, Entries properties,
                        std::vector<std::string> required, bool read_only, bool destructive,
                        bool idempotent) {
  Entries schema{{str("type"), str("object")},
                 {str("properties"), HostValue::map(std::move(properties))}};
  if (!required.empty()) schema.emplace_back(str("required"), strings(required));
  schema.emplace_back(str("additionalProperties"), flag(false));
  return HostValue::map(
      {{str("name"), str(name)},
       {str("description"), str(description)},
       {str("inputSchema"), HostValue::map(std::move(schema))},
       {str("annotations"), HostValue::map({{str("readOnlyHint"), flag(read_only)},
                                            {str("destructiveHint"), flag(destructive)},
                                            {str("idempotentHint"), flag(idempotent)},
                                            {str("openWorldHint"), flag(false)}})}});
}

std::pair<HostValue, HostValue> session_id_property(std::string_view what) {
  return {str("session_id"),
          typed("string", fmt::format("The session {}: the id lisp_session_start returned "
                                      "(\"ptcs_\" and 24 characters).",
                                      what))};
}

// ---------------------------------------------------------------- tools

class SessionTool : public McpTool {
 public:
  SessionTool(std::shared_ptr<SessionStore> store, std::string_view name)
      : store_(std::move(store)), name_(name) {}
  const std::string& name() const override { return name_; }
  bool gated() const override { return false; }

 protected:
  const ServerConfig& config() const { return store_->config(); }
  std::shared_ptr<SessionStore> store_;
  std::string name_;
};

// ------------------------------------------------ lisp_session_start

class StartTool : public SessionTool {
 public:
  using SessionTool::SessionTool;

  HostValue definition() const override {
    return definition_of(
        name_,
        "Starts a PTC-Lisp REPL session. Programs run with lisp_session_eval on its session_id "
        "keep what they define with def/defn, and see the last three results as *1 *2 *3. "
        "A session lives in this server's memory only and belongs to this client; it ends when "
        "closed, when its TTL runs out, or after a while without use. Answers with the "
        "session_id, when it expires and the limits it runs under.",
        {{str("title"), typed("string",
                              "A short label shown by lisp_session_list (at most 200 "
                              "characters).")},
         {str("ttl_ms"),
          HostValue::map({{str("type"), str("integer")},
                          {str("minimum"), num(1)},
                          {str("description"),
                           str(fmt::format("How long the session may live, in milliseconds; the "
                                           "server's maximum ({} ms) when absent or larger.",
                                           config().session_ttl_ms))}})},
         {str("mode"),
          HostValue::map({{str("type"), str("string")},
                          {str("enum"), enum_of({"read_only"})},
                          {str("description"),
                           str("\"read_only\" (the default and the only mode here: programs "
                               "have no tools to write with).")}})},
         {str("preludes"),
          HostValue::map({{str("type"), str("array")},
                          {str("maxItems"), num(0)},
                          {str("description"),
                           str("Preludes (shared definitions) to load at start. This server has "
                               "no prelude store yet: leave it out (an empty list is "
                               "accepted).")}})}},
        {}, false, false, false);
  }

  std::optional<HostValue> precheck(const HostValue& args, const Caller&) const override {
    std::string error;
    parse(args, &error);
    if (!error.empty()) return args_error(error);
    return std::nullopt;
  }

  HostValue call(const HostValue& args, const ToolEnv& env) override {
    std::string error;
    SessionStore::StartOptions options = parse(args, &error);
    if (!error.empty()) return args_error(error);
    bool titled = !options.title.empty();
    SessionResult<SessionInfo> started = store_->start(env.caller.owner, std::move(options));
    if (!started) return store_error(started.error);
    const SessionInfo& i = *started.value;
    Entries out{{str("session_id"), str(i.id)},
                {str("mode"), str(i.mode)},
                {str("expires_at"), str(utc_timestamp(i.expires_at))},
                {str("idle_expires_at"), str(utc_timestamp(i.idle_expires_at))},
                {str("limits"), limits_json(config(), i.ttl_ms)},
                {str("prelude_refs"), HostValue::vector({})}};
    if (titled) out.emplace_back(str("title"), str(i.title));
    return ok_result(std::move(out));
  }

 private:
  SessionStore::StartOptions parse(const HostValue& args, std::string* error) const {
    Args a(name_, args, {"title", "ttl_ms", "mode", "preludes"});
    SessionStore::StartOptions o;
    o.title = a.string("title", false, kMaxSessionTitleChars).value_or("");
    o.ttl_ms = a.positive_integer("ttl_ms");
    if (a.ok()) {
      if (const HostValue* m = a.find("mode");
          m && m->kind() == Kind::String && m->text() == "write_capable")
        a.fail(fmt::format(
            "{} `mode` \"write_capable\" is not available: programs in this server have no "
            "tools or prelude store to write to; use \"read_only\" (the default).",
            name_));
    }
    o.mode = a.choice("mode", {"read_only"}, "read_only");
    if (const HostValue* p = a.find("preludes")) {
      if (p->kind() != Kind::Vector)
        a.fail(fmt::format("{} `preludes` must be an array, got {}.", name_, json_type(*p)));
      else if (!p->items().empty())
        a.fail(fmt::format(
            "{} `preludes` are not supported yet: this server has no prelude store. Start "
            "without `preludes` and define what you need with lisp_session_eval.",
            name_));
    }
    *error = a.error();
    return o;
  }
};

// ------------------------------------------------ lisp_session_list

class ListTool : public SessionTool {
 public:
  using SessionTool::SessionTool;

  HostValue definition() const override {
    return definition_of(
        name_,
        "Lists this client's open sessions: id, title, turn, memory size, binding count, "
        "whether an eval is running, and when each expires. Metadata only, no data; listing "
        "does not count as using a session (idle timers keep running).",
        {}, {}, true, false, true);
  }

  std::optional<HostValue> precheck(const HostValue& args, const Caller&) const override {
    Args a(name_, args, {});
    if (!a.ok()) return args_error(a.error());
    return std::nullopt;
  }

  HostValue call(const HostValue& args, const ToolEnv& env) override {
    Args a(name_, args, {});
    if (!a.ok()) return args_error(a.error());
    SessionResult<std::vector<SessionInfo>> sessions = store_->list(env.caller.owner);
    if (!sessions) return store_error(sessions.error);
    std::vector<HostValue> items;
    for (const SessionInfo& i : *sessions.value)
      items.push_back(session_json(i));
    return ok_result({{str("count"), num(items.size())},
                      {str("sessions"), HostValue::vector(std::move(items))}});
  }
};

// ------------------------------------------------ lisp_session_list_preludes

class ListPreludesTool : public SessionTool {
 public:
  using SessionTool::SessionTool;

  HostValue definition() const override {
    return definition_of(name_,
                         "Lists the preludes (shared definitions loaded when the session "
                         "started) of a session, as {id, version, checksum, origin}. This server "
                         "has no prelude store yet, so the list is empty.",
                         {session_id_property("to look at")}, {"session_id"}, true, false, true);
  }

  std::optional<HostValue> precheck(const HostValue& args, const Caller&) const override {
    Args a(name_, args, {"session_id"});
    a.session_id();
    if (!a.ok()) return args_error(a.error());
    return std::nullopt;
  }

  HostValue call(const HostValue& args, const ToolEnv& env) override {
    Args a(name_, args, {"session_id"});
    std::string id = a.session_id();
    if (!a.ok()) return args_error(a.error());
    SessionResult<SessionSnapshot> s = store_->snapshot(env.caller.owner, id);
    if (!s) return store_error(s.error);
    return ok_result({{str("session_id"), str(id)}, {str("prelude_refs"), HostValue::vector({})}});
  }
};

// ------------------------------------------------ lisp_session_eval

struct SessionEvalArgs {
  std::string session_id;
  EvalArgs eval;  // program, context, output schema: as lisp_eval takes them
};

// A context key must be usable as a data/ name (the rule of lisp_eval).
bool usable_context_key(const std::string& key) {
  return !key.empty() && key.find_first_of("/ \t\n\r") == std::string::npos;
}

// Checked like lisp_eval's arguments (the same rules and limits, so that
// what one accepts the other does), with messages naming this tool.
std::optional<SessionEvalArgs> parse_eval(std::string_view tool, const HostValue& args,
                                          const ServerConfig& c, std::string* error) {
  if (args.kind() == Kind::Map && args.get("signature")) {
    *error = fmt::format(
        "{} does not take `signature`; give the result's shape as `output_schema` (a JSON "
        "Schema).",
        tool);
    return std::nullopt;
  }
  Args a(tool, args, {"session_id", "program", "context", "output_schema"});
  SessionEvalArgs out;
  out.session_id = a.session_id();
  if (std::optional<std::string> program = a.string("program", true)) {
    HostValue text = HostValue::string(*program);
    if (!protocol::validate_program(&text).ok)
      a.fail(fmt::format("{} `program` must not be blank.", tool));
    else if (program->size() > c.max_program_bytes)
      a.fail(fmt::format("{} `program` is {} bytes, over the server's limit of {} bytes.", tool,
                         program->size(), c.max_program_bytes));
    else
      out.eval.program = std::move(*program);
  }
  if (const HostValue* context = a.find("context")) {
    if (context->kind() != Kind::Map) {
      a.fail(fmt::format("{} `context` must be an object, got {}.", tool, json_type(*context)));
    } else {
      const auto& items = context->items();
      for (size_t i = 0; i + 1 < items.size() && a.ok(); i += 2)
        if (!usable_context_key(items[i].text()))
          a.fail(fmt::format(
              "{} `context` key {} cannot be a data/ name (keys must be non-empty, without / "
              "or spaces).",
              tool, quoted(items[i].text())));
      if (a.ok() && json_size(*context) > c.max_context_bytes)
        a.fail(fmt::format("{} `context` is over the server's limit of {} bytes as JSON.", tool,
                           c.max_context_bytes));
      out.eval.context = *context;
    }
  }
  if (const HostValue* schema = a.find("output_schema"); schema && a.ok()) {
    std::string problem;
    if (schema->kind() != Kind::Map)
      a.fail(fmt::format("{} `output_schema` must be an object (a JSON Schema), got {}.", tool,
                         json_type(*schema)));
    else if (out.eval.output = signature_from_schema(*schema, &problem); !out.eval.output)
      a.fail(fmt::format("{} `output_schema` is not supported: {}.", tool, problem));
  }
  *error = a.error();
  if (!a.ok()) return std::nullopt;
  return out;
}

// "stored: a, b, c" with at most kNoteNames names.
std::string stored_note(const HostValue& memory) {
  std::vector<std::string> names = binding_names(memory);
  if (names.empty()) return "stored: nothing";
  std::string out = "stored: ";
  for (size_t i = 0; i < names.size() && i < kNoteNames; ++i)
    out += (i ? ", " : "") + names[i];
  if (names.size() > kNoteNames) out += fmt::format(", ... ({} more)", names.size() - kNoteNames);
  return out;
}

std::string json_text(const HostValue& v) {
  try {
    return to_json(v, true);
  } catch (LispError&) {
    return "";
  }
}

// An eval's CallToolResult with the session's state added: `session` (and
// `rolled_back`, `history_notices`) in structuredContent, and in the text, which is what
// slim clients see: re-rendered when it is the JSON of structuredContent
// (debug, server errors), else ended with a short bracketed note.
HostValue with_session(const HostValue& result, const HostValue& session, bool rolled_back,
                       const std::vector<std::string>& notices, const std::string& note) {
  const HostValue* structured = result.get("structuredContent");
  const HostValue* content = result.get("content");
  std::string text;
  if (content && content->kind() == Kind::Vector && !content->items().empty())
    if (const HostValue* t = content->items()[0].get("text")) text = t->text();
  bool text_is_json = structured && text == json_text(*structured);
  HostValue out = result;
  if (structured) {
    HostValue s = with_entry(*structured, "session", session);
    if (rolled_back) s = with_entry(s, "rolled_back", flag(true));
    if (!notices.empty()) s = with_entry(s, "history_notices", strings(notices));
    out = with_entry(out, "structuredContent", s);
    if (text_is_json) text = json_text(s);
  }
  if (!text_is_json) text += "\n\n[" + note + "]";
  if (content && content->kind() == Kind::Vector && !content->items().empty()) {
    std::vector<HostValue> parts = content->items();
    parts[0] = with_entry(parts[0], "text", str(text));
    out = with_entry(out, "content", HostValue::vector(std::move(parts)));
  }
  return out;
}

bool failed(const HostValue& result) {
  const HostValue* e = result.get("isError");
  return e && e->kind() == Kind::Bool && e->as_bool();
}

class EvalTool : public SessionTool {
 public:
  using SessionTool::SessionTool;
  bool gated() const override { return true; }

  HostValue definition() const override {
    return definition_of(
        name_,
        "Runs a PTC-Lisp program (the language lisp_eval runs) in a session. Names defined "
        "with def/defn stay for the session's later evals, and *1 *2 *3 are its last three "
        "results; `let` locals do not stay. `context` keys are read as data/<key> in this eval "
        "only. A program that fails (any error, a result that does not match output_schema, "
        "memory over the session's caps, a cancelled call) leaves the session exactly as it "
        "was. A session runs one eval at a time.",
        {session_id_property("to run in"),
         {str("program"), typed("string",
                                "PTC-Lisp source to run; it must not be empty. The value of the "
                                "last form is the result.")},
         {str("context"), typed("object",
                                "Input data for this eval: each top-level key is available as "
                                "data/<key>. Not kept in the session.")},
         {str("output_schema"),
          typed("object",
                "Optional JSON Schema (string, integer, number, boolean, array with items, "
                "object with properties and required) the result must match; a matching result "
                "also comes back as typed JSON in `validated`.")}},
        {"session_id", "program"}, false, false, false);
  }

  std::optional<HostValue> precheck(const HostValue& args, const Caller& caller) const override {
    std::string error;
    std::optional<SessionEvalArgs> parsed = parse_eval(name_, args, config(), &error);
    if (!parsed) return args_error(error);
    // An unknown, closed or busy session is answered before the call takes a slot.
    if (std::optional<SessionError> e = store_->check_available(caller.owner, parsed->session_id))
      return store_error(*e);
    return std::nullopt;
  }

  HostValue call(const HostValue& args, const ToolEnv& env) override {
    std::string error;
    std::optional<SessionEvalArgs> parsed = parse_eval(name_, args, config(), &error);
    if (!parsed) return args_error(error);
    SessionResult<SessionStore::Eval> began =
        store_->begin_eval(env.caller.owner, parsed->session_id);
    if (!began) return store_error(began.error);
    SessionStore::Eval& eval = *began.value;
    const SessionSnapshot& before = eval.start();

    RunOptions run = eval_run_options(parsed->eval, env);
    run.memory = before.memory;
    run.turn_history = before.history;
    Step step = ptc::run(parsed->eval.program, run);

    // Every way out before commit() leaves the session as it was (`eval`
    // releases it untouched).
    auto rolled_back = [&](const HostValue& result) {
      return with_session(result, eval_session_json(before.info), true, {},
                          fmt::format("rolled back: the session is still at turn {}; {}",
                                      before.info.turn, stored_note(before.memory)));
    };
    const ServerConfig& c = config();
    size_t memory_bytes = 0;
    if (step.ok) {
      memory_bytes = session_value_bytes(step.memory, c.max_session_memory_bytes);
      if (memory_bytes > c.max_session_memory_bytes)
        return rolled_back(error_result(
            "session_limit_exceeded",
            fmt::format("the session's memory would take more than its cap of {} bytes (as "
                        "JSON); the eval was rolled back",
                        c.max_session_memory_bytes),
            "Keep fewer or smaller values with def (lisp_session_forget frees names), or "
            "return large data instead of storing it."));
      if (step.memory.size() > c.max_session_bindings)
        return rolled_back(error_result(
            "session_limit_exceeded",
            fmt::format("the session would hold {} bindings, over its cap of {}; the eval was "
                        "rolled back",
                        step.memory.size(), c.max_session_bindings),
            "Define fewer names (keep related values in one map), or free names with "
            "lisp_session_forget."));
    }
    // The answer lisp_eval would give (errors, output_schema, validated),
    // with the memory block of a conversation's turn.
    HostValue result = eval_result(step, parsed->eval, env.config, true, before.memory);
    if (!step.ok || failed(result)) return rolled_back(result);

    SessionStore::Commit commit;
    commit.result = step.value;
    if (session_value_bytes(step.value, kMaxHistoryEntryBytes) > kMaxHistoryEntryBytes) {
      commit.result = HostValue::nil();
      commit.notices.push_back(fmt::format(
          "*1 is nil: the result is larger than the {} bytes a session keeps per result; def it "
          "to keep it",
          kMaxHistoryEntryBytes));
    }
    commit.memory = step.memory;
    commit.memory_bytes = memory_bytes;
    commit.prints = step.prints;
    std::vector<std::string> notices = commit.notices;
    SessionResult<SessionInfo> committed = store_->commit(eval, std::move(commit));
    // Another replica changed the session while this eval ran (or the store
    // went away): nothing of this eval was kept.
    if (!committed) return rolled_back(store_error(committed.error));
    const SessionInfo& after = *committed.value;
    std::string note = fmt::format("session turn {}; {}", after.turn, stored_note(step.memory));
    for (const std::string& n : notices)
      note += "; " + n;
    return with_session(result, eval_session_json(after), false, notices, note);
  }
};

// ------------------------------------------------ lisp_session_inspect

const std::vector<std::string_view> kViews = {"overview",   "memory",  "prints",
                                              "tool_calls", "history", "limits"};

class InspectTool : public SessionTool {
 public:
  using SessionTool::SessionTool;

  HostValue definition() const override {
    return definition_of(
        name_,
        "Shows a session's state without running anything. view: overview (the default: "
        "metadata and the names stored), memory (each binding with a preview), prints (recent "
        "println output, by turn), tool_calls (always empty: programs here call no tools), "
        "history (*1 *2 *3) or limits.",
        {session_id_property("to look at"),
         {str("view"),
          HostValue::map({{str("type"), str("string")},
                          {str("enum"), enum_of(kViews)},
                          {str("description"), str("What to show; overview when absent.")}})}},
        {"session_id"}, true, false, true);
  }

  std::optional<HostValue> precheck(const HostValue& args, const Caller&) const override {
    Args a(name_, args, {"session_id", "view"});
    a.session_id();
    a.choice("view", kViews, "overview");
    if (!a.ok()) return args_error(a.error());
    return std::nullopt;
  }

  HostValue call(const HostValue& args, const ToolEnv& env) override {
    Args a(name_, args, {"session_id", "view"});
    std::string id = a.session_id();
    std::string view = a.choice("view", kViews, "overview");
    if (!a.ok()) return args_error(a.error());
    SessionResult<SessionSnapshot> found = store_->snapshot(env.caller.owner, id);
    if (!found) return store_error(found.error);
    const SessionSnapshot& s = *found.value;
    Entries out{{str("session_id"), str(id)},
                {str("view"), str(view)},
                {str("session"), session_json(s.info)}};
    protocol::FormatOptions format;
    format.preview_max_chars = kPreviewChars;
    if (view == "overview") {
      out.emplace_back(str("stored_keys"), strings(binding_names(s.memory)));
      out.emplace_back(str("history_count"), num(s.history.size()));
      out.emplace_back(str("print_count"), num(s.prints.size()));
      out.emplace_back(str("history_notices"), strings(s.notices));
    } else if (view == "memory") {
      std::vector<std::pair<std::string, HostValue>> bindings;
      const auto& items = s.memory.items();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        bool cut = false;
        std::string preview = protocol::preview_text(items[i + 1], format, &cut);
        bindings.emplace_back(
            items[i].text(),
            HostValue::map(
                {{str("name"), items[i]},
                 {str("preview"), str(protocol::utf8_text(preview))},
                 {str("truncated"), flag(cut)},
                 {str("bytes"),
                  num(session_value_bytes(items[i + 1], config().max_session_memory_bytes))}}));
      }
      std::sort(bindings.begin(), bindings.end(),
                [](const auto& x, const auto& y) { return x.first < y.first; });
      std::vector<HostValue> list;
      for (auto& [_, b] : bindings)
        list.push_back(std::move(b));
      out.emplace_back(str("bindings"), HostValue::vector(std::move(list)));
    } else if (view == "prints") {
      std::vector<HostValue> list;
      for (const SessionPrint& p : s.prints)
        list.push_back(HostValue::map(
            {{str("turn"), num(p.turn)}, {str("text"), str(protocol::utf8_text(p.text))}}));
      out.emplace_back(str("prints"), HostValue::vector(std::move(list)));
      out.emplace_back(str("older_prints_dropped"), flag(s.prints_dropped));
    } else if (view == "tool_calls") {
      out.emplace_back(str("tool_calls"), HostValue::vector({}));
    } else if (view == "history") {
      std::vector<HostValue> list;
      for (size_t n = 1; n <= s.history.size(); ++n) {
        bool cut = false;
        std::string preview = protocol::preview_text(s.history[s.history.size() - n], format, &cut);
        list.push_back(HostValue::map({{str("name"), str(fmt::format("*{}", n))},
                                       {str("preview"), str(protocol::utf8_text(preview))},
                                       {str("truncated"), flag(cut)}}));
      }
      out.emplace_back(str("history"), HostValue::vector(std::move(list)));
    } else {
      out.emplace_back(str("limits"), limits_json(config(), s.info.ttl_ms));
    }
    return ok_result(std::move(out));
  }
};

// ------------------------------------------------ lisp_session_forget

const std::vector<std::string_view> kClearParts = {"memory", "history", "prints", "tool_calls",
                                                   "upstream_calls"};

class ForgetTool : public SessionTool {
 public:
  using SessionTool::SessionTool;

  HostValue definition() const override {
    return definition_of(
        name_,
        "Frees part of a session: `bindings` removes those names from its memory; `clear` "
        "empties whole parts (memory: every binding, history: *1 *2 *3, prints; tool_calls and "
        "upstream_calls hold nothing here). Give at least one of them.",
        {session_id_property("to change"),
         {str("bindings"),
          HostValue::map({{str("type"), str("array")},
                          {str("items"), HostValue::map({{str("type"), str("string")}})},
                          {str("description"), str("Names defined with def/defn to remove.")}})},
         {str("clear"),
          HostValue::map({{str("type"), str("array")},
                          {str("items"), HostValue::map({{str("type"), str("string")},
                                                         {str("enum"), enum_of(kClearParts)}})},
                          {str("description"), str("Parts of the session to empty.")}})}},
        {"session_id"}, false, true, true);
  }

  std::optional<HostValue> precheck(const HostValue& args, const Caller&) const override {
    std::string id;
    SessionStore::ForgetRequest request;
    std::vector<std::string> cleared;
    std::string error = parse(args, &id, &request, &cleared);
    if (!error.empty()) return args_error(error);
    return std::nullopt;
  }

  HostValue call(const HostValue& args, const ToolEnv& env) override {
    std::string id;
    SessionStore::ForgetRequest request;
    std::vector<std::string> cleared;
    std::string error = parse(args, &id, &request, &cleared);
    if (!error.empty()) return args_error(error);
    SessionResult<SessionStore::ForgetOutcome> done = store_->forget(env.caller.owner, id, request);
    if (!done) return store_error(done.error);
    return ok_result({{str("session_id"), str(id)},
                      {str("forgotten"), strings(done.value->forgotten)},
                      {str("not_bound"), strings(done.value->missing)},
                      {str("cleared"), strings(cleared)},
                      {str("session"), eval_session_json(done.value->info)}});
  }

 private:
  std::string parse(const HostValue& args, std::string* id, SessionStore::ForgetRequest* request,
                    std::vector<std::string>* cleared) const {
    Args a(name_, args, {"session_id", "bindings", "clear"});
    *id = a.session_id();
    request->bindings = a.string_list("bindings");
    // More names than a session can hold cannot all be bound.
    if (request->bindings.size() > config().max_session_bindings)
      a.fail(fmt::format("{} `bindings` lists {} names; a session holds at most {}.", name_,
                         request->bindings.size(), config().max_session_bindings));
    *cleared = a.string_list("clear", kClearParts);
    for (const std::string& part : *cleared) {
      request->memory |= part == "memory";
      request->history |= part == "history";
      request->prints |= part == "prints";
    }
    if (a.ok() && request->bindings.empty() && cleared->empty())
      a.fail(
          fmt::format("{} needs `bindings` (names to remove) or `clear` (parts to empty).", name_));
    return a.error();
  }
};

// ------------------------------------------------ lisp_session_close

class CloseTool : public SessionTool {
 public:
  using SessionTool::SessionTool;

  HostValue definition() const override {
    return definition_of(
        name_,
        "Closes a session and frees everything it held. Later calls with its id answer "
        "session_closed. A session that is running an eval cannot be closed until it answers.",
        {session_id_property("to close"),
         {str("reason"), typed("string", "Why, for the record (at most 200 characters).")}},
        {"session_id"}, false, true, true);
  }

  std::optional<HostValue> precheck(const HostValue& args, const Caller&) const override {
    Args a(name_, args, {"session_id", "reason"});
    a.session_id();
    a.string("reason", false, kReasonChars);
    if (!a.ok()) return args_error(a.error());
    return std::nullopt;
  }

  HostValue call(const HostValue& args, const ToolEnv& env) override {
    Args a(name_, args, {"session_id", "reason"});
    std::string id = a.session_id();
    std::string reason = a.string("reason", false, kReasonChars).value_or("");
    if (!a.ok()) return args_error(a.error());
    SessionResult<SessionInfo> closed = store_->close(env.caller.owner, id, reason);
    if (!closed) return store_error(closed.error);
    Entries out{{str("session_id"), str(id)},
                {str("closed"), flag(true)},
                {str("turn"), num(closed.value->turn)}};
    if (!reason.empty()) out.emplace_back(str("reason"), str(reason));
    return ok_result(std::move(out));
  }
};

}  // namespace

std::vector<std::unique_ptr<McpTool>> make_session_tools(std::shared_ptr<SessionStore> store) {
  std::vector<std::unique_ptr<McpTool>> tools;
  tools.push_back(std::make_unique<StartTool>(store, kSessionStart));
  tools.push_back(std::make_unique<ListTool>(store, kSessionList));
  tools.push_back(std::make_unique<ListPreludesTool>(store, kSessionListPreludes));
  tools.push_back(std::make_unique<EvalTool>(store, kSessionEval));
  tools.push_back(std::make_unique<InspectTool>(store, kSessionInspect));
  tools.push_back(std::make_unique<ForgetTool>(store, kSessionForget));
  tools.push_back(std::make_unique<CloseTool>(store, kSessionClose));
  return tools;
}

std::shared_ptr<SessionStore> make_session_store(const ServerConfig& config) {
  if (config.shared_store) return std::make_shared<RedisSessionStore>(config, config.shared_store);
  return std::make_shared<MemorySessionStore>(config);
}

void add_session_tools(Server& server, const ServerConfig& config) {
  for (auto& tool : make_session_tools(make_session_store(config)))
    server.add_tool(std::move(tool));
}

}  // namespace ptc::mcp
