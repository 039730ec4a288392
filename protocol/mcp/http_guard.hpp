// The HTTP transport's request checks, as pure functions of the headers so
// that each decision is testable without a socket: where the server may
// listen, the DNS-rebinding guard (Host, Origin), the bearer token, the
// MCP-Protocol-Version and Content-Type headers, and which reply form
// (JSON or SSE) the client's Accept asks for.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/mcp/config.hpp"

namespace ptc::mcp {

// A refused request: the HTTP status, a message for the JSON-RPC error body,
// and for 401 the WWW-Authenticate challenge.
struct HttpRejection {
  unsigned status = 400;
  std::string message;
  std::string www_authenticate;
};

// What the guard checks requests against, fixed at start.
struct HttpGuardPolicy {
  bool loopback_bind = true;                 // Host must then name a loopback address
  std::vector<std::string> allowed_origins;  // lower case, no trailing '/'; empty = loopback only
  std::string token;                         // empty = no Authorization needed
  std::string owner;  // Caller::owner of every request: digest of the token, or "loopback"

  static HttpGuardPolicy from_config(const ServerConfig& config);
};

// Why the server must not start with this configuration ("" when it may):
// beyond loopback only with http_allow_unsafe_network and a token of at
// least 32 characters; a path that starts with '/' and is not /health or
// /ready.
std::string http_startup_error(const ServerConfig& config);

// A header value without the optional whitespace (spaces, tabs) around it.
std::string_view trim(std::string_view s);

// "127.0.0.1" (any 127.0.0.0/8 address), "::1", "[::1]", "localhost".
bool is_loopback_host(std::string_view host);
// A Host header value: a loopback host with or without ":port".
bool is_loopback_authority(std::string_view authority);

// The guard, in the order the transport applies it. A header that is absent
// is nullopt. Host: required; on a loopback bind it must be loopback (403).
std::optional<HttpRejection> check_host(const HttpGuardPolicy& policy,
                                        std::optional<std::string_view> host);
// Origin: absent is fine (not a browser); "null" is refused; otherwise it
// must be listed in allowed_origins, or, when none are listed, be an http or
// https origin on a loopback host (403).
std::optional<HttpRejection> check_origin(const HttpGuardPolicy& policy,
                                          std::optional<std::string_view> origin);
// Authorization: "Bearer <token>" when a token is configured, compared in
// constant time; 401 with "Bearer" when missing or not a bearer credential,
// with `Bearer error="invalid_token"` when wrong.
std::optional<HttpRejection> check_auth(const HttpGuardPolicy& policy,
                                        std::optional<std::string_view> authorization);
// MCP-Protocol-Version: absent, or one of the versions the server speaks
// (any of them, not necessarily the negotiated one); else 400.
std::optional<HttpRejection> check_protocol_version(std::optional<std::string_view> version);
// Content-Type: absent, application/json or application/<x>+json (with
// parameters); else 415.
std::optional<HttpRejection> check_content_type(std::optional<std::string_view> content_type);

// True when Accept admits text/event-stream but not JSON: the reply then
// goes as one SSE event. Absent, empty or JSON-admitting Accept -> false.
bool wants_event_stream(std::optional<std::string_view> accept);

// Equal strings, in time that depends only on their lengths.
bool constant_time_equal(std::string_view a, std::string_view b);

// The protocol versions an MCP-Protocol-Version header may carry.
const std::vector<std::string_view>& http_protocol_versions();

}  // namespace ptc::mcp
