#include "protocol/store/store_address.hpp"

#include <fmt/format.h>

#include <charconv>

namespace ptc::store {

namespace {

bool parse_number(std::string_view text, uint64_t max, uint64_t& out, int base = 10) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc() && end == text.data() + text.size() && out <= max;
}

// %XX escapes of a URL's user-info (a password may hold '@' or ':').
bool percent_decode(std::string_view s, std::string& out) {
  out.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    uint64_t byte = 0;
    if (i + 2 >= s.size() || !parse_number(s.substr(i + 1, 2), 255, byte, 16)) return false;
    out += static_cast<char>(byte);
    i += 2;
  }
  return true;
}

std::string parse_db(std::string_view text, uint32_t& db) {
  uint64_t n = 0;
  if (!parse_number(text, 1u << 20, n))
    return fmt::format("the database `{}` is not a number from 0 up", text);
  db = static_cast<uint32_t>(n);
  return "";
}

}  // namespace

std::string StoreAddress::describe() const {
  if (kind == Kind::Unix) return fmt::format("unix://{}?db={}", path, db);
  bool v6 = host.find(':') != std::string::npos;
  return fmt::format("redis://{}{}{}:{}/{}", v6 ? "[" : "", host, v6 ? "]" : "", port, db);
}

std::string parse_store_address(std::string_view url, StoreAddress& out) {
  out = StoreAddress{};
  constexpr std::string_view kRedis = "redis://", kUnix = "unix://";
  if (url.substr(0, kUnix.size()) == kUnix) {
    out.kind = StoreAddress::Kind::Unix;
    std::string_view rest = url.substr(kUnix.size());
    if (size_t q = rest.find('?'); q != std::string_view::npos) {
      std::string_view query = rest.substr(q + 1);
      rest = rest.substr(0, q);
      if (query.substr(0, 3) != "db=")
        return fmt::format("unknown query `{}`: a unix:// address takes only ?db=N", query);
      if (std::string e = parse_db(query.substr(3), out.db); !e.empty()) return e;
    }
    if (rest.empty() || rest[0] != '/')
      return "a unix:// address names an absolute socket path: unix:///run/redis/redis.sock";
    out.path = std::string(rest);
    return "";
  }
  if (url.substr(0, kRedis.size()) != kRedis)
    return fmt::format(
        "`{}` is not a store address: use redis://HOST:PORT[/DB] or unix:///PATH.sock", url);
  std::string_view rest = url.substr(kRedis.size());
  std::string_view authority = rest.substr(0, rest.find('/'));
  std::string_view path =
      authority.size() < rest.size() ? rest.substr(authority.size() + 1) : std::string_view{};
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view user_info = authority.substr(0, at);
    authority = authority.substr(at + 1);
    // redis://:PASSWORD@host or redis://default:PASSWORD@host (the user is ignored: AUTH password).
    size_t colon = user_info.find(':');
    std::string_view secret =
        colon == std::string_view::npos ? user_info : user_info.substr(colon + 1);
    if (!percent_decode(secret, out.password))
      return "the password in the address has a bad %-escape";
  }
  std::string_view port_text;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return "an IPv6 host is written [ADDRESS]:PORT";
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return "an IPv6 host is written [ADDRESS]:PORT";
      port_text = after.substr(1);
    }
  } else {
    size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (out.host.empty()) return "the address names no host: redis://127.0.0.1:6379";
  for (char c : out.host) {
    auto u = static_cast<unsigned char>(c);
    bool bracketed = !authority.empty() && authority[0] == '[';
    if (u <= ' ' || u == 0x7f || c == '[' || c == ']' || c == '/' || c == '?' || c == '#' ||
        (c == ':' && !bracketed))
      return fmt::format(
          "the host `{}` is not a host name or address (an IPv6 address is "
          "written [ADDRESS]:PORT)",
          out.host);
  }
  if (!port_text.empty()) {
    uint64_t port = 0;
    if (!parse_number(port_text, 65535, port) || port == 0)
      return fmt::format("the port `{}` is not a number from 1 to 65535", port_text);
    out.port = static_cast<uint16_t>(port);
  }
  if (!path.empty())
    if (std::string e = parse_db(path, out.db); !e.empty()) return e;
  return "";
}

}  // namespace ptc::store
