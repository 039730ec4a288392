// The HTTP transport's request checks, one decision at a time: where it may
// listen, Host and Origin against DNS rebinding, the bearer token, the
// protocol-version and content-type headers, and JSON or SSE from Accept.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "protocol/mcp/http_guard.hpp"

namespace {

using namespace ptc::mcp;

const std::string kToken = "0123456789abcdef0123456789abcdef-token";

HttpGuardPolicy loopback(std::vector<std::string> origins = {}, std::string token = {}) {
  ServerConfig c;
  c.http_allowed_origins = std::move(origins);
  c.http_auth_token = std::move(token);
  return HttpGuardPolicy::from_config(c);
}

unsigned status(const std::optional<HttpRejection>& r) {
  return r ? r->status : 0;
}

TEST(HttpGuard, LoopbackHosts) {
  for (const char* h : {"127.0.0.1", "127.1.2.3", "localhost", "LocalHost", "::1", "[::1]"})
    EXPECT_TRUE(is_loopback_host(h)) << h;
  for (const char* h : {"0.0.0.0", "128.0.0.1", "127.0.0", "127.0.0.1.5", "127.0.0.256",
                        "localhost.evil.com", "evil.example.com", "::", "10.0.0.1", ""})
    EXPECT_FALSE(is_loopback_host(h)) << h;
}

TEST(HttpGuard, LoopbackAuthorities) {
  for (const char* a : {"127.0.0.1:7332", "localhost:1", "[::1]:7332", "[::1]", "localhost"})
    EXPECT_TRUE(is_loopback_authority(a)) << a;
  for (const char* a : {"evil.example.com", "evil.example.com:7332", "localhost:abc", "[::1]x",
                        "[::1", "127.0.0.1:80:80", "::1:7332"})
    EXPECT_FALSE(is_loopback_authority(a)) << a;
}

TEST(HttpGuard, HostOnALoopbackBind) {
  HttpGuardPolicy p = loopback();
  EXPECT_EQ(status(check_host(p, "127.0.0.1:7332")), 0u);
  EXPECT_EQ(status(check_host(p, "localhost")), 0u);
  EXPECT_EQ(status(check_host(p, "[::1]:9")), 0u);
  EXPECT_EQ(status(check_host(p, "evil.example.com")), 403u);
  EXPECT_EQ(status(check_host(p, "evil.example.com:7332")), 403u);
  EXPECT_EQ(status(check_host(p, std::nullopt)), 400u);
  EXPECT_EQ(status(check_host(p, "")), 400u);
}

TEST(HttpGuard, HostBeyondLoopbackIsNotChecked) {
  ServerConfig c;
  c.http_host = "0.0.0.0";
  c.http_allow_unsafe_network = true;
  c.http_auth_token = kToken;
  HttpGuardPolicy p = HttpGuardPolicy::from_config(c);
  EXPECT_FALSE(p.loopback_bind);
  EXPECT_EQ(status(check_host(p, "mcp.example.com")), 0u);
}

TEST(HttpGuard, OriginWithoutAList) {
  HttpGuardPolicy p = loopback();
  EXPECT_EQ(status(check_origin(p, std::nullopt)), 0u);
  EXPECT_EQ(status(check_origin(p, "http://127.0.0.1:7332")), 0u);
  EXPECT_EQ(status(check_origin(p, "https://localhost")), 0u);
  EXPECT_EQ(status(check_origin(p, "http://[::1]:3000")), 0u);
  EXPECT_EQ(status(check_origin(p, "HTTP://LOCALHOST:3000")), 0u);
  EXPECT_EQ(status(check_origin(p, "http://evil.example.com")), 403u);
  EXPECT_EQ(status(check_origin(p, "http://localhost.evil.example.com")), 403u);
  EXPECT_EQ(status(check_origin(p, "null")), 403u);
  EXPECT_EQ(status(check_origin(p, "file://localhost")), 403u);
  EXPECT_EQ(status(check_origin(p, "")), 403u);
}

TEST(HttpGuard, OriginWithAList) {
  HttpGuardPolicy p = loopback({"https://app.example.com/", " HTTP://Other.Example.com "});
  EXPECT_EQ(status(check_origin(p, "https://app.example.com")), 0u);
  EXPECT_EQ(status(check_origin(p, "http://other.example.com")), 0u);
  // The list replaces the loopback default.
  EXPECT_EQ(status(check_origin(p, "http://localhost:3000")), 403u);
  EXPECT_EQ(status(check_origin(p, "https://evil.example.com")), 403u);
  EXPECT_EQ(status(check_origin(p, "null")), 403u);
}

TEST(HttpGuard, NoTokenNoAuth) {
  HttpGuardPolicy p = loopback();
  EXPECT_EQ(p.owner, "loopback");
  EXPECT_EQ(status(check_auth(p, std::nullopt)), 0u);
  EXPECT_EQ(status(check_auth(p, "Bearer anything")), 0u);
}

TEST(HttpGuard, BearerToken) {
  HttpGuardPolicy p = loopback({}, kToken);
  EXPECT_NE(p.owner, "loopback");
  EXPECT_EQ(p.owner.find(kToken), std::string::npos);  // a digest, not the token
  EXPECT_EQ(status(check_auth(p, "Bearer " + kToken)), 0u);
  EXPECT_EQ(status(check_auth(p, "bearer  " + kToken + " ")), 0u);

  auto missing = check_auth(p, std::nullopt);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401u);
  EXPECT_EQ(missing->www_authenticate, "Bearer");
  auto basic = check_auth(p, "Basic dXNlcjpwYXNz");
  ASSERT_TRUE(basic);
  EXPECT_EQ(basic->www_authenticate, "Bearer");

  for (std::string wrong : {"Bearer " + kToken + "x", "Bearer " + kToken.substr(1),
                            std::string("Bearer "), "Bearer " + std::string(kToken.size(), 'a')}) {
    auto r = check_auth(p, wrong);
    ASSERT_TRUE(r) << wrong;
    EXPECT_EQ(r->status, 401u);
    if (wrong != "Bearer ") {
      EXPECT_EQ(r->www_authenticate, "Bearer error=\"invalid_token\"");
    }
  }
}

TEST(HttpGuard, ConstantTimeEqual) {
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "abcd"));
  EXPECT_FALSE(constant_time_equal("abcd", "abc"));
  EXPECT_FALSE(constant_time_equal("", "a"));
  EXPECT_FALSE(constant_time_equal(std::string("a\0b", 3), std::string("a\0c", 3)));
}

TEST(HttpGuard, ProtocolVersionHeader) {
  EXPECT_EQ(status(check_protocol_version(std::nullopt)), 0u);
  for (const char* v : {"2025-11-25", "2025-06-18", "2025-03-26"})
    EXPECT_EQ(status(check_protocol_version(v)), 0u) << v;
  EXPECT_EQ(status(check_protocol_version("2024-11-05")), 400u);
  EXPECT_EQ(status(check_protocol_version("1999-01-01")), 400u);
  EXPECT_EQ(status(check_protocol_version("")), 400u);
}

TEST(HttpGuard, ContentType) {
  EXPECT_EQ(status(check_content_type(std::nullopt)), 0u);
  EXPECT_EQ(status(check_content_type("application/json")), 0u);
  EXPECT_EQ(status(check_content_type("Application/JSON; charset=utf-8")), 0u);
  EXPECT_EQ(status(check_content_type("application/vnd.api+json")), 0u);
  EXPECT_EQ(status(check_content_type("text/plain")), 415u);
  EXPECT_EQ(status(check_content_type("application/x-www-form-urlencoded")), 415u);
  EXPECT_EQ(status(check_content_type("")), 415u);
}

TEST(HttpGuard, AcceptChoosesSseOnlyWhenJsonIsNotAccepted) {
  EXPECT_FALSE(wants_event_stream(std::nullopt));
  EXPECT_FALSE(wants_event_stream(""));
  EXPECT_FALSE(wants_event_stream("application/json, text/event-stream"));
  EXPECT_FALSE(wants_event_stream("*/*"));
  EXPECT_FALSE(wants_event_stream("text/event-stream, */*;q=0.1"));
  EXPECT_TRUE(wants_event_stream("text/event-stream"));
  EXPECT_TRUE(wants_event_stream("text/event-stream; charset=utf-8"));
  EXPECT_TRUE(wants_event_stream("text/event-stream, application/json;q=0"));
  EXPECT_FALSE(wants_event_stream("text/html"));
}

TEST(HttpGuard, StartupRules) {
  ServerConfig c;
  EXPECT_EQ(http_startup_error(c), "");

  ServerConfig wide = c;
  wide.http_host = "0.0.0.0";
  EXPECT_NE(http_startup_error(wide).find("--http-allow-unsafe-network"), std::string::npos);
  wide.http_allow_unsafe_network = true;
  EXPECT_NE(http_startup_error(wide).find("--http-auth-token"), std::string::npos);
  wide.http_auth_token = kToken;
  EXPECT_EQ(http_startup_error(wide), "");

  ServerConfig short_token = c;
  short_token.http_auth_token = "short";
  EXPECT_NE(http_startup_error(short_token).find("32"), std::string::npos);

  ServerConfig bad_path = c;
  bad_path.http_path = "mcp";
  EXPECT_NE(http_startup_error(bad_path), "");
  bad_path.http_path = "/health";
  EXPECT_NE(http_startup_error(bad_path), "");
}

}  // namespace
