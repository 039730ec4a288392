// A scripted HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the HTTP
// client's tests: a thread accepts, each connection gets a thread of its own
// that reads requests (head, and a body of Content-Length bytes) and answers
// each as the test's script says, in plain text or over TLS. It counts what
// it saw, so tests can assert how many connections the client opened.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "runtime/unique_fd.hpp"

namespace ptc::net::testing {

struct SeenRequest {
  std::string head;  // the request line and headers, as sent
  std::string body;
  size_t connection = 0;  // 1, 2, ... in the order the server accepted them
};

// What the server does with one request: writes `bytes` as they are (a whole
// response, a part of one, or nothing), then goes on as `then` says.
struct Answer {
  std::string bytes;
  enum class Then {
    KeepOpen,  // reads the next request on the connection
    Close,     // closes the connection
    Hang,      // neither reads nor writes again until the server stops
  } then = Then::KeepOpen;
};

// A response with a Content-Length framed body.
std::string http_reply(std::string_view body, int status = 200, std::string_view headers = "");

class LoopbackServer {
 public:
  using Script = std::function<Answer(const SeenRequest&)>;
  // `tls`: a server context (certificate and key) for https, or null.
  explicit LoopbackServer(Script script, std::shared_ptr<SSL_CTX> tls = nullptr);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  // "http://127.0.0.1:PORT/path" (https with TLS); `host` may name it otherwise.
  std::string url(std::string_view path = "/", std::string_view host = "127.0.0.1") const;
  size_t connections() const { return connections_.load(); }
  size_t request_count() const { return request_count_.load(); }
  std::vector<SeenRequest> requests() const;

 private:
  void accept_loop();
  void serve(int fd, size_t connection);
  // Blocks until the server stops.
  void wait_for_stop() const;

  Script script_;
  std::shared_ptr<SSL_CTX> tls_;
  UniqueFd listen_fd_;
  UniqueFd stop_fd_;  // an eventfd, readable once the server stops
  int port_ = 0;
  std::atomic<size_t> connections_{0}, request_count_{0};
  mutable std::mutex mutex_;
  std::vector<SeenRequest> requests_;
  std::vector<int> open_fds_;  // shut down at stop, so blocked reads return
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace ptc::net::testing
