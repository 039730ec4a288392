// Signatures (PtcRunner v0.13.0, docs/signature-syntax.md).
//
// Grammar (whitespace = space, tab, newline, carriage return; it may appear
// between any two tokens, and is optional between a name and its type):
//
//   signature := "(" [params] ")" "->" type | type
//   params    := name type ("," name type)*         no trailing comma
//   type      := ":" prim ["?"] | "[" type "]" | "{" [fields] "}"
//   fields    := name type ("," name type)*         commas are required
//   prim      := string | int | float | bool | boolean | keyword | datetime
//              | any | map                          (:boolean means :bool)
//   name      := [A-Za-z_][A-Za-z0-9_-]*
//
// "T" alone means "() -> T". "[]" and "" are errors. Only the primitive types
// take the optional marker "?" ("[:int]?" and "{..}?" do not parse).
// Nesting deeper than kMaxSignatureDepth brackets is an error here (the spec
// sets no limit).
//
// Checking (the first mismatch wins; map fields in signature order, list
// elements in order):
//   - :any matches everything, nil included; a `?` type also matches nil.
//   - A `{..}` field is found under the keyword or string key of its name,
//     or of its name with '-' and '_' swapped (user_id matches :user-id,
//     "user_id", ...), as PtcRunner's validator does. Extra keys are
//     allowed; a missing field is an error unless its type has `?`.
//   - [T] needs a vector (a set is not a list); :map and {..} need a map.
//   - :int accepts integers of any size; :float accepts floats and integers;
//     :keyword accepts keywords and strings that are valid keyword names
//     (PtcRunner's externalized keywords); :datetime accepts ISO 8601 text
//     with an offset ("Z" or +HH:MM), naive text is rejected.
//
// Coercion. Strict (check_output, as PtcRunner's return validation, which
// the spec calls "strict - no coercion applied") changes nothing except
// :datetime text, which becomes canonical UTC ("2026-05-03T11:14:00+02:00"
// -> "2026-05-03T09:14:00Z"; PtcRunner turns it into a UTC DateTime, whose
// JSON form this is). An integer matching :float stays an integer there.
// Lenient (check_inputs, the spec's "Coercion Rules" for inputs) also does,
// each with a warning "path: coerced ..." unless marked silent:
//   "42" -> :int 42 (also "-5", "+7"; beyond int64 a bigint)
//   "3.14" -> :float 3.14 (surrounding whitespace trimmed; "42" -> 42.0)
//   42 -> :float 42.0 (silent)
//   "true"/"false" -> :bool
//   :atom -> :string "atom";  "name" -> :keyword :name (valid keyword names)
//   :datetime with a non-UTC offset is shifted to UTC (warned)
// Deviations from PtcRunner's code, on purpose: a quoted float must be the
// whole (trimmed) string (its code accepts a leading number, "12abc" -> 12.0);
// nil never matches :keyword (an Elixir artifact there); lenient coercion
// keeps undeclared map keys instead of dropping them; Strict mode reports the
// first mismatch only, not all of them.
#include "runtime/signature.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "runtime/calendar.hpp"
#include "runtime/host_preview.hpp"
#include "runtime/numbers.hpp"

namespace ptc {
namespace {

using Kind = SigType::Kind;
using HKind = HostValue::Kind;

struct TypeName {
  std::string_view name;
  Kind kind;
};
constexpr std::array<TypeName, 9> kTypeNames{{
    {"string", Kind::String},
    {"int", Kind::Int},
    {"float", Kind::Float},
    {"bool", Kind::Bool},
    {"boolean", Kind::Bool},
    {"keyword", Kind::Keyword},
    {"datetime", Kind::DateTime},
    {"any", Kind::Any},
    {"map", Kind::Map},
}};

constexpr std::string_view kValidTypes =
    "valid types are :string :int :float :bool :keyword :datetime :any :map, [:type] for a "
    "list and {field :type} for a map";

std::optional<Kind> type_named(std::string_view word) {
  for (const auto& t : kTypeNames)
    if (t.name == word) return t.kind;
  return std::nullopt;
}

std::string_view primitive_name(Kind k) {
  switch (k) {
    case Kind::String:
      return "string";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Bool:
      return "bool";
    case Kind::Keyword:
      return "keyword";
    case Kind::DateTime:
      return "datetime";
    case Kind::Any:
      return "any";
    case Kind::Map:
      return "map";
    case Kind::List:
    case Kind::Struct:
      break;
  }
  return "any";
}

// A hint for a type name that does not exist.
std::string unknown_type_hint(std::string_view word) {
  std::string lower(word);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (lower != word && type_named(lower))
    return fmt::format("type names are lower-case: :{}", lower);
  struct Alias {
    std::string_view from, hint;
  };
  static constexpr Alias kAliases[] = {
      {"list", "a list is written [:type], e.g. [:int], or [:any] for anything"},
      {"array", "a list is written [:type], e.g. [:int], or [:any] for anything"},
      {"vector", "a list is written [:type], e.g. [:int], or [:any] for anything"},
      {"seq", "a list is written [:type], e.g. [:int], or [:any] for anything"},
      {"tuple", "there are no tuples: use a map with named fields, {field :type}"},
      {"object", "use {field :type} for a map with known fields, or :map"},
      {"dict", "use {field :type} for a map with known fields, or :map"},
      {"hash", "use {field :type} for a map with known fields, or :map"},
      {"integer", "did you mean :int?"},
      {"long", "did you mean :int?"},
      {"number", "did you mean :float? (integers match it too)"},
      {"double", "did you mean :float?"},
      {"decimal", "did you mean :float?"},
      {"str", "did you mean :string?"},
      {"text", "did you mean :string?"},
      {"atom", "did you mean :keyword?"},
      {"date", "did you mean :datetime?"},
      {"time", "did you mean :datetime?"},
      {"timestamp", "did you mean :datetime?"},
      {"nil", "there is no nil type: mark the type optional instead, e.g. :string?"},
      {"null", "there is no null type: mark the type optional instead, e.g. :string?"},
  };
  for (const auto& a : kAliases)
    if (a.from == lower) return std::string(a.hint);
  return std::string(kValidTypes);
}

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9') || c == '-';
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

class Parser {
 public:
  explicit Parser(std::string_view src)
      : src_(src), multi_line_(src.find('\n') != std::string_view::npos) {}

  Signature run() {
    Signature sig;
    sig.text = std::string(src_);
    skip_ws();
    if (at_end())
      fail_expected(pos_, "a signature",
                    "an empty string is not a signature: write the output type, e.g. "
                    "{count :int}, or (inputs) -> output");
    if (peek_is('(')) {
      ++pos_;
      skip_ws();
      sig.inputs = parse_fields(')', "parameter");
      skip_ws();
      if (!looking_at("->"))
        fail_expected(pos_, "\"->\" after the parameter list",
                      "a signature with inputs is written (name :type, ...) -> output");
      pos_ += 2;
      skip_ws();
      sig.output = parse_type();
    } else if (looking_at("->")) {
      fail_expected(pos_, "a type",
                    "without inputs write just the output type, e.g. {count :int}, or "
                    "() -> {count :int}");
    } else {
      sig.output = parse_type();
    }
    skip_ws();
    if (!at_end()) {
      std::string hint = optional_marker_hint();
      if (hint.empty())
        hint = looking_at("->") ? "inputs go in parentheses: (id :int) -> :string"
                                : "a signature is one output type, or (inputs) -> output";
      fail_expected(pos_, "the end of the signature", hint);
    }
    return sig;
  }

 private:
  bool at_end() const { return pos_ >= src_.size(); }
  bool peek_is(char c) const { return !at_end() && src_[pos_] == c; }
  bool looking_at(std::string_view s) const { return src_.substr(pos_).starts_with(s); }
  void skip_ws() {
    while (!at_end() && is_ws(src_[pos_]))
      ++pos_;
  }

  SourceLoc location(size_t at) const {
    SourceLoc loc{1, 1};
    for (size_t i = 0; i < at && i < src_.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(src_[i]);
      if (c == '\n') {
        ++loc.line;
        loc.col = 1;
      } else if ((c & 0xC0) != 0x80) {
        ++loc.col;
      }
    }
    return loc;
  }

  std::string where(const SourceLoc& loc) const {
    return multi_line_ ? fmt::format("line {}, column {}", loc.line, loc.col)
                       : fmt::format("column {}", loc.col);
  }

  // What stands at `at`, for "got ...": a word, "->", one character, or the end.
  std::string found_at(size_t at) const {
    if (at >= src_.size()) return "end of input";
    char c = src_[at];
    size_t end = at;
    if (src_.substr(at).starts_with("->")) {
      end = at + 2;
    } else if (ident_char(c) || c == ':') {
      end = at + 1;
      while (end < src_.size() && end - at < 24 && ident_char(src_[end]))
        ++end;
    } else {
      end = at + 1;
      while (end < src_.size() && (static_cast<unsigned char>(src_[end]) & 0xC0) == 0x80)
        ++end;
    }
    if (c == '\n') return "a line break";
    if (c == '"') return "'\"'";
    return fmt::format("\"{}\"", src_.substr(at, end - at));
  }

  [[noreturn]] void fail_expected(size_t at, std::string_view expected, std::string hint) const {
    SourceLoc loc = location(at);
    throw LispError(ErrorKind::ArgsError,
                    fmt::format("expected {} at {}, got {}", expected, where(loc), found_at(at)),
                    std::move(hint), loc);
  }

  [[noreturn]] void fail_at(size_t at, std::string_view what, std::string hint) const {
    SourceLoc loc = location(at);
    throw LispError(ErrorKind::ArgsError, fmt::format("{} at {}", what, where(loc)),
                    std::move(hint), loc);
  }

  // When a '?' stands where it cannot: after a list or map type, or after a
  // space.
  std::string optional_marker_hint() const {
    if (!peek_is('?')) return {};
    if (pos_ > 0 && is_ws(src_[pos_ - 1])) return "write ? right after the type: :int?";
    return "only the primitive types can be optional (:int?, :map?, ...); a list or map type "
           "cannot take ?";
  }

  void enter(size_t at) {
    if (++depth_ > kMaxSignatureDepth)
      fail_at(at, fmt::format("types nest more than {} levels deep", kMaxSignatureDepth),
              "flatten the structure, or use :map or :any for deeply nested data");
  }

  SigTypePtr parse_type() {
    if (at_end()) fail_expected(pos_, "a type", std::string(kValidTypes));
    switch (src_[pos_]) {
      case '[':
        return parse_list();
      case '{':
        return parse_struct();
      case ':':
        return parse_primitive();
      default:
        break;
    }
    std::string hint(kValidTypes);
    if (ident_start(src_[pos_])) {
      size_t end = pos_;
      while (end < src_.size() && ident_char(src_[end]))
        ++end;
      std::string_view word = src_.substr(pos_, end - pos_);
      hint = type_named(word) ? fmt::format("types start with a colon: :{}", word)
                              : unknown_type_hint(word);
    }
    fail_expected(pos_, "a type", std::move(hint));
  }

  SigTypePtr parse_primitive() {
    size_t colon = pos_++;
    size_t start = pos_;
    while (!at_end() && ident_char(src_[pos_]))
      ++pos_;
    std::string_view word = src_.substr(start, pos_ - start);
    if (word.empty()) fail_expected(pos_, "a type name after ':'", std::string(kValidTypes));
    std::optional<Kind> kind = type_named(word);
    if (!kind) fail_at(colon, fmt::format("unknown type :{}", word), unknown_type_hint(word));
    bool optional = false;
    if (peek_is('?')) {
      optional = true;
      ++pos_;
    }
    return SigType::primitive(*kind, optional);
  }

  SigTypePtr parse_list() {
    enter(pos_);
    ++pos_;
    skip_ws();
    if (peek_is(']'))
      fail_expected(pos_, "the element type of the list",
                    "[] is not a type: use [:any] for a list of anything");
    SigTypePtr element = parse_type();
    skip_ws();
    if (!peek_is(']')) {
      std::string hint = optional_marker_hint();
      if (hint.empty())
        hint = at_end() ? "close the list with ']'"
                        : "a list has one element type, e.g. [:int]; use [:any] for mixed elements";
      fail_expected(pos_, "']'", std::move(hint));
    }
    ++pos_;
    --depth_;
    return SigType::list_of(std::move(element));
  }

  SigTypePtr parse_struct() {
    enter(pos_);
    ++pos_;
    skip_ws();
    SigFields fields = parse_fields('}', "field");
    --depth_;
    return SigType::structure(std::move(fields));
  }

  std::string parse_name(char close, std::string_view noun, bool first) {
    if (at_end() || !ident_start(src_[pos_])) {
      std::string expected =
          first ? fmt::format("a {} name or '{}'", noun, close) : fmt::format("a {} name", noun);
      std::string hint;
      if (at_end())
        hint =
            fmt::format("close the {} with '{}'", close == '}' ? "map" : "parameter list", close);
      else if (src_[pos_] == ':')
        hint = close == '}' ? "field names are bare words: {id :int}, not {:id :int}"
                            : "parameter names are bare words: (id :int), not (:id :int)";
      else
        hint =
            fmt::format("a {} is written name :type, and a name starts with a letter or _", noun);
      fail_expected(pos_, expected, std::move(hint));
    }
    size_t start = pos_;
    while (!at_end() && ident_char(src_[pos_]))
      ++pos_;
    return std::string(src_.substr(start, pos_ - start));
  }

  // After the opening bracket (and whitespace); consumes the closing one.
  SigFields parse_fields(char close, std::string_view noun) {
    SigFields out;
    if (peek_is(close)) {
      ++pos_;
      return out;
    }
    for (;;) {
      std::string name = parse_name(close, noun, out.empty());
      if (peek_is('?'))
        fail_expected(pos_, fmt::format("the type of {} {}", noun, name),
                      fmt::format("the optional marker goes on the type: {} :string?", name));
      skip_ws();
      SigTypePtr type = parse_type();
      out.emplace_back(std::move(name), std::move(type));
      skip_ws();
      if (peek_is(',')) {
        ++pos_;
        skip_ws();
        if (peek_is(close))
          fail_expected(pos_, fmt::format("a {} name", noun), "remove the trailing comma");
        continue;
      }
      if (peek_is(close)) {
        ++pos_;
        return out;
      }
      std::string hint = optional_marker_hint();
      if (hint.empty()) {
        if (at_end())
          hint =
              fmt::format("close the {} with '{}'", close == '}' ? "map" : "parameter list", close);
        else if (ident_start(src_[pos_]))
          hint = fmt::format("separate {}s with commas: a :int, b :string", noun);
      }
      fail_expected(pos_, fmt::format("',' or '{}'", close), std::move(hint));
    }
  }

  std::string_view src_;
  bool multi_line_;
  size_t pos_ = 0;
  size_t depth_ = 0;
};

// ---------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------

void render(std::string& out, const SigType* t) {
  if (!t) {
    out += ":any";
    return;
  }
  switch (t->kind) {
    case Kind::List:
      out += '[';
      render(out, t->element.get());
      out += ']';
      break;
    case Kind::Struct: {
      out += '{';
      bool first = true;
      for (const auto& [name, type] : t->fields) {
        if (!first) out += ", ";
        first = false;
        out += name;
        out += ' ';
        render(out, type.get());
      }
      out += '}';
      break;
    }
    default:
      out += ':';
      out += primitive_name(t->kind);
      break;
  }
  if (t->optional) out += '?';
}

// ---------------------------------------------------------------------------
// Value descriptions for messages
// ---------------------------------------------------------------------------

constexpr size_t kPreviewLimit = 48;  // bytes of a value shown after "got"

std::string describe(const HostValue& v) {
  std::string_view kind;
  switch (v.kind()) {
    case HKind::Nil:
      return "nil";
    case HKind::Opaque:
      return host_preview(v, kPreviewLimit);
    case HKind::Bool:
      kind = "bool";
      break;
    case HKind::Int:
    case HKind::BigInt:
      kind = "int";
      break;
    case HKind::Float:
      kind = "float";
      break;
    case HKind::String:
      kind = "string";
      break;
    case HKind::Keyword:
      kind = "keyword";
      break;
    case HKind::Vector:
      kind = "vector";
      break;
    case HKind::Map:
      kind = "map";
      break;
    case HKind::Set:
      kind = "set";
      break;
  }
  return fmt::format("{} {}", kind, host_preview(v, kPreviewLimit));
}

std::string quoted(std::string_view s) {
  std::string out;
  append_host_preview(out, HostValue::string(std::string(s)), 64);
  return out;
}

std::string type_text(const SigType& t) {
  std::string out = to_string(t);
  if (out.size() > 100) {
    out.resize(97);
    out += "...";
  }
  return out;
}

// ---------------------------------------------------------------------------
// Scalar coercions and checks
// ---------------------------------------------------------------------------

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Optional sign and decimal digits, nothing else (no spaces).
std::optional<HostValue> parse_integer(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (!all_digits(s)) return std::nullopt;
  while (s.size() > 1 && s[0] == '0')
    s.remove_prefix(1);
  std::string text = negative && s != "0" ? "-" + std::string(s) : std::string(s);
  int64_t i = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec == std::errc() && end == text.data() + text.size()) return HostValue::integer(i);
  return HostValue::bigint(std::move(text));
}

// A decimal float after trimming whitespace.
std::optional<double> parse_float(std::string_view s) {
  while (!s.empty() && (is_ws(s.front()) || s.front() == '\f' || s.front() == '\v'))
    s.remove_prefix(1);
  while (!s.empty() && (is_ws(s.back()) || s.back() == '\f' || s.back() == '\v'))
    s.remove_suffix(1);
  return parse_decimal_float(s);
}

double bigint_to_double(const std::string& decimal) {
  return std::strtod(decimal.c_str(), nullptr);
}

struct DateTimeText {
  bool ok = false;
  bool naive = false;  // well formed but without an offset
  std::string utc;     // canonical: YYYY-MM-DDTHH:MM:SS[.ffffff]Z
  int offset_minutes = 0;
};

// YYYY-MM-DD(T| )HH:MM:SS[.frac](Z|+HH:MM|+HHMM|+HH), as DateTime.from_iso8601.
DateTimeText parse_datetime(std::string_view s) {
  DateTimeText r;
  size_t i = 0;
  auto number = [&](size_t width, int64_t& out) {
    if (i + width > s.size()) return false;
    out = 0;
    for (size_t k = 0; k < width; ++k) {
      char c = s[i + k];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    i += width;
    return true;
  };
  auto lit = [&](char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!number(4, y) || !lit('-') || !number(2, mo) || !lit('-') || !number(2, d)) return r;
  if (!(lit('T') || lit('t') || lit(' '))) return r;
  if (!number(2, h) || !lit(':') || !number(2, mi) || !lit(':') || !number(2, sec)) return r;
  std::string frac;
  if (lit('.') || lit(',')) {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
      ++i;
    if (i == start) return r;
    frac = std::string(s.substr(start, std::min<size_t>(i - start, 6)));
  }
  if (mo < 1 || mo > 12 || d < 1) return r;
  if (d > days_in_month(y, static_cast<int>(mo))) return r;
  if (h > 23 || mi > 59 || sec > 59) return r;
  int64_t offset = 0;
  if (i == s.size()) {
    r.naive = true;
    return r;
  }
  if (lit('Z') || lit('z')) {
    offset = 0;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int64_t sign = s[i] == '-' ? -1 : 1;
    ++i;
    int64_t oh = 0, om = 0;
    if (!number(2, oh)) return r;
    if (i < s.size()) {
      lit(':');
      if (!number(2, om)) return r;
    }
    if (oh > 23 || om > 59) return r;
    offset = sign * (oh * 60 + om);
  } else {
    return r;
  }
  if (i != s.size()) return r;
  int64_t seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset * 60;
  int64_t days = floor_div(seconds, 86400);
  int64_t rem = floor_mod(seconds, 86400);
  Civil utc = civil_from_days(days);
  if (utc.year < 0 || utc.year > 9999) return r;
  r.ok = true;
  r.offset_minutes = static_cast<int>(offset);
  r.utc = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{}Z", utc.year, utc.month, utc.day,
                      rem / 3600, rem / 60 % 60, rem % 60, frac.empty() ? "" : ".", frac);
  return r;
}

// ---------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------

// The value slot of a map's field, found under the keyword or string key of
// the field's name or its '-'/'_' variants (PtcRunner's lookup order).
class FieldFinder {
 public:
  explicit FieldFinder(const std::vector<HostValue>& items) : items_(items) {}

  std::optional<size_t> find(std::string_view name) {
    std::string underscored(name), hyphenated(name);
    for (char& c : underscored)
      if (c == '-') c = '_';
    for (char& c : hyphenated)
      if (c == '_') c = '-';
    std::string_view candidates[3] = {underscored, name, hyphenated};
    for (size_t k = 0; k < 3; ++k) {
      bool seen = false;
      for (size_t j = 0; j < k; ++j)
        seen = seen || candidates[j] == candidates[k];
      if (seen) continue;
      if (auto at = lookup(HKind::Keyword, candidates[k])) return at;
      if (auto at = lookup(HKind::String, candidates[k])) return at;
    }
    return std::nullopt;
  }

 private:
  static constexpr size_t kIndexFrom = 16;  // entries; smaller maps are scanned

  std::optional<size_t> lookup(HKind kind, std::string_view name) {
    if (items_.size() / 2 < kIndexFrom) {
      for (size_t i = 0; i + 1 < items_.size(); i += 2)
        if (items_[i].kind() == kind && items_[i].text() == name) return i + 1;
      return std::nullopt;
    }
    if (!indexed_) {
      indexed_ = true;
      for (size_t i = 0; i + 1 < items_.size(); i += 2) {
        HKind k = items_[i].kind();
        if (k == HKind::Keyword) keywords_.emplace(items_[i].text(), i + 1);
        if (k == HKind::String) strings_.emplace(items_[i].text(), i + 1);
      }
    }
    auto& index = kind == HKind::Keyword ? keywords_ : strings_;
    auto it = index.find(name);
    if (it == index.end()) return std::nullopt;
    return it->second;
  }

  const std::vector<HostValue>& items_;
  bool indexed_ = false;
  std::unordered_map<std::string_view, size_t> keywords_, strings_;
};

class Checker {
 public:
  Checker(CheckMode mode, SignatureCheck& out) : lenient_(mode == CheckMode::Lenient), out_(out) {}

  // False on a mismatch (recorded in out_). When the value was coerced,
  // `replaced` holds the new one.
  bool check(const SigType& t, const HostValue& v, std::optional<HostValue>& replaced) {
    if (v.is_nil()) return t.optional || t.kind == Kind::Any ? true : mismatch(t, v);
    HKind k = v.kind();
    switch (t.kind) {
      case Kind::Any:
        return true;
      case Kind::String:
        if (k == HKind::String) return true;
        if (lenient_ && k == HKind::Keyword) {
          warn(fmt::format("coerced keyword :{} to string", v.text()));
          replaced = HostValue::string(v.text());
          return true;
        }
        return mismatch(t, v);
      case Kind::Int:
        if (k == HKind::Int || k == HKind::BigInt) return true;
        if (lenient_ && k == HKind::String) {
          if (auto n = parse_integer(v.text())) {
            warn(fmt::format("coerced string {} to int", quoted(v.text())));
            replaced = std::move(*n);
            return true;
          }
        }
        return mismatch(t, v);
      case Kind::Float:
        if (k == HKind::Float) return true;
        if (k == HKind::Int || k == HKind::BigInt) {
          if (lenient_)
            replaced = HostValue::floating(k == HKind::Int ? static_cast<double>(v.as_int())
                                                           : bigint_to_double(v.text()));
          return true;
        }
        if (lenient_ && k == HKind::String) {
          if (auto d = parse_float(v.text())) {
            warn(fmt::format("coerced string {} to float", quoted(v.text())));
            replaced = HostValue::floating(*d);
            return true;
          }
        }
        return mismatch(t, v);
      case Kind::Bool:
        if (k == HKind::Bool) return true;
        if (lenient_ && k == HKind::String && (v.text() == "true" || v.text() == "false")) {
          warn(fmt::format("coerced string \"{}\" to bool", v.text()));
          replaced = HostValue::boolean(v.text() == "true");
          return true;
        }
        return mismatch(t, v);
      case Kind::Keyword:
        if (k == HKind::Keyword) return true;
        if (k == HKind::String && is_keyword_name(v.text())) {
          if (lenient_) {
            warn(fmt::format("coerced string {} to keyword", quoted(v.text())));
            replaced = HostValue::keyword(v.text());
          }
          return true;
        }
        return mismatch(t, v);
      case Kind::DateTime:
        return check_datetime(t, v, replaced);
      case Kind::Map:
        return k == HKind::Map ? true : mismatch(t, v);
      case Kind::List:
        return check_list(t, v, replaced);
      case Kind::Struct:
        return check_struct(t, v, replaced);
    }
    return true;
  }

 private:
  struct Segment {
    std::string_view field;
    size_t index = 0;
    bool is_index = false;
  };

  std::string path_text(size_t segments) const {
    std::string out;
    for (size_t i = 0; i < segments && i < path_.size(); ++i) {
      const Segment& s = path_[i];
      if (s.is_index) {
        out += fmt::format("[{}]", s.index);
      } else {
        if (!out.empty()) out += '.';
        out += s.field;
      }
    }
    return out;
  }

  bool mismatch(const SigType& t, const HostValue& v, std::string_view detail = {}) {
    out_.ok = false;
    out_.path = path_text(path_.size());
    out_.message =
        fmt::format("expected {}{}{}, got {}{}{}", type_text(t), out_.path.empty() ? "" : " at ",
                    out_.path, describe(v), detail.empty() ? "" : "; ", detail);
    return false;
  }

  bool missing(const SigType& t, std::string_view name) {
    out_.ok = false;
    out_.path = path_text(path_.size());
    std::string parent = path_text(path_.size() - 1);
    out_.message = fmt::format("missing required field {} ({}){}{}", name, type_text(t),
                               parent.empty() ? "" : " in ", parent);
    return false;
  }

  void warn(std::string text) {
    std::string path = path_text(path_.size());
    out_.warnings.push_back(path.empty() ? std::move(text) : path + ": " + text);
  }

  bool check_datetime(const SigType& t, const HostValue& v, std::optional<HostValue>& replaced) {
    if (v.kind() != HKind::String)
      return mismatch(t, v,
                      "a datetime is ISO 8601 text with an offset, e.g. 2026-05-03T09:14:00Z");
    DateTimeText dt = parse_datetime(v.text());
    if (!dt.ok)
      return mismatch(t, v,
                      dt.naive ? "a timezone offset is required: end it with Z or +HH:MM"
                               : "not an ISO 8601 date-time such as 2026-05-03T09:14:00Z");
    if (dt.utc != v.text()) {
      if (lenient_ && dt.offset_minutes != 0)
        warn(fmt::format("normalized datetime {} to UTC", quoted(v.text())));
      replaced = HostValue::string(std::move(dt.utc));
    }
    return true;
  }

  bool check_list(const SigType& t, const HostValue& v, std::optional<HostValue>& replaced) {
    if (v.kind() != HKind::Vector) return mismatch(t, v);
    static const SigType kAny;
    const SigType& element = t.element ? *t.element : kAny;
    const auto& items = v.items();
    std::vector<HostValue> copy;
    bool changed = false;
    for (size_t i = 0; i < items.size(); ++i) {
      path_.push_back({{}, i, true});
      std::optional<HostValue> r;
      if (!check(element, items[i], r)) return false;
      path_.pop_back();
      if (!r) continue;
      if (!changed) {
        copy = items;
        changed = true;
      }
      copy[i] = std::move(*r);
    }
    if (changed) replaced = HostValue::vector(std::move(copy));
    return true;
  }

  bool check_struct(const SigType& t, const HostValue& v, std::optional<HostValue>& replaced) {
    if (v.kind() != HKind::Map) return mismatch(t, v);
    static const SigType kAny;
    const auto& items = v.items();
    FieldFinder finder(items);
    std::vector<std::pair<size_t, HostValue>> changes;
    for (const auto& [name, type] : t.fields) {
      const SigType& ft = type ? *type : kAny;
      std::optional<size_t> at = finder.find(name);
      path_.push_back({name, 0, false});
      if (!at) {
        if (!ft.optional) return missing(ft, name);
        path_.pop_back();
        continue;
      }
      std::optional<HostValue> r;
      if (!check(ft, items[*at], r)) return false;
      path_.pop_back();
      if (r) changes.emplace_back(*at, std::move(*r));
    }
    if (!changes.empty()) {
      std::vector<HostValue> flat = items;
      for (auto& [i, value] : changes)
        flat[i] = std::move(value);
      std::vector<std::pair<HostValue, HostValue>> entries;
      entries.reserve(flat.size() / 2);
      for (size_t i = 0; i + 1 < flat.size(); i += 2)
        entries.emplace_back(std::move(flat[i]), std::move(flat[i + 1]));
      replaced = HostValue::map(std::move(entries));
    }
    return true;
  }

  bool lenient_;
  SignatureCheck& out_;
  std::vector<Segment> path_;
};

}  // namespace

SigTypePtr SigType::primitive(Kind kind, bool optional) {
  auto t = std::make_shared<SigType>();
  t->kind = kind;
  t->optional = optional;
  return t;
}

SigTypePtr SigType::list_of(SigTypePtr element, bool optional) {
  auto t = std::make_shared<SigType>();
  t->kind = Kind::List;
  t->optional = optional;
  t->element = std::move(element);
  return t;
}

SigTypePtr SigType::structure(SigFields fields, bool optional) {
  auto t = std::make_shared<SigType>();
  t->kind = Kind::Struct;
  t->optional = optional;
  t->fields = std::move(fields);
  return t;
}

Signature parse_signature(std::string_view text) {
  return Parser(text).run();
}

SignatureCheck check_value(const SigType& type, const HostValue& value, CheckMode mode) {
  SignatureCheck out;
  Checker checker(mode, out);
  std::optional<HostValue> replaced;
  if (checker.check(type, value, replaced)) {
    out.ok = true;
    out.value = replaced ? std::move(*replaced) : value;
  }
  return out;
}

SignatureCheck check_output(const Signature& sig, const HostValue& value) {
  if (!sig.output) {
    SignatureCheck out;
    out.value = value;
    return out;
  }
  return check_value(*sig.output, value, CheckMode::Strict);
}

SignatureCheck check_inputs(const Signature& sig, const HostValue& args) {
  SigType params;
  params.kind = Kind::Struct;
  params.fields = sig.inputs;
  return check_value(params, args.is_nil() ? HostValue::map({}) : args, CheckMode::Lenient);
}

std::string to_string(const SigType& t) {
  std::string out;
  render(out, &t);
  return out;
}

std::string to_string(const Signature& sig) {
  std::string out;
  if (!sig.inputs.empty()) {
    out += '(';
    bool first = true;
    for (const auto& [name, type] : sig.inputs) {
      if (!first) out += ", ";
      first = false;
      out += name;
      out += ' ';
      render(out, type.get());
    }
    out += ") -> ";
  }
  render(out, sig.output.get());
  return out;
}

}  // namespace ptc
