#include "protocol/mcp/http_rpc.hpp"

#include <simdjson.h>

#include "include/ptc/ptc.hpp"

namespace ptc::mcp {

namespace {

std::string_view trim_right(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string json_string(std::string_view s) {
  return to_json(HostValue::string(std::string(s)));
}

simdjson::ondemand::parser& thread_parser() {
  thread_local simdjson::ondemand::parser parser;
  return parser;
}

}  // namespace

RpcPeek peek_rpc(std::string& body) {
  RpcPeek peek;
  if (body.capacity() < body.size() + simdjson::SIMDJSON_PADDING)
    body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  // The server (parse_json) ignores a leading byte order mark; so does the
  // peek, or a message with one would pass as "not an object" and skip the
  // session rules while the server still runs it.
  size_t bom = std::string_view(body).starts_with("\xEF\xBB\xBF") ? 3 : 0;
  simdjson::padded_string_view view(body.data() + bom, body.size() - bom, body.capacity() - bom);
  simdjson::ondemand::document doc;
  if (thread_parser().iterate(view).get(doc)) return peek;
  simdjson::ondemand::object object;
  if (doc.get_object().get(object)) return peek;
  RpcPeek found;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return peek;
    simdjson::ondemand::value value;
    if (field.value().get(value)) return peek;
    if (key == "method") {
      std::string_view method;
      if (value.get_string().get(method) == simdjson::SUCCESS) found.method = std::string(method);
    } else if (key == "id") {
      found.has_id = true;
      simdjson::ondemand::json_type type;
      if (value.type().get(type)) return peek;
      if (type == simdjson::ondemand::json_type::string ||
          type == simdjson::ondemand::json_type::number) {
        std::string_view raw = value.raw_json_token();
        found.id_json = std::string(trim_right(raw));
      }
    } else if (key == "params") {
      simdjson::ondemand::object params;
      if (value.get_object().get(params)) continue;
      for (auto param : params) {
        std::string_view name;
        if (param.unescaped_key().get(name)) return peek;
        simdjson::ondemand::value v;
        if (param.value().get(v)) return peek;
        if (name == "_meta") {
          simdjson::ondemand::object meta;
          std::string_view raw;
          if (v.get_object().get(meta) == simdjson::SUCCESS &&
              meta.raw_json().get(raw) == simdjson::SUCCESS)
            found.meta_json = std::string(raw);
        } else if (name == "name" || name == "uri" || name == "taskId") {
          std::string_view s;
          if (v.get_string().get(s) == simdjson::SUCCESS)
            (name == "name"  ? found.name
             : name == "uri" ? found.uri
                             : found.task_id) = std::string(s);
        }
      }
    }
  }
  found.object = true;
  return found;
}

const std::optional<std::string>* RpcPeek::mcp_name_source() const {
  if (method == "tools/call" || method == "prompts/get") return &name;
  if (method == "resources/read") return &uri;
  if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel")
    return &task_id;
  return nullptr;
}

bool rpc_frame_is_notification(std::string_view frame) {
  size_t i = 0;
  auto skip_ws = [&] {
    while (i < frame.size() &&
           (frame[i] == ' ' || frame[i] == '\t' || frame[i] == '\n' || frame[i] == '\r'))
      ++i;
  };
  // A string at i (no escapes expected in these keys); false when not one.
  auto read_string = [&](std::string_view* out) {
    if (i >= frame.size() || frame[i] != '"') return false;
    size_t end = frame.find('"', i + 1);
    if (end == std::string_view::npos ||
        frame.substr(i + 1, end - i - 1).find('\\') != std::string_view::npos)
      return false;
    *out = frame.substr(i + 1, end - i - 1);
    i = end + 1;
    return true;
  };
  skip_ws();
  if (i >= frame.size() || frame[i] != '{') return false;
  ++i;
  for (;;) {
    skip_ws();
    std::string_view key;
    if (!read_string(&key)) return false;
    if (key == "method") return true;
    if (key != "jsonrpc") return false;  // id, result, error: a response
    skip_ws();
    if (i >= frame.size() || frame[i] != ':') return false;
    ++i;
    skip_ws();
    std::string_view version;
    if (!read_string(&version)) return false;
    skip_ws();
    if (i >= frame.size() || frame[i] != ',') return false;
    ++i;
  }
}

namespace {

// The server's replies start {"jsonrpc":"2.0","id":<id>, then "result" or
// "error":{"code":N (json_rpc.cpp writes them so): read that far, not the
// whole reply. nullopt when the frame is not laid out so (then it is parsed).
struct ReplyHead {
  bool result = false;
  int code = 0;  // for an error
};
std::optional<ReplyHead> read_reply_head(std::string_view frame) {
  constexpr std::string_view kStart = R"({"jsonrpc":"2.0","id":)";
  if (!frame.starts_with(kStart)) return std::nullopt;
  size_t i = kStart.size();
  if (i < frame.size() && frame[i] == '"') {  // a string id: to its closing quote
    for (++i; i < frame.size() && frame[i] != '"'; ++i)
      if (frame[i] == '\\') ++i;
    ++i;
  } else {  // a number or null
    while (i < frame.size() && frame[i] != ',')
      ++i;
  }
  std::string_view rest = i <= frame.size() ? frame.substr(i) : std::string_view();
  if (rest.starts_with(R"(,"result":)")) return ReplyHead{true, 0};
  constexpr std::string_view kError = R"(,"error":{"code":)";
  if (!rest.starts_with(kError)) return std::nullopt;
  rest.remove_prefix(kError.size());
  bool negative = rest.starts_with('-');
  if (negative) rest.remove_prefix(1);
  int64_t code = 0;
  size_t digits = 0;
  for (; digits < rest.size() && digits < 10 && rest[digits] >= '0' && rest[digits] <= '9';
       ++digits)
    code = code * 10 + (rest[digits] - '0');
  if (digits == 0 || digits == rest.size() || (rest[digits] != ',' && rest[digits] != '}'))
    return std::nullopt;
  return ReplyHead{false, static_cast<int>(negative ? -code : code)};
}

}  // namespace

bool rpc_reply_is_result(std::string_view frame) {
  if (auto head = read_reply_head(frame)) return head->result;
  simdjson::padded_string padded(frame);
  simdjson::ondemand::document doc;
  if (thread_parser().iterate(padded).get(doc)) return false;
  simdjson::ondemand::object object;
  if (doc.get_object().get(object)) return false;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    if (key == "result") return true;
  }
  return false;
}

int rpc_reply_error_code(std::string_view frame) {
  if (auto head = read_reply_head(frame)) return head->result ? 0 : head->code;
  simdjson::padded_string padded(frame);
  simdjson::ondemand::document doc;
  if (thread_parser().iterate(padded).get(doc)) return 0;
  simdjson::ondemand::object object;
  if (doc.get_object().get(object)) return 0;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return 0;
    if (key != "error") continue;
    simdjson::ondemand::object error;
    if (field.value().get_object().get(error)) return 0;
    int64_t code = 0;
    if (error["code"].get_int64().get(code)) return 0;
    return static_cast<int>(code);
  }
  return 0;
}

std::string rpc_error_frame(std::string_view id_json, int code, std::string_view message) {
  std::string frame = R"({"jsonrpc":"2.0","id":)";
  frame += id_json;
  frame += R"(,"error":{"code":)";
  frame += std::to_string(code);
  frame += R"(,"message":)";
  frame += json_string(message);
  frame += "}}";
  return frame;
}

std::string rpc_result_frame(std::string_view id_json, std::string_view result_json) {
  std::string frame = R"({"jsonrpc":"2.0","id":)";
  frame += id_json;
  frame += R"(,"result":)";
  frame += result_json;
  frame += "}";
  return frame;
}

std::string rpc_cancel_notification(std::string_view id_json, std::string_view reason) {
  std::string frame =
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)";
  frame += id_json;
  frame += R"(,"reason":)";
  frame += json_string(reason);
  frame += "}}";
  return frame;
}

}  // namespace ptc::mcp
