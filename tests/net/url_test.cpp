// The base URL of an HTTP client: scheme, host (IPv6 in brackets), default
// ports, the path without a trailing '/', and what is refused.
#include <gtest/gtest.h>

#include "protocol/net/http_client.hpp"

namespace ptc::net {
namespace {

Url parsed(std::string_view text) {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url(text, &url, &error)) << text << ": " << error;
  return url;
}

std::string refusal(std::string_view text) {
  Url url;
  std::string error;
  EXPECT_FALSE(parse_url(text, &url, &error)) << text;
  return error;
}

TEST(ParseUrl, HostPortAndPath) {
  Url local = parsed("http://127.0.0.1:3001/mcp");
  EXPECT_FALSE(local.tls);
  EXPECT_EQ(local.host, "127.0.0.1");
  EXPECT_EQ(local.port, "3001");
  EXPECT_EQ(local.path, "/mcp");
  Url api = parsed("https://api.openai.com/v1/");
  EXPECT_TRUE(api.tls);
  EXPECT_EQ(api.port, "443");
  EXPECT_EQ(api.path, "/v1");
  EXPECT_EQ(parsed("HTTP://Example.com").port, "80");
  EXPECT_EQ(parsed("HTTP://Example.com").path, "/");
  EXPECT_EQ(parsed("http://h/a//").path, "/a");
  EXPECT_EQ(parsed("http://h/").path, "/");
}

TEST(ParseUrl, Ipv6InBracketsQueryKeptFragmentDropped) {
  Url v6 = parsed("http://[::1]:8080/x/?y=1#part");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, "8080");
  EXPECT_EQ(v6.path, "/x?y=1");
  Url bare = parsed("https://[2001:db8::2]");
  EXPECT_EQ(bare.host, "2001:db8::2");
  EXPECT_EQ(bare.port, "443");
  EXPECT_EQ(bare.path, "/");
  EXPECT_EQ(parsed("http://h?q=1").path, "/?q=1");
}

TEST(ParseUrl, RefusesWhatItCannotSend) {
  EXPECT_EQ(refusal("ftp://h/"), "expected http:// or https://");
  EXPECT_EQ(refusal("127.0.0.1:80"), "expected http:// or https://");
  EXPECT_EQ(refusal("http:///x"), "no host");
  EXPECT_NE(refusal("http://[::1/x").find("']'"), std::string::npos);
  EXPECT_NE(refusal("http://[zz]/").find("IPv6"), std::string::npos);
  EXPECT_NE(refusal("http://::1:80/").find("brackets"), std::string::npos);
  EXPECT_NE(refusal("http://h:0/").find("port"), std::string::npos);
  EXPECT_NE(refusal("http://h:65536/").find("port"), std::string::npos);
  EXPECT_NE(refusal("http://h:/").find("port"), std::string::npos);
  EXPECT_NE(refusal("http://h:8o/").find("port"), std::string::npos);
  EXPECT_NE(refusal("http://user:pw@h/").find("credentials"), std::string::npos);
  EXPECT_NE(refusal("http://h/a b").find("path"), std::string::npos);
  EXPECT_NE(refusal("http://h/a\r\nX: 1").find("path"), std::string::npos);
  EXPECT_NE(refusal("http://ho\rst/").find("host"), std::string::npos);
}

TEST(IsLoopbackHost, LoopbackAddressesAndLocalhostOnly) {
  for (const char* host :
       {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LocalHost", "::ffff:127.0.0.1"})
    EXPECT_TRUE(is_loopback_host(host)) << host;
  for (const char* host : {"128.0.0.1", "10.0.0.1", "::2", "example.com", "localhost.example", ""})
    EXPECT_FALSE(is_loopback_host(host)) << host;
}

}  // namespace
}  // namespace ptc::net
