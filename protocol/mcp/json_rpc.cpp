#include "protocol/mcp/json_rpc.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"
#include "runtime/host_value.hpp"

namespace ptc::mcp {

namespace {

using K = HostValue::Kind;

using host::str;

bool usable_id(const HostValue& id) {
  switch (id.kind()) {
    case K::String:
    case K::Int:
    case K::BigInt:
    case K::Float:
    case K::Nil:
      return true;
    default:
      return false;
  }
}

RpcMessage invalid(int code, std::string message, HostValue id = HostValue()) {
  RpcMessage m;
  m.kind = RpcMessage::Kind::Invalid;
  m.error_code = code;
  m.error_message = std::move(message);
  m.id = std::move(id);
  return m;
}

std::string frame(std::vector<std::pair<HostValue, HostValue>> fields) {
  try {
    return to_json(HostValue::map(std::move(fields)));
  } catch (LispError& e) {
    // A result with no JSON form (never built by the server): say so instead.
    return fmt::format(
        R"({{"jsonrpc":"2.0","id":null,"error":{{"code":-32603,"message":"Internal error: {}"}}}})",
        "a reply could not be encoded");
  }
}

}  // namespace

RpcMessage parse_message(std::string_view text) {
  HostValue v;
  std::string context, meta;
  Envelope envelope;
  try {
    static constexpr std::string_view kContextPath[] = {"params", "arguments", "context"};
    static constexpr std::string_view kMetaPath[] = {"params", "_meta"};
    const JsonExtraction extractions[] = {
        {kContextPath, &context}, {kMetaPath, &meta, [&envelope](const simdjson::dom::element& e) {
                                     envelope = read_envelope(e);
                                   }}};
    v = parse_json_extracting(text, extractions);
    if (!meta.empty()) envelope = read_envelope(meta);  // the slow path gave it as text
  } catch (LispError& e) {
    return invalid(kParseError, "Parse error: " + e.error().describe());
  }
  if (v.kind() == K::Vector)
    return invalid(kInvalidRequest, "Invalid Request: batches are not supported");
  if (v.kind() != K::Map) return invalid(kInvalidRequest, "Invalid Request: expected an object");
  const HostValue* idp = v.get("id");
  HostValue id = idp && usable_id(*idp) ? *idp : HostValue();
  const HostValue* version = v.get("jsonrpc");
  if (!version || version->kind() != K::String || version->text() != "2.0")
    return invalid(kInvalidRequest, "Invalid Request: \"jsonrpc\" must be \"2.0\"", id);
  if (idp && !usable_id(*idp))
    return invalid(kInvalidRequest, "Invalid Request: id must be a string, a number or null");
  const HostValue* method = v.get("method");
  RpcMessage m;
  m.id = id;
  if (!method) {
    if (idp && (v.get("result") || v.get("error"))) {
      m.kind = RpcMessage::Kind::Response;
      return m;
    }
    return invalid(kInvalidRequest, "Invalid Request: no method", id);
  }
  if (method->kind() != K::String)
    return invalid(kInvalidRequest, "Invalid Request: method must be a string", id);
  m.method = method->text();
  if (const HostValue* params = v.get("params"); params && !params->is_nil()) {
    if (params->kind() != K::Map && params->kind() != K::Vector)
      return invalid(kInvalidParams, "Invalid params: params must be an object or an array", id);
    m.params = *params;
  }
  m.kind = idp ? RpcMessage::Kind::Request : RpcMessage::Kind::Notification;
  m.context_json = std::move(context);
  m.envelope = std::move(envelope);
  return m;
}

std::string result_frame(const HostValue& id, const HostValue& result) {
  return frame({{str("jsonrpc"), str("2.0")}, {str("id"), id}, {str("result"), result}});
}

std::string error_frame(const HostValue& id, int code, std::string_view message,
                        const HostValue& data) {
  std::vector<std::pair<HostValue, HostValue>> error{{str("code"), HostValue::integer(code)},
                                                     {str("message"), str(message)}};
  if (!data.is_nil()) error.emplace_back(str("data"), data);
  return frame(
      {{str("jsonrpc"), str("2.0")}, {str("id"), id}, {str("error"), HostValue::map(error)}});
}

std::string notification_frame(std::string_view method, const HostValue& params) {
  return frame(
      {{str("jsonrpc"), str("2.0")}, {str("method"), str(method)}, {str("params"), params}});
}

std::string id_key(const HostValue& id) {
  try {
    return to_json(id);
  } catch (LispError&) {
    return "null";
  }
}

}  // namespace ptc::mcp
