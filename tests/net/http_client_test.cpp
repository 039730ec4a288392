// The HTTP client against a scripted server on loopback: framing, the
// kept-alive pool and its replay rule, the deadline, cancellation, the
// response cap, refusals, and what its errors say (never a header's value).
#include "protocol/net/http_client.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <string>

#include "runtime/unique_fd.hpp"
#include "tests/net/loopback_server.hpp"

namespace ptc::net {
namespace {

using testing::Answer;
using testing::http_reply;
using testing::LoopbackServer;
using testing::SeenRequest;
using Outcome = HttpResponse::Outcome;

HttpRequest post(std::string body, std::chrono::milliseconds within = std::chrono::seconds(10)) {
  HttpRequest request;
  request.body = std::move(body);
  request.deadline = Clock::now() + within;
  return request;
}

Answer ok(std::string_view body) {
  return {http_reply(body)};
}

TEST(HttpClient, ReadsAContentLengthReplyAndSendsWhatItShould) {
  LoopbackServer server([](const SeenRequest&) {
    return Answer{http_reply("hello", 201, "X-Thing: A\r\nContent-Type: Text/Plain\r\n")};
  });
  HttpClient client(server.url("/base/"), {});
  ASSERT_EQ(client.setup_error(), "");
  HttpRequest request = post("{\"a\":1}");
  request.headers = {{"Authorization", "Bearer k-123"}, {"X-Custom", "v"}};
  HttpResponse response = client.send(request);
  ASSERT_EQ(response.outcome, Outcome::Ok) << response.error;
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.body, "hello");
  EXPECT_EQ(response.header("x-thing"), "A");
  EXPECT_EQ(response.content_type, "text/plain");
  ASSERT_EQ(response.headers.size(), 3u);
  EXPECT_EQ(response.headers[0].first, "content-length");
  std::vector<SeenRequest> seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  const std::string& head = seen[0].head;
  EXPECT_TRUE(head.starts_with("POST /base HTTP/1.1\r\n")) << head;
  EXPECT_NE(head.find("\r\nHost: 127.0.0.1:"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nUser-Agent: ptc-lisp"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nContent-Length: 7"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nAuthorization: Bearer k-123"), std::string::npos) << head;
  EXPECT_EQ(seen[0].body, "{\"a\":1}");
}

TEST(HttpClient, ReadsAChunkedReplyOnItsOwnPath) {
  LoopbackServer server([](const SeenRequest&) {
    return Answer{
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"};
  });
  HttpClient client(server.url("/v1"), {});
  HttpRequest request = post("");
  request.method = "GET";
  request.path = "/v1/models?limit=2";
  HttpResponse response = client.send(request);
  ASSERT_EQ(response.outcome, Outcome::Ok) << response.error;
  EXPECT_EQ(response.body, "hello world");
  EXPECT_TRUE(server.requests()[0].head.starts_with("GET /v1/models?limit=2 HTTP/1.1\r\n"));
}

TEST(HttpClient, ASecondRequestReusesTheKeptAliveConnection) {
  LoopbackServer server([](const SeenRequest& r) { return ok("reply to " + r.body); });
  HttpClient client(server.url(), {});
  EXPECT_EQ(client.send(post("one")).body, "reply to one");
  EXPECT_EQ(client.send(post("two")).body, "reply to two");
  EXPECT_EQ(server.connections(), 1u);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(HttpClient, AReplyThatClosesTheConnectionIsNotReused) {
  LoopbackServer server([](const SeenRequest&) {
    return Answer{http_reply("x", 200, "Connection: close\r\n"), Answer::Then::Close};
  });
  HttpClient client(server.url(), {});
  EXPECT_EQ(client.send(post("one")).outcome, Outcome::Ok);
  EXPECT_EQ(client.send(post("two")).outcome, Outcome::Ok);
  EXPECT_EQ(server.connections(), 2u);
}

// The first connection answers once, then closes when the second request
// comes, as a server does that dropped an idle connection while the request
// was on its way.
Answer first_connection_drops_its_second_request(const SeenRequest& r) {
  if (r.connection == 1 && r.body == "second") return {"", Answer::Then::Close};
  return ok("answered " + r.body);
}

TEST(HttpClient, AKeptAliveConnectionTheServerClosedIsReplacedForAReplayableRequest) {
  LoopbackServer server(first_connection_drops_its_second_request);
  HttpClient client(server.url(), {});
  ASSERT_EQ(client.send(post("first")).outcome, Outcome::Ok);
  HttpResponse response = client.send(post("second"));
  ASSERT_EQ(response.outcome, Outcome::Ok) << response.error;
  EXPECT_EQ(response.body, "answered second");
  EXPECT_EQ(server.connections(), 2u);
  EXPECT_EQ(server.request_count(), 3u);  // the second twice: dropped, then answered
}

TEST(HttpClient, ARequestThatMustNotRunTwiceIsNotReplayed) {
  LoopbackServer server(first_connection_drops_its_second_request);
  HttpClient client(server.url(), {});
  ASSERT_EQ(client.send(post("first")).outcome, Outcome::Ok);
  HttpRequest request = post("second");
  request.replayable = false;
  HttpResponse response = client.send(request);
  EXPECT_EQ(response.outcome, Outcome::Failed);
  EXPECT_TRUE(response.sent);  // the server may have acted on it
  EXPECT_EQ(response.error, "the connection closed before the reply was complete");
  EXPECT_EQ(server.connections(), 1u);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(HttpClient, TheDeadlinePassingWhileTheServerSaysNothingIsTimedOut) {
  LoopbackServer server([](const SeenRequest&) { return Answer{"", Answer::Then::Hang}; });
  HttpClient client(server.url(), {});
  HttpRequest request = post("x", std::chrono::milliseconds(200));
  HttpResponse response = client.send(request);
  EXPECT_EQ(response.outcome, Outcome::TimedOut);
  EXPECT_TRUE(response.sent);
  EXPECT_GE(Clock::now(), request.deadline);
  EXPECT_LT(Clock::now(), request.deadline + std::chrono::seconds(5));
}

TEST(HttpClient, ARefusedConnectionFailsAndTheErrorHoldsNoHeader) {
  // A bound socket that does not listen: its port refuses connections and
  // no other test can take it meanwhile.
  UniqueFd bound(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(bound.get(), reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(::getsockname(bound.get(), reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::string port = std::to_string(ntohs(addr.sin_port));
  HttpClient client("http://127.0.0.1:" + port + "/", {});
  HttpRequest request = post("x");
  request.headers = {{"Authorization", "Bearer secret-value-42"}};
  HttpResponse response = client.send(request);
  EXPECT_EQ(response.outcome, Outcome::Failed);
  EXPECT_FALSE(response.sent);
  EXPECT_NE(response.error.find("cannot connect to 127.0.0.1:" + port + " ("), std::string::npos)
      << response.error;
  EXPECT_EQ(response.error.find("secret-value-42"), std::string::npos);
}

TEST(HttpClient, ADeclaredBodyOverTheCapIsTooLarge) {
  LoopbackServer server([](const SeenRequest&) { return ok(std::string(5000, 'x')); });
  HttpOptions options;
  options.max_response_bytes = 1000;
  HttpClient client(server.url(), options);
  EXPECT_EQ(client.send(post("x")).outcome, Outcome::TooLarge);
}

TEST(HttpClient, ABodyGrowingPastTheCapIsTooLargeBeforeItEnds) {
  // Chunks past the cap, then nothing: waiting for the end would time out.
  LoopbackServer server([](const SeenRequest&) {
    std::string chunks = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < 8; ++i)
      chunks += "200\r\n" + std::string(512, 'x') + "\r\n";
    return Answer{chunks, Answer::Then::Hang};
  });
  HttpOptions options;
  options.max_response_bytes = 1000;
  HttpClient client(server.url(), options);
  HttpResponse response = client.send(post("x"));
  EXPECT_EQ(response.outcome, Outcome::TooLarge) << response.error;
  EXPECT_GT(response.body.size(), 1000u);  // what came, up to the chunk that passed the cap
  EXPECT_LE(response.body.size(), 8u * 512);
}

TEST(HttpClient, CancellingAWaitingRequestEndsIt) {
  LoopbackServer server([](const SeenRequest&) { return Answer{"", Answer::Then::Hang}; });
  HttpClient client(server.url(), {});
  HttpRequest request = post("x");
  request.cancelled = [&server] { return server.request_count() > 0; };
  HttpResponse response = client.send(request);
  EXPECT_EQ(response.outcome, Outcome::Cancelled);
  EXPECT_LT(Clock::now(), request.deadline);
}

TEST(HttpClient, AnEventStreamThatStaysOpenEndsAtTheExpectedAnswer) {
  LoopbackServer server([](const SeenRequest& r) {
    if (r.body != "stream") return ok("plain");
    return Answer{
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"
        "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n",
        Answer::Then::Hang};
  });
  HttpClient client(server.url(), {});
  HttpRequest request = post("stream");
  request.sse_expect_id = 5;
  HttpResponse response = client.send(request);
  ASSERT_EQ(response.outcome, Outcome::Ok) << response.error;
  EXPECT_NE(response.body.find("\"id\":5"), std::string::npos);
  // The stream is still open: the next request needs a connection of its own.
  EXPECT_EQ(client.send(post("plain")).body, "plain");
  EXPECT_EQ(server.connections(), 2u);
}

TEST(HttpClient, PlainHttpBeyondLoopbackIsRefusedUnlessAllowed) {
  HttpClient client("http://example.com/v1", {});
  EXPECT_NE(client.setup_error().find("plain http goes only to loopback"), std::string::npos)
      << client.setup_error();
  HttpResponse response = client.send(post("x"));
  EXPECT_EQ(response.outcome, Outcome::Refused);
  EXPECT_FALSE(response.sent);
  EXPECT_EQ(response.error, client.setup_error());
  HttpOptions options;
  options.allow_remote_http = true;
  EXPECT_EQ(HttpClient("http://example.com/v1", options).setup_error(), "");
  EXPECT_NE(HttpClient("ftp://example.com/", {}).setup_error(), "");
}

TEST(HttpClient, HeadersThatWouldBreakTheRequestAreRefusedWithoutTheirValue) {
  LoopbackServer server([](const SeenRequest&) { return ok("x"); });
  HttpClient client(server.url(), {});
  HttpRequest request = post("x");
  request.headers = {{"Authorization", "Bearer secret-value-42\r\nX-Evil: 1"}};
  HttpResponse response = client.send(request);
  EXPECT_EQ(response.outcome, Outcome::Refused);
  EXPECT_NE(response.error.find("Authorization"), std::string::npos) << response.error;
  EXPECT_EQ(response.error.find("secret-value-42"), std::string::npos);
  request.headers = {{"Content-Length", "1"}};
  EXPECT_EQ(client.send(request).outcome, Outcome::Refused);
  EXPECT_EQ(server.connections(), 0u);
}

}  // namespace
}  // namespace ptc::net
