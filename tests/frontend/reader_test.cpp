// Reader tests: source text to forms, locations, and parse errors.

#include "frontend/reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "frontend/form.hpp"
#include "runtime/arena.hpp"
#include "runtime/error.hpp"

namespace ptc {
namespace {

// a + b + c without operator+ on a literal (GCC 12 -Wrestrict false positive).
std::string cat(std::string_view a, std::string_view b, std::string_view c) {
  std::string out;
  out.append(a);
  out.append(b);
  out.append(c);
  return out;
}

// Compact rendering of a form tree, for readable assertions. Strings are shown
// raw (escapes already resolved); character literals as \ + text.
std::string show(const Form* f) {
  auto seq = [](const Form* form, const char* open, const char* close) {
    std::string out = open;
    for (size_t i = 0; i < form->count; ++i) {
      if (i) out += ' ';
      out += show(form->items[i]);
    }
    return out + close;
  };
  switch (f->kind) {
    case FormKind::Nil:
      return "nil";
    case FormKind::Bool:
      return f->b ? "true" : "false";
    case FormKind::Int:
      return std::to_string(f->i);
    case FormKind::BigInt:
      return cat("", f->text, "N");
    case FormKind::Float:
      return cat("F", std::to_string(f->d), "");
    case FormKind::String:
      return f->from_char ? cat("\\", f->text, "") : cat("\"", f->text, "\"");
    case FormKind::Keyword:
      return cat(":", f->text, "");
    case FormKind::Symbol:
      return std::string(f->text);
    case FormKind::List:
      return seq(f, "(", ")");
    case FormKind::Vector:
      return seq(f, "[", "]");
    case FormKind::Map:
      return seq(f, "{", "}");
    case FormKind::Set:
      return seq(f, "#{", "}");
    case FormKind::FnLiteral:
      return seq(f, "#(", ")");
    case FormKind::Regex:
      return cat("#\"", f->text, "\"");
    case FormKind::VarQuote:
      return cat("#'", f->text, "");
    case FormKind::Quote:
      return cat("'", f->text, "");
  }
  return "?";
}

class ReaderTest : public ::testing::Test {
 protected:
  Arena arena{512u << 20};

  const Form* one(std::string_view src, const ReaderOptions& opt = {}) {
    return read_one(arena, src, opt);
  }
  FormList all(std::string_view src, const ReaderOptions& opt = {}) {
    return read_program(arena, src, opt);
  }
  std::string shown(std::string_view src) { return show(one(src)); }
  std::string shown_all(std::string_view src) {
    std::string out;
    for (const Form* f : all(src)) {
      if (!out.empty()) out += ' ';
      out += show(f);
    }
    return out;
  }

  // Reads `src` expecting a ParseError; returns it (or an empty Error after
  // recording a failure).
  Error err(std::string_view src, const ReaderOptions& opt = {}) {
    try {
      read_program(arena, src, opt);
    } catch (const LispError& e) {
      EXPECT_EQ(e.error().kind, ErrorKind::ParseError) << src;
      return e.error();
    }
    ADD_FAILURE() << "expected a parse error for: " << src;
    return {};
  }
};

#define EXPECT_LOC(loc, l, c)   \
  do {                          \
    EXPECT_EQ((loc).line, (l)); \
    EXPECT_EQ((loc).col, (c));  \
  } while (0)

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

// ---------------------------------------------------------------------------
// Literals

TEST_F(ReaderTest, NilTrueFalse) {
  EXPECT_EQ(one("nil")->kind, FormKind::Nil);
  const Form* t = one("true");
  EXPECT_EQ(t->kind, FormKind::Bool);
  EXPECT_TRUE(t->b);
  const Form* f = one("false");
  EXPECT_EQ(f->kind, FormKind::Bool);
  EXPECT_FALSE(f->b);
  EXPECT_EQ(shown("(nil true false)"), "(nil true false)");
  EXPECT_EQ(one("(nil)")->items[0]->kind, FormKind::Nil);
}

TEST_F(ReaderTest, LiteralNamesFollowedBySymbolCharsAreSymbols) {
  for (const char* s : {"nilly", "truex", "false?", "nil'", "true-ish"}) {
    const Form* f = one(s);
    EXPECT_EQ(f->kind, FormKind::Symbol) << s;
    EXPECT_EQ(f->text, s);
  }
  // A delimiter ends the literal.
  EXPECT_EQ(shown_all("nil\"s\""), "nil \"s\"");
  EXPECT_EQ(shown("[true,false]"), "[true false]");
}

TEST_F(ReaderTest, Integers) {
  struct Case {
    const char* src;
    int64_t value;
  } cases[] = {
      {"0", 0},
      {"42", 42},
      {"-1", -1},
      {"+1", 1},
      {"-0", 0},
      {"12N", 12},
      {"-7N", -7},
      {"+0", 0},
      {"1000000", 1000000},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
  };
  for (const auto& c : cases) {
    const Form* f = one(c.src);
    ASSERT_EQ(f->kind, FormKind::Int) << c.src;
    EXPECT_EQ(f->i, c.value) << c.src;
  }
}

TEST_F(ReaderTest, BigIntegersKeepTheirDecimalText) {
  const Form* f = one("9223372036854775808");
  ASSERT_EQ(f->kind, FormKind::BigInt);
  EXPECT_EQ(f->text, "9223372036854775808");
  f = one("-9223372036854775809");
  ASSERT_EQ(f->kind, FormKind::BigInt);
  EXPECT_EQ(f->text, "-9223372036854775809");
  f = one("+123456789012345678901234567890");
  ASSERT_EQ(f->kind, FormKind::BigInt);
  EXPECT_EQ(f->text, "123456789012345678901234567890");
  f = one("123456789012345678901234567890N");
  ASSERT_EQ(f->kind, FormKind::BigInt);
  EXPECT_EQ(f->text, "123456789012345678901234567890");
}

// Short plain integers take a fast path; its edges read as the full path does.
TEST_F(ReaderTest, ShortIntegersAtTheEdgesOfTheFastPath) {
  struct Case {
    const char* src;
    FormKind kind;
    int64_t value;
  };
  for (const Case& c : {Case{"0", FormKind::Int, 0}, Case{"-0", FormKind::Int, 0},
                        Case{"+7", FormKind::Int, 7}, Case{"-42", FormKind::Int, -42},
                        Case{"123456789012345678", FormKind::Int, 123456789012345678},
                        Case{"-123456789012345678", FormKind::Int, -123456789012345678},
                        Case{"1234567890123456789", FormKind::Int, 1234567890123456789},
                        Case{"9223372036854775807", FormKind::Int, INT64_MAX},
                        Case{"-9223372036854775808", FormKind::Int, INT64_MIN}}) {
    const Form* f = one(c.src);
    ASSERT_EQ(f->kind, c.kind) << c.src;
    EXPECT_EQ(f->i, c.value) << c.src;
  }
  EXPECT_EQ(one("9223372036854775808")->kind, FormKind::BigInt);
  EXPECT_EQ(one("12N")->kind, FormKind::Int);
  EXPECT_EQ(one("1.5")->kind, FormKind::Float);
  EXPECT_NE(err("1.").message.find("a digit must follow"), std::string::npos);
  EXPECT_NE(err("+07").message.find("leading zero"), std::string::npos);
  EXPECT_NE(err("-00").message.find("leading zero"), std::string::npos);
  EXPECT_NE(err("12a").message.find("invalid number"), std::string::npos);
  ReaderOptions three;
  three.max_integer_digits = 3;
  EXPECT_EQ(one("-999", three)->i, -999);
  EXPECT_NE(err("1000", three).message.find("exceeds 3 digit limit"), std::string::npos);
}

TEST_F(ReaderTest, IntegerDigitLimit) {
  std::string hundred = cat("1", std::string(99, '0'), "");
  ASSERT_EQ(hundred.size(), 100u);
  const Form* f = one(hundred);
  ASSERT_EQ(f->kind, FormKind::BigInt);
  EXPECT_EQ(f->text, hundred);
  f = one(cat("-", hundred, ""));
  ASSERT_EQ(f->kind, FormKind::BigInt);
  EXPECT_EQ(f->text, cat("-", hundred, ""));

  Error e = err(cat("[1 ", hundred, "0]"));
  EXPECT_EQ(e.message, "integer literal exceeds 100 digit limit");
  EXPECT_LOC(e.loc, 1u, 4u);

  e = err(cat("\n  ", std::string(200, '7'), ""));
  EXPECT_EQ(e.message, "integer literal exceeds 100 digit limit");
  EXPECT_LOC(e.loc, 2u, 3u);

  ReaderOptions small;
  small.max_integer_digits = 5;
  EXPECT_EQ(one("12345", small)->i, 12345);
  e = err("123456", small);
  EXPECT_EQ(e.message, "integer literal exceeds 5 digit limit");
}

TEST_F(ReaderTest, Floats) {
  struct Case {
    const char* src;
    double value;
  } cases[] = {
      {"1.5", 1.5},    {"-2.25", -2.25},  {"0.0", 0.0},   {"1e3", 1000.0}, {"1E-2", 0.01},
      {"2.5e+2", 250}, {"-1.5e3", -1500}, {"007.5", 7.5}, {"+2.5", 2.5},   {"3.14159", 3.14159},
  };
  for (const auto& c : cases) {
    const Form* f = one(c.src);
    ASSERT_EQ(f->kind, FormKind::Float) << c.src;
    EXPECT_DOUBLE_EQ(f->d, c.value) << c.src;
  }
  const Form* z = one("-0.0");
  ASSERT_EQ(z->kind, FormKind::Float);
  EXPECT_TRUE(std::signbit(z->d));
}

TEST_F(ReaderTest, SymbolicFloats) {
  const Form* f = one("##Inf");
  ASSERT_EQ(f->kind, FormKind::Float);
  EXPECT_TRUE(std::isinf(f->d));
  EXPECT_GT(f->d, 0);
  f = one("##-Inf");
  ASSERT_EQ(f->kind, FormKind::Float);
  EXPECT_TRUE(std::isinf(f->d));
  EXPECT_LT(f->d, 0);
  f = one("##NaN");
  ASSERT_EQ(f->kind, FormKind::Float);
  EXPECT_TRUE(std::isnan(f->d));
  EXPECT_EQ(one("[##Inf]")->items[0]->end.col, 7u);
  // Out-of-range literals saturate as in Clojure.
  EXPECT_TRUE(std::isinf(one("1e999")->d));
  EXPECT_LT(one("-1e999")->d, 0);
  EXPECT_EQ(one("1e-999")->d, 0.0);

  Error e = err("(x ##Foo)");
  EXPECT_EQ(e.message, "unknown symbolic value ##Foo");
  EXPECT_LOC(e.loc, 1u, 4u);
}

TEST_F(ReaderTest, NumberErrors) {
  Error e = err("(/ 1/3 2)");
  EXPECT_EQ(e.message, "ratio literal 1/3 is not supported");
  EXPECT_EQ(e.hint, "ratios are not supported; use (/ 1 3) which returns a float");
  EXPECT_LOC(e.loc, 1u, 4u);

  e = err("0x1F");
  EXPECT_EQ(e.message, "hex literal 0x1F is not supported");
  EXPECT_CONTAINS(e.hint, "hex literals are unsupported");
  EXPECT_CONTAINS(e.hint, "31");

  e = err("1.0M");
  EXPECT_EQ(e.message, "BigDecimal literal 1.0M is not supported");

  e = err("[12abc]");
  EXPECT_EQ(e.message, "invalid number 12abc");
  EXPECT_LOC(e.loc, 1u, 2u);

  e = err("1.");
  EXPECT_CONTAINS(e.message, "invalid number 1.");
  EXPECT_EQ(e.hint, "write 1.0 or 1");

  e = err("007");
  EXPECT_EQ(e.message, "integer literal 007 has a leading zero");
  EXPECT_CONTAINS(e.hint, "octal literals are not supported");
  EXPECT_CONTAINS(e.hint, "write 7");

  EXPECT_CONTAINS(err("1e").message, "exponent");
  EXPECT_CONTAINS(err("2r101").hint, "radix");
  EXPECT_CONTAINS(err(".5").hint, "0.5");
  EXPECT_CONTAINS(err("-.5").hint, "0.5");
  EXPECT_EQ(err("1.5.2").message, "invalid number 1.5.2");
  EXPECT_EQ(err("1.5N").message, "invalid number 1.5N");
  EXPECT_EQ(err("-1x").message, "invalid number -1x");
  EXPECT_EQ(err("1:a").message, "invalid number 1:a");
}

// ---------------------------------------------------------------------------
// Strings and characters

TEST_F(ReaderTest, StringEscapes) {
  EXPECT_EQ(one(R"("")")->text, "");
  EXPECT_EQ(one(R"("hello")")->text, "hello");
  EXPECT_EQ(one(R"("a\\b")")->text, "a\\b");
  EXPECT_EQ(one(R"("a\"b")")->text, "a\"b");
  EXPECT_EQ(one(R"("\n\t\r\b\f")")->text, "\n\t\r\b\f");
  EXPECT_EQ(one(R"("\u00e9\u00E9")")->text, "\xC3\xA9\xC3\xA9");
  EXPECT_EQ(one(R"("\u0041")")->text, "A");
  EXPECT_EQ(one(R"("\u4e2d")")->text, "\xE4\xB8\xAD");
  // A surrogate pair combines into one code point (U+1F600).
  EXPECT_EQ(one(R"("\uD83D\uDE00")")->text, "\xF0\x9F\x98\x80");
  EXPECT_EQ(one("\"line1\nline2\r\nx\"")->text, "line1\nline2\r\nx");
  EXPECT_EQ(one("\"λ é 中\"")->text, "λ é 中");
  const Form* f = one(R"("x")");
  EXPECT_EQ(f->kind, FormKind::String);
  EXPECT_FALSE(f->from_char);
}

TEST_F(ReaderTest, StringErrors) {
  Error e = err("(a\n  (b \"abc)\n)");
  EXPECT_EQ(e.message, "unterminated string starting at 2:6");
  EXPECT_LOC(e.loc, 2u, 6u);

  e = err("(a\n  ([ \"abc\\\"");
  EXPECT_EQ(e.message, "unterminated string starting at 2:6");

  e = err(R"((re-find "\d+" s))");
  EXPECT_EQ(e.message, "unsupported escape \\d in string");
  EXPECT_LOC(e.loc, 1u, 11u);
  EXPECT_CONTAINS(e.hint, "to put a backslash in a string write \\\\");
  EXPECT_CONTAINS(e.hint, "#\"\\d\"");

  e = err(R"("ab\x41")");
  EXPECT_EQ(e.message, "unsupported escape \\x in string");
  EXPECT_LOC(e.loc, 1u, 4u);
  EXPECT_CONTAINS(e.hint, "\"\\\\x\"");
  EXPECT_EQ(e.hint.find("regex"), std::string::npos) << e.hint;  // \x is not a regex escape

  e = err(R"("\uD800")");
  EXPECT_EQ(e.message, "lone surrogate \\uD800 in string");
  EXPECT_LOC(e.loc, 1u, 2u);
  e = err(R"("x\uD83Dy")");
  EXPECT_EQ(e.message, "lone surrogate \\uD83D in string");
  e = err(R"("\uDE00")");
  EXPECT_EQ(e.message, "lone surrogate \\uDE00 in string");
  e = err(R"("\u12")");
  EXPECT_EQ(e.message, "\\u must be followed by 4 hex digits");
  e = err(R"("\uZZZZ")");
  EXPECT_EQ(e.message, "\\u must be followed by 4 hex digits");
  EXPECT_CONTAINS(err("\"a\\\nb\"").message, "unsupported escape");
}

TEST_F(ReaderTest, CharacterLiterals) {
  struct Case {
    const char* src;
    const char* text;
  } cases[] = {
      {"\\a", "a"},          {"\\Z", "Z"},         {"\\r", "r"},     {"\\n", "n"},
      {"\\u", "u"},          {"\\λ", "λ"},         {"\\é", "é"},     {"\\中", "中"},
      {"\\newline", "\n"},   {"\\space", " "},     {"\\tab", "\t"},  {"\\return", "\r"},
      {"\\backspace", "\b"}, {"\\formfeed", "\f"}, {"\\u0041", "A"}, {"\\u00e9", "é"},
      {"\\(", "("},          {"\\\\", "\\"},       {"\\\"", "\""},   {"\\;", ";"},
      {"\\,", ","},          {"\\1", "1"},
  };
  for (const auto& c : cases) {
    const Form* f = one(c.src);
    ASSERT_EQ(f->kind, FormKind::String) << c.src;
    EXPECT_TRUE(f->from_char) << c.src;
    EXPECT_EQ(f->text, c.text) << c.src;
  }
  // e + combining acute accent is one grapheme.
  EXPECT_EQ(one("\\e\xCC\x81")->text, "e\xCC\x81");
  EXPECT_EQ(shown("[\\a \\b]"), "[\\a \\b]");
  EXPECT_EQ(shown("(\\a)"), "(\\a)");
  EXPECT_EQ(shown("(\\))"), "(\\))");
  EXPECT_EQ(shown("[\\newline\\space]"), "[\\\n \\ ]");
}

TEST_F(ReaderTest, CharacterLiteralErrors) {
  Error e = err("(str \\newlinex)");
  EXPECT_EQ(e.message, "unknown character literal \\newlinex");
  EXPECT_LOC(e.loc, 1u, 6u);
  EXPECT_CONTAINS(e.hint, "\\newline must be followed by a delimiter");

  e = err("\\ab");
  EXPECT_EQ(e.message, "unknown character literal \\ab");
  EXPECT_LOC(e.loc, 1u, 1u);

  e = err("[\\ ]");
  EXPECT_EQ(e.message, "\\ must be followed by a character");
  EXPECT_LOC(e.loc, 1u, 2u);
  EXPECT_CONTAINS(err("\\\n").message, "must be followed by a character");
  EXPECT_CONTAINS(err("x \\").message, "end of input");
  EXPECT_LOC(err("x \\").loc, 1u, 3u);
  EXPECT_CONTAINS(err("\\uD800").message, "surrogate");
  EXPECT_CONTAINS(err("\\u12").hint, "4 hex digits");
  EXPECT_EQ(err("\\λx").message, "unknown character literal \\λx");
}

// ---------------------------------------------------------------------------
// Keywords and symbols

TEST_F(ReaderTest, Keywords) {
  for (const char* name : {"a", "foo-bar?", "<=", "1", "a*b", "ok!", "snake_case", "x+y=z>"}) {
    std::string src = std::string(":") + name;
    const Form* f = one(src);
    ASSERT_EQ(f->kind, FormKind::Keyword) << src;
    EXPECT_EQ(f->text, name);
  }
  EXPECT_EQ(shown("{:a 1 :b 2}"), "{:a 1 :b 2}");
  EXPECT_EQ(shown("[:a,:b]"), "[:a :b]");
  const Form* k = one(" :abc");
  EXPECT_LOC(k->loc, 1u, 2u);
  EXPECT_LOC(k->end, 1u, 6u);
}

TEST_F(ReaderTest, KeywordErrors) {
  Error e = err("{:user/name 1}");
  EXPECT_EQ(e.message, "namespaced keywords are not supported (DIV-13)");
  EXPECT_LOC(e.loc, 1u, 2u);
  EXPECT_CONTAINS(e.hint, ":name");

  e = err("::x");
  EXPECT_CONTAINS(e.message, "::x");
  EXPECT_LOC(e.loc, 1u, 1u);

  e = err("[: 1]");
  EXPECT_EQ(e.message, "a keyword needs a name after :");
  EXPECT_LOC(e.loc, 1u, 2u);
  EXPECT_EQ(err(":").message, "a keyword needs a name after :");

  e = err("(get m :a.b)");
  EXPECT_EQ(e.message, "invalid character '.' in keyword :a.b");
  EXPECT_LOC(e.loc, 1u, 10u);

  e = err(":café");
  EXPECT_EQ(e.message, "invalid character 'é' (U+00E9) in keyword :café");
  EXPECT_LOC(e.loc, 1u, 5u);
  EXPECT_EQ(err(":a'b").message, "invalid character ''' in keyword :a'b");
  EXPECT_EQ(err(":a#").message, "invalid character '#' in keyword :a#");
  EXPECT_EQ(err("[:a:b]").message, "invalid character ':' in keyword :a:b");
}

TEST_F(ReaderTest, Symbols) {
  for (const char* s : {"map",
                        "-",
                        "-foo",
                        "+",
                        "+foo",
                        "/",
                        "*",
                        "data/x",
                        "tool/get-user",
                        "clojure.string/join",
                        "Math/abs",
                        ".indexOf",
                        "java.util.Date.",
                        "%",
                        "%1",
                        "%&",
                        "&",
                        "x'",
                        "a->b",
                        "valid?",
                        "set!",
                        "*1",
                        "<=",
                        "_",
                        "x2",
                        "a.b",
                        "clojure.core//",
                        "--1"}) {
    const Form* f = one(s);
    ASSERT_EQ(f->kind, FormKind::Symbol) << s;
    EXPECT_EQ(f->text, s);
    EXPECT_TRUE(f->is_symbol(s));
  }
}

// Forms keep their text in the arena: the caller's source may be gone.
TEST_F(ReaderTest, FormTextOutlivesTheSource) {
  auto source = std::make_unique<std::string>("(tool/search :limit #\"a+b\" 'quoted sym-bol)");
  FormList forms = read_program(arena, *source, {});
  std::fill(source->begin(), source->end(), '#');
  source.reset();
  ASSERT_EQ(forms.size(), 1u);
  const Form* f = forms[0];
  ASSERT_EQ(f->count, 5u);
  EXPECT_EQ(f->items[0]->text, "tool/search");
  EXPECT_EQ(f->items[1]->text, "limit");
  EXPECT_EQ(f->items[2]->text, "a+b");
  EXPECT_EQ(f->items[3]->text, "quoted");
  EXPECT_EQ(f->items[4]->text, "sym-bol");
}

// Symbols of plain ASCII take a shorter path than those that need the full
// check; both end where they should.
TEST_F(ReaderTest, SymbolEndsOnEitherPath) {
  const Form* f = one("(-> a/b + -x .y ->> x')");
  ASSERT_EQ(f->count, 7u);
  const char* texts[] = {"->", "a/b", "+", "-x", ".y", "->>", "x'"};
  const uint32_t cols[] = {2, 5, 9, 11, 14, 17, 21};
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(f->items[i]->kind, FormKind::Symbol) << texts[i];
    EXPECT_EQ(f->items[i]->text, texts[i]);
    EXPECT_LOC(f->items[i]->loc, 1u, cols[i]);
    EXPECT_LOC(f->items[i]->end, 1u, cols[i] + static_cast<uint32_t>(std::strlen(texts[i])));
  }
  EXPECT_LOC(f->end, 1u, 24u);
  EXPECT_EQ(err("+.5").message, "invalid number +.5");
  EXPECT_LOC(err("[a b.c\u00e9]").loc, 1u, 7u);
}

TEST_F(ReaderTest, SymbolErrors) {
  Error e = err("(λx)");
  EXPECT_EQ(e.message, "invalid character 'λ' (U+03BB) in symbol λx");
  EXPECT_LOC(e.loc, 1u, 2u);

  e = err("(fooλ)");
  EXPECT_EQ(e.message, "invalid character 'λ' (U+03BB) in symbol fooλ");
  EXPECT_LOC(e.loc, 1u, 5u);

  e = err("[éa $b]");
  EXPECT_LOC(e.loc, 1u, 2u);
  e = err("[ab a$b]");
  EXPECT_EQ(e.message, "invalid character '$' in symbol a$b");
  EXPECT_LOC(e.loc, 1u, 6u);

  EXPECT_EQ(err("a/").message, "invalid symbol a/");
  EXPECT_EQ(err("/a").message, "invalid symbol /a");
  EXPECT_EQ(err("a/b/c").message, "invalid symbol a/b/c");
  EXPECT_EQ(err("a#b").message, "invalid character '#' in symbol a#b");
  EXPECT_EQ(err("a|b").message, "invalid character '|' in symbol a|b");

  e =
      err("(a\xC2\xA0"
          "b)");  // no-break space
  EXPECT_CONTAINS(e.message, "U+00A0");
  e = err("\xC2\xA0x");
  EXPECT_EQ(e.message, "unexpected non-ASCII whitespace U+00A0");
  EXPECT_LOC(e.loc, 1u, 1u);
  e = err(std::string_view("a \x01", 3));
  EXPECT_EQ(e.message, "unexpected control character U+0001");
  EXPECT_LOC(e.loc, 1u, 3u);
  e = err(std::string_view("x\0", 2));
  EXPECT_CONTAINS(e.message, "U+0000");
}

// ---------------------------------------------------------------------------
// Quote, var quote and unsupported prefixes

TEST_F(ReaderTest, QuoteAndVarQuote) {
  const Form* f = one("'x");
  ASSERT_EQ(f->kind, FormKind::Quote);
  EXPECT_EQ(f->text, "x");
  EXPECT_LOC(f->loc, 1u, 1u);
  EXPECT_LOC(f->end, 1u, 3u);
  EXPECT_EQ(one("'data/x")->text, "data/x");
  EXPECT_EQ(shown("(= x 'github)"), "(= x 'github)");
  f = one("#'inc");
  ASSERT_EQ(f->kind, FormKind::VarQuote);
  EXPECT_EQ(f->text, "inc");
  EXPECT_LOC(f->end, 1u, 6u);
  EXPECT_EQ(shown("[#'a 'b]"), "[#'a 'b]");
}

TEST_F(ReaderTest, QuoteErrors) {
  for (const char* src : {"'(1 2)", "'[1 2]", "'{:a 1}", "'#{1}"}) {
    Error e = err(src);
    EXPECT_EQ(e.message, "quoted collections are not supported; only quoted symbols like 'x")
        << src;
    EXPECT_LOC(e.loc, 1u, 1u);
  }
  EXPECT_LOC(err("(f '(1))").loc, 1u, 4u);
  EXPECT_EQ(err("'1").message, "only symbols can be quoted with '");
  EXPECT_EQ(err("':k").message, "only symbols can be quoted with '");
  EXPECT_EQ(err("'nil").message, "only symbols can be quoted with '");
  EXPECT_EQ(err("'\"s\"").message, "only symbols can be quoted with '");
  EXPECT_EQ(err("x '").message, "' at the end of input needs a symbol");
  EXPECT_EQ(err("#'1").message, "only symbols can be quoted with #'");

  Error e = err("(inc @x)");
  EXPECT_EQ(e.message, "deref (@) is not supported");
  EXPECT_CONTAINS(e.hint, "atoms");
  EXPECT_LOC(e.loc, 1u, 6u);
  e = err("^:private x");
  EXPECT_EQ(e.message, "metadata is not supported");
  EXPECT_CONTAINS(err("`x").message, "syntax quote");
  EXPECT_CONTAINS(err("~x").message, "unquote");
}

// ---------------------------------------------------------------------------
// Collections, #(), #"", dispatch

TEST_F(ReaderTest, Collections) {
  const Form* f = one("(a [1 2] {:k \"v\"} #{3})");
  ASSERT_EQ(f->kind, FormKind::List);
  ASSERT_EQ(f->count, 4u);
  EXPECT_EQ(f->items[0]->kind, FormKind::Symbol);
  EXPECT_EQ(f->items[1]->kind, FormKind::Vector);
  EXPECT_EQ(f->items[1]->count, 2u);
  EXPECT_EQ(f->items[2]->kind, FormKind::Map);
  EXPECT_EQ(f->items[2]->count, 2u);
  EXPECT_EQ(f->items[3]->kind, FormKind::Set);
  EXPECT_EQ(f->items[3]->count, 1u);
  EXPECT_TRUE(f->items[1]->is_seq());
  EXPECT_EQ(f->children().size(), 4u);
  EXPECT_EQ(show(f), "(a [1 2] {:k \"v\"} #{3})");

  for (const char* empty : {"()", "[]", "{}", "#{}", "#()"}) {
    const Form* e = one(empty);
    EXPECT_EQ(e->count, 0u) << empty;
    EXPECT_EQ(show(e), empty);
  }
  EXPECT_EQ(shown("[[[1]] ([]) {[1] {:a #{}}}]"), "[[[1]] ([]) {[1] {:a #{}}}]");
  EXPECT_EQ(shown("(a(b)c[d]e)"), "(a (b) c [d] e)");
}

TEST_F(ReaderTest, FnLiteralAndRegex) {
  const Form* f = one("#(+ % 1)");
  ASSERT_EQ(f->kind, FormKind::FnLiteral);
  ASSERT_EQ(f->count, 3u);
  EXPECT_TRUE(f->items[0]->is_symbol("+"));
  EXPECT_TRUE(f->items[1]->is_symbol("%"));
  EXPECT_EQ(f->items[2]->i, 1);
  EXPECT_EQ(shown("(map #(str %1 %2) [#(a) #(b)])"), "(map #(str %1 %2) [#(a) #(b)])");

  f = one(R"(#"a\"b")");
  ASSERT_EQ(f->kind, FormKind::Regex);
  EXPECT_EQ(f->text, R"(a\"b)");
  EXPECT_EQ(one(R"(#"\d+\.\s")")->text, R"(\d+\.\s)");
  EXPECT_EQ(one(R"(#"a\\")")->text, R"(a\\)");
  EXPECT_EQ(one(R"(#"")")->text, "");
  EXPECT_EQ(one("#\"a\nb\"")->text, "a\nb");
  EXPECT_LOC(one(R"(#"x")")->end, 1u, 5u);
}

TEST_F(ReaderTest, CollectionErrors) {
  Error e = err("(let [m {:a 1 :b}] m)");
  EXPECT_EQ(e.message, "map literal needs an even number of forms, got 3");
  EXPECT_LOC(e.loc, 1u, 9u);

  e = err("#(map #(inc %) %)");
  EXPECT_EQ(e.message, "nested #() are not allowed; use (fn [x] ...) for the inner function");
  EXPECT_LOC(e.loc, 1u, 7u);
  e = err("#(f [1 {:a #(x)}])");
  EXPECT_LOC(e.loc, 1u, 12u);

  e = err(R"(#"abc)");
  EXPECT_EQ(e.message, "unterminated regex starting at 1:1");
  e = err(R"(x #"ab\")");
  EXPECT_EQ(e.message, "unterminated regex starting at 1:3");
  EXPECT_LOC(e.loc, 1u, 3u);

  e = err("(x #inst \"2020\")");
  EXPECT_EQ(e.message, "unsupported reader syntax #inst");
  EXPECT_LOC(e.loc, 1u, 4u);
  EXPECT_CONTAINS(err("#?(:clj 1)").message, "#?");
  EXPECT_CONTAINS(err("#?(:clj 1)").hint, "reader conditionals");
  EXPECT_CONTAINS(err("#=(+ 1 2)").message, "#=");
  EXPECT_EQ(err("x #").message, "# at the end of input");
  EXPECT_CONTAINS(err("# x").message, "# followed by");
  EXPECT_CONTAINS(err("#[1]").message, "#");
}

// ---------------------------------------------------------------------------
// Whitespace, comments, #_

TEST_F(ReaderTest, WhitespaceAndComments) {
  EXPECT_TRUE(all("").empty());
  EXPECT_TRUE(all("   \n\t,,\r\n").empty());
  EXPECT_TRUE(all("; only a comment").empty());
  EXPECT_TRUE(all("; one\n;; two\r\n").empty());
  EXPECT_EQ(shown_all("[1,2,,3]"), "[1 2 3]");
  EXPECT_EQ(shown_all("1 ; comment (not a form\n2"), "1 2");
  EXPECT_EQ(shown_all("(a ; x )\n b)"), "(a b)");
  EXPECT_EQ(shown_all("a;c\rb"), "a b");
  EXPECT_EQ(shown_all("\"; not a comment\""), "\"; not a comment\"");
}

TEST_F(ReaderTest, Discard) {
  EXPECT_EQ(shown_all("#_ a b"), "b");
  EXPECT_EQ(shown_all("#_a"), "");
  EXPECT_EQ(shown_all("#_ #_ a b c"), "c");
  EXPECT_EQ(shown_all("[1 #_ 2 3]"), "[1 3]");
  EXPECT_EQ(shown_all("[1 #_(x (y [z])) 3]"), "[1 3]");
  EXPECT_EQ(shown_all("{:a 1 #_ :b #_ 2}"), "{:a 1}");
  EXPECT_EQ(shown_all("(a #_ #_ b c)"), "(a)");
  EXPECT_EQ(shown_all("#_ ; comment\n x y"), "y");
  EXPECT_EQ(shown_all("(#_ #(a) b)"), "(b)");
  EXPECT_EQ(shown_all("#_ 'q r"), "r");

  Error e = err("[1 #_]");
  EXPECT_EQ(e.message, "#_ has no form to discard before ]");
  EXPECT_LOC(e.loc, 1u, 4u);
  e = err("x\n  #_");
  EXPECT_EQ(e.message, "#_ has no form to discard before the end of input");
  EXPECT_LOC(e.loc, 2u, 3u);
  e = err("(a #_ #_ b)");
  EXPECT_LOC(e.loc, 1u, 4u);
}

// ---------------------------------------------------------------------------
// Locations

TEST_F(ReaderTest, LocationsOfNestedForms) {
  const char* src =
      "(defn f [x]\n"
      "  (let [y {:a 1}]\n"
      "    (+ x y)))";
  const Form* f = one(src);
  EXPECT_LOC(f->loc, 1u, 1u);
  EXPECT_LOC(f->end, 3u, 14u);
  EXPECT_LOC(f->items[0]->loc, 1u, 2u);
  EXPECT_LOC(f->items[0]->end, 1u, 6u);
  EXPECT_LOC(f->items[1]->loc, 1u, 7u);
  EXPECT_LOC(f->items[2]->loc, 1u, 9u);
  EXPECT_LOC(f->items[2]->end, 1u, 12u);
  const Form* let = f->items[3];
  EXPECT_LOC(let->loc, 2u, 3u);
  EXPECT_LOC(let->end, 3u, 13u);
  const Form* bindings = let->items[1];
  EXPECT_LOC(bindings->loc, 2u, 8u);
  const Form* map = bindings->items[1];
  EXPECT_LOC(map->loc, 2u, 11u);
  EXPECT_LOC(map->end, 2u, 17u);
  EXPECT_LOC(map->items[0]->loc, 2u, 12u);
  EXPECT_LOC(map->items[0]->end, 2u, 14u);
  EXPECT_LOC(map->items[1]->loc, 2u, 15u);
  const Form* plus = let->items[2];
  EXPECT_LOC(plus->loc, 3u, 5u);
  EXPECT_LOC(plus->items[2]->loc, 3u, 10u);
}

TEST_F(ReaderTest, LineBreakStyles) {
  auto forms = all("a\r\nb\rc\nd\r\n\r\ne");
  ASSERT_EQ(forms.size(), 5u);
  EXPECT_LOC(forms[0]->loc, 1u, 1u);
  EXPECT_LOC(forms[1]->loc, 2u, 1u);
  EXPECT_LOC(forms[2]->loc, 3u, 1u);
  EXPECT_LOC(forms[3]->loc, 4u, 1u);
  EXPECT_LOC(forms[4]->loc, 6u, 1u);
  // A string spanning a CRLF.
  forms = all("\"a\r\nb\" x");
  ASSERT_EQ(forms.size(), 2u);
  EXPECT_LOC(forms[0]->end, 2u, 3u);
  EXPECT_LOC(forms[1]->loc, 2u, 4u);
  // Comments ending in CRLF.
  forms = all("; c\r\n  y");
  EXPECT_LOC(forms[0]->loc, 2u, 3u);
}

TEST_F(ReaderTest, ColumnsCountCodePoints) {
  auto forms = all("\"λλ\" x");
  ASSERT_EQ(forms.size(), 2u);
  EXPECT_LOC(forms[0]->end, 1u, 5u);
  EXPECT_LOC(forms[1]->loc, 1u, 6u);
  forms = all("(str \"中文\" \\é y)");
  const Form* f = forms[0];
  EXPECT_LOC(f->items[2]->loc, 1u, 11u);
  EXPECT_LOC(f->items[3]->loc, 1u, 14u);
  // A 4-byte character is one column.
  forms = all("\"😀\" z");
  EXPECT_LOC(forms[1]->loc, 1u, 5u);
  Error e = err("\"ü\" \"é\\q\"");
  EXPECT_LOC(e.loc, 1u, 7u);
}

// ---------------------------------------------------------------------------
// Bracket errors

TEST_F(ReaderTest, UnclosedBrackets) {
  Error e = err("(defn f [x]\n  (inc x)");
  EXPECT_EQ(e.message, "unclosed ( opened at 1:1");
  EXPECT_EQ(e.hint, "add the missing )");
  EXPECT_LOC(e.loc, 1u, 1u);

  e = err("[1 (2 3)\n [4");
  EXPECT_EQ(e.message, "unclosed [ opened at 2:2");
  EXPECT_EQ(e.hint, "add the missing ]");
  EXPECT_LOC(e.loc, 2u, 2u);

  e = err("x {:a");
  EXPECT_EQ(e.message, "unclosed { opened at 1:3");
  EXPECT_EQ(err("  #{1").message, "unclosed #{ opened at 1:3");
  EXPECT_EQ(err("#{1").hint, "add the missing }");
  EXPECT_EQ(err("#(+ %").message, "unclosed #( opened at 1:1");
}

TEST_F(ReaderTest, MismatchedAndStrayClosers) {
  Error e = err("(a]");
  EXPECT_EQ(e.message, "expected ) to close ( at 1:1, found ]");
  EXPECT_LOC(e.loc, 1u, 3u);

  e = err("[1\n {:a 1)]");
  EXPECT_EQ(e.message, "expected } to close { at 2:2, found )");
  EXPECT_LOC(e.loc, 2u, 7u);

  e = err("#{1 2]");
  EXPECT_EQ(e.message, "expected } to close #{ at 1:1, found ]");

  e = err(")");
  EXPECT_EQ(e.message, "unexpected ) with nothing open");
  EXPECT_LOC(e.loc, 1u, 1u);
  e = err("(a b))");
  EXPECT_EQ(e.message, "unexpected ) with nothing open");
  EXPECT_LOC(e.loc, 1u, 6u);
  e = err("x\n ]");
  EXPECT_EQ(e.message, "unexpected ] with nothing open");
  EXPECT_LOC(e.loc, 2u, 2u);
  EXPECT_EQ(err("}").message, "unexpected } with nothing open");
}

// ---------------------------------------------------------------------------
// UTF-8

TEST_F(ReaderTest, InvalidUtf8) {
  Error e = err("(a\n(foo \xFF))");
  EXPECT_EQ(e.message, "invalid UTF-8 at 2:6");
  EXPECT_LOC(e.loc, 2u, 6u);
  EXPECT_CONTAINS(e.hint, "0xFF");

  e = err("\"λ\xC3\"");  // truncated 2-byte sequence after a valid one
  EXPECT_EQ(e.message, "invalid UTF-8 at 1:3");
  e = err("ab\xC0\x80");  // overlong NUL
  EXPECT_EQ(e.message, "invalid UTF-8 at 1:3");
  e = err("x\r\n\xED\xA0\x80");  // encoded surrogate
  EXPECT_EQ(e.message, "invalid UTF-8 at 2:1");
  e = err("; comment \x80\n");  // also inside comments
  EXPECT_EQ(e.message, "invalid UTF-8 at 1:11");
  e = err("ok\xE4\xB8");  // truncated at the end
  EXPECT_EQ(e.message, "invalid UTF-8 at 1:3");
}

// ---------------------------------------------------------------------------
// read_one

TEST_F(ReaderTest, ReadOne) {
  EXPECT_EQ(shown("  ; lead\n (a) ; trail\n"), "(a)");
  Error e;
  try {
    read_one(arena, " ; nothing\n");
    ADD_FAILURE() << "expected an error";
  } catch (const LispError& ex) {
    e = ex.error();
  }
  EXPECT_EQ(e.kind, ErrorKind::ParseError);
  EXPECT_EQ(e.message, "expected a form, found nothing");

  try {
    read_one(arena, "(a)\n  b");
    ADD_FAILURE() << "expected an error";
  } catch (const LispError& ex) {
    e = ex.error();
  }
  EXPECT_EQ(e.kind, ErrorKind::ParseError);
  EXPECT_EQ(e.message, "expected exactly one form, found more");
  EXPECT_LOC(e.loc, 2u, 3u);
  EXPECT_EQ(one("#_ x y")->text, "y");
}

TEST_F(ReaderTest, ReadProgramReturnsAllTopLevelForms) {
  auto forms = all("(def x 1)\n(def y 2)\n(+ x y)");
  ASSERT_EQ(forms.size(), 3u);
  EXPECT_EQ(show(forms[2]), "(+ x y)");
  EXPECT_LOC(forms[1]->loc, 2u, 1u);
  EXPECT_EQ(shown_all("1 2.5 :k \"s\" sym"), "1 F2.500000 :k \"s\" sym");
}

// ---------------------------------------------------------------------------
// Limits and robustness

TEST_F(ReaderTest, NestingDepthLimit) {
  std::string ok = std::string(1000, '[') + std::string(1000, ']');
  const Form* f = one(ok);
  EXPECT_EQ(f->kind, FormKind::Vector);

  std::string too_deep = std::string(1001, '[') + std::string(1001, ']');
  Error e = err(too_deep);
  EXPECT_EQ(e.message, "nesting deeper than 1000 levels");
  EXPECT_LOC(e.loc, 1u, 1001u);

  ReaderOptions shallow;
  shallow.max_nesting_depth = 3;
  EXPECT_EQ(show(one("[[[1]]]", shallow)), "[[[1]]]");
  e = err("(a {:b #{#(x)}})", shallow);
  EXPECT_EQ(e.message, "nesting deeper than 3 levels");
  EXPECT_LOC(e.loc, 1u, 10u);
}

TEST_F(ReaderTest, HundredThousandLevelsIsAParseError) {
  for (char open : {'[', '(', '{'}) {
    std::string src(100000, open);
    Error e = err(src);
    EXPECT_EQ(e.message, "nesting deeper than 1000 levels") << open;
    EXPECT_LOC(e.loc, 1u, 1001u);
  }
  std::string mixed;
  for (int i = 0; i < 50000; ++i)
    mixed += "#{";
  EXPECT_EQ(err(mixed).message, "nesting deeper than 1000 levels");
  // Balanced, too.
  std::string balanced = std::string(100000, '(') + std::string(100000, ')');
  EXPECT_EQ(err(balanced).message, "nesting deeper than 1000 levels");
}

TEST_F(ReaderTest, HundredThousandLevelsReadIterativelyWhenAllowed) {
  ReaderOptions deep;
  deep.max_nesting_depth = 200000;
  const int depth = 100000;
  std::string src = cat(std::string(depth, '['), "42", std::string(depth, ']'));
  const Form* f = one(src, deep);
  int levels = 0;
  while (f->kind == FormKind::Vector) {
    ASSERT_EQ(f->count, 1u);
    f = f->items[0];
    ++levels;
  }
  EXPECT_EQ(levels, depth);
  EXPECT_EQ(f->i, 42);
  EXPECT_LOC(f->loc, 1u, static_cast<uint32_t>(depth + 1));
  // Unclosed at that depth reports the innermost opener.
  Error e = err(std::string(depth, '('), deep);
  EXPECT_EQ(e.message, "unclosed ( opened at 1:100000");
}

TEST_F(ReaderTest, OneMegabyteProgramParsesQuickly) {
  std::string src;
  int expected = 0;
  while (src.size() < (1u << 20)) {
    src += "(+ x 1 \"s\" :k [2.5 nil]) ; c\n";
    ++expected;
  }
  auto start = std::chrono::steady_clock::now();
  auto forms = all(src);
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(forms.size(), static_cast<size_t>(expected));
  EXPECT_EQ(show(forms.back()), "(+ x 1 \"s\" :k [F2.500000 nil])");
  EXPECT_LOC(forms.back()->loc, static_cast<uint32_t>(expected), 1u);
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 5000);

  // One huge string and one huge symbol are fine too.
  std::string big_string = cat("\"", std::string(1 << 20, 'a'), "\"");
  EXPECT_EQ(one(big_string)->text.size(), 1u << 20);
  std::string big_symbol(1 << 20, 'z');
  EXPECT_EQ(one(big_symbol)->text.size(), 1u << 20);
  // Error messages quote long tokens shortened.
  Error e = err(cat(std::string(1 << 20, 'z'), "$", ""));
  EXPECT_LT(e.message.size(), 200u);
}

// Every input either parses or fails with a located ParseError; nothing else.
void expect_parse_or_parse_error(Arena& arena, const std::string& src) {
  try {
    read_program(arena, src);
  } catch (const LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::ParseError);
    EXPECT_TRUE(e.error().loc.known());
    EXPECT_FALSE(e.error().message.empty());
  }
}

TEST(ReaderFuzz, RandomBytes) {
  std::mt19937 rng(20240601);
  int errors = 0;
  for (int round = 0; round < 2000; ++round) {
    Arena arena(64u << 20);
    std::string src(rng() % 200, '\0');
    for (char& c : src)
      c = static_cast<char>(rng() & 0xFF);
    try {
      read_program(arena, src);
    } catch (const LispError& e) {
      ASSERT_EQ(e.error().kind, ErrorKind::ParseError) << e.error().message;
      ASSERT_TRUE(e.error().loc.known());
      ++errors;
    }
  }
  EXPECT_GT(errors, 1000);  // random bytes are mostly invalid
}

TEST(ReaderFuzz, RandomTokens) {
  // Valid UTF-8 made of syntax fragments, so the fuzz reaches past the UTF-8
  // check into every part of the reader.
  const std::vector<std::string> pieces = {
      "(",
      ")",
      "[",
      "]",
      "{",
      "}",
      "#{",
      "#(",
      "#\"",
      "\"",
      "\\",
      "#_",
      "##",
      "#'",
      "'",
      "@",
      "^",
      "`",
      "~",
      ";",
      "\n",
      "\r",
      "\r\n",
      " ",
      ",",
      "\t",
      ":",
      "::",
      "/",
      ".",
      "-",
      "+",
      "1",
      "0",
      "007",
      "1.5",
      "e",
      "E",
      "N",
      "M",
      "x",
      "nil",
      "true",
      "%",
      "&",
      "λ",
      "é",
      "😀",
      "\\u",
      "D83D",
      "00e9",
      "newline",
      "Inf",
      "NaN",
      "#",
      "a",
      "\\n",
      "\\d",
      "12345678901234567890",
      "\xC2\xA0",
      std::string(1, '\0'),
  };
  std::mt19937 rng(7);
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    Arena arena(64u << 20);
    std::string src;
    size_t n = rng() % 40;
    for (size_t i = 0; i < n; ++i)
      src += pieces[rng() % pieces.size()];
    try {
      read_program(arena, src);
      ++parsed;
    } catch (const LispError& e) {
      ASSERT_EQ(e.error().kind, ErrorKind::ParseError) << e.error().message;
      ASSERT_TRUE(e.error().loc.known()) << src;
    }
  }
  EXPECT_GT(parsed, 0);
}

TEST(ReaderFuzz, MutatedProgram) {
  const std::string base =
      "(defn f [x & more]\n  (let [{:keys [a b]} x\n        s \"str\\n\\u00e9\"]\n"
      "    #_ (ignored) (map #(+ % 1) [1 2.5 -3 ##Inf \\a \\newline 'sym #'v #\"re\\d\"])))\n"
      "{:a #{1 2} :b nil} ; comment\n";
  Arena check(1u << 20);
  ASSERT_EQ(read_program(check, base).size(), 2u);
  std::mt19937 rng(99);
  const std::string alphabet = "()[]{}#\"\\;:'@^ \n0a%.";
  for (int round = 0; round < 2000; ++round) {
    Arena arena(16u << 20);
    std::string src = base;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % src.size();
      switch (rng() % 3) {
        case 0:
          src.erase(at, 1);
          break;
        case 1:
          src.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
        default:
          src[at] = static_cast<char>(rng() & 0xFF);
          break;
      }
      if (src.empty()) src.push_back('x');
    }
    expect_parse_or_parse_error(arena, src);
  }
}

TEST(FormKindName, EveryKindHasADistinctName) {
  std::set<std::string> names;
  for (int k = static_cast<int>(FormKind::Nil); k <= static_cast<int>(FormKind::Quote); ++k) {
    const char* name = form_kind_name(static_cast<FormKind>(k));
    ASSERT_NE(name, nullptr);
    EXPECT_FALSE(std::string(name).empty());
    names.insert(name);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(FormKind::Quote) + 1);
  EXPECT_STREQ(form_kind_name(FormKind::Vector), "vector");
  EXPECT_STREQ(form_kind_name(FormKind::Symbol), "symbol");
}

// A REPL reads another line exactly when the text ends inside a form.
TEST(InputStatus, BlankCompleteOrIncomplete) {
  for (const char* src : {"", "  \n", "; only a comment\n", ",,"})
    EXPECT_EQ(input_status(src), InputStatus::Blank) << src;
  for (const char* src : {"(+ 1 2)", "1 2", "x\n", "\\(", "\\)", "\"(\"", "#\"[\"", "; (\n:a",
                          "(str \"a;b\" \\; \\])", "'x", "#_ 1 2"})
    EXPECT_EQ(input_status(src), InputStatus::Complete) << src;
  for (const char* src : {"(+ 1", "(let [x 1]\n", "{:a [1 2]", "(str \"abc", "\"a\\", "#\"a",
                          "(#{1 ", "#(inc %", "'", "(foo #_", "(f 1) (g", "(\\( ; )\n"})
    EXPECT_EQ(input_status(src), InputStatus::Incomplete) << src;
  // Errors before the end are complete: running the text reports them at once.
  for (const char* src :
       {")", "(+ 1 2))", "(let [x 1})", "{:a [1 2}", "(\"a\\q\"", "#foo (", "(x 12abc"})
    EXPECT_EQ(input_status(src), InputStatus::Complete) << src;
}

}  // namespace
}  // namespace ptc
