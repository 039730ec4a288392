#include "protocol/mcp/memory_sessions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "protocol/mcp/log.hpp"

namespace ptc::mcp {

namespace {

std::string ms_text(uint64_t ms) {
  return fmt::format("{} ms", ms);
}

}  // namespace

struct MemorySessionStore::State : SessionState {
  Clock::time_point created, last_used, expires;
  std::chrono::system_clock::time_point created_wall;
  bool busy = false;
};

MemorySessionStore::MemorySessionStore(ServerConfig config, Now now)
    : SessionStore(std::move(config)), now_(std::move(now)) {}

MemorySessionStore::~MemorySessionStore() = default;

MemorySessionStore::Clock::time_point MemorySessionStore::now() const {
  return now_ ? now_() : Clock::now();
}

void MemorySessionStore::bury_locked(const std::string& id, const std::string& owner,
                                     std::string why) {
  if (tombstones_.emplace(id, Tombstone{owner, std::move(why)}).second)
    tombstone_order_.push_back(id);
  while (tombstone_order_.size() > kTombstones) {
    tombstones_.erase(tombstone_order_.front());
    tombstone_order_.pop_front();
  }
}

void MemorySessionStore::retire_expired_locked(Clock::time_point now) {
  const auto idle = std::chrono::milliseconds(config().session_idle_timeout_ms);
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const State& s = *it->second;
    // A running eval keeps its session: it was accepted while the session
    // was alive, and its commit refreshes the idle timer.
    std::string why;
    if (!s.busy && now >= s.expires)
      why = fmt::format("expired: its TTL of {} ran out", ms_text(s.ttl_ms));
    else if (!s.busy && now - s.last_used >= idle)
      why = session_idle_why(config().session_idle_timeout_ms);
    if (why.empty()) {
      ++it;
      continue;
    }
    if (log_enabled(LogLevel::Info))
      log(LogLevel::Info, "session_expired",
          {{"session", HostValue::string(session_log_tag(s.id))},
           {"turn", HostValue::integer(static_cast<int64_t>(s.turn))}});
    bury_locked(s.id, s.owner, std::move(why));
    it = sessions_.erase(it);
  }
}

SessionResult<std::shared_ptr<MemorySessionStore::State>> MemorySessionStore::find_locked(
    const std::string& owner, std::string_view id, Clock::time_point now) {
  retire_expired_locked(now);
  if (auto it = sessions_.find(id); it != sessions_.end() && it->second->owner == owner)
    return {it->second, {}};
  // Another owner's session, live or closed, is answered like an unknown id.
  if (auto t = tombstones_.find(id); t != tombstones_.end() && t->second.owner == owner)
    return SessionResult<std::shared_ptr<State>>::fail(
        "session_closed", fmt::format("session {} {}", id, t->second.why));
  return SessionResult<std::shared_ptr<State>>::fail("session_not_found",
                                                     session_not_found_message(id));
}

SessionInfo MemorySessionStore::info_locked(const State& s) const {
  auto wall = [&s](Clock::time_point t) {
    return s.created_wall +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(t - s.created);
  };
  return session_info(s, s.busy, {s.created_wall, wall(s.last_used), wall(s.expires)},
                      config().session_idle_timeout_ms);
}

SessionSnapshot MemorySessionStore::snapshot_locked(const State& s) const {
  return session_snapshot(s, info_locked(s));
}

SessionResult<SessionInfo> MemorySessionStore::start(const std::string& owner,
                                                     StartOptions options) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  retire_expired_locked(t);
  if (sessions_.size() >= config().max_sessions)
    return SessionResult<SessionInfo>::fail(
        "session_limit_exceeded",
        fmt::format("the server already holds its maximum of {} sessions", config().max_sessions));
  size_t owned = static_cast<size_t>(
      std::count_if(sessions_.begin(), sessions_.end(),
                    [&owner](const auto& e) { return e.second->owner == owner; }));
  if (owned >= config().max_sessions_per_owner)
    return SessionResult<SessionInfo>::fail(
        "session_limit_exceeded",
        fmt::format("this caller already has {} sessions open, the maximum per caller", owned));

  auto s = std::make_shared<State>();
  do {
    s->id = new_session_id();
  } while (sessions_.count(s->id) || tombstones_.count(s->id));  // 144 random bits: never, really
  s->owner = owner;
  s->title = std::move(options.title);
  s->mode = std::move(options.mode);
  s->ttl_ms = std::min(options.ttl_ms.value_or(config().session_ttl_ms), config().session_ttl_ms);
  s->created = s->last_used = t;
  s->expires = t + std::chrono::milliseconds(s->ttl_ms);
  s->created_wall = std::chrono::system_clock::now();
  sessions_.emplace(s->id, s);
  if (log_enabled(LogLevel::Info))
    log(LogLevel::Info, "session_started",
        {{"session", HostValue::string(session_log_tag(s->id))},
         {"ttl_ms", HostValue::integer(static_cast<int64_t>(s->ttl_ms))},
         {"live_sessions", HostValue::integer(static_cast<int64_t>(sessions_.size()))}});
  return {info_locked(*s), {}};
}

SessionResult<std::vector<SessionInfo>> MemorySessionStore::list(const std::string& owner) {
  std::lock_guard lock(mutex_);
  retire_expired_locked(now());
  std::vector<std::pair<Clock::time_point, SessionInfo>> mine;
  for (const auto& [id, s] : sessions_)
    if (s->owner == owner) mine.emplace_back(s->created, info_locked(*s));
  std::stable_sort(mine.begin(), mine.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<SessionInfo> out;
  for (auto& [_, info] : mine)
    out.push_back(std::move(info));
  return {std::move(out), {}};
}

SessionResult<SessionSnapshot> MemorySessionStore::snapshot(const std::string& owner,
                                                            std::string_view id) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  auto found = find_locked(owner, id, t);
  if (!found) return SessionResult<SessionSnapshot>::fail(found.error.reason, found.error.message);
  State& s = **found.value;
  s.last_used = t;
  return {snapshot_locked(s), {}};
}

std::optional<SessionError> MemorySessionStore::check_available(const std::string& owner,
                                                                std::string_view id) {
  std::lock_guard lock(mutex_);
  auto found = find_locked(owner, id, now());
  if (!found) return found.error;
  if ((*found.value)->busy) return SessionError{"session_busy", session_busy_message(id)};
  return std::nullopt;
}

void MemorySessionStore::release(Eval& eval) {
  std::lock_guard lock(mutex_);
  State& s = eval.handle<State>();
  s.busy = false;
  s.last_used = now();
  eval.released();
}

SessionResult<SessionStore::Eval> MemorySessionStore::begin_eval(const std::string& owner,
                                                                 std::string_view id) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  auto found = find_locked(owner, id, t);
  if (!found) return SessionResult<Eval>::fail(found.error.reason, found.error.message);
  std::shared_ptr<State> s = std::move(*found.value);
  if (s->busy) return SessionResult<Eval>::fail("session_busy", session_busy_message(id));
  s->busy = true;
  s->last_used = t;
  SessionSnapshot start = snapshot_locked(*s);
  return {Eval(this, std::move(s), std::move(start)), {}};
}

SessionResult<SessionInfo> MemorySessionStore::commit(Eval& eval, Commit commit) {
  std::lock_guard lock(mutex_);
  State& s = eval.handle<State>();
  apply_commit(s, std::move(commit));
  s.busy = false;
  s.last_used = now();
  eval.released();
  return {info_locked(s), {}};
}

SessionResult<SessionStore::ForgetOutcome> MemorySessionStore::forget(
    const std::string& owner, std::string_view id, const ForgetRequest& request) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  auto found = find_locked(owner, id, t);
  if (!found) return SessionResult<ForgetOutcome>::fail(found.error.reason, found.error.message);
  State& s = **found.value;
  if (s.busy) return SessionResult<ForgetOutcome>::fail("session_busy", session_busy_message(id));
  s.last_used = t;
  ForgetOutcome out = apply_forget(s, request, config().max_session_memory_bytes);
  out.info = info_locked(s);
  return {std::move(out), {}};
}

SessionResult<SessionInfo> MemorySessionStore::close(const std::string& owner, std::string_view id,
                                                     const std::string& reason) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  auto found = find_locked(owner, id, t);
  if (!found) return SessionResult<SessionInfo>::fail(found.error.reason, found.error.message);
  std::shared_ptr<State> s = std::move(*found.value);
  if (s->busy) return SessionResult<SessionInfo>::fail("session_busy", session_busy_message(id));
  SessionInfo info = info_locked(*s);
  bury_locked(s->id, s->owner, session_closed_why(reason));
  sessions_.erase(s->id);
  if (log_enabled(LogLevel::Info))
    log(LogLevel::Info, "session_closed",
        {{"session", HostValue::string(session_log_tag(info.id))},
         {"turn", HostValue::integer(static_cast<int64_t>(info.turn))}});
  return {std::move(info), {}};
}

size_t MemorySessionStore::live_count() {
  std::lock_guard lock(mutex_);
  retire_expired_locked(now());
  return sessions_.size();
}

}  // namespace ptc::mcp
