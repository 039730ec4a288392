#include "cli/replay_tools.hpp"

#include <fmt/format.h>

#include <memory>

#include "embedding/tool_broker.hpp"

namespace ptc::cli {

namespace {

struct Entry {
  HostValue args;
  HostValue result;
};

}  // namespace

// The parsed JSON as it stands: objects keep their string keys, which
// programs read with keywords as well ((:name u)).
ToolResult recorded_result(const HostValue& result) {
  return ToolResult::success(result);
}

std::string replay_tools(const HostValue& table, Tools& out) {
  using K = HostValue::Kind;
  if (table.kind() != K::Map) return "the tools table must be a JSON object of tool names";
  Tools tools;
  const auto& items = table.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const std::string& name = items[i].text();
    const HostValue& calls = items[i + 1];
    if (calls.kind() != K::Vector)
      return fmt::format("tool \"{}\": expected an array of {{\"args\", \"result\"}} entries",
                         name);
    auto entries = std::make_shared<std::vector<Entry>>();
    for (const HostValue& c : calls.items()) {
      const HostValue* args = c.get("args");
      const HostValue* result = c.get("result");
      if (c.kind() != K::Map || !result)
        return fmt::format("tool \"{}\": every entry needs a \"result\" (and \"args\")", name);
      entries->push_back({args ? string_keys(*args) : HostValue::map({}), *result});
    }
    tools[name] = {[entries, name](const HostValue& args) {
                     for (const Entry& e : *entries)
                       if (e.args == args) return recorded_result(e.result);
                     return ToolResult::failure(fmt::format(
                         "no recorded call of {} with arguments {}", name, format_value(args)));
                   },
                   false};
  }
  out = std::move(tools);
  return "";
}

}  // namespace ptc::cli
