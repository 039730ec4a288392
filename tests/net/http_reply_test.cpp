// The HTTP/1.1 response framing: the head (every header, names in lower
// case), Content-Length, chunks, keep-alive, interim and bodiless replies, an
// SSE stream that stays open until the expected answer, and the same reply
// whether its bytes come at once or one by one.
#include "protocol/net/http_reply.hpp"

#include <gtest/gtest.h>

#include <string>

#include "protocol/net/sse_events.hpp"

namespace ptc::net {
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
  std::vector<std::pair<std::string, std::string>> headers = {
      {"content-type", "Application/JSON"}, {"mcp-session-id", "s-1"}, {"content-length", "5"}};
  EXPECT_EQ(whole.headers, headers);
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

TEST(HttpReply, SkipsInterimRepliesAndKnowsBodilessOnes) {
  HttpReply after_continue = parse_http_reply(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", -1);
  EXPECT_TRUE(after_continue.complete);
  EXPECT_EQ(after_continue.status, 200);
  EXPECT_EQ(after_continue.body, "ok");
  // 204 and 304 end at their head, whatever they say of a length.
  std::string no_content = "HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n";
  HttpReply empty = parse_http_reply(no_content, -1);
  EXPECT_TRUE(empty.complete);
  EXPECT_EQ(empty.length, no_content.size());
  // The reply to HEAD has no body either.
  HttpReplyReader head_reader(-1, /*head_request=*/true);
  head_reader.append("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
  EXPECT_TRUE(head_reader.reply().complete);
  EXPECT_EQ(head_reader.reply().body, "");
}

TEST(HttpReply, ByteByByteReadsAsTheWholeDoes) {
  const std::string replies[] = {
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabcdeNEXT",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nA;x=1\r\n0123456789"
      "\r\n0\r\nX-Sum: 1\r\n\r\nNEXT",
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
      "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n"
      "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\r\n\r\n",
      "HTTP/1.0 200 OK\r\n\r\nuntil the end",
  };
  for (const std::string& bytes : replies) {
    HttpReply whole = parse_http_reply(bytes, 7);
    HttpReplyReader reader(7);
    for (char c : bytes)
      reader.append(std::string_view(&c, 1));
    const HttpReply& piecewise = reader.reply();
    EXPECT_TRUE(whole.complete || bytes.find("until") != std::string::npos) << bytes;
    EXPECT_EQ(piecewise.complete, whole.complete) << bytes;
    EXPECT_EQ(piecewise.body, whole.body) << bytes;
    EXPECT_EQ(piecewise.length, whole.length) << bytes;
    EXPECT_EQ(piecewise.headers, whole.headers) << bytes;
    EXPECT_EQ(reader.received(), bytes.size());
  }
}

}  // namespace
}  // namespace ptc::net
