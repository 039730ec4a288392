// Every setting of the MCP server (ptc mcp): a flag, an environment variable
// PTC_MCP_<NAME> (upper snake case of the flag), and a default. The flag wins
// over the environment. parse_config reads both and checks every value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptc {
struct RunOptions;
class Isolation;
}  // namespace ptc

namespace ptc::mcp {

struct SharedStore;

enum class ResponseProfile { Slim, Structured, Debug };
enum class LogLevel { Debug, Info, Warning, Error };

struct ServerConfig {
  // Limits checked before a call takes a slot.
  size_t max_frame_bytes = 8 << 20;     // --max-frame-bytes: one stdio line or HTTP body
  size_t max_program_bytes = 64 << 10;  // --max-program-bytes
  size_t max_context_bytes = 4 << 20;   // --max-context-bytes (the context as JSON)
  uint32_t max_concurrent_calls = 0;    // --max-concurrent-calls; 0 = min(8, cores)
  // Each program's limits.
  uint32_t program_timeout_ms = 1000;                        // --program-timeout-ms
  size_t program_memory_limit_bytes = 10 << 20;              // --program-memory-limit-bytes
  ResponseProfile response_profile = ResponseProfile::Slim;  // --response-profile
  LogLevel log_level = LogLevel::Info;                       // --log-level
  // Sessions (--sessions): the lisp_session_* tools beside lisp_eval.
  bool sessions = false;
  uint32_t max_sessions = 64;                 // --max-sessions
  uint32_t max_sessions_per_owner = 16;       // --max-sessions-per-owner
  uint64_t session_ttl_ms = 1800000;          // --session-ttl-ms
  uint64_t session_idle_timeout_ms = 900000;  // --session-idle-timeout-ms
  size_t max_session_memory_bytes = 1 << 20;  // --max-session-memory-bytes
  uint32_t max_session_bindings = 200;        // --max-session-bindings
  // Tasks (revision 2026-07-28, extension io.modelcontextprotocol/tasks).
  uint32_t task_after_ms = 500;   // --task-after-ms: a call still running then becomes a task
  uint64_t task_ttl_ms = 600000;  // --task-ttl-ms: how long a task is kept from its creation
  uint32_t max_tasks = 1024;      // --max-tasks: tasks kept at once
  // The store replicas share (--store; with --http only): sessions and tasks
  // live there, so any replica answers. Empty: in this process (the default).
  std::string store;                // --store redis://HOST:PORT[/DB] | unix:///PATH.sock[?db=N]
  std::string store_key_file;       // --store-key-file: the HMAC key of every record (required)
  std::string store_password_file;  // --store-password-file: the store's password (else the URL's)
  uint32_t task_lease_ms =
      5000;  // --task-lease-ms: a task whose runner stops renewing this long is lost
  // Streamable HTTP (--http); stdio otherwise.
  bool http = false;
  std::string http_host = "127.0.0.1";  // --http-host
  uint16_t http_port = 7332;            // --http-port (0: any free port, printed on stderr)
  std::string http_path = "/mcp";       // --http-path
  std::string http_auth_token;          // --http-auth-token (at least 32 characters)
  std::vector<std::string>
      http_allowed_origins;                 // --http-allowed-origin (repeatable, or a comma list)
  bool http_allow_unsafe_network = false;   // --http-allow-unsafe-network: bind beyond loopback
  size_t http_max_body_bytes = 0;           // --http-max-body-bytes; 0 = max_frame_bytes
  uint32_t http_request_timeout_ms = 0;     // --http-request-timeout-ms; 0 = program timeout + 1 s
  uint32_t http_shutdown_grace_ms = 10000;  // --http-shutdown-grace-ms
  uint32_t http_max_sessions = 256;         // --http-max-sessions
  uint32_t http_max_connections = 4096;     // --http-max-connections (open at once, in total)
  uint32_t http_max_connections_per_peer = 256;    // --http-max-connections-per-peer (per address)
  uint32_t http_header_timeout_ms = 5000;          // --http-header-timeout-ms
  uint32_t http_max_in_flight_per_session = 4;     // --http-max-in-flight-per-session
  uint64_t http_session_idle_timeout_ms = 900000;  // --http-session-idle-timeout-ms
  // Isolation: programs run in jailed worker processes (ptc::WorkerPool).
  uint32_t isolate = 0;  // --isolate N: that many workers; 0 = in this process
  uint32_t isolate_max_runs =
      1000;  // --isolate-max-runs: runs a worker takes before it is replaced
  // Set by the host once the pool runs: what eval_run_options gives each run.
  std::shared_ptr<Isolation> isolation;
  // Upstream MCP servers programs call with (tool/call ...).
  std::string upstreams;              // --upstreams: the upstreams file
  bool upstream_required = false;     // --upstream-required: one that fails aborts start
  uint32_t max_upstream_calls = 50;   // --max-upstream-calls: per program
  std::string catalog_mode = "auto";  // --catalog-mode: auto | inline | lazy
  // Set by the host once the upstreams run: gives a run its upstream tools,
  // and the catalog text appended to lisp_eval's description.
  std::function<void(RunOptions&)> attach_upstreams;
  std::string upstream_catalog;
  // Set by the host once --store is open (open_shared_store).
  std::shared_ptr<SharedStore> shared_store;
};

// Parses flags (args, without the "mcp" command) over the environment
// (`env`, e.g. from environ) over the defaults. Returns an error message that
// names the flag or variable and what is wrong, or "" on success.
std::string parse_config(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env, ServerConfig& out);

// The --help text: every flag, its variable and its default.
std::string config_help();

// The effective concurrency cap: max_concurrent_calls, or min(8, cores).
uint32_t effective_max_concurrent_calls(const ServerConfig& c);

}  // namespace ptc::mcp
