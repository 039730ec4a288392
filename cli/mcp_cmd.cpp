// ptc mcp: the MCP server over stdio (default) or Streamable HTTP (--http).
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <map>
#include <memory>
#include <thread>

#include "cli/cli.hpp"
#include "protocol/mcp/config.hpp"
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/server.hpp"
#include "protocol/mcp/shared_store.hpp"
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
  std::shared_ptr<upstream::Upstreams> upstreams;
  if (!config.upstreams.empty()) {
    upstream::UpstreamsConfig uc;
    if (std::string error = upstream::load_upstreams(config.upstreams, uc); !error.empty()) {
      fmt::print(stderr, "ptc mcp: {}\n", error);
      return kExitUsage;
    }
    // Upstream stderr lines (already redacted) become log lines.
    auto log = [](std::string_view line) {
      mcp::log(mcp::LogLevel::Info, "upstream_stderr",
               {{"line", HostValue::string(std::string(line))}});
    };
    std::vector<std::string> errors;
    upstreams = upstream::Upstreams::start(std::move(uc), config.upstream_required, log, &errors);
    for (const std::string& e : errors)
      mcp::log(mcp::LogLevel::Error, "upstream_failed", {{"error", HostValue::string(e)}});
    if (!upstreams) {
      fmt::print(stderr, "ptc mcp: {}\n",
                 errors.empty() ? "the upstreams did not start" : errors[0]);
      return kExitUsage;
    }
    upstream::UpstreamLimits limits;
    limits.max_calls_per_program = config.max_upstream_calls;
    config.attach_upstreams = [upstreams, limits](RunOptions& o) {
      upstream::attach(o, upstreams, limits);
    };
    config.upstream_catalog = upstream::catalog_description(*upstreams, config.catalog_mode);
  }
  if (!config.store.empty()) {
    if (std::string error = mcp::open_shared_store(config, config.shared_store); !error.empty()) {
      fmt::print(stderr, "ptc mcp: {}\n", error);
      return kExitUsage;
    }
  }
  if (config.isolate > 0) {
    WorkerPoolOptions pool;
    pool.workers = config.isolate;
    pool.max_runs = config.isolate_max_runs;
    pool.max_heap_bytes = std::max(pool.max_heap_bytes, config.program_memory_limit_bytes);
    try {
      auto workers = std::make_shared<WorkerPool>(pool);
      mcp::log(mcp::LogLevel::Info, "isolation",
               {{"workers", HostValue::integer(config.isolate)},
                {"worker", HostValue::string(workers->worker_path())}});
      config.isolation = std::move(workers);
    } catch (const LispError& e) {
      fmt::print(stderr, "ptc mcp: --isolate: {}\n", format_error(e.error()));
      return kExitUsage;
    }
  }
  // Shared with the signal thread, which may still hold it at exit.
  std::shared_ptr<mcp::Server> server = mcp::make_server(config);
  if (config.http) return mcp::serve_http(*server);
  // stdio: SIGTERM and SIGINT drain: new calls are refused with
  // shutting_down, running ones may finish, and serve_stdio returns once
  // stdin is quiet and nothing runs. If that takes longer than the grace,
  // the process ends anyway. The signals are taken by one thread with
  // sigwait, blocked everywhere else.
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGTERM);
  sigaddset(&stops, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stops, nullptr);
  std::thread([server, stops] {
    int sig = 0;
    sigwait(&stops, &sig);
    mcp::log(mcp::LogLevel::Info, "draining", {{"signal", HostValue::integer(sig)}});
    server->begin_drain();
    auto grace = std::chrono::milliseconds(server->config().http_shutdown_grace_ms);
    auto deadline = std::chrono::steady_clock::now() + grace + std::chrono::milliseconds(500);
    bool idle = server->wait_idle(grace);
    std::this_thread::sleep_until(deadline);  // serve_stdio normally ends first
    mcp::log(mcp::LogLevel::Info, "stopped", {{"drained", HostValue::boolean(idle)}});
    std::_Exit(0);  // replies already written; nothing is buffered
  }).detach();
  int status = mcp::serve_stdio(*server, STDIN_FILENO, STDOUT_FILENO);
  if (server->draining()) {  // the signal thread is still in the drain: end here
    mcp::log(mcp::LogLevel::Info, "stopped", {});
    std::_Exit(status);
  }
  return status;
}

}  // namespace ptc::cli
