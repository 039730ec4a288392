// https against a loopback server presenting a certificate made for the
// test: trusted through ca_file (by IP address and by DNS name), untrusted
// without it, refused when it names another host.
#include <gtest/gtest.h>

#include "protocol/net/http_client.hpp"
#include "tests/net/loopback_server.hpp"
#include "tests/net/test_certificate.hpp"

namespace ptc::net {
namespace {

using testing::Answer;
using testing::http_reply;
using testing::LoopbackServer;
using testing::SeenRequest;
using testing::TestCertificate;
using Outcome = HttpResponse::Outcome;

HttpRequest post(std::string body) {
  HttpRequest request;
  request.body = std::move(body);
  request.deadline = Clock::now() + std::chrono::seconds(10);
  return request;
}

Answer echo(const SeenRequest& r) {
  return {http_reply("over tls: " + r.body)};
}

TEST(HttpClientTls, ACertificateTrustedThroughTheCaFileIsAccepted) {
  TestCertificate certificate("IP:127.0.0.1,DNS:localhost");
  LoopbackServer server(echo, certificate.server_context());
  HttpOptions options;
  options.ca_file = certificate.ca_file();
  HttpClient by_address(server.url("/mcp"), options);
  ASSERT_EQ(by_address.setup_error(), "");
  HttpResponse first = by_address.send(post("one"));
  ASSERT_EQ(first.outcome, Outcome::Ok) << first.error;
  EXPECT_EQ(first.body, "over tls: one");
  EXPECT_EQ(by_address.send(post("two")).body, "over tls: two");
  EXPECT_EQ(server.connections(), 1u);  // the TLS session was kept alive
  HttpClient by_name(server.url("/mcp", "localhost"), options);
  HttpResponse named = by_name.send(post("three"));
  ASSERT_EQ(named.outcome, Outcome::Ok) << named.error;
  EXPECT_EQ(named.body, "over tls: three");
}

TEST(HttpClientTls, ASelfSignedCertificateIsNotTrustedByTheSystem) {
  TestCertificate certificate("IP:127.0.0.1,DNS:localhost");
  LoopbackServer server(echo, certificate.server_context());
  HttpClient client(server.url("/mcp"), {});
  HttpResponse response = client.send(post("x"));
  EXPECT_EQ(response.outcome, Outcome::Failed);
  EXPECT_FALSE(response.sent);
  EXPECT_NE(response.error.find("TLS: the certificate of 127.0.0.1 is not trusted ("),
            std::string::npos)
      << response.error;
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(HttpClientTls, ACertificateForAnotherNameIsRefused) {
  TestCertificate certificate("DNS:other.example");
  LoopbackServer server(echo, certificate.server_context());
  HttpOptions options;
  options.ca_file = certificate.ca_file();
  HttpClient client(server.url("/mcp"), options);
  HttpResponse response = client.send(post("x"));
  EXPECT_EQ(response.outcome, Outcome::Failed);
  EXPECT_NE(response.error.find("not trusted"), std::string::npos) << response.error;
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(HttpClientTls, AnUnreadableCaFileRefusesEveryRequest) {
  HttpOptions options;
  options.ca_file = "/nonexistent/ca.pem";
  HttpClient client("https://127.0.0.1:1/", options);
  EXPECT_NE(client.setup_error().find("cannot load the CA file /nonexistent/ca.pem"),
            std::string::npos);
  EXPECT_EQ(client.send(post("x")).outcome, Outcome::Refused);
}

}  // namespace
}  // namespace ptc::net
