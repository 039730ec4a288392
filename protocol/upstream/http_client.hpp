// An MCP client over Streamable HTTP, http:// or https:// (OpenSSL: the
// server's certificate is verified against the system's trusted CAs or the
// upstream's ca_file, and must name the host).
// Each request is one POST on its own connection (so calls run concurrently
// without head-of-line blocking); the reply is JSON or an SSE stream whose
// event with our id is the answer. The session id from initialize goes with
// every later request; a session the server forgot (404) is initialized again
// on the next call. The body is capped before it is decoded.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

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
  struct Raw {
    int status = 0;
    std::string content_type, session;
    std::string body;
    bool too_large = false;
    std::string error;  // transport failure
    bool cancelled = false, timed_out = false;
  };
  Raw post(const std::string& body, const std::string& session, Clock::time_point deadline,
           const std::function<bool()>& cancelled, int64_t expect_id, bool is_delete = false);
  Reply exchange(std::string_view method, const HostValue& params, Clock::time_point deadline,
                 const std::function<bool()>& cancelled, const std::string& session,
                 std::string* new_session);
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
  std::atomic<int64_t> next_id_{1};
};

}  // namespace ptc::upstream
