#include "spec/clojure_data.hpp"

#include "runtime/strings.hpp"

#include <gmp.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace spec {

namespace {

using Kind = Datum::Kind;

struct ParseFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Byte length of the UTF-8 sequence starting with `lead` (1 for stray bytes).
size_t utf8_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// Characters that end a token.
bool is_delimiter(char c) {
  switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case '\r':
    case '\f':
    case ',':
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case '"':
    case ';':
    case '\\':
      return true;
    default:
      return false;
  }
}

// Copies and frees a string GMP allocated.
std::string take_gmp_string(char* s) {
  std::string out(s);
  void (*free_fn)(void*, size_t);
  mp_get_memory_functions(nullptr, nullptr, &free_fn);
  free_fn(s, out.size() + 1);
  return out;
}

// Integer text -> canonical decimal via GMP (any size).
std::optional<std::string> canonical_via_gmp(std::string_view digits, bool negative) {
  std::string t(digits);
  mpz_t z;
  mpz_init(z);
  std::optional<std::string> out;
  if (mpz_set_str(z, t.c_str(), 10) == 0) {
    if (negative) mpz_neg(z, z);
    out = take_gmp_string(mpz_get_str(nullptr, 10, z));
  }
  mpz_clear(z);
  return out;
}

// A ratio a/b, normalised as Clojure's reader does: 4/2 is the integer 2.
Datum make_ratio(std::string_view num, std::string_view den, bool negative) {
  std::string text = std::string(num) + "/" + std::string(den);
  mpq_t q;
  mpq_init(q);
  if (mpq_set_str(q, text.c_str(), 10) != 0 || mpz_sgn(mpq_denref(q)) == 0) {
    mpq_clear(q);
    throw ParseFailure("bad ratio " + text);
  }
  mpq_canonicalize(q);
  if (negative) mpq_neg(q, q);
  Datum d;
  if (mpz_cmp_ui(mpq_denref(q), 1) == 0) {
    d.kind = Kind::Int;
    d.text = take_gmp_string(mpz_get_str(nullptr, 10, mpq_numref(q)));
  } else {
    d.kind = Kind::Ratio;
    d.text = take_gmp_string(mpq_get_str(nullptr, 10, q));
    d.number = mpq_get_d(q);
  }
  mpq_clear(q);
  return d;
}

// Number tokens: 42, -7, 12345678901234567890N, 10/3, 1.5, 1.0E10, 1e-5, 2.5M.
std::optional<Datum> number_token(std::string_view tok) {
  bool negative = false;
  std::string_view body = tok;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.empty() || !is_digit(body[0])) return std::nullopt;
  std::string_view ints = body;
  if (ints.back() == 'N') ints.remove_suffix(1);
  if (all_digits(ints)) {
    auto c = canonical_via_gmp(ints, negative);
    if (!c) return std::nullopt;
    return Datum::make(Kind::Int, *c);
  }
  size_t slash = body.find('/');
  if (slash != std::string_view::npos) {
    std::string_view num = body.substr(0, slash), den = body.substr(slash + 1);
    if (!all_digits(num) || !all_digits(den)) return std::nullopt;
    return make_ratio(num, den, negative);
  }
  // Float: digits [. digits*] [e|E [+-] digits] [M]
  std::string_view f = body;
  if (f.back() == 'M') f.remove_suffix(1);
  size_t i = 0;
  while (i < f.size() && is_digit(f[i]))
    ++i;
  bool fractional = false;
  if (i < f.size() && f[i] == '.') {
    fractional = true;
    ++i;
    while (i < f.size() && is_digit(f[i]))
      ++i;
  }
  if (i < f.size() && (f[i] == 'e' || f[i] == 'E')) {
    fractional = true;
    ++i;
    if (i < f.size() && (f[i] == '+' || f[i] == '-')) ++i;
    if (i == f.size() || !is_digit(f[i])) return std::nullopt;
    while (i < f.size() && is_digit(f[i]))
      ++i;
  }
  if (i != f.size() || (!fractional && f.size() == body.size())) return std::nullopt;
  std::string text(f);
  if (!text.empty() && text.back() == '.') text.push_back('0');  // "1." -> "1.0"
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Overflow reads as infinity, underflow as zero, as the JVM does.
    bool huge =
        text.find_first_of("eE") != std::string::npos && text[text.find_first_of("eE") + 1] != '-';
    value = huge ? HUGE_VAL : 0.0;
  }
  Datum d;
  d.kind = Kind::Float;
  d.number = negative ? -value : value;
  return d;
}

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  Datum document() {
    skip();
    if (pos_ >= s_.size()) fail("empty input");
    Datum d = form(0);
    skip();
    if (pos_ != s_.size()) fail("text after the value");
    return d;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw ParseFailure(what + " at offset " + std::to_string(pos_));
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return s_[pos_]; }

  void skip() {
    while (!at_end()) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == ',') {
        ++pos_;
      } else if (c == ';') {
        while (!at_end() && peek() != '\n')
          ++pos_;
      } else {
        return;
      }
    }
  }

  std::string_view token() {
    size_t start = pos_;
    while (!at_end() && !is_delimiter(peek()))
      ++pos_;
    return s_.substr(start, pos_ - start);
  }

  Datum form(int depth) {
    if (depth > 400) fail("nesting too deep");
    if (at_end()) fail("unexpected end");
    char c = peek();
    switch (c) {
      case '(':
        ++pos_;
        return collection(Kind::Seq, ')', depth);
      case '[':
        ++pos_;
        return collection(Kind::Seq, ']', depth);
      case '{': {
        ++pos_;
        Datum m = collection(Kind::Map, '}', depth);
        if (m.items.size() % 2 != 0) fail("map literal with an odd number of forms");
        return m;
      }
      case ')':
      case ']':
      case '}':
        fail(std::string("unexpected '") + c + "'");
      case '"':
        ++pos_;
        return Datum::make(Kind::String, string_body());
      case '\\':
        ++pos_;
        return character();
      case ':': {
        ++pos_;
        std::string_view t = token();
        if (t.empty() || t[0] == ':') fail("bad keyword");
        return Datum::make(Kind::Keyword, std::string(t));
      }
      case '#':
        ++pos_;
        return dispatch(depth);
      case '\'':
        fail("quoted forms are not data");
      default:
        break;
    }
    std::string_view t = token();
    if (t.empty()) fail("unexpected character");
    if (auto n = number_token(t)) return *n;
    if (is_digit(t[0]) || ((t[0] == '+' || t[0] == '-') && t.size() > 1 && is_digit(t[1])))
      fail("bad number " + std::string(t));
    if (t == "nil") return Datum::nil();
    if (t == "true" || t == "false") {
      Datum d;
      d.kind = Kind::Bool;
      d.boolean = t == "true";
      return d;
    }
    return Datum::make(Kind::Symbol, std::string(t));
  }

  Datum collection(Kind kind, char close, int depth) {
    Datum d;
    d.kind = kind;
    for (;;) {
      skip();
      if (at_end()) fail(std::string("missing '") + close + "'");
      if (peek() == close) {
        ++pos_;
        return d;
      }
      if (s_.substr(pos_, 2) == "#_") {
        pos_ += 2;
        skip();
        form(depth + 1);
        continue;
      }
      d.items.push_back(form(depth + 1));
    }
  }

  uint32_t hex(size_t digits) {
    if (pos_ + digits > s_.size()) fail("short \\u escape");
    uint32_t cp = 0;
    for (size_t i = 0; i < digits; ++i) {
      char h = s_[pos_++];
      cp <<= 4;
      if (is_digit(h))
        cp |= static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f')
        cp |= static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        cp |= static_cast<uint32_t>(h - 'A' + 10);
      else
        fail("bad hex digit");
    }
    return cp;
  }

  std::string string_body() {
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_end()) fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
          out.push_back(e);
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u': {
          uint32_t cp = hex(4);
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            uint32_t low = hex(4);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {  // octal \NNN
            uint32_t cp = static_cast<uint32_t>(e - '0');
            for (int i = 0; i < 2 && !at_end() && peek() >= '0' && peek() <= '7'; ++i)
              cp = cp * 8 + static_cast<uint32_t>(s_[pos_++] - '0');
            append_utf8(out, cp);
            break;
          }
          fail(std::string("bad string escape \\") + e);
      }
    }
  }

  // After '\': one code point, or a name (newline, space, tab, return,
  // backspace, formfeed), uXXXX or oNNN.
  Datum character() {
    if (at_end()) fail("lone backslash");
    size_t start = pos_;
    pos_ += utf8_length(static_cast<unsigned char>(peek()));
    if (pos_ > s_.size()) fail("truncated UTF-8");
    char first = s_[start];
    bool letter = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z');
    if (letter) {
      while (!at_end() && !is_delimiter(peek()))
        ++pos_;
    }
    std::string_view name = s_.substr(start, pos_ - start);
    std::string out;
    if (name.size() == utf8_length(static_cast<unsigned char>(first))) {
      out = std::string(name);
    } else if (name == "newline") {
      out = "\n";
    } else if (name == "space") {
      out = " ";
    } else if (name == "tab") {
      out = "\t";
    } else if (name == "return") {
      out = "\r";
    } else if (name == "backspace") {
      out = "\b";
    } else if (name == "formfeed") {
      out = "\f";
    } else if (name.size() == 5 && name[0] == 'u') {
      size_t save = pos_;
      pos_ = start + 1;
      uint32_t cp = hex(4);
      pos_ = save;
      append_utf8(out, cp);
    } else if (name.size() >= 2 && name.size() <= 4 && name[0] == 'o' &&
               name.find_first_not_of("01234567", 1) == std::string_view::npos) {
      uint32_t cp = 0;
      for (char c : name.substr(1))
        cp = cp * 8 + static_cast<uint32_t>(c - '0');
      append_utf8(out, cp);
    } else {
      fail("unknown character name \\" + std::string(name));
    }
    return Datum::make(Kind::Char, out);
  }

  // Skips a bracketed body such as [java.time.LocalDate 0x1f "x"], honouring
  // strings, and returns nothing: the content carries no data for us.
  void skip_balanced(char open, char close) {
    int level = 0;
    while (!at_end()) {
      char c = s_[pos_++];
      if (c == '"') {
        string_body();
      } else if (c == open) {
        ++level;
      } else if (c == close) {
        if (--level == 0) return;
      }
    }
    fail(std::string("missing '") + close + "'");
  }

  Datum dispatch(int depth) {
    if (at_end()) fail("lone '#'");
    char c = peek();
    if (c == '{') {
      ++pos_;
      return collection(Kind::Set, '}', depth);
    }
    if (c == '"') {  // regex: the source, escapes kept except \"
      ++pos_;
      std::string src;
      for (;;) {
        if (at_end()) fail("unterminated regex");
        char r = s_[pos_++];
        if (r == '"') break;
        if (r == '\\' && !at_end()) {
          char e = s_[pos_++];
          if (e != '"') src.push_back('\\');
          src.push_back(e);
          continue;
        }
        src.push_back(r);
      }
      return Datum::make(Kind::Regex, src);
    }
    if (c == '\'') {
      ++pos_;
      std::string_view t = token();
      if (t.empty()) fail("bad var");
      size_t slash = t.find('/');
      if (slash != std::string_view::npos && slash > 0 && slash + 1 < t.size())
        t = t.substr(slash + 1);
      return Datum::make(Kind::Var, std::string(t));
    }
    if (c == '#') {
      ++pos_;
      std::string_view t = token();
      Datum d;
      d.kind = Kind::Float;
      if (t == "Inf")
        d.number = HUGE_VAL;
      else if (t == "-Inf")
        d.number = -HUGE_VAL;
      else if (t == "NaN")
        d.number = std::nan("");
      else
        fail("unknown symbolic value ##" + std::string(t));
      return d;
    }
    if (c == '<') {  // #<...>, #<builtin>: an unreadable object, a function here
      skip_balanced('<', '>');
      return Datum::make(Kind::Fn);
    }
    if (c == '_') {
      ++pos_;
      skip();
      form(depth + 1);
      skip();
      return form(depth + 1);
    }
    std::string_view tag = token();
    if ((tag == "object" || tag == "function" || tag == "fn") && !at_end() && peek() == '[') {
      skip_balanced('[', ']');
      return Datum::make(Kind::Fn);
    }
    fail("unsupported dispatch #" + std::string(tag));
  }
};

void print(std::string& out, const Datum& d) {
  switch (d.kind) {
    case Kind::Nil:
      out += "nil";
      return;
    case Kind::Bool:
      out += d.boolean ? "true" : "false";
      return;
    case Kind::Int:
    case Kind::Ratio:
      out += d.text;
      return;
    case Kind::Float: {
      if (std::isnan(d.number)) {
        out += "##NaN";
      } else if (std::isinf(d.number)) {
        out += d.number > 0 ? "##Inf" : "##-Inf";
      } else {
        char buf[64];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d.number);
        std::string s(buf, ec == std::errc() ? end : buf);
        if (s.find_first_of(".e") == std::string::npos) s += ".0";
        out += s;
      }
      return;
    }
    case Kind::String:
    case Kind::Char:
      if (d.kind == Kind::Char) {
        out.push_back('\\');
        if (d.text == "\n")
          out += "newline";
        else if (d.text == " ")
          out += "space";
        else if (d.text == "\t")
          out += "tab";
        else if (d.text == "\r")
          out += "return";
        else
          out += d.text;
        return;
      }
      ptc::append_quoted(out, d.text);
      return;
    case Kind::Keyword:
      out.push_back(':');
      out += d.text;
      return;
    case Kind::Symbol:
      out += d.text;
      return;
    case Kind::Seq:
    case Kind::Set: {
      out += d.kind == Kind::Seq ? "[" : "#{";
      for (size_t i = 0; i < d.items.size(); ++i) {
        if (i) out.push_back(' ');
        print(out, d.items[i]);
      }
      out += d.kind == Kind::Seq ? "]" : "}";
      return;
    }
    case Kind::Map:
      out.push_back('{');
      for (size_t i = 0; i < d.items.size(); i += 2) {
        if (i) out += ", ";
        print(out, d.items[i]);
        out.push_back(' ');
        print(out, d.items[i + 1]);
      }
      out.push_back('}');
      return;
    case Kind::Var:
      out += "#'";
      out += d.text;
      return;
    case Kind::Fn:
      out += "#<fn>";
      return;
    case Kind::Regex:
      out += "#\"";
      out += d.text;
      out += "\"";
      return;
    case Kind::Opaque:
      out += d.text;
      return;
  }
}

Datum from_host_rec(const ptc::HostValue& h, int depth) {
  using HK = ptc::HostValue::Kind;
  if (depth > 10000) return Datum::make(Kind::Opaque, "<too deep>");
  switch (h.kind()) {
    case HK::Nil:
      return Datum::nil();
    case HK::Bool: {
      Datum d;
      d.kind = Kind::Bool;
      d.boolean = h.as_bool();
      return d;
    }
    case HK::Int:
      return Datum::make(Kind::Int, std::to_string(h.as_int()));
    case HK::BigInt: {
      auto c = canonical_integer(h.text());
      return c ? Datum::make(Kind::Int, *c) : Datum::make(Kind::Opaque, h.text());
    }
    case HK::Float: {
      Datum d;
      d.kind = Kind::Float;
      d.number = h.as_float();
      return d;
    }
    case HK::String:
      return Datum::make(Kind::String, h.text());
    case HK::Keyword:
      return Datum::make(Kind::Keyword, h.text());
    case HK::Vector:
    case HK::Map:
    case HK::Set: {
      Datum d;
      d.kind = h.kind() == HK::Vector ? Kind::Seq : h.kind() == HK::Map ? Kind::Map : Kind::Set;
      d.items.reserve(h.items().size());
      for (const auto& item : h.items())
        d.items.push_back(from_host_rec(item, depth + 1));
      return d;
    }
    case HK::Opaque:
      break;
  }
  const std::string& t = h.text();
  std::string_view v(t);
  if (v.starts_with("#fn") || v.starts_with("#<builtin")) return Datum::make(Kind::Fn);
  if (v.starts_with("#'")) {
    v.remove_prefix(2);
    size_t slash = v.find('/');
    if (slash != std::string_view::npos && slash > 0 && slash + 1 < v.size())
      v = v.substr(slash + 1);
    return Datum::make(Kind::Var, std::string(v));
  }
  if (v.starts_with("#\"") && v.size() >= 3 && v.back() == '"')
    return Datum::make(Kind::Regex, std::string(v.substr(2, v.size() - 3)));
  if (v.starts_with("'") && v.size() > 1)
    return Datum::make(Kind::Symbol, std::string(v.substr(1)));
  return Datum::make(Kind::Opaque, t);
}

}  // namespace

std::optional<std::string> canonical_integer(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (!all_digits(text)) return std::nullopt;
  return canonical_via_gmp(text, negative);
}

std::optional<Datum> parse_clojure(std::string_view text, std::string* error) {
  try {
    return Reader(text).document();
  } catch (const ParseFailure& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

std::string to_string(const Datum& d) {
  std::string out;
  print(out, d);
  return out;
}

Datum from_host(const ptc::HostValue& h) {
  return from_host_rec(h, 0);
}

ptc::HostValue to_host(const Datum& d) {
  using H = ptc::HostValue;
  switch (d.kind) {
    case Kind::Nil:
      return H::nil();
    case Kind::Bool:
      return H::boolean(d.boolean);
    case Kind::Int: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(d.text.data(), d.text.data() + d.text.size(), v);
      if (ec == std::errc() && end == d.text.data() + d.text.size()) return H::integer(v);
      return H::bigint(d.text);
    }
    case Kind::Float:
    case Kind::Ratio:
      return H::floating(d.number);
    case Kind::String:
    case Kind::Char:
      return H::string(d.text);
    case Kind::Keyword:
      return H::keyword(d.text);
    case Kind::Seq:
    case Kind::Set: {
      std::vector<H> items;
      for (const auto& i : d.items)
        items.push_back(to_host(i));
      return d.kind == Kind::Seq ? H::vector(std::move(items)) : H::set(std::move(items));
    }
    case Kind::Map: {
      std::vector<std::pair<H, H>> entries;
      for (size_t i = 0; i + 1 < d.items.size(); i += 2)
        entries.emplace_back(to_host(d.items[i]), to_host(d.items[i + 1]));
      return H::map(std::move(entries));
    }
    case Kind::Symbol:
    case Kind::Var:
    case Kind::Fn:
    case Kind::Regex:
    case Kind::Opaque:
      break;
  }
  return H::opaque(to_string(d));
}

}  // namespace spec
