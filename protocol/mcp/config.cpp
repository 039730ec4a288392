// The server's settings as one table: flag, variable, default and help come
// from the same row, so --help, the environment and parsing cannot drift.
#include "protocol/mcp/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <thread>

#include "protocol/mcp/log.hpp"

namespace ptc::mcp {

namespace {

enum class Type { Flag, Uint, Text, List, Profile, Level };

struct Setting {
  const char* flag;  // without the leading --
  Type type;
  const char* help;
  // Where the value goes; `value` is the flag's argument (or "1"/"0" for flags).
  std::function<std::string(ServerConfig&, const std::string& value)> apply;
  std::function<std::string(const ServerConfig&)> shown;  // the default, for --help
};

std::string env_name(std::string_view flag) {
  std::string out = "PTC_MCP_";
  for (char c : flag)
    out.push_back(c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return out;
}

std::string parse_uint(const std::string& v, uint64_t max, uint64_t* out) {
  uint64_t n = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size())
    return fmt::format("\"{}\" is not a non-negative integer", v);
  if (n > max) return fmt::format("{} is more than {}", n, max);
  *out = n;
  return "";
}

std::string parse_bool(const std::string& v, bool* out) {
  std::string l = v;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  if (l == "1" || l == "true" || l == "yes" || l == "on") {
    *out = true;
  } else if (l == "0" || l == "false" || l == "no" || l == "off") {
    *out = false;
  } else {
    return fmt::format("\"{}\" is not a boolean (1/0, true/false, yes/no, on/off)", v);
  }
  return "";
}

template <class T>
Setting uint_setting(const char* flag, T ServerConfig::*field, const char* help,
                     uint64_t max = UINT32_MAX) {
  return {flag, Type::Uint, help,
          [field, max](ServerConfig& c, const std::string& v) {
            uint64_t n = 0;
            std::string e = parse_uint(v, max, &n);
            if (e.empty()) c.*field = static_cast<T>(n);
            return e;
          },
          [field](const ServerConfig& c) { return std::to_string(c.*field); }};
}

Setting bool_setting(const char* flag, bool ServerConfig::*field, const char* help) {
  return {flag, Type::Flag, help,
          [field](ServerConfig& c, const std::string& v) { return parse_bool(v, &(c.*field)); },
          [field](const ServerConfig& c) { return std::string(c.*field ? "on" : "off"); }};
}

Setting text_setting(const char* flag, std::string ServerConfig::*field, const char* help) {
  return {flag, Type::Text, help,
          [field](ServerConfig& c, const std::string& v) {
            c.*field = v;
            return std::string();
          },
          [field](const ServerConfig& c) { return c.*field; }};
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = {
      uint_setting("max-frame-bytes", &ServerConfig::max_frame_bytes,
                   "largest JSON-RPC message (a stdio line or an HTTP body)", size_t{1} << 30),
      uint_setting("max-program-bytes", &ServerConfig::max_program_bytes,
                   "largest lisp_eval program", size_t{1} << 24),
      uint_setting("max-context-bytes", &ServerConfig::max_context_bytes,
                   "largest lisp_eval context, as JSON", size_t{1} << 30),
      uint_setting("max-concurrent-calls", &ServerConfig::max_concurrent_calls,
                   "programs running at once; more are answered busy (0: min(8, cores))", 4096),
      uint_setting("program-timeout-ms", &ServerConfig::program_timeout_ms,
                   "wall-clock limit of each program", 3600000),
      uint_setting("program-memory-limit-bytes", &ServerConfig::program_memory_limit_bytes,
                   "heap limit of each program", size_t{1} << 34),
      {"response-profile", Type::Profile,
       "what a call answers: slim (text), structured (text and structuredContent), debug (all)",
       [](ServerConfig& c, const std::string& v) {
         if (v == "slim")
           c.response_profile = ResponseProfile::Slim;
         else if (v == "structured")
           c.response_profile = ResponseProfile::Structured;
         else if (v == "debug")
           c.response_profile = ResponseProfile::Debug;
         else
           return fmt::format("\"{}\" is not slim, structured or debug", v);
         return std::string();
       },
       [](const ServerConfig& c) {
         return std::string(c.response_profile == ResponseProfile::Slim         ? "slim"
                            : c.response_profile == ResponseProfile::Structured ? "structured"
                                                                                : "debug");
       }},
      {"log-level", Type::Level,
       "JSON log lines on stderr from this level: debug, info, warning, error",
       [](ServerConfig& c, const std::string& v) {
         if (!log_level_from_name(v, &c.log_level))
           return fmt::format("\"{}\" is not debug, info, warning or error", v);
         return std::string();
       },
       [](const ServerConfig& c) { return std::string(log_level_name(c.log_level)); }},
      bool_setting("sessions", &ServerConfig::sessions,
                   "offer the lisp_session_* tools (memory across calls) beside lisp_eval"),
      uint_setting("max-sessions", &ServerConfig::max_sessions, "sessions alive at once"),
      uint_setting("max-sessions-per-owner", &ServerConfig::max_sessions_per_owner,
                   "sessions alive at once per client"),
      uint_setting("session-ttl-ms", &ServerConfig::session_ttl_ms, "lifetime of a session",
                   UINT64_MAX / 2),
      uint_setting("session-idle-timeout-ms", &ServerConfig::session_idle_timeout_ms,
                   "a session unused this long ends", UINT64_MAX / 2),
      uint_setting("max-session-memory-bytes", &ServerConfig::max_session_memory_bytes,
                   "memory a session keeps, as JSON", size_t{1} << 32),
      uint_setting("max-session-bindings", &ServerConfig::max_session_bindings,
                   "names a session keeps"),
      uint_setting("isolate", &ServerConfig::isolate,
                   "run programs in this many jailed worker processes (seccomp, rlimits, "
                   "namespaces): a crash or runaway ends only its own call (0: in this process)",
                   256),
      uint_setting("isolate-max-runs", &ServerConfig::isolate_max_runs,
                   "with --isolate: runs a worker takes before it is replaced (0: no limit)",
                   100000000),
      text_setting("upstreams", &ServerConfig::upstreams,
                   "JSON file of upstream MCP servers programs call with (tool/call ...)"),
      bool_setting("upstream-required", &ServerConfig::upstream_required,
                   "an upstream that fails to start aborts start (else it is unavailable)"),
      uint_setting("max-upstream-calls", &ServerConfig::max_upstream_calls,
                   "upstream calls per program", 100000),
      {"catalog-mode", Type::Text,
       "the upstream catalog in lisp_eval's description: inline, lazy (discovery), auto",
       [](ServerConfig& c, const std::string& v) {
         if (v != "auto" && v != "inline" && v != "lazy")
           return fmt::format("\"{}\" is not auto, inline or lazy", v);
         c.catalog_mode = v;
         return std::string();
       },
       [](const ServerConfig& c) { return c.catalog_mode; }},
      uint_setting("task-after-ms", &ServerConfig::task_after_ms,
                   "a 2026-07-28 call from a client that declares the tasks extension and still "
                   "runs this long is answered with a task to poll (0: at once)",
                   3600000),
      uint_setting("task-ttl-ms", &ServerConfig::task_ttl_ms,
                   "how long a task and its result are kept from its creation", 86400000),
      uint_setting("max-tasks", &ServerConfig::max_tasks,
                   "tasks kept at once (the oldest finished one goes first)", 1 << 20),
      {"store", Type::Text,
       "the store replicas share sessions and tasks in: redis://HOST:PORT[/DB] or "
       "unix:///PATH.sock[?db=N] (with --http; needs --store-key-file)",
       [](ServerConfig& c, const std::string& v) {
         c.store = v;
         return std::string();
       },
       // A URL may carry a password: --help shows only whether one is set.
       [](const ServerConfig& c) { return std::string(c.store.empty() ? "" : "(set)"); }},
      text_setting("store-key-file", &ServerConfig::store_key_file,
                   "file holding the key (32 bytes or more) every record in the store is "
                   "HMAC'd with; the same on every replica"),
      text_setting("store-password-file", &ServerConfig::store_password_file,
                   "file holding the store's password (instead of one in the URL)"),
      uint_setting("task-lease-ms", &ServerConfig::task_lease_ms,
                   "with --store: a task whose server stops renewing its lease this long reads "
                   "failed (server lost); renewed every fifth of it",
                   3600000),
      bool_setting("http", &ServerConfig::http, "serve Streamable HTTP instead of stdio"),
      text_setting("http-host", &ServerConfig::http_host, "address to listen on"),
      uint_setting("http-port", &ServerConfig::http_port, "port to listen on (0: any free port)",
                   65535),
      text_setting("http-path", &ServerConfig::http_path, "path of the MCP endpoint"),
      {"http-auth-token", Type::Text,
       "bearer token clients must send (at least 32 characters; required beyond loopback)",
       [](ServerConfig& c, const std::string& v) {
         c.http_auth_token = v;
         return std::string();
       },
       [](const ServerConfig& c) { return std::string(c.http_auth_token.empty() ? "" : "(set)"); }},
      {"http-allowed-origin", Type::List,
       "an Origin browsers may call from (repeatable, or a comma list); default: loopback origins",
       [](ServerConfig& c, const std::string& v) {
         size_t start = 0;
         while (start <= v.size()) {
           size_t end = v.find(',', start);
           if (end == std::string::npos) end = v.size();
           std::string one = v.substr(start, end - start);
           if (!one.empty()) c.http_allowed_origins.push_back(one);
           start = end + 1;
         }
         return std::string();
       },
       [](const ServerConfig& c) {
         std::string out;
         for (const std::string& o : c.http_allowed_origins)
           out += (out.empty() ? "" : ",") + o;
         return out;
       }},
      bool_setting("http-allow-unsafe-network", &ServerConfig::http_allow_unsafe_network,
                   "allow listening beyond loopback (then a token is required)"),
      uint_setting("http-max-body-bytes", &ServerConfig::http_max_body_bytes,
                   "largest request body (0: max-frame-bytes)", size_t{1} << 30),
      uint_setting("http-request-timeout-ms", &ServerConfig::http_request_timeout_ms,
                   "longest a request may take, reading included (0: program timeout + 1 s)",
                   3600000),
      uint_setting("http-shutdown-grace-ms", &ServerConfig::http_shutdown_grace_ms,
                   "on SIGTERM, how long running calls may finish (over stdio too)", 3600000),
      uint_setting("http-max-sessions", &ServerConfig::http_max_sessions, "MCP sessions at once"),
      uint_setting("http-max-connections", &ServerConfig::http_max_connections,
                   "connections open at once; beyond it a new one gets 503 and is closed", 1 << 20),
      uint_setting("http-max-connections-per-peer", &ServerConfig::http_max_connections_per_peer,
                   "connections one client address may hold open at once", 1 << 20),
      uint_setting("http-header-timeout-ms", &ServerConfig::http_header_timeout_ms,
                   "longest a connection may take to send a request's header", 3600000),
      uint_setting("http-max-in-flight-per-session", &ServerConfig::http_max_in_flight_per_session,
                   "requests one MCP session may have running"),
      uint_setting("http-session-idle-timeout-ms", &ServerConfig::http_session_idle_timeout_ms,
                   "an MCP session unused this long ends", UINT64_MAX / 2),
  };
  return table;
}

const Setting* find_setting(std::string_view flag) {
  for (const Setting& s : settings())
    if (flag == s.flag) return &s;
  return nullptr;
}

std::string check(const ServerConfig& c) {
  if (c.max_frame_bytes < 1024) return "--max-frame-bytes must be at least 1024";
  if (c.program_timeout_ms == 0) return "--program-timeout-ms must be at least 1";
  if (c.program_memory_limit_bytes < 65536)
    return "--program-memory-limit-bytes must be at least 65536";
  if (c.task_ttl_ms == 0) return "--task-ttl-ms must be at least 1";
  if (c.max_tasks == 0) return "--max-tasks must be at least 1";
  if (!c.http_path.starts_with('/')) return "--http-path must start with /";
  if (!c.store.empty() && !c.http)
    return "--store needs --http: replicas share a store behind a load balancer (stdio serves "
           "one client)";
  if (!c.store.empty() && c.store_key_file.empty())
    return "--store needs --store-key-file: every record in the store is HMAC'd with that key";
  if (c.store.empty() && (!c.store_key_file.empty() || !c.store_password_file.empty()))
    return "--store-key-file and --store-password-file go with --store";
  if (c.task_lease_ms < 500) return "--task-lease-ms must be at least 500";
  if (!c.http_auth_token.empty() && c.http_auth_token.size() < 32)
    return "--http-auth-token must be at least 32 characters long";
  return "";
}

}  // namespace

std::string parse_config(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env, ServerConfig& out) {
  ServerConfig c;
  // The environment first, so that flags override it.
  for (const Setting& s : settings()) {
    auto it = env.find(env_name(s.flag));
    if (it == env.end()) continue;
    if (std::string e = s.apply(c, it->second); !e.empty())
      return fmt::format("{}: {}", env_name(s.flag), e);
  }
  bool origins_from_flags = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!a.starts_with("--"))
      return fmt::format("unexpected argument '{}' (see ptc mcp --help)", a);
    std::string name = a.substr(2), value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    const Setting* s = find_setting(name);
    if (!s) return fmt::format("unknown option --{} (see ptc mcp --help)", name);
    if (!has_value) {
      if (s->type == Type::Flag) {
        value.assign(1, '1');  // (not = "1": a GCC 12 -Wrestrict false positive)
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return fmt::format("--{} needs a value", name);
      }
    }
    if (s->type == Type::List && !origins_from_flags) {
      c.http_allowed_origins.clear();  // flags replace the environment's list
      origins_from_flags = true;
    }
    if (std::string e = s->apply(c, value); !e.empty()) return fmt::format("--{}: {}", name, e);
  }
  if (std::string e = check(c); !e.empty()) return e;
  out = std::move(c);
  return "";
}

std::string config_help() {
  ServerConfig defaults;
  std::string out;
  for (const Setting& s : settings()) {
    std::string flag = fmt::format("--{}{}", s.flag, s.type == Type::Flag ? "" : " V");
    std::string shown = s.shown(defaults);
    out += fmt::format("  {:<36} {}\n  {:<36} ({}{})\n", flag, s.help, "", env_name(s.flag),
                       shown.empty() ? "" : "; default " + shown);
  }
  return out;
}

uint32_t effective_max_concurrent_calls(const ServerConfig& c) {
  if (c.max_concurrent_calls) return c.max_concurrent_calls;
  unsigned hw = std::thread::hardware_concurrency();
  return std::min<uint32_t>(8, hw ? hw : 1);
}

}  // namespace ptc::mcp
