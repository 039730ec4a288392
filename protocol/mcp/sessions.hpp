// The session store behind the lisp_session_* tools (--sessions): REPL
// sessions that keep memory (def/defn), *1 *2 *3 and recent prints from one
// eval to the next. SessionStore is the interface; MemorySessionStore
// (memory_sessions.hpp) holds them in this process, RedisSessionStore
// (redis_sessions.hpp) in the store replicas share (--store), where any
// replica answers for any session. Both keep the same rules.
//
// Rules (docs: protocol/README.md, "Sessions"):
// - A session belongs to the Caller::owner that started it. Any other owner
//   is told session_not_found, exactly as for an id that never existed, so
//   a leaked id does not even confirm that the session exists.
// - It ends when closed, when its TTL runs out, or after idle_timeout of no
//   use. Expiry is checked lazily: every store operation first retires the
//   expired sessions (there is no background thread). A retired session
//   answers session_closed (saying why) to its owner for as long as its
//   tombstone is kept (the newest kTombstones), then session_not_found.
// - One eval at a time per session: a second one is session_busy at once
//   (no queue). While an eval runs, forget and close are session_busy too
//   (they would race its commit), and the session does not expire.
// - An eval commits only when it succeeded within the caps; otherwise the
//   session is exactly as before. No lock is held while a program runs.
//   Across replicas a commit is also checked against the version the eval
//   started from: a session changed meanwhile refuses it (session_busy), so
//   no update is lost and none is applied twice.
// - With a shared store, a call that cannot reach it fails with reason
//   unavailable (retryable); the session is as before.
// Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/config.hpp"

namespace ptc::mcp {

// Session limits the server has no flag for (the reference's defaults).
inline constexpr size_t kMaxHistoryEntryBytes = 64 << 10;  // a result kept as *1, as JSON
inline constexpr size_t kMaxSessionPrintEntries = 50;      // prints kept for inspect
inline constexpr size_t kMaxSessionPrintBytes = 64 << 10;
inline constexpr size_t kMaxSessionTitleChars = 200;
inline constexpr size_t kTombstones = 1024;  // closed or expired ids remembered
inline constexpr size_t kHistoryDepth = 3;   // *1 *2 *3

// A failed session operation: a reason of the session tools and a message
// that says what happened.
struct SessionError {
  std::string reason;  // session_not_found | session_closed | session_busy | session_limit_exceeded
  std::string message;
};

template <class T>
struct SessionResult {
  std::optional<T> value;
  SessionError error;
  explicit operator bool() const { return value.has_value(); }
  static SessionResult fail(std::string reason, std::string message) {
    return {std::nullopt, {std::move(reason), std::move(message)}};
  }
};

// What anyone may be told about a session: its metadata, never its data.
struct SessionInfo {
  std::string id;
  std::string title;
  std::string mode;
  uint64_t turn = 0;  // committed evals
  size_t memory_bytes = 0;
  size_t binding_count = 0;
  bool busy = false;
  uint64_t ttl_ms = 0;
  std::chrono::system_clock::time_point created_at, last_used_at, expires_at, idle_expires_at;
};

struct SessionPrint {
  uint64_t turn = 0;  // the eval that printed it
  std::string text;
};

// A session's committed state, copied out (HostValues share structure, so
// the copy is cheap and stays valid whatever happens to the session).
struct SessionSnapshot {
  SessionInfo info;
  HostValue memory;                  // map: name -> value
  std::vector<HostValue> history;    // oldest first: back() is *1
  std::deque<SessionPrint> prints;   // the newest kMaxSessionPrintEntries / Bytes
  bool prints_dropped = false;       // older prints were let go
  std::vector<std::string> notices;  // history notices of the last committed eval
};

// JSON size of a memory or value: functions (no JSON form) count as the
// source they are rebuilt from, so they cannot slip past the memory cap.
// Stops counting once past `stop_after` (the work is bounded by it).
size_t session_value_bytes(const HostValue& value, size_t stop_after = SIZE_MAX);

// "ptcs_" + 24 url-safe base64 characters of 18 bytes from the OS CSPRNG.
std::string new_session_id();
// Whether `id` has that shape (anything else cannot name a session).
bool is_session_id(std::string_view id);

// What a session holds, whichever store keeps it; the rules of a commit and
// of forget are written once, over this.
struct SessionState {
  std::string id, owner, title, mode;
  uint64_t ttl_ms = 0;
  uint64_t turn = 0;
  HostValue memory = HostValue::map({});
  size_t memory_bytes = 2;  // {}
  std::vector<HostValue> history;
  std::deque<SessionPrint> prints;
  size_t print_bytes = 0;
  bool prints_dropped = false;
  std::vector<std::string> notices;
};

class SessionStore {
 public:
  explicit SessionStore(ServerConfig config) : config_(std::move(config)) {}
  virtual ~SessionStore() = default;
  SessionStore(const SessionStore&) = delete;
  SessionStore& operator=(const SessionStore&) = delete;

  const ServerConfig& config() const { return config_; }

  struct StartOptions {
    std::string title;
    std::optional<uint64_t> ttl_ms;  // clamped to config.session_ttl_ms
    std::string mode = "read_only";
  };
  // session_limit_exceeded past max_sessions or max_sessions_per_owner.
  virtual SessionResult<SessionInfo> start(const std::string& owner, StartOptions options) = 0;

  // The owner's live sessions, oldest first. Does not refresh idle timers.
  virtual SessionResult<std::vector<SessionInfo>> list(const std::string& owner) = 0;

  // The committed state (refreshes the idle timer); works while busy.
  virtual SessionResult<SessionSnapshot> snapshot(const std::string& owner,
                                                  std::string_view id) = 0;

  // Looks the session up without using it (no timer refreshed): whether an
  // eval could start now. Lets a call be refused before it takes a slot.
  virtual std::optional<SessionError> check_available(const std::string& owner,
                                                      std::string_view id) = 0;

  // What an eval runs from; while alive the session is busy. Destroying it
  // without commit() leaves the session as it was (rolled back).
  class Eval {
   public:
    Eval(SessionStore* store, std::shared_ptr<void> handle, SessionSnapshot start)
        : store_(store), handle_(std::move(handle)), start_(std::move(start)) {}
    Eval(Eval&& other) noexcept
        : store_(std::exchange(other.store_, nullptr)),
          handle_(std::move(other.handle_)),
          start_(std::move(other.start_)) {}
    Eval& operator=(Eval&&) = delete;
    ~Eval() {
      if (store_) store_->release(*this);
    }
    const SessionSnapshot& start() const { return start_; }
    // The store's own state of this eval.
    template <class T>
    T& handle() const {
      return *static_cast<T*>(handle_.get());
    }
    void released() { store_ = nullptr; }

   private:
    SessionStore* store_;
    std::shared_ptr<void> handle_;
    SessionSnapshot start_;
  };
  virtual SessionResult<Eval> begin_eval(const std::string& owner, std::string_view id) = 0;

  struct Commit {
    HostValue memory;
    size_t memory_bytes = 0;
    HostValue result;  // becomes *1 (nil when it was too large to keep)
    std::vector<std::string> prints;
    std::vector<std::string> notices;
  };
  // Makes the eval's outcome the session's state; the session is free again.
  // Fails (session_busy, or unavailable) only with a shared store: the
  // session was changed meanwhile, or the store could not be reached.
  virtual SessionResult<SessionInfo> commit(Eval& eval, Commit commit) = 0;

  struct ForgetRequest {
    std::vector<std::string> bindings;
    bool memory = false;  // clear every binding
    bool history = false;
    bool prints = false;
  };
  struct ForgetOutcome {
    std::vector<std::string> forgotten;  // names that were bound and are gone
    std::vector<std::string> missing;    // names that were not bound
    SessionInfo info;
  };
  virtual SessionResult<ForgetOutcome> forget(const std::string& owner, std::string_view id,
                                              const ForgetRequest& request) = 0;

  virtual SessionResult<SessionInfo> close(const std::string& owner, std::string_view id,
                                           const std::string& reason) = 0;

  // Sessions alive (in this process, or in the shared store).
  virtual size_t live_count() = 0;

 protected:
  // An Eval ended without commit(): the session is free again, as it was.
  virtual void release(Eval& eval) = 0;

 private:
  const ServerConfig config_;
};

// The rules both stores keep: a commit (turn, *1 *2 *3, prints kept within
// their caps) and a forget (which names go, which were not bound; the memory's
// size counted again with `max_memory_bytes` as the stop).
void apply_commit(SessionState& s, SessionStore::Commit commit);
SessionStore::ForgetOutcome apply_forget(SessionState& s,
                                         const SessionStore::ForgetRequest& request,
                                         size_t max_memory_bytes);

// What anyone may be told of a session (its info), and its committed state
// copied out, given the times each store keeps its own way.
struct SessionTimes {
  std::chrono::system_clock::time_point created, last_used, expires;
};
SessionInfo session_info(const SessionState& s, bool busy, const SessionTimes& times,
                         uint64_t idle_timeout_ms);
SessionSnapshot session_snapshot(const SessionState& s, SessionInfo info);

// Messages both stores give.
std::string session_busy_message(std::string_view id);
std::string session_not_found_message(std::string_view id);
std::string session_closed_why(const std::string& reason);  // "was closed with ..."
std::string session_idle_why(uint64_t idle_timeout_ms);     // "expired after N ms without use"
// A short, non-secret tag of a session for the log.
std::string session_log_tag(std::string_view id);

}  // namespace ptc::mcp
