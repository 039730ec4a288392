#include "protocol/mcp/http_guard.hpp"

#include "protocol/mcp/era.hpp"

#include <cstdint>

#include <fmt/format.h>
#include <xxhash.h>

namespace ptc::mcp {

namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = lower(c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// A dotted quad whose first octet is 127.
bool is_ipv4_loopback(std::string_view s) {
  int parts = 0;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (!all_digits(part) || part.size() > 3) return false;
    int value = 0;
    for (char c : part)
      value = value * 10 + (c - '0');
    if (value > 255) return false;
    if (parts == 0 && value != 127) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

std::string token_owner(std::string_view token) {
  XXH128_hash_t h = XXH3_128bits(token.data(), token.size());
  return fmt::format("token:{:016x}{:016x}", static_cast<uint64_t>(h.high64),
                     static_cast<uint64_t>(h.low64));
}

HttpRejection rejection(unsigned status, std::string message, std::string challenge = {}) {
  return HttpRejection{status, std::move(message), std::move(challenge)};
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

HttpGuardPolicy HttpGuardPolicy::from_config(const ServerConfig& config) {
  HttpGuardPolicy p;
  p.loopback_bind = is_loopback_host(config.http_host);
  for (const std::string& origin : config.http_allowed_origins) {
    std::string o = lowercase(trim(origin));
    while (!o.empty() && o.back() == '/')
      o.pop_back();
    if (!o.empty()) p.allowed_origins.push_back(std::move(o));
  }
  p.token = config.http_auth_token;
  p.owner = p.token.empty() ? "loopback" : token_owner(p.token);
  return p;
}

std::string http_startup_error(const ServerConfig& config) {
  const std::string& token = config.http_auth_token;
  if (!token.empty() && token.size() < 32)
    return "--http-auth-token must be at least 32 characters long";
  if (!is_loopback_host(config.http_host)) {
    if (!config.http_allow_unsafe_network)
      return fmt::format(
          "--http-host {} is not a loopback address: listening beyond loopback needs "
          "--http-allow-unsafe-network and --http-auth-token",
          config.http_host);
    if (token.empty())
      return fmt::format(
          "--http-host {} is not a loopback address: --http-auth-token (at least 32 "
          "characters) is required beyond loopback",
          config.http_host);
  }
  const std::string& path = config.http_path;
  if (path.empty() || path.front() != '/' || path.find_first_of("?# ") != std::string::npos)
    return fmt::format("--http-path \"{}\" must start with '/' and hold no '?', '#' or space",
                       path);
  if (path == "/health" || path == "/ready")
    return fmt::format("--http-path {} is taken by the health endpoints", path);
  return "";
}

bool is_loopback_host(std::string_view host) {
  if (iequals(host, "localhost")) return true;
  if (host == "::1" || host == "[::1]") return true;
  return is_ipv4_loopback(host);
}

bool is_loopback_authority(std::string_view authority) {
  std::string_view host = authority;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    std::string_view rest = host.substr(close + 1);
    if (!rest.empty() && !(rest.front() == ':' && all_digits(rest.substr(1)))) return false;
    host = host.substr(0, close + 1);
  } else if (size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    // An IPv6 literal needs brackets in an authority.
    if (host.find(':') != colon || !all_digits(host.substr(colon + 1))) return false;
    host = host.substr(0, colon);
  }
  return is_loopback_host(host);
}

std::optional<HttpRejection> check_host(const HttpGuardPolicy& policy,
                                        std::optional<std::string_view> host) {
  if (!host || trim(*host).empty()) return rejection(400, "the Host header is required");
  if (policy.loopback_bind && !is_loopback_authority(trim(*host)))
    return rejection(403, "Host must name a loopback address (DNS rebinding protection)");
  return std::nullopt;
}

std::optional<HttpRejection> check_origin(const HttpGuardPolicy& policy,
                                          std::optional<std::string_view> origin) {
  if (!origin) return std::nullopt;
  std::string o = lowercase(trim(*origin));
  HttpRejection refused = rejection(403, "Origin is not allowed (DNS rebinding protection)");
  if (o == "null" || o.empty()) return refused;
  if (!policy.allowed_origins.empty()) {
    for (const std::string& allowed : policy.allowed_origins)
      if (o == allowed) return std::nullopt;
    return refused;
  }
  std::string_view rest = o;
  if (rest.starts_with("http://"))
    rest.remove_prefix(7);
  else if (rest.starts_with("https://"))
    rest.remove_prefix(8);
  else
    return refused;
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos || !is_loopback_authority(rest)) return refused;
  return std::nullopt;
}

std::optional<HttpRejection> check_auth(const HttpGuardPolicy& policy,
                                        std::optional<std::string_view> authorization) {
  if (policy.token.empty()) return std::nullopt;
  std::string_view value = authorization ? trim(*authorization) : std::string_view();
  size_t space = value.find(' ');
  if (space == std::string_view::npos || !iequals(value.substr(0, space), "bearer"))
    return rejection(401, "a bearer token is required", "Bearer");
  std::string_view presented = trim(value.substr(space + 1));
  if (!constant_time_equal(presented, policy.token))
    return rejection(401, "the bearer token is not valid", "Bearer error=\"invalid_token\"");
  return std::nullopt;
}

const std::vector<std::string_view>& http_protocol_versions() {
  static const std::vector<std::string_view> versions = {"2025-11-25", "2025-06-18", "2025-03-26"};
  return versions;
}

std::optional<HttpRejection> check_protocol_version(std::optional<std::string_view> version) {
  if (!version) return std::nullopt;
  std::string_view v = trim(*version);
  // A 2026-07-28-era version: the body's envelope decides (route_modern).
  if (is_modern_version(v)) return std::nullopt;
  for (std::string_view supported : http_protocol_versions())
    if (v == supported) return std::nullopt;
  return rejection(400,
                   "unsupported MCP-Protocol-Version (supported: 2025-11-25, 2025-06-18, "
                   "2025-03-26)");
}

std::optional<HttpRejection> check_content_type(std::optional<std::string_view> content_type) {
  if (!content_type) return std::nullopt;
  std::string type = lowercase(trim(content_type->substr(0, content_type->find(';'))));
  if (type == "application/json") return std::nullopt;
  if (type.starts_with("application/") && type.ends_with("+json")) return std::nullopt;
  return rejection(415, "Content-Type must be application/json");
}

bool wants_event_stream(std::optional<std::string_view> accept) {
  if (!accept) return false;
  bool json = false;
  bool event_stream = false;
  bool any = false;
  std::string_view rest = *accept;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view range = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    std::string_view params;
    if (size_t semi = range.find(';'); semi != std::string_view::npos) {
      params = range.substr(semi + 1);
      range = range.substr(0, semi);
    }
    std::string type = lowercase(trim(range));
    if (type.empty()) continue;
    // q=0 excludes a media range.
    bool excluded = false;
    while (!params.empty()) {
      size_t semi = params.find(';');
      std::string param = lowercase(trim(params.substr(0, semi)));
      params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
      if (param.starts_with("q=")) {
        std::string_view q = std::string_view(param).substr(2);
        excluded = !q.empty() && q.find_first_not_of("0.") == std::string_view::npos;
      }
    }
    if (excluded) continue;
    any = true;
    if (type == "application/json" || type == "application/*" || type == "*/*" ||
        (type.starts_with("application/") && type.ends_with("+json")))
      json = true;
    if (type == "text/event-stream" || type == "text/*") event_stream = true;
  }
  return any && event_stream && !json;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Every byte of the longer string is looked at, whatever matches.
  size_t n = a.size() > b.size() ? a.size() : b.size();
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff = static_cast<unsigned char>(diff | (x ^ y));
  }
  return diff == 0;
}

}  // namespace ptc::mcp
