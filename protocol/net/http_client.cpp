#include "protocol/net/http_client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <exception>

#include "protocol/net/http_reply.hpp"
#include "protocol/net/sigpipe.hpp"
#include "protocol/net/stream.hpp"
#include "protocol/net/tls.hpp"

namespace ptc::net {

// A connection the pool keeps between requests.
struct HttpClient::Connection {
  Stream stream;
};

namespace {

// Idle kept-alive connections, and for how long: under Node's default
// keepAliveTimeout (5 s), so that the server rarely closes one first.
constexpr size_t kMaxIdle = 8;
constexpr auto kIdleFor = std::chrono::milliseconds(4000);
constexpr size_t kMaxHeadBytes = 64 << 10;
constexpr size_t kReadBuffer = 64 << 10;

bool equals_lower(std::string_view a, std::string_view lower_b) {
  return a.size() == lower_b.size() &&
         std::equal(a.begin(), a.end(), lower_b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == y;
         });
}

// An HTTP token (a method or a header name).
bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

// A header value that cannot end its line or start another.
bool is_field_value(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) { return c == '\r' || c == '\n' || c == 0; });
}

bool is_path(std::string_view s) {
  return s.starts_with("/") &&
         std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

// What one request on one connection came to, besides the response.
struct Attempt {
  bool reusable = false;  // the reply ended where its framing says: another may follow
  bool stale = false;     // the connection failed before any byte of the reply
  bool unsent = false;    // ... and before any byte of the request left
};

void fail(HttpResponse& response, Outcome outcome, std::string error) {
  response.outcome = outcome;
  response.error = std::move(error);
}

// What a step that did not finish says, for a person.
std::string unfinished(Outcome outcome, const Stream& stream) {
  if (outcome == Outcome::TimedOut)
    return fmt::format("no complete reply from {} in time", stream.peer());
  if (outcome == Outcome::Cancelled) return "cancelled";
  return stream.error();
}

// Sends `wire` on `stream` and reads the whole reply into `response`.
Attempt exchange(Stream& stream, const std::string& wire, const HttpRequest& request,
                 size_t max_body, HttpResponse& response) {
  Attempt attempt;
  Until until{request.deadline, &request.cancelled};
  size_t written = 0;
  Outcome outcome = stream.write_all(wire, until, &written);
  response.sent = written > 0;
  if (outcome != Outcome::Ok) {
    fail(response, outcome, unfinished(outcome, stream));
    attempt.stale = outcome == Outcome::Failed;
    attempt.unsent = written == 0;
    return attempt;
  }
  HttpReplyReader reader(request.sse_expect_id, request.method == "HEAD");
  const HttpReply& reply = reader.reply();
  std::string buffer(kReadBuffer, '\0');
  while (!reply.complete) {
    size_t got = 0;
    outcome = stream.read_some(buffer.data(), buffer.size(), until, &got);
    if (outcome != Outcome::Ok) {
      fail(response, outcome, unfinished(outcome, stream));
      attempt.stale = outcome == Outcome::Failed && reader.received() == 0;
      return attempt;
    }
    if (got == 0) {
      // Closed before the reply was whole (a length, chunks or an SSE answer
      // still missing): the server went away mid-request. Otherwise the body
      // ends with the connection.
      if (!reply.head_complete || reply.content_length || reply.chunked ||
          (reply.event_stream && request.sse_expect_id >= 0)) {
        fail(response, Outcome::Failed, "the connection closed before the reply was complete");
        attempt.stale = reader.received() == 0;
        return attempt;
      }
      break;
    }
    reader.append(std::string_view(buffer.data(), got));
    if (!reply.head_complete && reader.received() > kMaxHeadBytes) {
      fail(response, Outcome::Failed, "the reply's headers passed 64 KiB");
      return attempt;
    }
    // The cap holds before anything decodes the body: a declared length
    // over it is refused at once, a body growing past it as it comes.
    bool declared_over = reply.head_complete && !reply.chunked && reply.content_length &&
                         *reply.content_length > max_body;
    if (declared_over || reply.body.size() > max_body ||
        reader.received() > max_body + kMaxHeadBytes) {
      fail(response, Outcome::TooLarge,
           fmt::format("the reply is larger than {} bytes (the cap)", max_body));
      response.status = reply.status;
      response.body = std::move(reader.reply().body);
      return attempt;
    }
  }
  if (!reply.is_http || reply.status == 0) {
    fail(response, Outcome::Failed, fmt::format("{} did not answer with HTTP", stream.peer()));
    return attempt;
  }
  attempt.reusable = reply.complete && reply.keep_alive && reply.length == reader.received();
  HttpReply& whole = reader.reply();
  response.outcome = Outcome::Ok;
  response.status = whole.status;
  response.headers = std::move(whole.headers);
  response.content_type = std::move(whole.content_type);
  response.body = std::move(whole.body);
  return attempt;
}

}  // namespace

std::string HttpResponse::header(std::string_view name) const {
  std::string lower(name);
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [key, value] : headers)
    if (equals_lower(key, lower)) return value;
  return {};
}

HttpClient::HttpClient(std::string_view base, HttpOptions options) : options_(std::move(options)) {
  ignore_sigpipe();  // a server that goes away mid-write is EPIPE, not our death
  std::string error;
  if (!parse_url(base, &url_, &error)) {
    setup_error_ = "the URL is not usable: " + error;
  } else if (!url_.tls && !options_.allow_remote_http && !is_loopback_host(url_.host)) {
    setup_error_ = fmt::format(
        "plain http goes only to loopback (127.0.0.1, ::1, localhost): {} would get the request "
        "and its credentials unencrypted; use https",
        url_.host);
  } else if (url_.tls) {
    tls_ = make_tls_client_context(options_.ca_file, &setup_error_);
  }
}

HttpClient::~HttpClient() = default;

std::string HttpClient::wire_request(const HttpRequest& request, std::string* error) const {
  const std::string& path = request.path.empty() ? url_.path : request.path;
  if (!is_token(request.method)) {
    *error = "the method is not an HTTP token";
    return {};
  }
  if (!is_path(path)) {
    *error = "the path must start with '/' and hold no spaces or control characters";
    return {};
  }
  bool default_port = url_.port == (url_.tls ? "443" : "80");
  bool bracket = url_.host.find(':') != std::string::npos;
  std::string wire = fmt::format("{} {} HTTP/1.1\r\nHost: {}{}{}{}{}\r\n", request.method, path,
                                 bracket ? "[" : "", url_.host, bracket ? "]" : "",
                                 default_port ? "" : ":", default_port ? "" : url_.port);
  bool own_user_agent = false;
  for (const auto& [name, value] : request.headers) {
    if (!is_token(name) || !is_field_value(value)) {
      *error = fmt::format("the header {} has a line break or a control character",
                           is_token(name) ? name : "name");
      return {};
    }
    if (equals_lower(name, "host") || equals_lower(name, "content-length") ||
        equals_lower(name, "transfer-encoding")) {
      *error = fmt::format("the header {} is the client's to set", name);
      return {};
    }
    own_user_agent = own_user_agent || equals_lower(name, "user-agent");
    wire += fmt::format("{}: {}\r\n", name, value);
  }
  if (!own_user_agent && is_field_value(options_.user_agent))
    wire += fmt::format("User-Agent: {}\r\n", options_.user_agent);
  if (!request.body.empty() || (request.method != "GET" && request.method != "HEAD"))
    wire += fmt::format("Content-Length: {}\r\n", request.body.size());
  wire += "\r\n";
  wire += request.body;
  return wire;
}

std::unique_ptr<HttpClient::Connection> HttpClient::take_idle() {
  std::lock_guard lock(idle_mutex_);
  auto now = Clock::now();
  while (!idle_.empty()) {
    auto [connection, since] = std::move(idle_.back());
    idle_.pop_back();
    if (now - since <= kIdleFor && connection->stream.quiet()) return std::move(connection);
  }
  return nullptr;
}

void HttpClient::keep_idle(std::unique_ptr<Connection> connection) {
  std::lock_guard lock(idle_mutex_);
  if (idle_.size() >= kMaxIdle) idle_.erase(idle_.begin());  // the oldest goes
  idle_.emplace_back(std::move(connection), Clock::now());
}

void HttpClient::close_idle() {
  std::lock_guard lock(idle_mutex_);
  idle_.clear();
}

std::unique_ptr<HttpClient::Connection> HttpClient::connect(const HttpRequest& request,
                                                            HttpResponse& response) {
  auto connect_by = Clock::now() + options_.connect_timeout;
  Until until{std::min(request.deadline, connect_by), &request.cancelled};
  auto connection = std::make_unique<Connection>();
  Outcome outcome = connection->stream.open(url_, tls_.get(), until);
  if (outcome == Outcome::Ok) return connection;
  const std::string& peer = connection->stream.peer();
  if (outcome == Outcome::TimedOut && connect_by < request.deadline)
    fail(response, outcome,
         fmt::format("cannot connect to {} (no answer within {} ms)", peer,
                     options_.connect_timeout.count()));
  else if (outcome == Outcome::TimedOut)
    fail(response, outcome, fmt::format("the deadline passed while connecting to {}", peer));
  else
    fail(response, outcome, unfinished(outcome, connection->stream));
  return nullptr;
}

HttpResponse HttpClient::send(const HttpRequest& request) {
  try {
    return send_unguarded(request);
  } catch (const std::exception& e) {
    HttpResponse response;
    fail(response, Outcome::Failed, fmt::format("the request failed ({})", e.what()));
    return response;
  }
}

HttpResponse HttpClient::send_unguarded(const HttpRequest& request) {
  HttpResponse response;
  if (!setup_error_.empty()) {
    fail(response, Outcome::Refused, setup_error_);
    return response;
  }
  std::string error;
  std::string wire = wire_request(request, &error);
  if (wire.empty()) {
    fail(response, Outcome::Refused, "the request cannot be sent: " + error);
    return response;
  }
  // A kept-alive connection first. If it turns out closed before any byte of
  // the reply came, the server may have dropped it while idle without reading
  // the request: the request goes once more on a new connection, when that
  // is safe (nothing was sent, or the request may be repeated).
  for (;;) {
    std::unique_ptr<Connection> connection = take_idle();
    bool reused = connection != nullptr;
    if (!connection && !(connection = connect(request, response))) return response;
    Attempt attempt =
        exchange(connection->stream, wire, request, options_.max_response_bytes, response);
    if (attempt.stale && reused && (request.replayable || attempt.unsent)) {
      response = HttpResponse{};
      continue;
    }
    if (attempt.reusable) keep_idle(std::move(connection));
    return response;
  }
}

}  // namespace ptc::net
