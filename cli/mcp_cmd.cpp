// ptc mcp: the MCP server over stdio (default) or Streamable HTTP (--http).
#include <unistd.h>

#include <fmt/format.h>

#include <map>

#include "cli/cli.hpp"
#include "protocol/mcp/config.hpp"
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/server.hpp"
#include "protocol/mcp/transports.hpp"

extern char** environ;

namespace ptc::cli {

const char* mcp_help() {
  static const std::string text =
      "usage: ptc mcp [options]\n\n"
      "Serves the lisp_eval tool (and with --sessions the lisp_session_* tools) to MCP\n"
      "clients: over stdio by default (one JSON message per line; only MCP frames on\n"
      "stdout, JSON log lines on stderr), or over Streamable HTTP with --http.\n"
      "Every option is also an environment variable (shown under it); a flag wins.\n\n"
      "options:\n" +
      mcp::config_help();
  return text.c_str();
}

int cmd_mcp(std::vector<std::string> args) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string::npos && kv.starts_with("PTC_MCP_"))
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  mcp::ServerConfig config;
  if (std::string error = mcp::parse_config(args, env, config); !error.empty()) {
    fmt::print(stderr, "ptc mcp: {}\n", error);
    return kExitUsage;
  }
  mcp::set_log_level(config.log_level);
  std::unique_ptr<mcp::Server> server = mcp::make_server(config);
  if (config.http) return mcp::serve_http(*server);
  return mcp::serve_stdio(*server, STDIN_FILENO, STDOUT_FILENO);
}

}  // namespace ptc::cli
