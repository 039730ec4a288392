#include "protocol/upstream/http_client.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "include/ptc/error.hpp"
#include "protocol/upstream/handshake.hpp"
#include "protocol/upstream/reply_decoding.hpp"

namespace ptc::upstream {

// A socket, and its TLS session on https; both end with it. Kept alive
// between requests when the server allows.
struct HttpConnection {
  int fd = -1;
  SSL* ssl = nullptr;
  HttpConnection() = default;
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;
  ~HttpConnection() {
    if (ssl) SSL_free(ssl);
    if (fd >= 0) ::close(fd);
  }
};

namespace {

constexpr size_t kMaxHeaderBytes = 64 << 10;

// The name the server's certificate must carry: a DNS name (also sent as SNI)
// or an IP address.
bool verify_host(SSL* ssl, const std::string& host) {
  in6_addr addr6;
  in_addr addr4;
  bool is_ip = ::inet_pton(AF_INET, host.c_str(), &addr4) == 1 ||
               ::inet_pton(AF_INET6, host.c_str(), &addr6) == 1;
  if (is_ip) return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str()) == 1;
  return SSL_set_tlsext_host_name(ssl, host.c_str()) == 1 && SSL_set1_host(ssl, host.c_str()) == 1;
}

// Why a TLS call failed: an untrusted certificate says which check failed.
std::string tls_failure(SSL* ssl, const std::string& host, const std::string& port) {
  long verify = SSL_get_verify_result(ssl);
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (verify != X509_V_OK)
    return fmt::format("TLS: the certificate of {} is not trusted ({})", host,
                       X509_verify_cert_error_string(verify));
  const char* reason = e ? ERR_reason_error_string(e) : nullptr;
  return fmt::format("TLS with {}:{} failed ({})", host, port,
                     reason ? reason : "the connection closed");
}

}  // namespace

std::shared_ptr<SSL_CTX> HttpClient::make_tls_context(const std::string& ca_file,
                                                      std::string* error) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (!ctx) {
    *error = "TLS is not available (SSL_CTX_new failed)";
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  // A server that closes without close_notify ends the stream; the reply's
  // own framing (length, chunks, the SSE answer) tells a cut reply apart.
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  int ok = ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx.get())
                           : SSL_CTX_load_verify_locations(ctx.get(), ca_file.c_str(), nullptr);
  if (ok != 1) {
    ERR_clear_error();
    *error = ca_file.empty() ? "TLS: the system's trusted certificates could not be loaded"
                             : fmt::format("TLS: cannot load the CA file {}", ca_file);
    return nullptr;
  }
  return ctx;
}

HttpClient::HttpClient(UpstreamConfig config, const Redactor* redactor, LogFn log)
    : config_(std::move(config)), redactor_(redactor), log_(std::move(log)) {
  // http[s]://host[:port][/path]
  bool tls = config_.url.rfind("https://", 0) == 0;
  std::string rest = config_.url.substr(tls ? 8 : 7);
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  path_ = slash == std::string::npos ? "/" : rest.substr(slash);
  size_t colon = authority.rfind(':');
  if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
    host_ = authority.substr(0, colon);
    port_ = authority.substr(colon + 1);
  } else {
    host_ = authority;
    port_ = tls ? "443" : "80";
  }
  if (host_.size() > 2 && host_.front() == '[') host_ = host_.substr(1, host_.size() - 2);
  if (tls) tls_ = make_tls_context(config_.ca_file, &tls_error_);
  ignore_sigpipe();  // OpenSSL writes with write(2), which has no MSG_NOSIGNAL
}

HttpClient::~HttpClient() {
  stop();
}

std::string HttpClient::redact(std::string_view s) const {
  return redactor_ ? redactor_->redact(s) : std::string(s);
}

bool HttpClient::wait_socket(int fd, short events, Clock::time_point deadline,
                             const std::function<bool()>& cancelled, Raw& r) {
  for (;;) {
    if (cancelled && cancelled()) {
      r.cancelled = true;
      return false;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      return false;
    }
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 20)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) {
      r.error = "poll failed";
      return false;
    }
  }
}

// An SSL call that wants the socket readable or writable waits for it.
bool HttpClient::wait_tls(HttpConnection& conn, int rc, Clock::time_point deadline,
                          const std::function<bool()>& cancelled, Raw& r) {
  int e = SSL_get_error(conn.ssl, rc);
  if (e == SSL_ERROR_WANT_READ) return wait_socket(conn.fd, POLLIN, deadline, cancelled, r);
  if (e == SSL_ERROR_WANT_WRITE) return wait_socket(conn.fd, POLLOUT, deadline, cancelled, r);
  if (r.error.empty()) r.error = tls_failure(conn.ssl, host_, port_);
  return false;
}

std::unique_ptr<HttpConnection> HttpClient::connect(Clock::time_point deadline,
                                                    const std::function<bool()>& cancelled,
                                                    Raw& r) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host_.c_str(), port_.c_str(), &hints, &res); rc != 0) {
    r.error = fmt::format("cannot resolve {}: {}", host_, gai_strerror(rc));
    return nullptr;
  }
  auto conn = std::make_unique<HttpConnection>();
  for (addrinfo* a = res; a && conn->fd < 0; a = a->ai_next) {
    conn->fd =
        ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (conn->fd < 0) continue;
    if (::connect(conn->fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      ::close(conn->fd);
      conn->fd = -1;
    }
  }
  freeaddrinfo(res);
  if (conn->fd < 0) {
    r.error = fmt::format("cannot connect to {}:{}", host_, port_);
    return nullptr;
  }
  // The TCP connection first (connect is non-blocking), then TLS.
  if (!wait_socket(conn->fd, POLLOUT, deadline, cancelled, r)) return nullptr;
  int so_error = 0;
  socklen_t so_len = sizeof so_error;
  if (::getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &so_error, &so_len) != 0 || so_error != 0) {
    r.error = fmt::format("cannot connect to {}:{} ({})", host_, port_, std::strerror(so_error));
    return nullptr;
  }
  if (tls_) {
    conn->ssl = SSL_new(tls_.get());
    if (!conn->ssl || SSL_set_fd(conn->ssl, conn->fd) != 1 || !verify_host(conn->ssl, host_)) {
      r.error = fmt::format("TLS setup for {} failed", host_);
      return nullptr;
    }
    for (;;) {
      int rc = SSL_connect(conn->ssl);
      if (rc == 1) break;
      if (!wait_tls(*conn, rc, deadline, cancelled, r)) return nullptr;
    }
  }
  return conn;
}

// An idle connection still open, or null. One the server closed (or that has
// stray bytes waiting) is dropped: poll says it is readable.
std::unique_ptr<HttpConnection> HttpClient::take_idle() {
  std::lock_guard lock(idle_mutex_);
  auto now = Clock::now();
  while (!idle_.empty()) {
    auto [conn, since] = std::move(idle_.back());
    idle_.pop_back();
    if (now - since > kIdleFor) continue;
    pollfd p{conn->fd, POLLIN, 0};
    if (::poll(&p, 1, 0) == 0) return std::move(conn);
  }
  return nullptr;
}

void HttpClient::give_back(std::unique_ptr<HttpConnection> conn) {
  std::lock_guard lock(idle_mutex_);
  if (idle_.size() >= kMaxIdle) idle_.erase(idle_.begin());  // the oldest goes
  idle_.emplace_back(std::move(conn), Clock::now());
}

HttpClient::Raw HttpClient::post(const std::string& body, const std::string& session,
                                 Clock::time_point deadline, const std::function<bool()>& cancelled,
                                 int64_t expect_id, bool replayable, bool is_delete,
                                 const std::string& mcp_headers) {
  Raw r;
  if (!tls_error_.empty()) {
    r.error = tls_error_;
    return r;
  }
  std::string req = fmt::format(
      "{} {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\n"
      "Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n"
      "{}User-Agent: ptc-lisp\r\n",
      is_delete ? "DELETE" : "POST", path_, host_, port_, body.size(),
      mcp_headers.empty() ? fmt::format("MCP-Protocol-Version: {}\r\n", kClientProtocolVersion)
                          : mcp_headers);
  if (!session.empty()) req += fmt::format("Mcp-Session-Id: {}\r\n", session);
  for (auto& [k, v] : config_.headers)
    req += fmt::format("{}: {}\r\n", k, v);
  req += "\r\n";
  req += body;
  // A kept-alive connection first. If it turns out closed before any byte of
  // the reply came, the server may have dropped it while idle without reading
  // the request: the request goes once more on a new connection, when that
  // is safe (nothing was sent, or the request may be repeated; never a
  // tools/call the server may have run before the connection dropped).
  for (;;) {
    std::unique_ptr<HttpConnection> conn = take_idle();
    bool reused = conn != nullptr;
    if (!conn && !(conn = connect(deadline, cancelled, r))) return r;
    bool stale = false, unsent = false;
    bool keep = send_and_read(*conn, req, deadline, cancelled, expect_id, r, &stale, &unsent);
    if (stale && reused && (replayable || unsent)) {
      r = Raw{};
      continue;
    }
    if (keep) give_back(std::move(conn));
    return r;
  }
}

bool HttpClient::send_and_read(HttpConnection& conn, const std::string& req,
                               Clock::time_point deadline, const std::function<bool()>& cancelled,
                               int64_t expect_id, Raw& r, bool* stale, bool* unsent) {
  size_t off = 0;
  while (off < req.size()) {
    if (conn.ssl) {
      int n = SSL_write(conn.ssl, req.data() + off,
                        static_cast<int>(std::min<size_t>(req.size() - off, 1 << 30)));
      if (n > 0) {
        off += static_cast<size_t>(n);
      } else if (!wait_tls(conn, n, deadline, cancelled, r)) {
        *stale = !r.timed_out && !r.cancelled;
        *unsent = off == 0;
        return false;
      }
      continue;
    }
    if (!wait_socket(conn.fd, POLLOUT, deadline, cancelled, r)) {
      if (r.error.empty() && !r.timed_out && !r.cancelled) r.error = "cannot send";
      return false;
    }
    ssize_t n = ::send(conn.fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      r.error = fmt::format("cannot connect to {}:{} ({})", host_, port_, std::strerror(errno));
      *stale = true;
      *unsent = off == 0;
      return false;
    }
    off += static_cast<size_t>(n);
  }
  // Reads what has arrived: > 0 bytes, 0 at the end of the stream, -1 when
  // it failed, timed out or was cancelled (r says which).
  auto read_some = [&](char* buf, size_t size) -> ssize_t {
    for (;;) {
      if (conn.ssl) {
        int n = SSL_read(conn.ssl, buf, static_cast<int>(size));
        if (n > 0) return n;
        if (SSL_get_error(conn.ssl, n) == SSL_ERROR_ZERO_RETURN) return 0;
        if (!wait_tls(conn, n, deadline, cancelled, r)) return -1;
        continue;
      }
      if (!wait_socket(conn.fd, POLLIN, deadline, cancelled, r)) return -1;
      ssize_t n = ::recv(conn.fd, buf, size, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n < 0)
        r.error =
            fmt::format("the connection to {}:{} failed ({})", host_, port_, std::strerror(errno));
      return n;
    }
  };
  std::string in;
  size_t cap = config_.max_response_bytes + kMaxHeaderBytes;
  char buf[65536];
  // The server may keep the connection open (keep-alive, or an SSE stream):
  // the reply is complete at its Content-Length, at the last chunk, or (an
  // SSE stream) once an event answers our id.
  HttpReply reply;
  for (;;) {
    reply = parse_http_reply(in, expect_id);
    if (reply.complete) break;
    ssize_t n = read_some(buf, sizeof buf);
    if (n < 0) {
      *stale = in.empty() && !r.timed_out && !r.cancelled;
      return false;
    }
    if (n == 0) {
      // Closed before the reply was whole (a length, chunks or an SSE answer
      // still missing): the server went away mid-call. Otherwise the body
      // ends with the connection.
      if (!reply.head_complete || reply.content_length || reply.chunked || reply.event_stream) {
        r.error = "the connection closed before the reply was complete";
        *stale = in.empty();
        return false;
      }
      break;
    }
    in.append(buf, static_cast<size_t>(n));
    if (in.size() > cap) {
      r.too_large = true;
      return false;
    }
  }
  if (!reply.is_http) {
    r.error = "not an HTTP response";
    return false;
  }
  r.status = reply.status;
  r.content_type = std::move(reply.content_type);
  r.session = std::move(reply.session);
  r.body = std::move(reply.body);
  if (r.body.size() > config_.max_response_bytes) r.too_large = true;
  // Another request may follow on this connection only when this reply
  // ended exactly where its framing says (nothing of an SSE stream left).
  return reply.complete && reply.keep_alive && reply.length == in.size();
}

Reply HttpClient::exchange(std::string_view method, const HostValue& params,
                           Clock::time_point deadline, const std::function<bool()>& cancelled,
                           const std::string& session, std::string* new_session, bool modern) {
  int64_t id = next_id_++;
  std::string mcp_headers;
  if (modern) {
    mcp_headers = fmt::format("MCP-Protocol-Version: {}\r\nMcp-Method: {}\r\n",
                              kModernProtocolVersion, method);
    const HostValue* name = params.kind() == HostValue::Kind::Map ? params.get("name") : nullptr;
    if (method == "tools/call" && name && name->kind() == HostValue::Kind::String)
      mcp_headers += fmt::format("Mcp-Name: {}\r\n", mcp_header_value(name->text()));
  }
  std::string body = fmt::format("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":{},\"params\":{}}}",
                                 id, to_json(HostValue::string(std::string(method))),
                                 to_json(modern ? with_modern_envelope(params) : params));
  Raw raw = post(body, session, deadline, cancelled, id, /*replayable=*/method != "tools/call",
                 false, mcp_headers);
  Reply r;
  r.bytes = raw.body.size();
  if (raw.cancelled) {
    r.status = Reply::Status::Cancelled;
    r.message = fmt::format("the call to upstream {} was cancelled", config_.name);
    return r;
  }
  if (raw.timed_out) {
    r.status = Reply::Status::Timeout;
    r.message = fmt::format("upstream {} did not answer {} in time", config_.name, method);
    return r;
  }
  if (raw.too_large) {
    r.status = Reply::Status::TooLarge;
    r.message = fmt::format("upstream {} replied with more than {} bytes (the cap)", config_.name,
                            config_.max_response_bytes);
    return r;
  }
  if (!raw.error.empty()) {
    r.status = Reply::Status::Unavailable;
    r.message = redact(fmt::format("upstream {}: {}", config_.name, raw.error));
    return r;
  }
  if (new_session && !raw.session.empty()) *new_session = raw.session;
  if (raw.status == 404 && !session.empty()) {
    std::lock_guard lock(mutex_);
    if (session_ == session) initialized_ = false;  // initialize again on the next call
  }
  if (raw.status != 200) {
    r.status = raw.status == 404 || raw.status >= 500 ? Reply::Status::Unavailable
                                                      : Reply::Status::UpstreamError;
    std::string what = raw.status == 401 || raw.status == 403 ? "refused the credentials"
                       : raw.status == 429                    ? "is rate limiting"
                       : raw.status == 404                    ? "forgot the session"
                                                              : "failed";
    r.message = redact(fmt::format("upstream {} {} (HTTP {}): {}", config_.name, what, raw.status,
                                   raw.body.substr(0, 300)));
    return r;
  }
  // The JSON-RPC message: the body, or the SSE event that answers our id.
  std::vector<std::string> messages;
  if (raw.content_type.find("text/event-stream") != std::string::npos)
    messages = sse_event_data(raw.body);
  else
    messages.push_back(std::move(raw.body));
  for (const std::string& m : messages) {
    HostValue msg;
    try {
      msg = parse_json(m);
    } catch (const LispError&) {
      continue;
    }
    if (msg.kind() != HostValue::Kind::Map) continue;
    const HostValue* mid = msg.get("id");
    if (!mid || mid->kind() != HostValue::Kind::Int || mid->as_int() != id || msg.get("method"))
      continue;
    if (const HostValue* err = msg.get("error")) {
      r.status = Reply::Status::UpstreamError;
      const HostValue* em = err->kind() == HostValue::Kind::Map ? err->get("message") : nullptr;
      r.message = redact(em && em->kind() == HostValue::Kind::String ? em->text() : to_json(*err));
      return r;
    }
    if (const HostValue* result = msg.get("result")) {
      r.result = *result;
      return r;
    }
  }
  r.status = Reply::Status::UpstreamError;
  r.message = fmt::format("upstream {} sent no answer to {}", config_.name, method);
  return r;
}

std::string HttpClient::initialize(Clock::time_point deadline) {
  Era era;
  {
    std::lock_guard lock(mutex_);
    era = era_;
  }
  if (era != Era::Legacy && config_.protocol != "legacy") {
    // Revision 2026-07-28 first, as the official client's auto mode does: a
    // server that offers it needs no handshake and keeps no session.
    Reply d = exchange("server/discover", HostValue::map({}), deadline, {}, "", nullptr, true);
    bool modern = d.status == Reply::Status::Ok && offers_modern(d.result);
    if (!modern && config_.protocol == "2026-07-28") return pinned_refusal(d);
    if (d.status == Reply::Status::Timeout || d.status == Reply::Status::Cancelled)
      return "server/discover failed: " + d.message;
    std::lock_guard lock(mutex_);
    era_ = modern ? Era::Modern : Era::Legacy;
    if (modern) {
      session_.clear();
      initialized_ = true;
      return {};
    }
  }
  std::string session;
  Reply r = exchange("initialize", initialize_params(), deadline, {}, "", &session);
  if (r.status != Reply::Status::Ok) return "initialize failed: " + r.message;
  Raw n = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session, deadline,
               {}, -1, /*replayable=*/true);
  if (!n.error.empty() || (n.status != 202 && n.status != 200))
    return redact(fmt::format("notifications/initialized failed (HTTP {}) {}", n.status, n.error));
  std::lock_guard lock(mutex_);
  session_ = session;
  initialized_ = true;
  return {};
}

std::string HttpClient::start() {
  auto deadline = Clock::now() + std::chrono::milliseconds(config_.handshake_timeout_ms);
  if (std::string err = initialize(deadline); !err.empty()) return err;
  return list_all_tools(
      [&](const HostValue& params) { return request("tools/list", params, deadline, {}); }, tools_);
}

Reply HttpClient::request(std::string_view method, const HostValue& params,
                          Clock::time_point deadline, const std::function<bool()>& cancelled) {
  std::string session;
  bool ready, modern;
  {
    std::lock_guard lock(mutex_);
    ready = initialized_;
    session = session_;
    modern = era_ == Era::Modern;
  }
  if (modern) return exchange(method, params, deadline, cancelled, "", nullptr, true);
  if (!ready) {
    if (std::string err = initialize(deadline); !err.empty()) {
      Reply r;
      r.status = Reply::Status::Unavailable;
      r.message = redact(fmt::format("upstream {}: {}", config_.name, err));
      return r;
    }
    std::lock_guard lock(mutex_);
    session = session_;
  }
  return exchange(method, params, deadline, cancelled, session, nullptr);
}

void HttpClient::stop() {
  std::string session;
  {
    std::lock_guard lock(mutex_);
    session.swap(session_);
    initialized_ = false;
  }
  // End the session politely (best effort, short).
  if (!session.empty())
    post("", session, Clock::now() + std::chrono::milliseconds(300), {}, -1, /*replayable=*/true,
         /*is_delete=*/true);
  std::lock_guard lock(idle_mutex_);
  idle_.clear();
}

}  // namespace ptc::upstream
