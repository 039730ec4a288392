#include "protocol/mcp/http_connection.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <xxhash.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "protocol/mcp/envelope.hpp"
#include "protocol/mcp/era.hpp"
#include "protocol/mcp/http_rpc.hpp"
#include "protocol/mcp/json_rpc.hpp"
#include "protocol/mcp/log.hpp"

namespace ptc::mcp {

namespace {

using boost::system::error_code;
using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = 16 * 1024;
constexpr uint32_t kHeaderLimit = 16 * 1024;

// The Peer of one POSTed message: its reply goes to the connection's strand.
class Exchange final : public Peer {
 public:
  Exchange(std::weak_ptr<HttpConnection> conn, std::shared_ptr<ReplyGate> gate, uint64_t seq)
      : conn_(std::move(conn)), gate_(std::move(gate)), seq_(seq) {}

  void send(std::string frame) override {
    if (rpc_frame_is_notification(frame)) return;  // nowhere to go without a stream
    if (sent_.exchange(true)) return;
    gate_->run([&] {
      if (auto c = conn_.lock()) c->deliver(seq_, std::move(frame));
    });
  }

 private:
  std::weak_ptr<HttpConnection> conn_;
  std::shared_ptr<ReplyGate> gate_;
  uint64_t seq_;
  std::atomic<bool> sent_{false};
};

// Where the replies to the transport's own notifications go (there are none).
class DiscardPeer final : public Peer {
 public:
  void send(std::string) override {}
};

std::string_view sv(boost::beast::string_view s) {
  return {s.data(), s.size()};
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// A client's X-Request-Id is echoed when it is short and plain.
bool usable_request_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '+' || c == '=';
    if (!ok) return false;
  }
  return true;
}

// Session ids are credentials: logs carry a digest.
std::string session_digest(std::string_view id) {
  return fmt::format("{:016x}", static_cast<uint64_t>(XXH3_64bits(id.data(), id.size())));
}

bool ends_connection(const error_code& ec) {
  return ec == beast_http::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::operation_aborted ||
         ec == net::error::bad_descriptor || ec == net::error::broken_pipe;
}

}  // namespace

HttpSettings HttpSettings::from_config(const ServerConfig& config) {
  HttpSettings s;
  s.path = config.http_path;
  s.max_body_bytes = config.http_max_body_bytes == 0
                         ? config.max_frame_bytes
                         : std::min(config.http_max_body_bytes, config.max_frame_bytes);
  uint64_t timeout = config.http_request_timeout_ms != 0
                         ? config.http_request_timeout_ms
                         : static_cast<uint64_t>(config.program_timeout_ms) + 1000;
  s.request_timeout = std::chrono::milliseconds(timeout);
  s.linger_timeout = std::min(s.request_timeout, std::chrono::milliseconds(1000));
  s.header_timeout =
      config.http_header_timeout_ms == 0
          ? s.request_timeout
          : std::min(s.request_timeout, std::chrono::milliseconds(config.http_header_timeout_ms));
  s.max_connections = config.http_max_connections;
  s.max_per_peer = config.http_max_connections_per_peer;
  return s;
}

HttpShared::HttpShared(McpBackend& b, const ServerConfig& config)
    : backend(b),
      settings(HttpSettings::from_config(config)),
      policy(HttpGuardPolicy::from_config(config)),
      sessions(
          HttpSessions::Limits{config.http_max_sessions, config.http_max_in_flight_per_session,
                               std::chrono::milliseconds(config.http_session_idle_timeout_ms)}),
      request_id_prefix_(new_http_session_id().substr(0, 12)) {}

std::string HttpShared::next_request_id() {
  return fmt::format("{}-{}", request_id_prefix_,
                     request_counter_.fetch_add(1, std::memory_order_relaxed) + 1);
}

std::optional<std::string> HttpShared::admit(const std::string& peer) {
  std::lock_guard lock(mu_);
  if (settings.max_connections && connections_.size() + admitted_ >= settings.max_connections)
    return fmt::format("{} connections are open (--http-max-connections)",
                       settings.max_connections);
  size_t& mine = per_peer_[peer];
  if (settings.max_per_peer && !peer.empty() && mine >= settings.max_per_peer)
    return fmt::format(
        "{} connections from this address are open "
        "(--http-max-connections-per-peer)",
        settings.max_per_peer);
  ++mine;
  ++admitted_;
  return std::nullopt;
}

void HttpShared::add(const std::shared_ptr<HttpConnection>& c, const std::string& peer) {
  std::lock_guard lock(mu_);
  --admitted_;
  connections_.emplace(c.get(), Entry{c, peer});
}

void HttpShared::remove(const HttpConnection* c) {
  bool last = false;
  {
    std::lock_guard lock(mu_);
    auto it = connections_.find(c);
    if (it == connections_.end()) return;
    if (auto p = per_peer_.find(it->second.peer); p != per_peer_.end() && --p->second == 0)
      per_peer_.erase(p);
    connections_.erase(it);
    last = connections_.empty();
  }
  if (last && closing_all.load() && on_all_closed) on_all_closed();
}

std::vector<std::shared_ptr<HttpConnection>> HttpShared::connections() {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<HttpConnection>> out;
  for (auto& [ptr, entry] : connections_)
    if (auto c = entry.connection.lock()) out.push_back(std::move(c));
  return out;
}

size_t HttpShared::connection_count() {
  std::lock_guard lock(mu_);
  return connections_.size();
}

// ---------------------------------------------------------------- connection

HttpConnection::HttpConnection(HttpShared& shared, tcp::socket socket)
    : shared_(shared),
      executor_(socket.get_executor()),
      socket_(std::move(socket)),
      timer_(executor_),
      modern_key_prefix_(fmt::format("modern/{}/", fmt::ptr(this))) {}

HttpConnection::~HttpConnection() {
  shared_.remove(this);
}

void HttpConnection::start() {
  net::dispatch(executor_, [self = shared_from_this()] {
    error_code ignored;
    self->socket_.set_option(tcp::no_delay(true), ignored);
    self->await_request();
  });
}

void HttpConnection::deliver(uint64_t seq, std::string frame) {
  net::post(executor_, [self = shared_from_this(), seq, f = std::move(frame)]() mutable {
    self->on_reply(seq, std::move(f));
  });
}

void HttpConnection::shut() {
  net::post(executor_, [self = shared_from_this()] {
    self->shut_requested_ = true;
    switch (self->phase_) {
      case Phase::Writing:
        return;  // closes after the write
      case Phase::Waiting:
        // The server may leave its in-flight set a moment before the reply
        // reaches the Peer: give the reply that moment.
        return self->arm_deadline(self->shared_.settings.linger_timeout);
      default:
        return self->close_now();
    }
  });
}

// ---------------------------------------------------------------- reading

void HttpConnection::await_request() {
  phase_ = Phase::Idle;
  if (shut_requested_) return close_now();
  if (buffer_.size() > 0) return read_request();
  arm_deadline(first_request_ ? shared_.settings.header_timeout
                              : shared_.settings.keep_alive_timeout);
  if (!read_pending_) read_some();
}

// The read that waits for the next request; while a call runs it is also
// how the connection learns that the client went away.
void HttpConnection::read_some() {
  read_pending_ = true;
  socket_.async_read_some(
      buffer_.prepare(kReadChunk),
      [self = shared_from_this()](error_code ec, size_t n) { self->on_read_some(ec, n); });
}

void HttpConnection::on_read_some(error_code ec, size_t n) {
  read_pending_ = false;
  if (!ec) buffer_.commit(n);
  switch (phase_) {
    case Phase::Idle:
      if (ec) return close_now();
      return read_request();
    case Phase::Waiting:
      if (ec) peer_gone();
      return;  // bytes of a pipelined request wait for their turn
    case Phase::Writing:
      if (ec) peer_closed_ = true;
      return;
    case Phase::Closing:
      if (ec) return close_now();
      buffer_.consume(buffer_.size());
      return read_some();
    case Phase::Reading:
    case Phase::Closed:
      return;
  }
}

void HttpConnection::read_request() {
  phase_ = Phase::Reading;
  first_request_ = false;
  timed_out_ = false;
  cur_ = Current{};
  cur_.started = Clock::now();
  arm_deadline(shared_.settings.header_timeout);  // then request_timeout, from on_header
  parser_.emplace();
  parser_->header_limit(kHeaderLimit);
  parser_->body_limit(shared_.settings.max_body_bytes);
  beast_http::async_read_header(
      socket_, buffer_, *parser_,
      [self = shared_from_this()](error_code ec, size_t) { self->on_header(ec); });
}

void HttpConnection::on_header(error_code ec) {
  if (phase_ != Phase::Reading) return;
  if (ec) return on_read_error(ec);
  // The header came within header_timeout: the request as a whole has
  // request_timeout from its first byte.
  io_deadline_ = cur_.started + shared_.settings.request_timeout;
  schedule_timer();
  route();
}

void HttpConnection::on_body(error_code ec) {
  if (phase_ != Phase::Reading) return;
  if (ec) return on_read_error(ec);
  cur_.body_read = true;
  handle_message();
}

void HttpConnection::on_read_error(error_code ec) {
  if (timed_out_)
    return reject(408,
                  "the request was not received in time (--http-header-timeout-ms, "
                  "--http-request-timeout-ms)");
  if (ec == beast_http::error::body_limit)
    return reject(413, fmt::format("the request body is larger than {} bytes",
                                   shared_.settings.max_body_bytes));
  if (ec == beast_http::error::header_limit)
    return reject(431, "the request headers are too large");
  if (ends_connection(ec)) return close_now();
  if (ec.category() == make_error_code(beast_http::error::bad_method).category())
    return reject(400, "malformed HTTP request");
  close_now();
}

// ---------------------------------------------------------------- routing

void HttpConnection::route() {
  const Request& req = parser_->get();
  std::string_view target = sv(req.target());
  cur_.method = std::string(sv(req.method_string()));
  cur_.path = std::string(target.substr(0, target.find('?')));
  cur_.keep_alive = req.keep_alive();
  cur_.body_read = parser_->is_done();
  auto rid = req.find("X-Request-Id");
  cur_.request_id = rid != req.end() && usable_request_id(sv(rid->value()))
                        ? std::string(sv(rid->value()))
                        : shared_.next_request_id();

  auto header = [&](beast_http::field f) -> std::optional<std::string_view> {
    auto it = req.find(f);
    if (it == req.end()) return std::nullopt;
    return sv(it->value());
  };
  for (beast_http::field f :
       {beast_http::field::host, beast_http::field::origin, beast_http::field::authorization})
    if (req.count(f) > 1)
      return reject(400, fmt::format("repeated {} header", sv(beast_http::to_string(f))));
  if (auto r = check_host(shared_.policy, header(beast_http::field::host))) return reject(*r);
  if (auto r = check_origin(shared_.policy, header(beast_http::field::origin))) return reject(*r);

  if (cur_.path != shared_.settings.path) {
    // Liveness (/health, /healthz) and readiness (/ready, /readyz) for load
    // balancers: ready is not draining, not saturated, and the shared store
    // (with --store) answering.
    bool live = cur_.path == "/health" || cur_.path == "/healthz";
    bool ready = cur_.path == "/ready" || cur_.path == "/readyz";
    if (!live && !ready) return reject(404, "not found");
    Response res{beast_http::status::ok, req.version()};
    res.set(beast_http::field::content_type, "application/json");
    if (req.method() != beast_http::verb::get) {
      res.result(beast_http::status::method_not_allowed);
      res.set(beast_http::field::allow, "GET");
      res.body() = R"({"error":"method not allowed"})";
    } else if (live) {
      res.body() = R"({"status":"ok"})";
    } else if (shared_.draining.load()) {
      res.result(beast_http::status::service_unavailable);
      res.body() = R"({"status":"draining"})";
    } else if (shared_.backend.in_flight() >= shared_.backend.capacity()) {
      res.result(beast_http::status::service_unavailable);
      res.body() = R"({"status":"saturated"})";
    } else if (!shared_.backend.store_reachable()) {
      res.result(beast_http::status::service_unavailable);
      res.body() = R"({"status":"store_unreachable"})";
    } else {
      res.body() = R"({"status":"ready"})";
    }
    return respond(std::move(res));
  }

  if (auto r = check_auth(shared_.policy, header(beast_http::field::authorization)))
    return reject(*r);
  auto sid = req.find("Mcp-Session-Id");
  if (sid != req.end()) cur_.session = std::string(sv(sid->value()));
  switch (req.method()) {
    case beast_http::verb::post:
      return begin_post();
    case beast_http::verb::delete_:
      return handle_delete();
    default: {
      Response res{beast_http::status::method_not_allowed, req.version()};
      res.set(beast_http::field::allow, "POST, DELETE");
      res.set(beast_http::field::content_type, "application/json");
      res.body() = rpc_error_frame("null", kServerError,
                                   "method not allowed: POST a JSON-RPC message, DELETE a session");
      return respond(std::move(res));
    }
  }
}

std::optional<std::string_view> HttpConnection::header(std::string_view name) const {
  const Request& req = parser_->get();
  auto it = req.find(boost::beast::string_view(name.data(), name.size()));
  if (it == req.end()) return std::nullopt;
  return sv(it->value());
}

void HttpConnection::begin_post() {
  const Request& req = parser_->get();
  if (shared_.draining.load()) return reject(503, "server draining");
  if (auto r = check_protocol_version(header("MCP-Protocol-Version"))) return reject(*r);
  if (auto r = check_content_type(header("Content-Type"))) return reject(*r);
  cur_.event_stream = wants_event_stream(header("Accept"));
  // An unknown session is refused before its body is read.
  if (!cur_.session.empty() &&
      !shared_.sessions.touch(cur_.session, shared_.policy.owner, Clock::now()))
    return reject(404, "unknown or expired MCP session: initialize a new one");
  if (parser_->is_done()) return handle_message();

  auto read_body = [this] {
    beast_http::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](error_code ec, size_t) { self->on_body(ec); });
  };
  auto expect = header("Expect");
  if (expect && iequals(*expect, "100-continue")) {
    continue_ = {};
    continue_.version(req.version());
    continue_.result(beast_http::status::continue_);
    beast_http::async_write(socket_, continue_,
                            [self = shared_from_this(), read_body](error_code ec, size_t) {
                              if (self->phase_ != Phase::Reading) return;
                              if (ec) return self->on_read_error(ec);
                              read_body();
                            });
    return;
  }
  read_body();
}

void HttpConnection::handle_delete() {
  if (cur_.session.empty()) return reject(400, "DELETE needs the Mcp-Session-Id header");
  if (!shared_.sessions.close(cur_.session, shared_.policy.owner))
    return reject(404, "unknown or expired MCP session");
  shared_.backend.cancel_connection(cur_.session);
  Response res{beast_http::status::accepted, parser_->get().version()};
  respond(std::move(res));
}

void HttpConnection::handle_message() {
  disarm_deadline();  // the reply timer takes over
  std::string body = std::move(parser_->get().body());
  if (body.empty()) return reject(400, "the request body is empty: POST one JSON-RPC message");
  RpcPeek peek = peek_rpc(body);
  const std::string& owner = shared_.policy.owner;
  auto now = Clock::now();
  bool initialize = peek.object && peek.method == "initialize";
  cur_.rpc_method = peek.method;
  cur_.rpc_has_id = peek.object && peek.has_id;
  cur_.id_json = peek.id_json;
  // A session's messages are 2025-era whatever they carry.
  Era era = peek.object && cur_.session.empty() ? route_modern(peek) : Era::Legacy;
  if (era == Era::Refused) return;
  cur_.modern = era == Era::Modern;
  if (cur_.modern) {
    cur_.event_stream = false;  // one JSON reply: the revision has no server-sent events here
  } else if (initialize) {
    if (!cur_.session.empty())
      return reject(400, "initialize must be sent without an Mcp-Session-Id header");
    cur_.session = shared_.sessions.open(owner, now);
    if (cur_.session.empty()) return reject(503, "too many MCP sessions are open");
    cur_.new_session = true;
  } else if (!cur_.session.empty()) {
    if (!shared_.sessions.touch(cur_.session, owner, now))
      return reject(404, "unknown or expired MCP session: initialize a new one");
  } else if (peek.object) {
    return reject(400, "the Mcp-Session-Id header is required (send initialize first)");
  }
  // A body that is not a JSON object goes to the server anyway: it answers
  // with the JSON-RPC error (-32700 or -32600), sent as a 400.
  if (cur_.modern)  // in-flight ids are the request's own: no other client's can clash
    cur_.caller = Caller{owner, modern_key_prefix_ + std::to_string(next_seq_ + 1), true};
  else
    cur_.caller = Caller{owner, cur_.session.empty() ? "http" : cur_.session, true};

  if (cur_.rpc_has_id && peek.method == "tools/call" && !cur_.session.empty()) {
    if (!shared_.sessions.try_acquire(cur_.session)) {
      HostValue busy =
          error_result("busy",
                       fmt::format("this MCP session already has {} tool calls in flight",
                                   shared_.sessions.in_flight(cur_.session)),
                       "Wait for one of them to finish, then retry.");
      return respond_rpc(200, rpc_result_frame(cur_.id_json, to_json(busy)));
    }
    cur_.holds_slot = true;
  }

  // Draining began while the body was read: a 503 (which a balancer
  // replays on another replica) rather than the server's shutting_down
  // result, which it cannot. The server sees draining only after this flag.
  if (shared_.draining.load()) {
    end_call();
    if (cur_.new_session) {
      shared_.sessions.close(cur_.session, owner);
      cur_.new_session = false;
    }
    return reject(503, "server draining");
  }
  cur_.seq = ++next_seq_;
  auto peer = std::make_shared<Exchange>(weak_from_this(), shared_.gate, cur_.seq);
  phase_ = Phase::Waiting;
  Handled handled = shared_.backend.handle(body, peer, cur_.caller);
  if (handled == Handled::NoReply) {
    end_call();
    if (cur_.new_session) {
      shared_.sessions.close(cur_.session, owner);
      cur_.new_session = false;
    }
    return respond(Response{beast_http::status::accepted, parser_->get().version()});
  }
  reply_deadline_ = Clock::now() + shared_.settings.request_timeout;
  schedule_timer();
  if (!read_pending_ && buffer_.size() == 0) read_some();
}

// Revision 2026-07-28 over HTTP: no session, and the standard headers
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name) must agree with the body,
// checked in the order the official SDK checks them. Modern (served
// without a session) or Refused (answered here) for a modern message; Legacy
// for a 2025-era one, served as before.
HttpConnection::Era HttpConnection::route_modern(const RpcPeek& peek) {
  auto header = [this](std::string_view name) -> std::optional<std::string_view> {
    auto v = this->header(name);
    if (v) v = trim(*v);
    return v;
  };
  // Text that is not JSON after all makes no claim: the server's own parse answers it.
  Envelope envelope = read_envelope(peek.meta_json);
  auto version = header("MCP-Protocol-Version");
  bool request = peek.has_id;
  if (!envelope.modern) {
    if (!version || !is_modern_version(*version)) return Era::Legacy;
    if (peek.method == "initialize") {
      refuse_mismatch(*version,
                      "an initialize request (legacy handshake) was sent with a modern "
                      "MCP-Protocol-Version header");
      return Era::Refused;
    }
    if (request) {
      std::string missing(peek.meta_json.empty() ? std::string_view("_meta") : kProtocolVersionKey);
      refuse_modern(error_frame(
          parse_json(peek.id_json), kInvalidParams,
          fmt::format("Invalid params: the MCP-Protocol-Version header names protocol revision "
                      "{}, but the request is missing the required per-request envelope "
                      "key(s): {}",
                      *version, missing),
          HostValue::map({{HostValue::string("envelope"),
                           HostValue::map({{HostValue::string("missing"),
                                            HostValue::vector({HostValue::string(missing)})}})}})));
      return Era::Refused;
    }
    return Era::Modern;  // a notification the header calls modern
  }
  if (request && !envelope.issue.empty()) {
    refuse_modern(envelope_error_frame(parse_json(peek.id_json), envelope));
    return Era::Refused;
  }
  if (!version) {
    refuse_mismatch("(missing)", fmt::format("the body envelope names protocol version {} but the "
                                             "required MCP-Protocol-Version header is absent",
                                             envelope.version));
    return Era::Refused;
  }
  if (*version != envelope.version) {
    refuse_mismatch(*version, fmt::format("the body envelope names protocol version {} but the "
                                          "MCP-Protocol-Version header names {}",
                                          envelope.version, *version));
    return Era::Refused;
  }
  auto method = header("Mcp-Method");
  if (!method && request) {
    refuse_mismatch("(missing)", fmt::format("the body names method {} but the required "
                                             "Mcp-Method header is absent",
                                             peek.method));
    return Era::Refused;
  }
  if (method && *method != peek.method) {
    refuse_mismatch(*method, fmt::format("the body names method {} but the Mcp-Method header "
                                         "names {}",
                                         peek.method, *method));
    return Era::Refused;
  }
  if (const std::optional<std::string>* source = peek.mcp_name_source(); request && source) {
    // Mcp-Name mirrors params.name (tools/call), params.uri or params.taskId
    // (tasks/*); the SDK leaves a body without that member to the later checks.
    std::string_view field = source == &peek.name ? "name" : source == &peek.uri ? "uri" : "taskId";
    auto name = header("Mcp-Name");
    std::optional<std::string> decoded = name ? decode_header_value(*name) : std::nullopt;
    if (name && !decoded) {
      refuse_mismatch(*name, "the Mcp-Name header carries an invalid Base64 sentinel value");
      return Era::Refused;
    }
    if (*source && (!name || *decoded != **source)) {
      std::string body = fmt::format("the body carries params.{}={} but the {}", field,
                                     to_json(HostValue::string(**source)),
                                     name ? fmt::format("Mcp-Name header names {}", *name)
                                          : std::string("required Mcp-Name header is absent"));
      refuse_mismatch(name ? *name : "(missing)", std::move(body));
      return Era::Refused;
    }
  }
  if (request && envelope.version != kModernRevision) {
    refuse_modern(envelope_error_frame(parse_json(peek.id_json), envelope));
    return Era::Refused;
  }
  return Era::Modern;
}

// A modern message refused before the server sees it: 400 and the JSON-RPC error.
void HttpConnection::refuse_modern(std::string frame) {
  cur_.event_stream = false;
  respond_rpc(400, std::move(frame));
}

// The header and the body disagree (-32020, HeaderMismatch).
void HttpConnection::refuse_mismatch(std::string_view header, std::string body) {
  refuse_modern(error_frame(
      cur_.rpc_has_id ? parse_json(cur_.id_json) : HostValue(), kHeaderMismatch,
      fmt::format("Bad Request: the request headers and body disagree: {}", body),
      HostValue::map(
          {{HostValue::string("mismatch"),
            HostValue::map({{HostValue::string("header"), HostValue::string(std::string(header))},
                            {HostValue::string("body"), HostValue::string(body)}})}})));
}

void HttpConnection::on_reply(uint64_t seq, std::string frame) {
  if (phase_ != Phase::Waiting || seq != cur_.seq) return;
  end_call();
  if (cur_.new_session && !rpc_reply_is_result(frame)) {
    shared_.sessions.close(cur_.session, shared_.policy.owner);
    cur_.new_session = false;
  }
  // A message without an id that gets an answer was refused as a whole
  // (not JSON, not a request object).
  unsigned status = cur_.rpc_has_id ? 200 : 400;
  if (cur_.modern && cur_.rpc_has_id) {
    // Revision 2026-07-28 answers errors of the protocol itself with HTTP
    // statuses (a tool's failure is a result: 200).
    switch (rpc_reply_error_code(frame)) {
      case kMethodNotFound:
        status = 404;
        break;
      case kParseError:
      case kInvalidRequest:
      case kUnsupportedProtocolVersion:
      case kMissingRequiredClientCapability:
      case kHeaderMismatch:
        status = 400;
        break;
      default:
        break;
    }
  }
  respond_rpc(status, std::move(frame));
}

void HttpConnection::on_reply_timeout() {
  if (phase_ != Phase::Waiting) return;
  if (cur_.rpc_has_id)
    shared_.backend.handle(rpc_cancel_notification(cur_.id_json, "request timed out"),
                           std::make_shared<DiscardPeer>(), cur_.caller);
  end_call();
  if (cur_.new_session) {
    shared_.sessions.close(cur_.session, shared_.policy.owner);
    cur_.new_session = false;
  }
  respond_rpc(200, rpc_error_frame(cur_.id_json, kServerError, "request timed out"));
}

// The client closed the connection while its call ran: the call is cancelled.
void HttpConnection::peer_gone() {
  peer_closed_ = true;
  close_now();
}

void HttpConnection::end_call() {
  reply_deadline_ = Clock::time_point::max();
  if (cur_.holds_slot) {
    shared_.sessions.release(cur_.session, Clock::now());
    cur_.holds_slot = false;
  }
}

// ---------------------------------------------------------------- writing

void HttpConnection::reject(const HttpRejection& r) {
  Response res{static_cast<beast_http::status>(r.status), parser_ ? parser_->get().version() : 11};
  res.set(beast_http::field::content_type, "application/json");
  if (!r.www_authenticate.empty()) res.set(beast_http::field::www_authenticate, r.www_authenticate);
  if (r.status == 503) res.set(beast_http::field::retry_after, "1");
  res.body() = rpc_error_frame("null", kServerError, r.message);
  respond(std::move(res));
}

void HttpConnection::reject(unsigned status, std::string message) {
  reject(HttpRejection{status, std::move(message), {}});
}

void HttpConnection::respond_rpc(unsigned status, std::string frame) {
  Response res{static_cast<beast_http::status>(status), parser_->get().version()};
  if (cur_.event_stream) {
    res.set(beast_http::field::content_type, "text/event-stream");
    res.set(beast_http::field::cache_control, "no-cache");
    std::string body;
    body.reserve(frame.size() + 24);
    body += "event: message\ndata: ";
    body += frame;
    body += "\n\n";
    res.body() = std::move(body);
  } else {
    res.set(beast_http::field::content_type, "application/json");
    res.body() = std::move(frame);
  }
  if (cur_.new_session) res.set("Mcp-Session-Id", boost::beast::string_view(cur_.session));
  respond(std::move(res));
}

void HttpConnection::respond(Response res) {
  if (cur_.request_id.empty()) cur_.request_id = shared_.next_request_id();
  res.set("X-Request-Id", boost::beast::string_view(cur_.request_id));
  bool keep = cur_.keep_alive && cur_.body_read && !peer_closed_ && !shut_requested_ &&
              !shared_.draining.load();
  res.keep_alive(keep);
  res.prepare_payload();
  cur_.status = res.result_int();
  response_ = std::move(res);
  phase_ = Phase::Writing;
  arm_deadline(timed_out_ ? shared_.settings.linger_timeout : shared_.settings.request_timeout);
  beast_http::async_write(socket_, response_, [self = shared_from_this()](error_code ec, size_t) {
    self->on_written(ec);
  });
}

void HttpConnection::on_written(error_code ec) {
  log_request();
  if (phase_ != Phase::Writing) return;
  if (ec) return close_now();
  bool keep = response_.keep_alive() && !shut_requested_;
  response_ = {};
  parser_.reset();
  if (!keep) return linger_close();
  await_request();
}

// ---------------------------------------------------------------- closing

// After the last response: no more output, and input is discarded for a
// moment so that the client reads the response before the close (closing
// with unread input would reset the connection).
void HttpConnection::linger_close() {
  phase_ = Phase::Closing;
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  arm_deadline(shared_.settings.linger_timeout);
  if (!read_pending_) {
    buffer_.consume(buffer_.size());
    read_some();
  }
}

void HttpConnection::close_now() {
  if (phase_ == Phase::Closed) return;
  if (phase_ == Phase::Waiting) {
    // The call's client is gone (or the transport is closing): cancel it.
    if (cur_.rpc_has_id)
      shared_.backend.handle(rpc_cancel_notification(cur_.id_json, "client disconnected"),
                             std::make_shared<DiscardPeer>(), cur_.caller);
    end_call();
    if (cur_.new_session) {
      shared_.sessions.close(cur_.session, shared_.policy.owner);
      cur_.new_session = false;
    }
  }
  phase_ = Phase::Closed;
  io_deadline_ = reply_deadline_ = Clock::time_point::max();
  ++timer_gen_;
  timer_.cancel();
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  shared_.remove(this);
}

void HttpConnection::arm_deadline(std::chrono::milliseconds d) {
  io_deadline_ = Clock::now() + d;
  schedule_timer();
}

void HttpConnection::disarm_deadline() {
  io_deadline_ = Clock::time_point::max();
}

void HttpConnection::schedule_timer() {
  Clock::time_point next = std::min(io_deadline_, reply_deadline_);
  if (next == Clock::time_point::max() || phase_ == Phase::Closed) return;
  if (timer_armed_ && timer_at_ <= next) return;  // it fires first and re-arms
  timer_at_ = next;
  timer_armed_ = true;
  uint64_t gen = ++timer_gen_;
  timer_.expires_at(next);
  timer_.async_wait([self = shared_from_this(), gen](error_code ec) {
    if (ec || gen != self->timer_gen_) return;
    self->timer_armed_ = false;
    self->on_timer();
  });
}

void HttpConnection::on_timer() {
  auto now = Clock::now();
  if (now >= io_deadline_) {
    io_deadline_ = Clock::time_point::max();
    on_deadline();
  }
  if (now >= reply_deadline_) {
    reply_deadline_ = Clock::time_point::max();
    on_reply_timeout();
  }
  schedule_timer();
}

void HttpConnection::on_deadline() {
  switch (phase_) {
    case Phase::Reading: {
      // The reads in progress end with operation_aborted; their handler
      // answers 408.
      timed_out_ = true;
      error_code ignored;
      socket_.cancel(ignored);
      return;
    }
    case Phase::Idle:
    case Phase::Writing:
    case Phase::Closing:
      return close_now();
    case Phase::Waiting:
      if (shut_requested_) close_now();
      return;
    case Phase::Closed:
      return;
  }
}

void HttpConnection::log_request() {
  if (!log_enabled(LogLevel::Debug)) return;
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - cur_.started).count();
  LogFields fields = {
      {"request_id", HostValue::string(cur_.request_id)},
      {"method", HostValue::string(cur_.method)},
      {"path", HostValue::string(cur_.path)},
      {"status", HostValue::integer(cur_.status)},
      {"duration_ms",
       HostValue::floating(static_cast<double>(static_cast<int64_t>(ms * 1000)) / 1000)},
  };
  if (!cur_.rpc_method.empty())
    fields.emplace_back("rpc_method", HostValue::string(cur_.rpc_method));
  if (!cur_.session.empty())
    fields.emplace_back("session", HostValue::string(session_digest(cur_.session)));
  log(LogLevel::Debug, "http_request", fields);
}

}  // namespace ptc::mcp
