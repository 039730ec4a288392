// The upstreams file (--upstreams FILE, PTC_MCP_UPSTREAMS): which MCP servers
// programs may call, how to start them, and the credentials they get.
//
//   {"credentials": {"gh": {"source": "env", "var": "GITHUB_PAT"},
//                    "k":  {"source": "file", "path": "/run/secrets/k"}},
//    "upstreams": {"web": {"transport": "mcp_http", "url": "http://127.0.0.1:3001/mcp",
//                          "headers": {"Authorization": "Bearer ${credential:gh}"}},
//                  "fs": {"transport": "mcp_stdio", "command": "node",
//                         "args": ["server.js", "/tmp/x"],
//                         "env": {"TOKEN": "${credential:gh}", "HOME": "${HOME}"},
//                         "cwd": "/tmp", "timeout_ms": 5000,
//                         "max_response_bytes": 2097152, "read_only_tools": ["read"],
//                         "approval": ["write_*", "delete_*"]}}}
//
// Every credential value is a secret: Redactor replaces it with [REDACTED] in
// any text that leaves (logs, errors, values programs see).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ptc::upstream {

// Replaces secrets in text. Secrets shorter than kMinSecret are refused by the
// config (they would redact ordinary text).
class Redactor {
 public:
  static constexpr size_t kMinSecret = 4;
  void add(std::string secret);
  std::string redact(std::string_view text) const;
  bool empty() const { return secrets_.empty(); }

 private:
  std::vector<std::string> secrets_;  // longest first
};

struct UpstreamConfig {
  std::string name;
  std::string transport;  // "mcp_stdio" | "mcp_http"
  // mcp_http: an https:// URL, or http:// (beyond loopback only with
  // allow_insecure_http), and headers sent with every request (expanded).
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  bool allow_insecure_http = false;
  std::string ca_file;  // https: the CA certificates to trust instead of the system's
  // mcp_stdio:
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // expanded
  std::string cwd;
  std::string description;
  uint32_t timeout_ms = 5000;             // per call
  uint32_t handshake_timeout_ms = 10000;  // initialize + tools/list
  // Which MCP revision to speak, as the official client's negotiation modes:
  // "auto" (server/discover first, 2026-07-28 when offered, else the 2025
  // handshake), "legacy" (the 2025 handshake only), "2026-07-28" (pinned).
  std::string protocol = "auto";
  size_t max_response_bytes = size_t{2} << 20;  // per reply, before decoding
  std::vector<std::string> read_only_tools;     // answered from the run's cache, like readOnlyHint
  // Tools whose every call a person approves first, as glob patterns on
  // their names ("write_*"; "always" in the file is "*").
  std::vector<std::string> approval;
};

struct UpstreamsConfig {
  std::map<std::string, UpstreamConfig> upstreams;
  Redactor redactor;
};

// Reads the JSON text of an upstreams file. `file` names it in errors, which
// say where (a key path like upstreams.fs.args[2]), what is wrong and what
// to do. `getenv` reads the environment (tests pass their own).
// Returns "" on success, else the error (credential values never in it).
using EnvLookup = const char* (*)(const char*);
std::string parse_upstreams(std::string_view json, std::string_view file, UpstreamsConfig& out,
                            EnvLookup getenv_fn = nullptr);
// Reads and parses the file at `path`.
std::string load_upstreams(const std::string& path, UpstreamsConfig& out);

}  // namespace ptc::upstream
