#include "capi/json_form.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "runtime/host_value.hpp"
#include "runtime/stack_guard.hpp"

namespace ptc::capi {

namespace {

using Kind = HostValue::Kind;
using Entries = std::vector<std::pair<HostValue, HostValue>>;

bool is_json_key(const HostValue& k) {
  switch (k.kind()) {
    case Kind::String:
    case Kind::Keyword:
    case Kind::Int:
    case Kind::BigInt:
      return true;
    case Kind::Float:
      return std::isfinite(k.as_float());
    default:
      return false;
  }
}

bool has_json_form(const HostValue& h) {
  check_native_stack("converting a nested value to JSON");
  switch (h.kind()) {
    case Kind::Opaque:
      return false;
    case Kind::Float:
      return std::isfinite(h.as_float());
    case Kind::Vector:
    case Kind::Set:
      for (const HostValue& x : h.items())
        if (!has_json_form(x)) return false;
      return true;
    case Kind::Map: {
      const auto& items = h.items();
      for (size_t i = 0; i + 1 < items.size(); i += 2)
        if (!is_json_key(items[i]) || !has_json_form(items[i + 1])) return false;
      return true;
    }
    default:
      return true;
  }
}

HostValue str(std::string s) {
  return HostValue::string(std::move(s));
}

HostValue num(double d) {
  return HostValue::floating(d);
}

HostValue count(size_t n) {
  return HostValue::integer(static_cast<int64_t>(n));
}

HostValue text_or_null(const std::string& s) {
  return s.empty() ? HostValue() : str(s);
}

HostValue tool_call_entry(const ToolCall& call) {
  return HostValue::map({{str("name"), str(call.name)},
                         {str("args"), with_json_form(call.args)},
                         {str("args_truncated"), HostValue::boolean(call.args_truncated)},
                         {str("result"), with_json_form(call.result)},
                         {str("result_truncated"), HostValue::boolean(call.result_truncated)},
                         {str("error"), text_or_null(call.error)},
                         {str("duration_ms"), num(call.duration_ms)},
                         {str("cached"), HostValue::boolean(call.cached)}});
}

HostValue tool_calls(const Step& step) {
  std::vector<HostValue> calls;
  calls.reserve(step.tool_calls.size());
  for (const ToolCall& call : step.tool_calls)
    calls.push_back(tool_call_entry(call));
  return HostValue::vector(std::move(calls));
}

HostValue pmap_calls(const Step& step) {
  std::vector<HostValue> calls;
  calls.reserve(step.pmap_calls.size());
  for (const ParallelCall& call : step.pmap_calls)
    calls.push_back(HostValue::map({{str("kind"), str(call.kind)},
                                    {str("count"), count(call.count)},
                                    {str("success_count"), count(call.success_count)},
                                    {str("error_count"), count(call.error_count)},
                                    {str("duration_ms"), num(call.duration_ms)}}));
  return HostValue::vector(std::move(calls));
}

HostValue error_entry(const Step& step) {
  if (step.ok) return HostValue();
  const Error& e = step.error;
  HostValue line, column;
  if (e.loc.known()) {
    line = count(e.loc.line);
    column = count(e.loc.col);
  }
  Entries entries{{str("reason"), str(std::string(reason_name(e.kind)))},
                  {str("message"), str(e.message)},
                  {str("hint"), text_or_null(e.hint)},
                  {str("line"), line},
                  {str("column"), column},
                  {str("text"), str(format_error(e))}};
  if (e.kind == ErrorKind::Fail)
    entries.emplace_back(str("fail_value"), with_json_form(step.fail_value));
  return HostValue::map(std::move(entries));
}

}  // namespace

HostValue with_json_form(const HostValue& h) {
  if (has_json_form(h)) return h;
  auto leaf = [](const HostValue& x) {
    if (x.kind() == Kind::Opaque) return str(x.text());
    if (x.kind() == Kind::Float && !std::isfinite(x.as_float())) return str(format_value(x));
    return x;
  };
  auto key = [](const HostValue& k) { return is_json_key(k) ? k : str(format_value(k)); };
  return map_host_value(h, leaf, key);
}

std::string json_text(const HostValue& h) {
  return to_json(with_json_form(h));
}

std::string tool_calls_json(const Step& step) {
  return to_json(tool_calls(step));
}

std::string step_json(const Step& step) {
  std::vector<HostValue> prints;
  prints.reserve(step.prints.size());
  for (const std::string& line : step.prints)
    prints.push_back(str(line));
  HostValue usage = usage_value(step.usage);
  HostValue doc = HostValue::map({{str("ok"), HostValue::boolean(step.ok)},
                                  {str("value"), with_json_form(step.value)},
                                  {str("printed"), str(step.printed)},
                                  {str("truncated"), HostValue::boolean(step.truncated)},
                                  {str("returned"), HostValue::boolean(step.returned)},
                                  {str("prints"), HostValue::vector(std::move(prints))},
                                  {str("memory"), with_json_form(step.memory)},
                                  {str("tool_calls"), tool_calls(step)},
                                  {str("pmap_calls"), pmap_calls(step)},
                                  {str("usage"), std::move(usage)},
                                  {str("error"), error_entry(step)}});
  return to_json(doc);
}

HostValue pending_call_value(const PendingCall& call) {
  std::vector<std::pair<HostValue, HostValue>> items{{str("id"), str(call.id)},
                                                     {str("tool"), str(call.tool)},
                                                     {str("args"), with_json_form(call.args)}};
  if (call.kind != PendingCall::Kind::Approval) return HostValue::map(std::move(items));
  // What a person deciding is shown: that it is theirs to decide, and where.
  items.emplace_back(str("kind"), str("approval"));
  if (call.loc.known()) {
    items.emplace_back(str("line"), HostValue::integer(call.loc.line));
    items.emplace_back(str("column"), HostValue::integer(call.loc.col));
  }
  return HostValue::map(std::move(items));
}

std::string pending_calls_json(const std::vector<PendingCall>& calls) {
  std::vector<HostValue> entries;
  entries.reserve(calls.size());
  for (const PendingCall& call : calls)
    entries.push_back(pending_call_value(call));
  return to_json(HostValue::vector(std::move(entries)));
}

}  // namespace ptc::capi
