// The upstreams file: parsing, strict validation with key paths, credentials
// from the environment and files, and redaction.
#include "protocol/upstream/config.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace ptc::upstream {
namespace {

const char* fake_env(const char* name) {
  if (std::strcmp(name, "GH_PAT") == 0) return "ghp_secret_value_123";
  if (std::strcmp(name, "HOME") == 0) return "/home/someone";
  if (std::strcmp(name, "SHORT") == 0) return "ab";
  return nullptr;
}

std::string parse(const std::string& json, UpstreamsConfig* out = nullptr) {
  UpstreamsConfig local;
  return parse_upstreams(json, "u.json", out ? *out : local, fake_env);
}

// Parses {"credentials": {NAME: {"source": "file", "path": P}}, "upstreams":
// UPSTREAMS} with P a scratch file holding `secret`, removed afterwards.
std::string parse_with_file_credential(const std::string& name, const std::string& secret,
                                       const std::string& upstreams, UpstreamsConfig* out) {
  std::string path = ::testing::TempDir() + "/ptc_upstream_" + name + ".txt";
  {
    std::ofstream f(path);
    f << secret;
  }
  std::string err = parse(R"({"credentials": {")" + name + R"(": {"source": "file", "path": ")" +
                              path + R"("}}, "upstreams": )" + upstreams + "}",
                          out);
  std::remove(path.c_str());
  return err;
}

TEST(UpstreamConfig, ParsesAStdioUpstreamWithExpandedEnvAndCredentials) {
  UpstreamsConfig c;
  std::string err = parse(R"({
    "credentials": {"gh": {"source": "env", "var": "GH_PAT"}},
    "upstreams": {"fs": {"transport": "mcp_stdio", "command": "node",
                         "args": ["server.js", "${HOME}/files"],
                         "env": {"TOKEN": "Bearer ${credential:gh}"},
                         "cwd": "/tmp", "description": "files", "timeout_ms": 750,
                         "max_response_bytes": 1000, "read_only_tools": ["read"]}}})",
                          &c);
  ASSERT_EQ(err, "");
  ASSERT_EQ(c.upstreams.count("fs"), 1u);
  const UpstreamConfig& fs = c.upstreams.at("fs");
  EXPECT_EQ(fs.command, "node");
  EXPECT_EQ(fs.args, (std::vector<std::string>{"server.js", "/home/someone/files"}));
  ASSERT_EQ(fs.env.size(), 1u);
  EXPECT_EQ(fs.env[0].second, "Bearer ghp_secret_value_123");
  EXPECT_EQ(fs.cwd, "/tmp");
  EXPECT_EQ(fs.timeout_ms, 750u);
  EXPECT_EQ(fs.max_response_bytes, 1000u);
  EXPECT_EQ(fs.read_only_tools, std::vector<std::string>{"read"});
  EXPECT_EQ(c.redactor.redact("token=ghp_secret_value_123;"), "token=[REDACTED];");
}

TEST(UpstreamConfig, ParsesAnHttpUpstreamWithCredentialHeaders) {
  UpstreamsConfig c;
  ASSERT_EQ(parse(R"({"credentials": {"gh": {"source": "env", "var": "GH_PAT"}},
    "upstreams": {"web": {"transport": "mcp_http", "url": "http://127.0.0.1:3001/mcp",
                          "headers": {"Authorization": "Bearer ${credential:gh}"}}}})",
                  &c),
            "");
  const UpstreamConfig& web = c.upstreams.at("web");
  EXPECT_EQ(web.url, "http://127.0.0.1:3001/mcp");
  ASSERT_EQ(web.headers.size(), 1u);
  EXPECT_EQ(web.headers[0].second, "Bearer ghp_secret_value_123");
  EXPECT_EQ(c.redactor.redact(web.headers[0].second), "Bearer [REDACTED]");
}

// Every loopback form is loopback: plain http to it needs no allow_insecure_http.
TEST(UpstreamConfig, PlainHttpToAnyLoopbackAddressIsAllowed) {
  for (const char* url : {"http://[::1]:3001/mcp", "http://localhost/mcp", "http://127.0.0.2:9/"}) {
    UpstreamsConfig c;
    std::string text =
        std::string(R"({"upstreams": {"a": {"transport": "mcp_http", "url": ")") + url + R"("}}})";
    EXPECT_EQ(parse(text, &c), "") << url;
  }
}

TEST(UpstreamConfig, DefaultsAreTheIssues) {
  UpstreamsConfig c;
  ASSERT_EQ(parse(R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x"}}})", &c), "");
  EXPECT_EQ(c.upstreams.at("a").timeout_ms, 5000u);
  EXPECT_EQ(c.upstreams.at("a").max_response_bytes, size_t{2} << 20);
  EXPECT_EQ(c.upstreams.at("a").protocol, "auto");
}

TEST(UpstreamConfig, ProtocolPicksTheNegotiation) {
  for (const char* p : {"auto", "legacy", "2026-07-28"}) {
    UpstreamsConfig c;
    ASSERT_EQ(parse(fmt::format(R"({{"upstreams": {{"a": {{"transport": "mcp_stdio", "command": "x",
                                   "protocol": "{}"}}}}}})",
                                p),
                    &c),
              "");
    EXPECT_EQ(c.upstreams.at("a").protocol, p);
  }
}

TEST(UpstreamConfig, CredentialFromAFileIsTrimmed) {
  UpstreamsConfig c;
  std::string err = parse_with_file_credential(
      "k", "file-secret-42\n",
      R"({"a": {"transport": "mcp_stdio", "command": "x", "env": {"K": "${credential:k}"}}})", &c);
  ASSERT_EQ(err, "");
  EXPECT_EQ(c.upstreams.at("a").env[0].second, "file-secret-42");
  EXPECT_EQ(c.redactor.redact("file-secret-42"), "[REDACTED]");
}

// A secret file is read whole: a device, a directory or a huge file is an
// error that says so (reading /dev/zero would never end).
TEST(UpstreamConfig, CredentialFileMustBeASmallRegularFile) {
  auto with_path = [](const std::string& path) {
    return parse(R"({"credentials": {"k": {"source": "file", "path": ")" + path +
                 R"("}}, "upstreams": {}})");
  };
  EXPECT_NE(with_path("/dev/zero").find("not a regular file"), std::string::npos);
  EXPECT_NE(with_path(::testing::TempDir()).find("not a regular file"), std::string::npos);
  EXPECT_NE(with_path("/nonexistent/x").find("no such file"), std::string::npos);
  std::string big = ::testing::TempDir() + "/ptc_upstream_big_secret.txt";
  {
    std::ofstream f(big);
    f << std::string(64 * 1024 + 1, 'x');
  }
  std::string err = with_path(big);
  std::remove(big.c_str());
  EXPECT_NE(err.find("larger than 65536 bytes"), std::string::npos) << err;
  EXPECT_EQ(err.find("xxxx"), std::string::npos) << "the content must not be in the error";
}

TEST(UpstreamConfig, UpstreamsFileMustBeARegularFile) {
  UpstreamsConfig c;
  EXPECT_NE(load_upstreams("/dev/zero", c).find("not a regular file"), std::string::npos);
  EXPECT_NE(load_upstreams("/nonexistent/u.json", c).find("no such file"), std::string::npos);
}

// The reference's auth emitters: a header from a declared credential, the
// value redacted (basic: its base64 form too).
TEST(UpstreamConfig, AuthEmittersBuildHeadersFromCredentials) {
  UpstreamsConfig c;
  std::string err = parse(R"({"credentials": {"gh": {"source": "env", "var": "GH_PAT"}},
    "upstreams": {"a": {"transport": "mcp_http", "url": "http://127.0.0.1:9/mcp",
      "auth": [{"scheme": "bearer", "binding": "gh"},
               {"scheme": "custom_header", "binding": "gh", "header": "X-Token"}],
      "static_headers": {"X-MCP-Readonly": "true"}}}})",
                          &c);
  ASSERT_EQ(err, "");
  const auto& h = c.upstreams.at("a").headers;
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0], (std::pair<std::string, std::string>{"X-MCP-Readonly", "true"}));
  EXPECT_EQ(h[1],
            (std::pair<std::string, std::string>{"Authorization", "Bearer ghp_secret_value_123"}));
  EXPECT_EQ(h[2], (std::pair<std::string, std::string>{"X-Token", "ghp_secret_value_123"}));

  UpstreamsConfig b;
  err = parse_with_file_credential("u", "ada:open-sesame\n", R"({"a": {"transport": "mcp_http",
      "url": "http://localhost:9/mcp", "auth": [{"scheme": "basic", "binding": "u"}]}})",
                                   &b);
  ASSERT_EQ(err, "");
  EXPECT_EQ(b.upstreams.at("a").headers[0].second, "Basic YWRhOm9wZW4tc2VzYW1l");
  EXPECT_EQ(b.redactor.redact("sent Basic YWRhOm9wZW4tc2VzYW1l"), "sent Basic [REDACTED]");
}

TEST(UpstreamConfig, AuthMistakesSayWhereAndWhat) {
  const char* creds = R"("credentials": {"gh": {"source": "env", "var": "GH_PAT"}})";
  auto http = [&](const std::string& rest) {
    return parse(std::string("{") + creds + R"(, "upstreams": {"a": {"transport": "mcp_http", )" +
                 rest + "}}}");
  };
  std::string err =
      http(R"("url": "http://127.0.0.1:9/mcp", "auth": [{"scheme": "hmac", "binding": "gh"}])");
  EXPECT_NE(err.find("upstreams.a.auth[0].scheme: unknown scheme \"hmac\""), std::string::npos)
      << err;
  err =
      http(R"("url": "http://127.0.0.1:9/mcp", "auth": [{"scheme": "bearer", "binding": "nope"}])");
  EXPECT_NE(err.find("upstreams.a.auth[0].binding: unknown credential \"nope\""), std::string::npos)
      << err;
  err =
      http(R"("url": "http://127.0.0.1:9/mcp", "auth": [{"scheme": "api_key", "binding": "gh"}])");
  EXPECT_NE(err.find("upstreams.a.auth[0].header"), std::string::npos) << err;
  err = http(R"("url": "http://127.0.0.1:9/mcp", "static_headers": {"Authorization": "x"})");
  EXPECT_NE(err.find("a credential header among static_headers"), std::string::npos) << err;
  err = http(R"("url": "http://10.0.0.2/mcp", "allow_insecure_http": true,
                "auth": [{"scheme": "bearer", "binding": "gh"}])");
  EXPECT_NE(err.find("credentials over plain http beyond loopback"), std::string::npos) << err;
  err = http(
      R"("url": "http://10.0.0.2/mcp", "allow_insecure_http": true, "allow_insecure_auth": true,
                "auth": [{"scheme": "bearer", "binding": "gh"}])");
  EXPECT_EQ(err, "");
  EXPECT_EQ(err.find("ghp_secret"), std::string::npos);
}

// https anywhere, credentials with it; the system's CAs unless ca_file.
TEST(UpstreamConfig, HttpsUpstreamsTakeCredentialsAnywhere) {
  UpstreamsConfig c;
  ASSERT_EQ(parse(R"({"credentials": {"gh": {"source": "env", "var": "GH_PAT"}},
    "upstreams": {"a": {"transport": "mcp_http", "url": "https://mcp.example.com/mcp",
                        "auth": [{"scheme": "bearer", "binding": "gh"}]},
                  "b": {"transport": "mcp_http", "url": "https://10.0.0.9:8443/", "ca_file": "/etc/hostname"}}})",
                  &c),
            "");
  EXPECT_EQ(c.upstreams.at("a").ca_file, "");
  EXPECT_EQ(c.upstreams.at("b").ca_file, "/etc/hostname");
}

TEST(UpstreamConfig, CdIsTheReferencesNameForCwd) {
  UpstreamsConfig c;
  ASSERT_EQ(
      parse(R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x", "cd": "/tmp"}}})",
            &c),
      "");
  EXPECT_EQ(c.upstreams.at("a").cwd, "/tmp");
  EXPECT_NE(
      parse(
          R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x", "cd": "/a", "cwd": "/b"}}})")
          .find("both cwd and cd"),
      std::string::npos);
}

struct BadCase {
  const char* json;
  const char* error;  // a substring of the error
};

TEST(UpstreamConfig, RefusesMistakesSayingWhereAndWhat) {
  const BadCase cases[] = {
      {"[1]", "u.json: (top level): must be an object"},
      {"{", "u.json: not JSON"},
      {R"({"upstreams": {}, "extra": 1})",
       "(top level).extra: unknown key (known: upstreams, credentials)"},
      {R"({})", "upstreams: missing"},
      {R"({"upstreams": []})", "upstreams: must be an object keyed by server name, not an array"},
      {R"({"upstreams": {"a": {"command": "x"}}})", "upstreams.a.transport: missing"},
      {R"({"upstreams": {"a": {"transport": "stdio", "command": "x"}}})",
       "upstreams.a.transport: unknown transport \"stdio\""},
      {R"({"upstreams": {"a": {"transport": "mcp_http", "url": "ftp://x"}}})",
       "upstreams.a.url: must start with https:// or http://"},
      {R"({"upstreams": {"a": {"transport": "mcp_http", "url": "https:///mcp"}}})",
       "upstreams.a.url: no host"},
      {R"({"upstreams": {"a": {"transport": "mcp_http", "url": "http://127.0.0.1:1/", "ca_file": "/etc/hostname"}}})",
       "upstreams.a.ca_file: only for an https url"},
      {R"({"upstreams": {"a": {"transport": "mcp_http", "url": "https://x.example", "ca_file": "/nonexistent.pem"}}})",
       "upstreams.a.ca_file: cannot read /nonexistent.pem"},
      {R"({"upstreams": {"a": {"transport": "mcp_http", "url": "http://10.1.2.3/mcp"}}})",
       "upstreams.a.url: plain http beyond loopback (use https"},
      {R"({"upstreams": {"a": {"transport": "mcp_http", "url": "http://example.com/mcp"}}})",
       "upstreams.a.url: plain http beyond loopback (use https, or set allow_insecure_http to "
       "true)"},
      {R"({"upstreams": {"a": {"transport": "mcp_http", "url": "http://127.0.0.1:1/mcp",
                               "headers": {"X": 1}}}})",
       "upstreams.a.headers.X: must be a string, not a number"},
      {R"({"upstreams": {"a": {"transport": "mcp_http"}}})", "upstreams.a.url: missing"},
      {R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x", "protocol": "2025"}}})",
       "upstreams.a.protocol: unknown protocol (\"auto\" (the default), \"legacy\" (2025 "
       "handshake only) or \"2026-07-28\")"},
      {R"({"upstreams": {"a": {"transport": "mcp_http", "url": "http://localhost/", "command": "x"}}})",
       "upstreams.a.command: unknown key"},
      {R"({"upstreams": {"a": {"transport": "mcp_stdio"}}})", "upstreams.a.command: missing"},
      {R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x", "chdir": "/"}}})",
       "upstreams.a.chdir: unknown key"},
      {R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x", "args": ["ok", 2]}}})",
       "upstreams.a.args[1]: must be a string, not a number"},
      {R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x", "env": {"V": "${NOPE}"}}}})",
       "upstreams.a.env.V: environment variable NOPE is not set"},
      {R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x", "env": {"V": "${credential:z}"}}}})",
       "upstreams.a.env.V: unknown credential \"z\""},
      {R"({"upstreams": {"a": {"transport": "mcp_stdio", "command": "x", "timeout_ms": 0}}})",
       "upstreams.a.timeout_ms: must be a whole number from 1 to 600000"},
      {R"({"upstreams": {"a/b": {"transport": "mcp_stdio", "command": "x"}}})",
       "upstreams.a/b: bad server name"},
      {R"({"credentials": {"c": {"source": "env", "var": "UNSET"}}, "upstreams": {}})",
       "credentials.c.var: environment variable UNSET is not set"},
      {R"({"credentials": {"c": {"source": "literal", "value": "x"}}, "upstreams": {}})",
       "credentials.c.value: unknown key"},
      {R"({"credentials": {"c": {"source": "vault"}}, "upstreams": {}})",
       "credentials.c.source: unknown source \"vault\""},
      {R"({"credentials": {"c": {"source": "env", "var": "SHORT"}}, "upstreams": {}})",
       "credentials.c: the secret is shorter than 4 characters"},
      {R"({"credentials": {"c": {"source": "file", "path": "/nonexistent/x"}}, "upstreams": {}})",
       "credentials.c.path: cannot read /nonexistent/x"},
  };
  for (const BadCase& c : cases) {
    std::string err = parse(c.json);
    EXPECT_NE(err.find(c.error), std::string::npos) << c.json << "\n  gave: " << err;
  }
}

TEST(UpstreamConfig, ErrorsNeverCarryASecret) {
  std::string err = parse(R"({"credentials": {"gh": {"source": "env", "var": "GH_PAT"}},
    "upstreams": {"a": {"transport": "mcp_stdio", "command": "x",
                        "env": {"A": "${credential:gh}", "B": "${credential:other}"}}}})");
  EXPECT_NE(err, "");
  EXPECT_EQ(err.find("ghp_secret"), std::string::npos) << err;
}

TEST(Redactor, ReplacesEveryOccurrenceLongestFirst) {
  Redactor r;
  r.add("abcd");
  r.add("abcdefgh");
  EXPECT_EQ(r.redact("x abcdefgh y abcd z abcdabcd"),
            "x [REDACTED] y [REDACTED] z [REDACTED][REDACTED]");
  EXPECT_EQ(r.redact("nothing here"), "nothing here");
  Redactor empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.redact("abcd"), "abcd");
}

TEST(Redactor, ASecretContainingTheMarkerDoesNotLoop) {
  Redactor r;
  r.add("[REDACTED]x");
  EXPECT_EQ(r.redact("a[REDACTED]xb"), "a[REDACTED]b");
}

}  // namespace
}  // namespace ptc::upstream
