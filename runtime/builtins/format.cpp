// format: java.util.Formatter-style formatting (spec §8.3).
//
// Supported: %[index$][flags][width][.precision]conversion with
//   index       n$ (argument n, 1-based) or the < flag (the previous argument)
//   flags       - (left-justify), 0 (zero-pad), + (always a sign), space (a
//               space for non-negative numbers), ',' (group thousands),
//               ( (negative numbers in parentheses), # (0x / 0 prefix for x and
//               o, always a decimal point for f and e)
//   conversions s S (str of the value; nil is "" as (str nil), DIV-21),
//               b B (false for nil and false, true otherwise), c C (a
//               one-character string or a code point), d (integers; floats
//               without a fraction are accepted), x X o (integers; negative
//               int64 values print as 64-bit two's complement, as Java longs
//               do), f e E g G (numbers; ##Inf and ##NaN print as Infinity and
//               NaN), h H (hash code of strings, numbers, booleans), n (newline),
//               % (a percent sign).
// Numeric conversions print nil as "null", as Java does (GAP-S117). Width and
// precision count characters (graphemes). Floats round half-up on their
// shortest decimal digits, as Java's Formatter does ("%.2f" of 0.125 is 0.13).
// Extra arguments are ignored. Everything else — date/time (%t), %a, a flag
// the conversion does not take, a missing argument — is an error that says
// what went wrong.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/bignum.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/strings.hpp"

namespace ptc::builtins {

namespace {

constexpr std::string_view kSupported =
    "supported: %s %S %d %f %e %E %g %G %x %X %o %b %B %c %C %h %H %n %% with flags - 0 + space "
    ", ( #, a width, a .precision and an argument index like %2$s or %<s";

[[noreturn]] void format_error(std::string_view message, std::string_view hint = kSupported) {
  throw_error(ErrorKind::RuntimeError, fmt::format("format: {}", message), std::string(hint));
}

struct Spec {
  std::string_view text;  // the whole specifier, for messages
  bool left = false, zero = false, plus = false, space = false, group = false, paren = false,
       alt = false, previous = false;
  int64_t index = 0;  // explicit argument index (1-based), 0 = none
  int64_t width = -1, precision = -1;
  char conv = 0;
  bool upper = false;
};

// Reads digits as a non-negative number, saturating far beyond any usable size.
int64_t read_number(std::string_view f, size_t* i) {
  int64_t n = 0;
  while (*i < f.size() && f[*i] >= '0' && f[*i] <= '9') {
    if (n < (int64_t{1} << 40)) n = n * 10 + (f[*i] - '0');
    ++*i;
  }
  return n;
}

// Parses the specifier that starts after the '%' at f[*i]; moves *i past it.
Spec parse_spec(std::string_view f, size_t* i) {
  Spec s;
  size_t begin = *i - 1;
  // n$ : digits followed by '$'
  size_t j = *i;
  if (j < f.size() && f[j] >= '1' && f[j] <= '9') {
    size_t k = j;
    int64_t n = read_number(f, &k);
    if (k < f.size() && f[k] == '$') {
      s.index = n;
      *i = k + 1;
    }
  }
  // flags
  constexpr std::string_view kFlags = "-0+ ,(#<";
  bool* const slots[] = {&s.left,  &s.zero,  &s.plus, &s.space,
                         &s.group, &s.paren, &s.alt,  &s.previous};
  for (; *i < f.size(); ++*i) {
    size_t k = kFlags.find(f[*i]);
    if (k == std::string_view::npos) break;
    bool* flag = slots[k];
    if (*flag)
      format_error(
          fmt::format("flag '{}' appears twice in {}", f[*i], f.substr(begin, *i + 1 - begin)));
    *flag = true;
  }
  if (*i < f.size() && f[*i] >= '1' && f[*i] <= '9') s.width = read_number(f, i);
  if (*i < f.size() && f[*i] == '.') {
    ++*i;
    if (*i >= f.size() || f[*i] < '0' || f[*i] > '9')
      format_error(
          fmt::format("a precision needs digits after '.' in {}", f.substr(begin, *i - begin)));
    s.precision = read_number(f, i);
  }
  if (*i >= f.size())
    format_error(fmt::format("the format string ends inside the specifier {}", f.substr(begin)));
  size_t glen = grapheme_length(f, *i);
  char c = f[*i];
  *i += glen;
  s.text = f.substr(begin, *i - begin);
  if (c == 't' || c == 'T')
    format_error(fmt::format("date/time conversions are not supported ({})", s.text),
                 "format the parts yourself, e.g. with str and the date's fields");
  if (glen != 1 || !std::strchr("sSdfeEgGxXobBcChHn%", c))
    format_error(fmt::format("unknown conversion {}", s.text));
  s.conv = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  s.upper = c >= 'A' && c <= 'Z';
  return s;
}

// Java's flag rules, checked per conversion.
void check_flags(const Spec& s, bool bignum) {
  auto bad = [&](char flag) {
    format_error(fmt::format("flag '{}' does not apply to %{} in {}", flag, s.conv, s.text));
  };
  std::string_view allowed;
  switch (s.conv) {
    case 's':
    case 'b':
    case 'c':
    case 'h':
    case '%':
      allowed = "-";
      break;
    case 'n':
      allowed = "";
      break;
    case 'd':
      allowed = "-0+ ,(";
      break;
    case 'x':
    case 'o':
      allowed = bignum ? "-#0+ (" : "-#0";
      break;
    case 'e':
      allowed = "-#0+ (";
      break;
    case 'f':
      allowed = "-#0+ ,(";
      break;
    case 'g':
      allowed = "-0+ ,(";
      break;
    default:
      break;
  }
  const std::pair<bool, char> flags[] = {{s.left, '-'},  {s.zero, '0'},  {s.plus, '+'},
                                         {s.space, ' '}, {s.group, ','}, {s.paren, '('},
                                         {s.alt, '#'}};
  for (auto [on, ch] : flags)
    if (on && allowed.find(ch) == std::string_view::npos) bad(ch);
  if (s.plus && s.space)
    format_error(fmt::format("flags '+' and ' ' exclude each other in {}", s.text));
  if (s.left && s.zero)
    format_error(fmt::format("flags '-' and '0' exclude each other in {}", s.text));
  if ((s.left || s.zero) && s.width < 0)
    format_error(fmt::format("flag '{}' needs a width in {}", s.left ? '-' : '0', s.text));
  if (s.conv == 'n' && s.width >= 0) format_error(fmt::format("%n takes no width ({})", s.text));
  if (s.precision >= 0 && std::strchr("dxocn%", s.conv))
    format_error(fmt::format("%{} takes no precision ({})", s.conv, s.text));
}

class Formatter {
 public:
  Formatter(Ctx& ctx, const Value* args, uint32_t nargs) : ctx_(ctx), args_(args), nargs_(nargs) {}

  Value run(std::string_view f) {
    for (size_t i = 0; i < f.size();) {
      size_t pct = f.find('%', i);
      if (pct == std::string_view::npos) pct = f.size();
      emit(f.substr(i, pct - i));
      if (pct == f.size()) break;
      i = pct + 1;
      Spec s = parse_spec(f, &i);
      ctx_.tick();
      convert(s);
    }
    return ctx_.string(out_);
  }

 private:
  void emit(std::string_view s) {
    ctx_.arena.reserve_check(out_.size() + s.size());
    out_ += s;
  }

  Value take(const Spec& s) {
    int64_t pos;
    if (s.previous) {
      if (last_ < 0)
        format_error(fmt::format("{} refers to the previous argument, but there is none", s.text));
      pos = last_;
    } else if (s.index > 0) {
      pos = s.index - 1;
    } else {
      pos = next_++;
    }
    if (pos >= static_cast<int64_t>(nargs_))
      format_error(fmt::format("{} has no argument (argument {} of {})", s.text, pos + 1, nargs_),
                   "pass one argument per specifier; write %% for a literal percent sign");
    last_ = pos;
    return args_[pos];
  }

  // Pads `body` (already converted) to the width; zero padding goes after
  // the first `sign_len` bytes (sign or prefix).
  void pad(const Spec& s, std::string body, size_t sign_len = 0) {
    if (s.upper) body = upper(body);
    size_t len = grapheme_count(std::string_view(body));
    if (s.width < 0 || static_cast<size_t>(s.width) <= len) {
      emit(body);
      return;
    }
    size_t fill = static_cast<size_t>(s.width) - len;
    ctx_.arena.reserve_check(out_.size() + body.size() + fill);
    ctx_.tick(static_cast<int64_t>(fill / 64));
    if (s.left) {
      out_ += body;
      out_.append(fill, ' ');
    } else if (s.zero) {
      out_.append(body, 0, sign_len);
      out_.append(fill, '0');
      out_.append(body, sign_len, std::string::npos);
    } else {
      out_.append(fill, ' ');
      out_ += body;
    }
  }

  std::string upper(const std::string& s) {
    static const uint32_t id = *find_builtin("upper-case");
    Value v = ctx_.string(s);
    return std::string(call_builtin(ctx_, id, &v, 1).str()->view());
  }

  // Cuts text to `precision` characters.
  static std::string truncate(std::string text, int64_t precision) {
    if (precision >= 0) text.resize(grapheme_offset(text, static_cast<size_t>(precision)));
    return text;
  }

  void convert(const Spec& s) {
    if (s.conv == '%' || s.conv == 'n') {
      check_flags(s, false);
      pad(s, s.conv == '%' ? "%" : "\n");
      return;
    }
    Value v = take(s);
    check_flags(s, v.is(Type::BigInt));
    switch (s.conv) {
      case 's': {
        std::string text;
        str_append(text, v, std::max<size_t>(ctx_.arena.remaining(), 1));
        ctx_.tick(static_cast<int64_t>(text.size() / 64));
        pad(s, truncate(std::move(text), s.precision));
        return;
      }
      case 'b':
        pad(s,
            truncate(v.is_nil() || (v.is_bool() && !v.as_bool()) ? "false" : "true", s.precision));
        return;
      case 'h':
        pad(s, truncate(v.is_nil() ? "null" : fmt::format("{:x}", java_hash(v, s)), s.precision));
        return;
      case 'c':
        pad(s, character(v, s));
        return;
      default:
        break;
    }
    if (v.is_nil()) {
      pad(s, "null");
      return;
    }
    switch (s.conv) {
      case 'd':
        integer(s, v);
        return;
      case 'x':
      case 'o':
        radix(s, v);
        return;
      default:
        floating(s, v);
        return;
    }
  }

  // Java's hashCode for the values where it is well defined.
  uint32_t java_hash(Value v, const Spec& s) {
    if (v.is_string()) {
      uint32_t h = 0;
      std::string_view t = v.str()->view();
      for (size_t i = 0; i < t.size();) {
        int32_t cp;
        size_t n = decode_utf8(t, i, &cp);
        if (n == 0) break;
        i += n;
        if (cp >= 0x10000) {  // UTF-16 surrogate pair
          h = h * 31 + static_cast<uint32_t>(0xD800 + ((cp - 0x10000) >> 10));
          h = h * 31 + static_cast<uint32_t>(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
          h = h * 31 + static_cast<uint32_t>(cp);
        }
      }
      return h;
    }
    if (v.is_int()) {
      auto u = static_cast<uint64_t>(v.as_int());
      return static_cast<uint32_t>(u ^ (u >> 32));
    }
    if (v.is_float()) {
      double d = v.as_float();
      uint64_t bits;
      if (std::isnan(d)) {
        bits = 0x7ff8000000000000ULL;
      } else {
        std::memcpy(&bits, &d, sizeof bits);
      }
      return static_cast<uint32_t>(bits ^ (bits >> 32));
    }
    if (v.is_bool()) return v.as_bool() ? 1231 : 1237;
    type_error("format", fmt::format("a string, number or boolean for {}", s.text), v, 0);
  }

  std::string character(Value v, const Spec& s) {
    if (v.is_nil()) return "null";
    if (v.is_string()) {
      std::string_view t = v.str()->view();
      if (!t.empty() && grapheme_length(t, 0) == t.size()) return std::string(t);
    } else if (v.is_int()) {
      int64_t cp = v.as_int();
      if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        format_error(fmt::format("{} got {}, which is not a Unicode code point", s.text, cp), "");
      std::string out;
      append_utf8(out, static_cast<int32_t>(cp));
      return out;
    }
    type_error("format", fmt::format("a character or code point for {}", s.text), v, 0);
  }

  // Sign, grouping and parentheses around a magnitude's digits; returns the
  // length of the part zero padding goes after.
  std::string signed_number(const Spec& s, bool negative, std::string digits, size_t* lead) {
    if (s.group) {
      size_t int_end = digits.find('.');
      if (int_end == std::string::npos) int_end = digits.size();
      std::string grouped;
      for (size_t k = 0; k < int_end; ++k) {
        if (k && (int_end - k) % 3 == 0) grouped.push_back(',');
        grouped.push_back(digits[k]);
      }
      grouped.append(digits, int_end, std::string::npos);
      digits = std::move(grouped);
    }
    std::string out;
    if (negative)
      out = s.paren ? "(" : "-";
    else if (s.plus)
      out = "+";
    else if (s.space)
      out = " ";
    *lead = out.size();
    out += digits;
    if (negative && s.paren) out.push_back(')');
    return out;
  }

  // Digits of an integer value (Int, BigInt, or a float without a fraction).
  static bool integer_digits(Value v, bool* negative, std::string* digits) {
    if (v.is_int()) {
      int64_t n = v.as_int();
      *negative = n < 0;
      uint64_t mag = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
      *digits = fmt::format("{}", mag);
      return true;
    }
    if (v.is(Type::BigInt)) {
      std::string t = bigint_to_string(v.big());
      *negative = t[0] == '-';
      *digits = *negative ? t.substr(1) : t;
      return true;
    }
    if (v.is_float() && std::isfinite(v.as_float()) && std::trunc(v.as_float()) == v.as_float()) {
      double d = v.as_float();
      *negative = std::signbit(d) && d != 0;
      char buf[400];
      auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::fixed, 0);
      digits->assign(buf, r.ptr);
      return true;
    }
    return false;
  }

  void integer(const Spec& s, Value v) {
    bool negative;
    std::string digits;
    if (!integer_digits(v, &negative, &digits))
      type_error("format", fmt::format("an integer for {}", s.text), v, 0,
                 v.is_float() ? "round the number first, e.g. (round x), or use %f" : "");
    size_t lead;
    std::string body = signed_number(s, negative, digits, &lead);
    pad(s, body, lead);
  }

  void radix(const Spec& s, Value v) {
    bool hex = s.conv == 'x';
    std::string body;
    size_t lead = 0;
    if (v.is_int()) {
      // Java longs print as 64-bit two's complement in hex and octal.
      auto u = static_cast<uint64_t>(v.as_int());
      std::string prefix = s.alt ? (hex ? "0x" : "0") : "";
      body = prefix + (hex ? fmt::format("{:x}", u) : fmt::format("{:o}", u));
      lead = prefix.size();
    } else if (v.is(Type::BigInt)) {
      MpzView z(v);
      ctx_.tick(static_cast<int64_t>(bigint_limbs(v)));
      std::string t(mpz_sizeinbase(z.get(), hex ? 16 : 8) + 2, '\0');
      mpz_get_str(t.data(), hex ? 16 : 8, z.get());
      t.resize(std::strlen(t.c_str()));
      bool negative = t[0] == '-';
      std::string mag = negative ? t.substr(1) : t;
      std::string sign = negative ? (s.paren ? "(" : "-") : (s.plus ? "+" : s.space ? " " : "");
      std::string prefix = s.alt ? (hex ? "0x" : "0") : "";
      body = sign + prefix + mag + (negative && s.paren ? ")" : "");
      lead = sign.size() + prefix.size();
    } else {
      type_error("format", fmt::format("an integer for {}", s.text), v, 0);
    }
    pad(s, body, lead);
  }

  // Shortest decimal digits of a finite non-negative double: value = 0.D x 10^exp.
  static void shortest_digits(double d, std::string* digits, int64_t* exp) {
    if (d == 0) {
      *digits = "0";
      *exp = 1;
      return;
    }
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view t(buf, static_cast<size_t>(r.ptr - buf));
    size_t e = t.find('e');
    digits->clear();
    for (char c : t.substr(0, e))
      if (c != '.') digits->push_back(c);
    while (digits->size() > 1 && digits->back() == '0')
      digits->pop_back();
    *exp = std::stoll(std::string(t.substr(e + 1))) + 1;
  }

  // Keeps `keep` leading digits, rounding half-up; may carry into a new digit.
  static void round_digits(std::string* digits, int64_t* exp, int64_t keep) {
    if (keep < 0) {
      *digits = "0";
      return;
    }
    if (static_cast<size_t>(keep) >= digits->size()) return;
    bool up = (*digits)[static_cast<size_t>(keep)] >= '5';
    digits->resize(static_cast<size_t>(keep));
    if (!up) {
      if (digits->empty()) *digits = "0";
      return;
    }
    int64_t k = keep - 1;
    while (k >= 0 && (*digits)[static_cast<size_t>(k)] == '9') {
      (*digits)[static_cast<size_t>(k)] = '0';
      --k;
    }
    if (k >= 0) {
      ++(*digits)[static_cast<size_t>(k)];
    } else {
      digits->insert(digits->begin(), '1');
      ++*exp;
    }
  }

  // Fixed notation with `prec` decimals from digits D and exponent E.
  static std::string fixed(std::string digits, int64_t exp, int64_t prec, bool alt) {
    round_digits(&digits, &exp, exp + prec);
    if (digits == "0") exp = 1;
    std::string out;
    if (exp <= 0) {
      out = "0";
    } else {
      for (int64_t k = 0; k < exp; ++k)
        out.push_back(static_cast<size_t>(k) < digits.size() ? digits[static_cast<size_t>(k)]
                                                             : '0');
    }
    if (prec > 0 || alt) out.push_back('.');
    for (int64_t k = 0; k < prec; ++k) {
      int64_t pos = exp + k;  // digit index for 10^-(k+1)
      out.push_back(pos >= 0 && static_cast<size_t>(pos) < digits.size()
                        ? digits[static_cast<size_t>(pos)]
                        : '0');
    }
    return out;
  }

  // Scientific notation with `prec` decimals: d.ddde+XX.
  static std::string scientific(std::string digits, int64_t exp, int64_t prec, bool alt) {
    bool zero = digits == "0";
    round_digits(&digits, &exp, prec + 1);
    std::string out(1, digits[0]);
    if (prec > 0 || alt) out.push_back('.');
    for (int64_t k = 1; k <= prec; ++k)
      out.push_back(static_cast<size_t>(k) < digits.size() ? digits[static_cast<size_t>(k)] : '0');
    int64_t e = zero ? 0 : exp - 1;
    out += fmt::format("e{}{:02}", e < 0 ? '-' : '+', e < 0 ? -e : e);
    return out;
  }

  void floating(const Spec& s, Value v) {
    bool negative;
    std::string digits;
    int64_t exp;
    if (v.is_float()) {
      double d = v.as_float();
      if (std::isnan(d) || std::isinf(d)) {
        // Java pads non-finite values with spaces even under the 0 flag.
        Spec plain = s;
        plain.zero = false;
        size_t lead;
        std::string body = signed_number(plain, !std::isnan(d) && d < 0,
                                         std::isnan(d) ? "NaN" : "Infinity", &lead);
        if (std::isnan(d)) body = "NaN";
        pad(plain, body);
        return;
      }
      negative = std::signbit(d);
      shortest_digits(std::fabs(d), &digits, &exp);
    } else if (integer_digits(v, &negative, &digits)) {
      exp = static_cast<int64_t>(digits.size());
      while (digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
      if (digits == "0") exp = 1;
    } else {
      type_error("format", fmt::format("a number for {}", s.text), v, 0);
    }
    int64_t prec = s.precision;
    std::string body;
    if (s.conv == 'f') {
      if (prec < 0) prec = 6;
      ctx_.arena.reserve_check(out_.size() + static_cast<size_t>(prec) +
                               static_cast<size_t>(std::max<int64_t>(exp, 0)));
      body = fixed(digits, exp, prec, s.alt);
    } else if (s.conv == 'e') {
      if (prec < 0) prec = 6;
      ctx_.arena.reserve_check(out_.size() + static_cast<size_t>(prec));
      body = scientific(digits, exp, prec, s.alt);
    } else {  // g: fixed or scientific by the exponent after rounding
      if (prec < 0) prec = 6;
      if (prec == 0) prec = 1;
      ctx_.arena.reserve_check(out_.size() + static_cast<size_t>(prec));
      if (digits == "0") {
        body = fixed(digits, exp, prec - 1, false);
      } else {
        std::string rounded = digits;
        int64_t rexp = exp;
        round_digits(&rounded, &rexp, prec);
        int64_t e10 = rexp - 1;
        if (e10 >= -4 && e10 < prec)
          body = fixed(digits, exp, prec - 1 - e10, false);
        else
          body = scientific(digits, exp, prec - 1, false);
      }
    }
    ctx_.tick(static_cast<int64_t>(body.size() / 64));
    size_t lead;
    std::string out = signed_number(s, negative, std::move(body), &lead);
    pad(s, out, lead);
  }

  Ctx& ctx_;
  const Value* args_;
  uint32_t nargs_;
  int64_t next_ = 0, last_ = -1;
  std::string out_;
};

Value format(Ctx& ctx, const Value* a, uint32_t n) {
  const StrObj* f = expect_string("format", a[0], 1);
  ctx.tick(1 + static_cast<int64_t>(f->len / 64));
  return Formatter(ctx, a + 1, n - 1).run(f->view());
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(String, "format", 1, kVariadic, format, "(format fmt-string & args)", "Formats the arguments with a Java-style format string (%s %d %.2f %x %5s ...)."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> format() {
  return kDefs;
}

}  // namespace ptc::builtins
