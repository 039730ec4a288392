#include "protocol/agent/messages.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"
#include "runtime/host_value.hpp"

namespace ptc::protocol {

namespace {

using host::str;

// The arguments as the provider carries them: a JSON text.
std::string arguments_text(const ToolCallRequest& c) {
  if (!c.raw_arguments.empty() || !c.args_error.empty()) return c.raw_arguments;
  if (c.args.is_nil()) return "{}";
  try {
    return to_json(c.args, true);
  } catch (LispError&) {
    return "{}";  // not JSON data (cannot come from a provider)
  }
}

bool is_text(const HostValue* v) {
  return v && (v->kind() == HostValue::Kind::String || v->kind() == HostValue::Kind::Keyword);
}

bool read_call(const HostValue& c, const std::string& at, ToolCallRequest* out,
               std::string* error) {
  if (c.kind() != HostValue::Kind::Map) {
    *error = fmt::format("{}: expected an object, got {}", at, json_kind_name(c.kind()));
    return false;
  }
  if (const HostValue* id = c.get("id"); id && !id->is_nil()) {
    if (!is_text(id)) {
      *error = fmt::format("{}.id: expected a string, got {}", at, json_kind_name(id->kind()));
      return false;
    }
    out->id = id->text();
  }
  // The OpenAI shape nests name and arguments in `function`; a flat
  // {"name", "arguments"} is accepted too.
  const HostValue* fn = c.get("function");
  std::string fn_at = at + ".function";
  if (!fn) {
    fn = &c;
    fn_at = at;
  } else if (fn->kind() != HostValue::Kind::Map) {
    *error = fmt::format("{}: expected an object, got {}", fn_at, json_kind_name(fn->kind()));
    return false;
  }
  const HostValue* name = fn->get("name");
  if (!is_text(name)) {
    *error = fmt::format("{}.name: expected a string, got {}", fn_at,
                         name ? json_kind_name(name->kind()) : "nothing");
    return false;
  }
  out->name = name->text();
  const HostValue* args = fn->get("arguments");
  if (!args) args = fn->get("args");
  if (!args || args->is_nil()) {
    out->args = HostValue();
  } else if (is_text(args)) {
    out->raw_arguments = args->text();
    std::string_view text = out->raw_arguments;
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      out->args = HostValue::map({});
    } else {
      try {
        out->args = parse_json(text);
        if (out->args.kind() != HostValue::Kind::Map)
          out->args_error = fmt::format("the arguments must be a JSON object, got {}",
                                        json_kind_name(out->args.kind()));
      } catch (LispError& e) {
        out->args_error = fmt::format("the arguments are not valid JSON: {}", e.error().describe());
      }
    }
  } else if (args->kind() == HostValue::Kind::Map) {
    out->args = *args;
  } else {
    out->args = *args;
    out->args_error =
        fmt::format("the arguments must be a JSON object, got {}", json_kind_name(args->kind()));
  }
  return true;
}

}  // namespace

HostValue to_openai(const ChatMessage& m) {
  std::vector<std::pair<HostValue, HostValue>> fields;
  fields.emplace_back(str("role"), str(m.role));
  if (m.content || m.role != "assistant" || m.tool_calls.empty())
    fields.emplace_back(str("content"), m.content ? str(*m.content) : HostValue());
  if (!m.tool_calls.empty()) {
    std::vector<HostValue> calls;
    for (const ToolCallRequest& c : m.tool_calls) {
      HostValue function =
          HostValue::map({{str("name"), str(c.name)}, {str("arguments"), str(arguments_text(c))}});
      calls.push_back(HostValue::map(
          {{str("id"), str(c.id)}, {str("type"), str("function")}, {str("function"), function}}));
    }
    fields.emplace_back(str("tool_calls"), HostValue::vector(std::move(calls)));
  }
  if (m.role == "tool") fields.emplace_back(str("tool_call_id"), str(m.tool_call_id));
  return HostValue::map(std::move(fields));
}

bool from_openai(const HostValue& json, ChatMessage* out, std::string* error) {
  *out = ChatMessage{};
  if (json.kind() != HostValue::Kind::Map) {
    *error = fmt::format("message: expected an object, got {}", json_kind_name(json.kind()));
    return false;
  }
  const HostValue* role = json.get("role");
  if (role && !is_text(role)) {
    *error = fmt::format("role: expected a string, got {}", json_kind_name(role->kind()));
    return false;
  }
  out->role = role ? role->text() : "assistant";
  if (const HostValue* content = json.get("content"); content && !content->is_nil()) {
    if (!is_text(content)) {
      *error = fmt::format("content: expected a string or null, got {}",
                           json_kind_name(content->kind()));
      return false;
    }
    out->content = content->text();
  }
  if (const HostValue* id = json.get("tool_call_id"); is_text(id)) out->tool_call_id = id->text();
  const HostValue* calls = json.get("tool_calls");
  if (!calls || calls->is_nil()) return true;
  if (calls->kind() != HostValue::Kind::Vector) {
    *error = fmt::format("tool_calls: expected an array, got {}", json_kind_name(calls->kind()));
    return false;
  }
  for (size_t i = 0; i < calls->items().size(); ++i) {
    ToolCallRequest c;
    if (!read_call(calls->items()[i], fmt::format("tool_calls[{}]", i), &c, error)) return false;
    out->tool_calls.push_back(std::move(c));
  }
  return true;
}

}  // namespace ptc::protocol
