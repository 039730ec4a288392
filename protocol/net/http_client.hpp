// The one HTTP/1.1 client of ptc-lisp, for upstream MCP servers
// (protocol/upstream) and model providers (protocol/agent/model): http:// or
// https:// (OpenSSL; the server's certificate is verified against the
// system's trusted CAs or a given CA file, and must name the host), plain
// http only to loopback unless the caller allows more, a connect timeout and
// a deadline for the whole exchange, cancellation, and a cap on the response
// before anything decodes it. Connections are kept alive between requests (a
// few, for a few seconds) so that a call does not pay a TCP and TLS
// handshake each time; each request has a connection of its own while it
// runs, so calls from several threads run side by side.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptc::net {

using Clock = std::chrono::steady_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;

// http[s]://host[:port][/path]: host without brackets for IPv6, port "80" or
// "443" when not given, path "/" when not given (it never ends with '/'
// unless it is "/"; a query string stays in it).
struct Url {
  bool tls = false;
  std::string host, port, path;
};
// False with *error saying what is wrong ("expected http:// or https://").
bool parse_url(std::string_view text, Url* out, std::string* error);
// 127.0.0.0/8, ::1 and localhost.
bool is_loopback_host(std::string_view host);

struct HttpOptions {
  std::string ca_file;  // https: the CA certificates to trust instead of the system's
  // Plain http:// beyond loopback (credentials would cross the network in clear).
  bool allow_remote_http = false;
  std::chrono::milliseconds connect_timeout{10000};  // TCP and TLS handshake, within the deadline
  size_t max_response_bytes = size_t{16} << 20;      // the body, before decoding
  std::string user_agent = "ptc-lisp";
};

struct HttpRequest {
  std::string method = "POST";
  std::string path;  // "" = the base URL's path; else this path (and query) instead
  Headers headers;   // besides Host, Content-Length, User-Agent
  std::string body;
  Clock::time_point deadline;       // the whole exchange: connect, send, the whole reply
  std::function<bool()> cancelled;  // polled while waiting; may be empty
  // May be sent once more on a new connection when a kept-alive one turns
  // out closed before any byte of the reply came (the server may or may not
  // have read it). A request that must not run twice says false.
  bool replayable = true;
  // An MCP SSE stream stays open: its reply is complete once an event
  // answers this JSON-RPC id (-1: not an MCP request).
  int64_t sse_expect_id = -1;
};

struct HttpResponse {
  enum class Outcome {
    Ok,         // a whole HTTP response (any status)
    TimedOut,   // the deadline or the connect timeout passed
    Cancelled,  // request.cancelled() said so
    TooLarge,   // the body passed max_response_bytes (body holds what came)
    Refused,    // not sent: plain http beyond loopback, or TLS could not be set up
    Failed,     // could not connect or resolve, TLS failed, the connection dropped,
                // not HTTP: `error` says which
  };
  Outcome outcome = Outcome::Failed;
  // Failed: it broke after the request went out (the server may have acted on it).
  bool sent = false;
  int status = 0;
  Headers headers;           // names in lower case, in order
  std::string content_type;  // lower case
  std::string body;          // decoded from chunks
  std::string error;         // what went wrong, for a person; never holds request headers
  // The value of header `name` (lower case), or "".
  std::string header(std::string_view name) const;
};

class HttpClient {
 public:
  // `base` is parsed once; setup_error() says when it cannot work (a bad URL,
  // plain http beyond loopback, TLS unavailable or the CA file unreadable),
  // and every send() then answers Refused with that error.
  HttpClient(std::string_view base, HttpOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  const std::string& setup_error() const { return setup_error_; }
  const Url& url() const { return url_; }

  // One request and its whole reply. Thread-safe. Never throws.
  HttpResponse send(const HttpRequest& request);
  // Drops the kept-alive connections.
  void close_idle();

 private:
  struct Connection;
  // The request as it goes on the wire, or "" with *error saying what of it
  // cannot be sent (never a header's value).
  std::string wire_request(const HttpRequest& request, std::string* error) const;
  // A kept-alive connection still open, or null.
  std::unique_ptr<Connection> take_idle();
  void keep_idle(std::unique_ptr<Connection> connection);
  // A new connection, or null with `response` saying why.
  std::unique_ptr<Connection> connect(const HttpRequest& request, HttpResponse& response);
  HttpResponse send_unguarded(const HttpRequest& request);

  Url url_;
  HttpOptions options_;
  std::string setup_error_;
  std::shared_ptr<SSL_CTX> tls_;
  std::mutex idle_mutex_;
  std::vector<std::pair<std::unique_ptr<Connection>, Clock::time_point>> idle_;
};

}  // namespace ptc::net
