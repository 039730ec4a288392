#include "protocol/lisp_eval/exposure.hpp"

#include <fmt/format.h>

#include <set>

#include "frontend/form.hpp"
#include "frontend/reader.hpp"
#include "runtime/arena.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"
#include "runtime/signature.hpp"

namespace ptc::protocol {

namespace {

constexpr std::string_view kLispEvalName = "lisp_eval";
// OpenAI (and most providers) reject longer function names.
constexpr size_t kMaxNativeName = 64;

using host::str;

// Whether `tool/<name>` reads back as exactly that one symbol: the reader is
// the judge, so the check can never drift from what programs may write.
bool callable_from_programs(std::string_view name) {
  std::string source = fmt::format("tool/{}", name);
  try {
    Arena arena(1 << 16);
    const Form* f = read_one(arena, source);
    return f && f->kind == FormKind::Symbol && f->text == source;
  } catch (const LispError&) {
    return false;
  }
}

// A signature type as JSON Schema, for the parameters the model fills in.
HostValue type_schema(const SigType* t) {
  using K = SigType::Kind;
  auto typed = [](std::string_view type) { return HostValue::map({{str("type"), str(type)}}); };
  if (!t) return HostValue::map({});
  switch (t->kind) {
    case K::String:
    case K::Keyword:
      return typed("string");
    case K::DateTime:
      return HostValue::map({{str("format"), str("date-time")}, {str("type"), str("string")}});
    case K::Int:
      return typed("integer");
    case K::Float:
      return typed("number");
    case K::Bool:
      return typed("boolean");
    case K::Map:
      return typed("object");
    case K::Any:
      return HostValue::map({});  // any JSON value
    case K::List:
      return HostValue::map(
          {{str("type"), str("array")}, {str("items"), type_schema(t->element.get())}});
    case K::Struct:
      break;
  }
  std::vector<std::pair<HostValue, HostValue>> properties;
  std::vector<HostValue> required;
  for (const auto& [name, type] : t->fields) {
    properties.emplace_back(str(name), type_schema(type.get()));
    if (!type || !type->optional) required.push_back(str(name));
  }
  std::vector<std::pair<HostValue, HostValue>> schema{{str("type"), str("object")}};
  if (!properties.empty()) schema.emplace_back(str("properties"), HostValue::map(properties));
  if (!required.empty()) schema.emplace_back(str("required"), HostValue::vector(required));
  return HostValue::map(std::move(schema));
}

}  // namespace

std::string_view expose_name(Expose e) {
  switch (e) {
    case Expose::Native:
      return "native";
    case Expose::PtcLisp:
      return "ptc_lisp";
    case Expose::Both:
      return "both";
  }
  return "native";
}

std::optional<Expose> expose_from_name(std::string_view name) {
  for (Expose e : {Expose::Native, Expose::PtcLisp, Expose::Both})
    if (expose_name(e) == name) return e;
  return std::nullopt;
}

Expose default_expose(OutputMode mode) {
  return mode == OutputMode::PtcLisp ? Expose::PtcLisp : Expose::Native;
}

Expose effective_expose(const AgentTool& t, OutputMode mode) {
  return t.expose ? *t.expose : default_expose(mode);
}

bool native_callable(const AgentTool& t, OutputMode mode) {
  return effective_expose(t, mode) != Expose::PtcLisp;
}

bool program_callable(const AgentTool& t, OutputMode mode) {
  return effective_expose(t, mode) != Expose::Native;
}

std::string check_tool(const AgentTool& t) {
  if (t.name.empty()) return "a tool has an empty name; name every tool";
  if (t.name == kLispEvalName)
    return fmt::format("tool name \"{}\" is reserved for the program tool; choose another name",
                       t.name);
  if (native_tool_name(t.name) == kLispEvalName)
    return fmt::format(
        "tool name \"{}\" is reserved for the program tool (natively it would be lisp_eval); "
        "choose another name",
        t.name);
  if (!callable_from_programs(t.name))
    return fmt::format(
        "tool \"{}\": the name cannot be written as tool/{} in a program; use ASCII letters, "
        "digits, - and _",
        t.name, t.name);
  if (!t.tool.fn) return fmt::format("tool \"{}\" has no function", t.name);
  if (!t.signature.empty()) {
    try {
      parse_signature(t.signature);
    } catch (const LispError& e) {
      return fmt::format("tool \"{}\": signature \"{}\" does not parse: {}", t.name, t.signature,
                         e.error().message);
    }
  }
  if (t.native_result) {
    if (t.expose != Expose::Both || !t.cache)
      return fmt::format(
          "tool \"{}\": native_result needs expose both and cache true (it has expose {}, cache "
          "{})",
          t.name, t.expose ? expose_name(*t.expose) : "unset", t.cache);
    const NativeResultOptions& r = *t.native_result;
    if (r.kind == NativeResultOptions::Kind::Rows && r.limit == 0)
      return fmt::format("tool \"{}\": native_result rows limit must be a positive integer, got 0",
                         t.name);
    if (r.kind == NativeResultOptions::Kind::Custom && !r.custom)
      return fmt::format("tool \"{}\": native_result custom preview needs a function", t.name);
  }
  return "";
}

std::string check_tools(const std::vector<AgentTool>& tools, OutputMode mode) {
  std::set<std::string_view> names;
  std::vector<const AgentTool*> natives;
  for (const AgentTool& t : tools) {
    if (std::string problem = check_tool(t); !problem.empty()) return problem;
    if (!names.insert(t.name).second) return fmt::format("two tools are named \"{}\"", t.name);
    if (!native_callable(t, mode)) continue;
    std::string native = native_tool_name(t.name);
    if (native.size() > kMaxNativeName)
      return fmt::format(
          "tool \"{}\": its native name has {} characters; providers accept at most {}", t.name,
          native.size(), kMaxNativeName);
    for (const AgentTool* other : natives)
      if (native_tool_name(other->name) == native)
        return fmt::format(
            "tools \"{}\" and \"{}\" have the same native name \"{}\"; rename one of them",
            other->name, t.name, native);
    natives.push_back(&t);
  }
  return "";
}

std::string native_tool_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool kept =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (kept) {
      out += static_cast<char>(c);
    } else if ((c & 0xC0) != 0x80) {  // one '_' per code point, not per UTF-8 byte
      out += '_';
    }
  }
  return out;
}

const AgentTool* find_by_native_name(const std::vector<AgentTool>& tools,
                                     std::string_view native_name) {
  for (const AgentTool& t : tools)
    if (t.name == native_name) return &t;
  for (const AgentTool& t : tools)
    if (native_tool_name(t.name) == native_name) return &t;
  return nullptr;
}

HostValue native_tool_schema(const AgentTool& t) {
  HostValue parameters = HostValue::map({{str("type"), str("object")}});
  if (!t.signature.empty()) {
    try {
      Signature sig = parse_signature(t.signature);
      SigType inputs;
      inputs.kind = SigType::Kind::Struct;
      inputs.fields = sig.inputs;
      parameters = type_schema(&inputs);
    } catch (const LispError&) {
      // check_tool reports it; the model still gets a usable schema.
    }
  }
  std::vector<std::pair<HostValue, HostValue>> function{
      {str("name"), str(native_tool_name(t.name))}, {str("parameters"), parameters}};
  if (!t.description.empty()) function.emplace_back(str("description"), str(t.description));
  return HostValue::map(
      {{str("type"), str("function")}, {str("function"), HostValue::map(std::move(function))}});
}

}  // namespace ptc::protocol
