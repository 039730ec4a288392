// The HTTP transport over the real Server (make_server): what an MCP client
// sees end to end (initialize, tools/list, lisp_eval, errors), calls
// cancelled by a timeout, a disconnect or DELETE, the drain, and
// serve_http itself stopped by SIGTERM.
#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <thread>

#include "http_test_support.hpp"
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/server.hpp"
#include "protocol/mcp/transports.hpp"

namespace {

using namespace http_test;
using ptc::mcp::ServerConfig;
using Clock = std::chrono::steady_clock;

// Runs until cancelled (or for 2^40 calls); kWork takes a few hundred ms.
const char* kLoop = "((fn f [n] (if (= n 0) 1 (+ (f (- n 1)) (f (- n 1))))) 40)";
const char* kWork = "((fn f [n] (if (= n 0) 1 (+ (f (- n 1)) (f (- n 1))))) 21)";

std::string eval_body(int id, const std::string& program) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"lisp_eval","arguments":{"program":)" +
         ptc::to_json(HostValue::string(program)) + "}}}";
}

// The tools/call result of a reply (nil when there is none).
HostValue result_of(const Reply& r) {
  return at(r, {"result"});
}

std::string text_of(const Reply& r) {
  HostValue res = result_of(r);
  const HostValue* content = res.get("content");
  if (!content || content->items().empty()) return "<" + r.body + ">";
  return text(field(content->items()[0], "text"));
}

bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds limit = 5s) {
  auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

class HttpServer : public ::testing::Test {
 protected:
  void SetUp() override { ptc::mcp::set_log_level(ptc::mcp::LogLevel::Warning); }
  void TearDown() override { ptc::mcp::set_log_level(ptc::mcp::LogLevel::Info); }

  static ServerConfig config() {
    ServerConfig c = test_config();
    c.program_timeout_ms = 30000;  // kLoop runs until something cancels it
    c.http_request_timeout_ms = 30000;
    c.http_shutdown_grace_ms = 30000;  // kWork finishes, however slow the build
    return c;
  }

  std::string open_session(Client& c) {
    Reply r = c.post(initialize_body());
    EXPECT_EQ(r.status, 200u) << r.body;
    return r.header("mcp-session-id");
  }
};

TEST_F(HttpServer, AClientSessionEndToEnd) {
  ServerConfig c = config();
  auto server = ptc::mcp::make_server(c);
  ptc::mcp::ServerBackend backend(*server);
  Running http(backend, c);
  ASSERT_TRUE(http.ok()) << http.error();
  Client k(http.port());

  Reply init = k.post(initialize_body());
  ASSERT_EQ(init.status, 200u) << init.body;
  std::string sid = init.header("mcp-session-id");
  EXPECT_EQ(sid.size(), 32u);
  EXPECT_EQ(text(field(result_of(init), "protocolVersion")), "2025-11-25");

  EXPECT_EQ(k.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", sid).status, 202u);
  Reply ping = k.post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", sid,
                      {{"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_EQ(ping.status, 200u);
  EXPECT_EQ(ping.body, R"({"jsonrpc":"2.0","id":2,"result":{}})");

  Reply list = k.post(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})", sid);
  EXPECT_EQ(list.status, 200u);
  HostValue tools = field(result_of(list), "tools");
  ASSERT_GE(tools.size(), 1u);
  EXPECT_EQ(text(field(tools.items()[0], "name")), "lisp_eval");
  EXPECT_FALSE(field(tools.items()[0], "inputSchema").is_nil());

  Reply sum = k.post(eval_body(4, "(+ 1 2)"), sid);
  EXPECT_EQ(sum.status, 200u);
  EXPECT_FALSE(field(result_of(sum), "isError").as_bool()) << sum.body;
  EXPECT_EQ(text_of(sum), "user=> 3");

  Reply failed = k.post(eval_body(5, "(/ 1 0)"), sid);
  EXPECT_TRUE(field(result_of(failed), "isError").as_bool()) << failed.body;

  Reply unknown = k.post(
      R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope","arguments":{}}})",
      sid);
  EXPECT_EQ(unknown.status, 200u);
  EXPECT_TRUE(field(result_of(unknown), "isError").as_bool()) << unknown.body;

  Reply level = k.post(
      R"({"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"debug"}})", sid);
  EXPECT_EQ(level.body, R"({"jsonrpc":"2.0","id":7,"result":{}})");
  // Log notifications have no stream to go to; the next reply is still its own.
  Reply after = k.post(eval_body(8, "(* 6 7)"), sid);
  EXPECT_EQ(field(after.json(), "id").as_int(), 8) << after.body;
  EXPECT_EQ(text_of(after), "user=> 42");

  Reply bad = k.post("{not json", sid);
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(field(field(bad.json(), "error"), "code").as_int(), -32700) << bad.body;
  Reply method = k.post(R"({"jsonrpc":"2.0","id":9,"method":"no/such"})", sid);
  EXPECT_EQ(method.status, 200u);
  EXPECT_EQ(field(field(method.json(), "error"), "code").as_int(), -32601) << method.body;

  // SSE for a client that accepts only that.
  Reply sse = k.post(eval_body(10, "(+ 1 2)"), sid, {{"Accept", "text/event-stream"}});
  EXPECT_EQ(sse.header("content-type"), "text/event-stream");
  EXPECT_EQ(sse.body.rfind("event: message\ndata: {", 0), 0u) << sse.body;

  EXPECT_EQ(k.request(bhttp::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", sid}}).status, 202u);
  EXPECT_EQ(k.post(R"({"jsonrpc":"2.0","id":11,"method":"ping"})", sid).status, 404u);
  EXPECT_EQ(http.stop(), 0);
}

TEST_F(HttpServer, ATimedOutRequestCancelsItsProgram) {
  ServerConfig c = config();
  c.http_request_timeout_ms = 300;
  auto server = ptc::mcp::make_server(c);
  ptc::mcp::ServerBackend backend(*server);
  Running http(backend, c);
  ASSERT_TRUE(http.ok());
  Client k(http.port());
  std::string sid = open_session(k);
  Reply r = k.post(eval_body(2, kLoop), sid);
  EXPECT_EQ(text(field(field(r.json(), "error"), "message")), "request timed out") << r.body;
  EXPECT_TRUE(wait_until([&] { return server->in_flight() == 0; }, 2s));
  // The id is free again once the cancelled call is gone.
  EXPECT_EQ(text_of(k.post(eval_body(2, "(+ 1 2)"), sid)), "user=> 3");
}

TEST_F(HttpServer, ADisconnectCancelsItsProgram) {
  ServerConfig c = config();
  auto server = ptc::mcp::make_server(c);
  ptc::mcp::ServerBackend backend(*server);
  Running http(backend, c);
  ASSERT_TRUE(http.ok());
  Client k(http.port());
  std::string sid = open_session(k);
  {
    Client gone(http.port());
    std::string body = eval_body(3, kLoop);
    std::string msg = "POST /mcp HTTP/1.1\r\nHost: " + gone.host() +
                      "\r\nContent-Type: application/json\r\nMcp-Session-Id: " + sid +
                      "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    net::write(gone.socket(), net::buffer(msg));
    ASSERT_TRUE(wait_until([&] { return server->in_flight() == 1; }));
  }
  auto t0 = Clock::now();
  EXPECT_TRUE(wait_until([&] { return server->in_flight() == 0; }, 2s));
  EXPECT_LT(Clock::now() - t0, 1s);
  EXPECT_EQ(text_of(k.post(eval_body(4, "(+ 1 2)"), sid)), "user=> 3");
}

TEST_F(HttpServer, DeleteCancelsTheSessionsPrograms) {
  ServerConfig c = config();
  auto server = ptc::mcp::make_server(c);
  ptc::mcp::ServerBackend backend(*server);
  Running http(backend, c);
  ASSERT_TRUE(http.ok());
  Client k(http.port());
  std::string sid = open_session(k);
  Reply r;
  std::jthread caller([&] { r = k.post(eval_body(2, kLoop), sid); });
  ASSERT_TRUE(wait_until([&] { return server->in_flight() == 1; }));
  Client d(http.port());
  EXPECT_EQ(d.request(bhttp::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", sid}}).status, 202u);
  caller.join();
  EXPECT_EQ(r.status, 200u);
  HostValue res = result_of(r);
  EXPECT_EQ(text(field(field(res, "structuredContent"), "reason")), "cancelled") << r.body;
}

TEST_F(HttpServer, DrainLetsRunningProgramsFinish) {
  ServerConfig c = config();
  auto server = ptc::mcp::make_server(c);
  ptc::mcp::ServerBackend backend(*server);
  Running http(backend, c);
  ASSERT_TRUE(http.ok());
  Client k(http.port());
  std::string sid = open_session(k);
  Client other(http.port());
  EXPECT_EQ(other.request(bhttp::verb::get, "/ready").status, 200u);
  Reply r;
  std::jthread caller([&] { r = k.post(eval_body(2, kWork), sid); });
  ASSERT_TRUE(wait_until([&] { return server->in_flight() == 1; }));
  std::jthread stopper([&] { EXPECT_EQ(http.stop(), 0); });
  ASSERT_TRUE(wait_until([&] { return server->draining(); }));
  Reply refused = other.post(R"({"jsonrpc":"2.0","id":9,"method":"ping"})", sid);
  EXPECT_EQ(refused.status, 503u);
  caller.join();
  stopper.join();
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(text_of(r), "user=> 2097152") << r.body;
}

// serve_http with a real SIGTERM: drains and returns 0.
TEST_F(HttpServer, ServeHttpStopsOnSigterm) {
  // A port that was free a moment ago (serve_http logs the port it binds,
  // but reading our own stderr here is clumsier than this).
  uint16_t port = 0;
  {
    net::io_context ioc;
    tcp::acceptor probe(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    port = probe.local_endpoint().port();
  }
  ServerConfig c = config();
  c.http_port = port;
  auto server = ptc::mcp::make_server(c);
  int code = -1;
  std::jthread serving([&] { code = ptc::mcp::serve_http(*server); });
  // Serving means the signal handlers are installed (they are set up
  // before the first accept).
  ASSERT_TRUE(wait_until([&] {
    Client k(port);
    return k.connected() && k.request(bhttp::verb::get, "/health").status == 200;
  }));
  Client k(port);
  std::string sid = open_session(k);
  Reply r;
  std::jthread caller([&] { r = k.post(eval_body(2, kWork), sid); });
  ASSERT_TRUE(wait_until([&] { return server->in_flight() == 1; }));
  kill(getpid(), SIGTERM);
  caller.join();
  serving.join();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(text_of(r), "user=> 2097152");
  Client late(port);
  EXPECT_FALSE(late.connected());
}

TEST_F(HttpServer, ServeHttpRefusesAnUnsafeBind) {
  ServerConfig c = config();
  c.http_host = "0.0.0.0";
  auto server = ptc::mcp::make_server(c);
  EXPECT_EQ(ptc::mcp::serve_http(*server), 2);
}

}  // namespace
