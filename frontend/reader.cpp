// The reader: PTC-Lisp source text to forms.
//
// The reader is iterative: open collections live on an explicit stack of
// frames, so nesting depth costs heap memory, never native stack, and the
// depth limit (ReaderOptions::max_nesting_depth) is a plain comparison.
//
// Tokens. A token (symbol, number, keyword name, character-literal name) is a
// maximal run of characters that are not terminators. Terminators are
// whitespace (space, tab, \n, \r, comma) and the characters ( ) [ ] { } " ; @
// ^ ` ~ \ -- the same set as Clojure's reader. The token is then validated as a
// whole, so `12abc` is one bad number rather than 12 followed by abc, and
// `nilly` is a symbol while `nil)` is nil followed by a closer.
//
// Numeric literal decisions (Clojure reads all of these; PTC-Lisp is stricter
// where Clojure's reading would surprise a program's author):
//   +1     reads as the integer 1 (as in Clojure).
//   12N    reads as the integer 12 (Clojure's bigint suffix); values outside
//          int64 become BigInt whether or not they carry the N.
//   007    is rejected: Clojure reads a leading zero as octal, which is never
//          what a JSON-minded author means ("octal literals are not supported").
//          Floats may have leading zeros (007.5 is 7.5, as in Clojure).
//   1.     is rejected (Clojure reads 1.0): a digit must follow the point.
//   1/3, 0x1F, 2r101, 1.0M are rejected with a hint.
//   1e999  reads as ##Inf and 1e-999 as 0.0, as in Clojure.
//
// Character literals: \, is the comma character (as in Clojure) even though a
// comma is whitespace elsewhere; a backslash followed by space, tab, newline or
// the end of input is an error.

#include "frontend/reader.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/arena.hpp"
#include "runtime/error.hpp"
#include "runtime/scratch.hpp"
#include "runtime/strings.hpp"

namespace ptc {
namespace {

constexpr const char* kSymbolCharsHint =
    "symbols may use ASCII letters, digits and + - * / < > = ? ! _ % . & '; put other text "
    "in a string";
constexpr const char* kKeywordCharsHint =
    "keywords may use ASCII letters, digits and + - * < > = ? ! _";

[[noreturn]] void fail(SourceLoc loc, std::string message, std::string hint = {}) {
  throw_error(ErrorKind::ParseError, std::move(message), std::move(hint), loc);
}

// A parse error because the text ended inside a form: more text could still
// make it valid, which is what input_status tells a REPL. Elsewhere it is a
// parse error like any other.
class EndOfInputError : public LispError {
 public:
  using LispError::LispError;
};

[[noreturn]] void fail_at_end(SourceLoc loc, std::string message, std::string hint = {}) {
  throw EndOfInputError(ErrorKind::ParseError, std::move(message), std::move(hint), loc);
}

std::string loc_str(SourceLoc loc) {
  return fmt::format("{}:{}", loc.line, loc.col);
}

// Character classes in one table, as Lua's lctype does: the reader asks one
// of these about every byte it reads.
enum CharClass : uint8_t {
  kWs = 1,            // space, tab, line breaks and commas
  kTerminator = 2,    // ends a token
  kDigit = 4,         // 0-9
  kSymbolStart = 8,   // may start a symbol: letters and + - * / < > = ? ! _ % . &
  kSymbolRest = 16,   // may continue one: those, digits and '
  kKeywordChar = 32,  // in a keyword's name: letters, digits and + - * < > = ? ! _
  kSlash = 64,        // '/': a symbol with one is qualified (ns/name)
};
constexpr std::array<uint8_t, 256> kCharClasses = [] {
  std::array<uint8_t, 256> t{};
  for (unsigned char c : std::string_view(" \t\n\r,"))
    t[c] |= kWs;
  for (unsigned char c : std::string_view(" \t\n\r,()[]{}\";@^`~\\"))
    t[c] |= kTerminator;
  for (int c = '0'; c <= '9'; ++c)
    t[c] |= kDigit | kSymbolRest;
  for (int c = 'a'; c <= 'z'; ++c)
    t[c] |= kSymbolStart | kSymbolRest;
  for (int c = 'A'; c <= 'Z'; ++c)
    t[c] |= kSymbolStart | kSymbolRest;
  for (unsigned char c : std::string_view("+-*/<>=?!_%.&"))
    t[c] |= kSymbolStart | kSymbolRest;
  t['\''] |= kSymbolRest;
  t['/'] |= kSlash;
  for (int c = 0; c < 256; ++c)
    if ((t[c] & kDigit) || ((t[c] & kSymbolStart) && c != '/' && c != '.' && c != '%' && c != '&'))
      t[c] |= kKeywordChar;
  return t;
}();

bool is_ws(unsigned char c) {
  return kCharClasses[c] & kWs;
}
bool is_terminator(unsigned char c) {
  return kCharClasses[c] & kTerminator;
}
bool is_digit(unsigned char c) {
  return kCharClasses[c] & kDigit;
}
bool is_alpha(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at s[pos..pos+4).
bool parse_hex4(std::string_view s, size_t pos, uint32_t* out) {
  if (pos + 4 > s.size()) return false;
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    int h = hex_value(static_cast<unsigned char>(s[pos + i]));
    if (h < 0) return false;
    v = v * 16 + static_cast<uint32_t>(h);
  }
  *out = v;
  return true;
}

bool is_surrogate(uint32_t cp) {
  return cp >= 0xD800 && cp <= 0xDFFF;
}

bool is_unicode_space(int32_t cp) {
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 ||
         cp == 0xFEFF;
}

// "'λ' (U+03BB)", "'.'", or "U+0001" for invisible characters.
std::string describe_cp(int32_t cp) {
  if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || is_unicode_space(cp))
    return fmt::format("U+{:04X}", cp);
  std::string out = "'";
  append_utf8(out, cp);
  out += "'";
  if (cp >= 0x80) out += fmt::format(" (U+{:04X})", cp);
  return out;
}

// A token quoted in a message, cut to a readable length at a code point
// boundary.
std::string shorten(std::string_view tok) {
  constexpr size_t kMax = 60;
  if (tok.size() <= kMax) return std::string(tok);
  size_t cut = kMax;
  while (cut > 0 && is_continuation(static_cast<unsigned char>(tok[cut])))
    --cut;
  return fmt::format("{}...", tok.substr(0, cut));
}

// The code point at byte `pos` of `s` (which is valid UTF-8).
int32_t cp_at(std::string_view s, size_t pos) {
  int32_t cp = static_cast<unsigned char>(s[pos]);
  if (cp >= 0x80) decode_utf8(s, pos, &cp);
  return cp;
}

struct Frame {
  FormKind kind;          // List, Vector, Map, Set, FnLiteral; Nil for the top level
  char closer;            // ')' ']' '}', 0 for the top level
  SourceLoc loc;          // the opening bracket
  size_t start;           // first item of this frame in Reader::items_
  size_t src_start;       // byte offset of the opening bracket (or its #)
  uint32_t discards = 0;  // pending #_ waiting for a form
  SourceLoc discard_loc;  // the oldest pending #_
};

const char* opener_text(FormKind kind) {
  switch (kind) {
    case FormKind::List:
      return "(";
    case FormKind::Vector:
      return "[";
    case FormKind::Map:
      return "{";
    case FormKind::Set:
      return "#{";
    case FormKind::FnLiteral:
      return "#(";
    default:
      return "";
  }
}

class Reader {
 public:
  Reader(Arena& arena, std::string_view src, const ReaderOptions& options)
      : arena_(arena), src_(src), options_(options) {}

  FormList read_all();

 private:
  // --- position --------------------------------------------------------------
  SourceLoc here() const { return {line_, col_}; }
  bool at_end() const { return pos_ >= src_.size(); }
  unsigned char peek(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? static_cast<unsigned char>(src_[pos_ + ahead]) : 0;
  }
  bool has(size_t ahead) const { return pos_ + ahead < src_.size(); }

  void advance() {
    unsigned char c = static_cast<unsigned char>(src_[pos_++]);
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else if (c == '\r') {
      // \r\n is one line break, counted at the \n; a lone \r is a line break.
      if (pos_ < src_.size() && src_[pos_] == '\n') {
        ++col_;
      } else {
        ++line_;
        col_ = 1;
      }
    } else if (!is_continuation(c)) {
      ++col_;
    }
  }
  void advance_to(size_t end) {
    while (pos_ < end)
      advance();
  }
  // advance_to across a token, which holds no line break.
  void advance_in_line(size_t end) {
    for (; pos_ < end; ++pos_)
      col_ += !is_continuation(static_cast<unsigned char>(src_[pos_]));
  }

  // Location of byte `p` of a token that starts at byte `start` / `start_loc`
  // (tokens never contain line breaks).
  SourceLoc loc_in_token(SourceLoc start_loc, size_t start, size_t p) const {
    SourceLoc loc = start_loc;
    for (size_t i = start; i < p; ++i)
      if (!is_continuation(static_cast<unsigned char>(src_[i]))) ++loc.col;
    return loc;
  }

  size_t scan_token(size_t from) const {
    size_t p = from;
    while (p < src_.size() && !is_terminator(static_cast<unsigned char>(src_[p])))
      ++p;
    return p;
  }

  void skip_ws() {
    while (pos_ < src_.size()) {
      unsigned char c = static_cast<unsigned char>(src_[pos_]);
      if (c == ' ' || c == ',' || c == '\t') {
        ++pos_;
        ++col_;
      } else if (is_ws(c)) {
        advance();
      } else if (c == ';') {
        while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r')
          advance();
      } else {
        break;
      }
    }
  }

  // --- allocation ------------------------------------------------------------
  std::string_view save(std::string_view s) {
    if (s.empty()) return {};
    char* p = static_cast<char*>(arena_.alloc(s.size()));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }
  Form* new_form(FormKind kind, SourceLoc loc) {
    Form* f = arena_.make<Form>();
    f->kind = kind;
    f->loc = loc;
    return f;
  }

  // --- structure -------------------------------------------------------------
  void check_utf8();
  // Every form read goes through here: inlined, it is a check and a store.
  [[gnu::always_inline]] void emit(const Form* form) {
    Frame& frame = frames_->back();
    if (frame.discards > 0) [[unlikely]] {
      --frame.discards;
      return;
    }
    items_->push_back(form);
  }
  void open(FormKind kind, char closer, size_t prefix_len);
  void close(unsigned char c);
  void read_dispatch();
  void finish();

  // --- atoms -----------------------------------------------------------------
  [[gnu::always_inline]] inline const Form* read_atom();  // one caller: the read loop
  const Form* read_token_form();
  [[gnu::always_inline]] inline const Form* read_small_int(std::string_view tok, SourceLoc loc,
                                                           SourceLoc end);
  const Form* read_number(std::string_view tok, SourceLoc loc, SourceLoc end);
  const Form* read_string();
  const Form* read_char();
  const Form* read_keyword();
  const Form* read_regex();
  const Form* read_symbolic_value();
  const Form* read_quoted(FormKind kind, SourceLoc loc, const char* prefix);
  void check_symbol(std::string_view tok, SourceLoc loc, size_t start);

  Arena& arena_;
  std::string_view src_;
  const ReaderOptions& options_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t col_ = 1;
  // Borrowed (runtime/scratch.hpp): the reader's stacks outlive no read.
  ScratchVector<Frame> frames_;
  ScratchVector<const Form*> items_;
  uint32_t fn_depth_ = 0;  // open #( frames
  std::string buf_;
};

void Reader::check_utf8() {
  size_t bad = 0;
  if (is_valid_utf8(src_, &bad)) return;
  advance_to(bad);
  fail(here(), fmt::format("invalid UTF-8 at {}", loc_str(here())),
       fmt::format("byte 0x{:02X} does not start a valid UTF-8 sequence; the program must be "
                   "UTF-8 text",
                   static_cast<unsigned char>(src_[bad])));
}

FormList Reader::read_all() {
  check_utf8();
  // One copy of the whole source in the arena, where the forms live: the
  // text of a symbol, keyword or regex is then a view of it, not a copy per
  // token.
  src_ = save(src_);
  frames_->push_back(Frame{FormKind::Nil, 0, {}, 0, 0, 0, {}});
  for (;;) {
    skip_ws();
    if (at_end()) break;
    unsigned char c = peek();
    switch (c) {
      case '(':
        open(FormKind::List, ')', 1);
        break;
      case '[':
        open(FormKind::Vector, ']', 1);
        break;
      case '{':
        open(FormKind::Map, '}', 1);
        break;
      case ')':
      case ']':
      case '}':
        close(c);
        break;
      case '#':
        read_dispatch();
        break;
      default:
        emit(read_atom());
        break;
    }
  }
  finish();
  size_t n = items_->size();
  auto** forms = arena_.alloc_array<const Form*>(n);
  std::copy(items_->begin(), items_->end(), forms);
  return FormList(forms, n);
}

void Reader::open(FormKind kind, char closer, size_t prefix_len) {
  SourceLoc loc = here();
  if (frames_->size() - 1 >= options_.max_nesting_depth)
    fail(loc, fmt::format("nesting deeper than {} levels", options_.max_nesting_depth),
         "flatten the data, or split the expression with let bindings or helper functions");
  if (kind == FormKind::FnLiteral) {
    if (fn_depth_ > 0)
      fail(loc, "nested #() are not allowed; use (fn [x] ...) for the inner function",
           "write the inner function as (fn [x] ...)");
    ++fn_depth_;
  }
  frames_->push_back(Frame{kind, closer, loc, items_->size(), pos_, 0, {}});
  advance_to(pos_ + prefix_len);
}

void Reader::close(unsigned char c) {
  SourceLoc loc = here();
  if (frames_->size() == 1)
    fail(loc, fmt::format("unexpected {} with nothing open", static_cast<char>(c)),
         fmt::format("remove the extra {}", static_cast<char>(c)));
  const Frame& frame = frames_->back();
  if (c != static_cast<unsigned char>(frame.closer))
    fail(loc,
         fmt::format("expected {} to close {} at {}, found {}", frame.closer,
                     opener_text(frame.kind), loc_str(frame.loc), static_cast<char>(c)),
         fmt::format("close {} with {}, or remove the extra {}", opener_text(frame.kind),
                     frame.closer, static_cast<char>(c)));
  if (frame.discards > 0)
    fail(frame.discard_loc,
         fmt::format("#_ has no form to discard before {}", static_cast<char>(c)),
         "put a form after #_ or remove the #_");
  advance();
  size_t n = items_->size() - frame.start;
  if (frame.kind == FormKind::Map && n % 2 != 0)
    fail(frame.loc, fmt::format("map literal needs an even number of forms, got {}", n),
         "every key in a map needs a value");
  Form* form = new_form(frame.kind, frame.loc);
  form->end = here();
  form->text =
      std::string_view(src_.data() + frame.src_start, pos_ - frame.src_start);  // the arena's copy
  form->count = static_cast<uint32_t>(n);
  if (n > 0) {
    auto** items = arena_.alloc_array<const Form*>(n);
    const Form* const* from = items_->data() + frame.start;
    bool holds_def = false;
    for (size_t i = 0; i < n; ++i) {
      items[i] = from[i];
      holds_def |= from[i]->holds_def;
    }
    form->items = items;
    form->holds_def = holds_def || is_def_list(*form);
  }
  items_->resize(frame.start);
  if (frame.kind == FormKind::FnLiteral) --fn_depth_;
  frames_->pop_back();
  emit(form);
}

void Reader::finish() {
  if (frames_->size() > 1) {
    const Frame& frame = frames_->back();
    fail_at_end(
        frame.loc,
        fmt::format("unclosed {} opened at {}", opener_text(frame.kind), loc_str(frame.loc)),
        fmt::format("add the missing {}", frame.closer));
  }
  if (frames_->back().discards > 0)
    fail_at_end(frames_->back().discard_loc, "#_ has no form to discard before the end of input",
                "put a form after #_ or remove the #_");
}

void Reader::read_dispatch() {
  SourceLoc loc = here();
  unsigned char next = peek(1);
  switch (next) {
    case '{':
      open(FormKind::Set, '}', 2);
      return;
    case '(':
      open(FormKind::FnLiteral, ')', 2);
      return;
    case '"':
      emit(read_regex());
      return;
    case '\'':
      advance_to(pos_ + 2);
      emit(read_quoted(FormKind::VarQuote, loc, "#'"));
      return;
    case '_': {
      Frame& frame = frames_->back();
      if (frame.discards == 0) frame.discard_loc = loc;
      ++frame.discards;
      advance_to(pos_ + 2);
      return;
    }
    case '#':
      emit(read_symbolic_value());
      return;
    default:
      break;
  }
  if (!has(1)) fail_at_end(loc, "# at the end of input", "remove the stray #");
  std::string name;
  if (next <= 0x20 || next >= 0x7F || is_terminator(next)) {
    name = fmt::format("# followed by {}", describe_cp(cp_at(src_, pos_ + 1)));
  } else {
    size_t end = scan_token(pos_ + 1);
    name = fmt::format("#{}", shorten(src_.substr(pos_ + 1, end - pos_ - 1)));
  }
  std::string hint;
  if (next == '?')
    hint = "reader conditionals are not supported";
  else if (next == '=')
    hint = "read-time evaluation is not supported";
  else if (is_alpha(next))
    hint = "tagged literals are not supported; write the value as a string";
  else
    hint =
        "the supported # forms are #{...} sets, #(...) functions, #\"...\" regexes, #'var, "
        "#_ (discard) and ##Inf ##-Inf ##NaN";
  fail(loc, fmt::format("unsupported reader syntax {}", name), hint);
}

inline const Form* Reader::read_atom() {
  SourceLoc loc = here();
  unsigned char c = peek();
  switch (c) {
    case '"':
      return read_string();
    case '\\':
      return read_char();
    case ':':
      return read_keyword();
    case '\'':
      advance();
      return read_quoted(FormKind::Quote, loc, "'");
    case '@':
      fail(loc, "deref (@) is not supported",
           "there are no atoms or refs; accumulate values with let, reduce or loop");
    case '^':
      fail(loc, "metadata is not supported", "remove the ^ annotation");
    case '`':
      fail(loc, "syntax quote (`) is not supported", "only quoted symbols like 'x are supported");
    case '~':
      fail(loc, "unquote (~) is not supported", "only quoted symbols like 'x are supported");
    default:
      break;
  }
  if (c < 0x20 || c == 0x7F)
    fail(loc, fmt::format("unexpected control character {}", describe_cp(c)),
         "remove the character; write it as an escape inside a string");
  if (c >= 0x80) {
    int32_t cp = cp_at(src_, pos_);
    if (is_unicode_space(cp))
      fail(loc, fmt::format("unexpected non-ASCII whitespace {}", describe_cp(cp)),
           "replace it with a plain space");
  }
  return read_token_form();
}

const Form* Reader::read_token_form() {
  SourceLoc loc = here();
  size_t start = pos_;
  // One pass finds the token's end and what its characters are: `every`
  // keeps the classes all of them share, `any` those one of them has. Bytes
  // of 0x80 and up have no class, so `every & kSymbolRest` also says the
  // token is ASCII, one column per byte.
  const auto* bytes = reinterpret_cast<const unsigned char*>(src_.data());
  size_t end = start;
  uint8_t every = 0xFF, any = 0;
  for (; end < src_.size(); ++end) {
    uint8_t cls = kCharClasses[bytes[end]];
    if (cls & kTerminator) break;
    every &= cls;
    any |= cls;
  }
  std::string_view tok(src_.data() + start, end - start);  // end <= size: no substr check
  if (every & kSymbolRest) {
    col_ += static_cast<uint32_t>(end - start);
    pos_ = end;
  } else {
    advance_in_line(end);
  }
  SourceLoc end_loc = here();

  unsigned char c0 = bytes[start];
  if (is_digit(c0) || ((c0 == '-' || c0 == '+') && tok.size() > 1 &&
                       is_digit(static_cast<unsigned char>(tok[1])))) {
    if (const Form* f = read_small_int(tok, loc, end_loc)) return f;
    return read_number(tok, loc, end_loc);
  }

  if (tok == "nil" || tok == "true" || tok == "false") {
    Form* f = new_form(tok == "nil" ? FormKind::Nil : FormKind::Bool, loc);
    f->b = tok == "true";
    f->end = end_loc;
    return f;
  }

  // Symbols made of symbol characters, unqualified and not like .5, pass
  // without the full check (which names the first bad character).
  size_t sign = (c0 == '-' || c0 == '+') ? 1 : 0;
  bool plain = (every & kSymbolRest) && (kCharClasses[c0] & kSymbolStart) && !(any & kSlash) &&
               (tok.size() <= sign || tok[sign] != '.');
  if (!plain) check_symbol(tok, loc, start);
  Form* f = new_form(FormKind::Symbol, loc);
  f->text = tok;  // src_ is the arena's copy
  f->end = end_loc;
  return f;
}

void Reader::check_symbol(std::string_view tok, SourceLoc loc, size_t start) {
  for (size_t i = 0; i < tok.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(tok[i]);
    if (c >= 0x80) {
      fail(loc_in_token(loc, start, start + i),
           fmt::format("invalid character {} in symbol {}", describe_cp(cp_at(tok, i)),
                       shorten(tok)),
           kSymbolCharsHint);
    }
    if (!(kCharClasses[c] & (i == 0 ? kSymbolStart : kSymbolRest)))
      fail(loc_in_token(loc, start, start + i),
           fmt::format("invalid character {} in symbol {}", describe_cp(c), shorten(tok)),
           kSymbolCharsHint);
  }
  // .5, -.5: a number missing its leading digit.
  size_t d = (tok[0] == '-' || tok[0] == '+') ? 1 : 0;
  if (tok.size() > d + 1 && tok[d] == '.' && is_digit(static_cast<unsigned char>(tok[d + 1])))
    fail(loc, fmt::format("invalid number {}", shorten(tok)),
         "write a digit before the decimal point, e.g. 0.5");
  if (tok != "/") {
    size_t slash = tok.find('/');
    if (slash != std::string_view::npos) {
      std::string_view ns = tok.substr(0, slash);
      std::string_view name = tok.substr(slash + 1);
      if (ns.empty() || name.empty() || (name != "/" && name.find('/') != std::string_view::npos))
        fail(loc, fmt::format("invalid symbol {}", shorten(tok)),
             "a qualified symbol is namespace/name, like tool/search or clojure.string/join");
    }
  }
}

// Most numbers in a program are short plain integers: read them at once, in
// the read loop (up to 18 digits cannot overflow int64; no leading zero, no
// suffix, within the digit limit); anything else is read_number's.
const Form* Reader::read_small_int(std::string_view tok, SourceLoc loc, SourceLoc end) {
  const size_t n = tok.size();
  if (n > 18 || (n > 1 && tok[0] == '0')) return nullptr;
  bool minus = tok[0] == '-';
  size_t k = minus || tok[0] == '+' ? 1 : 0;
  if (k >= n || n - k > options_.max_integer_digits || (n - k > 1 && tok[k] == '0')) return nullptr;
  int64_t v = 0;
  for (size_t d = k; d < n; ++d) {
    auto c = static_cast<unsigned char>(tok[d]);
    if (!is_digit(c)) return nullptr;
    v = v * 10 + (c - '0');
  }
  Form* f = new_form(FormKind::Int, loc);
  f->i = minus ? -v : v;
  f->end = end;
  return f;
}

const Form* Reader::read_number(std::string_view tok, SourceLoc loc, SourceLoc end) {
  const size_t n = tok.size();
  size_t i = 0;
  bool neg = false;
  if (tok[0] == '-' || tok[0] == '+') {
    neg = tok[0] == '-';
    i = 1;
  }
  const size_t int_start = i;
  while (i < n && is_digit(static_cast<unsigned char>(tok[i])))
    ++i;
  const size_t int_end = i;
  std::string_view digits = tok.substr(int_start, int_end - int_start);

  if (i < n) {
    char c = tok[i];
    if ((c == 'x' || c == 'X') && digits == "0") {
      std::string_view hex = tok.substr(i + 1);
      bool all_hex = !hex.empty() && hex.size() <= 15;
      uint64_t v = 0;
      for (char h : hex) {
        int hv = hex_value(static_cast<unsigned char>(h));
        if (hv < 0) all_hex = false;
        v = v * 16 + static_cast<uint64_t>(hv < 0 ? 0 : hv);
      }
      fail(loc, fmt::format("hex literal {} is not supported", shorten(tok)),
           all_hex ? fmt::format("hex literals are unsupported; write {}{} in decimal",
                                 neg ? "-" : "", v)
                   : std::string("hex literals are unsupported; write the number in decimal"));
    }
    if (c == '/') {
      std::string_view den = tok.substr(i + 1);
      bool digits_only = !den.empty();
      for (char d : den)
        if (!is_digit(static_cast<unsigned char>(d))) digits_only = false;
      fail(loc, fmt::format("ratio literal {} is not supported", shorten(tok)),
           digits_only
               ? fmt::format("ratios are not supported; use (/ {} {}) which returns a float",
                             shorten(tok.substr(0, i)), shorten(den))
               : std::string("ratios are not supported; use (/ a b) which returns a float"));
    }
    if (c == 'r' || c == 'R')
      fail(loc, fmt::format("invalid number {}", shorten(tok)),
           "radix literals are not supported; write the number in decimal");
  }

  bool is_float = false;
  if (i < n && tok[i] == '.') {
    is_float = true;
    ++i;
    size_t frac = i;
    while (i < n && is_digit(static_cast<unsigned char>(tok[i])))
      ++i;
    if (i == frac)
      fail(loc,
           fmt::format("invalid number {}: a digit must follow the decimal point", shorten(tok)),
           fmt::format("write {}0 or {}", shorten(tok.substr(0, frac)),
                       shorten(tok.substr(0, frac - 1))));
  }
  if (i < n && (tok[i] == 'e' || tok[i] == 'E')) {
    is_float = true;
    ++i;
    if (i < n && (tok[i] == '+' || tok[i] == '-')) ++i;
    size_t exp = i;
    while (i < n && is_digit(static_cast<unsigned char>(tok[i])))
      ++i;
    if (i == exp)
      fail(loc, fmt::format("invalid number {}: the exponent needs digits", shorten(tok)),
           "write an exponent like 1e5 or 2.5e-3");
  }
  const size_t num_end = i;
  if (i < n && tok[i] == 'N' && !is_float && i + 1 == n) ++i;  // 12N: Clojure bigint literal
  if (i < n && tok[i] == 'M' && i + 1 == n)
    fail(loc, fmt::format("BigDecimal literal {} is not supported", shorten(tok)),
         fmt::format("write {} without the M suffix", shorten(tok.substr(0, i))));
  if (i != n)
    fail(loc, fmt::format("invalid number {}", shorten(tok)),
         "a number cannot run into letters or other characters; separate them with a space, and "
         "start symbols with a letter");

  if (is_float) {
    std::string_view text = tok.substr(neg ? 0 : int_start, num_end - (neg ? 0 : int_start));
    double d = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    if (ec == std::errc::result_out_of_range) {
      // Overflow reads as infinity and underflow as zero, as in Clojure.
      size_t e = text.find_first_of("eE");
      bool tiny = e != std::string_view::npos && e + 1 < text.size() && text[e + 1] == '-';
      d = tiny ? 0.0 : std::numeric_limits<double>::infinity();
      if (neg) d = -d;
    } else if (ec != std::errc() || ptr != text.data() + text.size()) {
      fail(loc, fmt::format("invalid number {}", shorten(tok)));
    }
    Form* f = new_form(FormKind::Float, loc);
    f->d = d;
    f->end = end;
    return f;
  }

  if (digits.size() > options_.max_integer_digits)
    fail(loc, fmt::format("integer literal exceeds {} digit limit", options_.max_integer_digits),
         "write such a number as a string, or as a float like 1e150");
  if (digits.size() > 1 && digits[0] == '0') {
    size_t nz = digits.find_first_not_of('0');
    std::string_view stripped = nz == std::string_view::npos ? "0" : digits.substr(nz);
    fail(loc, fmt::format("integer literal {} has a leading zero", shorten(tok)),
         fmt::format("octal literals are not supported; write {}{} without leading zeros",
                     neg ? "-" : "", stripped));
  }
  std::string text;
  if (neg) text += '-';
  text += digits;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && ptr == text.data() + text.size()) {
    Form* f = new_form(FormKind::Int, loc);
    f->i = v;
    f->end = end;
    return f;
  }
  Form* f = new_form(FormKind::BigInt, loc);
  f->text = save(text);
  f->end = end;
  return f;
}

const Form* Reader::read_string() {
  const SourceLoc loc = here();
  advance();  // "
  buf_.clear();
  auto unterminated = [&]() {
    fail_at_end(loc, fmt::format("unterminated string starting at {}", loc_str(loc)),
                "add the closing \"");
  };
  for (;;) {
    if (at_end()) unterminated();
    unsigned char c = peek();
    if (c == '"') {
      advance();
      break;
    }
    if (c != '\\') {
      size_t start = pos_;
      while (pos_ < src_.size() && src_[pos_] != '"' && src_[pos_] != '\\')
        advance();
      buf_.append(src_.substr(start, pos_ - start));
      continue;
    }
    const SourceLoc esc = here();
    if (!has(1)) unterminated();
    unsigned char e = peek(1);
    char plain = 0;
    switch (e) {
      case '\\':
        plain = '\\';
        break;
      case '"':
        plain = '"';
        break;
      case 'n':
        plain = '\n';
        break;
      case 't':
        plain = '\t';
        break;
      case 'r':
        plain = '\r';
        break;
      case 'b':
        plain = '\b';
        break;
      case 'f':
        plain = '\f';
        break;
      case 'u':
        break;
      default: {
        int32_t cp = cp_at(src_, pos_ + 1);
        std::string shown =
            (e >= 0x21 && e < 0x7F) ? std::string(1, static_cast<char>(e)) : describe_cp(cp);
        std::string hint;
        if (e >= 0x21 && e < 0x7F &&
            (is_digit(e) || std::strchr("dDsSwWBAzZQEpPkK.()[]{}*+?|^$/-", e)))
          hint = fmt::format(
              "supported escapes are \\\\ \\\" \\n \\t \\r \\b \\f \\uXXXX; to put a backslash in "
              "a string write \\\\ (\"\\\\{0}\"); regex literals #\"\\{0}\" need no doubling",
              shown);
        else if (e >= 0x21 && e < 0x7F)
          hint = fmt::format(
              "supported escapes are \\\\ \\\" \\n \\t \\r \\b \\f \\uXXXX; to put a backslash in "
              "a string write \\\\ (\"\\\\{}\")",
              shown);
        else
          hint = "supported escapes are \\\\ \\\" \\n \\t \\r \\b \\f \\uXXXX";
        fail(esc, fmt::format("unsupported escape \\{} in string", shown), hint);
      }
    }
    if (plain != 0) {
      buf_ += plain;
      advance_to(pos_ + 2);
      continue;
    }
    // \uXXXX, possibly a surrogate pair \uD83D\uDE00.
    uint32_t cp = 0;
    if (!parse_hex4(src_, pos_ + 2, &cp))
      fail(esc, "\\u must be followed by 4 hex digits", "write a code point like \\u00e9");
    advance_to(pos_ + 6);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t low = 0;
      if (peek() == '\\' && peek(1) == 'u' && parse_hex4(src_, pos_ + 2, &low) && low >= 0xDC00 &&
          low <= 0xDFFF) {
        advance_to(pos_ + 6);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      } else {
        fail(esc, fmt::format("lone surrogate \\u{:04X} in string", cp),
             "a high surrogate \\uD800-\\uDBFF must be followed by a low surrogate "
             "\\uDC00-\\uDFFF; or write the character itself");
      }
    } else if (is_surrogate(cp)) {
      fail(esc, fmt::format("lone surrogate \\u{:04X} in string", cp),
           "a low surrogate \\uDC00-\\uDFFF must follow a high surrogate \\uD800-\\uDBFF; or "
           "write the character itself");
    }
    append_utf8(buf_, static_cast<int32_t>(cp));
  }
  Form* f = new_form(FormKind::String, loc);
  f->text = save(buf_);
  f->end = here();
  return f;
}

const Form* Reader::read_char() {
  const SourceLoc loc = here();
  const size_t start = pos_ + 1;
  if (start >= src_.size())
    fail_at_end(loc, "\\ at the end of input is not a character literal",
                "write a character like \\a, or a string \"...\"");
  unsigned char first = static_cast<unsigned char>(src_[start]);
  if (first == ' ' || first == '\t' || first == '\n' || first == '\r')
    fail(loc, "\\ must be followed by a character",
         "write \\space, \\tab, \\newline or \\return for whitespace characters");
  // The first character always belongs to the literal (\( is a paren); the
  // literal then runs to the next terminator, as in Clojure.
  int32_t first_cp = 0;
  const size_t first_len = first < 0x80 ? 1 : decode_utf8(src_, start, &first_cp);
  const size_t end = scan_token(start + first_len);
  std::string_view tok = src_.substr(start, end - start);
  advance_to(end);

  Form* f = new_form(FormKind::String, loc);
  f->from_char = true;
  f->end = here();
  if (grapheme_length(tok, 0) == tok.size()) {
    f->text = tok;
    return f;
  }
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"newline", "\n"}, {"space", " "},      {"tab", "\t"},
      {"return", "\r"},  {"backspace", "\b"}, {"formfeed", "\f"},
  };
  for (const auto& [name, value] : kNames) {
    if (tok == name) {
      f->text = save(value);
      return f;
    }
  }
  uint32_t cp = 0;
  if (tok.size() == 5 && tok[0] == 'u' && parse_hex4(tok, 1, &cp)) {
    if (is_surrogate(cp))
      fail(loc, fmt::format("character literal \\{} is a lone surrogate", shorten(tok)),
           "surrogates are not characters; write the character itself");
    std::string out;
    append_utf8(out, static_cast<int32_t>(cp));
    f->text = save(out);
    return f;
  }
  std::string hint;
  for (const auto& [name, value] : kNames)
    if (tok.starts_with(name)) hint = fmt::format("\\{} must be followed by a delimiter", name);
  if (hint.empty() && tok[0] == 'u' && tok.size() > 1 &&
      hex_value(static_cast<unsigned char>(tok[1])) >= 0)
    hint = "a unicode character literal is \\u followed by exactly 4 hex digits, like \\u00e9";
  if (hint.empty())
    hint =
        "a character literal is one character (\\a), a name (\\newline \\space \\tab \\return "
        "\\backspace \\formfeed) or \\uXXXX; write text as a string \"...\"";
  fail(loc, fmt::format("unknown character literal \\{}", shorten(tok)), hint);
}

const Form* Reader::read_keyword() {
  const SourceLoc loc = here();
  advance();  // :
  const size_t start = pos_;
  const size_t end = scan_token(start);
  std::string_view name = src_.substr(start, end - start);
  if (name.empty()) fail(loc, "a keyword needs a name after :", "write a keyword like :name");
  if (name[0] == ':')
    fail(loc, fmt::format("auto-resolved keywords (:{}) are not supported", shorten(name)),
         fmt::format("write :{}", shorten(name.substr(1))));
  size_t slash = name.find('/');
  if (slash != std::string_view::npos) {
    std::string_view local = name.substr(slash + 1);
    fail(loc, "namespaced keywords are not supported (DIV-13)",
         local.empty() || local.find('/') != std::string_view::npos
             ? std::string("write a plain keyword like :name")
             : fmt::format("write :{} or :{}-{} instead of :{}", shorten(local),
                           shorten(name.substr(0, slash)), shorten(local), shorten(name)));
  }
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (!(kCharClasses[c] & kKeywordChar))
      fail(loc_in_token(here(), start, start + i),
           fmt::format("invalid character {} in keyword :{}", describe_cp(cp_at(name, i)),
                       shorten(name)),
           kKeywordCharsHint);
  }
  advance_in_line(end);
  Form* f = new_form(FormKind::Keyword, loc);
  f->text = name;
  f->end = here();
  return f;
}

const Form* Reader::read_regex() {
  const SourceLoc loc = here();
  advance_to(pos_ + 2);  // #"
  const size_t start = pos_;
  auto unterminated = [&]() {
    fail_at_end(loc, fmt::format("unterminated regex starting at {}", loc_str(loc)),
                "add the closing \"");
  };
  for (;;) {
    if (at_end()) unterminated();
    unsigned char c = peek();
    if (c == '"') break;
    if (c == '\\') {
      advance();
      if (at_end()) unterminated();
    }
    advance();
  }
  Form* f = new_form(FormKind::Regex, loc);
  f->text = src_.substr(start, pos_ - start);
  advance();  // "
  f->end = here();
  return f;
}

const Form* Reader::read_symbolic_value() {
  const SourceLoc loc = here();
  advance_to(pos_ + 2);  // ##
  const size_t end = scan_token(pos_);
  std::string_view name = src_.substr(pos_, end - pos_);
  double d = 0;
  if (name == "Inf")
    d = std::numeric_limits<double>::infinity();
  else if (name == "-Inf")
    d = -std::numeric_limits<double>::infinity();
  else if (name == "NaN")
    d = std::numeric_limits<double>::quiet_NaN();
  else
    fail(loc, fmt::format("unknown symbolic value ##{}", shorten(name)),
         "write ##Inf, ##-Inf or ##NaN");
  advance_to(end);
  Form* f = new_form(FormKind::Float, loc);
  f->d = d;
  f->end = here();
  return f;
}

// After ' or #': only a symbol may follow (whitespace and comments allowed).
const Form* Reader::read_quoted(FormKind kind, SourceLoc loc, const char* prefix) {
  skip_ws();
  if (at_end())
    fail_at_end(loc, fmt::format("{} at the end of input needs a symbol", prefix),
                fmt::format("write {}name", prefix));
  unsigned char c = peek();
  if (c == '(' || c == '[' || c == '{' || (c == '#' && (peek(1) == '{' || peek(1) == '(')))
    fail(loc, "quoted collections are not supported; only quoted symbols like 'x",
         "write the collection without the quote, e.g. [1 2 3] or (list 1 2 3)");
  if (!is_terminator(c) && c != '\'' && c != ':' && c != '#' && c >= 0x20 && c != 0x7F) {
    const SourceLoc tok_loc = here();
    const size_t start = pos_;
    const size_t end = scan_token(start);
    std::string_view tok = src_.substr(start, end - start);
    bool number = is_digit(c) || ((c == '-' || c == '+') && tok.size() > 1 &&
                                  is_digit(static_cast<unsigned char>(tok[1])));
    if (!number && tok != "nil" && tok != "true" && tok != "false") {
      check_symbol(tok, tok_loc, start);
      advance_to(end);
      Form* f = new_form(kind, loc);
      f->text = tok;
      f->end = here();
      return f;
    }
  }
  fail(loc, fmt::format("only symbols can be quoted with {}", prefix),
       kind == FormKind::Quote ? "write 'name; literals like 1, :k, \"s\" and nil need no quote"
                               : "write #'name");
}

}  // namespace

FormList read_program(Arena& arena, std::string_view source, const ReaderOptions& options) {
  Reader reader(arena, source, options);
  return reader.read_all();
}

InputStatus input_status(std::string_view source, const ReaderOptions& options) {
  // The forms are thrown away; the cap only keeps a huge paste from taking
  // more memory than its run would be allowed.
  Arena arena(size_t{256} << 20);
  try {
    return read_program(arena, source, options).empty() ? InputStatus::Blank
                                                        : InputStatus::Complete;
  } catch (EndOfInputError&) {
    return InputStatus::Incomplete;
  } catch (LispError&) {
    return InputStatus::Complete;
  }
}

const Form* read_one(Arena& arena, std::string_view source, const ReaderOptions& options) {
  FormList forms = read_program(arena, source, options);
  if (forms.empty()) fail(SourceLoc{1, 1}, "expected a form, found nothing", "write an expression");
  if (forms.size() > 1)
    fail(forms[1]->loc, "expected exactly one form, found more",
         "wrap several expressions in (do ...)");
  return forms[0];
}

}  // namespace ptc
