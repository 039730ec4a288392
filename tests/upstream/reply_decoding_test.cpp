// Decoding what an HTTP upstream sends: the response head, Content-Length,
// chunks, an SSE stream that stays open until our answer, and the payload
// of a tools/call result.
#include "protocol/upstream/reply_decoding.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ptc::upstream {
namespace {

TEST(HttpReply, WaitsForTheHeadAndTheContentLength) {
  EXPECT_FALSE(parse_http_reply("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", 1).head_complete);
  HttpReply partial = parse_http_reply("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", 1);
  EXPECT_TRUE(partial.head_complete);
  EXPECT_FALSE(partial.complete);
  HttpReply whole = parse_http_reply(
      "HTTP/1.1 200 OK\r\ncontent-type: Application/JSON\r\nMcp-Session-Id: s-1 \r\n"
      "Content-Length: 5\r\n\r\nabcdeEXTRA",
      1);
  EXPECT_TRUE(whole.complete);
  EXPECT_TRUE(whole.is_http);
  EXPECT_EQ(whole.status, 200);
  EXPECT_EQ(whole.content_type, "application/json");
  EXPECT_EQ(whole.session, "s-1");
  EXPECT_EQ(whole.body, "abcde");
}

TEST(HttpReply, DecodesChunksAndWaitsForTheLastOne) {
  std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  HttpReply partial = parse_http_reply(head + "3\r\nabc\r\n2\r\nde", 1);
  EXPECT_FALSE(partial.complete);
  EXPECT_EQ(partial.body, "abc");
  HttpReply whole = parse_http_reply(head + "3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n", 1);
  EXPECT_TRUE(whole.complete);
  EXPECT_EQ(whole.body, "abc0123456789");
  EXPECT_FALSE(parse_http_reply(head + "zz\r\nabc\r\n0\r\n\r\n", 1).complete);
}

TEST(HttpReply, SaysWhetherTheConnectionCanCarryAnotherRequest) {
  // Framed by Content-Length: the whole response is head + 5 bytes.
  std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
  HttpReply framed = parse_http_reply(head + "abcde", 1);
  EXPECT_TRUE(framed.keep_alive);
  EXPECT_EQ(framed.length, head.size() + 5);
  EXPECT_EQ(parse_http_reply(head + "ab", 1).length, 0u);
  EXPECT_FALSE(
      parse_http_reply("HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n", 1)
          .keep_alive);
  EXPECT_FALSE(parse_http_reply("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 1).keep_alive);
  EXPECT_TRUE(
      parse_http_reply("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", 1)
          .keep_alive);
  // Chunks: the length is known once the blank line after the last chunk
  // (and any trailer) is here.
  std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n";
  HttpReply no_end = parse_http_reply(chunked, 1);
  EXPECT_TRUE(no_end.complete);
  EXPECT_EQ(no_end.length, 0u);
  EXPECT_EQ(parse_http_reply(chunked + "\r\n", 1).length, chunked.size() + 2);
  std::string trailer = chunked + "X-Sum: 1\r\n\r\n";
  EXPECT_EQ(parse_http_reply(trailer + "NEXT", 1).length, trailer.size());
  // An SSE stream answered but still open has no known end.
  HttpReply open = parse_http_reply(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
      "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
      1);
  EXPECT_TRUE(open.complete);
  EXPECT_EQ(open.length, 0u);
}

TEST(HttpReply, AnOpenEventStreamIsCompleteOnceOurIdIsAnswered) {
  std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n";
  std::string notice = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n";
  std::string other = "data: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}\n\n";
  std::string ours = "data: {\"jsonrpc\": \"2.0\", \"id\": 7, \"result\": {}}\r\n\r\n";
  EXPECT_FALSE(parse_http_reply(head + notice + other, 7).complete);
  EXPECT_FALSE(parse_http_reply(head + notice + ours.substr(0, ours.size() - 4), 7).complete);
  HttpReply done = parse_http_reply(head + notice + other + ours, 7);
  EXPECT_TRUE(done.complete);
  EXPECT_TRUE(done.event_stream);
  EXPECT_EQ(sse_event_data(done.body).size(), 3u);
}

TEST(HttpReply, NotHttpAndBadNumbersAreReported) {
  HttpReply junk = parse_http_reply("SSH-2.0-OpenSSH\r\n\r\n", 1);
  EXPECT_TRUE(junk.head_complete);
  EXPECT_FALSE(junk.is_http);
  HttpReply odd = parse_http_reply("HTTP/1.1 2x0 OK\r\nContent-Length: -4\r\n\r\nbody", 1);
  EXPECT_EQ(odd.status, 0);
  EXPECT_FALSE(odd.content_length.has_value());
  EXPECT_EQ(odd.body, "body");
}

TEST(SseEvents, JoinDataLinesAndIgnoreOtherFields) {
  auto events = sse_event_data(": hi\nevent: message\ndata: a\ndata:b\nid: 3\n\ndata: c");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], "a\nb");
  EXPECT_EQ(events[1], "c");
}

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
