// One connection of the HTTP client: a non-blocking TCP socket, with a TLS
// session over it on https, whose every wait is bounded by a deadline and
// polls a cancellation check. Closed with it.
#pragma once

#include <openssl/ssl.h>

#include <functional>
#include <string>
#include <string_view>

#include "protocol/net/http_client.hpp"
#include "runtime/unique_fd.hpp"

namespace ptc::net {

using Outcome = HttpResponse::Outcome;

// When a step gives up: at `deadline`, or once `*cancelled` (when set and
// not empty) says so.
struct Until {
  Clock::time_point deadline;
  const std::function<bool()>* cancelled = nullptr;
};

class Stream {
 public:
  Stream() = default;
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Connects to url.host:url.port, trying its addresses in turn, then
  // shakes hands over TLS when `tls` is set. Ok, TimedOut, Cancelled, or
  // Failed with error().
  Outcome open(const Url& url, SSL_CTX* tls, const Until& until);
  // Sends all of `bytes`; *written counts what left.
  Outcome write_all(std::string_view bytes, const Until& until, size_t* written);
  // Waits for bytes and reads what has come: *got > 0, or 0 at the end of
  // the stream.
  Outcome read_some(char* buffer, size_t size, const Until& until, size_t* got);
  // Open, and nothing waiting to be read: fit to carry another request (a
  // server that closed an idle connection makes it readable).
  bool quiet() const;
  // What failed, for a person ("cannot connect to HOST:PORT (...)").
  const std::string& error() const { return error_; }
  // HOST:PORT as errors name it (IPv6 in brackets).
  const std::string& peer() const { return peer_; }

 private:
  Outcome connect_tcp(const Url& url, const Until& until);
  Outcome shake_hands(SSL_CTX* tls, const Until& until);
  Outcome wait(short events, const Until& until);
  // After an SSL call returned `rc`: waits for what it wants, or fails.
  Outcome wait_tls(int rc, const Until& until);

  UniqueFd fd_;
  SSL* ssl_ = nullptr;
  std::string host_, port_, peer_, error_;
};

}  // namespace ptc::net
