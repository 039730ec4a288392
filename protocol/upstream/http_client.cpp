#include "protocol/upstream/http_client.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "include/ptc/error.hpp"
#include "protocol/upstream/reply_decoding.hpp"

namespace ptc::upstream {

namespace {

constexpr const char* kProtocolVersion = "2025-06-18";
constexpr size_t kMaxHeaderBytes = 64 << 10;

}  // namespace

HttpClient::HttpClient(UpstreamConfig config, const Redactor* redactor, LogFn log)
    : config_(std::move(config)), redactor_(redactor), log_(std::move(log)) {
  // http://host[:port][/path]
  std::string rest = config_.url.substr(7);
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  path_ = slash == std::string::npos ? "/" : rest.substr(slash);
  size_t colon = authority.rfind(':');
  if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
    host_ = authority.substr(0, colon);
    port_ = authority.substr(colon + 1);
  } else {
    host_ = authority;
    port_ = "80";
  }
  if (host_.size() > 2 && host_.front() == '[') host_ = host_.substr(1, host_.size() - 2);
}

HttpClient::~HttpClient() {
  stop();
}

std::string HttpClient::redact(std::string_view s) const {
  return redactor_ ? redactor_->redact(s) : std::string(s);
}

HttpClient::Raw HttpClient::post(const std::string& body, const std::string& session,
                                 Clock::time_point deadline, const std::function<bool()>& cancelled,
                                 int64_t expect_id, bool is_delete) {
  Raw r;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host_.c_str(), port_.c_str(), &hints, &res); rc != 0) {
    r.error = fmt::format("cannot resolve {}: {}", host_, gai_strerror(rc));
    return r;
  }
  int fd = -1;
  for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) {
    r.error = fmt::format("cannot connect to {}:{}", host_, port_);
    return r;
  }
  // Waits for `events` on fd until the deadline or cancellation.
  auto wait = [&](short events) -> bool {
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
  };
  std::string req = fmt::format(
      "{} {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\n"
      "Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n"
      "Connection: close\r\nMCP-Protocol-Version: {}\r\nUser-Agent: ptc-lisp\r\n",
      is_delete ? "DELETE" : "POST", path_, host_, port_, body.size(), kProtocolVersion);
  if (!session.empty()) req += fmt::format("Mcp-Session-Id: {}\r\n", session);
  for (auto& [k, v] : config_.headers)
    req += fmt::format("{}: {}\r\n", k, v);
  req += "\r\n";
  req += body;
  size_t off = 0;
  while (off < req.size()) {
    if (!wait(POLLOUT)) {
      ::close(fd);
      if (r.error.empty() && !r.timed_out && !r.cancelled) r.error = "cannot send";
      return r;
    }
    ssize_t n = ::send(fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      ::close(fd);
      r.error = fmt::format("cannot connect to {}:{} ({})", host_, port_, std::strerror(errno));
      return r;
    }
    off += static_cast<size_t>(n);
  }
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
    if (!wait(POLLIN)) {
      ::close(fd);
      return r;
    }
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) {
      ::close(fd);
      r.error =
          fmt::format("the connection to {}:{} failed ({})", host_, port_, std::strerror(errno));
      return r;
    }
    if (n == 0) {
      // Closed before the reply was whole (a length, chunks or an SSE answer
      // still missing): the server went away mid-call. Otherwise the body
      // ends with the connection.
      if (!reply.head_complete || reply.content_length || reply.chunked || reply.event_stream) {
        ::close(fd);
        r.error = "the connection closed before the reply was complete";
        return r;
      }
      break;
    }
    in.append(buf, static_cast<size_t>(n));
    if (in.size() > cap) {
      ::close(fd);
      r.too_large = true;
      return r;
    }
  }
  ::close(fd);
  if (!reply.is_http) {
    r.error = "not an HTTP response";
    return r;
  }
  r.status = reply.status;
  r.content_type = std::move(reply.content_type);
  r.session = std::move(reply.session);
  r.body = std::move(reply.body);
  if (r.body.size() > config_.max_response_bytes) r.too_large = true;
  return r;
}

Reply HttpClient::exchange(std::string_view method, const HostValue& params,
                           Clock::time_point deadline, const std::function<bool()>& cancelled,
                           const std::string& session, std::string* new_session) {
  int64_t id = next_id_++;
  std::string body =
      fmt::format("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":{},\"params\":{}}}", id,
                  to_json(HostValue::string(std::string(method))), to_json(params));
  Raw raw = post(body, session, deadline, cancelled, id);
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
  HostValue init = HostValue::map({
      {HostValue::string("protocolVersion"), HostValue::string(kProtocolVersion)},
      {HostValue::string("capabilities"), HostValue::map({})},
      {HostValue::string("clientInfo"),
       HostValue::map({{HostValue::string("name"), HostValue::string("ptc-lisp")},
                       {HostValue::string("version"), HostValue::string("0.1")}})},
  });
  std::string session;
  Reply r = exchange("initialize", init, deadline, {}, "", &session);
  if (r.status != Reply::Status::Ok) return "initialize failed: " + r.message;
  Raw n = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session, deadline,
               {}, -1);
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
  std::string cursor;
  for (int page = 0; page < 100; ++page) {
    HostValue params =
        cursor.empty() ? HostValue::map({})
                       : HostValue::map({{HostValue::string("cursor"), HostValue::string(cursor)}});
    Reply t = request("tools/list", params, deadline, {});
    if (t.status != Reply::Status::Ok) return "tools/list failed: " + t.message;
    const HostValue* list = t.result.get("tools");
    if (!list || list->kind() != HostValue::Kind::Vector)
      return "tools/list replied without a tools array";
    for (const HostValue& tool : list->items()) {
      const HostValue* n = tool.kind() == HostValue::Kind::Map ? tool.get("name") : nullptr;
      if (n && n->kind() == HostValue::Kind::String) tools_.push_back(tool);
    }
    const HostValue* next = t.result.get("nextCursor");
    if (!next || next->kind() != HostValue::Kind::String || next->text().empty()) break;
    cursor = next->text();
  }
  return {};
}

Reply HttpClient::request(std::string_view method, const HostValue& params,
                          Clock::time_point deadline, const std::function<bool()>& cancelled) {
  std::string session;
  bool ready;
  {
    std::lock_guard lock(mutex_);
    ready = initialized_;
    session = session_;
  }
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
    post("", session, Clock::now() + std::chrono::milliseconds(300), {}, -1, /*is_delete=*/true);
}

}  // namespace ptc::upstream
