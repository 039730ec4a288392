// A model's text answer read against a signature (our versions of the
// reference's facts 40-42 and 75), strictly (the tool-call transport) and
// leniently (combined mode), and the fenced-program check (facts 44-45).
#include <gtest/gtest.h>

#include "protocol/agent/final_answer.hpp"

namespace {

using ptc::HostValue;
using ptc::parse_json;
using ptc::parse_signature;
using ptc::Signature;
using ptc::to_json;
using ptc::protocol::FinalAnswer;
using ptc::protocol::has_fenced_program;
using ptc::protocol::JsonExtraction;
using ptc::protocol::parse_final_answer;

constexpr JsonExtraction kBoth[] = {JsonExtraction::Strict, JsonExtraction::Lenient};

FinalAnswer answer(const std::string& content, const std::string& signature,
                   JsonExtraction extraction = JsonExtraction::Strict) {
  if (signature.empty()) return parse_final_answer(content, nullptr, extraction);
  Signature sig = parse_signature(signature);
  return parse_final_answer(content, &sig, extraction);
}

HostValue ok_value(const std::string& content, const std::string& signature,
                   JsonExtraction extraction = JsonExtraction::Strict) {
  FinalAnswer a = answer(content, signature, extraction);
  EXPECT_TRUE(a.ok) << signature << " <- " << content << ": " << a.error;
  return a.value;
}

std::string error_of(const std::string& content, const std::string& signature,
                     JsonExtraction extraction = JsonExtraction::Strict) {
  FinalAnswer a = answer(content, signature, extraction);
  EXPECT_FALSE(a.ok) << signature << " <- " << content;
  return a.error;
}

// Facts 40 and 75: text answers are the raw text.
TEST(FinalAnswer, TextIsTheAnswerWithoutASignatureOrForStringAndAny) {
  for (JsonExtraction e : kBoth) {
    EXPECT_EQ(ok_value("just a string answer", "", e), HostValue::string("just a string answer"));
    EXPECT_EQ(ok_value("hello world", "", e), HostValue::string("hello world"));
    EXPECT_EQ(ok_value("raw answer", ":string", e), HostValue::string("raw answer"));
    EXPECT_EQ(ok_value("anything goes", ":any", e), HostValue::string("anything goes"));
    EXPECT_EQ(ok_value("  padded\n", ":string", e), HostValue::string("  padded\n"))
        << "not trimmed";
    EXPECT_EQ(ok_value("", "", e), HostValue::string(""));
    EXPECT_EQ(ok_value("{\"a\": 1}", "(q :string) -> :any", e), HostValue::string("{\"a\": 1}"));
  }
}

// Facts 41 and 75: JSON, coerced and checked.
TEST(FinalAnswer, JsonIsCheckedAgainstTheOutputType) {
  for (JsonExtraction e : kBoth) {
    EXPECT_EQ(ok_value(R"({"name": "alice", "age": 30})", "{name :string, age :int}", e),
              parse_json(R"({"name":"alice","age":30})"));
    EXPECT_EQ(ok_value("[1, 2, 3]", "[:int]", e), parse_json("[1,2,3]"));
    EXPECT_EQ(ok_value(" 42\n", ":int", e), HostValue::integer(42));
    EXPECT_EQ(ok_value("3.14", ":float", e), HostValue::floating(3.14));
    EXPECT_EQ(ok_value("true", ":bool", e), HostValue::boolean(true));
    EXPECT_EQ(ok_value("null", ":int?", e), HostValue::nil());
    EXPECT_EQ(ok_value(R"({"name": "ada"})", "{name :string}", e), parse_json(R"({"name":"ada"})"));
    EXPECT_EQ(ok_value(R"({"answer": 7})", "{answer :int}", e), parse_json(R"({"answer":7})"));
    EXPECT_EQ(ok_value(R"("done")", ":keyword", e), HostValue::string("done"));
    EXPECT_EQ(ok_value(R"({"k": 1})", ":map", e), parse_json(R"({"k":1})"));
  }
}

TEST(FinalAnswer, MapKeysComeBackAsStringsWithUnderscores) {
  HostValue v = ok_value(R"({"user-id": 7, "tags": [{"tag-name": "x"}]})",
                         "{user_id :int, tags [{tag_name :string}]}");
  EXPECT_EQ(to_json(v, true), R"({"tags":[{"tag_name":"x"}],"user_id":7})");
}

TEST(FinalAnswer, DatetimeTakesQuotedOrBareIsoText) {
  for (JsonExtraction e : kBoth) {
    for (const char* text :
         {"\"2026-05-05T00:00:00Z\"", "2026-05-05T00:00:00Z", " 2026-05-05T02:00:00+02:00\n"})
      EXPECT_EQ(ok_value(text, ":datetime", e), HostValue::string("2026-05-05T00:00:00Z")) << text;
    EXPECT_EQ(ok_value("null", ":datetime?", e), HostValue::nil());
    EXPECT_EQ(error_of("yesterday", ":datetime", e),
              "Could not parse datetime from response: \"yesterday\"");
    EXPECT_EQ(error_of("2026-05-05T00:00:00", ":datetime", e),
              "Could not parse datetime from response: \"2026-05-05T00:00:00\"")
        << "no offset";
  }
}

// Fact 42's first turn, and what a wrong value is told.
TEST(FinalAnswer, ErrorsSayWhatIsWrong) {
  for (JsonExtraction e : kBoth) {
    EXPECT_EQ(error_of("not json", "{name :string, age :int}", e),
              "Could not parse JSON from response.");
    EXPECT_EQ(error_of("", ":int", e), "Could not parse JSON from response.");
    std::string wrong_field =
        error_of(R"({"name": "x", "age": "1"})", "{name :string, age :int}", e);
    EXPECT_TRUE(wrong_field.starts_with("Return validation failed: age: expected :int"))
        << wrong_field;
    std::string missing = error_of(R"({"name": "x"})", "{name :string, age :int}", e);
    EXPECT_TRUE(missing.starts_with("Return validation failed: age: missing required field age"))
        << missing;
    std::string root = error_of(R"("42")", ":int", e);
    EXPECT_TRUE(root.starts_with("Return validation failed: root: expected :int")) << root;
    std::string element = error_of("[1, \"two\"]", "[:int]", e);
    EXPECT_TRUE(element.starts_with("Return validation failed: [1]: ")) << element;
  }
  EXPECT_TRUE(error_of("1.5", ":int").starts_with("Return validation failed: root:"));
  EXPECT_TRUE(error_of("\"true\"", ":bool").starts_with("Return validation failed: root:"))
      << "scalars decode strictly";
}

TEST(FinalAnswer, StrictNeedsTheWholeTextToBeJson) {
  const std::string sig = "{name :string}";
  for (const char* content : {"```json\n{\"name\": \"ada\"}\n```", "Here: {\"name\": \"ada\"}",
                              "{\"name\": \"ada\"} -- done"})
    EXPECT_EQ(error_of(content, sig), "Could not parse JSON from response.") << content;
  EXPECT_FALSE(answer(R"({"items": [1, 2]})", "[:int]").ok);
}

TEST(FinalAnswer, LenientFindsJsonInFencesAndProse) {
  const std::string sig = "{name :string}";
  const HostValue ada = parse_json(R"({"name":"ada"})");
  for (const char* content : {
           "```json\n{\"name\": \"ada\"}\n```",
           "Sure! Here it is:\n```json\n{\"name\": \"ada\"}\n```\nAnything else?",
           "```\n{\"name\": \"ada\"}\n```",
           "The record is {\"name\": \"ada\"} as requested.",
           "Note [draft] first: {\"name\": \"ada\"}",
           "A brace in a string: {\"name\": \"ada\", \"note\": \"} [\"}",
       }) {
    HostValue v = ok_value(content, sig, JsonExtraction::Lenient);
    EXPECT_EQ(*v.get("name"), HostValue::string("ada")) << content;
  }
  EXPECT_EQ(ok_value("Found: [1, 2, 3].", "[:int]", JsonExtraction::Lenient),
            parse_json("[1,2,3]"));
  EXPECT_EQ(error_of("no json here {", sig, JsonExtraction::Lenient),
            "Could not parse JSON from response.");
}

TEST(FinalAnswer, LenientTakesAnItemsWrapperForLists) {
  EXPECT_EQ(ok_value(R"({"items": [1, 2]})", "[:int]", JsonExtraction::Lenient),
            parse_json("[1,2]"));
  EXPECT_EQ(ok_value(R"({"items": [{"id": 1}]})", "[{id :int}]", JsonExtraction::Lenient),
            parse_json(R"([{"id":1}])"));
  // Not for maps: there {"items": ...} is the map itself.
  EXPECT_EQ(ok_value(R"({"items": [1]})", "{items [:int]}", JsonExtraction::Lenient),
            parse_json(R"({"items":[1]})"));
}

TEST(FinalAnswer, LenientLeavesScalarsStrict) {
  EXPECT_EQ(error_of("The answer is 42", ":int", JsonExtraction::Lenient),
            "Could not parse JSON from response.");
  EXPECT_EQ(error_of("```json\n42\n```", ":int", JsonExtraction::Lenient),
            "Could not parse JSON from response.");
}

// Facts 44-45: a program written as text instead of sent to lisp_eval.
TEST(FencedProgram, TaggedOrUntaggedStartingWithAParen) {
  for (const char* text : {
           "```clojure\n(return 1)\n```",
           "```lisp\n(+ 1 2)\n```",
           "Let me compute:\n```clojure\n(def x 1)\nx\n```\nDone.",
           "```\n(+ 1 2)\n```",
           "```\n\n  (count [1 2])\n```",
           "```python\n(print 1)\n```",
           "```clojure\n(+ 1 2)\n</clojure>",
           "  ```clojure  \n(+ 1 2)\n  ```  ",
           "```clojure\nnot even code\n```",
           "```text\nfirst\n```\n```\n(second)\n```",
       })
    EXPECT_TRUE(has_fenced_program(text)) << text;
}

TEST(FencedProgram, JsonPlainTextAndUnclosedBlocksAreNot) {
  for (const char* text : {
           "```json\n{\"a\": 1}\n```",
           "```\nplain text\n```",
           "```clojure\n(+ 1 2)",
           "the answer is (+ 1 2) = 3",
           "(return 1)",
           "",
           "```\n```",
           "``` not a fence close\n(+ 1 2)",
       })
    EXPECT_FALSE(has_fenced_program(text)) << text;
}

}  // namespace
