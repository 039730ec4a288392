// The Streamable HTTP transport end to end over real sockets, with a
// scripted dispatcher (tests/mcp/http_test_support.hpp): sessions, status
// codes, the guard, caps and timeouts, slow and vanishing clients,
// keep-alive, SSE, and the drain.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "http_test_support.hpp"
#include "protocol/mcp/log.hpp"

namespace {

using namespace http_test;
using ptc::mcp::ServerConfig;
using Clock = std::chrono::steady_clock;

const std::string kToken = "0123456789abcdef0123456789abcdef-token";

// The text of a tools/call reply's first content item, or what is wrong.
std::string result_text(const Reply& r) {
  HostValue content = at(r, {"result", "content"});
  if (content.size() == 0) return "<no content: " + r.body + ">";
  return text(field(content.items()[0], "text"));
}

class HttpTransport : public ::testing::Test {
 protected:
  void SetUp() override { ptc::mcp::set_log_level(ptc::mcp::LogLevel::Warning); }
  void TearDown() override { ptc::mcp::set_log_level(ptc::mcp::LogLevel::Info); }

  // An initialized session on `c`.
  std::string open_session(Client& c) {
    Reply r = c.post(initialize_body());
    EXPECT_EQ(r.status, 200u) << r.body;
    return r.header("mcp-session-id");
  }

  FakeBackend backend;
};

TEST_F(HttpTransport, InitializeOpensASessionThatLaterRequestsCarry) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok()) << server.error();
  Client c(server.port());
  ASSERT_TRUE(c.connected());

  Reply init = c.post(initialize_body());
  EXPECT_EQ(init.status, 200u);
  EXPECT_EQ(init.header("content-type"), "application/json");
  std::string sid = init.header("mcp-session-id");
  ASSERT_EQ(sid.size(), 32u);
  EXPECT_EQ(text(at(init, {"result", "protocolVersion"})), "2025-11-25");
  EXPECT_FALSE(init.header("x-request-id").empty());
  EXPECT_TRUE(init.keep_alive);

  Reply note = c.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", sid);
  EXPECT_EQ(note.status, 202u);
  EXPECT_EQ(note.body, "");

  Reply list = c.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", sid,
                      {{"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_EQ(list.status, 200u);
  EXPECT_EQ(at(list, {"id"}).as_int(), 2);
  EXPECT_EQ(list.header("mcp-session-id"), "");  // only on the initialize reply

  Reply call = c.post(call_body(3, "{}"), sid);
  EXPECT_EQ(call.status, 200u);
  EXPECT_EQ(result_text(call), "done");

  auto callers = backend.callers();
  ASSERT_EQ(callers.size(), 4u);
  for (const auto& caller : callers) {
    EXPECT_EQ(caller.owner, "loopback");
    EXPECT_EQ(caller.connection, sid);
    EXPECT_TRUE(caller.reply_when_cancelled);
  }

  // A second initialize opens another session.
  Client other(server.port());
  std::string sid2 = open_session(other);
  EXPECT_NE(sid2, sid);
  EXPECT_EQ(server.stop(), 0);
}

TEST_F(HttpTransport, SessionErrors) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);

  Reply missing = c.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  EXPECT_EQ(missing.status, 400u);
  EXPECT_EQ(at(missing, {"error", "code"}).as_int(), -32000);

  Client c2(server.port());
  Reply unknown = c2.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})",
                          "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(unknown.status, 404u);

  Client c3(server.port());
  Reply reinit = c3.post(initialize_body(), sid);
  EXPECT_EQ(reinit.status, 400u);

  // A failed initialize leaves no session behind.
  Client c4(server.port());
  Reply failed =
      c4.post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"fail":true}})");
  EXPECT_EQ(failed.status, 200u);
  EXPECT_FALSE(at(failed, {"error"}).is_nil());
  EXPECT_EQ(failed.header("mcp-session-id"), "");

  Client d(server.port());
  EXPECT_EQ(d.request(bhttp::verb::delete_, "/mcp").status, 400u);
  Client d2(server.port());
  EXPECT_EQ(d2.request(bhttp::verb::delete_, "/mcp", "",
                       {{"Mcp-Session-Id", "0123456789abcdef0123456789abcdef"}})
                .status,
            404u);
  Client d3(server.port());
  EXPECT_EQ(d3.request(bhttp::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", sid}}).status, 202u);
  auto cancelled = backend.cancelled_connections();
  ASSERT_EQ(cancelled.size(), 1u);
  EXPECT_EQ(cancelled[0], sid);
  // Gone now.
  EXPECT_EQ(d3.request(bhttp::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", sid}}).status, 404u);
  Client c5(server.port());
  EXPECT_EQ(c5.post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", sid).status, 404u);
}

TEST_F(HttpTransport, DeleteCancelsTheSessionsCalls) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  Reply call;
  std::thread caller([&] { call = c.post(call_body(5, R"({"never":true})"), sid); });
  ASSERT_TRUE(backend.wait_for([&] { return backend.in_flight_locked() == 1; }));
  Client d(server.port());
  EXPECT_EQ(d.request(bhttp::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", sid}}).status, 202u);
  caller.join();
  EXPECT_EQ(call.status, 200u);
  EXPECT_EQ(result_text(call), "cancelled");
}

TEST_F(HttpTransport, MethodsAndPaths) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  Reply get = c.request(bhttp::verb::get, "/mcp", "", {{"Accept", "text/event-stream"}});
  EXPECT_EQ(get.status, 405u);
  EXPECT_EQ(get.header("allow"), "POST, DELETE");
  EXPECT_EQ(c.request(bhttp::verb::get, "/other").status, 404u);
  // A refused request whose body was not read ends its connection.
  Reply put = c.request(bhttp::verb::put, "/mcp", "{}");
  EXPECT_EQ(put.status, 405u);
  EXPECT_FALSE(put.keep_alive);
  // The query string is not part of the path.
  std::string sid;
  {
    Client i(server.port());
    Reply r = i.request(bhttp::verb::post, "/mcp?x=1", initialize_body());
    EXPECT_EQ(r.status, 200u);
  }
}

TEST_F(HttpTransport, HealthAndReady) {
  backend.set_capacity(1);
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  Reply health = c.request(bhttp::verb::get, "/health");
  EXPECT_EQ(health.status, 200u);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
  Reply ready = c.request(bhttp::verb::get, "/ready");
  EXPECT_EQ(ready.status, 200u);
  EXPECT_EQ(ready.body, R"({"status":"ready"})");
  EXPECT_EQ(c.request(bhttp::verb::delete_, "/health").status, 405u);

  Client s(server.port());
  std::string sid = open_session(s);
  std::thread caller([&] { s.post(call_body(9, R"({"sleep_ms":400})"), sid); });
  ASSERT_TRUE(backend.wait_for([&] { return backend.in_flight_locked() == 1; }));
  Reply saturated = c.request(bhttp::verb::get, "/ready");
  EXPECT_EQ(saturated.status, 503u);
  EXPECT_EQ(saturated.body, R"({"status":"saturated"})");
  caller.join();
}

// The names load balancers and Kubernetes use; readiness also needs the
// shared store (with --store) to answer, liveness does not.
TEST_F(HttpTransport, HealthzAndReadyzFollowTheStore) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  EXPECT_EQ(c.request(bhttp::verb::get, "/healthz").body, R"({"status":"ok"})");
  EXPECT_EQ(c.request(bhttp::verb::get, "/readyz").body, R"({"status":"ready"})");
  backend.set_store_reachable(false);
  EXPECT_EQ(c.request(bhttp::verb::get, "/healthz").status, 200u);
  Reply unready = c.request(bhttp::verb::get, "/readyz");
  EXPECT_EQ(unready.status, 503u);
  EXPECT_EQ(unready.body, R"({"status":"store_unreachable"})");
  EXPECT_EQ(c.request(bhttp::verb::get, "/ready").status, 503u);
  backend.set_store_reachable(true);
  EXPECT_EQ(c.request(bhttp::verb::get, "/readyz").status, 200u);
}

TEST_F(HttpTransport, DnsRebindingGuard) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  std::string own = "http://127.0.0.1:" + std::to_string(server.port());

  // The conformance suite's dns-rebinding-protection scenario.
  Client evil(server.port());
  Reply r = evil.post(initialize_body(), "",
                      {{"Host", "evil.example.com"}, {"Origin", "http://evil.example.com"}});
  EXPECT_EQ(r.status, 403u);
  EXPECT_EQ(at(r, {"error", "code"}).as_int(), -32000);
  Client good(server.port());
  EXPECT_EQ(good.post(initialize_body(), "", {{"Origin", own}}).status, 200u);

  Client host_only(server.port());
  EXPECT_EQ(host_only
                .post(initialize_body(), "",
                      {{"Host", "evil.example.com:" + std::to_string(server.port())}})
                .status,
            403u);
  Client origin_only(server.port());
  EXPECT_EQ(
      origin_only.post(initialize_body(), "", {{"Origin", "https://evil.example.com"}}).status,
      403u);
  Client null_origin(server.port());
  EXPECT_EQ(null_origin.post(initialize_body(), "", {{"Origin", "null"}}).status, 403u);
  Client localhost(server.port());
  EXPECT_EQ(localhost
                .post(initialize_body(), "",
                      {{"Host", "localhost:" + std::to_string(server.port())},
                       {"Origin", "http://localhost:5173"}})
                .status,
            200u);
  // /health is guarded too.
  Client h(server.port());
  EXPECT_EQ(h.request(bhttp::verb::get, "/health", "", {{"Host", "evil.example.com"}}).status,
            403u);
}

TEST_F(HttpTransport, AllowedOriginsReplaceTheLoopbackDefault) {
  ServerConfig config = test_config();
  config.http_allowed_origins = {"https://app.example.com"};
  Running server(backend, config);
  ASSERT_TRUE(server.ok());
  Client a(server.port());
  EXPECT_EQ(a.post(initialize_body(), "", {{"Origin", "https://app.example.com"}}).status, 200u);
  Client b(server.port());
  EXPECT_EQ(b.post(initialize_body(), "", {{"Origin", "http://127.0.0.1:3000"}}).status, 403u);
}

TEST_F(HttpTransport, BearerToken) {
  ServerConfig config = test_config();
  config.http_auth_token = kToken;
  Running server(backend, config);
  ASSERT_TRUE(server.ok());

  Client none(server.port());
  Reply r = none.post(initialize_body());
  EXPECT_EQ(r.status, 401u);
  EXPECT_EQ(r.header("www-authenticate"), "Bearer");
  Client wrong(server.port());
  r = wrong.post(initialize_body(), "", {{"Authorization", "Bearer " + kToken + "x"}});
  EXPECT_EQ(r.status, 401u);
  EXPECT_EQ(r.header("www-authenticate"), "Bearer error=\"invalid_token\"");

  Client right(server.port());
  r = right.post(initialize_body(), "", {{"Authorization", "Bearer " + kToken}});
  EXPECT_EQ(r.status, 200u);
  std::string sid = r.header("mcp-session-id");
  // The session needs the token too.
  Client again(server.port());
  EXPECT_EQ(again.post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", sid).status, 401u);
  Client ok(server.port());
  EXPECT_EQ(ok.post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", sid,
                    {{"Authorization", "Bearer " + kToken}})
                .status,
            200u);
  // Health endpoints need none.
  Client h(server.port());
  EXPECT_EQ(h.request(bhttp::verb::get, "/health").status, 200u);
  EXPECT_EQ(h.request(bhttp::verb::get, "/ready").status, 200u);

  auto callers = backend.callers();
  ASSERT_FALSE(callers.empty());
  EXPECT_NE(callers.back().owner, "loopback");
  EXPECT_EQ(callers.back().owner.find(kToken), std::string::npos);
}

TEST_F(HttpTransport, HeaderAndBodyChecks) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  std::string ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";

  // Any supported protocol version, not only the negotiated one.
  for (const char* v : {"2025-11-25", "2025-06-18", "2025-03-26"})
    EXPECT_EQ(c.post(ping, sid, {{"MCP-Protocol-Version", v}}).status, 200u) << v;
  Client v1(server.port());
  EXPECT_EQ(v1.post(ping, sid, {{"MCP-Protocol-Version", "2024-01-01"}}).status, 400u);
  Client ct(server.port());
  EXPECT_EQ(ct.post(ping, sid, {{"Content-Type", "text/plain"}}).status, 415u);
  Client nct(server.port());
  EXPECT_EQ(nct.post(ping, sid, {{"Content-Type", ""}}).status, 200u);  // absent is fine

  Reply empty = c.post("", sid);
  EXPECT_EQ(empty.status, 400u);
  Reply garbage = c.post("this is not json", sid);
  EXPECT_EQ(garbage.status, 400u);
  EXPECT_EQ(at(garbage, {"error", "code"}).as_int(), -32700);
  Reply batch = c.post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", sid);
  EXPECT_EQ(batch.status, 400u);
  EXPECT_EQ(at(batch, {"error", "code"}).as_int(), -32600);
  // Unparsable without a session: the parse error, not the session error.
  Client g(server.port());
  Reply g2 = g.post("{oops");
  EXPECT_EQ(g2.status, 400u);
  EXPECT_EQ(at(g2, {"error", "code"}).as_int(), -32700);
  // Still serving on the same connection.
  EXPECT_EQ(c.post(ping, sid).status, 200u);
}

TEST_F(HttpTransport, EventStreamWhenTheClientAcceptsOnlyThat) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  Reply r =
      c.post(R"({"jsonrpc":"2.0","id":7,"method":"ping"})", sid, {{"Accept", "text/event-stream"}});
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  EXPECT_EQ(r.body, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n");
}

TEST_F(HttpTransport, RequestIdIsEchoedOrMade) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  EXPECT_EQ(c.request(bhttp::verb::get, "/health", "", {{"X-Request-Id", "abc-123"}})
                .header("x-request-id"),
            "abc-123");
  std::string a = c.request(bhttp::verb::get, "/health").header("x-request-id");
  std::string b = c.request(bhttp::verb::get, "/health", "", {{"X-Request-Id", "not <usable>"}})
                      .header("x-request-id");
  EXPECT_FALSE(a.empty());
  EXPECT_FALSE(b.empty());
  EXPECT_NE(a, b);
}

TEST_F(HttpTransport, BodyCap) {
  ServerConfig config = test_config();
  config.http_max_body_bytes = 1000;
  Running server(backend, config);
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  std::string big = call_body(4, "{\"pad\":\"" + std::string(2000, 'x') + "\"}");
  Reply r = c.post(big, sid);
  EXPECT_EQ(r.status, 413u);
  EXPECT_FALSE(r.keep_alive);

  // Chunked bodies are held to the same cap while they arrive.
  Client chunked(server.port());
  std::string head = "POST /mcp HTTP/1.1\r\nHost: " + chunked.host() +
                     "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                     "Mcp-Session-Id: " +
                     sid + "\r\n\r\n";
  std::string chunk(800, ' ');
  std::string data = head;
  for (int i = 0; i < 3; ++i)
    data += "320\r\n" + chunk + "\r\n";
  data += "0\r\n\r\n";
  net::write(chunked.socket(), net::buffer(data));
  EXPECT_EQ(chunked.read_reply().status, 413u);

  // Under the cap, chunked works.
  Client small(server.port());
  std::string body = R"({"jsonrpc":"2.0","id":8,"method":"ping"})";
  std::string msg = "POST /mcp HTTP/1.1\r\nHost: " + small.host() +
                    "\r\nTransfer-Encoding: chunked\r\nMcp-Session-Id: " + sid + "\r\n\r\n";
  char size[16];
  std::snprintf(size, sizeof size, "%zx", body.size());
  msg += std::string(size) + "\r\n" + body + "\r\n0\r\n\r\n";
  net::write(small.socket(), net::buffer(msg));
  EXPECT_EQ(small.read_reply().status, 200u);
}

TEST_F(HttpTransport, ExpectContinue) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string body = initialize_body();
  std::string head = "POST /mcp HTTP/1.1\r\nHost: " + c.host() +
                     "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                     "Content-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n";
  net::write(c.socket(), net::buffer(head));
  std::string interim(25, '\0');
  net::read(c.socket(), net::buffer(interim));
  EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
  net::write(c.socket(), net::buffer(body));
  EXPECT_EQ(c.read_reply().status, 200u);
}

TEST_F(HttpTransport, KeepAliveServesManyRequestsOnOneConnection) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  for (int i = 0; i < 50; ++i) {
    Reply r =
        i % 2
            ? c.post(call_body(100 + i, "{}"), sid)
            : c.post(R"({"jsonrpc":"2.0","id":)" + std::to_string(100 + i) + R"(,"method":"ping"})",
                     sid);
    ASSERT_EQ(r.status, 200u) << i;
    EXPECT_TRUE(r.keep_alive);
    EXPECT_EQ(at(r, {"id"}).as_int(), 100 + i);
  }
}

TEST_F(HttpTransport, ASlowClientIsCutOffWhileOthersAreServed) {
  ServerConfig config = test_config();
  config.http_request_timeout_ms = 400;
  Running server(backend, config);
  ASSERT_TRUE(server.ok());
  Client fast(server.port());
  std::string sid = open_session(fast);

  Client slow(server.port());
  std::string body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  std::string head = "POST /mcp HTTP/1.1\r\nHost: " + slow.host() + "\r\nMcp-Session-Id: " + sid +
                     "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  net::write(slow.socket(), net::buffer(head));
  auto start = Clock::now();
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    for (char ch : body) {
      if (stop) return;
      boost::system::error_code ec;
      net::write(slow.socket(), net::buffer(&ch, 1), ec);
      if (ec) return;
      std::this_thread::sleep_for(50ms);
    }
  });
  // Others are served meanwhile.
  for (int i = 0; i < 5; ++i) {
    Reply r = fast.post(
        R"({"jsonrpc":"2.0","id":)" + std::to_string(10 + i) + R"(,"method":"ping"})", sid);
    EXPECT_EQ(r.status, 200u);
    std::this_thread::sleep_for(20ms);
  }
  Reply cut = slow.read_reply();
  auto took = Clock::now() - start;
  stop = true;
  trickle.join();
  EXPECT_TRUE(cut.ok);
  EXPECT_EQ(cut.status, 408u);
  EXPECT_FALSE(cut.keep_alive);
  EXPECT_GE(took, 350ms);
  EXPECT_LT(took, 1500ms);

  // A connection that never sends anything is closed after the timeout too.
  Client silent(server.port());
  auto t0 = Clock::now();
  EXPECT_TRUE(silent.closed_by_server());
  EXPECT_LT(Clock::now() - t0, 1500ms);
}

TEST_F(HttpTransport, ARequestWithoutAReplyTimesOutAndIsCancelled) {
  ServerConfig config = test_config();
  config.http_request_timeout_ms = 300;
  Running server(backend, config);
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  auto t0 = Clock::now();
  Reply r = c.post(call_body(42, R"({"never":true})"), sid);
  EXPECT_GE(Clock::now() - t0, 250ms);
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(at(r, {"id"}).as_int(), 42);
  EXPECT_EQ(at(r, {"error", "code"}).as_int(), -32000);
  EXPECT_EQ(text(at(r, {"error", "message"})), "request timed out");
  auto ids = backend.cancelled_ids();
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(ids[0], sid + "/42");
  // The connection goes on.
  EXPECT_EQ(c.post(R"({"jsonrpc":"2.0","id":43,"method":"ping"})", sid).status, 200u);
}

TEST_F(HttpTransport, AClientThatGoesAwayCancelsItsCall) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  {
    Client gone(server.port());
    std::string body = call_body(77, R"({"never":true})");
    std::string msg = "POST /mcp HTTP/1.1\r\nHost: " + gone.host() +
                      "\r\nContent-Type: application/json\r\nMcp-Session-Id: " + sid +
                      "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    net::write(gone.socket(), net::buffer(msg));
    ASSERT_TRUE(backend.wait_for([&] { return backend.in_flight_locked() == 1; }));
  }  // closed here
  EXPECT_TRUE(backend.wait_for([&] {
    for (const auto& id : backend.cancelled_ids_locked())
      if (id == sid + "/77") return true;
    return false;
  }));
  EXPECT_TRUE(backend.wait_for([&] { return backend.in_flight_locked() == 0; }));
  EXPECT_EQ(c.post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", sid).status, 200u);
}

TEST_F(HttpTransport, PerSessionInFlightCap) {
  ServerConfig config = test_config();
  config.http_max_in_flight_per_session = 2;
  Running server(backend, config);
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);

  std::vector<std::thread> callers;
  std::vector<Reply> replies(2);
  for (int i = 0; i < 2; ++i)
    callers.emplace_back([&, i] {
      Client k(server.port());
      replies[i] = k.post(call_body(200 + i, R"({"sleep_ms":500})"), sid);
    });
  ASSERT_TRUE(backend.wait_for([&] { return backend.in_flight_locked() == 2; }));
  auto t0 = Clock::now();
  Reply busy = c.post(call_body(300, "{}"), sid);
  EXPECT_LT(Clock::now() - t0, 300ms);  // at once
  EXPECT_EQ(busy.status, 200u);
  HostValue result = at(busy, {"result"});
  EXPECT_TRUE(field(result, "isError").as_bool()) << busy.body;
  EXPECT_EQ(text(field(field(result, "structuredContent"), "reason")), "busy");
  // Other methods are not held to the cap.
  EXPECT_EQ(c.post(R"({"jsonrpc":"2.0","id":301,"method":"tools/list"})", sid).status, 200u);
  // Another session is not either.
  Client other(server.port());
  std::string sid2 = open_session(other);
  EXPECT_EQ(other.post(call_body(302, "{}"), sid2).status, 200u);
  for (auto& t : callers)
    t.join();
  for (const Reply& r : replies)
    EXPECT_EQ(result_text(r), "done");
  // Slots are back.
  EXPECT_FALSE(at(c.post(call_body(303, "{}"), sid), {"result", "isError"}).as_bool());
}

// The conformance suite's server-sse-multiple-streams scenario: three
// concurrent POSTs of one session, with a protocol version other than the
// negotiated one.
TEST_F(HttpTransport, ConcurrentRequestsOfOneSession) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  std::vector<std::thread> threads;
  std::vector<unsigned> statuses(3);
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      Client k(server.port());
      statuses[i] = k.post(R"({"jsonrpc":"2.0","id":)" + std::to_string(i + 10) +
                               R"(,"method":"tools/list"})",
                           sid, {{"MCP-Protocol-Version", "2025-03-26"}})
                        .status;
    });
  for (auto& t : threads)
    t.join();
  for (unsigned s : statuses)
    EXPECT_EQ(s, 200u);
}

TEST_F(HttpTransport, DrainFinishesCallsInFlightAndRefusesNewOnes) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  Client idle(server.port());
  EXPECT_EQ(idle.request(bhttp::verb::get, "/health").status, 200u);

  Reply call;
  std::thread caller([&] {
    Client k(server.port());
    call = k.post(call_body(50, R"({"sleep_ms":600})"), sid);
  });
  ASSERT_TRUE(backend.wait_for([&] { return backend.in_flight_locked() == 1; }));
  std::atomic<int> exit_code{-1};
  std::thread stopper([&] { exit_code = server.stop(); });
  ASSERT_TRUE(backend.wait_for([&] { return true; }));
  while (!backend.drain_called())
    std::this_thread::sleep_for(5ms);

  Reply ready = idle.request(bhttp::verb::get, "/ready");
  EXPECT_EQ(ready.status, 503u);
  EXPECT_EQ(ready.body, R"({"status":"draining"})");
  EXPECT_FALSE(ready.keep_alive);
  Reply refused = c.post(R"({"jsonrpc":"2.0","id":51,"method":"ping"})", sid);
  EXPECT_EQ(refused.status, 503u);
  EXPECT_EQ(text(at(refused, {"error", "message"})), "server draining");
  // No new connections.
  Client late(server.port());
  EXPECT_FALSE(late.connected() && late.request(bhttp::verb::get, "/health").ok);

  caller.join();
  EXPECT_EQ(call.status, 200u);
  EXPECT_EQ(result_text(call), "done");
  stopper.join();
  EXPECT_EQ(exit_code, 0);
  EXPECT_FALSE(backend.cancel_all_called());
}

TEST_F(HttpTransport, DrainPastTheGraceCancelsWhatIsLeft) {
  ServerConfig config = test_config();
  config.http_shutdown_grace_ms = 200;
  Running server(backend, config);
  ASSERT_TRUE(server.ok());
  Client c(server.port());
  std::string sid = open_session(c);
  Reply call;
  std::thread caller([&] { call = c.post(call_body(60, R"({"never":true})"), sid); });
  ASSERT_TRUE(backend.wait_for([&] { return backend.in_flight_locked() == 1; }));
  auto t0 = Clock::now();
  EXPECT_EQ(server.stop(), 0);
  EXPECT_LT(Clock::now() - t0, 1500ms);
  caller.join();
  EXPECT_TRUE(backend.cancel_all_called());
  EXPECT_EQ(call.status, 200u);
  EXPECT_EQ(result_text(call), "cancelled");
}

TEST_F(HttpTransport, StopBeforeAnyRequest) {
  Running server(backend, test_config());
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(server.stop(), 0);
}

TEST_F(HttpTransport, RefusesToListenBeyondLoopbackWithoutTheFlagAndAToken) {
  ServerConfig config = test_config();
  config.http_host = "0.0.0.0";
  Running refused(backend, config);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("--http-allow-unsafe-network"), std::string::npos);
  EXPECT_EQ(refused.service().run(), 2);

  config.http_allow_unsafe_network = true;
  Running no_token(backend, config);
  EXPECT_FALSE(no_token.ok());
  EXPECT_NE(no_token.error().find("--http-auth-token"), std::string::npos);
}

TEST_F(HttpTransport, LogsTheBoundPortAndEachRequest) {
  ptc::mcp::set_log_level(ptc::mcp::LogLevel::Debug);
  testing::internal::CaptureStderr();
  uint16_t port = 0;
  {
    Running server(backend, test_config());
    ASSERT_TRUE(server.ok());
    port = server.port();
    Client c(port);
    EXPECT_EQ(c.request(bhttp::verb::get, "/health", "", {{"X-Request-Id", "log-me"}}).status,
              200u);
    server.stop();
  }
  std::string err = testing::internal::GetCapturedStderr();
  ptc::mcp::set_log_level(ptc::mcp::LogLevel::Warning);
  bool listening = false;
  bool request = false;
  size_t start = 0;
  while (start < err.size()) {
    size_t end = err.find('\n', start);
    std::string line = err.substr(start, end - start);
    start = end == std::string::npos ? err.size() : end + 1;
    HostValue j = ptc::parse_json(line);
    if (text(field(j, "event")) == "http_listening") {
      listening = true;
      EXPECT_EQ(field(j, "port").as_int(), port);
    }
    if (text(field(j, "event")) == "http_request") {
      request = true;
      EXPECT_EQ(text(field(j, "request_id")), "log-me");
      EXPECT_EQ(text(field(j, "method")), "GET");
      EXPECT_EQ(text(field(j, "path")), "/health");
      EXPECT_EQ(field(j, "status").as_int(), 200);
      EXPECT_TRUE(j.get("duration_ms"));
    }
  }
  EXPECT_TRUE(listening) << err;
  EXPECT_TRUE(request) << err;
}

}  // namespace
