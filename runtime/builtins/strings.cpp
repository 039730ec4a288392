// String builtins (spec §8.3, clojure.string): str, pr-str, name, keyword,
// subs, split, split-lines, join, the trims, blank?, replace, replace-first,
// the case conversions and the search helpers.
//
// Indexes count graphemes (DIV-36). Splitting and regex replacement follow
// java.util.regex, as Clojure does: the matcher resumes where the last match
// ended (one character further after an empty match), split drops trailing
// empty fields unless given a limit, and "$1" in a replacement string inserts
// a group. Single-character string delimiters and matches work like the char
// they stand for (GAP-S116); a longer plain-string split delimiter is an error
// (DIV-50). Whitespace is Java's Character.isWhitespace (GAP-S50), and case
// conversion is Unicode-aware, including the one-to-many mappings (ß -> SS).
#include <fmt/format.h>
#include <re2/re2.h>
#include <utf8proc.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "runtime/bignum.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

// ---------------------------------------------------------------------------
// Shared helpers

// Work proportional to `bytes` of text.
void charge(Ctx& ctx, size_t bytes) {
  ctx.tick(1 + static_cast<int64_t>(bytes / 64));
}

// A result string built outside the arena; refuses to grow past what the
// arena could still hold, so a runaway result ends in memory_limit early.
class TextBuilder {
 public:
  explicit TextBuilder(Ctx& ctx) : ctx_(ctx) {}
  void append(std::string_view s) {
    ctx_.arena.reserve_check(out_.size() + s.size());  // before growing, not after
    out_.append(s);
  }
  // `str` of v: capped by the arena too, since a shared-structure value can
  // print far larger than it is; charges the time per byte written.
  void append_value(Value v) {
    size_t before = out_.size();
    size_t room = ctx_.arena.remaining();  // printing allocates nothing in the arena
    str_append(out_, v, before + std::max<size_t>(room, 1));
    charge(ctx_, out_.size() - before);
    if (out_.size() > room) ctx_.arena.reserve_check(out_.size());
  }
  const std::string& text() const { return out_; }
  Value finish() { return ctx_.string(out_); }

 private:
  void check() { ctx_.arena.reserve_check(out_.size()); }
  Ctx& ctx_;
  std::string out_;
};

// One piece of a string as a value: ASCII characters come from the shared table.
Value piece(Ctx& ctx, std::string_view s) {
  if (s.size() == 1) return char_string(ctx, s);
  return ctx.string(s);
}

Value empty_string(Ctx& ctx) {
  return ctx.string({});
}

// The receiver of a clojure.string helper that Clojure converts with
// toString: strings, and numbers written out as str does (GAP-S139).
const StrObj* text_receiver(Ctx& ctx, std::string_view fname, Value v, int pos) {
  if (v.is_string()) return v.str();
  if (v.is_number()) {
    std::string s;
    str_append(s, v);
    return ctx.string(s).str();
  }
  type_error(fname, "a string", v, pos);
}

// Index arguments become Java ints in Clojure: finite floats truncate toward
// zero (GAP-S79, GAP-S124). Huge values are clamped; they are out of range anyway.
int64_t index_arg(std::string_view fname, Value v, int pos) {
  constexpr int64_t kFar = int64_t{1} << 62;
  if (v.is_int()) return v.as_int();
  if (v.is_float() && std::isfinite(v.as_float()))
    return double_to_int64_clamped(v.as_float(), -kFar, kFar);
  if (v.is(Type::BigInt)) return bigint_sign(v.big()) < 0 ? -kFar : kFar;
  type_error(fname, "an integer index", v, pos);
}

// Grapheme index <-> byte offset.
size_t byte_at(const StrObj* s, size_t index) {
  if (is_ascii(s)) return std::min<size_t>(index, s->len);
  return grapheme_offset(s->view(), index);
}
int64_t index_at(const StrObj* s, size_t byte) {
  if (is_ascii(s)) return static_cast<int64_t>(byte);
  return static_cast<int64_t>(grapheme_count(s->view().substr(0, byte)));
}

// Start of the code point that ends at byte `end` (valid UTF-8).
size_t prev_code_point(std::string_view s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
    --i;
  return i;
}

// java.lang.Character.isWhitespace: ASCII controls \t..\r and \x1c..\x1f, and
// the Unicode space/line/paragraph separators except the no-break ones.
bool java_whitespace(int32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c == 0xA0 || c == 0x2007 || c == 0x202F) return false;
  auto cat = utf8proc_category(c);
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

size_t skip_space_left(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    int32_t c;
    size_t n = decode_utf8(s, i, &c);
    if (n == 0 || !java_whitespace(c)) break;
    i += n;
  }
  return i;
}

size_t skip_space_right(std::string_view s, size_t floor) {
  size_t end = s.size();
  while (end > floor) {
    size_t start = prev_code_point(s, end);
    int32_t c;
    if (decode_utf8(s, start, &c) == 0 || !java_whitespace(c)) break;
    end = start;
  }
  return end;
}

// ---------------------------------------------------------------------------
// Case conversion (Java's String.toUpperCase / toLowerCase in the root locale)

// Unconditional one-to-many upper-case mappings (Unicode SpecialCasing.txt)
// that the per-code-point mapping cannot express.
struct SpecialUpper {
  int32_t cp;
  int32_t out[3];
};
constexpr SpecialUpper kSpecialUpper[] = {
    {0x00DF, {0x0053, 0x0053, 0}},      {0x0149, {0x02BC, 0x004E, 0}},
    {0x01F0, {0x004A, 0x030C, 0}},      {0x0390, {0x0399, 0x0308, 0x0301}},
    {0x03B0, {0x03A5, 0x0308, 0x0301}}, {0x0587, {0x0535, 0x0552, 0}},
    {0x1E96, {0x0048, 0x0331, 0}},      {0x1E97, {0x0054, 0x0308, 0}},
    {0x1E98, {0x0057, 0x030A, 0}},      {0x1E99, {0x0059, 0x030A, 0}},
    {0x1E9A, {0x0041, 0x02BE, 0}},      {0xFB00, {0x0046, 0x0046, 0}},
    {0xFB01, {0x0046, 0x0049, 0}},      {0xFB02, {0x0046, 0x004C, 0}},
    {0xFB03, {0x0046, 0x0046, 0x0049}}, {0xFB04, {0x0046, 0x0046, 0x004C}},
    {0xFB05, {0x0053, 0x0054, 0}},      {0xFB06, {0x0053, 0x0054, 0}},
    {0xFB13, {0x0544, 0x0546, 0}},      {0xFB14, {0x0544, 0x0535, 0}},
    {0xFB15, {0x0544, 0x053B, 0}},      {0xFB16, {0x054E, 0x0546, 0}},
    {0xFB17, {0x0544, 0x053D, 0}},
};

bool ascii_only(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

void append_upper(std::string& out, std::string_view s) {
  if (ascii_only(s)) {
    for (char c : s)
      out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c);
    return;
  }
  for (size_t i = 0; i < s.size();) {
    int32_t c;
    size_t n = decode_utf8(s, i, &c);
    if (n == 0) {  // not reachable for valid strings; keep the byte
      out.push_back(s[i++]);
      continue;
    }
    i += n;
    const SpecialUpper* special = nullptr;
    if (c == 0xDF || c == 0x149 || c == 0x1F0 || c == 0x390 || c == 0x3B0 || c == 0x587 ||
        (c >= 0x1E96 && c <= 0x1E9A) || (c >= 0xFB00 && c <= 0xFB17))
      for (const auto& sp : kSpecialUpper)
        if (sp.cp == c) special = &sp;
    if (special) {
      for (int32_t o : special->out)
        if (o) append_utf8(out, o);
    } else {
      append_utf8(out, utf8proc_toupper(c));
    }
  }
}

bool is_cased(int32_t c) {
  auto cat = utf8proc_category(c);
  return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL ||
         cat == UTF8PROC_CATEGORY_LT || utf8proc_tolower(c) != c || utf8proc_toupper(c) != c;
}

bool is_case_ignorable(int32_t c) {
  if (c == '\'' || c == '.' || c == ':' || c == 0xB7 || c == 0x2019) return true;
  auto cat = utf8proc_category(c);
  return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_ME ||
         cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_LM || cat == UTF8PROC_CATEGORY_SK;
}

// Greek capital sigma becomes final sigma at the end of a word.
bool final_sigma(std::string_view s, size_t start, size_t end) {
  bool cased_before = false;
  for (size_t i = start; i > 0;) {
    i = prev_code_point(s, i);
    int32_t c;
    if (decode_utf8(s, i, &c) == 0) break;
    if (is_case_ignorable(c)) continue;
    cased_before = is_cased(c);
    break;
  }
  if (!cased_before) return false;
  for (size_t i = end; i < s.size();) {
    int32_t c;
    size_t n = decode_utf8(s, i, &c);
    if (n == 0) break;
    i += n;
    if (is_case_ignorable(c)) continue;
    return !is_cased(c);
  }
  return true;
}

void append_lower(std::string& out, std::string_view s) {
  if (ascii_only(s)) {
    for (char c : s)
      out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    return;
  }
  for (size_t i = 0; i < s.size();) {
    int32_t c;
    size_t n = decode_utf8(s, i, &c);
    if (n == 0) {
      out.push_back(s[i++]);
      continue;
    }
    if (c == 0x130) {  // İ -> i + combining dot above
      append_utf8(out, 'i');
      append_utf8(out, 0x307);
    } else if (c == 0x3A3) {
      append_utf8(out, final_sigma(s, i, i + n) ? 0x3C2 : 0x3C3);
    } else {
      append_utf8(out, utf8proc_tolower(c));
    }
    i += n;
  }
}

// Case conversion builds its result natively; it is at least as long as the
// input (and at most three times, for one-to-many mappings), checked against
// the heap left before and after.
Value upper_case(Ctx& ctx, const Value* a, uint32_t) {
  const StrObj* s = text_receiver(ctx, "upper-case", a[0], 1);
  charge(ctx, s->len);
  ctx.arena.reserve_check(s->len);
  std::string out;
  out.reserve(s->len);
  append_upper(out, s->view());
  ctx.arena.reserve_check(out.size());
  if (out == s->view()) return Value::object(s);
  return ctx.string(out);
}

Value lower_case(Ctx& ctx, const Value* a, uint32_t) {
  const StrObj* s = text_receiver(ctx, "lower-case", a[0], 1);
  charge(ctx, s->len);
  ctx.arena.reserve_check(s->len);
  std::string out;
  out.reserve(s->len);
  append_lower(out, s->view());
  ctx.arena.reserve_check(out.size());
  if (out == s->view()) return Value::object(s);
  return ctx.string(out);
}

// ---------------------------------------------------------------------------
// str, pr-str, name, keyword

Value str(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 1 && a[0].is_string()) return a[0];
  TextBuilder out(ctx);
  for (uint32_t i = 0; i < n; ++i)
    out.append_value(a[i]);
  return out.finish();
}

Value pr_str(Ctx& ctx, const Value* a, uint32_t n) {
  return ctx.string(print_joined(ctx, a, n, true, false));
}

bool valid_keyword_name(std::string_view s) {
  if (s.empty()) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!letter(s[0])) return false;
  for (char c : s)
    if (!(letter(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '?' || c == '!'))
      return false;
  return true;
}

Value keyword(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  if (x.is_nil() || x.is_keyword()) return x;
  if (!x.is_string()) type_error("keyword", "a string", x, 1);
  std::string_view name = x.str()->view();
  if (!valid_keyword_name(name))
    throw_error(ErrorKind::TypeError, fmt::format("keyword: invalid keyword name \"{}\"", name),
                "a keyword name starts with a letter and holds only letters, digits, - _ ? ! "
                "(no / or spaces); use the string itself as a map key instead");
  return ctx.keyword(name);
}

Value name(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  if (x.is_string()) return x;
  if (x.is_keyword() || x.is(Type::Symbol)) return ctx.string(x.kw()->name());
  type_error("name", "a keyword or string", x, 1);
}

// ---------------------------------------------------------------------------
// subs

// Out-of-range indexes give "" or a shorter string instead of failing (DIV-22).
Value subs(Ctx& ctx, const Value* a, uint32_t n) {
  const StrObj* s = expect_string("subs", a[0], 1);
  int64_t start = index_arg("subs", a[1], 2);
  int64_t count = static_cast<int64_t>(grapheme_count(s));
  int64_t end = n == 3 ? index_arg("subs", a[2], 3) : count;
  if (end > count) end = count;
  if (start < 0 || start >= end) return empty_string(ctx);
  if (start == 0 && end == count) return a[0];
  charge(ctx, s->len);
  size_t from = byte_at(s, static_cast<size_t>(start));
  size_t to = byte_at(s, static_cast<size_t>(end));
  return piece(ctx, s->view().substr(from, to - from));
}

// ---------------------------------------------------------------------------
// Regex matching the way java.util.regex.Matcher.find walks a string

class RegexWalker {
 public:
  // Without `with_groups` only the match bounds are found, which RE2 does faster.
  RegexWalker(Ctx& ctx, Value regex, std::string_view text, bool with_groups)
      : ctx_(ctx),
        re_(*regex.as<RegexObj>()->re),
        text_(text),
        ngroups_(re_.NumberOfCapturingGroups()),
        groups_(with_groups ? static_cast<size_t>(ngroups_) + 1 : 1) {}

  // Finds the next match: the search resumes where the last match ended, one
  // character later when that match was empty.
  bool next() {
    size_t from = end_;
    if (matched_ && start_ == end_) {
      if (from >= text_.size()) return false;
      from += grapheme_length(text_, from);
    }
    // RE2 is linear, but one search may scan the rest of the text.
    ctx_.tick(1 + static_cast<int64_t>((text_.size() - from) / 64));
    if (!re_.Match(re2::StringPiece(text_.data(), text_.size()), from, text_.size(),
                   re2::RE2::UNANCHORED, groups_.data(), static_cast<int>(groups_.size())))
      return false;
    matched_ = true;
    start_ = static_cast<size_t>(groups_[0].data() - text_.data());
    end_ = start_ + groups_[0].size();
    return true;
  }

  size_t start() const { return start_; }
  size_t end() const { return end_; }
  int ngroups() const { return ngroups_; }
  const re2::RE2& re() const { return re_; }
  // nullptr data: the group did not take part in the match.
  const re2::StringPiece& group(int i) const { return groups_[static_cast<size_t>(i)]; }

  // What re-groups gives: the match, or [match group1 ...] with nil for
  // groups that did not take part.
  Value groups_value() {
    if (ngroups_ == 0) return piece(ctx_, std::string_view(group(0).data(), group(0).size()));
    VecBuilder b(ctx_.arena);
    for (int i = 0; i <= ngroups_; ++i) {
      const re2::StringPiece& g = group(i);
      b.push(g.data() ? piece(ctx_, std::string_view(g.data(), g.size())) : Value());
    }
    return Value::object(b.finish());
  }

 private:
  Ctx& ctx_;
  const re2::RE2& re_;
  std::string_view text_;
  int ngroups_;
  std::vector<re2::StringPiece> groups_;
  bool matched_ = false;
  size_t start_ = 0, end_ = 0;
};

// ---------------------------------------------------------------------------
// split, split-lines

struct Span {
  size_t start, end;
};

// java.util.regex.Pattern.split over successive delimiter matches produced by
// `find` (a callable returning std::optional<Span>): an empty match at the very
// start adds no leading field; a positive limit caps the number of fields, the
// last one holding the rest; limit 0 drops trailing empty fields; no match
// gives the whole input.
template <class Find>
Value java_split(Ctx& ctx, std::string_view s, int64_t limit, Find find) {
  std::vector<std::string_view> fields;
  size_t index = 0;
  bool limited = limit > 0;
  while (auto m = find()) {
    // Every field becomes a slot of the result: check the native list (and
    // that result) against the heap left as the list grows, so splitting a
    // large text into millions of pieces ends in memory_limit early.
    if (fields.size() == fields.capacity())
      reserve_scratch(ctx, 2 * fields.size() + 1, sizeof(std::string_view) + sizeof(Value));
    if (limited && static_cast<int64_t>(fields.size()) >= limit - 1) {
      fields.push_back(s.substr(index));
      index = m->end;
      break;
    }
    if (index == 0 && m->start == 0 && m->end == 0) continue;
    fields.push_back(s.substr(index, m->start - index));
    index = m->end;
  }
  if (index == 0) {
    fields.assign(1, s);
  } else {
    if (!limited || static_cast<int64_t>(fields.size()) < limit) fields.push_back(s.substr(index));
    if (limit == 0)
      while (!fields.empty() && fields.back().empty())
        fields.pop_back();
  }
  VecBuilder b(ctx.arena);
  for (std::string_view f : fields)
    b.push(piece(ctx, f));
  return Value::object(b.finish());
}

// Finds a literal delimiter (or, when empty, every position) left to right,
// stepping a grapheme past an empty match as the regex matcher does.
class LiteralFinder {
 public:
  LiteralFinder(Ctx& ctx, std::string_view text, std::string_view needle)
      : ctx_(ctx), text_(text), needle_(needle) {}
  std::optional<Span> operator()() {
    size_t from = end_;
    if (matched_ && needle_.empty()) {
      if (from >= text_.size()) return std::nullopt;
      from += grapheme_length(text_, from);
    }
    size_t at = text_.find(needle_, from);
    charge(ctx_, (at == std::string_view::npos ? text_.size() : at) - from);
    if (at == std::string_view::npos) return std::nullopt;
    matched_ = true;
    end_ = at + needle_.size();
    return Span{at, end_};
  }

 private:
  Ctx& ctx_;
  std::string_view text_, needle_;
  bool matched_ = false;
  size_t end_ = 0;
};

// A regex source with no special characters: it matches its own text only.
bool is_plain_literal(std::string_view pattern) {
  if (pattern.empty()) return false;
  for (char c : pattern)
    if (std::strchr("\\.^$|?*+()[]{}", c) || static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

Value split(Ctx& ctx, const Value* a, uint32_t n) {
  const StrObj* s = expect_string("split", a[0], 1);
  int64_t limit = n == 3 ? index_arg("split", a[2], 3) : 0;
  std::string_view text = s->view();
  Value delim = a[1];
  if (delim.is(Type::Regex) && is_plain_literal(delim.as<const RegexObj>()->source->view())) {
    // #" " or #", " matches exactly its own text: found without the regex
    // engine (whose every search takes a lock), with the same matches.
    LiteralFinder find(ctx, text, delim.as<const RegexObj>()->source->view());
    return java_split(ctx, text, limit, find);
  }
  if (delim.is(Type::Regex)) {
    RegexWalker w(ctx, delim, text, false);
    return java_split(ctx, text, limit, [&]() -> std::optional<Span> {
      if (!w.next()) return std::nullopt;
      return Span{w.start(), w.end()};
    });
  }
  if (delim.is_string()) {
    std::string_view d = delim.str()->view();
    if (!d.empty() && grapheme_length(d, 0) != d.size())
      throw_error(
          ErrorKind::TypeError,
          fmt::format("split: a plain-string delimiter must be one character, got \"{}\"", d),
          fmt::format("use a regex to split on several characters: (split s #\"{}\")", d));
    LiteralFinder find(ctx, text, d);
    return java_split(ctx, text, limit, find);
  }
  type_error("split", "a regex or a one-character string delimiter", delim, 2);
}

// Lines end at \n or \r\n; trailing empty lines are dropped; "" is [""].
Value split_lines(Ctx& ctx, const Value* a, uint32_t) {
  const StrObj* s = expect_string("split-lines", a[0], 1);
  std::string_view text = s->view();
  size_t from = 0;
  return java_split(ctx, text, 0, [&]() -> std::optional<Span> {
    size_t at = text.find('\n', from);
    charge(ctx, (at == std::string_view::npos ? text.size() : at) - from);
    if (at == std::string_view::npos) return std::nullopt;
    size_t start = at > from && text[at - 1] == '\r' ? at - 1 : at;
    from = at + 1;
    return Span{start, at + 1};
  });
}

// ---------------------------------------------------------------------------
// join

// Any seqable works (a string joins its characters, a map its [k v] entries)
// and nil is empty; the separator goes through str (GAP-S26).
Value join(Ctx& ctx, const Value* a, uint32_t n) {
  Value coll = n == 2 ? a[1] : a[0];
  TextBuilder sep(ctx);
  if (n == 2) sep.append_value(a[0]);
  TextBuilder out(ctx);
  bool first = true;
  for (SeqIter it(ctx, coll, "join", static_cast<int>(n)); !it.done(); it.next()) {
    if (!first) {
      out.append(sep.text());
      charge(ctx, sep.text().size());
    }
    first = false;
    out.append_value(it.value());
  }
  return out.finish();
}

// ---------------------------------------------------------------------------
// trim, triml, trimr, trim-newline, blank?

Value trimmed(Ctx& ctx, Value original, std::string_view s, size_t from, size_t to) {
  if (from == 0 && to == s.size()) return original;
  return piece(ctx, s.substr(from, to - from));
}

Value trim(Ctx& ctx, const Value* a, uint32_t) {
  std::string_view s = expect_string("trim", a[0], 1)->view();
  charge(ctx, s.size());
  size_t from = skip_space_left(s);
  return trimmed(ctx, a[0], s, from, skip_space_right(s, from));
}

Value triml(Ctx& ctx, const Value* a, uint32_t) {
  std::string_view s = expect_string("triml", a[0], 1)->view();
  charge(ctx, s.size());
  return trimmed(ctx, a[0], s, skip_space_left(s), s.size());
}

Value trimr(Ctx& ctx, const Value* a, uint32_t) {
  std::string_view s = expect_string("trimr", a[0], 1)->view();
  charge(ctx, s.size());
  return trimmed(ctx, a[0], s, 0, skip_space_right(s, 0));
}

Value trim_newline(Ctx& ctx, const Value* a, uint32_t) {
  std::string_view s = expect_string("trim-newline", a[0], 1)->view();
  size_t end = s.size();
  while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r'))
    --end;
  return trimmed(ctx, a[0], s, 0, end);
}

Value blank(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is_nil()) return Value::boolean(true);
  std::string_view s = expect_string("blank?", a[0], 1)->view();
  charge(ctx, s.size());
  return Value::boolean(skip_space_left(s) == s.size());
}

// ---------------------------------------------------------------------------
// starts-with?, ends-with?, includes?, index-of, last-index-of

std::string_view needle_arg(std::string_view fname, Value v, int pos) {
  return expect_string(fname, v, pos)->view();
}

Value starts_with(Ctx& ctx, const Value* a, uint32_t) {
  const StrObj* s = text_receiver(ctx, "starts-with?", a[0], 1);
  std::string_view p = needle_arg("starts-with?", a[1], 2);
  return Value::boolean(s->view().starts_with(p));
}

Value ends_with(Ctx& ctx, const Value* a, uint32_t) {
  const StrObj* s = text_receiver(ctx, "ends-with?", a[0], 1);
  std::string_view p = needle_arg("ends-with?", a[1], 2);
  return Value::boolean(s->view().ends_with(p));
}

Value includes(Ctx& ctx, const Value* a, uint32_t) {
  const StrObj* s = text_receiver(ctx, "includes?", a[0], 1);
  std::string_view p = needle_arg("includes?", a[1], 2);
  charge(ctx, s->len);
  return Value::boolean(s->view().find(p) != std::string_view::npos);
}

// Java's indexOf(str, from): a negative start is 0; past the end only the
// empty string is found (at the end). nil when absent.
Value index_of(Ctx& ctx, const Value* a, uint32_t n) {
  const StrObj* s = text_receiver(ctx, "index-of", a[0], 1);
  std::string_view v = needle_arg("index-of", a[1], 2);
  int64_t from = n == 3 ? std::max<int64_t>(0, index_arg("index-of", a[2], 3)) : 0;
  charge(ctx, s->len);
  int64_t count = static_cast<int64_t>(grapheme_count(s));
  if (from >= count) return v.empty() ? Value::integer(count) : Value();
  size_t at = s->view().find(v, byte_at(s, static_cast<size_t>(from)));
  if (at == std::string_view::npos) return Value();
  return Value::integer(index_at(s, at));
}

// Java's lastIndexOf(str, from): the last match starting at or before `from`;
// a negative `from` finds nothing (GAP-S80). nil when absent.
Value last_index_of(Ctx& ctx, const Value* a, uint32_t n) {
  const StrObj* s = text_receiver(ctx, "last-index-of", a[0], 1);
  std::string_view v = needle_arg("last-index-of", a[1], 2);
  charge(ctx, s->len);
  int64_t count = static_cast<int64_t>(grapheme_count(s));
  int64_t from = n == 3 ? index_arg("last-index-of", a[2], 3) : count;
  if (from < 0) return Value();
  if (from > count) from = count;
  size_t at = s->view().rfind(v, byte_at(s, static_cast<size_t>(from)));
  if (at == std::string_view::npos) return Value();
  return Value::integer(index_at(s, at));
}

// ---------------------------------------------------------------------------
// replace, replace-first

// A regex replacement string in java.util.regex.Matcher form: $n and ${name}
// insert groups, a backslash takes the next character literally (GAP-S73).
class Replacement {
 public:
  Replacement(std::string_view fname, std::string_view text) : fname_(fname), text_(text) {}

  void append(TextBuilder& out, const RegexWalker& w) {
    std::string buf;
    for (size_t i = 0; i < text_.size();) {
      char c = text_[i];
      if (c == '\\') {
        if (i + 1 >= text_.size()) fail("a backslash at the end escapes nothing");
        size_t n = grapheme_length(text_, i + 1);
        buf.append(text_.substr(i + 1, n));
        i += 1 + n;
      } else if (c == '$') {
        int g = group_ref(w, &i);
        const re2::StringPiece& p = w.group(g);
        if (p.data()) buf.append(p.data(), p.size());
      } else {
        buf.push_back(c);
        ++i;
      }
    }
    out.append(buf);
  }

 private:
  [[noreturn]] void fail(std::string_view why) const {
    throw_error(
        ErrorKind::RuntimeError,
        fmt::format("{}: invalid replacement \"{}\": {}", fname_, text_, why),
        "in a regex replacement $1 inserts group 1 and ${name} a named group; a literal dollar "
        "sign is written \"\\\\$\"");
  }

  // Reads the group reference at text_[*i] == '$' and moves past it.
  int group_ref(const RegexWalker& w, size_t* i) const {
    size_t p = *i + 1;
    if (p >= text_.size()) fail("a $ at the end names no group");
    if (text_[p] == '{') {
      size_t close = text_.find('}', p);
      if (close == std::string_view::npos) fail("${ is not closed by }");
      std::string name(text_.substr(p + 1, close - p - 1));
      const auto& named = w.re().NamedCapturingGroups();
      auto it = named.find(name);
      if (it == named.end()) fail(fmt::format("the pattern has no group named {}", name));
      *i = close + 1;
      return it->second;
    }
    if (text_[p] < '0' || text_[p] > '9') fail("$ must be followed by a group number or {name}");
    int g = text_[p] - '0';
    if (g > w.ngroups()) fail(fmt::format("the pattern has no group {}", g));
    ++p;
    // Further digits extend the number while such a group exists (Java's rule).
    while (p < text_.size() && text_[p] >= '0' && text_[p] <= '9') {
      int longer = g * 10 + (text_[p] - '0');
      if (longer > w.ngroups()) break;
      g = longer;
      ++p;
    }
    *i = p;
    return g;
  }

  std::string_view fname_, text_;
};

// Replaces regex matches (all, or only the first) with a replacement string
// or with the str of (f groups).
Value replace_regex(Ctx& ctx, const char* fname, const StrObj* s, Value regex, Value rep,
                    bool all) {
  std::string_view text = s->view();
  RootScope roots(ctx);  // (f groups) calls back while the text is read
  roots.add(s);
  roots.add(regex);
  roots.add(rep);
  RegexWalker w(ctx, regex, text, true);
  if (!w.next()) return Value::object(s);
  bool with_fn = !rep.is_string();
  Replacement tmpl(fname, with_fn ? std::string_view() : rep.str()->view());
  TextBuilder out(ctx);
  size_t copied = 0;
  do {
    out.append(text.substr(copied, w.start() - copied));
    if (with_fn) {
      out.append_value(ctx.call(rep, w.groups_value()));
    } else {
      tmpl.append(out, w);
    }
    copied = w.end();
  } while (all && w.next());
  out.append(text.substr(copied));
  return out.finish();
}

// Literal replacement of a plain string (Java's String.replace); an empty
// match inserts the replacement between every character and at both ends.
Value replace_literal(Ctx& ctx, const StrObj* s, std::string_view match, std::string_view rep,
                      bool all) {
  std::string_view text = s->view();
  LiteralFinder find(ctx, text, match);
  auto m = find();
  if (!m) return Value::object(s);
  TextBuilder out(ctx);
  size_t copied = 0;
  do {
    out.append(text.substr(copied, m->start - copied));
    out.append(rep);
    copied = m->end;
  } while (all && (m = find()));
  out.append(text.substr(copied));
  return out.finish();
}

// Clojure's (replace smap coll): each item found as a key (map) or index
// (vector) of smap is replaced by its value there (GAP-S16).
Value replace_items(Ctx& ctx, Value smap, Value coll) {
  if (!smap.is_nil() && !smap.is_map() && !smap.is_vector())
    type_error("replace", "a map or vector of replacements", smap, 1,
               "for strings use (replace s match replacement)");
  VecBuilder b(ctx.arena);
  for (SeqIter it(ctx, coll, "replace", 2); !it.done(); it.next()) {
    ctx.tick();
    Value x = it.value();
    if (smap.is_map()) {
      if (const Value* v = map_find_flex(smap.map(), x)) x = *v;
    } else if (smap.is_vector()) {
      if (x.is_int() && x.as_int() >= 0 && x.as_int() < smap.vec()->count)
        x = smap.vec()->nth(static_cast<uint32_t>(x.as_int()));
    }
    b.push(x);
  }
  return Value::object(b.finish());
}

Value replace_text(Ctx& ctx, const char* fname, const Value* a, bool all) {
  const StrObj* s = text_receiver(ctx, fname, a[0], 1);
  Value match = a[1], rep = a[2];
  if (match.is(Type::Regex)) {
    if (!rep.is_string() && !is_callable(rep))
      type_error(fname, "a replacement string or function", rep, 3);
    return replace_regex(ctx, fname, s, match, rep, all);
  }
  if (match.is_string()) {
    if (!rep.is_string())
      type_error(
          fname, "a replacement string", rep, 3,
          is_callable(rep) ? "a replacement function needs a regex match, e.g. #\"b+\"" : "");
    return replace_literal(ctx, s, match.str()->view(), rep.str()->view(), all);
  }
  type_error(fname, "a string or regex to match", match, 2);
}

Value replace(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 2) return replace_items(ctx, a[0], a[1]);
  return replace_text(ctx, "replace", a, true);
}

Value replace_first(Ctx& ctx, const Value* a, uint32_t) {
  return replace_text(ctx, "replace-first", a, false);
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(String, "str", 0, kVariadic, str, "(str & xs)", "Concatenates the text of the arguments; nil is empty."),
    PTC_BUILTIN(String, "pr-str", 0, kVariadic, pr_str, "(pr-str & xs)", "Readable text of the arguments, space separated."),
    PTC_BUILTIN(Core, "keyword", 1, 1, keyword, "(keyword name)", "The keyword with that name."),
    PTC_BUILTIN(String, "name", 1, 1, name, "(name x)", "The name of a keyword, or a string unchanged."),
    PTC_BUILTIN(String, "subs", 2, 3, subs, "(subs s start) or (subs s start end)", "Characters from start up to end; out-of-range indexes give a shorter or empty string."),
    PTC_BUILTIN(String, "split", 2, 3, split, "(split s re-or-char) or (split s re-or-char limit)", "Splits a string at each match of a regex or one-character string."),
    PTC_BUILTIN(String, "split-lines", 1, 1, split_lines, "(split-lines s)", "The lines of a string, split at \\n or \\r\\n."),
    PTC_BUILTIN(String, "join", 1, 2, join, "(join coll) or (join separator coll)", "The text of the items, with the separator between them."),
    PTC_BUILTIN(String, "trim", 1, 1, trim, "(trim s)", "The string without whitespace at either end."),
    PTC_BUILTIN(String, "triml", 1, 1, triml, "(triml s)", "The string without leading whitespace."),
    PTC_BUILTIN(String, "trimr", 1, 1, trimr, "(trimr s)", "The string without trailing whitespace."),
    PTC_BUILTIN(String, "trim-newline", 1, 1, trim_newline, "(trim-newline s)", "The string without trailing \\n and \\r characters."),
    PTC_BUILTIN(String, "blank?", 1, 1, blank, "(blank? s)", "True for nil, an empty string, or one holding only whitespace."),
    PTC_BUILTIN(String, "replace", 2, 3, replace, "(replace s match replacement) or (replace smap coll)", "Replaces every match in a string (string, regex, $1 groups or a function); with two arguments, replaces items found in smap."),
    PTC_BUILTIN(String, "replace-first", 3, 3, replace_first, "(replace-first s match replacement)", "Replaces the first match in a string, like replace."),
    PTC_BUILTIN(String, "upper-case", 1, 1, upper_case, "(upper-case s)", "The string in upper case."),
    PTC_BUILTIN(String, "upcase", 1, 1, upper_case, "(upcase s)", "The string in upper case (same as upper-case)."),
    PTC_BUILTIN(String, "lower-case", 1, 1, lower_case, "(lower-case s)", "The string in lower case."),
    PTC_BUILTIN(String, "downcase", 1, 1, lower_case, "(downcase s)", "The string in lower case (same as lower-case)."),
    PTC_BUILTIN(String, "starts-with?", 2, 2, starts_with, "(starts-with? s prefix)", "True when the string begins with prefix."),
    PTC_BUILTIN(String, "ends-with?", 2, 2, ends_with, "(ends-with? s suffix)", "True when the string ends with suffix."),
    PTC_BUILTIN(String, "includes?", 2, 2, includes, "(includes? s substring)", "True when the string contains substring."),
    PTC_BUILTIN(String, "index-of", 2, 3, index_of, "(index-of s value) or (index-of s value from-index)", "Character index of the first occurrence of value, or nil."),
    PTC_BUILTIN(String, "last-index-of", 2, 3, last_index_of, "(last-index-of s value) or (last-index-of s value from-index)", "Character index of the last occurrence of value, or nil."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> strings() {
  return kDefs;
}

}  // namespace ptc::builtins
