#include "runtime/printer.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>

#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {

// Java's Double.toString: plain notation for 1e-3 <= |d| < 1e7, otherwise
// d.dddE<n>; always at least one digit after the point; shortest digits that
// read back as the same double.
void format_java_double(std::string& out, double d) {
  if (d == 0) {
    out += std::signbit(d) ? "-0.0" : "0.0";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  // Java shows at least two significant digits, and when the shortest form has
  // one, the second is the correctly rounded one, not a padding zero: the
  // smallest subnormal prints as 4.9E-324 (shortest: 5e-324). For normal
  // doubles this gives d.0 as before.
  if (std::string_view(buf, static_cast<size_t>(res.ptr - buf)).find('.') == std::string_view::npos)
    res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific, 1);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));  // e.g. -1.2345e-05
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits.push_back(c);
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
  int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
  if (neg) out.push_back('-');
  double ad = std::fabs(d);
  if (ad >= 1e-3 && ad < 1e7) {
    if (exp >= 0) {
      size_t int_len = static_cast<size_t>(exp) + 1;
      if (digits.size() <= int_len) {
        out += digits;
        out.append(int_len - digits.size(), '0');
        out += ".0";
      } else {
        out += digits.substr(0, int_len);
        out.push_back('.');
        out += digits.substr(int_len);
      }
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exp - 1), '0');
      out += digits;
    }
    return;
  }
  out.push_back(digits[0]);
  out.push_back('.');
  out += digits.size() > 1 ? digits.substr(1) : "0";
  out += fmt::format("E{}", exp);
}

// Compact display: at most 10 decimals, trailing zeros dropped (3.3, 0.3333333333).
void format_display_double(std::string& out, double d) {
  double ad = std::fabs(d);
  if (d != 0 && (ad < 1e-4 || ad >= 1e15)) {
    format_java_double(out, d);
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10f", d);
  std::string s(buf);
  size_t dot = s.find('.');
  size_t last = s.find_last_not_of('0');
  if (last == dot) last = dot + 1;
  s.resize(last + 1);
  out += s;
}

struct Printer {
  std::string& out;
  const PrintOptions& opts;
  bool truncated = false;
  bool full = false;  // past opts.max_bytes: nothing more is printed

  // Called before each value: charges the run for the walk and stops at the cap.
  bool room() {
    if (full) return false;
    charge_walk();
    if (opts.max_bytes == 0 || out.size() <= opts.max_bytes) return true;
    if (opts.fail_when_full)
      throw_error(ErrorKind::MemoryLimit,
                  fmt::format("memory limit exceeded: the printed form is longer than {} bytes",
                              opts.max_bytes),
                  "the value is too large to print (shared structure prints each time it "
                  "appears); print a part of it, or its count");
    full = truncated = true;
    return false;
  }

  void string(std::string_view s) {
    // Past the output cap nothing more is kept, so a huge string is not
    // copied whole to be cut afterwards: only what fits (and a byte more,
    // so the cap is seen as passed) is appended.
    if (opts.max_bytes && out.size() + s.size() > opts.max_bytes) {
      size_t keep = opts.max_bytes >= out.size() ? opts.max_bytes - out.size() + 1 : 1;
      while (keep > 0 && keep < s.size() && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80)
        --keep;  // whole UTF-8 characters only
      s = s.substr(0, keep);
    }
    if (!opts.readable) {
      out += s;
      return;
    }
    if (opts.string_limit) {
      size_t total = grapheme_count(s);
      if (total > opts.string_limit) {
        std::string cut(s.substr(0, grapheme_offset(s, opts.string_limit)));
        cut += "...";
        append_quoted(out, cut);
        out += fmt::format(" ({}/{} chars)", opts.string_limit, total);
        truncated = true;
        return;
      }
    }
    append_quoted(out, s);
  }

  // Elements of a sequential or set, with the limit applied.
  template <class Iter>
  void items(Iter it, size_t total, const char* open, const char* close) {
    out += open;
    size_t shown = 0;
    for (; !it.done(); it.next()) {
      if ((opts.limit && shown == opts.limit) || !room()) break;
      if (shown) out.push_back(' ');
      value(it.key_or_value());
      ++shown;
    }
    if (shown < total) {
      out += " ...";
      out += close;
      out += fmt::format(" ({}/{})", shown, total);
      truncated = true;
      return;
    }
    out += close;
  }

  struct VecItems {
    VecIter it;
    bool done() const { return it.done(); }
    void next() { it.next(); }
    Value key_or_value() const { return it.value(); }
  };
  struct SetItems {
    HashIter it;
    bool done() const { return it.done(); }
    void next() { it.next(); }
    Value key_or_value() const { return it.key(); }
  };

  void value(Value v) {
    switch (v.type()) {
      case Type::Nil:
        out += "nil";
        return;
      case Type::Bool:
        out += v.as_bool() ? "true" : "false";
        return;
      case Type::Int: {
        char buf[24];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.as_int());
        out.append(buf, end);
        return;
      }
      case Type::Float: {
        double d = v.as_float();
        if (std::isnan(d))
          out += opts.readable ? "##NaN" : "NaN";
        else if (std::isinf(d))
          out += opts.readable ? (d > 0 ? "##Inf" : "##-Inf") : (d > 0 ? "Infinity" : "-Infinity");
        else
          format_double(out, d, opts.floats);
        return;
      }
      case Type::BigInt:
        out += bigint_to_string(v.big());
        return;
      case Type::String:
        string(v.str()->view());
        return;
      case Type::Keyword:
        out.push_back(':');
        out += v.kw()->name();
        return;
      case Type::Symbol:
        out.push_back('\'');
        out += v.kw()->name();
        return;
      case Type::Vector:
        check_native_stack("printing a nested value");
        items(VecItems{VecIter(v.vec())}, v.vec()->count, "[", "]");
        return;
      case Type::Set:
        check_native_stack("printing a nested value");
        items(SetItems{HashIter(v.set())}, v.set()->count, "#{", "}");
        return;
      case Type::Map: {
        check_native_stack("printing a nested value");
        const MapObj* m = v.map();
        out.push_back('{');
        size_t shown = 0;
        for (HashIter it(m); !it.done(); it.next()) {
          if ((opts.limit && shown == opts.limit) || !room()) break;
          if (shown) out.push_back(' ');
          value(it.key());
          out.push_back(' ');
          value(it.val());
          ++shown;
        }
        if (shown < m->count) {
          out += fmt::format(" ...}} ({}/{})", shown, m->count);
          truncated = true;
        } else {
          out.push_back('}');
        }
        return;
      }
      case Type::Closure:
        out += "#fn[";
        out += v.as<ClosureObj>()->fn->params;
        out += "]";
        return;
      case Type::NativeFn:
        out += "#fn[...]";
        return;
      case Type::Builtin:
        out += "#<builtin>";
        return;
      case Type::Regex:
        out += "#\"";
        out += v.as<RegexObj>()->source->view();
        out += "\"";
        return;
      case Type::Var:
        out += "#'";
        out += v.as<VarObj>()->name->name();
        return;
      case Type::Opaque:
        v.as<OpaqueObj>()->vt->print(v.as<OpaqueObj>(), out, opts.readable);
        return;
    }
  }
};

}  // namespace

void format_double(std::string& out, double d, FloatStyle style) {
  if (style == FloatStyle::Display)
    format_display_double(out, d);
  else
    format_java_double(out, d);
}

bool print_value(std::string& out, Value v, const PrintOptions& opts) {
  Printer p{out, opts};
  if (p.room()) p.value(v);
  p.room();  // a long final atom also counts against the cap
  return p.truncated;
}

std::string print_to_string(Value v, const PrintOptions& opts) {
  std::string out;
  print_value(out, v, opts);
  return out;
}

std::string display_value(Value v, size_t limit, bool* truncated, size_t max_bytes) {
  PrintOptions opts;
  opts.floats = FloatStyle::Display;
  opts.limit = limit;
  opts.max_bytes = max_bytes;
  std::string out;
  bool t = print_value(out, v, opts);
  if (truncated) *truncated = t;
  return out;
}

void str_append(std::string& out, Value v, size_t max_bytes) {
  if (v.is_nil()) return;
  if (v.is_string()) {
    out += v.str()->view();
    return;
  }
  if (v.is(Type::Symbol)) {  // (str 'x) is "x", as in Clojure
    out += v.kw()->name();
    return;
  }
  if (v.is(Type::Regex)) {  // (str #"a+") is "a+" (GAP-S93)
    out += v.as<RegexObj>()->source->view();
    return;
  }
  PrintOptions opts;
  opts.readable = v.is_vector() || v.is_map() || v.is_set();  // (str [\"a\"]) keeps quotes
  opts.max_bytes = max_bytes;
  opts.fail_when_full = true;
  print_value(out, v, opts);
}

std::string preview(Value v, size_t max_chars) {
  PrintOptions opts;
  opts.limit = 5;
  opts.string_limit = max_chars;
  // Five items per level still grow as 5^depth: stop printing a little past
  // what is kept (a grapheme is at most a few bytes in practice).
  opts.max_bytes = max_chars * 8 + 64;
  std::string out;
  print_value(out, v, opts);
  if (out.size() > max_chars + 20) {
    out.resize(grapheme_offset(out, max_chars));
    out += "...";
  }
  return out;
}

}  // namespace ptc
