// Upstream MCP servers for a host's runs: programs call their tools with
//
//   (tool/call {:server "fs" :tool "read_text_file" :args {:path "/x"}})
//     => {:ok true :value v}  or  {:ok false :reason :timeout :message "..."}
//   (tool/servers)  and discovery: (dir "fs"), (doc "fs/x"), (meta "fs/x"), (apropos "x")
//
// The upstreams file is the one `ptc run --upstreams FILE` and `ptc mcp
// --upstreams FILE` read: {"upstreams": {NAME: {"transport": "mcp_stdio",
// "command", "args", "env", "cwd"} | {"transport": "mcp_http", "url", "auth",
// "static_headers", "headers"}}, "credentials": {NAME: {"source": "env",
// "var"} | {"source": "file", "path"}}} (protocol/upstream/README.md in the
// source tree). Credential values never reach programs, errors or the log.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ptc.hpp"

namespace ptc {

// Started upstream servers (child processes, HTTP sessions) with their frozen
// tool catalog. Thread-safe: any number of runs on any threads share them.
// They stop when the last shared_ptr goes.
class UpstreamServers;

struct UpstreamStart {
  // Null when the file is wrong, or when `required` and an upstream failed.
  std::shared_ptr<const UpstreamServers> servers;
  // What went wrong: the file ("u.json: upstreams.fs.command: missing ..."),
  // or one line per upstream that did not start (then unavailable to
  // programs unless `required`).
  std::vector<std::string> errors;
};

// Reads the upstreams file (or its JSON text) and starts every upstream in
// parallel: initialize, then tools/list. `log` gets the upstreams' stderr
// lines and client events, redacted; nullptr drops them.
UpstreamStart start_upstreams(const std::string& path, bool required = false,
                              std::function<void(std::string_view line)> log = {});
UpstreamStart start_upstreams_from_json(std::string_view json, bool required = false,
                                        std::function<void(std::string_view line)> log = {});

// Gives one run the upstreams: tool/call and tool/servers in options.tools
// (usable as functions, in pmap too), the catalog for discovery, and a fresh
// per-run cap of `max_calls_per_program` calls and read-only cache. Call it
// for each run's options (a Session's options once per eval). A host tool
// already named call or servers is refused: throws ptc::LispError
// (args_error) naming it.
void attach_upstreams(RunOptions& options, const std::shared_ptr<const UpstreamServers>& servers,
                      uint32_t max_calls_per_program = 50);

}  // namespace ptc
