// The upstream MCP servers of a host, started once and shared by every run
// they are attached to (thread-safe), and the tools a run gets from them:
//
//   (tool/call {:server "fs" :tool "read_text_file" :args {:path "/x"}})
//     => {:ok true :value v}  or  {:ok false :reason :timeout :message "..."}
//   (tool/servers)
//     => [{:name "fs" :description "..." :available true :tool_count 14 :tools [...]}]
//
// World faults (unavailable, upstream_error, tool_error, timeout,
// response_too_large, cap_exhausted) come back as {:ok false ...}; a
// programmer fault (unknown server or tool, :args not a map) fails the
// program with a message listing what exists. Calls to a tool marked
// read-only (annotations.readOnlyHint, or the config's read_only_tools) with
// equal canonical arguments are answered once per run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/upstream/config.hpp"
#include "protocol/upstream/stdio_client.hpp"

namespace ptc::upstream {

struct UpstreamLimits {
  uint32_t max_calls_per_program = 50;
};

class Upstreams {
 public:
  struct Server {
    std::string name;
    std::string description;
    bool available = false;
    std::string failure;  // why not available
    std::unique_ptr<UpstreamClient> client;
    std::map<std::string, HostValue> tools;  // the frozen catalog: tools/list entries by name
    std::vector<std::string> read_only;
    std::vector<std::string> approval;  // glob patterns of the tools a person approves
  };

  // Starts every upstream (in parallel) and reads its catalog. One that fails
  // is named in `errors`; with `required`, any failure makes start return
  // nullptr, else the server is kept as unavailable.
  static std::shared_ptr<Upstreams> start(UpstreamsConfig config, bool required, LogFn log,
                                          std::vector<std::string>* errors);
  ~Upstreams();

  const std::map<std::string, Server>& servers() const { return servers_; }
  const Redactor& redactor() const { return config_.redactor; }
  std::string redact(std::string_view s) const { return config_.redactor.redact(s); }

  // One tools/call; the {:ok ...} map. `programmer_error` is set (and the
  // value nil) for an unknown server or tool, or args that are not a map.
  HostValue call(const std::string& server, const std::string& tool, const HostValue& args,
                 Clock::time_point deadline, const std::function<bool()>& cancelled,
                 std::string* programmer_error) const;
  bool read_only(const std::string& server, const std::string& tool) const;
  // Whether a person approves each call of the tool (the config's approval
  // patterns).
  bool needs_approval(std::string_view server, std::string_view tool) const;
  // (tool/servers)
  HostValue describe_servers() const;
  // The frozen catalog, for (dir ...), (doc ...), (meta ...) and (apropos ...).
  const std::shared_ptr<const ToolCatalog>& catalog() const { return catalog_; }

 private:
  Upstreams() = default;
  UpstreamsConfig config_;
  std::map<std::string, Server> servers_;
  std::shared_ptr<const ToolCatalog> catalog_;
};

// Adds tool/call and tool/servers to `options.tools`, with a fresh per-run
// call counter and read-only cache, and the catalog to options.tool_catalog:
// call once per run. A tool/call of an upstream tool whose name matches its
// server's approval patterns waits for a person's approval
// (Tool::approval_when). Throws LispError (args_error) when a host tool of
// `options.tools` is named call or servers (host_tool_conflict says so).
void attach(RunOptions& options, std::shared_ptr<const Upstreams> upstreams,
            UpstreamLimits limits = {});

// "" or why `tools` cannot take the upstreams: a host tool named call or
// servers (ones attach made are fine: it replaces them).
std::string host_tool_conflict(const Tools& tools);

// What a model is told about the upstreams (appended to a tool description):
// mode "inline" lists every server and its tools, "lazy" only the servers and
// how to discover the rest, "auto" inline when at most 8 tools and 800
// characters.
std::string catalog_description(const Upstreams& upstreams, std::string_view mode);

// {:ok false :reason :<reason> :message "..."}
HostValue world_fault(std::string_view reason, std::string message);

}  // namespace ptc::upstream
