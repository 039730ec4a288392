// MCP Streamable HTTP, without sockets: the input is what a client sends on
// one connection, up to 8 keep-alive requests. Each is parsed as the
// transport parses it (Beast's request_parser<string_body> with its 16 KiB
// header limit and the body limit HttpSettings gives for
// --http-max-body-bytes 2048; the header first, then the body of a POST) and
// goes through the transport's checks in their order (http_connection.cpp:
// route, begin_post, handle_message, handle_delete): check_host,
// check_origin, check_auth (a token is configured), the MCP session
// bookkeeping of HttpSessions, check_protocol_version, check_content_type,
// wants_event_stream, then peek_rpc on the body. The body is not dispatched
// (fuzz_jsonrpc covers the server); the request counts as answered with a
// result at once. A request the transport would answer and close after (an
// unread body, a parse error, Connection: close) ends the input. An
// Mcp-Session-Id of `$SID` stands for the newest session this input opened
// (session ids are random). Time is simulated: one second per request, so
// sessions idle out after three.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/config.hpp"
#include "protocol/mcp/http_connection.hpp"
#include "protocol/mcp/http_guard.hpp"
#include "protocol/mcp/http_rpc.hpp"
#include "protocol/mcp/http_sessions.hpp"
#include "protocol/mcp/json_rpc.hpp"
#include "runtime/error.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

namespace http = boost::beast::http;
namespace mcp = ptc::mcp;
using boost::system::error_code;
using Parser = http::request_parser<http::string_body>;
using Clock = mcp::HttpSessions::Clock;

constexpr size_t kMaxRequests = 8;
constexpr uint32_t kHeaderLimit = 16 * 1024;  // as http_connection.cpp
constexpr std::string_view kToken = "fuzz-token-0123456789abcdefghijklmnopqrstuvwxyz";

struct Setup {
  mcp::ServerConfig config;
  mcp::HttpSettings settings;
  mcp::HttpGuardPolicy policy;  // loopback bind, a token, no listed origins
  mcp::HttpGuardPolicy listed;  // beyond loopback, listed origins
  mcp::HttpSessions::Limits limits;
};

const Setup& setup() {
  static const Setup* s = [] {
    auto* out = new Setup;
    out->config.http = true;
    out->config.http_auth_token = std::string(kToken);
    out->config.http_max_body_bytes = 2048;
    out->settings = mcp::HttpSettings::from_config(out->config);
    out->policy = mcp::HttpGuardPolicy::from_config(out->config);
    mcp::ServerConfig wide = out->config;
    wide.http_host = "0.0.0.0";
    wide.http_allow_unsafe_network = true;
    wide.http_allowed_origins = {"https://App.example.com/", " http://localhost:8080 ", "null"};
    out->listed = mcp::HttpGuardPolicy::from_config(wide);
    PTC_FUZZ_CHECK(mcp::http_startup_error(out->config).empty(), "config");
    PTC_FUZZ_CHECK(mcp::http_startup_error(wide).empty(), "wide config");
    out->limits = {2, 1, std::chrono::seconds(3)};
    return out;
  }();
  return *s;
}

std::string_view sv(boost::beast::string_view s) {
  return {s.data(), s.size()};
}

// Feeds `in` to the parser as Beast's read algorithms do from a stream that
// ends after `in`, until `done()` holds or an error: what the parser does not
// consume stays in `in` for the next request.
template <class Done>
error_code feed(Parser& p, std::string_view& in, Done done) {
  error_code ec;
  while (!done()) {
    size_t used = 0;
    if (!in.empty()) {
      used = p.put(boost::asio::buffer(in.data(), in.size()), ec);
      in.remove_prefix(used);
      if (ec == http::error::need_more && used > 0) {
        ec = {};
        continue;
      }
      if (ec && ec != http::error::need_more) return ec;
      ec = {};
      if (used > 0) continue;
    }
    // Nothing more will come: the end of the stream.
    if (!p.got_some()) return http::error::end_of_stream;
    p.put_eof(ec);
    if (ec) return ec;
    if (!done()) return http::error::partial_message;
  }
  return ec;
}

std::optional<std::string_view> header(const Parser& p, std::string_view name) {
  const auto& req = p.get();
  auto it = req.find(boost::beast::string_view(name.data(), name.size()));
  if (it == req.end()) return std::nullopt;
  return sv(it->value());
}

// Checks whose answers must agree with other code, on any header value.
void check_header_functions(const Setup& s, const Parser& p) {
  for (std::string_view name : {"Host", "Origin", "Authorization"}) {
    std::optional<std::string_view> v = header(p, name);
    if (!v) continue;
    PTC_FUZZ_CHECK(mcp::constant_time_equal(*v, kToken) == (*v == kToken), *v);
    (void)mcp::check_host(s.listed, v);
    (void)mcp::check_origin(s.listed, v);
    (void)mcp::is_loopback_host(*v);
  }
  if (std::optional<std::string_view> auth = header(p, "Authorization"))
    if (!mcp::check_auth(s.policy, auth))
      PTC_FUZZ_CHECK(auth->find(kToken) != std::string_view::npos, *auth);
}

// peek_rpc reads what the server reads: for a body the server takes as a
// request or notification, the same method and whether there is an id.
void check_peek(std::string body) {
  std::string original = body;
  mcp::RpcPeek peek = mcp::peek_rpc(body);
  PTC_FUZZ_CHECK(body == original, "peek_rpc changed the body");
  (void)mcp::rpc_frame_is_notification(body);
  (void)mcp::rpc_reply_is_result(body);
  mcp::RpcMessage m = mcp::parse_message(body);
  ptc::fuzz::debug("peek", peek.method + " id " + peek.id_json);
  if (m.kind != mcp::RpcMessage::Kind::Request && m.kind != mcp::RpcMessage::Kind::Notification)
    return;
  PTC_FUZZ_CHECK(peek.object, "a message the server takes is not an object to peek_rpc: " + body);
  PTC_FUZZ_CHECK(peek.method == m.method, "peek_rpc read method \"" + peek.method +
                                              "\", the server \"" + m.method + "\": " + body);
  bool request = m.kind == mcp::RpcMessage::Kind::Request;
  PTC_FUZZ_CHECK(peek.has_id == request, "peek_rpc and the server disagree on the id: " + body);
  if (request &&
      (m.id.kind() == ptc::HostValue::Kind::String || m.id.kind() == ptc::HostValue::Kind::Int)) {
    ptc::HostValue id;
    try {
      id = ptc::parse_json(peek.id_json);
    } catch (ptc::LispError&) {
      PTC_FUZZ_CHECK(false, "peek_rpc id " + peek.id_json + " is not JSON: " + body);
    }
    PTC_FUZZ_CHECK(id == m.id, "peek_rpc id " + peek.id_json + ": " + body);
  }
}

// One connection's state across its requests.
struct Connection {
  explicit Connection(const Setup& setup) : s(setup), sessions(setup.limits) {}
  const Setup& s;
  mcp::HttpSessions sessions;
  Clock::time_point now = Clock::time_point() + std::chrono::hours(1);
  std::string newest;  // the session the last initialize opened
};

// handle_message: the session rules, by what peek_rpc reads of the body.
void handle_message(Connection& c, std::string body, std::string session) {
  if (body.empty()) return;  // 400
  check_peek(body);
  mcp::RpcPeek peek = mcp::peek_rpc(body);
  const std::string& owner = c.s.policy.owner;
  if (peek.object && peek.method == "initialize") {
    if (!session.empty()) return;  // 400
    session = c.sessions.open(owner, c.now);
    if (session.empty()) return;  // 503
    c.newest = session;
  } else if (!session.empty()) {
    if (!c.sessions.touch(session, owner, c.now)) return;  // 404
  } else if (peek.object) {
    return;  // 400: no session
  }
  if (peek.object && peek.has_id && peek.method == "tools/call" && !session.empty() &&
      c.sessions.try_acquire(session)) {
    PTC_FUZZ_CHECK(c.sessions.in_flight(session) <= c.s.limits.max_in_flight, session);
    c.sessions.release(session, c.now);  // answered at once
  }
}

// One request, as route() and what it calls handle it; false when the
// connection ends after it.
bool serve_one(Connection& c, std::string_view& in) {
  const Setup& s = c.s;
  c.now += std::chrono::seconds(1);
  (void)c.sessions.expire(c.now);
  PTC_FUZZ_CHECK(c.sessions.size() <= s.limits.max_sessions, "too many sessions");
  Parser p;
  p.header_limit(kHeaderLimit);
  p.body_limit(s.settings.max_body_bytes);
  error_code ec = feed(p, in, [&] { return p.is_header_done(); });
  if (ec) {
    ptc::fuzz::debug("header", ec.message());
    return false;  // 408, 413, 431, 400 or the end of the stream: the connection closes
  }
  const auto& req = p.get();
  check_header_functions(s, p);
  // A request answered without reading its body closes the connection.
  bool keep = req.keep_alive() && p.is_done();
  for (http::field f : {http::field::host, http::field::origin, http::field::authorization})
    if (req.count(f) > 1) return keep;  // 400
  if (mcp::check_host(s.policy, header(p, "Host"))) return keep;
  if (mcp::check_origin(s.policy, header(p, "Origin"))) return keep;
  std::string_view target = sv(req.target());
  if (target.substr(0, target.find('?')) != s.settings.path) return keep;  // health, ready, 404
  if (mcp::check_auth(s.policy, header(p, "Authorization"))) return keep;
  std::string session(header(p, "Mcp-Session-Id").value_or(""));
  if (session == "$SID") session = c.newest;
  if (req.method() == http::verb::delete_) {
    if (!session.empty()) (void)c.sessions.close(session, s.policy.owner);
    return keep;
  }
  if (req.method() != http::verb::post) return keep;  // 405
  // begin_post
  if (mcp::check_protocol_version(header(p, "MCP-Protocol-Version"))) return keep;
  if (mcp::check_content_type(header(p, "Content-Type"))) return keep;
  (void)mcp::wants_event_stream(header(p, "Accept"));
  if (!session.empty() && !c.sessions.touch(session, s.policy.owner, c.now)) return keep;  // 404
  ec = feed(p, in, [&] { return p.is_done(); });
  if (ec) {
    ptc::fuzz::debug("body", ec.message());
    return false;
  }
  handle_message(c, std::move(p.get().body()), session);
  return req.keep_alive();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return -1;
  const Setup& s = setup();
  Connection c(s);
  std::string_view in = ptc::fuzz::as_text(data, size);
  for (size_t n = 0; n < kMaxRequests && !in.empty(); ++n)
    if (!serve_one(c, in)) break;
  return 0;
}
