#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "support/host_builders.hpp"

namespace ptc {
namespace {

using H = HostValue;
using Kind = HostValue::Kind;
using namespace testing::host;

// Parses `json` expecting a ParseError; returns the error.
Error parse_error(std::string_view json) {
  try {
    H v = parse_json(json);
    ADD_FAILURE() << "expected a parse error for: " << std::string(json.substr(0, 80));
  } catch (const LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::ParseError) << e.error().message;
    return e.error();
  }
  return {};
}

Error encode_error(const H& h) {
  try {
    std::string s = to_json(h);
    ADD_FAILURE() << "expected an encoding error, got " << s;
  } catch (const LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::TypeError) << e.error().message;
    return e.error();
  }
  return {};
}

// ---------------------------------------------------------------------------
// Parsing

TEST(JsonEncode, SortedKeysAtEveryDepth) {
  H v = H::map(
      {{H::string("b"), H::integer(1)},
       {H::keyword("a"), H::map({{H::string("z"), H::nil()}, {H::string("y"), H::vector({})}})},
       {H::string("B"), H::boolean(true)}});
  EXPECT_EQ(to_json(v), "{\"b\":1,\"a\":{\"z\":null,\"y\":[]},\"B\":true}");
  EXPECT_EQ(to_json(v, true), "{\"B\":true,\"a\":{\"y\":[],\"z\":null},\"b\":1}");
  // A key given as a keyword and as a string is one key: the later one wins.
  H dup = H::map({{H::keyword("k"), H::integer(1)}, {H::string("k"), H::integer(2)}});
  EXPECT_EQ(to_json(dup, true), "{\"k\":2}");
}

TEST(JsonExtracting, ThePathIsLeftAsText) {
  std::string raw;
  std::string_view path[] = {"params", "arguments", "context"};
  H h = parse_json_extracting(
      R"j({"id":1,"params":{"name":"x","arguments":{"program":"1","context":{"a": [1, 2]}}}})j",
      path, &raw);
  EXPECT_EQ(raw, R"j({"a": [1, 2]})j") << "the source's own text";
  EXPECT_EQ(to_json(h), R"j({"id":1,"params":{"name":"x","arguments":{"program":"1"}}})j");
  // A repeated key on the path: the last one counts, its text written out again.
  parse_json_extracting(R"j({"params":{"arguments":{"context":{"a": 1},"context":{"b": 2}}}})j",
                        path, &raw);
  EXPECT_EQ(raw, R"j({"b":2})j");
  // A key written with an escape is the same key; look-alikes are not.
  parse_json_extracting(
      R"j({"params":{"arguments":{"contex":[9],"contexts":[8],"cont\u0065xt":[1, 2]}}})j", path,
      &raw);
  EXPECT_TRUE(raw == "[1,2]" || raw == "[1, 2]") << raw;
  // A scalar is written out compact.
  parse_json_extracting(R"j({"params":{"arguments":{"context": "s"}}})j", path, &raw);
  EXPECT_EQ(raw, R"j("s")j");
  H none = parse_json_extracting(R"j({"id":2})j", path, &raw);
  EXPECT_EQ(raw, "");
  EXPECT_EQ(to_json(none), R"j({"id":2})j");
  // A big integer takes the slow path; the result is the same.
  H big = parse_json_extracting(
      R"j({"params":{"arguments":{"context":{"n":123456789012345678901234567890}}}})j", path, &raw);
  EXPECT_EQ(raw, R"j({"n":123456789012345678901234567890})j");
  EXPECT_EQ(to_json(big), R"j({"params":{"arguments":{}}})j");
  EXPECT_THROW(parse_json_extracting("{bad", path, &raw), LispError);
}

TEST(JsonParse, ExtractingSeveralPathsAtOnce) {
  static constexpr std::string_view context[] = {"params", "arguments", "context"};
  static constexpr std::string_view meta[] = {"params", "_meta"};
  std::string context_raw, meta_raw;
  const JsonExtraction both[] = {{context, &context_raw}, {meta, &meta_raw}};
  H h = parse_json_extracting(
      R"j({"id":1,"params":{"_meta": {"v": "x"},"arguments":{"program":"1","context":{"a": [1, 2]}}}})j",
      both);
  EXPECT_EQ(context_raw, R"j({"a": [1, 2]})j") << "the source's own text";
  EXPECT_EQ(meta_raw, R"j({"v": "x"})j");
  EXPECT_EQ(to_json(h), R"j({"id":1,"params":{"arguments":{"program":"1"}}})j");
  // One of them absent; then the slow path (a big integer) for both.
  parse_json_extracting(R"j({"params":{"_meta":{}}})j", both);
  EXPECT_EQ(context_raw, "");
  EXPECT_EQ(meta_raw, "{}");
  H big = parse_json_extracting(
      R"j({"params":{"_meta":{"n":1},"arguments":{"context":{"n":123456789012345678901234567890}}}})j",
      both);
  EXPECT_EQ(context_raw, R"j({"n":123456789012345678901234567890})j");
  EXPECT_EQ(meta_raw, R"j({"n":1})j");
  EXPECT_EQ(to_json(big), R"j({"params":{"arguments":{}}})j");
  // A visitor gets the parsed value instead of its text (not on the slow path).
  int visits = 0;
  const JsonExtraction visited[] = {
      {meta, &meta_raw, [&](const simdjson::dom::element& e) { visits += e.is_object(); }}};
  H rest = parse_json_extracting(R"j({"params":{"_meta":{"v":1},"name":"n"}})j", visited);
  EXPECT_EQ(visits, 1);
  EXPECT_EQ(meta_raw, "");
  EXPECT_EQ(to_json(rest), R"j({"params":{"name":"n"}})j");
  parse_json_extracting(R"j({"params":{"_meta":{"v":123456789012345678901234567890}}})j", visited);
  EXPECT_EQ(visits, 1);
  EXPECT_EQ(meta_raw, R"j({"v":123456789012345678901234567890})j");
}

TEST(JsonParse, Literals) {
  EXPECT_EQ(parse_json("null").kind(), Kind::Nil);
  H t = parse_json("true");
  ASSERT_EQ(t.kind(), Kind::Bool);
  EXPECT_TRUE(t.as_bool());
  H f = parse_json(" false ");
  ASSERT_EQ(f.kind(), Kind::Bool);
  EXPECT_FALSE(f.as_bool());
}

TEST(JsonParse, Integers) {
  struct Case {
    const char* json;
    int64_t value;
  } cases[] = {{"0", 0},
               {"-0", 0},
               {"42", 42},
               {"-17", -17},
               {"9223372036854775807", std::numeric_limits<int64_t>::max()},
               {"-9223372036854775808", std::numeric_limits<int64_t>::min()}};
  for (const auto& c : cases) {
    H v = parse_json(c.json);
    ASSERT_EQ(v.kind(), Kind::Int) << c.json;
    EXPECT_EQ(v.as_int(), c.value) << c.json;
  }
}

TEST(JsonParse, BigIntegers) {
  const char* cases[] = {
      "9223372036854775808",  "18446744073709551615",           "18446744073709551616",
      "-9223372036854775809", "123456789012345678901234567890", "-123456789012345678901234567890"};
  for (const char* c : cases) {
    H v = parse_json(c);
    ASSERT_EQ(v.kind(), Kind::BigInt) << c;
    EXPECT_EQ(v.text(), c);
  }
  // Inside a document, next to everything else.
  H doc = parse_json(
      R"({"id": 123456789012345678901234567890, "n": [1, -99999999999999999999999, 2.5], "s": "x"})");
  EXPECT_EQ(doc,
            map({{str("id"), H::bigint("123456789012345678901234567890")},
                 {str("n"), vec({num(1), H::bigint("-99999999999999999999999"), H::floating(2.5)})},
                 {str("s"), str("x")}}));
  EXPECT_EQ(doc.get("n")->items()[1].kind(), Kind::BigInt);
  EXPECT_EQ(doc.get("n")->items()[1].text(), "-99999999999999999999999");
}

TEST(JsonParse, Floats) {
  struct Case {
    const char* json;
    double value;
  } cases[] = {{"1.5", 1.5},
               {"-2.5e-3", -2.5e-3},
               {"1E10", 1e10},
               {"6.02e+23", 6.02e23},
               {"1.0", 1.0},
               {"0.1", 0.1},
               {"-0.0", -0.0},
               {"1e-400", 0.0},
               {"123456789012345678901234567890.5", 123456789012345678901234567890.5}};
  for (const auto& c : cases) {
    H v = parse_json(c.json);
    ASSERT_EQ(v.kind(), Kind::Float) << c.json;
    EXPECT_EQ(v.as_float(), c.value) << c.json;
  }
  EXPECT_TRUE(std::signbit(parse_json("-0.0").as_float()));
  // Underflow in a document that also needs the big-integer path.
  H v = parse_json("[1e-400, 99999999999999999999]");
  EXPECT_EQ(v, vec({H::floating(0.0), H::bigint("99999999999999999999")}));
}

TEST(JsonParse, Strings) {
  EXPECT_EQ(parse_json(R"("hello")").text(), "hello");
  EXPECT_EQ(parse_json(R"("")").text(), "");
  EXPECT_EQ(parse_json(R"("q\"b\\s\/ \b\f\n\r\t")").text(), "q\"b\\s/ \b\f\n\r\t");
  EXPECT_EQ(parse_json(R"("caf\u00e9")").text(), "caf\xC3\xA9");
  EXPECT_EQ(parse_json(R"("\u00E9\u20AC")").text(), "é€");
  EXPECT_EQ(parse_json(R"("\ud83d\ude00")").text(), "\xF0\x9F\x98\x80");  // U+1F600
  EXPECT_EQ(parse_json("\"raw UTF-8: é ☃ 😀\"").text(), "raw UTF-8: é ☃ 😀");
  H nul = parse_json(R"("a\u0000b")");
  ASSERT_EQ(nul.text().size(), 3u);
  EXPECT_EQ(nul.text()[1], '\0');
  // Same decoding on the fallback path (a big integer forces it).
  H both = parse_json(R"(["\u00e9\ud83d\ude00\n", 1e30, 100000000000000000000])");
  EXPECT_EQ(both.items()[0].text(), "é😀\n");
}

TEST(JsonParse, ObjectsKeepDocumentOrderWithStringKeys) {
  H m = parse_json(R"({"z": 1, "a": {"nested": [true, null]}, "m": "x"})");
  ASSERT_EQ(m.kind(), Kind::Map);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.items()[0].kind(), Kind::String);
  EXPECT_EQ(m.items()[0].text(), "z");
  EXPECT_EQ(m.items()[2].text(), "a");
  EXPECT_EQ(m.items()[4].text(), "m");
  EXPECT_EQ(*m.get("a"), map({{str("nested"), vec({H::boolean(true), H::nil()})}}));
  EXPECT_EQ(parse_json("{}"), H::map({}));
  EXPECT_EQ(parse_json("[]"), H::vector({}));
  EXPECT_EQ(parse_json(" [ [ ] , { } ] "), vec({H::vector({}), H::map({})}));
}

TEST(JsonParse, DuplicateKeysLastValueFirstPosition) {
  H m = parse_json(R"({"a": 1, "b": 2, "a": 3})");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.items()[0].text(), "a");
  EXPECT_EQ(m.items()[1], num(3));
  EXPECT_EQ(m.items()[2].text(), "b");

  // Many keys (the indexed path), on both parsers.
  for (const char* extra : {"1", "100000000000000000000000"}) {
    std::string json = "{";
    for (int i = 0; i < 40; ++i)
      json += fmt::format("\"k{}\": {}, ", i, i);
    json += fmt::format("\"k5\": \"again\", \"k39\": {}}}", extra);
    H big = parse_json(json);
    ASSERT_EQ(big.size(), 40u) << extra;
    EXPECT_EQ(big.items()[10].text(), "k5");
    EXPECT_EQ(big.items()[11], str("again"));
    EXPECT_EQ(big.items()[78].text(), "k39");
    EXPECT_EQ(big.items()[79].kind(), extra[1] ? Kind::BigInt : Kind::Int);
  }
}

TEST(JsonParse, NestingUpToTheLimit) {
  std::string ok = std::string(1024, '[') + std::string(1024, ']');
  H v = parse_json(ok);
  EXPECT_EQ(v.kind(), Kind::Vector);
  std::string objs;
  for (int i = 0; i < 1024; ++i)
    objs += "{\"a\":";
  objs += "1";
  objs.append(1024, '}');
  EXPECT_EQ(parse_json(objs).kind(), Kind::Map);

  Error e = parse_error(std::string(1025, '[') + std::string(1025, ']'));
  EXPECT_NE(e.message.find("nesting deeper than 1024"), std::string::npos) << e.message;
  EXPECT_EQ(e.loc.line, 1u);
  EXPECT_EQ(e.loc.col, 1025u);
}

TEST(JsonParse, HugeNestingIsAnErrorNotACrash) {
  Error e = parse_error(std::string(100000, '['));
  EXPECT_NE(e.message.find("nesting"), std::string::npos) << e.message;
  Error e2 = parse_error(std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_NE(e2.message.find("nesting"), std::string::npos);
  std::string objs;
  for (int i = 0; i < 100000; ++i)
    objs += "{\"a\":";
  parse_error(objs);
}

TEST(JsonParse, ByteOrderMarkIsSkipped) {
  EXPECT_EQ(parse_json("\xEF\xBB\xBF{\"a\":1}"), map({{str("a"), num(1)}}));
}

// ---------------------------------------------------------------------------
// Malformed JSON

TEST(JsonParseErrors, TrailingCommas) {
  Error a = parse_error("[1,2,]");
  EXPECT_NE(a.message.find("trailing comma"), std::string::npos) << a.message;
  EXPECT_EQ(a.loc.line, 1u);
  EXPECT_EQ(a.loc.col, 5u);
  Error o = parse_error(R"({"a":1,})");
  EXPECT_NE(o.message.find("trailing comma in object"), std::string::npos) << o.message;
  EXPECT_EQ(o.loc.col, 7u);
}

TEST(JsonParseErrors, UnterminatedString) {
  Error e = parse_error(R"(["abc)");
  EXPECT_NE(e.message.find("unterminated string"), std::string::npos) << e.message;
  EXPECT_EQ(e.loc.line, 1u);
  EXPECT_EQ(e.loc.col, 2u);  // where the string opens
}

TEST(JsonParseErrors, InvalidUtf8) {
  Error e = parse_error("[\"ok\", \"bad \xFF here\"]");
  EXPECT_NE(e.message.find("UTF-8"), std::string::npos) << e.message;
  EXPECT_EQ(e.loc.col, 13u);
  parse_error("\"\xC3\"");                              // truncated sequence
  parse_error("\"\xED\xA0\x80\"");                      // encoded surrogate
  parse_error("\"\xC0\xAF\"");                          // overlong
  parse_error("[1, \xFF]");                             // outside a string
  parse_error("[\"\xFF\", 100000000000000000000000]");  // on the big-integer path too
}

TEST(JsonParseErrors, LocationCountsLinesAndCodePoints) {
  Error e = parse_error("{\n  \"a\": [1,\n   2,]\n}");
  EXPECT_EQ(e.loc.line, 3u);
  EXPECT_EQ(e.loc.col, 5u);
  EXPECT_NE(e.message.find("line 3, column 5"), std::string::npos) << e.message;
  Error u = parse_error("[\"é☃\", x]");
  EXPECT_EQ(u.loc.line, 1u);
  EXPECT_EQ(u.loc.col, 8u);
  EXPECT_NE(u.message.find("'x'"), std::string::npos) << u.message;
}

TEST(JsonParseErrors, Various) {
  struct Case {
    const char* json;
    const char* needle;
  } cases[] = {
      {"", "empty input"},
      {"   \n ", "empty input"},
      {"[1 2]", "expected ',' or ']'"},
      {R"({"a" 1})", "expected ':'"},
      {R"({a: 1})", "expected a string key"},
      {"{\"a\":1 \"b\":2}", "expected ',' or '}'"},
      {"[1,2", "unclosed array"},
      {R"({"a":1)", "unclosed object"},
      {"[1] 2", "after the JSON value"},
      {"tru", "invalid literal"},
      {"nul", "invalid literal"},
      {"01", "leading zeros"},
      {"-", "invalid number"},
      {"1.", "after '.'"},
      {"1e", "exponent"},
      {".5", "expected a value"},
      {"+1", "expected a value"},
      {"1e400", "out of range"},
      {"NaN", "expected a value"},
      {R"("\x")", "invalid escape"},
      {R"("\u12G4")", "\\u escape"},
      {R"("\ud800")", "unpaired surrogate"},
      {R"("\udc00")", "unpaired surrogate"},
      {R"("\ud800\u0041")", "unpaired surrogate"},
      {"\"tab\there\"", "control character U+0009"},
      {"'single'", "expected a value"},
  };
  for (const auto& c : cases) {
    Error e = parse_error(c.json);
    EXPECT_NE(e.message.find(c.needle), std::string::npos)
        << "input: " << c.json << "\nmessage: " << e.message;
    EXPECT_TRUE(e.loc.known()) << c.json;
  }
}

// ---------------------------------------------------------------------------
// Encoding

TEST(JsonEncode, Scalars) {
  EXPECT_EQ(to_json(H::nil()), "null");
  EXPECT_EQ(to_json(H::boolean(true)), "true");
  EXPECT_EQ(to_json(H::boolean(false)), "false");
  EXPECT_EQ(to_json(num(42)), "42");
  EXPECT_EQ(to_json(num(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(to_json(H::bigint("123456789012345678901234567890")), "123456789012345678901234567890");
  EXPECT_EQ(to_json(H::bigint("-0042")), "-42");
  EXPECT_EQ(to_json(kw("name")), "\"name\"");
  EXPECT_EQ(to_json(str("plain")), "\"plain\"");
}

TEST(JsonEncode, Floats) {
  EXPECT_EQ(to_json(H::floating(5.0)), "5.0");
  EXPECT_EQ(to_json(H::floating(1.5)), "1.5");
  EXPECT_EQ(to_json(H::floating(-0.25)), "-0.25");
  EXPECT_EQ(to_json(H::floating(0.1)), "0.1");
  EXPECT_EQ(to_json(H::floating(0.1 + 0.2)), "0.30000000000000004");
  EXPECT_EQ(to_json(H::floating(0.0)), "0.0");
  EXPECT_EQ(to_json(H::floating(-0.0)), "-0.0");
  EXPECT_EQ(to_json(H::floating(1e21)), "1e+21");
  EXPECT_EQ(to_json(H::floating(1e-7)), "1e-07");
  EXPECT_EQ(to_json(H::floating(123456.0)), "123456.0");
  // Every emitted float reads back as the same double.
  for (double d : {3.141592653589793, 1e300, 5e-324, 2.5e-8, 1e16}) {
    H back = parse_json(to_json(H::floating(d)));
    ASSERT_EQ(back.kind(), Kind::Float) << d;
    EXPECT_EQ(back.as_float(), d);
  }
}

TEST(JsonEncode, StringEscaping) {
  EXPECT_EQ(to_json(str("a\"b\\c")), R"("a\"b\\c")");
  EXPECT_EQ(to_json(str("line\nnext\ttab\rcr\bbs\fff")), R"("line\nnext\ttab\rcr\bbs\fff")");
  EXPECT_EQ(to_json(H::string(std::string("\x01\x1f\0z", 4))), R"("\u0001\u001F\u0000z")");
  EXPECT_EQ(to_json(str("é ☃ 😀 /")), "\"é ☃ 😀 /\"");  // UTF-8 as is, '/' unescaped
  EXPECT_EQ(to_json(str("\x7f")), "\"\x7f\"");
}

TEST(JsonEncode, CollectionsAreCompact) {
  EXPECT_EQ(to_json(H::vector({})), "[]");
  EXPECT_EQ(to_json(H::map({})), "{}");
  EXPECT_EQ(to_json(vec({num(1), str("a"), H::nil(), vec({H::boolean(true)})})),
            R"([1,"a",null,[true]])");
  EXPECT_EQ(to_json(H::set({kw("x"), num(2)})), R"(["x",2])");
  EXPECT_EQ(to_json(map({{kw("name"), str("Ann")}, {str("tags"), H::set({kw("a")})}})),
            R"({"name":"Ann","tags":["a"]})");
}

TEST(JsonEncode, MapKeysAreStringified) {
  H m = map({{num(1), str("a")},
             {kw("b"), num(2)},
             {str("c d"), num(3)},
             {H::floating(1.5), num(4)},
             {H::floating(2.0), num(5)},
             {H::bigint("123456789012345678901234567890"), num(6)},
             {str("q\""), num(7)}});
  EXPECT_EQ(
      to_json(m),
      R"({"1":"a","b":2,"c d":3,"1.5":4,"2.0":5,"123456789012345678901234567890":6,"q\"":7})");
}

TEST(JsonEncode, Errors) {
  Error nan = encode_error(H::floating(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_NE(nan.message.find("NaN"), std::string::npos) << nan.message;
  Error inf = encode_error(vec({H::floating(std::numeric_limits<double>::infinity())}));
  EXPECT_NE(inf.message.find("Infinity"), std::string::npos) << inf.message;
  Error ninf = encode_error(H::floating(-std::numeric_limits<double>::infinity()));
  EXPECT_NE(ninf.message.find("-Infinity"), std::string::npos) << ninf.message;
  Error op = encode_error(map({{kw("f"), H::opaque("#fn[x]")}}));
  EXPECT_NE(op.message.find("#fn[x]"), std::string::npos) << op.message;

  Error k1 = encode_error(map({{H::nil(), num(1)}}));
  EXPECT_NE(k1.message.find("cannot encode map key nil as JSON"), std::string::npos) << k1.message;
  Error k2 = encode_error(map({{vec({num(1)}), num(1)}}));
  EXPECT_NE(k2.message.find("cannot encode map key of type vector as JSON"), std::string::npos)
      << k2.message;
  Error k3 = encode_error(map({{H::boolean(true), num(1)}}));
  EXPECT_NE(k3.message.find("cannot encode map key true"), std::string::npos) << k3.message;
  Error k4 = encode_error(map({{H::floating(std::numeric_limits<double>::quiet_NaN()), num(1)}}));
  EXPECT_NE(k4.message.find("NaN"), std::string::npos) << k4.message;
  encode_error(H::bigint("12x"));
}

TEST(JsonRoundTrip, ParseOfEncodeIsIdentity) {
  H v = map({{str("id"), H::bigint("-123456789012345678901234567890")},
             {str("name"), str("Zoë \"the\" \\ coder\n")},
             {str("scores"), vec({num(1), H::floating(2.5), H::floating(1e-9), num(-3)})},
             {str("meta"), map({{str("ok"), H::boolean(true)}, {str("none"), H::nil()}})}});
  std::string json = to_json(v);
  H back = parse_json(json);
  EXPECT_EQ(back, v);
  EXPECT_EQ(to_json(back), json);
}

}  // namespace
}  // namespace ptc
