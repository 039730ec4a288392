// Decoding the payload of a tools/call result (the HTTP framing and SSE
// events are protocol/net's: tests/net/http_reply_test.cpp).
#include "protocol/upstream/reply_decoding.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ptc::upstream {
namespace {

TEST(ToolPayload, StructuredContentThenJsonTextThenText) {
  HostValue text_json = parse_json(R"({"content": [{"type": "text", "text": " {\"a\": 1}"}]})");
  EXPECT_EQ(tool_payload(text_json, nullptr), parse_json(R"({"a": 1})"));
  HostValue both =
      parse_json(R"({"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": 2}})");
  std::string text;
  EXPECT_EQ(tool_payload(both, &text), parse_json(R"({"n": 2})"));
  EXPECT_EQ(text, "x");
  HostValue two = parse_json(
      R"({"content": [{"type": "text", "text": "[1"}, {"type": "image"}, {"type": "text", "text": "2]"}]})");
  EXPECT_EQ(tool_payload(two, nullptr), HostValue::string("[1\n2]"));
  EXPECT_TRUE(tool_payload(parse_json(R"({"content": []})"), nullptr).is_nil());
}

}  // namespace
}  // namespace ptc::upstream
