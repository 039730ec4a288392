// The server's settings (flags over PTC_MCP_* variables over defaults) and
// the stdio transport's framing over real pipes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "protocol/mcp/config.hpp"
#include "protocol/mcp/server.hpp"
#include "protocol/mcp/transports.hpp"

namespace {

using namespace ptc::mcp;
using namespace std::chrono_literals;

TEST(McpConfig, FlagsWinOverTheEnvironment) {
  ServerConfig c;
  std::string e = parse_config({"--program-timeout-ms", "250", "--sessions", "--http-port=9000"},
                               {{"PTC_MCP_PROGRAM_TIMEOUT_MS", "9999"},
                                {"PTC_MCP_MAX_CONCURRENT_CALLS", "3"},
                                {"PTC_MCP_RESPONSE_PROFILE", "debug"}},
                               c);
  ASSERT_EQ(e, "");
  EXPECT_EQ(c.program_timeout_ms, 250u);
  EXPECT_EQ(c.max_concurrent_calls, 3u);
  EXPECT_EQ(c.response_profile, ResponseProfile::Debug);
  EXPECT_TRUE(c.sessions);
  EXPECT_EQ(c.http_port, 9000);
  EXPECT_EQ(effective_max_concurrent_calls(c), 3u);
}

TEST(McpConfig, BadValuesNameTheirSource) {
  ServerConfig c;
  EXPECT_EQ(parse_config({"--nope"}, {}, c), "unknown option --nope (see ptc mcp --help)");
  EXPECT_EQ(parse_config({"--program-timeout-ms", "soon"}, {}, c),
            "--program-timeout-ms: \"soon\" is not a non-negative integer");
  EXPECT_EQ(parse_config({}, {{"PTC_MCP_SESSIONS", "maybe"}}, c),
            "PTC_MCP_SESSIONS: \"maybe\" is not a boolean (1/0, true/false, yes/no, on/off)");
  EXPECT_EQ(parse_config({"--response-profile", "loud"}, {}, c),
            "--response-profile: \"loud\" is not slim, structured or debug");
  EXPECT_EQ(parse_config({"--http-auth-token", "short"}, {}, c),
            "--http-auth-token must be at least 32 characters long");
  EXPECT_EQ(parse_config({"--http-port", "70000"}, {}, c), "--http-port: 70000 is more than 65535");
  EXPECT_EQ(parse_config({"--log-level"}, {}, c), "--log-level needs a value");
}

TEST(McpConfig, TheSharedStoreNeedsHttpAndAKey) {
  ServerConfig c;
  EXPECT_EQ(parse_config({"--store", "redis://127.0.0.1"}, {}, c),
            "--store needs --http: replicas share a store behind a load balancer (stdio serves "
            "one client)");
  EXPECT_EQ(parse_config({"--http"}, {{"PTC_MCP_STORE", "redis://127.0.0.1"}}, c),
            "--store needs --store-key-file: every record in the store is HMAC'd with that key");
  EXPECT_EQ(parse_config({"--store-key-file", "/k"}, {}, c),
            "--store-key-file and --store-password-file go with --store");
  EXPECT_EQ(parse_config({"--http", "--store", "redis://h", "--store-key-file", "/k",
                          "--task-lease-ms", "10"},
                         {}, c),
            "--task-lease-ms must be at least 500");
  ASSERT_EQ(
      parse_config({"--http", "--store", "redis://:secret@h:1/2", "--store-key-file", "/k"}, {}, c),
      "");
  EXPECT_EQ(c.store, "redis://:secret@h:1/2");
  EXPECT_EQ(c.task_lease_ms, 5000u);
}

TEST(McpConfig, HelpListsEveryFlagWithItsVariable) {
  std::string help = config_help();
  for (const char* flag : {"--max-frame-bytes", "--program-timeout-ms", "--sessions", "--http-port",
                           "--http-auth-token", "--response-profile", "--log-level"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  EXPECT_NE(help.find("PTC_MCP_HTTP_ALLOWED_ORIGIN"), std::string::npos);
  EXPECT_NE(help.find("default 7332"), std::string::npos);
}

// A server on a pair of pipes, run by serve_stdio in a thread.
struct StdioServer {
  explicit StdioServer(ServerConfig c = {}) : server(make_server(c)) {
    int in[2], out[2];
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
    to_server = in[1];
    from_server = out[0];
    thread = std::thread([this, r = in[0], w = out[1]] {
      exit_code = serve_stdio(*server, r, w);
      close(r);
      close(w);
    });
  }
  ~StdioServer() {
    if (to_server >= 0) close(to_server);
    thread.join();
    close(from_server);
  }
  void write_all(const std::string& s) {
    ASSERT_EQ(::write(to_server, s.data(), s.size()), static_cast<ssize_t>(s.size()));
  }
  void close_input() {
    close(to_server);
    to_server = -1;
  }
  // The next line the server writes, or "" after `timeout`.
  std::string read_line(std::chrono::milliseconds timeout = 5000ms) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (size_t nl = buffer.find('\n'); nl != std::string::npos) {
        std::string line = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{from_server, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
      char buf[65536];
      ssize_t n = ::read(from_server, buf, sizeof buf);
      if (n <= 0) return "";
      buffer.append(buf, static_cast<size_t>(n));
    }
  }
  std::unique_ptr<Server> server;
  int to_server = -1, from_server = -1;
  std::thread thread;
  int exit_code = -1;
  std::string buffer;
};

TEST(McpStdio, OneMessagePerLineAndCrlfTolerated) {
  StdioServer s;
  s.write_all("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n   \n");
  EXPECT_EQ(s.read_line(), R"({"jsonrpc":"2.0","id":1,"result":{}})");
  s.write_all("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"to");
  std::this_thread::sleep_for(20ms);
  s.write_all("ols/list\"}\n");
  EXPECT_NE(s.read_line().find("\"id\":2"), std::string::npos) << "a message split across reads";
}

TEST(McpStdio, AnOversizeLineIsRejectedAndReadingResyncs) {
  ServerConfig c;
  c.max_frame_bytes = 4096;
  StdioServer s(c);
  s.write_all(std::string(10000, 'x') + "\n");
  std::string error = s.read_line();
  EXPECT_NE(error.find("-32700"), std::string::npos) << error;
  EXPECT_NE(error.find("\"id\":null"), std::string::npos);
  s.write_all("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
  EXPECT_EQ(s.read_line(), R"({"jsonrpc":"2.0","id":3,"result":{}})");
}

TEST(McpStdio, EndOfInputCancelsEverythingAndReturnsZero) {
  ServerConfig c;
  c.program_timeout_ms = 30000;
  StdioServer s(c);
  s.write_all(
      R"j({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lisp_eval","arguments":{"program":"(defn f [n] (if (< n 2) n (+ (f (- n 1)) (f (- n 2))))) (f 90)"}}})j"
      "\n");
  std::this_thread::sleep_for(50ms);
  auto t0 = std::chrono::steady_clock::now();
  s.close_input();
  s.thread.join();
  s.thread = std::thread([] {});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2000ms);
  EXPECT_EQ(s.exit_code, 0);
  EXPECT_EQ(s.server->in_flight(), 0u);
}

}  // namespace
