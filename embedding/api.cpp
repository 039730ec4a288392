// The small parts of the embedding API around ptc::run: displaying host
// values and errors, and Session (memory and *1 *2 *3 across runs).
#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "include/ptc/ptc.hpp"
#include "runtime/printer.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"

namespace ptc {

namespace {

// Host values printed as the runtime printer (runtime/printer.cpp) prints
// the values they came from: the same atoms (through the same helpers), the
// same collection syntax, limit markers and byte cap. Printing the host tree
// directly, rather than importing it into a scratch run first, keeps a
// capped preview of a huge value as cheap as its cut. Values with no data
// form (functions, vars, regexes) show their printed form.
// tests/vm/format_value_test.cpp checks the two printers agree.
struct HostPrinter {
  std::string& out;
  size_t limit;
  size_t max_bytes;
  bool truncated = false;
  bool full = false;

  bool room() {
    if (full) return false;
    if (max_bytes == 0 || out.size() <= max_bytes) return true;
    full = truncated = true;
    return false;
  }

  void string(std::string_view s) {
    // A character is at least one byte: only a longer text can be over.
    if (max_bytes && s.size() > max_bytes) {
      size_t total = grapheme_count(s);
      if (total > max_bytes) {
        std::string cut(s.substr(0, grapheme_offset(s, max_bytes)));
        cut += "...";
        append_quoted(out, cut);
        out += fmt::format(" ({}/{} chars)", max_bytes, total);
        truncated = true;
        return;
      }
    }
    append_quoted(out, s);
  }

  void items(const std::vector<HostValue>& xs, const char* open, const char* close) {
    out += open;
    size_t shown = 0;
    for (const HostValue& x : xs) {
      if ((limit && shown == limit) || !room()) break;
      if (shown) out.push_back(' ');
      value(x);
      ++shown;
    }
    if (shown < xs.size()) {
      out += fmt::format(" ...{} ({}/{})", close, shown, xs.size());
      truncated = true;
      return;
    }
    out += close;
  }

  void map(const std::vector<HostValue>& kv) {
    out.push_back('{');
    size_t shown = 0, total = kv.size() / 2;
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      if ((limit && shown == limit) || !room()) break;
      if (shown) out.push_back(' ');
      value(kv[i]);
      out.push_back(' ');
      value(kv[i + 1]);
      ++shown;
    }
    if (shown < total) {
      out += fmt::format(" ...}} ({}/{})", shown, total);
      truncated = true;
      return;
    }
    out.push_back('}');
  }

  void value(const HostValue& h) {
    using K = HostValue::Kind;
    switch (h.kind()) {
      case K::Nil:
        out += "nil";
        return;
      case K::Bool:
        out += h.as_bool() ? "true" : "false";
        return;
      case K::Int:
        out += fmt::format("{}", h.as_int());
        return;
      case K::BigInt:
        out += h.text();
        return;
      case K::Float: {
        double d = h.as_float();
        if (std::isnan(d))
          out += "##NaN";
        else if (std::isinf(d))
          out += d > 0 ? "##Inf" : "##-Inf";
        else
          format_double(out, d, FloatStyle::Display);
        return;
      }
      case K::String:
        string(h.text());
        return;
      case K::Keyword:
        out.push_back(':');
        out += h.text();
        return;
      case K::Opaque:
        out += h.text();
        return;
      case K::Vector:
        check_native_stack("printing a nested value");
        items(h.items(), "[", "]");
        return;
      case K::Set:
        check_native_stack("printing a nested value");
        items(h.items(), "#{", "}");
        return;
      case K::Map:
        check_native_stack("printing a nested value");
        map(h.items());
        return;
    }
  }
};

}  // namespace

std::string format_value(const HostValue& value, size_t limit, bool* truncated) {
  return format_value(value, limit, truncated, 0);
}

std::string format_value(const HostValue& value, size_t limit, bool* truncated, size_t max_bytes) {
  std::string out;
  HostPrinter p{out, limit, max_bytes};
  if (p.room()) p.value(value);
  p.room();  // a long final atom also counts against the cap
  if (truncated) *truncated = p.truncated;
  return out;
}

std::string format_error(const Error& error) {
  return error.describe();
}

HostValue usage_value(const Usage& u) {
  auto key = [](const char* k) { return HostValue::string(k); };
  auto count = [](uint64_t n) { return HostValue::integer(static_cast<int64_t>(n)); };
  return HostValue::map({{key("duration_ms"), HostValue::floating(u.duration_ms)},
                         {key("memory_bytes"), count(u.memory_bytes)},
                         {key("eval_reductions"), count(u.eval_reductions)},
                         {key("peak_live_bytes"), count(u.peak_live_bytes)},
                         {key("allocated_bytes"), count(u.allocated_bytes)},
                         {key("collections"), count(u.collections)},
                         {key("collect_ms"), HostValue::floating(u.collect_ms)}});
}

Session::Session(RunOptions defaults, size_t history_depth)
    : options_(std::move(defaults)), depth_(history_depth) {}

Step Session::eval(std::string_view source) {
  Step step = run(source, options_);
  if (!step.ok) return step;
  options_.memory = step.memory;
  auto& history = options_.turn_history;
  history.push_back(step.value);
  if (history.size() > depth_) history.erase(history.begin(), history.end() - depth_);
  return step;
}

void Session::reset() {
  options_.memory = HostValue();
  options_.turn_history.clear();
}

}  // namespace ptc
