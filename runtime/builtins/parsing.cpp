// Parsing text (spec §8.9): parse-long, parse-int, parse-double,
// parse-boolean and the Java parse methods.
//
// The Clojure-named parsers never fail: anything that is not a string, or not
// exactly a number in Java's syntax, gives nil (DIV-18). parse-long keeps to the
// Java long range (GAP-S85); parse-double takes Java's decimal spellings (.5,
// 1., 1e3, 0x1.0p0, NaN, Infinity; GAP-S61) but, as the spec says, no
// surrounding whitespace.
//
// The Java-named methods follow Java (GAP-J01, GAP-J15): Integer/parseInt and
// Long/parseLong take an optional radix and check the int or long range,
// Double/parseDouble and Float/parseFloat ignore surrounding whitespace, and
// all four raise on text that is not a number (use parse-long or parse-double
// for nil instead). Boolean/parseBoolean is true only for "true" in any case,
// false for every other string and nil, and raises for other values (GAP-J02).
#include <fmt/format.h>
#include <utf8proc.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/objects.hpp"
#include "runtime/strings.hpp"

namespace ptc::builtins {

namespace {

// Java's Character.digit: ASCII and full-width letters and digits, and every
// Unicode decimal digit (they come in runs of ten from 0 to 9). -1 if none.
int digit_value(int32_t c, int radix) {
  int v = -1;
  if (c >= '0' && c <= '9')
    v = c - '0';
  else if (c >= 'a' && c <= 'z')
    v = c - 'a' + 10;
  else if (c >= 'A' && c <= 'Z')
    v = c - 'A' + 10;
  else if (c >= 0xFF21 && c <= 0xFF3A)
    v = c - 0xFF21 + 10;
  else if (c >= 0xFF41 && c <= 0xFF5A)
    v = c - 0xFF41 + 10;
  else if (c >= 0x80 && utf8proc_category(c) == UTF8PROC_CATEGORY_ND) {
    int32_t start = c;
    while (c - start < 64 && utf8proc_category(start - 1) == UTF8PROC_CATEGORY_ND)
      --start;
    v = (c - start) % 10;
  }
  return v < radix ? v : -1;
}

// Java's Long.parseLong / Integer.parseInt: an optional sign and at least one
// digit of the radix, within [-limit-1, limit] when negative/positive.
std::optional<int64_t> parse_java_integer(std::string_view s, int radix, uint64_t max_positive) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return std::nullopt;
  uint64_t limit = negative ? max_positive + 1 : max_positive;
  uint64_t mag = 0;
  while (i < s.size()) {
    int32_t c;
    size_t n = decode_utf8(s, i, &c);
    if (n == 0) return std::nullopt;
    int d = digit_value(c, radix);
    if (d < 0) return std::nullopt;
    if (mag > (limit - static_cast<uint64_t>(d)) / static_cast<uint64_t>(radix))
      return std::nullopt;
    mag = mag * static_cast<uint64_t>(radix) + static_cast<uint64_t>(d);
    i += n;
  }
  if (negative)
    return mag == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                      : -static_cast<int64_t>(mag);
  return static_cast<int64_t>(mag);
}

bool is_dec(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Java's Double.parseDouble grammar without the whitespace trimming:
//   [+-] (NaN | Infinity | digits[.digits][exp][fFdD] | .digits[exp][fFdD]
//        | 0x hex[.hex] p[+-]digits [fFdD] | 0x .hex p[+-]digits [fFdD])
std::optional<double> parse_java_double(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    negative = s[i] == '-';
    ++i;
  }
  std::string_view rest = s.substr(i);
  if (rest == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (rest == "Infinity")
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  size_t body_start = i;
  auto digits = [&](bool (*ok)(char)) {
    size_t from = i;
    while (i < s.size() && ok(s[i]))
      ++i;
    return i - from;
  };
  if (s.size() - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    i += 2;
    size_t n = digits(is_hex);
    if (i < s.size() && s[i] == '.') {
      ++i;
      n += digits(is_hex);
    }
    if (n == 0 || i >= s.size() || (s[i] != 'p' && s[i] != 'P')) return std::nullopt;
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits(is_dec) == 0) return std::nullopt;
  } else {
    size_t n = digits(is_dec);
    if (i < s.size() && s[i] == '.') {
      ++i;
      n += digits(is_dec);
    }
    if (n == 0) return std::nullopt;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      if (digits(is_dec) == 0) return std::nullopt;
    }
  }
  size_t body_end = i;
  if (i < s.size() && std::strchr("fFdD", s[i])) ++i;
  if (i != s.size()) return std::nullopt;
  // The syntax is checked; strtod (C locale) does the correctly rounded
  // conversion, including hex floats, overflow to infinity and underflow.
  std::string text(s.substr(body_start, body_end - body_start));
  double d = std::strtod(text.c_str(), nullptr);
  return negative ? -d : d;
}

// Java's String.trim: drops characters up to U+0020 at both ends.
std::string_view java_trim(std::string_view s) {
  size_t from = 0, to = s.size();
  while (from < to && static_cast<unsigned char>(s[from]) <= ' ')
    ++from;
  while (to > from && static_cast<unsigned char>(s[to - 1]) <= ' ')
    --to;
  return s.substr(from, to - from);
}

Value from_double(std::optional<double> d) {
  return d ? Value::floating(*d) : Value();
}

// --- Clojure-named, nil on failure

Value parse_long(Ctx& ctx, const Value* a, uint32_t) {
  if (!a[0].is_string()) return Value();
  ctx.tick(1 + a[0].str()->len / 64);
  auto n = parse_java_integer(a[0].str()->view(), 10, std::numeric_limits<int64_t>::max());
  return n ? Value::integer(*n) : Value();
}

Value parse_double(Ctx& ctx, const Value* a, uint32_t) {
  if (!a[0].is_string()) return Value();
  ctx.tick(1 + a[0].str()->len / 64);
  return from_double(parse_java_double(a[0].str()->view()));
}

Value parse_boolean(Ctx&, const Value* a, uint32_t) {
  if (!a[0].is_string()) return Value();
  std::string_view s = a[0].str()->view();
  if (s == "true") return Value::boolean(true);
  if (s == "false") return Value::boolean(false);
  return Value();
}

// --- Java-named, raising like Java

[[noreturn]] void number_format_error(std::string_view fname, Value v, std::string_view safe) {
  std::string shown;
  if (v.is_nil())
    shown = "nil";
  else
    append_quoted(shown, v.str()->view());
  throw_error(ErrorKind::RuntimeError, fmt::format("{}: {} is not a number", fname, shown),
              fmt::format("use ({} s), which returns nil for text that is not a number", safe));
}

Value java_integer(Ctx& ctx, const Value* a, uint32_t n, std::string_view fname,
                   uint64_t max_positive) {
  if (!a[0].is_nil() && !a[0].is_string()) type_error(fname, "a string", a[0], 1);
  int radix = 10;
  if (n == 2) {
    int64_t r = expect_int(fname, a[1], 2);
    if (r < 2 || r > 36)
      throw_error(ErrorKind::RuntimeError, fmt::format("{}: radix {} is outside 2..36", fname, r));
    radix = static_cast<int>(r);
  }
  if (a[0].is_nil()) number_format_error(fname, a[0], "parse-long");
  ctx.tick(1 + a[0].str()->len / 64);
  auto v = parse_java_integer(a[0].str()->view(), radix, max_positive);
  if (!v) {
    if (radix == 10 &&
        parse_java_integer(a[0].str()->view(), 10, std::numeric_limits<int64_t>::max()))
      throw_error(ErrorKind::RuntimeError,
                  fmt::format("{}: {} is out of range", fname, a[0].str()->view()),
                  "use parse-long, which reads any 64-bit integer");
    number_format_error(fname, a[0], "parse-long");
  }
  return Value::integer(*v);
}

Value integer_parse_int(Ctx& ctx, const Value* a, uint32_t n) {
  return java_integer(ctx, a, n, "Integer/parseInt", std::numeric_limits<int32_t>::max());
}

Value long_parse_long(Ctx& ctx, const Value* a, uint32_t n) {
  return java_integer(ctx, a, n, "Long/parseLong", std::numeric_limits<int64_t>::max());
}

Value java_double(Ctx& ctx, Value v, std::string_view fname) {
  if (!v.is_nil() && !v.is_string()) type_error(fname, "a string", v, 1);
  if (v.is_nil()) number_format_error(fname, v, "parse-double");
  ctx.tick(1 + v.str()->len / 64);
  auto d = parse_java_double(java_trim(v.str()->view()));
  if (!d) number_format_error(fname, v, "parse-double");
  return Value::floating(*d);
}

Value double_parse_double(Ctx& ctx, const Value* a, uint32_t) {
  return java_double(ctx, a[0], "Double/parseDouble");
}

Value float_parse_float(Ctx& ctx, const Value* a, uint32_t) {
  return java_double(ctx, a[0], "Float/parseFloat");
}

Value boolean_parse_boolean(Ctx&, const Value* a, uint32_t) {
  if (a[0].is_nil()) return Value::boolean(false);
  if (!a[0].is_string()) type_error("Boolean/parseBoolean", "a string", a[0], 1);
  std::string_view s = a[0].str()->view();
  bool yes = s.size() == 4;
  for (size_t i = 0; yes && i < 4; ++i)
    yes = (s[i] | 0x20) == "true"[i];
  return Value::boolean(yes);
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(String, "parse-long", 1, 1, parse_long, "(parse-long s)", "The integer a string spells, or nil."),
    PTC_BUILTIN(String, "parse-int", 1, 1, parse_long, "(parse-int s)", "The integer a string spells, or nil (same as parse-long)."),
    PTC_BUILTIN(String, "parse-double", 1, 1, parse_double, "(parse-double s)", "The floating-point number a string spells, or nil."),
    PTC_BUILTIN(String, "parse-boolean", 1, 1, parse_boolean, "(parse-boolean s)", "true for \"true\", false for \"false\", otherwise nil."),
    PTC_BUILTIN(Interop, "Integer/parseInt", 1, 2, integer_parse_int, "(Integer/parseInt s) or (Integer/parseInt s radix)", "Java's Integer.parseInt: a 32-bit integer; fails on anything else."),
    PTC_BUILTIN(Interop, "Long/parseLong", 1, 2, long_parse_long, "(Long/parseLong s) or (Long/parseLong s radix)", "Java's Long.parseLong: a 64-bit integer; fails on anything else."),
    PTC_BUILTIN(Interop, "Double/parseDouble", 1, 1, double_parse_double, "(Double/parseDouble s)", "Java's Double.parseDouble: a floating-point number; fails on anything else."),
    PTC_BUILTIN(Interop, "Float/parseFloat", 1, 1, float_parse_float, "(Float/parseFloat s)", "Java's Float.parseFloat, giving a double; fails on text that is not a number."),
    PTC_BUILTIN(Interop, "Boolean/parseBoolean", 1, 1, boolean_parse_boolean, "(Boolean/parseBoolean s)", "Java's Boolean.parseBoolean: true only for \"true\" in any case."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> parsing() {
  return kDefs;
}

}  // namespace ptc::builtins
