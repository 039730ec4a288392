// Signatures (PtcRunner v0.13.0, docs/signature-syntax.md): parsing, rendering.
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
#include "runtime/signature.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

namespace ptc {
namespace {

using Kind = SigType::Kind;

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

// The first spelling of a primitive type: :bool, not :boolean.
std::string_view primitive_name(Kind k) {
  for (const auto& t : kTypeNames)
    if (t.kind == k) return t.name;
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

// ---- Rendering types back to text

void render(std::string& out, const SigType* t);

// "name T, name T": a map's fields, or a signature's parameters.
void render_fields(std::string& out, const SigFields& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    out += i ? ", " : "";
    out += fields[i].first + ' ';
    render(out, fields[i].second.get());
  }
}

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
    case Kind::Struct:
      out += '{';
      render_fields(out, t->fields);
      out += '}';
      break;
    default:
      out += ':';
      out += primitive_name(t->kind);
      break;
  }
  if (t->optional) out += '?';
}

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

std::string to_string(const SigType& t) {
  std::string out;
  render(out, &t);
  return out;
}

std::string to_string(const Signature& sig) {
  std::string out;
  if (!sig.inputs.empty()) {
    out += '(';
    render_fields(out, sig.inputs);
    out += ") -> ";
  }
  render(out, sig.output.get());
  return out;
}

}  // namespace ptc
