#include "runtime/host_preview.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "runtime/printer.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"

namespace ptc {
namespace {

using HKind = HostValue::Kind;

// One printer for both forms: they differ in where the text is cut and in
// how floats, sets and maps are written.
class Previewer {
 public:
  Previewer(std::string& out, size_t limit, bool canonical)
      : out_(out), limit_(limit), canonical_(canonical) {}

  void value(const HostValue& v) {
    // A limit bounds the depth too (every level adds a byte); canonical text
    // has no limit.
    if (canonical_) check_native_stack("rendering tool arguments");
    switch (v.kind()) {
      case HKind::Nil:
        out_ += "nil";
        return;
      case HKind::Bool:
        out_ += v.as_bool() ? "true" : "false";
        return;
      case HKind::Int:
        out_ += std::to_string(v.as_int());
        return;
      case HKind::BigInt:
      case HKind::Opaque:
        out_ += v.text();
        return;
      case HKind::Float:
        floating(v.as_float());
        return;
      case HKind::String:
        string(v.text());
        return;
      case HKind::Keyword:
        out_ += ':';
        out_ += v.text();
        return;
      case HKind::Vector:
        return streamed(v, "[", "]", " ");
      case HKind::Set:
        return canonical_ ? sorted_set(v) : streamed(v, "#{", "}", " ");
      case HKind::Map:
        return canonical_ ? canonical_map(v) : streamed(v, "{", "}", ", ");
    }
  }

 private:
  std::string render(const HostValue& v) const {
    std::string text;
    Previewer(text, limit_, canonical_).value(v);
    return text;
  }

  void floating(double d) {
    // Integral floats as integers: 2.0 is the same cache key as 2.
    if (canonical_ && std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18)
      out_ += std::to_string(static_cast<int64_t>(d));
    else
      format_double(out_, d, FloatStyle::Display);
  }

  void string(std::string_view s) {
    size_t room = limit_ > out_.size() ? limit_ - out_.size() : 0;
    size_t cut = canonical_ ? s.size() : grapheme_offset(s, room);
    append_quoted(out_, s.substr(0, cut));
    if (cut < s.size()) out_.insert(out_.size() - 1, "...");
  }

  // Items in order (a map's keys and values alternately), "..." for those
  // past the limit.
  void streamed(const HostValue& v, std::string_view open, std::string_view close,
                std::string_view entry_gap) {
    out_ += open;
    const auto& items = v.items();
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ += i % 2 == 0 ? entry_gap : " ";
      if (out_.size() >= limit_) {
        out_ += "...";
        break;
      }
      value(items[i]);
    }
    out_ += close;
  }

  void sorted_set(const HostValue& v) {
    std::vector<std::string> parts;
    for (const HostValue& x : v.items())
      parts.push_back(render(x));
    std::sort(parts.begin(), parts.end());
    out_ += "#{";
    for (size_t i = 0; i < parts.size(); ++i)
      out_ += (i ? " " : "") + parts[i];
    out_ += '}';
  }

  void canonical_map(const HostValue& v) {
    struct Entry {
      std::string key;  // a name with - as _, or a non-text key in PTC-Lisp syntax
      bool text = false;
      std::string value;
    };
    std::vector<Entry> entries;
    std::set<std::string> seen;
    const auto& items = v.items();
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
      const HostValue& k = items[i];
      Entry e;
      e.text = k.kind() == HKind::String || k.kind() == HKind::Keyword;
      if (e.text) {
        e.key = k.text();
        std::replace(e.key.begin(), e.key.end(), '-', '_');
      } else {
        e.key = render(k);
      }
      if (!seen.insert(e.key).second) continue;
      e.value = render(items[i + 1]);
      entries.push_back(std::move(e));
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    out_ += '{';
    for (size_t i = 0; i < entries.size(); ++i) {
      const Entry& e = entries[i];
      if (i) out_ += ' ';
      // A text key that is no keyword name stays a string.
      if (e.text && is_keyword_name(e.key))
        out_ += ':' + e.key;
      else if (e.text)
        append_quoted(out_, e.key);
      else
        out_ += e.key;
      out_ += ' ';
      out_ += e.value;
    }
    out_ += '}';
  }

  std::string& out_;
  size_t limit_;
  bool canonical_;
};

}  // namespace

void append_host_preview(std::string& out, const HostValue& v, size_t limit) {
  Previewer(out, limit, false).value(v);
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
  Previewer(out, std::numeric_limits<size_t>::max(), true).value(v);
}

bool is_keyword_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("+-*<>=?!_").find(c) != std::string_view::npos;
  });
}

}  // namespace ptc
