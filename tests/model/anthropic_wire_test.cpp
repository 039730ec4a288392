// Anthropic Messages as text: request bodies read back field by field (the
// OpenAI-shaped conversation turned into alternating user and assistant
// messages of blocks), answers of every shape (and malformed at every
// level), and error replies by error type and by status.
#include "protocol/agent/model/anthropic_wire.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/lisp_eval/tool.hpp"
#include "wire_test_support.hpp"

namespace {

using ptc::HostValue;
using ptc::parse_json;
using ptc::model::anthropic_parse_answer;
using ptc::model::anthropic_parse_error;
using ptc::model::anthropic_request_body;
using ptc::model::Failure;
using ptc::model::WireAnswer;
using ptc::model::WireParams;
using ptc::protocol::LlmRequest;

// ---------------------------------------------------------------- helpers

using namespace ptc::model::testing;  // NOLINT: the suite's helpers

WireParams claude() {
  WireParams p;
  p.model = "claude-sonnet-4-5";
  return p;
}

H body_of(const LlmRequest& r, const WireParams& p = claude()) {
  return parse_json(anthropic_request_body(r, p));
}

// The roles of the body's messages, in order.
std::vector<std::string> roles(const H& body) {
  std::vector<std::string> out;
  for (size_t i = 0; i < size_at(body, "messages"); ++i)
    out.push_back(text_at(body, "messages." + std::to_string(i) + ".role"));
  return out;
}

WireAnswer answer_ok(const std::string& body) {
  WireAnswer a = anthropic_parse_answer(body);
  EXPECT_EQ(a.failure, Failure::None) << a.message;
  EXPECT_TRUE(a.response.ok);
  return a;
}

std::string malformed(const std::string& body) {
  WireAnswer a = anthropic_parse_answer(body);
  EXPECT_EQ(a.failure, Failure::MalformedResponse) << body;
  EXPECT_FALSE(a.response.ok);
  return a.message;
}

// A 200 answer around its content blocks.
std::string message(const std::string& content, const std::string& stop = R"("end_turn")",
                    const std::string& usage = R"({"input_tokens":10,"output_tokens":5})") {
  return R"({"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",)"
         R"("content":)" +
         content + R"(,"stop_reason":)" + stop + R"(,"stop_sequence":null,"usage":)" + usage + "}";
}

// Seed 003's transcript with the answer and a next question after it.
LlmRequest seed_003_answered() {
  LlmRequest r = seed_003_transcript();
  r.messages.push_back(assistant("There were 1842 errors with code 42 in the queried window."));
  r.messages.push_back(user("Thanks. And code 43?"));
  return r;
}

// ---------------------------------------------------------------- requests

TEST(AnthropicRequest, APlainConversation) {
  LlmRequest r;
  r.system = "Be brief.";
  r.messages = {user("hi"), assistant("hello"), user("what is 2+2?")};
  WireParams p = claude();
  p.seed = 7;
  H b = body_of(r, p);
  EXPECT_EQ(text_at(b, "model"), "claude-sonnet-4-5");
  ASSERT_NE(find(b, "max_tokens"), nullptr);
  EXPECT_EQ(find(b, "max_tokens")->as_int(), 4096);
  EXPECT_EQ(text_at(b, "system"), "Be brief.");
  EXPECT_EQ(roles(b), (std::vector<std::string>{"user", "assistant", "user"}));
  EXPECT_EQ(text_at(b, "messages.0.content.0.type"), "text");
  EXPECT_EQ(text_at(b, "messages.0.content.0.text"), "hi");
  EXPECT_EQ(text_at(b, "messages.1.content.0.text"), "hello");
  EXPECT_EQ(text_at(b, "messages.2.content.0.text"), "what is 2+2?");
  EXPECT_EQ(find(b, "seed"), nullptr) << "the API has no seed";
  EXPECT_EQ(find(b, "temperature"), nullptr);
  EXPECT_EQ(find(b, "tools"), nullptr);
  EXPECT_EQ(find(b, "tool_choice"), nullptr);
  EXPECT_EQ(find(b, "stream"), nullptr);
}

TEST(AnthropicRequest, TheSystemPromptIsLeftOutWhenEmptyAndTakesSystemMessages) {
  LlmRequest r;
  r.messages = {user("hi")};
  EXPECT_EQ(find(body_of(r), "system"), nullptr);
  r.messages = {ChatMessage{"system", "Answer in French.", {}, ""}, user("hi")};
  H b = body_of(r);
  EXPECT_EQ(text_at(b, "system"), "Answer in French.");
  EXPECT_EQ(roles(b), (std::vector<std::string>{"user"}));
  r.system = "Be brief.";
  EXPECT_EQ(text_at(body_of(r), "system"), "Be brief.\n\nAnswer in French.");
}

TEST(AnthropicRequest, TheSeed003TranscriptWithItsTools) {
  LlmRequest r = seed_003_answered();
  H b = body_of(r);
  ASSERT_EQ(size_at(b, "tools"), 2u);
  EXPECT_EQ(text_at(b, "tools.0.name"), "search_logs");
  EXPECT_EQ(text_at(b, "tools.0.description"), "Search log events.");
  EXPECT_EQ(*find(b, "tools.0.input_schema"), *find(r.tools[0], "function.parameters"));
  EXPECT_EQ(find(b, "tools.0.type"), nullptr) << "no OpenAI wrapper";
  EXPECT_EQ(text_at(b, "tools.1.name"), "lisp_eval");
  EXPECT_EQ(*find(b, "tools.1.input_schema"), *find(r.tools[1], "function.parameters"));

  EXPECT_EQ(roles(b), (std::vector<std::string>{"user", "assistant", "user", "assistant", "user",
                                                "assistant", "user"}));
  ASSERT_EQ(size_at(b, "messages.1.content"), 1u) << "no empty text block beside the call";
  EXPECT_EQ(text_at(b, "messages.1.content.0.type"), "tool_use");
  EXPECT_EQ(text_at(b, "messages.1.content.0.id"), "call_1");
  EXPECT_EQ(text_at(b, "messages.1.content.0.name"), "search_logs");
  EXPECT_EQ(*find(b, "messages.1.content.0.input"), object(R"({"query":"error code 42"})"));
  ASSERT_EQ(size_at(b, "messages.2.content"), 1u);
  EXPECT_EQ(text_at(b, "messages.2.content.0.type"), "tool_result");
  EXPECT_EQ(text_at(b, "messages.2.content.0.tool_use_id"), "call_1");
  EXPECT_EQ(text_at(b, "messages.2.content.0.content"), r.messages[2].content);
  EXPECT_EQ(find(b, "messages.2.content.0.is_error"), nullptr);
  EXPECT_EQ(text_at(b, "messages.3.content.0.input.program"),
            r.messages[3].tool_calls[0].args.get("program")->text());
  EXPECT_EQ(text_at(b, "messages.4.content.0.tool_use_id"), "call_2");
  EXPECT_EQ(text_at(b, "messages.5.content.0.text"),
            "There were 1842 errors with code 42 in the queried window.");
  EXPECT_EQ(text_at(b, "messages.6.content.0.text"), "Thanks. And code 43?");
}

TEST(AnthropicRequest, SeveralToolCallsAndTheirResultsInOneUserMessage) {
  LlmRequest r;
  r.messages = {user("compare"),
                assistant("Looking at all three.",
                          {call("a", "lisp_eval", object(R"json({"program":"(+ 1 2)"})json")),
                           call("b", "search_logs", object(R"({"query":"x"})")),
                           call("c", "search_logs", object(R"({"query":"y"})"))}),
                tool("a", "3"),
                tool("b", "[]"),
                tool("c", "[1]"),
                user("Mind the budget: 2 turns left.")};
  H b = body_of(r);
  EXPECT_EQ(roles(b), (std::vector<std::string>{"user", "assistant", "user"}));
  ASSERT_EQ(size_at(b, "messages.1.content"), 4u);
  EXPECT_EQ(text_at(b, "messages.1.content.0.type"), "text");
  EXPECT_EQ(text_at(b, "messages.1.content.0.text"), "Looking at all three.");
  ASSERT_EQ(size_at(b, "messages.2.content"), 4u) << "three results and the text that follows";
  const char* ids[] = {"a", "b", "c"};
  const char* results[] = {"3", "[]", "[1]"};
  for (size_t i = 0; i < 3; ++i) {
    std::string use = "messages.1.content." + std::to_string(i + 1);
    std::string result = "messages.2.content." + std::to_string(i);
    EXPECT_EQ(text_at(b, use + ".type"), "tool_use");
    EXPECT_EQ(text_at(b, use + ".id"), ids[i]);
    EXPECT_EQ(text_at(b, result + ".type"), "tool_result");
    EXPECT_EQ(text_at(b, result + ".tool_use_id"), ids[i]);
    EXPECT_EQ(text_at(b, result + ".content"), results[i]);
  }
  EXPECT_EQ(text_at(b, "messages.2.content.3.type"), "text");
  EXPECT_EQ(text_at(b, "messages.2.content.3.text"), "Mind the budget: 2 turns left.");
}

TEST(AnthropicRequest, ToolResultsComeFirstInTheirUserMessage) {
  LlmRequest r;
  r.messages = {user("go"), assistant(std::nullopt, {call("a", "f", object("{}"))}),
                user("(an aside)"), tool("a", "done")};
  H b = body_of(r);
  EXPECT_EQ(roles(b), (std::vector<std::string>{"user", "assistant", "user"}));
  EXPECT_EQ(text_at(b, "messages.2.content.0.type"), "tool_result");
  EXPECT_EQ(text_at(b, "messages.2.content.1.text"), "(an aside)");
}

TEST(AnthropicRequest, EmptyTextIsNeverSent) {
  ToolCallRequest no_args = call("a", "f", H());
  ToolCallRequest bad_args = call("b", "g", parse_json("[1]"));
  bad_args.args_error = "the arguments must be a JSON object, got an array";
  LlmRequest r;
  r.messages = {user("go"),    assistant("", {no_args, bad_args}),
                tool("a", ""), tool("b", "error"),
                user(""),      assistant(""),
                user("next")};
  H b = body_of(r);
  EXPECT_EQ(roles(b), (std::vector<std::string>{"user", "assistant", "user"}));
  ASSERT_EQ(size_at(b, "messages.1.content"), 2u);
  EXPECT_EQ(text_at(b, "messages.1.content.0.type"), "tool_use");
  EXPECT_EQ(*find(b, "messages.1.content.0.input"), object("{}")) << "nil arguments: {}";
  EXPECT_EQ(*find(b, "messages.1.content.1.input"), object("{}")) << "not an object: {}";
  ASSERT_EQ(size_at(b, "messages.2.content"), 3u);
  EXPECT_EQ(find(b, "messages.2.content.0.content"), nullptr) << "an empty result has no content";
  EXPECT_EQ(text_at(b, "messages.2.content.1.content"), "error");
  EXPECT_EQ(text_at(b, "messages.2.content.2.text"), "next");
}

TEST(AnthropicRequest, TemperatureWhenGiven) {
  LlmRequest r;
  r.messages = {user("hi")};
  WireParams p = claude();
  p.temperature = 0.7;
  p.max_tokens = 1024;
  H b = body_of(r, p);
  ASSERT_NE(find(b, "temperature"), nullptr);
  EXPECT_DOUBLE_EQ(find(b, "temperature")->as_float(), 0.7);
  EXPECT_EQ(find(b, "max_tokens")->as_int(), 1024);
}

TEST(AnthropicRequest, TheSameRequestGivesTheSameBytes) {
  LlmRequest r = seed_003_answered();
  EXPECT_EQ(anthropic_request_body(r, claude()), anthropic_request_body(r, claude()));
}

// ---------------------------------------------------------------- answers

TEST(AnthropicAnswer, TextOnly) {
  WireAnswer a = answer_ok(message(R"([{"type":"text","text":"42","citations":null}])"));
  EXPECT_EQ(a.response.content, "42");
  EXPECT_TRUE(a.response.tool_calls.empty());
  EXPECT_EQ(a.stop_reason, "end_turn");
}

TEST(AnthropicAnswer, SeveralTextBlocksAreJoinedByNewlines) {
  WireAnswer a =
      answer_ok(message(R"([{"type":"text","text":"First."},{"type":"text","text":"Second."}])"));
  EXPECT_EQ(a.response.content, "First.\nSecond.");
}

TEST(AnthropicAnswer, ToolUseOnly) {
  WireAnswer a = answer_ok(message(R"([{"type":"tool_use","id":"toolu_01","name":"lisp_eval",)"
                                   R"json("input":{"program":"(+ 1 2)"}}])json",
                                   R"("tool_use")"));
  EXPECT_FALSE(a.response.content);
  ASSERT_EQ(a.response.tool_calls.size(), 1u);
  const ToolCallRequest& c = a.response.tool_calls[0];
  EXPECT_EQ(c.id, "toolu_01");
  EXPECT_EQ(c.name, "lisp_eval");
  EXPECT_EQ(text_at(c.args, "program"), "(+ 1 2)");
  EXPECT_EQ(parse_json(c.raw_arguments), c.args);
  EXPECT_TRUE(c.args_error.empty());
  EXPECT_EQ(a.stop_reason, "tool_use");
}

TEST(AnthropicAnswer, TextAndSeveralToolUsesInOrderWithThinkingLeftOut) {
  WireAnswer a = answer_ok(message(
      R"([{"type":"thinking","thinking":"Let me see.","signature":"abc"},)"
      R"({"type":"redacted_thinking","data":"xyz"},)"
      R"({"type":"text","text":"Checking both."},)"
      R"({"type":"tool_use","id":"toolu_a","name":"f","input":{}},)"
      R"({"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"query":"x"}},)"
      R"({"type":"tool_use","id":"toolu_b","name":"g","input":{"n":1}}])",
      R"("tool_use")"));
  EXPECT_EQ(a.response.content, "Checking both.");
  ASSERT_EQ(a.response.tool_calls.size(), 2u);
  EXPECT_EQ(a.response.tool_calls[0].id, "toolu_a");
  EXPECT_EQ(a.response.tool_calls[0].name, "f");
  EXPECT_EQ(a.response.tool_calls[1].id, "toolu_b");
  EXPECT_EQ(find(a.response.tool_calls[1].args, "n")->as_int(), 1);
}

TEST(AnthropicAnswer, InputThatIsNotAnObjectIsKeptWithAnError) {
  WireAnswer a = answer_ok(message(R"([{"type":"tool_use","id":"t","name":"f","input":[1,2]}])"));
  ASSERT_EQ(a.response.tool_calls.size(), 1u);
  EXPECT_EQ(a.response.tool_calls[0].args_error,
            "the arguments must be a JSON object, got an array");
  EXPECT_EQ(a.response.tool_calls[0].raw_arguments, "[1,2]");
}

TEST(AnthropicAnswer, AnEmptyAnswer) {
  WireAnswer a = answer_ok(message("[]"));
  EXPECT_FALSE(a.response.content);
  EXPECT_TRUE(a.response.tool_calls.empty());
}

TEST(AnthropicAnswer, Usage) {
  WireAnswer a = answer_ok(
      message(R"([{"type":"text","text":"x"}])", R"("end_turn")",
              R"({"input_tokens":21,"output_tokens":393,"cache_creation_input_tokens":188086,)"
              R"("cache_read_input_tokens":1024,"cache_creation":null,"server_tool_use":null,)"
              R"("service_tier":"standard"})"));
  ASSERT_TRUE(a.response.tokens);
  EXPECT_EQ(a.response.tokens->input, 21);
  EXPECT_EQ(a.response.tokens->output, 393);
  EXPECT_EQ(a.response.tokens->cache_creation, 188086);
  EXPECT_EQ(a.response.tokens->cache_read, 1024);
  a = answer_ok(message(R"([{"type":"text","text":"x"}])", R"("end_turn")",
                        R"({"input_tokens":5,"output_tokens":1,"cache_read_input_tokens":null})"));
  EXPECT_EQ(a.response.tokens->cache_read, 0);
  a = answer_ok(R"({"type":"message","content":[{"type":"text","text":"x"}]})");
  EXPECT_FALSE(a.response.tokens);
}

TEST(AnthropicAnswer, StopReasons) {
  for (std::string reason : {"end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn",
                             "refusal", "model_context_window_exceeded"})
    EXPECT_EQ(answer_ok(message("[]", "\"" + reason + "\"")).stop_reason, reason);
  EXPECT_EQ(answer_ok(message("[]", "null")).stop_reason, "");
}

TEST(AnthropicAnswer, MalformedAnswersSayWhatAndWhere) {
  EXPECT_EQ(malformed("<html>overloaded</html>").rfind("body: expected JSON", 0), 0u);
  EXPECT_EQ(malformed("[]"), "body: expected an object, got an array");
  EXPECT_EQ(malformed(R"({"type":"message"})"), "content: expected an array, got nothing");
  EXPECT_EQ(malformed(R"({"type":"completion","content":[]})"),
            "type: expected \"message\", got \"completion\"");
  EXPECT_EQ(malformed(R"({"type":1,"content":[]})"), "type: expected \"message\", got a number");
  EXPECT_EQ(malformed(message(R"("hi")")), "content: expected an array, got a string");
  EXPECT_EQ(malformed(message(R"([[]])")), "content[0]: expected an object, got an array");
  EXPECT_EQ(malformed(message(R"([{"text":"x"}])")),
            "content[0].type: expected a string, got nothing");
  EXPECT_EQ(malformed(message(R"([{"type":"text","text":"a"},{"type":"text","text":null}])")),
            "content[1].text: expected a string, got null");
  EXPECT_EQ(malformed(message(R"([{"type":"tool_use","name":"f","input":{}}])")),
            "content[0].id: expected a string, got nothing");
  EXPECT_EQ(malformed(message(R"([{"type":"tool_use","id":"t","name":7,"input":{}}])")),
            "content[0].name: expected a string, got a number");
  EXPECT_EQ(malformed(message(R"([{"type":"tool_use","id":"t","name":"","input":{}}])")),
            "content[0].name: expected a tool's name, got \"\"");
  EXPECT_EQ(malformed(message("[]", "1")), "stop_reason: expected a string or null, got a number");
  EXPECT_EQ(malformed(message("[]", "null", R"([1])")),
            "usage: expected an object or null, got an array");
  EXPECT_EQ(malformed(message("[]", "null", R"({"input_tokens":"10"})")),
            "usage.input_tokens: expected a token count, got a string");
  EXPECT_EQ(malformed(message("[]", "null", R"({"cache_read_input_tokens":1.5})")),
            "usage.cache_read_input_tokens: expected a token count, got a number");
}

TEST(AnthropicAnswer, AnErrorInASuccessfulReplyIsClassified) {
  WireAnswer a = anthropic_parse_answer(
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},)"
      R"("request_id":"req_1"})");
  EXPECT_EQ(a.failure, Failure::ServerError);
  EXPECT_EQ(a.message, "Overloaded");
  EXPECT_FALSE(a.response.ok);
}

// ---------------------------------------------------------------- errors

std::string error_body(const std::string& type, const std::string& message) {
  return R"({"type":"error","error":{"type":")" + type + R"(","message":")" + message +
         R"("},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"})";
}

Failure failure_of(int status, const std::string& body) {
  WireAnswer a = anthropic_parse_error(status, body);
  EXPECT_FALSE(a.response.ok);
  EXPECT_FALSE(a.message.empty());
  return a.failure;
}

TEST(AnthropicError, ByErrorType) {
  EXPECT_EQ(failure_of(401, error_body("authentication_error", "invalid x-api-key")),
            Failure::AuthFailed);
  EXPECT_EQ(
      anthropic_parse_error(401, error_body("authentication_error", "invalid x-api-key")).message,
      "invalid x-api-key");
  EXPECT_EQ(failure_of(403, error_body("permission_error", "not allowed")), Failure::AuthFailed);
  EXPECT_EQ(failure_of(400, error_body("billing_error", "Your credit balance is too low")),
            Failure::AuthFailed);
  EXPECT_EQ(failure_of(404, error_body("not_found_error", "model: claude-9")), Failure::BadRequest);
  EXPECT_EQ(failure_of(429, error_body("rate_limit_error",
                                       "Number of request tokens has exceeded your per-minute "
                                       "rate limit")),
            Failure::RateLimited);
  EXPECT_EQ(failure_of(529, error_body("overloaded_error", "Overloaded")), Failure::ServerError);
  EXPECT_EQ(failure_of(500, error_body("api_error", "Internal server error")),
            Failure::ServerError);
  EXPECT_EQ(failure_of(504, error_body("timeout_error", "Request timed out")), Failure::Timeout);
  EXPECT_EQ(failure_of(413, error_body("request_too_large", "Request exceeds the maximum size")),
            Failure::ContextTooLong);
  EXPECT_EQ(failure_of(400, error_body("invalid_request_error",
                                       "messages.1.content.0.tool_use.id: String should match "
                                       "pattern '^[a-zA-Z0-9_-]+$'")),
            Failure::BadRequest);
}

TEST(AnthropicError, InvalidRequestsThatSayThePromptIsTooLong) {
  EXPECT_EQ(failure_of(400, error_body("invalid_request_error",
                                       "prompt is too long: 208310 tokens > 200000 maximum")),
            Failure::ContextTooLong);
  EXPECT_EQ(failure_of(400, error_body("invalid_request_error",
                                       "input length and `max_tokens` exceed context limit: "
                                       "198000 + 8192 > 200000, decrease input length or "
                                       "`max_tokens` and try again")),
            Failure::ContextTooLong);
  EXPECT_EQ(failure_of(400, error_body("invalid_request_error",
                                       "The request exceeds the context window of the model")),
            Failure::ContextTooLong);
}

TEST(AnthropicError, InvalidRequestsThatSayToolsAreUnsupported) {
  // As an Anthropic-compatible server in front of a model without tools says it.
  EXPECT_EQ(
      failure_of(400, error_body("invalid_request_error", "qwen2:0.5b does not support tools")),
      Failure::ToolCallingUnsupported);
}

TEST(AnthropicError, WithoutAKnownTypeTheStatusDecides) {
  EXPECT_EQ(failure_of(529, "<html>overloaded</html>"), Failure::ServerError);
  EXPECT_EQ(failure_of(429, error_body("slow_down_error", "later")), Failure::RateLimited);
  EXPECT_EQ(failure_of(401, "{}"), Failure::AuthFailed);
  EXPECT_EQ(failure_of(408, ""), Failure::Timeout);
  EXPECT_EQ(failure_of(400, R"({"error":"bad"})"), Failure::BadRequest);
  WireAnswer html = anthropic_parse_error(
      502, "<html><body><h1>502 Bad Gateway</h1>" + std::string(500, '.') + "</body></html>");
  EXPECT_EQ(html.failure, Failure::ServerError);
  EXPECT_EQ(html.message.size(), 300u);
  EXPECT_EQ(html.message.rfind("<html><body><h1>502 Bad Gateway</h1>", 0), 0u);
}

}  // namespace
