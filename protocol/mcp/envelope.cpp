#include "protocol/mcp/envelope.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::mcp {

namespace {

using K = HostValue::Kind;

using host::str;

struct Caps {
  size_t print_entries, print_bytes, feedback_bytes, validated_bytes, whole_bytes;
};

Caps caps_of(ResponseProfile p) {
  switch (p) {
    case ResponseProfile::Slim:
      return {20, 8 << 10, 8 << 10, 0, 32 << 10};
    case ResponseProfile::Structured:
      return {50, 16 << 10, 16 << 10, 32 << 10, 96 << 10};
    case ResponseProfile::Debug:
      return {200, 64 << 10, 64 << 10, 128 << 10, 512 << 10};
  }
  return {20, 8 << 10, 8 << 10, 0, 32 << 10};
}

// At most `bytes` bytes of s, cut between UTF-8 characters; *cut says whether.
std::string cap(std::string_view s, size_t bytes, bool* cut = nullptr) {
  if (s.size() <= bytes) {
    if (cut) *cut = false;
    return std::string(s);
  }
  size_t n = bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
    --n;
  if (cut) *cut = true;
  return std::string(s.substr(0, n));
}

std::string text_of(const HostValue* v) {
  return v && (v->kind() == K::String || v->kind() == K::Keyword) ? v->text() : "";
}

bool flag(const HostValue& payload, const char* key) {
  const HostValue* v = payload.get(key);
  return v && v->kind() == K::Bool && v->as_bool();
}

HostValue content_text(std::string text) {
  return HostValue::vector(
      {HostValue::map({{str("type"), str("text")}, {str("text"), str(text)}})});
}

HostValue call_result(std::string text, bool is_error, const HostValue* structured) {
  std::vector<std::pair<HostValue, HostValue>> f;
  f.emplace_back(str("content"), content_text(std::move(text)));
  f.emplace_back(str("isError"), HostValue::boolean(is_error));
  if (structured) f.emplace_back(str("structuredContent"), *structured);
  return HostValue::map(std::move(f));
}

std::string json(const HostValue& v) {
  try {
    return to_json(v, true);
  } catch (LispError&) {
    return "null";
  }
}

// The prints kept under the caps, and whether any were dropped or cut.
std::vector<std::string> capped_prints(const HostValue& payload, const Caps& c, bool* cut) {
  std::vector<std::string> out;
  *cut = false;
  const HostValue* prints = payload.get("prints");
  if (!prints || prints->kind() != K::Vector) return out;
  size_t used = 0;
  for (const HostValue& p : prints->items()) {
    if (out.size() == c.print_entries || used >= c.print_bytes) {
      *cut = true;
      break;
    }
    bool line_cut = false;
    out.push_back(cap(p.text(), c.print_bytes - used, &line_cut));
    used += out.back().size();
    *cut = *cut || line_cut;
  }
  return out;
}

// `validated` when its JSON fits the cap; otherwise a preview of that JSON.
void add_validated(std::vector<std::pair<HostValue, HostValue>>& f, const HostValue& payload,
                   size_t limit, bool* output_truncated) {
  const HostValue* v = payload.get("validated");
  if (!v) return;
  std::string text = json(*v);
  if (text.size() <= limit) {
    f.emplace_back(str("validated"), *v);
    return;
  }
  bool cut = false;
  f.emplace_back(str("validated_preview"),
                 str(cap(text, std::min<size_t>(limit ? limit : 1024, 1024), &cut)));
  f.emplace_back(str("validated_bytes"), HostValue::integer(static_cast<int64_t>(text.size())));
  f.emplace_back(str("validated_preview_truncated"), HostValue::boolean(true));
  *output_truncated = true;
}

// The text a model reads: prints, then the result (or the validated JSON).
std::string success_text(const HostValue& payload, const std::vector<std::string>& prints,
                         bool truncated, size_t validated_room) {
  std::string text;
  for (const std::string& p : prints)
    text += p + "\n";
  std::string result = text_of(payload.get("result"));
  if (result.empty()) {
    if (const HostValue* v = payload.get("validated")) result = cap(json(*v), validated_room);
  }
  if (!result.empty()) {
    if (!text.empty()) text += "\n";
    text += result;
  }
  if (text.empty()) text = "user=> nil";
  if (truncated) text += "\n\n[truncated]";
  return text;
}

}  // namespace

HostValue payload_result(const HostValue& payload, ResponseProfile profile, const Usage* usage) {
  Caps c = caps_of(profile);
  bool ok = text_of(payload.get("status")) == "ok";
  bool prints_cut = false;
  std::vector<std::string> prints = capped_prints(payload, c, &prints_cut);
  bool feedback_cut = false;
  std::string feedback = cap(text_of(payload.get("feedback")), c.feedback_bytes, &feedback_cut);
  bool output_truncated = prints_cut || feedback_cut;

  if (profile == ResponseProfile::Debug) {
    // Everything, mirrored as text, within the caps.
    std::vector<std::pair<HostValue, HostValue>> f;
    const auto& items = payload.items();
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
      std::string key = items[i].text();
      if (key == "prints" || key == "feedback" || key == "validated") continue;
      f.emplace_back(items[i], items[i + 1]);
    }
    std::vector<HostValue> kept;
    for (const std::string& p : prints)
      kept.push_back(str(p));
    if (payload.get("prints")) f.emplace_back(str("prints"), HostValue::vector(std::move(kept)));
    if (payload.get("feedback")) f.emplace_back(str("feedback"), str(feedback));
    add_validated(f, payload, c.validated_bytes, &output_truncated);
    if (usage) f.emplace_back(str("usage"), usage_value(*usage));
    if (output_truncated) f.emplace_back(str("output_truncated"), HostValue::boolean(true));
    HostValue structured = HostValue::map(std::move(f));
    std::string text = json(structured);
    if (text.size() > c.whole_bytes) {
      HostValue minimal = HostValue::map({{str("status"), str(ok ? "ok" : "error")},
                                          {str("output_truncated"), HostValue::boolean(true)}});
      return call_result(cap(text, c.whole_bytes), !ok, &minimal);
    }
    return call_result(std::move(text), !ok, &structured);
  }

  if (!ok) {
    std::string reason = text_of(payload.get("reason"));
    std::string message = text_of(payload.get("message"));
    std::string text = reason + ": " + cap(message, c.feedback_bytes);
    if (!feedback.empty() && feedback != message) text += "\n" + feedback;
    if (const HostValue* r = payload.get("result"); r && !r->is_nil())
      text += "\nvalue: " + cap(r->text(), c.feedback_bytes);
    text = cap(text, c.whole_bytes);
    if (profile == ResponseProfile::Slim) return call_result(std::move(text), true, nullptr);
    std::vector<std::pair<HostValue, HostValue>> f{
        {str("status"), str("error")},
        {str("reason"), str(reason)},
        {str("message"), str(cap(message, c.feedback_bytes))}};
    if (!feedback.empty() && feedback != message) f.emplace_back(str("feedback"), str(feedback));
    if (const HostValue* r = payload.get("result")) f.emplace_back(str("result"), *r);
    if (feedback_cut) f.emplace_back(str("feedback_truncated"), HostValue::boolean(true));
    HostValue structured = HostValue::map(std::move(f));
    return call_result(std::move(text), true, &structured);
  }

  bool truncated = flag(payload, "truncated") || output_truncated;
  std::string text = cap(success_text(payload, prints, truncated, c.feedback_bytes), c.whole_bytes);
  if (profile == ResponseProfile::Slim) return call_result(std::move(text), false, nullptr);
  std::vector<std::pair<HostValue, HostValue>> f{{str("status"), str("ok")}};
  if (const HostValue* r = payload.get("result")) f.emplace_back(str("result"), *r);
  add_validated(f, payload, c.validated_bytes, &output_truncated);
  if (truncated) f.emplace_back(str("truncated"), HostValue::boolean(true));
  if (output_truncated) f.emplace_back(str("output_truncated"), HostValue::boolean(true));
  HostValue structured = HostValue::map(std::move(f));
  if (json(structured).size() > c.whole_bytes) {
    HostValue minimal = HostValue::map(
        {{str("status"), str("ok")}, {str("output_truncated"), HostValue::boolean(true)}});
    return call_result(std::move(text), false, &minimal);
  }
  return call_result(std::move(text), false, &structured);
}

HostValue error_result(std::string_view reason, std::string_view message,
                       std::string_view feedback) {
  HostValue structured = HostValue::map({{str("status"), str("error")},
                                         {str("reason"), str(reason)},
                                         {str("message"), str(message)},
                                         {str("feedback"), str(feedback)}});
  return call_result(json(structured), true, &structured);
}

HostValue structured_result(const HostValue& structured, bool is_error) {
  return call_result(json(structured), is_error, &structured);
}

}  // namespace ptc::mcp
