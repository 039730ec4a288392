#include "cli/tool_answers.hpp"

#include <fmt/format.h>

#include "cli/cli.hpp"
#include "cli/replay_tools.hpp"

namespace ptc::cli {

namespace {

// One id's answer, or an error message saying what the entry should be.
std::string parse_answer(const std::string& id, const HostValue& entry, Answer& out) {
  const char* shape =
      R"(expected {"value": JSON} or {"error": "message"}, or for an approval {"approve": true} )"
      R"(or {"reject": "reason"})";
  if (entry.kind() != HostValue::Kind::Map || entry.size() != 1)
    return fmt::format("\"{}\": {}", id, shape);
  if (const HostValue* value = entry.get("value")) {
    out = recorded_result(*value);
    return "";
  }
  if (const HostValue* approve = entry.get("approve")) {
    if (approve->kind() != HostValue::Kind::Bool || !approve->as_bool())
      return fmt::format(
          R"("{}": "approve" must be true (to reject, write {{"reject": "reason"}}))", id);
    out = Decision::approve();
    return "";
  }
  if (const HostValue* reject = entry.get("reject")) {
    if (reject->kind() != HostValue::Kind::String)
      return fmt::format(R"("{}": "reject" must be a string (the person's reason, may be ""))", id);
    out = Decision::reject(reject->text());
    return "";
  }
  const HostValue* error = entry.get("error");
  if (!error) return fmt::format("\"{}\": {}", id, shape);
  if (error->kind() != HostValue::Kind::String || error->text().empty())
    return fmt::format("\"{}\": \"error\" must be a non-empty string (the tool's message)", id);
  out = ToolResult::failure(error->text());
  return "";
}

}  // namespace

std::string load_tool_answers(const std::string& path, ToolAnswers& out) {
  HostValue table;
  if (std::string err = load_json_object(path, "results", table); !err.empty()) return err;
  ToolAnswers answers;
  const auto& items = table.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const std::string& id = items[i].text();
    Answer answer = ToolResult();
    if (std::string err = parse_answer(id, items[i + 1], answer); !err.empty())
      return fmt::format("{}: {}", path, err);
    if (!answers.emplace(id, std::move(answer)).second)
      return fmt::format("{}: \"{}\" is answered twice", path, id);
  }
  if (answers.empty()) return fmt::format("{}: no answers (the object is empty)", path);
  out = std::move(answers);
  return "";
}

}  // namespace ptc::cli
