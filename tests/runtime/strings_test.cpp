#include "runtime/strings.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/ctx.hpp"

namespace ptc {
namespace {

// Named pieces of text; written with \x escapes so the source stays ASCII.
const std::string kEAcute = "\xC3\xA9";                          // U+00E9 precomposed
const std::string kECombining = "e\xCC\x81";                     // e + U+0301
const std::string kThumbsUp = "\xF0\x9F\x91\x8D";                // U+1F44D
const std::string kSkinTone = "\xF0\x9F\x8F\xBD";                // U+1F3FD
const std::string kZwj = "\xE2\x80\x8D";                         // U+200D
const std::string kMan = "\xF0\x9F\x91\xA8";                     // U+1F468
const std::string kWoman = "\xF0\x9F\x91\xA9";                   // U+1F469
const std::string kGirl = "\xF0\x9F\x91\xA7";                    // U+1F467
const std::string kFlagUs = "\xF0\x9F\x87\xBA\xF0\x9F\x87\xB8";  // regional indicators U S
const std::string kFlagFr = "\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7";  // F R
const std::string kHangulLv = "\xE1\x84\x80\xE1\x85\xA1";        // jamo L + V: one syllable

std::vector<std::string> graphemes(std::string_view s) {
  std::vector<std::string_view> parts;
  split_graphemes(s, parts);
  return {parts.begin(), parts.end()};
}

TEST(Strings, AsciiGraphemes) {
  EXPECT_EQ(grapheme_count(std::string_view("")), 0u);
  EXPECT_EQ(grapheme_count(std::string_view("hello")), 5u);
  EXPECT_EQ(grapheme_length("abc", 0), 1u);
  EXPECT_EQ(grapheme_length("abc", 3), 0u);
  EXPECT_EQ(grapheme_offset("hello", 0), 0u);
  EXPECT_EQ(grapheme_offset("hello", 3), 3u);
  EXPECT_EQ(grapheme_offset("hello", 5), 5u);
  EXPECT_EQ(grapheme_offset("hello", 99), 5u);
}

TEST(Strings, CombiningMarksJoin) {
  std::string s = "caf" + kECombining;
  EXPECT_EQ(grapheme_count(s), 4u);
  EXPECT_EQ(graphemes(s), (std::vector<std::string>{"c", "a", "f", kECombining}));
  EXPECT_EQ(grapheme_count(kEAcute), 1u);
  // Several marks on one base, and a mark after a non-ASCII base.
  std::string stacked =
      "a\xCC\x81\xCC\x82\xCC\x83"
      "b";
  EXPECT_EQ(grapheme_count(stacked), 2u);
  EXPECT_EQ(grapheme_length(stacked, 0), 7u);
  EXPECT_EQ(grapheme_count(kEAcute + "\xCC\x82"), 1u);
  EXPECT_EQ(grapheme_offset(s, 3), 3u);
  EXPECT_EQ(grapheme_offset(s, 4), s.size());
}

TEST(Strings, EmojiSequencesAreOneGrapheme) {
  std::string family = kMan + kZwj + kWoman + kZwj + kGirl;
  EXPECT_EQ(grapheme_count(family), 1u);
  EXPECT_EQ(grapheme_length(family, 0), family.size());
  EXPECT_EQ(grapheme_count(kThumbsUp + kSkinTone), 1u);
  std::string s = "a" + kThumbsUp + kSkinTone + "b" + family + "c";
  EXPECT_EQ(grapheme_count(s), 5u);
  EXPECT_EQ(graphemes(s), (std::vector<std::string>{"a", kThumbsUp + kSkinTone, "b", family, "c"}));
  EXPECT_EQ(grapheme_offset(s, 2), 1 + kThumbsUp.size() + kSkinTone.size());
  // Flags pair regional indicators two by two.
  EXPECT_EQ(grapheme_count(kFlagUs), 1u);
  EXPECT_EQ(grapheme_count(kFlagUs + kFlagFr), 2u);
  EXPECT_EQ(graphemes(kFlagUs + kFlagFr), (std::vector<std::string>{kFlagUs, kFlagFr}));
  EXPECT_EQ(grapheme_count(kHangulLv), 1u);
}

TEST(Strings, CrLfIsOneGrapheme) {
  EXPECT_EQ(grapheme_count(std::string_view("\r\n")), 1u);
  EXPECT_EQ(grapheme_count(std::string_view("a\r\nb")), 3u);
  EXPECT_EQ(grapheme_count(std::string_view("\n\r")), 2u);
  EXPECT_EQ(grapheme_count(std::string_view("\r\r\n")), 2u);
  EXPECT_EQ(grapheme_length("\r\n", 0), 2u);
  EXPECT_EQ(grapheme_offset("a\r\nb", 2), 3u);
  EXPECT_EQ(grapheme_count(std::string_view("\r")), 1u);
  // A control character does not take a following combining mark.
  EXPECT_EQ(grapheme_count("\n\xCC\x81"), 2u);
}

TEST(Strings, StrObjCountsAndCaches) {
  Limits lim;
  Ctx ctx(lim);
  const StrObj* a = ctx.string("plain ascii").str();
  EXPECT_TRUE(is_ascii(a));
  EXPECT_EQ(grapheme_count(a), 11u);
  EXPECT_EQ(a->graphemes, 11);
  const StrObj* u = ctx.string("x" + kECombining + kFlagUs).str();
  EXPECT_FALSE(is_ascii(u));
  EXPECT_TRUE(u->flags & StrObj::kAsciiKnown);
  EXPECT_EQ(grapheme_count(u), 3u);
  EXPECT_EQ(grapheme_count(u), 3u);
  const StrObj* e = ctx.string("").str();
  EXPECT_EQ(grapheme_count(e), 0u);
  EXPECT_EQ(e->len, 0u);
  EXPECT_EQ(e->data()[0], '\0');
  // Strings are NUL-terminated copies.
  std::string src = "copy me";
  const StrObj* c = new_string(ctx.arena, src);
  src[0] = 'X';
  EXPECT_EQ(c->view(), "copy me");
  EXPECT_EQ(c->data()[c->len], '\0');
  StrObj* w = new_string_uninit(ctx.arena, 3);
  EXPECT_EQ(w->data()[3], '\0');
  EXPECT_EQ(w->len, 3u);
}

TEST(Strings, ValidUtf8) {
  for (std::string ok : {std::string(""), std::string("ascii"), kEAcute, kECombining, kThumbsUp,
                         std::string("\xEF\xBF\xBF"),      // U+FFFF
                         std::string("\xF4\x8F\xBF\xBF"),  // U+10FFFF
                         std::string("\xED\x9F\xBF"),      // U+D7FF, just below the surrogates
                         std::string("\xEE\x80\x80"),      // U+E000, just above
                         std::string("a\0b", 3)}) {
    size_t bad = 12345;
    EXPECT_TRUE(is_valid_utf8(ok, &bad)) << ok;
    EXPECT_EQ(bad, 12345u) << "bad_offset written on success";
  }
}

TEST(Strings, InvalidUtf8ReportsTheOffset) {
  struct Case {
    std::string text;
    size_t offset;
  };
  const Case cases[] = {
      {"\x80", 0},                    // lone continuation byte
      {"ab\xBF", 2},                  // continuation after ASCII
      {"\xC0\xAF", 0},                // overlong '/'
      {"\xC1\xBF", 0},                // overlong
      {"\xE0\x80\xAF", 0},            // overlong 3-byte
      {"\xE0\x9F\xBF", 0},            // overlong 3-byte (U+07FF)
      {"\xF0\x80\x80\xAF", 0},        // overlong 4-byte
      {"\xF0\x8F\xBF\xBF", 0},        // overlong 4-byte (U+FFFF)
      {"\xED\xA0\x80", 0},            // surrogate U+D800
      {"x\xED\xBF\xBF", 1},           // surrogate U+DFFF
      {"\xF4\x90\x80\x80", 0},        // above U+10FFFF
      {"\xF5\x80\x80\x80", 0},        // invalid lead byte
      {"\xFF", 0},                    // invalid byte
      {"\xC3", 0},                    // truncated 2-byte
      {"ok\xE2\x82", 2},              // truncated 3-byte at the end
      {"\xF0\x9F\x98", 0},            // truncated 4-byte
      {"\xE2\x28\xA1", 0},            // bad continuation
      {"ab" + kEAcute + "\xC3(", 4},  // second sequence broken
      {kThumbsUp + "z\x80", 5},
  };
  for (const Case& c : cases) {
    size_t bad = 999;
    EXPECT_FALSE(is_valid_utf8(c.text, &bad)) << testing::PrintToString(c.text);
    EXPECT_EQ(bad, c.offset) << testing::PrintToString(c.text);
    EXPECT_FALSE(is_valid_utf8(c.text));  // the offset pointer is optional
  }
}

TEST(Strings, DecodeAndEncode) {
  int32_t cp = 0;
  EXPECT_EQ(decode_utf8("A", 0, &cp), 1u);
  EXPECT_EQ(cp, 'A');
  EXPECT_EQ(decode_utf8(kEAcute, 0, &cp), 2u);
  EXPECT_EQ(cp, 0xE9);
  EXPECT_EQ(decode_utf8("\xE2\x82\xAC", 0, &cp), 3u);
  EXPECT_EQ(cp, 0x20AC);
  EXPECT_EQ(decode_utf8(kThumbsUp, 0, &cp), 4u);
  EXPECT_EQ(cp, 0x1F44D);
  EXPECT_EQ(decode_utf8("ab", 2, &cp), 0u);
  EXPECT_EQ(decode_utf8("\xC3", 0, &cp), 0u);
  EXPECT_EQ(decode_utf8("x" + kEAcute, 1, &cp), 2u);
  for (int32_t c : {0x41, 0xE9, 0x7FF, 0x800, 0x20AC, 0xFFFF, 0x10000, 0x1F44D, 0x10FFFF}) {
    std::string out;
    append_utf8(out, c);
    int32_t back = -1;
    EXPECT_EQ(decode_utf8(out, 0, &back), out.size());
    EXPECT_EQ(back, c);
    EXPECT_TRUE(is_valid_utf8(out));
  }
}

TEST(Strings, InvalidBytesStillAdvanceByOne) {
  // Grapheme walking must terminate on bad input (checked elsewhere).
  std::string bad =
      "a\xFF\xFE"
      "b";
  EXPECT_EQ(grapheme_count(bad), 4u);
  EXPECT_EQ(grapheme_offset(bad, 2), 2u);
}

TEST(Strings, AppendQuoted) {
  std::string out;
  append_quoted(out, "plain");
  EXPECT_EQ(out, "\"plain\"");
  out.clear();
  append_quoted(out, "q\"b\\n\nt\tr\rb\bf\f");
  EXPECT_EQ(out, "\"q\\\"b\\\\n\\nt\\tr\\rb\\bf\\f\"");
  out = "x=";
  append_quoted(out, kEAcute);
  EXPECT_EQ(out, "x=\"" + kEAcute + "\"");
  // needs_quoting_escape names exactly the characters append_quoted escapes.
  EXPECT_FALSE(needs_quoting_escape("plain"));
  EXPECT_FALSE(needs_quoting_escape(kEAcute));
  EXPECT_FALSE(needs_quoting_escape(""));
  for (char c : std::string_view("\"\\\n\t\r\b\f")) {
    EXPECT_TRUE(needs_quoting_escape(std::string("a") + c)) << int(c);
    out.clear();
    append_quoted(out, std::string(1, c));
    EXPECT_EQ(out.size(), 4u) << int(c);  // a quote, a backslash, the letter, a quote
  }
}

}  // namespace
}  // namespace ptc
