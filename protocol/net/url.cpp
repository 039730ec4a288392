// parse_url and is_loopback_host of http_client.hpp: the base URL of a
// client, checked once, so that nothing a URL carries can reach the request
// line or the Host header unchecked.
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "protocol/net/http_client.hpp"

namespace ptc::net {

namespace {

bool starts_with_lower(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  return true;
}

// A DNS name or an IPv4 address: what may stand in a Host header unquoted.
bool plain_host(std::string_view host) {
  return std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
  });
}

bool valid_port(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  unsigned value = 0;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return value >= 1 && value <= 65535;
}

// Printable ASCII without spaces: a path that cannot break the request line.
bool valid_path(std::string_view path) {
  return std::all_of(path.begin(), path.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

bool fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

}  // namespace

bool parse_url(std::string_view text, Url* out, std::string* error) {
  Url url;
  if (starts_with_lower(text, "https://")) {
    url.tls = true;
    text.remove_prefix(8);
  } else if (starts_with_lower(text, "http://")) {
    text.remove_prefix(7);
  } else {
    return fail(error, "expected http:// or https://");
  }
  text = text.substr(0, text.find('#'));  // a fragment is never sent
  size_t authority_end = text.find_first_of("/?");
  std::string_view authority = text.substr(0, authority_end);
  std::string_view rest = authority_end == std::string_view::npos ? "" : text.substr(authority_end);
  if (authority.find('@') != std::string_view::npos)
    return fail(error, "credentials in the URL are not supported (send them in a header)");
  std::string_view port;
  if (authority.starts_with("[")) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail(error, "an IPv6 address without its ']'");
    url.host = std::string(authority.substr(1, close - 1));
    in6_addr addr;
    if (::inet_pton(AF_INET6, url.host.c_str(), &addr) != 1)
      return fail(error, "not an IPv6 address between [ and ]");
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(":"))
      return fail(error, "expected :PORT after the IPv6 address");
    if (!after.empty()) port = after.substr(1);
    if (!after.empty() && port.empty()) return fail(error, "an empty port");
  } else {
    size_t colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.find(':') != std::string_view::npos)
        return fail(error, "an IPv6 address needs brackets: http://[::1]:8080/");
      if (port.empty()) return fail(error, "an empty port");
    }
    if (url.host.empty()) return fail(error, "no host");
    if (!plain_host(url.host)) return fail(error, "the host has characters a host name cannot");
  }
  if (!port.empty() && !valid_port(port)) return fail(error, "the port is not 1..65535");
  url.port = port.empty() ? (url.tls ? "443" : "80") : std::string(port);
  // The path without trailing '/' (callers append their own), its query kept.
  size_t query = rest.find('?');
  std::string_view path = rest.substr(0, query);
  while (path.size() > 1 && path.ends_with("/"))
    path.remove_suffix(1);
  url.path = path.empty() ? "/" : std::string(path);
  if (query != std::string_view::npos) url.path += rest.substr(query);
  if (!valid_path(url.path)) return fail(error, "the path has spaces or control characters");
  *out = std::move(url);
  return true;
}

bool is_loopback_host(std::string_view host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  std::string name(host);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name == "localhost") return true;
  in_addr addr4;
  if (::inet_pton(AF_INET, name.c_str(), &addr4) == 1) return (ntohl(addr4.s_addr) >> 24) == 127;
  in6_addr addr6;
  if (::inet_pton(AF_INET6, name.c_str(), &addr6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&addr6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&addr6) && addr6.s6_addr[12] == 127;
}

}  // namespace ptc::net
