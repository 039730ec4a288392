// An MCP client over stdio: starts the upstream server as a child process (no
// shell, its own process group, a minimal environment plus the configured
// one), speaks newline-delimited JSON-RPC on its stdin/stdout, and copies its
// stderr, redacted, to our log. Thread-safe: many calls may be in flight at
// once; a waiting caller reads the replies and hands each to its caller by
// request id (an idle thread reads while no call is in flight).
// Replies longer than the byte cap are refused before they are decoded. A
// process that dies fails the calls in flight; the next call starts it
// again, no sooner than a backoff that doubles with each restart.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "include/ptc/host_value.hpp"
#include "protocol/upstream/config.hpp"

namespace ptc::upstream {

using LogFn = std::function<void(std::string_view line)>;

using Clock = std::chrono::steady_clock;

// What one request came to.
struct Reply {
  enum class Status { Ok, Unavailable, UpstreamError, Timeout, TooLarge, Cancelled };
  Status status = Status::Ok;
  HostValue result;     // the JSON-RPC result (Ok)
  std::string message;  // otherwise: what happened (redacted)
  size_t bytes = 0;     // size of the reply line
};

// What Upstreams needs of a client, whatever its transport.
class UpstreamClient {
 public:
  virtual ~UpstreamClient() = default;
  // Connects, initializes and reads tools/list (every page). "" or what failed.
  virtual std::string start() = 0;
  virtual const std::vector<HostValue>& tools() const = 0;
  virtual const UpstreamConfig& config() const = 0;
  virtual Reply request(std::string_view method, const HostValue& params,
                        Clock::time_point deadline, const std::function<bool()>& cancelled) = 0;
  virtual void stop() = 0;
  // True when request() waits only through vm/cooperative.hpp, so a pmap
  // branch waiting for it leaves its thread to the other branches; other
  // clients' requests run on a thread of their own there.
  virtual bool cooperative() const { return false; }
};

class Connection;

class StdioClient final : public UpstreamClient {
 public:
  StdioClient(UpstreamConfig config, const Redactor* redactor, LogFn log);
  ~StdioClient() override;
  StdioClient(const StdioClient&) = delete;
  StdioClient& operator=(const StdioClient&) = delete;

  // Starts the process, initializes and reads tools/list (every page).
  // Returns "" or what failed (redacted).
  std::string start() override;
  // The tools/list entries read at start.
  const std::vector<HostValue>& tools() const override { return tools_; }
  const UpstreamConfig& config() const override { return config_; }

  // One request; waits until the reply, `deadline`, or `cancelled()` turns
  // true. Restarts a dead process first (subject to backoff).
  Reply request(std::string_view method, const HostValue& params, Clock::time_point deadline,
                const std::function<bool()>& cancelled) override;

  // Stops the process (its whole group) and the threads. Idempotent.
  void stop() override;
  bool cooperative() const override { return true; }
  // The child's pid, or -1 (tests).
  pid_t pid() const;

 private:
  std::string spawn_and_initialize(std::shared_ptr<Connection>& out, bool list_tools);
  std::string spawn(std::shared_ptr<Connection>& out);  // the process and its reader threads
  std::shared_ptr<Connection> live_connection(std::string* error);

  UpstreamConfig config_;
  const Redactor* redactor_;
  LogFn log_;
  std::vector<HostValue> tools_;
  mutable std::mutex mutex_;  // guards conn_ and the backoff
  std::shared_ptr<Connection> conn_;
  Clock::time_point next_restart_{};
  std::chrono::milliseconds backoff_{0};
};

}  // namespace ptc::upstream
