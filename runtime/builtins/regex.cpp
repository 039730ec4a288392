// Regex builtins on RE2 (spec §8.10): construction, matching with Clojure's
// result shapes, splitting, and the extract helpers.
//
// RE2 matches in linear time, so inputs are never truncated; instead every
// search charges reductions for the text it may scan, which keeps a long
// re-seq over a large string under the run's timeout. Results are built in
// the arena, so a huge number of matches runs into the heap cap.
//
// Result shapes follow Clojure: without capture groups a match is the matched
// string; with groups it is a vector [whole g1 g2 ...] where a group that did
// not take part in the match is nil (GAP-S92).
#include <re2/re2.h>

#include <memory>
#include <string_view>
#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/objects.hpp"
#include "runtime/regex.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

const re2::RE2& expect_regex(std::string_view fname, Value v, int pos) {
  if (!v.is(Type::Regex))
    type_error(fname, "a regex", v, pos,
               v.is_string() ? "make one with #\"...\" or (re-pattern s)" : "");
  return *v.as<const RegexObj>()->re;
}

// A regex argument that may also be given as a pattern string (extract); a
// string is compiled for this call only and freed with the holder.
struct PatternArg {
  std::unique_ptr<re2::RE2> owned;
  const re2::RE2* re = nullptr;
};

PatternArg regex_or_pattern(std::string_view fname, Value v, int pos) {
  PatternArg p;
  if (v.is_string()) {
    p.owned = compile_regex(v.str()->view());
    p.re = p.owned.get();
    return p;
  }
  if (!v.is(Type::Regex)) type_error(fname, "a regex or a pattern string", v, pos);
  p.re = v.as<const RegexObj>()->re;
  return p;
}

// Reductions for one search starting at `from`: RE2 may scan to the end of
// the text, so the charge covers the rest of the input.
void charge_search(Ctx& ctx, std::string_view text, size_t from) {
  ctx.tick(1 + static_cast<int64_t>((text.size() - from) / 64));
}

// One compiled pattern searched over one text; `groups[0]` is the whole match.
class Matcher {
 public:
  Matcher(const re2::RE2& re, std::string_view text)
      : re_(re), text_(text), groups_(static_cast<size_t>(re.NumberOfCapturingGroups()) + 1) {}

  bool search(Ctx& ctx, size_t from, re2::RE2::Anchor anchor) {
    charge_search(ctx, text_, from);
    return re_.Match(re2::StringPiece(text_.data(), text_.size()), from, text_.size(), anchor,
                     groups_.data(), static_cast<int>(groups_.size()));
  }

  size_t ngroups() const { return groups_.size() - 1; }
  bool group_matched(size_t i) const { return groups_[i].data() != nullptr; }
  std::string_view group(size_t i) const { return {groups_[i].data(), groups_[i].size()}; }
  size_t match_begin() const { return static_cast<size_t>(groups_[0].data() - text_.data()); }
  size_t match_end() const { return match_begin() + groups_[0].size(); }

  // A matched piece of the text as a string value. One-character ASCII
  // pieces come from the shared table and the empty string is made once, so
  // a flood of tiny matches costs only its vector slots.
  Value text_value(Ctx& ctx, std::string_view piece) {
    check_whole_characters(piece);
    if (piece.size() == 1) return char_string(ctx, piece);
    if (!piece.empty()) return ctx.string(piece);
    if (empty_.is_nil()) empty_ = ctx.string("");
    return empty_;
  }

  // Strings hold whole UTF-8 characters; only \C (any byte) can end a match
  // inside one, and such a piece is refused rather than made into a string.
  void check_whole_characters(std::string_view piece) const {
    auto inside = [&](size_t off) {
      return off < text_.size() && (static_cast<unsigned char>(text_[off]) & 0xC0) == 0x80;
    };
    size_t begin = static_cast<size_t>(piece.data() - text_.data());
    if (inside(begin) || inside(begin + piece.size()))
      throw_error(ErrorKind::TypeError, "regex matched part of a UTF-8 character",
                  "\\C (any byte) is not supported; use . to match one character");
  }

  // The match as Clojure shows it: a string, or [whole g1 ...] with nil for
  // groups that did not participate.
  Value result(Ctx& ctx) {
    if (ngroups() == 0) return text_value(ctx, group(0));
    VecBuilder out(ctx.arena);
    for (size_t i = 0; i < groups_.size(); ++i)
      out.push(group_value(ctx, i));
    return Value::object(out.finish());
  }

  Value group_value(Ctx& ctx, size_t i) {
    return group_matched(i) ? text_value(ctx, group(i)) : Value();
  }

  // Where the next search starts after the current match (Java's find): an
  // empty match moves on by one character so the scan always progresses.
  // Returns false at the end of the text.
  bool advance(size_t& pos) const {
    size_t end = match_end();
    if (end > match_begin()) {
      pos = end;
      return true;
    }
    if (end >= text_.size()) return false;
    int32_t cp;
    size_t step = decode_utf8(text_, end, &cp);
    pos = end + (step ? step : 1);
    return true;
  }

 private:
  const re2::RE2& re_;
  std::string_view text_;
  std::vector<re2::StringPiece> groups_;
  Value empty_;
};

Value re_pattern(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is(Type::Regex)) return a[0];
  return make_regex(ctx, expect_string("re-pattern", a[0], 1)->view());
}

Value regex_p(Ctx&, const Value* a, uint32_t) {
  return Value::boolean(a[0].is(Type::Regex));
}

Value re_find(Ctx& ctx, const Value* a, uint32_t) {
  const re2::RE2& re = expect_regex("re-find", a[0], 1);
  Matcher m(re, expect_string("re-find", a[1], 2)->view());
  if (!m.search(ctx, 0, re2::RE2::UNANCHORED)) return Value();
  return m.result(ctx);
}

Value re_matches(Ctx& ctx, const Value* a, uint32_t) {
  const re2::RE2& re = expect_regex("re-matches", a[0], 1);
  Matcher m(re, expect_string("re-matches", a[1], 2)->view());
  if (!m.search(ctx, 0, re2::RE2::ANCHOR_BOTH)) return Value();
  return m.result(ctx);
}

// Every match, left to right; nil when there is none (Clojure, GAP-S82).
Value re_seq(Ctx& ctx, const Value* a, uint32_t) {
  const re2::RE2& re = expect_regex("re-seq", a[0], 1);
  std::string_view text = expect_string("re-seq", a[1], 2)->view();
  Matcher m(re, text);
  VecBuilder out(ctx.arena);
  size_t pos = 0;
  while (m.search(ctx, pos, re2::RE2::UNANCHORED)) {
    out.push(m.result(ctx));
    if (!m.advance(pos)) break;
  }
  if (out.size() == 0) return Value();
  return Value::object(out.finish());
}

// The pieces between matches. An empty match at the very start or end does
// not produce an empty piece; other empty pieces (",a,,b," around ",") are
// kept, trailing ones included, as in the reference implementation.
Value re_split(Ctx& ctx, const Value* a, uint32_t) {
  const re2::RE2& re = expect_regex("re-split", a[0], 1);
  std::string_view text = expect_string("re-split", a[1], 2)->view();
  Matcher m(re, text);
  VecBuilder out(ctx.arena);
  size_t piece = 0, pos = 0;
  while (m.search(ctx, pos, re2::RE2::UNANCHORED)) {
    size_t b = m.match_begin(), e = m.match_end();
    bool empty = b == e;
    if (empty && (b == 0 || b >= text.size())) {
      // nothing to cut here
    } else {
      out.push(m.text_value(ctx, text.substr(piece, b - piece)));
      piece = e;
    }
    if (!m.advance(pos)) break;
  }
  out.push(m.text_value(ctx, text.substr(piece)));
  return Value::object(out.finish());
}

// Group `n` of the first match of `pattern` in `s`, as a string value; nil
// when there is no match, no such group, or the group did not participate.
// A nil `s` gives nil, so a missing field flows through as "no match".
Value extract_group(Ctx& ctx, const char* fname, const Value* a, uint32_t n) {
  PatternArg pattern = regex_or_pattern(fname, a[0], 1);
  if (a[1].is_nil()) return Value();
  std::string_view text = expect_string(fname, a[1], 2)->view();
  int64_t group = n >= 3 ? expect_int(fname, a[2], 3) : 1;
  Matcher m(*pattern.re, text);
  if (group < 0 || static_cast<uint64_t>(group) > m.ngroups()) return Value();
  if (!m.search(ctx, 0, re2::RE2::UNANCHORED)) return Value();
  return m.group_value(ctx, static_cast<size_t>(group));
}

Value extract(Ctx& ctx, const Value* a, uint32_t n) {
  return extract_group(ctx, "extract", a, n);
}

// parse-long's rule: an optional sign and decimal digits, in the int64 range.
bool parse_int64(std::string_view s, int64_t& out) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == s.size()) return false;
  uint64_t acc = 0;
  const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    auto d = static_cast<uint64_t>(s[i] - '0');
    if (acc > (limit - d) / 10) return false;
    acc = acc * 10 + d;
  }
  out = neg ? static_cast<int64_t>(0 - acc) : static_cast<int64_t>(acc);
  return true;
}

Value extract_int(Ctx& ctx, const Value* a, uint32_t n) {
  Value fallback = n >= 4 ? a[3] : Value();
  Value s = extract_group(ctx, "extract-int", a, n);
  int64_t v;
  if (s.is_string() && parse_int64(s.str()->view(), v)) return Value::integer(v);
  return fallback;
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Regex, "re-pattern", 1, 1, re_pattern, "(re-pattern s)", "Compiles a pattern string into a regex; a regex is returned as is."),
    PTC_BUILTIN(Regex, "regex?", 1, 1, regex_p, "(regex? x)", "True when x is a regex."),
    PTC_BUILTIN(Regex, "re-find", 2, 2, re_find, "(re-find re s)", "The first match of re in s: a string, or [whole group1 ...] when re has groups; nil if none."),
    PTC_BUILTIN(Regex, "re-matches", 2, 2, re_matches, "(re-matches re s)", "Like re-find, but re must match all of s."),
    PTC_BUILTIN(Regex, "re-seq", 2, 2, re_seq, "(re-seq re s)", "Every match of re in s, left to right, as a vector; nil if none."),
    PTC_BUILTIN(Regex, "re-split", 2, 2, re_split, "(re-split re s)", "The pieces of s between matches of re."),
    PTC_BUILTIN(String, "extract", 2, 3, extract, "(extract pattern s n?)", "Capture group n (default 1, 0 = whole match) of the first match of a regex or pattern string; nil if none."),
    PTC_BUILTIN(String, "extract-int", 2, 4, extract_int, "(extract-int pattern s n? default?)", "Like extract, parsed as an integer; default (or nil) when there is no match or no integer."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> regex() {
  return kDefs;
}

}  // namespace ptc::builtins
