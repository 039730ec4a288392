#include "protocol/mcp/sessions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <set>
#include <utility>

#include "protocol/mcp/log.hpp"
#include "protocol/mcp/random_bytes.hpp"

namespace ptc::mcp {

namespace {

using Kind = HostValue::Kind;

constexpr std::string_view kIdPrefix = "ptcs_";
constexpr size_t kIdRandomBytes = 18;
constexpr size_t kIdChars = 24;  // 18 bytes in base64, no padding

size_t json_string_bytes(std::string_view s) {
  size_t n = 2;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      n += 2;
    else if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
      n += 2;
    else if (c < 0x20)
      n += 6;
    else
      n += 1;
  }
  return n;
}

size_t json_scalar_bytes(const HostValue& v) {
  switch (v.kind()) {
    case Kind::Nil:
      return 4;
    case Kind::Bool:
      return v.as_bool() ? 4 : 5;
    case Kind::Int:
      return fmt::formatted_size("{}", v.as_int());
    case Kind::BigInt:
      return v.text().size();
    case Kind::Float:
      try {
        return to_json(v).size();
      } catch (LispError&) {
        return 4;  // NaN and infinities have no JSON form; count them as null
      }
    default:  // String, Keyword, Opaque: as a JSON string
      return json_string_bytes(v.text());
  }
}

std::string ms_text(uint64_t ms) {
  return fmt::format("{} ms", ms);
}

// A short, non-secret tag of a session for the log.
std::string log_tag(std::string_view id) {
  return std::string(id.substr(0, std::min(id.size(), kIdPrefix.size() + 4)));
}

}  // namespace

size_t session_value_bytes(const HostValue& value, size_t stop_after) {
  // Iterative: memory may nest as deep as a run allowed, and a function's
  // captured values are shared (counted each time they are reached, which
  // stop_after keeps bounded).
  size_t total = 0;
  std::vector<const HostValue*> todo{&value};
  while (!todo.empty()) {
    const HostValue* v = todo.back();
    todo.pop_back();
    switch (v->kind()) {
      case Kind::Vector:
      case Kind::Set:
      case Kind::Map: {
        const auto& items = v->items();
        size_t n = v->kind() == Kind::Map ? items.size() / 2 : items.size();
        // Brackets, commas and (for a map) colons.
        total += 2 + (n ? n - 1 : 0) + (v->kind() == Kind::Map ? n : 0);
        if (total > stop_after) return total;
        for (const HostValue& x : items)
          todo.push_back(&x);
        break;
      }
      case Kind::Opaque:
        total += json_scalar_bytes(*v);
        if (const Restorer* r = v->restorer()) {
          total += json_string_bytes(r->factory);
          for (const HostValue& x : r->args)
            todo.push_back(&x);
        }
        break;
      default:
        total += json_scalar_bytes(*v);
    }
    if (total > stop_after) return total;
  }
  return total;
}

std::string new_session_id() {
  std::array<unsigned char, kIdRandomBytes> bytes{};
  fill_random(bytes.data(), bytes.size());
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string id(kIdPrefix);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6)
      id += kAlphabet[(n >> shift) & 63];
  }
  return id;
}

bool is_session_id(std::string_view id) {
  if (id.size() != kIdPrefix.size() + kIdChars || id.substr(0, kIdPrefix.size()) != kIdPrefix)
    return false;
  return std::all_of(id.begin() + kIdPrefix.size(), id.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

// ---------------------------------------------------------------- store

struct SessionStore::State {
  std::string id, owner, title, mode;
  uint64_t ttl_ms = 0;
  Clock::time_point created, last_used, expires;
  std::chrono::system_clock::time_point created_wall;
  uint64_t turn = 0;
  HostValue memory = HostValue::map({});
  size_t memory_bytes = 2;  // {}
  std::vector<HostValue> history;
  std::deque<SessionPrint> prints;
  size_t print_bytes = 0;
  bool prints_dropped = false;
  std::vector<std::string> notices;
  bool busy = false;
};

SessionStore::SessionStore(ServerConfig config, Now now)
    : config_(std::move(config)), now_(std::move(now)) {}

SessionStore::~SessionStore() = default;

SessionStore::Clock::time_point SessionStore::now() const {
  return now_ ? now_() : Clock::now();
}

void SessionStore::bury_locked(const std::string& id, const std::string& owner, std::string why) {
  if (tombstones_.emplace(id, Tombstone{owner, std::move(why)}).second)
    tombstone_order_.push_back(id);
  while (tombstone_order_.size() > kTombstones) {
    tombstones_.erase(tombstone_order_.front());
    tombstone_order_.pop_front();
  }
}

void SessionStore::retire_expired_locked(Clock::time_point now) {
  const auto idle = std::chrono::milliseconds(config_.session_idle_timeout_ms);
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const State& s = *it->second;
    // A running eval keeps its session: it was accepted while the session
    // was alive, and its commit refreshes the idle timer.
    std::string why;
    if (!s.busy && now >= s.expires)
      why = fmt::format("expired: its TTL of {} ran out", ms_text(s.ttl_ms));
    else if (!s.busy && now - s.last_used >= idle)
      why = fmt::format("expired after {} without use", ms_text(config_.session_idle_timeout_ms));
    if (why.empty()) {
      ++it;
      continue;
    }
    if (log_enabled(LogLevel::Info))
      log(LogLevel::Info, "session_expired",
          {{"session", HostValue::string(log_tag(s.id))},
           {"turn", HostValue::integer(static_cast<int64_t>(s.turn))}});
    bury_locked(s.id, s.owner, std::move(why));
    it = sessions_.erase(it);
  }
}

SessionResult<std::shared_ptr<SessionStore::State>> SessionStore::find_locked(
    const std::string& owner, std::string_view id, Clock::time_point now) {
  retire_expired_locked(now);
  if (auto it = sessions_.find(id); it != sessions_.end() && it->second->owner == owner)
    return {it->second, {}};
  // Another owner's session, live or closed, is answered like an unknown id.
  if (auto t = tombstones_.find(id); t != tombstones_.end() && t->second.owner == owner)
    return SessionResult<std::shared_ptr<State>>::fail(
        "session_closed", fmt::format("session {} {}", id, t->second.why));
  return SessionResult<std::shared_ptr<State>>::fail(
      "session_not_found", fmt::format("there is no session {} open for this caller", id));
}

SessionInfo SessionStore::info_locked(const State& s) const {
  auto wall = [&s](Clock::time_point t) {
    return s.created_wall +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(t - s.created);
  };
  SessionInfo i;
  i.id = s.id;
  i.title = s.title;
  i.mode = s.mode;
  i.turn = s.turn;
  i.memory_bytes = s.memory_bytes;
  i.binding_count = s.memory.size();
  i.busy = s.busy;
  i.ttl_ms = s.ttl_ms;
  i.created_at = s.created_wall;
  i.last_used_at = wall(s.last_used);
  i.expires_at = wall(s.expires);
  i.idle_expires_at = std::min(
      i.expires_at, wall(s.last_used + std::chrono::milliseconds(config_.session_idle_timeout_ms)));
  return i;
}

SessionSnapshot SessionStore::snapshot_locked(const State& s) const {
  return {info_locked(s), s.memory, s.history, s.prints, s.prints_dropped, s.notices};
}

SessionResult<SessionInfo> SessionStore::start(const std::string& owner, StartOptions options) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  retire_expired_locked(t);
  if (sessions_.size() >= config_.max_sessions)
    return SessionResult<SessionInfo>::fail(
        "session_limit_exceeded",
        fmt::format("the server already holds its maximum of {} sessions", config_.max_sessions));
  size_t owned = static_cast<size_t>(
      std::count_if(sessions_.begin(), sessions_.end(),
                    [&owner](const auto& e) { return e.second->owner == owner; }));
  if (owned >= config_.max_sessions_per_owner)
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
  s->ttl_ms = std::min(options.ttl_ms.value_or(config_.session_ttl_ms), config_.session_ttl_ms);
  s->created = s->last_used = t;
  s->expires = t + std::chrono::milliseconds(s->ttl_ms);
  s->created_wall = std::chrono::system_clock::now();
  sessions_.emplace(s->id, s);
  if (log_enabled(LogLevel::Info))
    log(LogLevel::Info, "session_started",
        {{"session", HostValue::string(log_tag(s->id))},
         {"ttl_ms", HostValue::integer(static_cast<int64_t>(s->ttl_ms))},
         {"live_sessions", HostValue::integer(static_cast<int64_t>(sessions_.size()))}});
  return {info_locked(*s), {}};
}

std::vector<SessionInfo> SessionStore::list(const std::string& owner) {
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
  return out;
}

SessionResult<SessionSnapshot> SessionStore::snapshot(const std::string& owner,
                                                      std::string_view id) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  auto found = find_locked(owner, id, t);
  if (!found) return SessionResult<SessionSnapshot>::fail(found.error.reason, found.error.message);
  State& s = **found.value;
  s.last_used = t;
  return {snapshot_locked(s), {}};
}

namespace {
std::string busy_message(std::string_view id) {
  return fmt::format("session {} is running another eval; one eval at a time per session", id);
}
}  // namespace

std::optional<SessionError> SessionStore::check_available(const std::string& owner,
                                                          std::string_view id) {
  std::lock_guard lock(mutex_);
  auto found = find_locked(owner, id, now());
  if (!found) return found.error;
  if ((*found.value)->busy) return SessionError{"session_busy", busy_message(id)};
  return std::nullopt;
}

SessionStore::Eval::Eval(SessionStore* store, std::shared_ptr<State> session, SessionSnapshot start)
    : store_(store), session_(std::move(session)), start_(std::move(start)) {}

SessionStore::Eval::Eval(Eval&& other) noexcept
    : store_(std::exchange(other.store_, nullptr)),
      session_(std::move(other.session_)),
      start_(std::move(other.start_)) {}

SessionStore::Eval::~Eval() {
  if (store_ && session_) store_->release(*this);
}

void SessionStore::release(Eval& eval) {
  std::lock_guard lock(mutex_);
  eval.session_->busy = false;
  eval.session_->last_used = now();
  eval.store_ = nullptr;
}

SessionResult<SessionStore::Eval> SessionStore::begin_eval(const std::string& owner,
                                                           std::string_view id) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  auto found = find_locked(owner, id, t);
  if (!found) return SessionResult<Eval>::fail(found.error.reason, found.error.message);
  std::shared_ptr<State> s = std::move(*found.value);
  if (s->busy) return SessionResult<Eval>::fail("session_busy", busy_message(id));
  s->busy = true;
  s->last_used = t;
  SessionSnapshot start = snapshot_locked(*s);
  return {Eval(this, std::move(s), std::move(start)), {}};
}

SessionInfo SessionStore::commit(Eval& eval, Commit commit) {
  std::lock_guard lock(mutex_);
  State& s = *eval.session_;
  s.memory = std::move(commit.memory);
  s.memory_bytes = commit.memory_bytes;
  s.history.push_back(std::move(commit.result));
  if (s.history.size() > kHistoryDepth)
    s.history.erase(s.history.begin(),
                    s.history.end() - static_cast<std::ptrdiff_t>(kHistoryDepth));
  ++s.turn;
  for (std::string& text : commit.prints) {
    s.print_bytes += text.size();
    s.prints.push_back({s.turn, std::move(text)});
  }
  while (!s.prints.empty() &&
         (s.prints.size() > kMaxSessionPrintEntries || s.print_bytes > kMaxSessionPrintBytes)) {
    s.print_bytes -= s.prints.front().text.size();
    s.prints.pop_front();
    s.prints_dropped = true;
  }
  s.notices = std::move(commit.notices);
  s.busy = false;
  s.last_used = now();
  eval.store_ = nullptr;  // released
  return info_locked(s);
}

SessionResult<SessionStore::ForgetOutcome> SessionStore::forget(const std::string& owner,
                                                                std::string_view id,
                                                                const ForgetRequest& request) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  auto found = find_locked(owner, id, t);
  if (!found) return SessionResult<ForgetOutcome>::fail(found.error.reason, found.error.message);
  State& s = **found.value;
  if (s.busy) return SessionResult<ForgetOutcome>::fail("session_busy", busy_message(id));
  s.last_used = t;

  ForgetOutcome out;
  const auto& items = s.memory.items();
  std::set<std::string_view> bound, gone;
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    bound.insert(items[i].text());
  for (const std::string& name : request.bindings) {
    if (!bound.count(name)) {
      out.missing.push_back(name);
    } else if (gone.insert(name).second) {
      out.forgotten.push_back(name);
    }
  }
  std::vector<std::pair<HostValue, HostValue>> kept;
  if (!request.memory)
    for (size_t i = 0; i + 1 < items.size(); i += 2)
      if (!gone.count(items[i].text())) kept.emplace_back(items[i], items[i + 1]);
  HostValue memory = HostValue::map(std::move(kept));
  s.memory_bytes = session_value_bytes(memory, config_.max_session_memory_bytes);
  s.memory = std::move(memory);
  if (request.history) s.history.clear();
  if (request.prints) {
    s.prints.clear();
    s.print_bytes = 0;
    s.prints_dropped = false;
  }
  out.info = info_locked(s);
  return {std::move(out), {}};
}

SessionResult<SessionInfo> SessionStore::close(const std::string& owner, std::string_view id,
                                               const std::string& reason) {
  std::lock_guard lock(mutex_);
  Clock::time_point t = now();
  auto found = find_locked(owner, id, t);
  if (!found) return SessionResult<SessionInfo>::fail(found.error.reason, found.error.message);
  std::shared_ptr<State> s = std::move(*found.value);
  if (s->busy) return SessionResult<SessionInfo>::fail("session_busy", busy_message(id));
  SessionInfo info = info_locked(*s);
  bury_locked(s->id, s->owner,
              reason.empty()
                  ? std::string("was closed with lisp_session_close")
                  : fmt::format("was closed with lisp_session_close (reason: {})", reason));
  sessions_.erase(s->id);
  if (log_enabled(LogLevel::Info))
    log(LogLevel::Info, "session_closed",
        {{"session", HostValue::string(log_tag(info.id))},
         {"turn", HostValue::integer(static_cast<int64_t>(info.turn))}});
  return {std::move(info), {}};
}

size_t SessionStore::live_count() {
  std::lock_guard lock(mutex_);
  retire_expired_locked(now());
  return sessions_.size();
}

}  // namespace ptc::mcp
