#include "runtime/host_preview.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "runtime/printer.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"

namespace ptc {
namespace {

using HKind = HostValue::Kind;
using Parts = std::vector<std::pair<std::string, std::string>>;  // sort key, text

// The two forms differ in where the text is cut (canonical text never is)
// and in how floats, sets and maps are written.
struct Form {
  size_t limit;
  bool canonical;
};

void preview(std::string& out, const HostValue& v, Form form);

std::string rendered(const HostValue& v, Form form) {
  std::string text;
  preview(text, v, form);
  return text;
}

// Items in order (a map's keys and values alternately), "..." for those past
// the limit.
void streamed(std::string& out, const HostValue& v, Form form, std::string_view open,
              std::string_view entry_gap) {
  out += open;
  const auto& items = v.items();
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i % 2 == 0 ? entry_gap : " ";
    if (out.size() >= form.limit) {
      out += "...";
      break;
    }
    preview(out, items[i], form);
  }
  out += open == "[" ? "]" : "}";
}

void sorted(std::string& out, std::string_view open, Parts parts) {
  std::sort(parts.begin(), parts.end());
  out += open;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? " " : "") + parts[i].second;
  out += '}';
}

// Once per key, with - as _, a keyword where the name is one.
void canonical_map(std::string& out, const HostValue& v, Form form) {
  Parts entries;
  std::set<std::string> seen;
  const auto& items = v.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const HostValue& k = items[i];
    bool text = k.kind() == HKind::String || k.kind() == HKind::Keyword;
    std::string key = text ? k.text() : rendered(k, form);
    if (text) std::replace(key.begin(), key.end(), '-', '_');
    if (!seen.insert(key).second) continue;
    std::string entry;
    if (!text)
      entry = key;
    else if (is_keyword_name(key))
      entry = ':' + key;
    else
      append_quoted(entry, key);  // no keyword name: it stays a string
    entries.emplace_back(std::move(key), entry + ' ' + rendered(items[i + 1], form));
  }
  sorted(out, "{", std::move(entries));
}

void preview(std::string& out, const HostValue& v, Form form) {
  // A limit bounds the depth (every level adds a byte); canonical text has none.
  if (form.canonical) check_native_stack("rendering tool arguments");
  switch (v.kind()) {
    case HKind::Nil:
      out += "nil";
      return;
    case HKind::Bool:
      out += v.as_bool() ? "true" : "false";
      return;
    case HKind::Int:
      out += std::to_string(v.as_int());
      return;
    case HKind::BigInt:
    case HKind::Opaque:
      out += v.text();
      return;
    case HKind::Float: {
      double d = v.as_float();
      // Integral floats as integers: 2.0 is the same cache key as 2.
      if (form.canonical && std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18)
        out += std::to_string(static_cast<int64_t>(d));
      else
        format_double(out, d, FloatStyle::Display);
      return;
    }
    case HKind::String: {
      std::string_view s = v.text();
      size_t room = form.limit > out.size() ? form.limit - out.size() : 0;
      size_t cut = form.canonical ? s.size() : grapheme_offset(s, room);
      append_quoted(out, s.substr(0, cut));
      if (cut < s.size()) out.insert(out.size() - 1, "...");
      return;
    }
    case HKind::Keyword:
      out += ':';
      out += v.text();
      return;
    case HKind::Vector:
      return streamed(out, v, form, "[", " ");
    case HKind::Set: {
      if (!form.canonical) return streamed(out, v, form, "#{", " ");
      Parts parts;
      for (const HostValue& x : v.items())
        parts.emplace_back("", rendered(x, form));  // sorted by their text
      return sorted(out, "#{", std::move(parts));
    }
    case HKind::Map:
      if (!form.canonical) return streamed(out, v, form, "{", ", ");
      return canonical_map(out, v, form);
  }
}

}  // namespace

void append_host_preview(std::string& out, const HostValue& v, size_t limit) {
  preview(out, v, {limit, false});
}

std::string host_preview(const HostValue& v, size_t limit) {
  std::string out;
  append_host_preview(out, v, limit);
  if (out.size() > limit + 16) {
    size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
      --cut;
    out.resize(cut);
    out += "...";
  }
  return out;
}

void append_canonical_host_value(std::string& out, const HostValue& v) {
  preview(out, v, {std::numeric_limits<size_t>::max(), true});
}

bool is_keyword_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("+-*<>=?!_").find(c) != std::string_view::npos;
  });
}

}  // namespace ptc
