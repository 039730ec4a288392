// OpenAI Chat Completions as text: request bodies read back field by field,
// answers of every shape (and malformed at every level), and error replies
// as OpenAI and the compatible servers (llama.cpp, Ollama, vLLM, OpenRouter)
// word them.
#include "protocol/agent/model/openai_wire.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/lisp_eval/tool.hpp"
#include "wire_test_support.hpp"

namespace {

using ptc::HostValue;
using ptc::parse_json;
using ptc::to_json;
using ptc::model::Failure;
using ptc::model::failure_name;
using ptc::model::failure_retryable;
using ptc::model::openai_parse_answer;
using ptc::model::openai_parse_error;
using ptc::model::openai_request_body;
using ptc::model::WireAnswer;
using ptc::model::WireParams;
using ptc::protocol::LlmRequest;

// ---------------------------------------------------------------- helpers

using namespace ptc::model::testing;  // NOLINT: the suite's helpers

WireParams gpt() {
  WireParams p;
  p.model = "gpt-4.1-mini";
  return p;
}

H body_of(const LlmRequest& r, const WireParams& p = gpt()) {
  return parse_json(openai_request_body(r, p));
}

WireAnswer answer_ok(const std::string& body) {
  WireAnswer a = openai_parse_answer(body);
  EXPECT_EQ(a.failure, Failure::None) << a.message;
  EXPECT_TRUE(a.response.ok);
  return a;
}

std::string malformed(const std::string& body) {
  WireAnswer a = openai_parse_answer(body);
  EXPECT_EQ(a.failure, Failure::MalformedResponse) << body;
  EXPECT_FALSE(a.response.ok);
  return a.message;
}

// A 200 answer around one message.
std::string completion(const std::string& message, const std::string& extra = "") {
  return R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",)"
         R"("choices":[{"index":0,"message":)" +
         message + R"(,"finish_reason":"stop","logprobs":null}])" + extra + "}";
}

// ---------------------------------------------------------------- requests

TEST(OpenAiRequest, APlainConversation) {
  LlmRequest r;
  r.system = "Be brief.";
  r.messages = {user("hi"), assistant("hello"), user("what is 2+2?")};
  H b = body_of(r);
  EXPECT_EQ(text_at(b, "model"), "gpt-4.1-mini");
  ASSERT_EQ(size_at(b, "messages"), 4u);
  EXPECT_EQ(text_at(b, "messages.0.role"), "system");
  EXPECT_EQ(text_at(b, "messages.0.content"), "Be brief.");
  EXPECT_EQ(text_at(b, "messages.1.role"), "user");
  EXPECT_EQ(text_at(b, "messages.1.content"), "hi");
  EXPECT_EQ(text_at(b, "messages.2.role"), "assistant");
  EXPECT_EQ(text_at(b, "messages.2.content"), "hello");
  EXPECT_EQ(text_at(b, "messages.3.content"), "what is 2+2?");
  ASSERT_NE(find(b, "max_completion_tokens"), nullptr);
  EXPECT_EQ(find(b, "max_completion_tokens")->as_int(), 4096);
  EXPECT_EQ(find(b, "max_tokens"), nullptr) << "OpenAI itself takes max_completion_tokens";
  ASSERT_NE(find(b, "stream"), nullptr);
  EXPECT_FALSE(find(b, "stream")->as_bool());
  EXPECT_EQ(find(b, "temperature"), nullptr);
  EXPECT_EQ(find(b, "seed"), nullptr);
  EXPECT_EQ(find(b, "tools"), nullptr) << "no tools: no tools field";
  EXPECT_EQ(find(b, "tool_choice"), nullptr);
}

TEST(OpenAiRequest, AnEmptySystemPromptIsLeftOut) {
  LlmRequest r;
  r.messages = {user("hi")};
  H b = body_of(r);
  ASSERT_EQ(size_at(b, "messages"), 1u);
  EXPECT_EQ(text_at(b, "messages.0.role"), "user");
}

TEST(OpenAiRequest, TheSeed003TranscriptWithItsTools) {
  LlmRequest r = seed_003_transcript();
  H b = body_of(r);
  ASSERT_EQ(size_at(b, "tools"), 2u);
  EXPECT_EQ(*find(b, "tools.0"), r.tools[0]) << "tools go as given";
  EXPECT_EQ(*find(b, "tools.1"), r.tools[1]);
  EXPECT_EQ(text_at(b, "tools.1.function.name"), "lisp_eval");
  EXPECT_EQ(text_at(b, "tool_choice"), "auto");

  ASSERT_EQ(size_at(b, "messages"), 6u);
  EXPECT_EQ(text_at(b, "messages.2.role"), "assistant");
  EXPECT_EQ(find(b, "messages.2.content"), nullptr) << "no text beside the call";
  ASSERT_EQ(size_at(b, "messages.2.tool_calls"), 1u);
  EXPECT_EQ(text_at(b, "messages.2.tool_calls.0.id"), "call_1");
  EXPECT_EQ(text_at(b, "messages.2.tool_calls.0.type"), "function");
  EXPECT_EQ(text_at(b, "messages.2.tool_calls.0.function.name"), "search_logs");
  // The arguments travel as JSON text.
  EXPECT_EQ(parse_json(text_at(b, "messages.2.tool_calls.0.function.arguments")),
            object(R"({"query":"error code 42"})"));
  EXPECT_EQ(text_at(b, "messages.3.role"), "tool");
  EXPECT_EQ(text_at(b, "messages.3.tool_call_id"), "call_1");
  EXPECT_EQ(text_at(b, "messages.3.content"), r.messages[2].content);
  EXPECT_EQ(text_at(b, "messages.4.tool_calls.0.function.name"), "lisp_eval");
  EXPECT_EQ(
      text_at(parse_json(text_at(b, "messages.4.tool_calls.0.function.arguments")), "program"),
      r.messages[3].tool_calls[0].args.get("program")->text());
  EXPECT_EQ(text_at(b, "messages.5.tool_call_id"), "call_2");
}

TEST(OpenAiRequest, SeveralToolCallsWithTextBesideThemAndTheirResultsInOrder) {
  LlmRequest r;
  r.messages = {user("compare"),
                assistant("Looking at all three.",
                          {call("a", "lisp_eval", object(R"json({"program":"(+ 1 2)"})json")),
                           call("b", "search_logs", object(R"({"query":"x"})")),
                           call("c", "search_logs", object(R"({"query":"y"})"))}),
                tool("a", "3"), tool("b", "[]"), tool("c", "[1]")};
  H b = body_of(r);
  EXPECT_EQ(text_at(b, "messages.1.content"), "Looking at all three.");
  ASSERT_EQ(size_at(b, "messages.1.tool_calls"), 3u);
  const char* ids[] = {"a", "b", "c"};
  const char* results[] = {"3", "[]", "[1]"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(text_at(b, "messages.1.tool_calls." + std::to_string(i) + ".id"), ids[i]);
    EXPECT_EQ(text_at(b, "messages." + std::to_string(i + 2) + ".tool_call_id"), ids[i]);
    EXPECT_EQ(text_at(b, "messages." + std::to_string(i + 2) + ".content"), results[i]);
  }
}

TEST(OpenAiRequest, ArgumentsAsSentGoBackVerbatim) {
  ToolCallRequest c = call("a", "lisp_eval", object(R"({"program":"1"})"));
  c.raw_arguments = R"({ "program" : "1" })";
  LlmRequest r;
  r.messages = {user("x"), assistant(std::nullopt, {c}), tool("a", "1")};
  EXPECT_EQ(text_at(body_of(r), "messages.1.tool_calls.0.function.arguments"),
            R"({ "program" : "1" })");
}

TEST(OpenAiRequest, TemperatureAndSeedOnlyWhenGiven) {
  LlmRequest r;
  r.messages = {user("hi")};
  WireParams p = gpt();
  p.temperature = 0.2;
  H b = body_of(r, p);
  ASSERT_NE(find(b, "temperature"), nullptr);
  EXPECT_DOUBLE_EQ(find(b, "temperature")->as_float(), 0.2);
  EXPECT_NE(openai_request_body(r, p).find(R"("temperature":0.2)"), std::string::npos)
      << "the shortest form that reads back the same";
  EXPECT_EQ(find(b, "seed"), nullptr);
  p.temperature.reset();
  p.seed = 7;
  b = body_of(r, p);
  EXPECT_EQ(find(b, "temperature"), nullptr);
  ASSERT_NE(find(b, "seed"), nullptr);
  EXPECT_EQ(find(b, "seed")->as_int(), 7);
  p.temperature = 0;
  EXPECT_NE(find(body_of(r, p), "temperature"), nullptr) << "0 is a temperature";
}

TEST(OpenAiRequest, CompatibleServersGetMaxTokens) {
  LlmRequest r;
  r.messages = {user("hi")};
  WireParams p = gpt();
  p.compat = true;
  p.max_tokens = 512;
  H b = body_of(r, p);
  ASSERT_NE(find(b, "max_tokens"), nullptr);
  EXPECT_EQ(find(b, "max_tokens")->as_int(), 512);
  EXPECT_EQ(find(b, "max_completion_tokens"), nullptr);
}

TEST(OpenAiRequest, TheSameRequestGivesTheSameBytes) {
  LlmRequest r = seed_003_transcript();
  EXPECT_EQ(openai_request_body(r, gpt()), openai_request_body(r, gpt()));
  // A schema built with its keys in another order is the same request.
  LlmRequest reordered = r;
  reordered.tools[0] = object(
      R"({"function":{"parameters":{"required":["query"],"properties":{"query":{"type":"string"}},)"
      R"("type":"object"},"description":"Search log events.","name":"search_logs"},)"
      R"("type":"function"})");
  EXPECT_EQ(openai_request_body(reordered, gpt()), openai_request_body(r, gpt()));
}

// ---------------------------------------------------------------- answers

TEST(OpenAiAnswer, TextOnly) {
  WireAnswer a = answer_ok(completion(R"({"role":"assistant","content":"42","refusal":null})",
                                      R"(,"usage":{"prompt_tokens":12,"completion_tokens":3,)"
                                      R"("total_tokens":15})"));
  EXPECT_EQ(a.response.content, "42");
  EXPECT_TRUE(a.response.tool_calls.empty());
  EXPECT_EQ(a.stop_reason, "stop");
  ASSERT_TRUE(a.response.tokens);
  EXPECT_EQ(a.response.tokens->input, 12);
  EXPECT_EQ(a.response.tokens->output, 3);
  EXPECT_EQ(a.response.tokens->cache_read, 0);
}

TEST(OpenAiAnswer, ToolCallsOnlyWithArgumentsAsText) {
  WireAnswer a = answer_ok(completion(
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function",)"
      R"("function":{"name":"lisp_eval","arguments":"{\"program\":\"(+ 1 2)\"}"}}]})"));
  EXPECT_FALSE(a.response.content);
  ASSERT_EQ(a.response.tool_calls.size(), 1u);
  const ToolCallRequest& c = a.response.tool_calls[0];
  EXPECT_EQ(c.id, "call_9");
  EXPECT_EQ(c.name, "lisp_eval");
  EXPECT_EQ(text_at(c.args, "program"), "(+ 1 2)");
  EXPECT_EQ(c.raw_arguments, R"json({"program":"(+ 1 2)"})json");
  EXPECT_TRUE(c.args_error.empty());
}

TEST(OpenAiAnswer, TextAndSeveralToolCallsInOrder) {
  WireAnswer a = answer_ok(
      completion(R"({"role":"assistant","content":"Both.","tool_calls":[)"
                 R"({"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},)"
                 R"({"id":"b","type":"function","function":{"name":"g","arguments":{"q":"x"}}},)"
                 R"({"type":"function","function":{"name":"h","arguments":"{\"n\":1}"}}]})"));
  EXPECT_EQ(a.response.content, "Both.");
  ASSERT_EQ(a.response.tool_calls.size(), 3u);
  EXPECT_EQ(a.response.tool_calls[0].name, "f");
  EXPECT_EQ(a.response.tool_calls[1].name, "g");
  EXPECT_EQ(text_at(a.response.tool_calls[1].args, "q"), "x") << "arguments as an object";
  EXPECT_EQ(a.response.tool_calls[2].name, "h");
  EXPECT_TRUE(a.response.tool_calls[2].id.empty()) << "no id: the agent assigns one";
  EXPECT_EQ(find(a.response.tool_calls[2].args, "n")->as_int(), 1);
}

TEST(OpenAiAnswer, ArgumentsThatAreNotAnObjectAreKeptWithAnError) {
  WireAnswer a = answer_ok(completion(R"({"role":"assistant","tool_calls":[{"id":"a",)"
                                      R"("function":{"name":"f","arguments":"[1"}}]})"));
  ASSERT_EQ(a.response.tool_calls.size(), 1u);
  EXPECT_NE(a.response.tool_calls[0].args_error.find("not valid JSON"), std::string::npos);
  EXPECT_EQ(a.response.tool_calls[0].raw_arguments, "[1");
}

TEST(OpenAiAnswer, ContentAsAnArrayOfParts) {
  WireAnswer a = answer_ok(
      completion(R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},)"
                 R"({"type":"text","text":"The answer "},{"type":"text","text":"is 42."}]})"));
  EXPECT_EQ(a.response.content, "The answer is 42.");
}

TEST(OpenAiAnswer, ARefusalIsTheContentWhenThereIsNone) {
  WireAnswer a = answer_ok(
      completion(R"({"role":"assistant","content":null,"refusal":"I can't help with that."})"));
  EXPECT_EQ(a.response.content, "I can't help with that.");
  a = answer_ok(completion(R"({"role":"assistant","content":"Partly.","refusal":"No."})"));
  EXPECT_EQ(a.response.content, "Partly.") << "content said something: it stays";
  a = answer_ok(
      completion(R"({"role":"assistant","content":[{"type":"refusal","refusal":"Not this."}]})"));
  EXPECT_EQ(a.response.content, "Not this.");
}

TEST(OpenAiAnswer, UsageWithCachedTokens) {
  WireAnswer a = answer_ok(
      completion(R"({"role":"assistant","content":"x"})",
                 R"(,"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,)"
                 R"("prompt_tokens_details":{"cached_tokens":1920,"cache_write_tokens":64},)"
                 R"("completion_tokens_details":{"reasoning_tokens":0}})"));
  ASSERT_TRUE(a.response.tokens);
  EXPECT_EQ(a.response.tokens->input, 2006);
  EXPECT_EQ(a.response.tokens->output, 300);
  EXPECT_EQ(a.response.tokens->cache_read, 1920);
  EXPECT_EQ(a.response.tokens->cache_creation, 64);

  // DeepSeek counts cache hits at the top level; null details are none.
  a = answer_ok(completion(R"({"role":"assistant","content":"x"})",
                           R"(,"usage":{"prompt_tokens":10,"completion_tokens":1,)"
                           R"("prompt_tokens_details":null,"prompt_cache_hit_tokens":8})"));
  EXPECT_EQ(a.response.tokens->cache_read, 8);

  a = answer_ok(completion(R"({"role":"assistant","content":"x"})"));
  EXPECT_FALSE(a.response.tokens) << "no usage: no counts";
}

TEST(OpenAiAnswer, StopReasons) {
  auto reason = [](const std::string& finish) {
    return answer_ok(R"({"choices":[{"message":{"content":"x"},"finish_reason":)" + finish + "}]}")
        .stop_reason;
  };
  EXPECT_EQ(reason(R"("stop")"), "stop");
  EXPECT_EQ(reason(R"("length")"), "length");
  EXPECT_EQ(reason(R"("tool_calls")"), "tool_calls");
  EXPECT_EQ(reason(R"("content_filter")"), "content_filter");
  EXPECT_EQ(reason("null"), "");
}

TEST(OpenAiAnswer, MalformedAnswersSayWhatAndWhere) {
  EXPECT_EQ(malformed("<html>502</html>").rfind("body: expected JSON", 0), 0u);
  EXPECT_NE(malformed("<html>502</html>").find("<html>502</html>"), std::string::npos);
  EXPECT_EQ(malformed("[1]"), "body: expected an object, got an array");
  EXPECT_EQ(malformed("{}"), "choices: expected an array, got nothing");
  EXPECT_EQ(malformed(R"({"choices":{}})"), "choices: expected an array, got an object");
  EXPECT_EQ(malformed(R"({"choices":[]})"), "choices: expected one choice, got an empty array");
  EXPECT_EQ(malformed(R"({"choices":[7]})"), "choices[0]: expected an object, got a number");
  EXPECT_EQ(malformed(R"({"choices":[{"text":"x"}]})"),
            "choices[0].message: expected an object, got nothing");
  EXPECT_EQ(malformed(completion(R"({"content":5})")),
            "choices[0].message.content: expected a string, an array of parts or null, got a "
            "number");
  EXPECT_EQ(malformed(completion(R"({"content":["x"]})")),
            "choices[0].message.content[0]: expected an object, got a string");
  EXPECT_EQ(malformed(completion(R"({"content":[{"type":"text"}]})")),
            "choices[0].message.content[0].text: expected a string, got nothing");
  EXPECT_EQ(malformed(completion(R"({"content":null,"refusal":1})")),
            "choices[0].message.refusal: expected a string or null, got a number");
  EXPECT_EQ(malformed(completion(R"({"tool_calls":{"id":"a"}})")),
            "choices[0].message.tool_calls: expected an array, got an object");
  EXPECT_EQ(malformed(completion(R"({"tool_calls":[{"id":"a","function":{"name":"f"}},)"
                                 R"({"id":"b","function":{"name":7}}]})")),
            "choices[0].message.tool_calls[1].function.name: expected a string, got a number");
  EXPECT_EQ(malformed(completion(R"({"tool_calls":[{"id":"a","function":{"name":""}}]})")),
            "choices[0].message.tool_calls[0]: the function has an empty name");
  EXPECT_EQ(malformed(R"({"choices":[{"message":{"content":"x"},"finish_reason":1}]})"),
            "choices[0].finish_reason: expected a string or null, got a number");
  EXPECT_EQ(malformed(completion(R"({"content":"x"})", R"(,"usage":"many")")),
            "usage: expected an object or null, got a string");
  EXPECT_EQ(malformed(completion(R"({"content":"x"})", R"(,"usage":{"prompt_tokens":"12"})")),
            "usage.prompt_tokens: expected a token count, got a string");
  EXPECT_EQ(malformed(completion(R"({"content":"x"})", R"(,"usage":{"completion_tokens":-1})")),
            "usage.completion_tokens: expected a token count, got a number");
  EXPECT_EQ(malformed(completion(R"({"content":"x"})",
                                 R"(,"usage":{"prompt_tokens_details":{"cached_tokens":true}})")),
            "usage.prompt_tokens_details.cached_tokens: expected a token count, got a boolean");
}

TEST(OpenAiAnswer, AnErrorInASuccessfulReplyIsClassified) {
  // OpenRouter passes an upstream provider's error on with a 200.
  WireAnswer a = openai_parse_answer(
      R"({"error":{"message":"Rate limit exceeded: free-models-per-min","code":429}})");
  EXPECT_EQ(a.failure, Failure::RateLimited);
  EXPECT_EQ(a.message, "Rate limit exceeded: free-models-per-min");
  EXPECT_FALSE(a.response.ok);
  a = openai_parse_answer(
      R"({"error":{"message":"This model's maximum context length is 8192 tokens.",)"
      R"("type":"invalid_request_error","code":"context_length_exceeded"}})");
  EXPECT_EQ(a.failure, Failure::ContextTooLong);
  a = openai_parse_answer(R"({"error":{"message":"Internal error","code":502}})");
  EXPECT_EQ(a.failure, Failure::ServerError);
  a = openai_parse_answer(R"({"error":{"message":"something odd"}})");
  EXPECT_EQ(a.failure, Failure::ServerError) << "an unexplained error: worth another try";
}

// ---------------------------------------------------------------- errors

Failure failure_of(int status, const std::string& body) {
  WireAnswer a = openai_parse_error(status, body);
  EXPECT_FALSE(a.response.ok);
  EXPECT_FALSE(a.message.empty());
  return a.failure;
}

TEST(OpenAiError, ByStatus) {
  const std::string invalid_key =
      R"({"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at )"
      R"(https://platform.openai.com/account/api-keys.","type":"invalid_request_error",)"
      R"("param":null,"code":"invalid_api_key"}})";
  EXPECT_EQ(failure_of(401, invalid_key), Failure::AuthFailed);
  EXPECT_EQ(openai_parse_error(401, invalid_key).message.rfind("Incorrect API key provided", 0),
            0u);
  EXPECT_EQ(failure_of(403, R"({"error":{"message":"Country not supported"}})"),
            Failure::AuthFailed);
  EXPECT_EQ(failure_of(402, R"({"error":{"message":"Insufficient credits","code":402}})"),
            Failure::AuthFailed);
  EXPECT_EQ(failure_of(429, R"({"error":{"message":"Rate limit reached for gpt-4.1 on tokens )"
                            R"(per min (TPM): Limit 30000, Used 30000, Requested 900.",)"
                            R"("type":"tokens","code":"rate_limit_exceeded"}})"),
            Failure::RateLimited);
  EXPECT_EQ(failure_of(408, ""), Failure::Timeout);
  EXPECT_EQ(failure_of(400, R"({"error":{"message":"Invalid type for 'messages[1].content'",)"
                            R"("type":"invalid_request_error","param":"messages[1].content"}})"),
            Failure::BadRequest);
  EXPECT_EQ(failure_of(404, R"({"error":{"message":"The model `gpt-9` does not exist",)"
                            R"("code":"model_not_found"}})"),
            Failure::BadRequest);
  EXPECT_EQ(failure_of(404, R"({"detail":"Not Found"})"), Failure::BadRequest) << "vLLM, no route";
  EXPECT_EQ(failure_of(422, R"({"detail":"Unprocessable Entity"})"), Failure::BadRequest);
  EXPECT_EQ(failure_of(413, "<html>Request Entity Too Large</html>"), Failure::ContextTooLong);
  EXPECT_EQ(
      failure_of(500, R"({"error":{"message":"The server had an error","type":"server_error"}})"),
      Failure::ServerError);
  EXPECT_EQ(failure_of(502, ""), Failure::ServerError);
  EXPECT_EQ(failure_of(503, R"({"error":{"message":"The engine is currently overloaded"}})"),
            Failure::ServerError);
  EXPECT_EQ(failure_of(529, "{}"), Failure::ServerError);
}

TEST(OpenAiError, OutOfQuotaIsNotARateLimit) {
  WireAnswer a = openai_parse_error(
      429, R"({"error":{"message":"You exceeded your current quota, please check your plan and )"
           R"(billing details.","type":"insufficient_quota","param":null,)"
           R"("code":"insufficient_quota"}})");
  EXPECT_EQ(a.failure, Failure::AuthFailed);
  EXPECT_FALSE(failure_retryable(a.failure)) << "waiting does not bring quota back";
}

TEST(OpenAiError, ContextTooLongAsEachServerWordsIt) {
  // OpenAI.
  EXPECT_EQ(failure_of(400, R"({"error":{"message":"This model's maximum context length is )"
                            R"(128000 tokens. However, your messages resulted in 130512 tokens. )"
                            R"(Please reduce the length of the messages.","type":)"
                            R"("invalid_request_error","param":"messages","code":)"
                            R"("context_length_exceeded"}})"),
            Failure::ContextTooLong);
  EXPECT_EQ(failure_of(400, R"({"error":{"message":"Your input exceeds the context window of )"
                            R"(this model. Please adjust your input and try again.",)"
                            R"("type":"invalid_request_error","code":"context_length_exceeded"}})"),
            Failure::ContextTooLong);
  // vLLM, before 0.6: the error object at the top level, the status as code.
  EXPECT_EQ(failure_of(400, R"({"object":"error","message":"This model's maximum context length )"
                            R"(is 4096 tokens. However, you requested 5000 tokens (4000 in the )"
                            R"(messages, 1000 in the completion). Please reduce the length of the )"
                            R"(messages or completion.","type":"BadRequestError","param":null,)"
                            R"("code":400})"),
            Failure::ContextTooLong);
  // vLLM, later.
  EXPECT_EQ(failure_of(400, R"({"error":{"message":"The decoder prompt (length 5000) is longer )"
                            R"(than the maximum model length of 4096. Make sure that )"
                            R"(`max_model_len` is no smaller than the number of text tokens.",)"
                            R"("type":"BadRequestError","param":null,"code":400}})"),
            Failure::ContextTooLong);
  // llama.cpp's server.
  EXPECT_EQ(failure_of(400, R"({"error":{"code":400,"message":"request (4476 tokens) exceeds the )"
                            R"(available context size (4096 tokens), try increasing it",)"
                            R"("type":"exceed_context_size_error","n_prompt_tokens":4476,)"
                            R"("n_ctx":4096}})"),
            Failure::ContextTooLong);
  // Ollama, passing llama.cpp's error on as the text of its own.
  WireAnswer ollama = openai_parse_error(
      400, R"({"error":"{\"error\":{\"code\":400,\"message\":\"request (351 tokens) exceeds the )"
           R"(available context size (256 tokens), try increasing it\",\"type\":)"
           R"(\"exceed_context_size_error\"}}"})");
  EXPECT_EQ(ollama.failure, Failure::ContextTooLong);
  EXPECT_EQ(ollama.message,
            "request (351 tokens) exceeds the available context size (256 tokens), try "
            "increasing it");
  EXPECT_EQ(failure_of(400, R"({"error":"the input length exceeds the context length"})"),
            Failure::ContextTooLong);
  // Plain text says it too.
  EXPECT_EQ(failure_of(400, "prompt is too long for this model"), Failure::ContextTooLong);
  EXPECT_FALSE(failure_retryable(Failure::ContextTooLong));
}

TEST(OpenAiError, ToolsUnsupportedAsEachServerWordsIt) {
  // Ollama's /v1, and its own API.
  EXPECT_EQ(failure_of(400, R"({"error":{"message":"llama3 does not support tools",)"
                            R"("type":"api_error","param":null,"code":null}})"),
            Failure::ToolCallingUnsupported);
  EXPECT_EQ(failure_of(400, R"({"error":"registry.ollama.ai/library/gemma:2b does not support )"
                            R"(tools"})"),
            Failure::ToolCallingUnsupported);
  // llama.cpp's server without --jinja: a 500.
  EXPECT_EQ(failure_of(500, R"({"error":{"code":500,"message":"tools param requires --jinja )"
                            R"(flag","type":"server_error"}})"),
            Failure::ToolCallingUnsupported);
  EXPECT_EQ(failure_of(500, R"({"error":{"code":500,"message":"Unsupported param: tool_choice",)"
                            R"("type":"server_error"}})"),
            Failure::ToolCallingUnsupported);
  // vLLM without --enable-auto-tool-choice.
  EXPECT_EQ(failure_of(400, R"({"object":"error","message":"\"auto\" tool choice requires )"
                            R"(--enable-auto-tool-choice and --tool-call-parser to be set",)"
                            R"("type":"BadRequestError","param":null,"code":400})"),
            Failure::ToolCallingUnsupported);
  // OpenAI, a model without tools.
  EXPECT_EQ(failure_of(400, R"({"error":{"message":"Unsupported parameter: 'tools' is not )"
                            R"(supported with this model.","type":"invalid_request_error",)"
                            R"("param":"tools","code":"unsupported_parameter"}})"),
            Failure::ToolCallingUnsupported);
  // OpenRouter, no provider of the model takes tools.
  EXPECT_EQ(failure_of(404, R"({"error":{"message":"No endpoints found that support tool use. )"
                            R"(To learn more about provider routing, visit: )"
                            R"(https://openrouter.ai/docs/provider-routing","code":404}})"),
            Failure::ToolCallingUnsupported);
  EXPECT_FALSE(failure_retryable(Failure::ToolCallingUnsupported));
}

TEST(OpenAiError, OtherComplaintsAboutToolsAreBadRequests) {
  EXPECT_EQ(
      failure_of(400, R"({"error":{"message":"Invalid schema for function 'search_logs': )"
                      R"('strin' is not valid under any of the given schemas.",)"
                      R"("type":"invalid_request_error","param":"tools[0].function.parameters",)"
                      R"("code":"invalid_function_parameters"}})"),
      Failure::BadRequest);
  // A 503 never reads as tools or context, whatever it says.
  EXPECT_EQ(failure_of(503, R"({"error":{"message":"model does not support tools right now"}})"),
            Failure::ServerError);
}

TEST(OpenAiError, ABodyThatIsNotJsonGivesItsFirst300Bytes) {
  std::string html = "\n  <html><head><title>502 Bad Gateway</title></head><body>" +
                     std::string(400, 'x') + "</body></html>";
  WireAnswer a = openai_parse_error(502, html);
  EXPECT_EQ(a.failure, Failure::ServerError);
  EXPECT_EQ(a.message.size(), 300u);
  EXPECT_EQ(a.message.rfind("<html><head><title>502 Bad Gateway", 0), 0u) << a.message;
  // Never cut inside a character.
  std::string accented = std::string(299, 'a') + "\xC3\xA9" + "tail";
  EXPECT_EQ(openai_parse_error(500, accented).message, std::string(299, 'a'));
  // Bytes that are not UTF-8 do not go on into the JSON the message ends up in.
  EXPECT_EQ(openai_parse_error(502, "bad \xFF\xFE gateway").message,
            "bad \xEF\xBF\xBD\xEF\xBF\xBD gateway");
  EXPECT_EQ(openai_parse_error(503, "").message, "HTTP status 503 with an empty body");
  EXPECT_EQ(openai_parse_error(400, R"({"unexpected":true})").message, R"({"unexpected":true})");
}

// ---------------------------------------------------------------- failures

TEST(Failures, NamesAndWhichAreWorthRetrying) {
  EXPECT_EQ(failure_name(Failure::None), "");
  EXPECT_EQ(failure_name(Failure::Timeout), "timeout");
  EXPECT_EQ(failure_name(Failure::RateLimited), "rate_limited");
  EXPECT_EQ(failure_name(Failure::AuthFailed), "auth_failed");
  EXPECT_EQ(failure_name(Failure::BadRequest), "bad_request");
  EXPECT_EQ(failure_name(Failure::ContextTooLong), "context_too_long");
  EXPECT_EQ(failure_name(Failure::ServerError), "server_error");
  EXPECT_EQ(failure_name(Failure::MalformedResponse), "malformed_response");
  EXPECT_EQ(failure_name(Failure::ToolCallingUnsupported), "tool_calling_unsupported");
  EXPECT_EQ(failure_name(Failure::ReplayMiss), "replay_miss");
  std::vector<Failure> retryable;
  for (Failure f :
       {Failure::None, Failure::Timeout, Failure::RateLimited, Failure::AuthFailed,
        Failure::BadRequest, Failure::ContextTooLong, Failure::ServerError,
        Failure::MalformedResponse, Failure::ToolCallingUnsupported, Failure::ReplayMiss})
    if (failure_retryable(f)) retryable.push_back(f);
  EXPECT_EQ(retryable,
            (std::vector<Failure>{Failure::Timeout, Failure::RateLimited, Failure::ServerError}));
}

}  // namespace
