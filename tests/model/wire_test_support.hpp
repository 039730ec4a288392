// What both wire-format tests build requests from and read bodies with:
// conversation messages, tool calls, and values at dotted paths.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "include/ptc/host_value.hpp"
#include "protocol/agent/messages.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace ptc::model::testing {

using H = HostValue;
using protocol::ChatMessage;
using protocol::ToolCallRequest;

// The value at a dotted path ("messages.2.content.0.id": numbers index
// arrays); nullptr when there is none.
inline const H* find(const H& root, const std::string& path) {
  const H* v = &root;
  size_t start = 0;
  while (v && start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string key =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (v->kind() == H::Kind::Vector) {
      size_t i = std::stoul(key);
      v = i < v->items().size() ? &v->items()[i] : nullptr;
    } else if (v->kind() == H::Kind::Map) {
      v = v->get(key);
    } else {
      v = nullptr;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return v;
}

inline std::string text_at(const H& root, const std::string& path) {
  const H* v = find(root, path);
  return v && v->kind() == H::Kind::String ? v->text() : "<no string at " + path + ">";
}

inline size_t size_at(const H& root, const std::string& path) {
  const H* v = find(root, path);
  return v ? v->size() : 0;
}

inline ChatMessage user(std::string text) {
  return ChatMessage{"user", std::move(text), {}, ""};
}

inline ChatMessage assistant(std::optional<std::string> text,
                             std::vector<ToolCallRequest> calls = {}) {
  return ChatMessage{"assistant", std::move(text), std::move(calls), ""};
}

inline ChatMessage tool(std::string id, std::string content) {
  return ChatMessage{"tool", std::move(content), {}, std::move(id)};
}

inline ToolCallRequest call(std::string id, std::string name, H args) {
  ToolCallRequest c;
  c.id = std::move(id);
  c.name = std::move(name);
  c.args = std::move(args);
  return c;
}

inline H object(std::string_view json) {
  return parse_json(json);
}

// The search_logs tool of the combined-mode transcript (seed document 003).
inline H search_logs_schema() {
  return object(
      R"({"type":"function","function":{"name":"search_logs","description":"Search log events.",)"
      R"("parameters":{"type":"object","properties":{"query":{"type":"string"}},)"
      R"("required":["query"]}}})");
}

// The transcript of seed document 003: a native call whose result is a
// preview, then lisp_eval over the cached rows.
inline protocol::LlmRequest seed_003_transcript() {
  protocol::LlmRequest r;
  r.system = "You are a support assistant.";
  r.tools = {search_logs_schema(),
             ptc::protocol::openai_tool_schema(ptc::protocol::Profile::InProcessTextMode)};
  r.messages = {
      user("How many errors with code 42 last hour?"),
      assistant(std::nullopt,
                {call("call_1", "search_logs", object(R"({"query":"error code 42"})"))}),
      tool("call_1", R"({"status":"ok","result_count":1842,"full_result_cached":true})"),
      assistant(std::nullopt,
                {call("call_2", "lisp_eval",
                      H::map({{H::string("program"),
                               H::string("(def rows (tool/search_logs {:query \"error code "
                                         "42\"}))\n(return {:total (count rows)})")}}))}),
      tool("call_2", R"({"status":"ok","result":"user=> {:total 1842}","prints":[]})"),
  };
  r.output = "text";
  return r;
}

}  // namespace ptc::model::testing
