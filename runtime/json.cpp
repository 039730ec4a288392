// JSON <-> host values.
//
// Parsing runs simdjson's DOM parser first: it is fast and validates the whole
// document (structure, UTF-8, escapes). When it rejects the input, a small
// strict RFC 8259 parser reads the document again. That second pass serves two
// purposes: it accepts integers beyond 64 bits, which simdjson 3.0 reports as
// number errors, as BigInt; and for truly malformed input it finds the first
// offending character, so the error carries a line:column and says what was
// expected. Both parsers limit nesting to kMaxJsonDepth.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/hash.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/host_value.hpp"
#include "runtime/key_strings.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {

using Kind = HostValue::Kind;

// Arrays and objects nested deeper than this are rejected.
constexpr size_t kMaxJsonDepth = 1024;

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// ---------------------------------------------------------------------------
// Objects: later duplicates replace the value but keep the first position.

class ObjectBuilder {
 public:
  void add(std::string_view key, HostValue value) {
    size_t i = find(key);
    if (i != npos) {
      entries_[i].second = std::move(value);
      return;
    }
    entries_.emplace_back(HostValue::string(std::string(key)), std::move(value));
    if (!index_.empty()) index_.emplace(entries_.back().first.text(), entries_.size() - 1);
  }
  HostValue finish() { return HostValue::map(std::move(entries_)); }

 private:
  static constexpr size_t npos = ~size_t{0};
  static constexpr size_t kLinearMax = 16;

  size_t find(std::string_view key) {
    if (index_.empty()) {
      if (entries_.size() <= kLinearMax) {
        for (size_t i = 0; i < entries_.size(); ++i)
          if (entries_[i].first.text() == key) return i;
        return npos;
      }
      // The key strings are shared and never move, so views into them stay valid.
      index_.reserve(entries_.size() * 2);
      for (size_t i = 0; i < entries_.size(); ++i)
        index_.emplace(entries_[i].first.text(), i);
    }
    auto it = index_.find(key);
    return it == index_.end() ? npos : it->second;
  }

  std::vector<std::pair<HostValue, HostValue>> entries_;
  StringMap<size_t> index_;  // seeded: object keys come from outside
};

// ---------------------------------------------------------------------------
// Error positions.

SourceLoc location_of(std::string_view text, size_t offset) {
  SourceLoc loc;
  loc.line = 1;
  loc.col = 1;
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++loc.line;
      loc.col = 1;
    } else if ((c & 0xC0) != 0x80) {  // count code points, not continuation bytes
      ++loc.col;
    }
  }
  return loc;
}

// Shows the character at `pos` for a message: 'x', U+000A, or "end of input".
std::string describe_char(std::string_view text, size_t pos) {
  if (pos >= text.size()) return "end of input";
  auto c = static_cast<unsigned char>(text[pos]);
  if (c >= 0x20 && c < 0x7F) return fmt::format("'{}'", static_cast<char>(c));
  if (c < 0x80) return fmt::format("U+{:04X}", static_cast<unsigned>(c));
  int32_t cp;
  size_t n = decode_utf8(text, pos, &cp);
  if (n == 0) return "an invalid UTF-8 byte";
  return fmt::format("'{}'", text.substr(pos, n));
}

// ---------------------------------------------------------------------------
// The strict parser (fallback and error locator).

class StrictParser {
 public:
  StrictParser(std::string_view text, size_t start) : s_(text), pos_(start) {}

  HostValue parse_document() {
    skip_ws();
    if (pos_ >= s_.size()) fail(pos_, "empty input (expected a JSON value)");
    HostValue v = parse_value(0);
    skip_ws();
    if (pos_ < s_.size())
      fail(pos_, fmt::format("unexpected {} after the JSON value", describe_char(s_, pos_)));
    return v;
  }

 private:
  [[noreturn]] void fail(size_t offset, const std::string& what) {
    SourceLoc loc = location_of(s_, offset);
    throw LispError(ErrorKind::ParseError,
                    fmt::format("invalid JSON at line {}, column {}: {}", loc.line, loc.col, what),
                    {}, loc);
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }

  void skip_ws() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  HostValue parse_value(size_t depth) {
    check_native_stack("parsing nested JSON");
    skip_ws();
    if (at_end()) fail(pos_, "unexpected end of input (expected a value)");
    char c = s_[pos_];
    switch (c) {
      case '{':
        return parse_object(depth);
      case '[':
        return parse_array(depth);
      case '"':
        return HostValue::string(parse_string());
      case 't':
        literal("true");
        return HostValue::boolean(true);
      case 'f':
        literal("false");
        return HostValue::boolean(false);
      case 'n':
        literal("null");
        return HostValue::nil();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
        fail(pos_, fmt::format("unexpected {} (expected a value)", describe_char(s_, pos_)));
    }
  }

  void literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) fail(pos_, "invalid literal (expected a value)");
    pos_ += word.size();
  }

  void enter(size_t depth) {
    if (depth >= kMaxJsonDepth)
      fail(pos_, fmt::format("nesting deeper than {} levels", kMaxJsonDepth));
  }

  HostValue parse_array(size_t depth) {
    enter(depth);
    size_t open = pos_++;
    std::vector<HostValue> items;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return HostValue::vector(std::move(items));
    }
    for (;;) {
      items.push_back(parse_value(depth + 1));
      skip_ws();
      if (at_end()) fail(open, "unclosed array (reached the end of input)");
      char c = s_[pos_];
      if (c == ']') {
        ++pos_;
        return HostValue::vector(std::move(items));
      }
      if (c != ',')
        fail(pos_, fmt::format("expected ',' or ']' in array, found {}", describe_char(s_, pos_)));
      size_t comma = pos_++;
      skip_ws();
      if (peek() == ']') fail(comma, "trailing comma in array");
    }
  }

  HostValue parse_object(size_t depth) {
    enter(depth);
    size_t open = pos_++;
    ObjectBuilder obj;
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return obj.finish();
    }
    for (;;) {
      skip_ws();
      if (at_end()) fail(open, "unclosed object (reached the end of input)");
      if (s_[pos_] != '"')
        fail(pos_,
             fmt::format("expected a string key in object, found {}", describe_char(s_, pos_)));
      std::string key = parse_string();
      skip_ws();
      if (peek() != ':')
        fail(pos_, fmt::format("expected ':' after object key, found {}", describe_char(s_, pos_)));
      ++pos_;
      HostValue v = parse_value(depth + 1);
      obj.add(key, std::move(v));
      skip_ws();
      if (at_end()) fail(open, "unclosed object (reached the end of input)");
      char c = s_[pos_];
      if (c == '}') {
        ++pos_;
        return obj.finish();
      }
      if (c != ',')
        fail(pos_,
             fmt::format("expected ',' or '}}' in object, found {}", describe_char(s_, pos_)));
      size_t comma = pos_++;
      skip_ws();
      if (peek() == '}') fail(comma, "trailing comma in object");
    }
  }

  uint32_t hex4(size_t at) {
    if (at + 4 > s_.size()) fail(at, "invalid \\u escape (expected 4 hex digits)");
    uint32_t v = 0;
    for (size_t i = at; i < at + 4; ++i) {
      char c = s_[i];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<uint32_t>(c - 'A' + 10);
      else
        fail(at - 2, "invalid \\u escape (expected 4 hex digits)");
    }
    return v;
  }

  std::string parse_string() {
    size_t open = pos_++;
    std::string out;
    for (;;) {
      size_t run = pos_;
      while (pos_ < s_.size()) {
        auto c = static_cast<unsigned char>(s_[pos_]);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++pos_;
      }
      out.append(s_.substr(run, pos_ - run));
      if (at_end()) fail(open, "unterminated string");
      auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20)
        fail(pos_, fmt::format("control character {} in string must be escaped",
                               describe_char(s_, pos_)));
      if (c >= 0x80) {
        int32_t cp;
        size_t n = decode_utf8(s_, pos_, &cp);
        if (n == 0) fail(pos_, "invalid UTF-8");
        out.append(s_.substr(pos_, n));
        pos_ += n;
        continue;
      }
      // Backslash escape.
      size_t esc = pos_;
      if (pos_ + 1 >= s_.size()) fail(open, "unterminated string");
      char e = s_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t cp = hex4(pos_);
          pos_ += 4;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") fail(esc, "unpaired surrogate in \\u escape");
            uint32_t lo = hex4(pos_ + 2);
            if (lo < 0xDC00 || lo > 0xDFFF) fail(esc, "unpaired surrogate in \\u escape");
            pos_ += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail(esc, "unpaired surrogate in \\u escape");
          }
          append_utf8(out, static_cast<int32_t>(cp));
          break;
        }
        default:
          // The message goes back to clients inside JSON: never a raw byte
          // that is not UTF-8 (or a control character).
          if (e >= 0x20 && e < 0x7F) fail(esc, fmt::format("invalid escape '\\{}' in string", e));
          fail(esc, fmt::format("invalid escape in string: '\\' followed by {}",
                                describe_char(s_, esc + 1)));
      }
    }
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  HostValue parse_number() {
    size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (!digit(peek())) fail(start, "invalid number (expected a digit)");
    if (peek() == '0') {
      ++pos_;
      if (digit(peek())) fail(start, "invalid number (leading zeros are not allowed)");
    } else {
      while (digit(peek()))
        ++pos_;
    }
    bool is_float = false;
    if (peek() == '.') {
      is_float = true;
      ++pos_;
      if (!digit(peek())) fail(start, "invalid number (expected a digit after '.')");
      while (digit(peek()))
        ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      is_float = true;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digit(peek())) fail(start, "invalid number (expected a digit in the exponent)");
      while (digit(peek()))
        ++pos_;
    }
    std::string_view tok = s_.substr(start, pos_ - start);
    const char* first = tok.data();
    const char* last = tok.data() + tok.size();
    if (!is_float) {
      int64_t i = 0;
      auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last) return HostValue::integer(i);
      return HostValue::bigint(std::string(tok));  // grammar checked: canonical digits
    }
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc() && r.ptr == last) return HostValue::floating(d);
    if (r.ec == std::errc::result_out_of_range && underflows(tok))
      return HostValue::floating(tok[0] == '-' ? -0.0 : 0.0);
    fail(start, fmt::format("number {} is out of range", tok.substr(0, 40)));
  }

  // Whether an out-of-range float literal is tiny (rounds to zero) rather
  // than huge: its decimal magnitude is below 1.
  static bool underflows(std::string_view tok) {
    if (tok[0] == '-') tok.remove_prefix(1);
    size_t e = tok.find_first_of("eE");
    std::string_view mant = tok.substr(0, e);
    int64_t exp = 0;
    if (e != std::string_view::npos) {
      std::string_view ex = tok.substr(e + 1);
      bool neg = !ex.empty() && ex[0] == '-';
      if (!ex.empty() && (ex[0] == '-' || ex[0] == '+')) ex.remove_prefix(1);
      for (char c : ex) {
        exp = exp * 10 + (c - '0');
        if (exp > 1000000000) break;  // far beyond any double either way
      }
      if (neg) exp = -exp;
    }
    // Position of the first significant digit relative to the point.
    size_t dot = mant.find('.');
    std::string_view ip = mant.substr(0, dot);
    std::string_view fp = dot == std::string_view::npos ? std::string_view() : mant.substr(dot + 1);
    size_t lead = ip.find_first_not_of('0');
    int64_t mag;
    if (lead != std::string_view::npos) {
      mag = static_cast<int64_t>(ip.size() - lead);
    } else {
      size_t nz = fp.find_first_not_of('0');
      if (nz == std::string_view::npos) return true;  // zero
      mag = -static_cast<int64_t>(nz);
    }
    return mag + exp <= 0;
  }

  std::string_view s_;
  size_t pos_;
};

// ---------------------------------------------------------------------------
// simdjson DOM -> host value.

struct TooDeep {};  // the DOM nests deeper than we accept: let the strict parser report it

HostValue from_dom(simdjson::dom::element e, size_t depth) {
  check_native_stack("parsing nested JSON");
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      if (depth >= kMaxJsonDepth) throw TooDeep{};
      simdjson::dom::array arr = e.get_array().value_unsafe();
      std::vector<HostValue> items;
      items.reserve(arr.size());
      for (simdjson::dom::element x : arr)
        items.push_back(from_dom(x, depth + 1));
      return HostValue::vector(std::move(items));
    }
    case simdjson::dom::element_type::OBJECT: {
      if (depth >= kMaxJsonDepth) throw TooDeep{};
      ObjectBuilder obj;
      simdjson::dom::object fields = e.get_object().value_unsafe();
      for (simdjson::dom::key_value_pair kv : fields)
        obj.add(kv.key, from_dom(kv.value, depth + 1));
      return obj.finish();
    }
    case simdjson::dom::element_type::INT64:
      return HostValue::integer(e.get_int64().value_unsafe());
    case simdjson::dom::element_type::UINT64:  // only used above INT64_MAX
      return HostValue::bigint(std::to_string(e.get_uint64().value_unsafe()));
    case simdjson::dom::element_type::DOUBLE:
      return HostValue::floating(e.get_double().value_unsafe());
    case simdjson::dom::element_type::STRING:
      return HostValue::string(std::string(e.get_string().value_unsafe()));
    case simdjson::dom::element_type::BOOL:
      return HostValue::boolean(e.get_bool().value_unsafe());
    case simdjson::dom::element_type::NULL_VALUE:
      return HostValue::nil();
  }
  return HostValue::nil();
}

// The depth check from_dom makes, without building anything: for a value
// that is handed on as text.
void check_depth(simdjson::dom::element e, size_t depth) {
  check_native_stack("parsing nested JSON");
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      if (depth >= kMaxJsonDepth) throw TooDeep{};
      simdjson::dom::array arr = e.get_array().value_unsafe();
      for (simdjson::dom::element x : arr)
        check_depth(x, depth + 1);
      return;
    }
    case simdjson::dom::element_type::OBJECT: {
      if (depth >= kMaxJsonDepth) throw TooDeep{};
      simdjson::dom::object fields = e.get_object().value_unsafe();
      for (simdjson::dom::key_value_pair kv : fields)
        check_depth(kv.value, depth + 1);
      return;
    }
    default:
      return;
  }
}

// ---------------------------------------------------------------------------
// Encoding.

[[noreturn]] void encode_error(std::string message) {
  throw LispError(ErrorKind::TypeError, std::move(message));
}

void append_float(std::string& out, double d) {
  if (std::isnan(d)) encode_error("cannot encode NaN as JSON");
  if (std::isinf(d))
    encode_error(d > 0 ? "cannot encode Infinity as JSON" : "cannot encode -Infinity as JSON");
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest round-trip form
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  out += s;
  if (s.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void append_bigint(std::string& out, std::string_view t) {
  std::string_view digits = t;
  bool neg = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    neg = digits[0] == '-';
    digits.remove_prefix(1);
  }
  bool ok = !digits.empty();
  for (char c : digits)
    ok = ok && c >= '0' && c <= '9';
  if (!ok)
    encode_error(
        fmt::format("cannot encode bigint \"{}\" as JSON: not a decimal integer", t.substr(0, 40)));
  while (digits.size() > 1 && digits[0] == '0')
    digits.remove_prefix(1);
  if (neg && digits != "0") out.push_back('-');
  out += digits;
}

void append_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out.push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
  }
  out.append(s.substr(run));
  out.push_back('"');
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Nil:
      return "nil";
    case Kind::Bool:
      return "boolean";
    case Kind::Int:
      return "integer";
    case Kind::BigInt:
      return "integer";
    case Kind::Float:
      return "float";
    case Kind::String:
      return "string";
    case Kind::Keyword:
      return "keyword";
    case Kind::Vector:
      return "vector";
    case Kind::Map:
      return "map";
    case Kind::Set:
      return "set";
    case Kind::Opaque:
      return "opaque value";
  }
  return "value";
}

void append_key(std::string& out, const HostValue& k) {
  switch (k.kind()) {
    case Kind::String:
    case Kind::Keyword:
      append_string(out, k.text());
      return;
    case Kind::Int:
      out.push_back('"');
      out += std::to_string(k.as_int());
      out.push_back('"');
      return;
    case Kind::BigInt:
      out.push_back('"');
      append_bigint(out, k.text());
      out.push_back('"');
      return;
    case Kind::Float:
      out.push_back('"');
      append_float(out, k.as_float());
      out.push_back('"');
      return;
    case Kind::Nil:
      encode_error("cannot encode map key nil as JSON (keys must be strings, keywords or numbers)");
    case Kind::Bool:
      encode_error(fmt::format(
          "cannot encode map key {} as JSON (keys must be strings, keywords or numbers)",
          k.as_bool() ? "true" : "false"));
    case Kind::Opaque:
      encode_error(fmt::format(
          "cannot encode map key {} as JSON (keys must be strings, keywords or numbers)",
          k.text().substr(0, 60)));
    case Kind::Vector:
    case Kind::Map:
    case Kind::Set:
      break;
  }
  encode_error(fmt::format(
      "cannot encode map key of type {} as JSON (keys must be strings, keywords or numbers)",
      kind_name(k.kind())));
}

void append_json(std::string& out, const HostValue& h, bool sort_keys) {
  check_native_stack("encoding nested JSON");
  switch (h.kind()) {
    case Kind::Nil:
      out += "null";
      return;
    case Kind::Bool:
      out += h.as_bool() ? "true" : "false";
      return;
    case Kind::Int: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, h.as_int());
      out.append(buf, r.ptr);
      return;
    }
    case Kind::BigInt:
      append_bigint(out, h.text());
      return;
    case Kind::Float:
      append_float(out, h.as_float());
      return;
    case Kind::String:
    case Kind::Keyword:
      append_string(out, h.text());
      return;
    case Kind::Vector:
    case Kind::Set: {
      out.push_back('[');
      bool first = true;
      for (const HostValue& x : h.items()) {
        if (!first) out.push_back(',');
        first = false;
        append_json(out, x, sort_keys);
      }
      out.push_back(']');
      return;
    }
    case Kind::Map: {
      out.push_back('{');
      const auto& it = h.items();
      if (!sort_keys) {
        for (size_t i = 0; i + 1 < it.size(); i += 2) {
          if (i) out.push_back(',');
          append_key(out, it[i]);
          out.push_back(':');
          append_json(out, it[i + 1], sort_keys);
        }
      } else {
        // Keys in byte order of their encoded form; a later duplicate wins.
        std::vector<std::pair<std::string, size_t>> keys;
        for (size_t i = 0; i + 1 < it.size(); i += 2) {
          std::string k;
          append_key(k, it[i]);
          keys.emplace_back(std::move(k), i + 1);
        }
        std::stable_sort(keys.begin(), keys.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (size_t j = 0; j < keys.size(); ++j) {
          if (j + 1 < keys.size() && keys[j + 1].first == keys[j].first) continue;
          if (out.back() != '{') out.push_back(',');
          out += keys[j].first;
          out.push_back(':');
          append_json(out, it[keys[j].second], sort_keys);
        }
      }
      out.push_back('}');
      return;
    }
    case Kind::Opaque:
      encode_error(fmt::format(
          "cannot encode {} as JSON (functions, regexes and other opaque values have no JSON form)",
          h.text().substr(0, 60)));
  }
}

// One simdjson parser per thread, kept between documents: allocating its
// buffers cost more than parsing a small message. Its memory is given back
// after a large document (when the Lease ends). Not reentrant: a document is
// converted before the next one is parsed on the thread.
class ParserLease {
 public:
  ParserLease() = default;
  ParserLease(const ParserLease&) = delete;
  ParserLease& operator=(const ParserLease&) = delete;
  ~ParserLease() {
    if (parser().capacity() > kKeptCapacity) {
      simdjson::error_code e = parser().allocate(4096, kDepth);
      (void)e;  // a failed shrink leaves the larger buffers in place: harmless
    }
  }
  // The document's root, or an error (big integers, malformed input, ...).
  simdjson::error_code parse(std::string_view body, simdjson::dom::element* root) {
    simdjson::error_code err = simdjson::SUCCESS;
    size_t needed = std::max<size_t>(body.size(), 64);
    if (parser().capacity() < needed || parser().max_depth() != kDepth)
      err = parser().allocate(std::max<size_t>(needed, 4096), kDepth);
    if (!err) err = parser().parse(body.data(), body.size(), true).get(*root);
    return err;
  }

 private:
  // A little slack over our own limit so that simdjson's depth accounting
  // (which differs slightly between arrays and objects) never rejects a
  // document we accept; the converters enforce the exact limit.
  static constexpr size_t kDepth = kMaxJsonDepth + 8;
  static constexpr size_t kKeptCapacity = size_t{1} << 20;
  static simdjson::dom::parser& parser() {
    thread_local simdjson::dom::parser p;
    return p;
  }
};

std::string_view without_bom(std::string_view json, size_t* start) {
  *start = json.substr(0, kBom.size()) == kBom ? kBom.size() : 0;
  return json.substr(*start);
}

// A DOM value built straight into a run's arena.
Value value_from_dom(Ctx& ctx, simdjson::dom::element e, size_t depth, KeyStrings& keys);

// A small object's entries go straight into a small map: keys compared in
// place (a repeated key keeps its first position and takes the last value,
// as everywhere else), none hashed.
Value object_from_dom(Ctx& ctx, simdjson::dom::object fields, size_t depth, KeyStrings& keys) {
  if (fields.size() <= kSmallMax) {
    Value kv[kSmallMax * 2];
    uint32_t n = 0;
    for (simdjson::dom::key_value_pair field : fields) {
      Value key = keys.get(ctx, field.key);
      Value val = value_from_dom(ctx, field.value, depth + 1, keys);
      uint32_t at = 0;
      while (at < n &&
             !(kv[at * 2].identical(key) || KeyStrings::same_text(kv[at * 2].str(), field.key)))
        ++at;
      kv[at * 2 + 1] = val;
      if (at == n) kv[n++ * 2] = key;
    }
    return Value::object(small_map_of_distinct(ctx.arena, kv, n));
  }
  HashBuilder b(ctx.arena, Type::Map);
  for (simdjson::dom::key_value_pair field : fields)
    b.put(keys.get(ctx, field.key), value_from_dom(ctx, field.value, depth + 1, keys));
  return Value::object(b.finish());
}

Value value_from_dom(Ctx& ctx, simdjson::dom::element e, size_t depth, KeyStrings& keys) {
  check_native_stack("parsing nested JSON");
  ctx.tick();
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      if (depth >= kMaxJsonDepth) throw TooDeep{};
      VecBuilder b(ctx.arena);
      simdjson::dom::array arr = e.get_array().value_unsafe();
      for (simdjson::dom::element x : arr)
        b.push(value_from_dom(ctx, x, depth + 1, keys));
      return Value::object(b.finish());
    }
    case simdjson::dom::element_type::OBJECT:
      if (depth >= kMaxJsonDepth) throw TooDeep{};
      return object_from_dom(ctx, e.get_object().value_unsafe(), depth, keys);
    case simdjson::dom::element_type::INT64:
      return Value::integer(e.get_int64().value_unsafe());
    case simdjson::dom::element_type::UINT64:
      return integer_from_decimal(ctx.arena, std::to_string(e.get_uint64().value_unsafe()));
    case simdjson::dom::element_type::DOUBLE:
      return Value::floating(e.get_double().value_unsafe());
    case simdjson::dom::element_type::STRING: {
      // Short values repeat too (a status, a region, a tag): shared like keys,
      // which also makes equal ones identical, so comparing them is free.
      std::string_view text = e.get_string().value_unsafe();
      return text.size() <= KeyStrings::kShareUpTo ? keys.get(ctx, text) : ctx.string(text);
    }
    case simdjson::dom::element_type::BOOL:
      return Value::boolean(e.get_bool().value_unsafe());
    case simdjson::dom::element_type::NULL_VALUE:
      return Value::nil();
  }
  return Value::nil();
}

bool is_collection(const HostValue& h) {
  return h.kind() == Kind::Vector || h.kind() == Kind::Map || h.kind() == Kind::Set;
}

}  // namespace

HostValue parse_json(std::string_view json) {
  size_t start;
  std::string_view body = without_bom(json, &start);
  ParserLease lease;
  simdjson::dom::element root;
  if (!lease.parse(body, &root)) {
    try {
      return from_dom(root, 0);
    } catch (const TooDeep&) {}
  }
  // Big integers, errors to locate, or anything else simdjson declined.
  return StrictParser(json, start).parse_document();
}

namespace {

// The text of the object or array at `path` as the source has it, found with
// simdjson's On-Demand parser (which skips what it passes over, where
// writing the value out again from the DOM costs as much as parsing it).
// Only for a path whose keys each occur once (On-Demand finds the first, the
// DOM keeps the last), written without escapes; nullopt otherwise.
std::optional<std::string> source_text_at(std::string_view body,
                                          std::span<const std::string_view> path) {
  simdjson::padded_string padded(body);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (parser.iterate(padded).get(doc)) return std::nullopt;
  simdjson::ondemand::object obj;
  if (doc.get_object().get(obj)) return std::nullopt;
  for (size_t level = 0; level + 1 < path.size(); ++level)
    if (obj.find_field_unordered(path[level]).get_object().get(obj)) return std::nullopt;
  simdjson::ondemand::value v;
  if (obj.find_field_unordered(path.back()).get(v)) return std::nullopt;
  simdjson::ondemand::json_type type;
  if (v.type().get(type)) return std::nullopt;
  std::string_view text;
  if (type == simdjson::ondemand::json_type::object) {
    simdjson::ondemand::object o;
    if (v.get_object().get(o) || o.raw_json().get(text)) return std::nullopt;
  } else if (type == simdjson::ondemand::json_type::array) {
    simdjson::ondemand::array a;
    if (v.get_array().get(a) || a.raw_json().get(text)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  return std::string(text);
}

}  // namespace

HostValue parse_json_extracting(std::string_view json, std::span<const std::string_view> path,
                                std::string* raw) {
  const JsonExtraction one[] = {{path, raw}};
  return parse_json_extracting(json, one);
}

HostValue parse_json_extracting(std::string_view json,
                                std::span<const JsonExtraction> extractions) {
  for (const JsonExtraction& x : extractions)
    x.raw->clear();
  size_t start;
  std::string_view body = without_bom(json, &start);
  const size_t n = extractions.size();
  {
    ParserLease lease;
    simdjson::dom::element root;
    if (n != 0 && !lease.parse(body, &root)) {
      try {
        // Rebuild the objects along the paths, leaving out their last keys.
        std::vector<std::optional<simdjson::dom::element>> taken(n);  // the values at the paths
        std::vector<size_t> path_keys_met(n, 0);
        // `active`: the extractions whose paths lead through this object.
        std::function<HostValue(simdjson::dom::element, size_t, const std::vector<size_t>&)> walk =
            [&](simdjson::dom::element e, size_t level,
                const std::vector<size_t>& active) -> HostValue {
          if (e.type() != simdjson::dom::element_type::OBJECT) return from_dom(e, level);
          ObjectBuilder obj;
          simdjson::dom::object fields = e.get_object().value_unsafe();
          for (simdjson::dom::key_value_pair kv : fields) {
            std::vector<size_t> deeper;
            bool took = false;
            for (size_t i : active) {
              const auto& path = extractions[i].path;
              if (path.size() <= level || kv.key != path[level]) continue;
              ++path_keys_met[i];
              if (level + 1 == path.size()) {
                // Nested no deeper than parse_json takes (counted from the
                // document's root), or the text could not be read again.
                if (!extractions[i].visit) check_depth(kv.value, level + 1);
                taken[i] = kv.value;
                took = true;
              } else {
                deeper.push_back(i);
              }
            }
            if (took) continue;
            if (deeper.empty()) {
              obj.add(kv.key, from_dom(kv.value, level + 1));
              continue;
            }
            // A repeated key replaces the earlier value (obj.add), and with
            // it any value taken from inside that one.
            for (size_t i : deeper)
              taken[i].reset();
            obj.add(kv.key, walk(kv.value, level + 1, deeper));
          }
          return obj.finish();
        };
        std::vector<size_t> all(n);
        for (size_t i = 0; i < n; ++i)
          all[i] = i;
        HostValue rest = walk(root, 0, all);
        for (size_t i = 0; i < n; ++i) {
          if (!taken[i]) continue;
          const JsonExtraction& x = extractions[i];
          if (x.visit) {
            x.visit(*taken[i]);
            continue;
          }
          std::optional<std::string> text;
          if (path_keys_met[i] == x.path.size() &&
              (taken[i]->type() == simdjson::dom::element_type::OBJECT ||
               taken[i]->type() == simdjson::dom::element_type::ARRAY))
            text = source_text_at(body, x.path);
          *x.raw = text ? std::move(*text) : simdjson::minify(*taken[i]);
        }
        return rest;
      } catch (const TooDeep&) {
        for (const JsonExtraction& x : extractions)
          x.raw->clear();
      }
    }
  }
  // The slow way (big integers, errors): parse it all, then take the values out.
  HostValue whole = StrictParser(json, start).parse_document();
  for (const JsonExtraction& x : extractions) {
    std::function<HostValue(const HostValue&, size_t)> take = [&](const HostValue& h,
                                                                  size_t level) -> HostValue {
      if (level == x.path.size() || h.kind() != Kind::Map) return h;
      std::vector<std::pair<HostValue, HostValue>> kept;
      const auto& items = h.items();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        bool on_path = (items[i].kind() == Kind::String) && items[i].text() == x.path[level];
        if (!on_path)
          kept.emplace_back(items[i], items[i + 1]);
        else if (level + 1 == x.path.size())
          *x.raw = to_json(items[i + 1]);
        else
          kept.emplace_back(items[i], take(items[i + 1], level + 1));
      }
      return HostValue::map(std::move(kept));
    };
    if (!x.path.empty()) whole = take(whole, 0);
  }
  return whole;
}

Value import_json(Ctx& ctx, std::string_view json,
                  const std::function<bool(std::string_view key, bool collection)>& keep) {
  size_t start;
  std::string_view body = without_bom(json, &start);
  {
    ParserLease lease;
    simdjson::dom::element root;
    if (!lease.parse(body, &root)) {
      try {
        KeyStrings keys;
        if (!keep || root.type() != simdjson::dom::element_type::OBJECT)
          return value_from_dom(ctx, root, 0, keys);
        HashBuilder b(ctx.arena, Type::Map);
        simdjson::dom::object fields = root.get_object().value_unsafe();
        for (simdjson::dom::key_value_pair kv : fields) {
          auto t = kv.value.type();
          bool collection =
              t == simdjson::dom::element_type::ARRAY || t == simdjson::dom::element_type::OBJECT;
          if (keep(kv.key, collection))
            b.put(ctx.string(kv.key), value_from_dom(ctx, kv.value, 1, keys));
        }
        return Value::object(b.finish());
      } catch (const TooDeep&) {}
    }
  }
  // The slow way: through a host tree (big integers, precise errors).
  HostValue h = StrictParser(json, start).parse_document();
  if (!keep || h.kind() != Kind::Map) return import_value(ctx, h);
  HashBuilder b(ctx.arena, Type::Map);
  const auto& items = h.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    if (keep(items[i].text(), is_collection(items[i + 1])))
      b.put(import_value(ctx, items[i]), import_value(ctx, items[i + 1]));
  return Value::object(b.finish());
}

const char* json_kind_name(HostValue::Kind k) {
  switch (k) {
    case HostValue::Kind::Nil:
      return "null";
    case HostValue::Kind::Bool:
      return "a boolean";
    case HostValue::Kind::Int:
    case HostValue::Kind::BigInt:
    case HostValue::Kind::Float:
      return "a number";
    case HostValue::Kind::String:
    case HostValue::Kind::Keyword:
      return "a string";
    case HostValue::Kind::Vector:
    case HostValue::Kind::Set:
      return "an array";
    case HostValue::Kind::Map:
      return "an object";
    case HostValue::Kind::Opaque:
      return "an opaque value";
  }
  return "a value";
}

std::string to_json(const HostValue& h, bool sort_keys) {
  std::string out;
  append_json(out, h, sort_keys);
  return out;
}

}  // namespace ptc
