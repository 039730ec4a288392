#include "protocol/upstream/handshake.hpp"

namespace ptc::upstream {

HostValue initialize_params() {
  return HostValue::map({
      {HostValue::string("protocolVersion"), HostValue::string(kClientProtocolVersion)},
      {HostValue::string("capabilities"), HostValue::map({})},
      {HostValue::string("clientInfo"),
       HostValue::map({{HostValue::string("name"), HostValue::string("ptc-lisp")},
                       {HostValue::string("version"), HostValue::string("0.1")}})},
  });
}

std::string list_all_tools(const std::function<Reply(const HostValue& params)>& request,
                           std::vector<HostValue>& tools) {
  std::string cursor;
  for (int page = 0; page < 100; ++page) {
    HostValue params =
        cursor.empty() ? HostValue::map({})
                       : HostValue::map({{HostValue::string("cursor"), HostValue::string(cursor)}});
    Reply t = request(params);
    if (t.status != Reply::Status::Ok) return "tools/list failed: " + t.message;
    const HostValue* list = t.result.get("tools");
    if (!list || list->kind() != HostValue::Kind::Vector)
      return "tools/list replied without a tools array";
    for (const HostValue& tool : list->items()) {
      const HostValue* n = tool.kind() == HostValue::Kind::Map ? tool.get("name") : nullptr;
      if (n && n->kind() == HostValue::Kind::String) tools.push_back(tool);
    }
    const HostValue* next = t.result.get("nextCursor");
    if (!next || next->kind() != HostValue::Kind::String || next->text().empty()) break;
    cursor = next->text();
  }
  return {};
}

}  // namespace ptc::upstream
