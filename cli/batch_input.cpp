#include "cli/batch_input.hpp"

#include <fmt/format.h>

#include "cli/replay_tools.hpp"
namespace ptc::cli {

BatchItem parse_batch_line(const std::string& line, size_t line_no) {
  BatchItem item;
  item.id_text = fmt::format("line {}", line_no);
  auto bad = [&](std::string message) {
    item.error = Error{ErrorKind::ArgsError, std::move(message), "", {}, ""};
    return item;
  };
  HostValue obj;
  try {
    constexpr std::string_view kContextPath[] = {"context"};
    obj = parse_json_extracting(line, kContextPath, &item.context_json);
  } catch (LispError& e) {
    return bad(fmt::format("line {} is not valid JSON: {}", line_no, e.error().message));
  }
  if (obj.kind() != HostValue::Kind::Map)
    return bad(fmt::format("line {} is not a JSON object", line_no));
  if (const HostValue* id = obj.get("id")) {
    try {
      item.id_json = to_json(*id);
      item.id_text = id->kind() == HostValue::Kind::String ? id->text() : item.id_json;
    } catch (LispError&) {}
  }
  const HostValue* program = obj.get("program");
  if (!program || program->kind() != HostValue::Kind::String)
    return bad(fmt::format("line {} has no \"program\" string", line_no));
  item.program = program->text();
  if (item.context_json == "null") item.context_json.clear();
  if (!item.context_json.empty() && item.context_json[0] != '{')
    return bad(fmt::format("line {}: \"context\" must be a JSON object", line_no));
  if (const HostValue* memory = obj.get("memory")) {
    if (memory->kind() == HostValue::Kind::Map)
      item.memory = *memory;
    else if (!memory->is_nil())
      return bad(fmt::format("line {}: \"memory\" must be a JSON object", line_no));
  }
  if (const HostValue* table = obj.get("tools"); table && !table->is_nil()) {
    Tools tools;
    std::string err = replay_tools(*table, tools);
    if (!err.empty()) return bad(fmt::format("line {}: \"tools\": {}", line_no, err));
    item.tools = std::move(tools);
  }
  return item;
}

}  // namespace ptc::cli
