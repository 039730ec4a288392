// Recording and replay of model calls: what a recording holds (no secret),
// how a replay answers (by the canonical request, repeated requests in
// order) and what a miss says.
#include "protocol/agent/model/recording.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "include/ptc/ptc.hpp"

namespace ptc::model {
namespace {

std::string temp_path(const char* name) {
  return ::testing::TempDir() + name;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

HostValue body(const std::string& question) {
  return parse_json(R"({"model":"m","messages":[{"role":"system","content":"card"},)"
                    R"({"role":"user","content":")" +
                    question + R"("}]})");
}

RecordedReply ok(const std::string& text) {
  RecordedReply r;
  r.status = 200;
  r.body = text;
  return r;
}

TEST(Recording, HoldsNoSecretAndReplaysByTheCanonicalRequest) {
  std::string path = temp_path("recording_a.jsonl");
  {
    Recorder rec(path, "sk-secret-123");
    RecordedReply limited;
    limited.status = 429;
    limited.retry_after = "2";
    limited.body = R"({"error":{"message":"slow down, sk-secret-123"}})";
    rec.write("openai", "/chat/completions", body("hi"), limited);
    rec.write("openai", "/chat/completions", body("hi"), ok("first"));
    RecordedReply dropped;
    dropped.failure = Failure::ServerError;
    dropped.message = "the connection closed";
    rec.write("openai", "/chat/completions", body("again"), dropped);
  }
  std::string text = read_all(path);
  EXPECT_EQ(text.find("sk-secret-123"), std::string::npos) << text;
  EXPECT_NE(text.find("[redacted]"), std::string::npos);

  Replayer replay(path);
  std::string miss;
  // The same request with its keys in another order is the same request.
  HostValue reordered = parse_json(
      R"({"messages":[{"content":"card","role":"system"},{"content":"hi","role":"user"}],"model":"m"})");
  auto first = replay.answer("openai", "/chat/completions", reordered, &miss);
  ASSERT_TRUE(first) << miss;
  EXPECT_EQ(first->status, 429);
  EXPECT_EQ(first->retry_after, "2");
  auto second = replay.answer("openai", "/chat/completions", body("hi"), &miss);
  ASSERT_TRUE(second) << miss;
  EXPECT_EQ(second->body, "first");
  auto third = replay.answer("openai", "/chat/completions", body("again"), &miss);
  ASSERT_TRUE(third) << miss;
  EXPECT_EQ(third->failure, Failure::ServerError);
  // Asked once more than recorded: a miss that says so.
  EXPECT_FALSE(replay.answer("openai", "/chat/completions", body("hi"), &miss));
  EXPECT_NE(miss.find("recorded 2 time(s)"), std::string::npos) << miss;
}

TEST(Recording, AMissNamesTheNearestRecordedRequestAndWhereItDiffers) {
  std::string path = temp_path("recording_b.jsonl");
  {
    Recorder rec(path, "");
    rec.write("anthropic", "/v1/messages", body("How many errors with code 42?"), ok("a"));
    rec.write("anthropic", "/v1/messages", body("Something else entirely"), ok("b"));
  }
  Replayer replay(path);
  std::string miss;
  EXPECT_FALSE(replay.answer("anthropic", "/v1/messages", body("How many warnings?"), &miss));
  EXPECT_NE(miss.find("nearest recorded one is line 1"), std::string::npos) << miss;
  EXPECT_NE(miss.find("body.messages[1].content"), std::string::npos) << miss;
  EXPECT_NE(miss.find("How many warnings?"), std::string::npos) << miss;
  // Another provider's request is another request.
  EXPECT_FALSE(
      replay.answer("openai", "/v1/messages", body("How many errors with code 42?"), &miss));
}

TEST(Recording, ALineThatIsNoExchangeIsNamed) {
  std::string path = temp_path("recording_c.jsonl");
  {
    std::ofstream out(path);
    out << R"({"hash":"x","request":{"provider":"openai","path":"/p","body":{}},"reply":{"status":200,"body":"ok"}})"
        << "\n\n"
        << R"({"request": 1})"
        << "\n";
  }
  try {
    Replayer replay(path);
    FAIL() << "accepted a malformed recording";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Replayer(temp_path("no_such_recording.jsonl")), std::invalid_argument);
}

}  // namespace
}  // namespace ptc::model
