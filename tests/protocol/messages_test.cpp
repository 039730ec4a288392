// Chat messages in the OpenAI format: reading an assistant turn (with its
// malformed shapes) and writing every role back.
#include <gtest/gtest.h>

#include "protocol/agent/messages.hpp"

namespace {

using ptc::HostValue;
using ptc::parse_json;
using ptc::to_json;
using ptc::protocol::ChatMessage;
using ptc::protocol::from_openai;
using ptc::protocol::to_openai;

ChatMessage read_ok(const std::string& json) {
  ChatMessage m;
  std::string error;
  EXPECT_TRUE(from_openai(parse_json(json), &m, &error)) << error;
  return m;
}

std::string read_error(const std::string& json) {
  ChatMessage m;
  std::string error;
  EXPECT_FALSE(from_openai(parse_json(json), &m, &error)) << json;
  return error;
}

TEST(Messages, ReadsAnAssistantTurnWithToolCalls) {
  ChatMessage m =
      read_ok(R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",)"
              R"("function":{"name":"lisp_eval","arguments":"{\"program\":\"(+ 1 2)\"}"}}]})");
  EXPECT_EQ(m.role, "assistant");
  EXPECT_FALSE(m.content);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].id, "c1");
  EXPECT_EQ(m.tool_calls[0].name, "lisp_eval");
  EXPECT_EQ(m.tool_calls[0].args.get("program")->text(), "(+ 1 2)");
  EXPECT_TRUE(m.tool_calls[0].args_error.empty());
}

TEST(Messages, ArgumentsThatDoNotDecodeAreKeptWithAnError) {
  ChatMessage m = read_ok(
      R"({"role":"assistant","tool_calls":[{"id":"a","function":{"name":"lisp_eval","arguments":"{\"program\": "}},)"
      R"({"id":"b","function":{"name":"lisp_eval","arguments":"[1]"}},)"
      R"({"id":"c","function":{"name":"x","arguments":7}},)"
      R"({"function":{"name":"lisp_eval","arguments":{"program":"1"}}}]})");
  ASSERT_EQ(m.tool_calls.size(), 4u);
  EXPECT_NE(m.tool_calls[0].args_error.find("not valid JSON"), std::string::npos);
  EXPECT_EQ(m.tool_calls[0].raw_arguments, "{\"program\": ");
  EXPECT_NE(m.tool_calls[1].args_error.find("must be a JSON object, got an array"),
            std::string::npos);
  EXPECT_NE(m.tool_calls[2].args_error.find("got a number"), std::string::npos);
  EXPECT_TRUE(m.tool_calls[3].id.empty()) << "no id: the agent gives it one";
  EXPECT_EQ(m.tool_calls[3].args.get("program")->text(), "1");
}

TEST(Messages, MalformedMessagesSayWhereAndWhat) {
  EXPECT_EQ(read_error(R"([1])"), "message: expected an object, got an array");
  EXPECT_EQ(read_error(R"({"content":5})"), "content: expected a string or null, got a number");
  EXPECT_EQ(read_error(R"({"tool_calls":{}})"), "tool_calls: expected an array, got an object");
  EXPECT_EQ(read_error(R"({"tool_calls":[{"id":"a","function":{"arguments":"{}"}}]})"),
            "tool_calls[0].function.name: expected a string, got nothing");
  EXPECT_EQ(read_error(R"({"tool_calls":[{"id":3,"function":{"name":"x"}}]})"),
            "tool_calls[0].id: expected a string, got a number");
}

TEST(Messages, WritesEveryRole) {
  ChatMessage a = read_ok(
      R"({"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"lisp_eval","arguments":"{\"program\":\"1\"}"}}]})");
  EXPECT_EQ(to_json(to_openai(a), true),
            R"({"role":"assistant","tool_calls":[{"function":{"arguments":"{\"program\":\"1\"}",)"
            R"("name":"lisp_eval"},"id":"c1","type":"function"}]})");
  ChatMessage t{"tool", std::string("{}"), {}, "c1"};
  EXPECT_EQ(to_json(to_openai(t), true), R"({"content":"{}","role":"tool","tool_call_id":"c1"})");
  ChatMessage u{"user", std::string("hi"), {}, ""};
  EXPECT_EQ(to_json(to_openai(u), true), R"({"content":"hi","role":"user"})");
}

}  // namespace
