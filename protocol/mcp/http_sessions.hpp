// The MCP sessions of the HTTP transport (the Mcp-Session-Id header): which
// ids are open, whose they are, when they were last used, and how many
// tools/call requests each has in flight. Thread-safe. The clock is passed
// in so that expiry is testable.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptc::mcp {

// 128 random bits from the kernel as 32 lower-case hex digits.
std::string new_http_session_id();

class HttpSessions {
 public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    uint32_t max_sessions = 256;
    uint32_t max_in_flight = 4;  // per session
    Clock::duration idle_timeout = std::chrono::minutes(15);
  };

  explicit HttpSessions(Limits limits) : limits_(limits) {}

  // A new session of `owner`; "" when max_sessions are open even after the
  // idle ones are forgotten.
  std::string open(std::string_view owner, Clock::time_point now);
  // True when `id` is open, belongs to `owner` and has not idled out; marks
  // it used. An idled-out session is forgotten here.
  bool touch(std::string_view id, std::string_view owner, Clock::time_point now);
  // Takes one of the session's in-flight slots; false when all are taken
  // (or the session is gone).
  bool try_acquire(std::string_view id);
  void release(std::string_view id, Clock::time_point now);
  // DELETE: forgets the session; false when it is unknown or someone else's.
  bool close(std::string_view id, std::string_view owner);
  // Forgets every session idle for idle_timeout with nothing in flight and
  // returns their ids.
  std::vector<std::string> expire(Clock::time_point now);

  size_t size() const;
  uint32_t in_flight(std::string_view id) const;

 private:
  struct Entry {
    std::string owner;
    Clock::time_point last_used;
    uint32_t in_flight = 0;
  };
  bool idle(const Entry& e, Clock::time_point now) const {
    return e.in_flight == 0 && now - e.last_used >= limits_.idle_timeout;
  }

  Limits limits_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> sessions_;
};

}  // namespace ptc::mcp
