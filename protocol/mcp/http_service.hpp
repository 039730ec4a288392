// The Streamable HTTP transport as an object: one io_context (one or two
// threads) for every connection; the dispatcher's worker threads run the
// calls. serve_http runs one over the real Server with SIGTERM/SIGINT
// handling; tests run one over any McpBackend and stop it with stop().
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "protocol/mcp/config.hpp"
#include "protocol/mcp/http_backend.hpp"

namespace ptc::mcp {

struct HttpOptions {
  unsigned io_threads = 1;      // threads running the event loop
  bool handle_signals = false;  // SIGTERM/SIGINT drain (a second one cancels every call)
};

class HttpService {
 public:
  HttpService(McpBackend& backend, const ServerConfig& config, HttpOptions options = {});
  ~HttpService();
  HttpService(const HttpService&) = delete;
  HttpService& operator=(const HttpService&) = delete;

  // Checks the configuration (http_startup_error), binds and listens; logs
  // http_listening with the bound port. False (the reason logged as
  // http_start_failed, and in *error) when it cannot.
  bool listen(std::string* error = nullptr);
  uint16_t port() const;

  // Serves until stop() or a signal, then drains: stops accepting, refuses
  // new POSTs with 503, waits up to http_shutdown_grace_ms for the calls in
  // flight (then cancels them), writes their replies, closes every
  // connection. Returns the exit code (0; 2 when listen() did not succeed).
  int run();
  // From any thread, any time (also before run()): what SIGTERM does.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptc::mcp
