// Sessions held in this process (the default, without --store). Expiry is
// checked lazily: every operation first retires the expired sessions (there
// is no background thread). A retired session answers session_closed (saying
// why) to its owner for as long as its tombstone is kept (the newest
// kTombstones), then session_not_found. One mutex guards the index and every
// session's state.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "protocol/mcp/sessions.hpp"

namespace ptc::mcp {

class MemorySessionStore : public SessionStore {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;

  // `now` replaces the steady clock (tests move time by hand).
  explicit MemorySessionStore(ServerConfig config, Now now = {});
  ~MemorySessionStore() override;

  SessionResult<SessionInfo> start(const std::string& owner, StartOptions options) override;
  SessionResult<std::vector<SessionInfo>> list(const std::string& owner) override;
  SessionResult<SessionSnapshot> snapshot(const std::string& owner, std::string_view id) override;
  std::optional<SessionError> check_available(const std::string& owner,
                                              std::string_view id) override;
  SessionResult<Eval> begin_eval(const std::string& owner, std::string_view id) override;
  SessionResult<SessionInfo> commit(Eval& eval, Commit commit) override;
  SessionResult<ForgetOutcome> forget(const std::string& owner, std::string_view id,
                                      const ForgetRequest& request) override;
  SessionResult<SessionInfo> close(const std::string& owner, std::string_view id,
                                   const std::string& reason) override;
  size_t live_count() override;

 protected:
  void release(Eval& eval) override;

 private:
  struct State;  // one session, guarded by mutex_
  struct Tombstone {
    std::string owner;
    std::string why;
  };

  Clock::time_point now() const;
  void retire_expired_locked(Clock::time_point now);
  void bury_locked(const std::string& id, const std::string& owner, std::string why);
  // The owner's session, or why not (not found, closed, expired).
  SessionResult<std::shared_ptr<State>> find_locked(const std::string& owner, std::string_view id,
                                                    Clock::time_point now);
  SessionInfo info_locked(const State& s) const;
  SessionSnapshot snapshot_locked(const State& s) const;

  const Now now_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<State>, std::less<>> sessions_;
  std::map<std::string, Tombstone, std::less<>> tombstones_;
  std::deque<std::string> tombstone_order_;
};

}  // namespace ptc::mcp
