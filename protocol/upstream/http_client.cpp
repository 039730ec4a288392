#include "protocol/upstream/http_client.hpp"

#include <fmt/format.h>

#include "include/ptc/error.hpp"
#include "protocol/upstream/handshake.hpp"
#include "protocol/upstream/reply_decoding.hpp"

namespace ptc::upstream {

namespace {

net::HttpOptions http_options(const UpstreamConfig& config) {
  net::HttpOptions options;
  options.ca_file = config.ca_file;
  options.allow_remote_http = config.allow_insecure_http;  // the config checked the rest
  options.max_response_bytes = config.max_response_bytes;
  return options;
}

// The path (and query) as the url writes it: parse_url drops a trailing '/',
// on which some servers (the Python SDK's) answer with a redirect.
std::string path_as_written(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  url = url.substr(0, url.find('#'));
  size_t start = url.find_first_of("/?", scheme + 3);
  if (start == std::string_view::npos) return {};
  std::string path(url.substr(start));
  return path.starts_with("/") ? path : "/" + path;
}

}  // namespace

HttpClient::HttpClient(UpstreamConfig config, const Redactor* redactor, LogFn log)
    : config_(std::move(config)),
      redactor_(redactor),
      log_(std::move(log)),
      http_(config_.url, http_options(config_)),
      path_(path_as_written(config_.url)) {}

HttpClient::~HttpClient() {
  stop();
}

std::string HttpClient::redact(std::string_view s) const {
  return redactor_ ? redactor_->redact(s) : std::string(s);
}

net::HttpResponse HttpClient::post(const std::string& body, const std::string& session,
                                   Clock::time_point deadline,
                                   const std::function<bool()>& cancelled, int64_t expect_id,
                                   bool replayable, const char* method, net::Headers mcp_headers) {
  net::HttpRequest request;
  request.method = method;
  request.path = path_;
  request.headers = {{"Content-Type", "application/json"},
                     {"Accept", "application/json, text/event-stream"}};
  if (mcp_headers.empty()) mcp_headers.emplace_back("MCP-Protocol-Version", kClientProtocolVersion);
  for (auto& header : mcp_headers)
    request.headers.push_back(std::move(header));
  if (!session.empty()) request.headers.emplace_back("Mcp-Session-Id", session);
  request.headers.insert(request.headers.end(), config_.headers.begin(), config_.headers.end());
  request.body = body;
  request.deadline = deadline;
  request.cancelled = cancelled;
  request.replayable = replayable;
  request.sse_expect_id = expect_id;
  return http_.send(request);
}

Reply HttpClient::exchange(std::string_view method, const HostValue& params,
                           Clock::time_point deadline, const std::function<bool()>& cancelled,
                           const std::string& session, std::string* new_session, bool modern) {
  int64_t id = next_id_++;
  net::Headers mcp_headers;
  if (modern) {
    mcp_headers = {{"MCP-Protocol-Version", kModernProtocolVersion},
                   {"Mcp-Method", std::string(method)}};
    const HostValue* name = params.kind() == HostValue::Kind::Map ? params.get("name") : nullptr;
    if (method == "tools/call" && name && name->kind() == HostValue::Kind::String)
      mcp_headers.emplace_back("Mcp-Name", mcp_header_value(name->text()));
  }
  std::string body = fmt::format("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":{},\"params\":{}}}",
                                 id, to_json(HostValue::string(std::string(method))),
                                 to_json(modern ? with_modern_envelope(params) : params));
  net::HttpResponse raw =
      post(body, session, deadline, cancelled, id,
           /*replayable=*/method != "tools/call", "POST", std::move(mcp_headers));
  using Outcome = net::HttpResponse::Outcome;
  Reply r;
  r.bytes = raw.body.size();
  if (raw.outcome == Outcome::Cancelled) {
    r.status = Reply::Status::Cancelled;
    r.message = fmt::format("the call to upstream {} was cancelled", config_.name);
    return r;
  }
  if (raw.outcome == Outcome::TimedOut) {
    r.status = Reply::Status::Timeout;
    r.message = fmt::format("upstream {} did not answer {} in time", config_.name, method);
    return r;
  }
  if (raw.outcome == Outcome::TooLarge) {
    r.status = Reply::Status::TooLarge;
    r.message = fmt::format("upstream {} replied with more than {} bytes (the cap)", config_.name,
                            config_.max_response_bytes);
    return r;
  }
  if (raw.outcome != Outcome::Ok) {
    r.status = Reply::Status::Unavailable;
    r.message = redact(fmt::format("upstream {}: {}", config_.name, raw.error));
    return r;
  }
  if (std::string id_header = raw.header("mcp-session-id"); new_session && !id_header.empty())
    *new_session = std::move(id_header);
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
    messages = net::sse_event_data(raw.body);
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
  net::HttpResponse n = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                             session, deadline, {}, -1, /*replayable=*/true);
  if (n.outcome != net::HttpResponse::Outcome::Ok || (n.status != 202 && n.status != 200))
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
         "DELETE");
  http_.close_idle();
}

}  // namespace ptc::upstream
