// An MCP client over Streamable HTTP, on protocol/net's HTTP client (which
// verifies https, keeps connections alive, caps and frames the reply).
// Each request is one POST; the reply is JSON or an SSE stream whose event
// with our id is the answer. The session id from initialize goes with every
// later request; a session the server forgot (404) is initialized again on
// the next call. A tools/call is never sent twice.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/net/http_client.hpp"
#include "protocol/upstream/stdio_client.hpp"

namespace ptc::upstream {

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
  // One message to the server. `replayable`: it may go twice (it changes
  // nothing the second time); a tools/call may not. `mcp_headers`: those of
  // a 2026-07-28 request (its version, method and name); empty for the 2025
  // version header.
  net::HttpResponse post(const std::string& body, const std::string& session,
                         Clock::time_point deadline, const std::function<bool()>& cancelled,
                         int64_t expect_id, bool replayable, const char* method = "POST",
                         net::Headers mcp_headers = {});
  Reply exchange(std::string_view method, const HostValue& params, Clock::time_point deadline,
                 const std::function<bool()>& cancelled, const std::string& session,
                 std::string* new_session, bool modern = false);
  std::string initialize(Clock::time_point deadline);
  std::string redact(std::string_view s) const;

  UpstreamConfig config_;
  const Redactor* redactor_;
  LogFn log_;
  net::HttpClient http_;
  std::string path_;  // as the url writes it
  std::vector<HostValue> tools_;
  std::mutex mutex_;
  std::string session_;
  bool initialized_ = false;
  // The revision the server speaks: found by server/discover at the first
  // start (a 2025 server then gets the initialize handshake).
  enum class Era { Unknown, Legacy, Modern } era_ = Era::Unknown;
  std::atomic<int64_t> next_id_{1};
};

}  // namespace ptc::upstream
