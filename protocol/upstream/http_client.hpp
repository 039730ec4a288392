// An MCP client over Streamable HTTP, http:// or https:// (OpenSSL: the
// server's certificate is verified against the system's trusted CAs or the
// upstream's ca_file, and must name the host).
// Each request is one POST on a connection of its own while it runs (so
// calls run concurrently without head-of-line blocking); connections are
// kept alive between requests (a few, for a few seconds) so that a call does
// not pay a TCP and TLS handshake. The reply is JSON or an SSE stream whose
// event with our id is the answer. The session id from initialize goes with
// every later request; a session the server forgot (404) is initialized again
// on the next call. The body is capped before it is decoded.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "protocol/upstream/stdio_client.hpp"

namespace ptc::upstream {

struct HttpConnection;

class HttpClient final : public UpstreamClient {
 public:
  HttpClient(UpstreamConfig config, const Redactor* redactor, LogFn log);
  ~HttpClient() override;
  std::string start() override;
  const std::vector<HostValue>& tools() const override { return tools_; }
  const UpstreamConfig& config() const override { return config_; }
  Reply request(std::string_view method, const HostValue& params, Clock::time_point deadline,
                const std::function<bool()>& cancelled) override;
  void stop() override;

 private:
  struct Raw {
    int status = 0;
    std::string content_type, session;
    std::string body;
    bool too_large = false;
    std::string error;  // transport failure
    bool cancelled = false, timed_out = false;
  };
  // `replayable`: the request may go twice (it changes nothing the second
  // time, or was never read); a tools/call is not.
  // `mcp_headers`: the MCP header lines of a 2026-07-28 request (its
  // version, method and name); "" for the 2025 version header.
  Raw post(const std::string& body, const std::string& session, Clock::time_point deadline,
           const std::function<bool()>& cancelled, int64_t expect_id, bool replayable,
           bool is_delete = false, const std::string& mcp_headers = {});
  // Sends a request and reads its reply on `conn`; true when the connection
  // may carry another. `stale`: it failed before any byte of the reply;
  // `unsent`: before any byte of the request left.
  bool send_and_read(HttpConnection& conn, const std::string& request, Clock::time_point deadline,
                     const std::function<bool()>& cancelled, int64_t expect_id, Raw& r, bool* stale,
                     bool* unsent);
  std::unique_ptr<HttpConnection> connect(Clock::time_point deadline,
                                          const std::function<bool()>& cancelled, Raw& r);
  std::unique_ptr<HttpConnection> take_idle();
  void give_back(std::unique_ptr<HttpConnection> conn);
  static bool wait_socket(int fd, short events, Clock::time_point deadline,
                          const std::function<bool()>& cancelled, Raw& r);
  bool wait_tls(HttpConnection& conn, int rc, Clock::time_point deadline,
                const std::function<bool()>& cancelled, Raw& r);
  Reply exchange(std::string_view method, const HostValue& params, Clock::time_point deadline,
                 const std::function<bool()>& cancelled, const std::string& session,
                 std::string* new_session, bool modern = false);
  std::string initialize(Clock::time_point deadline);
  std::string redact(std::string_view s) const;
  static std::shared_ptr<SSL_CTX> make_tls_context(const std::string& ca_file, std::string* error);

  UpstreamConfig config_;
  const Redactor* redactor_;
  LogFn log_;
  std::string host_, port_, path_;
  std::shared_ptr<SSL_CTX> tls_;  // https only
  std::string tls_error_;         // why TLS could not be set up (every call reports it)
  std::vector<HostValue> tools_;
  std::mutex mutex_;
  std::string session_;
  bool initialized_ = false;
  // The revision the server speaks: found by server/discover at the first
  // start (a 2025 server then gets the initialize handshake).
  enum class Era { Unknown, Legacy, Modern } era_ = Era::Unknown;
  std::atomic<int64_t> next_id_{1};
  // Idle kept-alive connections, newest last, with when they went idle;
  // kIdleFor stays under Node's default keepAliveTimeout (5 s).
  static constexpr size_t kMaxIdle = 8;
  static constexpr auto kIdleFor = std::chrono::milliseconds(4000);
  std::mutex idle_mutex_;
  std::vector<std::pair<std::unique_ptr<HttpConnection>, Clock::time_point>> idle_;
};

}  // namespace ptc::upstream
