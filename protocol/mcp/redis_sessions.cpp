#include "protocol/mcp/redis_sessions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "protocol/mcp/log.hpp"
#include "protocol/mcp/random_bytes.hpp"
#include "protocol/mcp/session_record.hpp"
#include "protocol/store/sealed_record.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::mcp {

namespace {

using store::RedisReply;
using store::RedisScript;
using store::StoreUnavailable;
using SysClock = std::chrono::system_clock;

constexpr int64_t kTombstoneMs = 3600000;  // closed or expired: their owner hears why for an hour
constexpr int64_t kBusyMarginMs = 5000;    // a busy mark outlives the program's timeout by this

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SysClock::now().time_since_epoch())
      .count();
}

SysClock::time_point from_ms(int64_t ms) {
  return SysClock::time_point(std::chrono::milliseconds(ms));
}

// begin: KEYS rec, busy; ARGV now, idle, token, busy_ms. The record and its
// version, 0 when there is none, 1 when another eval holds the session.
const RedisScript kBegin(R"(
local v = redis.call('HMGET', KEYS[1], 'rec', 'ver', 'dl', 'used')
if not v[1] then return 0 end
if not redis.call('SET', KEYS[2], ARGV[3], 'NX', 'PX', ARGV[4]) then return 1 end
local now = tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'used', now)
local keep = math.min(tonumber(v[3]) - now, tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], math.max(keep, tonumber(ARGV[4]), 1))
return {v[1], v[2], tostring(now)}
)");

// touch (a use that reads): KEYS rec, busy; ARGV now, idle. The record, its
// version, when it was used, and whether an eval holds it; 0 when none.
const RedisScript kTouch(R"(
local v = redis.call('HMGET', KEYS[1], 'rec', 'ver', 'dl')
if not v[1] then return 0 end
local now = tonumber(ARGV[1])
local busy = redis.call('EXISTS', KEYS[2])
redis.call('HSET', KEYS[1], 'used', now)
if busy == 0 then
  redis.call('PEXPIRE', KEYS[1], math.max(math.min(tonumber(v[3]) - now, tonumber(ARGV[2])), 1))
end
return {v[1], v[2], tostring(now), busy}
)");

// write: KEYS rec, busy; ARGV version, token ('' when no eval holds it),
// record, now, idle. The new version; -1 when the session is gone, -2 when
// it changed since `version`, -3 when an eval holds it (a write without a token).
const RedisScript kWrite(R"(
local v = redis.call('HMGET', KEYS[1], 'ver', 'dl')
if not v[1] then return -1 end
if tonumber(v[1]) ~= tonumber(ARGV[1]) then return -2 end
local holder = redis.call('GET', KEYS[2])
if ARGV[2] == '' and holder then return -3 end
local ver = tonumber(v[1]) + 1
local now = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'rec', ARGV[3], 'ver', ver, 'used', now)
redis.call('PEXPIRE', KEYS[1], math.max(math.min(tonumber(v[2]) - now, tonumber(ARGV[5])), 1))
if ARGV[2] ~= '' and holder == ARGV[2] then redis.call('DEL', KEYS[2]) end
return ver
)");

// release (an eval ended without a commit): KEYS rec, busy; ARGV token, now, idle.
const RedisScript kRelease(R"(
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
local dl = redis.call('HGET', KEYS[1], 'dl')
if dl then
  local now = tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'used', now)
  redis.call('PEXPIRE', KEYS[1], math.max(math.min(tonumber(dl) - now, tonumber(ARGV[3])), 1))
end
return 1
)");

// start: KEYS all (zset), idx (zset), rec; ARGV now, deadline, max_all,
// max_owner, id, record, pexpire, the owner's "s:" key prefix, tombstone_ms.
// {0} when made; {-1, n} past max_all; {-2, n} past max_owner; {-3} taken id.
const RedisScript kStart(R"(
local now = tonumber(ARGV[1])
local live_all = 0
for _, k in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if redis.call('EXISTS', k) == 1 then live_all = live_all + 1 else redis.call('ZREM', KEYS[1], k) end
end
if live_all >= tonumber(ARGV[3]) then return {-1, live_all} end
local live_mine = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if redis.call('EXISTS', ARGV[8] .. id) == 1 then live_mine = live_mine + 1 end
end
if live_mine >= tonumber(ARGV[4]) then return {-2, live_mine} end
if redis.call('EXISTS', KEYS[3]) == 1 then return {-3, 0} end
redis.call('HSET', KEYS[3], 'rec', ARGV[6], 'ver', 0, 'dl', ARGV[2], 'used', now)
redis.call('PEXPIRE', KEYS[3], ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[9]))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
local keep = tonumber(ARGV[2]) - now + tonumber(ARGV[9])
if redis.call('PTTL', KEYS[2]) < keep then redis.call('PEXPIRE', KEYS[2], keep) end
redis.call('ZADD', KEYS[1], ARGV[2], KEYS[3])
return {0, 0}
)");

// close: KEYS rec, busy, tomb, idx, all; ARGV id, sealed why, tombstone_ms.
// The record that was closed; -1 when gone, -3 when an eval holds it.
const RedisScript kClose(R"(
local rec = redis.call('HGET', KEYS[1], 'rec')
if not rec then return -1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -3 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[5], KEYS[1])
return rec
)");

template <class T>
SessionResult<T> unavailable(const StoreUnavailable& e) {
  return SessionResult<T>::fail(std::string(kStoreUnavailableReason), e.what());
}

int64_t as_int(const RedisReply& r) {
  if (r.type == RedisReply::Type::Integer) return r.integer;
  try {
    return std::stoll(r.str);
  } catch (...) {
    return 0;
  }
}

// A reply that is not what the script returns: the store is not one we
// understand (a script error, a wrong type planted in the key).
[[noreturn]] void unexpected(const RedisReply& r, std::string_view what) {
  throw StoreUnavailable(fmt::format("the shared store answered {} unexpectedly{}{}", what,
                                     r.error() ? ": " : "", r.error() ? r.str : ""));
}

}  // namespace

struct RedisSessionStore::Keys {
  std::string owner, rec, busy, tomb, idx, all, session_prefix;
};

// A session as the store keeps it.
struct RedisSessionStore::Stored : StoredSession {};

// An eval's hold on a session.
struct RedisSessionStore::Running {
  Keys keys;
  Stored stored;
  std::string token;
};

RedisSessionStore::RedisSessionStore(ServerConfig config, std::shared_ptr<SharedStore> shared)
    : SessionStore(std::move(config)), shared_(std::move(shared)) {}

RedisSessionStore::Keys RedisSessionStore::keys(const std::string& owner,
                                                std::string_view id) const {
  std::string ns = shared_->owner_prefix(owner);
  Keys k;
  k.owner = owner;
  k.rec = fmt::format("{}s:{}", ns, id);
  k.busy = fmt::format("{}b:{}", ns, id);
  k.tomb = fmt::format("{}t:{}", ns, id);
  k.idx = ns + "idx";
  k.all = shared_->prefix + "sessions";
  k.session_prefix = ns + "s:";
  return k;
}

std::string RedisSessionStore::encode(const Keys& keys, const Stored& s) const {
  return store::seal(shared_->key, keys.rec, encode_session_record(s));
}

std::optional<RedisSessionStore::Stored> RedisSessionStore::decode(const Keys& keys,
                                                                   const std::string& sealed,
                                                                   int64_t version,
                                                                   int64_t used_ms) const {
  std::optional<std::string> payload = store::unseal(shared_->key, keys.rec, sealed);
  std::string why;
  if (payload) {
    try {
      Stored s;
      static_cast<StoredSession&>(s) = decode_session_record(*payload);
      if (s.state.owner != keys.owner) throw std::runtime_error("the record names another owner");
      s.version = version;
      s.used_ms = used_ms;
      return s;
    } catch (const std::exception& e) {
      why = e.what();
    }
  } else {
    why = "its HMAC does not match (altered, planted, moved, or sealed with another key)";
  }
  log(LogLevel::Warning, "store_record_refused",
      {{"kind", host::str("session")},
       {"session", host::str(session_log_tag(keys.rec.substr(keys.rec.rfind(':') + 1)))},
       {"why", host::str(why)}});
  return std::nullopt;
}

SessionInfo RedisSessionStore::info(const Stored& s, bool busy) const {
  return session_info(s.state, busy,
                      {from_ms(s.created_ms), from_ms(s.used_ms), from_ms(s.deadline_ms)},
                      config().session_idle_timeout_ms);
}

SessionSnapshot RedisSessionStore::snapshot_of(const Stored& s, bool busy) const {
  return session_snapshot(s.state, info(s, busy));
}

SessionError RedisSessionStore::missing(const Keys& k, std::string_view id) {
  std::vector<RedisReply> r =
      shared_->redis->pipeline({{"GET", k.tomb}, {"ZSCORE", k.idx, std::string(id)}});
  if (r[0].type == RedisReply::Type::String) {
    if (auto why = store::unseal(shared_->key, k.tomb, r[0].str))
      return {"session_closed", fmt::format("session {} {}", id, *why)};
  }
  if (r[1].type == RedisReply::Type::String) {
    int64_t deadline = as_int(r[1]);
    std::string why = now_ms() >= deadline ? fmt::format("expired: its TTL ran out at {}",
                                                         utc_timestamp(from_ms(deadline)))
                                           : session_idle_why(config().session_idle_timeout_ms);
    return {"session_closed", fmt::format("session {} {}", id, why)};
  }
  return {"session_not_found", session_not_found_message(id)};
}

SessionResult<SessionInfo> RedisSessionStore::start(const std::string& owner,
                                                    StartOptions options) {
  const ServerConfig& c = config();
  Stored s;
  s.state.id = new_session_id();
  s.state.owner = owner;
  s.state.title = std::move(options.title);
  s.state.mode = std::move(options.mode);
  s.state.ttl_ms = std::min(options.ttl_ms.value_or(c.session_ttl_ms), c.session_ttl_ms);
  s.created_ms = s.used_ms = now_ms();
  s.deadline_ms = s.created_ms + static_cast<int64_t>(s.state.ttl_ms);
  Keys k = keys(owner, s.state.id);
  int64_t pexpire = std::max<int64_t>(
      1, static_cast<int64_t>(std::min<uint64_t>(s.state.ttl_ms, c.session_idle_timeout_ms)));
  try {
    RedisReply r = shared_->redis->eval(
        kStart, {k.all, k.idx, k.rec},
        {std::to_string(s.created_ms), std::to_string(s.deadline_ms),
         std::to_string(c.max_sessions), std::to_string(c.max_sessions_per_owner), s.state.id,
         encode(k, s), std::to_string(pexpire), k.session_prefix, std::to_string(kTombstoneMs)});
    if (r.type != RedisReply::Type::Array || r.elements.size() != 2) unexpected(r, "a start");
    int64_t code = r.elements[0].integer, count = r.elements[1].integer;
    if (code == -1)
      return SessionResult<SessionInfo>::fail(
          "session_limit_exceeded",
          fmt::format("the service already holds its maximum of {} sessions", c.max_sessions));
    if (code == -2)
      return SessionResult<SessionInfo>::fail(
          "session_limit_exceeded",
          fmt::format("this caller already has {} sessions open, the maximum per caller", count));
    if (code != 0) unexpected(r, "a start");
  } catch (const StoreUnavailable& e) {
    return unavailable<SessionInfo>(e);
  }
  if (log_enabled(LogLevel::Info))
    log(LogLevel::Info, "session_started",
        {{"session", host::str(session_log_tag(s.state.id))},
         {"ttl_ms", HostValue::integer(static_cast<int64_t>(s.state.ttl_ms))},
         {"store", host::str("shared")}});
  return {info(s, false), {}};
}

SessionResult<std::vector<SessionInfo>> RedisSessionStore::list(const std::string& owner) {
  using Out = std::vector<SessionInfo>;
  try {
    Keys base = keys(owner, "");
    RedisReply ids = shared_->redis->command({"ZRANGE", base.idx, "0", "-1"});
    if (ids.type != RedisReply::Type::Array) unexpected(ids, "a list");
    std::vector<store::Redis::Args> reads;
    for (const RedisReply& id : ids.elements) {
      Keys k = keys(owner, id.str);
      reads.push_back({"HMGET", k.rec, "rec", "ver", "used"});
      reads.push_back({"EXISTS", k.busy});
    }
    std::vector<RedisReply> got = shared_->redis->pipeline(reads);
    std::vector<std::pair<int64_t, SessionInfo>> mine;
    for (size_t i = 0; i < ids.elements.size(); ++i) {
      const RedisReply& fields = got[2 * i];
      if (fields.type != RedisReply::Type::Array || fields.elements.size() != 3 ||
          fields.elements[0].type != RedisReply::Type::String)
        continue;  // expired or closed
      Keys k = keys(owner, ids.elements[i].str);
      if (auto s = decode(k, fields.elements[0].str, as_int(fields.elements[1]),
                          as_int(fields.elements[2])))
        mine.emplace_back(s->created_ms, info(*s, got[2 * i + 1].integer == 1));
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Out out;
    for (auto& [_, i] : mine)
      out.push_back(std::move(i));
    return {std::move(out), {}};
  } catch (const StoreUnavailable& e) {
    return unavailable<Out>(e);
  }
}

SessionResult<SessionSnapshot> RedisSessionStore::snapshot(const std::string& owner,
                                                           std::string_view id) {
  try {
    Keys k = keys(owner, id);
    RedisReply r = shared_->redis->eval(
        kTouch, {k.rec, k.busy},
        {std::to_string(now_ms()), std::to_string(config().session_idle_timeout_ms)});
    if (r.type == RedisReply::Type::Array && r.elements.size() == 4) {
      if (auto s = decode(k, r.elements[0].str, as_int(r.elements[1]), as_int(r.elements[2])))
        return {snapshot_of(*s, r.elements[3].integer == 1), {}};
      return SessionResult<SessionSnapshot>::fail("session_not_found",
                                                  session_not_found_message(id));
    }
    if (r.type != RedisReply::Type::Integer) unexpected(r, "a read");
    SessionError e = missing(k, id);
    return SessionResult<SessionSnapshot>::fail(e.reason, e.message);
  } catch (const StoreUnavailable& e) {
    return unavailable<SessionSnapshot>(e);
  }
}

std::optional<SessionError> RedisSessionStore::check_available(const std::string& owner,
                                                               std::string_view id) {
  try {
    Keys k = keys(owner, id);
    // Existence only (the record is checked when an eval begins): this runs
    // on the transport's thread for every eval.
    std::vector<RedisReply> r = shared_->redis->pipeline({{"EXISTS", k.rec}, {"EXISTS", k.busy}});
    if (r[0].integer != 1) return missing(k, id);
    if (r[1].integer == 1) return SessionError{"session_busy", session_busy_message(id)};
    return std::nullopt;
  } catch (const StoreUnavailable& e) {
    return SessionError{std::string(kStoreUnavailableReason), e.what()};
  }
}

SessionResult<SessionStore::Eval> RedisSessionStore::begin_eval(const std::string& owner,
                                                                std::string_view id) {
  try {
    auto running = std::make_shared<Running>();
    running->keys = keys(owner, id);
    running->token = random_hex_id();
    const Keys& k = running->keys;
    RedisReply r = shared_->redis->eval(
        kBegin, {k.rec, k.busy},
        {std::to_string(now_ms()), std::to_string(config().session_idle_timeout_ms), running->token,
         std::to_string(config().program_timeout_ms + kBusyMarginMs)});
    if (r.type == RedisReply::Type::Integer && r.integer == 1)
      return SessionResult<Eval>::fail("session_busy", session_busy_message(id));
    if (r.type == RedisReply::Type::Array && r.elements.size() == 3) {
      auto s = decode(k, r.elements[0].str, as_int(r.elements[1]), as_int(r.elements[2]));
      if (s) {
        running->stored = std::move(*s);
        SessionSnapshot start = snapshot_of(running->stored, true);
        return {Eval(this, std::move(running), std::move(start)), {}};
      }
      shared_->redis->eval(kRelease, {k.rec, k.busy},
                           {running->token, std::to_string(now_ms()),
                            std::to_string(config().session_idle_timeout_ms)});
      return SessionResult<Eval>::fail("session_not_found", session_not_found_message(id));
    }
    if (r.type != RedisReply::Type::Integer) unexpected(r, "an eval's start");
    SessionError e = missing(k, id);
    return SessionResult<Eval>::fail(e.reason, e.message);
  } catch (const StoreUnavailable& e) {
    return unavailable<Eval>(e);
  }
}

void RedisSessionStore::release(Eval& eval) {
  Running& run = eval.handle<Running>();
  eval.released();
  try {
    shared_->redis->eval(
        kRelease, {run.keys.rec, run.keys.busy},
        {run.token, std::to_string(now_ms()), std::to_string(config().session_idle_timeout_ms)});
  } catch (const StoreUnavailable&) {
    // The busy mark lapses by itself after the program's timeout.
  }
}

SessionResult<SessionInfo> RedisSessionStore::commit(Eval& eval, Commit commit) {
  Running& run = eval.handle<Running>();
  Stored next = run.stored;
  apply_commit(next.state, std::move(commit));
  next.used_ms = now_ms();
  try {
    RedisReply r = shared_->redis->eval(
        kWrite, {run.keys.rec, run.keys.busy},
        {std::to_string(run.stored.version), run.token, encode(run.keys, next),
         std::to_string(next.used_ms), std::to_string(config().session_idle_timeout_ms)});
    if (r.type != RedisReply::Type::Integer) unexpected(r, "a commit");
    if (r.integer == -2) {
      // Released as rolled back: the busy mark is let go by the destructor.
      return SessionResult<SessionInfo>::fail(
          "session_busy",
          fmt::format("session {} was changed by another eval while this one ran; this eval was "
                      "not applied (run it again on the session as it is now)",
                      run.stored.state.id));
    }
    if (r.integer < 0) {
      SessionError e = missing(run.keys, run.stored.state.id);
      return SessionResult<SessionInfo>::fail(e.reason, e.message);
    }
    eval.released();
    next.version = r.integer;
    return {info(next, false), {}};
  } catch (const StoreUnavailable& e) {
    return unavailable<SessionInfo>(e);
  }
}

SessionResult<SessionStore::ForgetOutcome> RedisSessionStore::forget(const std::string& owner,
                                                                     std::string_view id,
                                                                     const ForgetRequest& request) {
  try {
    Keys k = keys(owner, id);
    std::vector<RedisReply> r =
        shared_->redis->pipeline({{"HMGET", k.rec, "rec", "ver", "used"}, {"EXISTS", k.busy}});
    const RedisReply& fields = r[0];
    if (fields.type != RedisReply::Type::Array || fields.elements.size() != 3 ||
        fields.elements[0].type != RedisReply::Type::String) {
      SessionError e = missing(k, id);
      return SessionResult<ForgetOutcome>::fail(e.reason, e.message);
    }
    auto s =
        decode(k, fields.elements[0].str, as_int(fields.elements[1]), as_int(fields.elements[2]));
    if (!s) {
      SessionError e = missing(k, id);
      return SessionResult<ForgetOutcome>::fail(e.reason, e.message);
    }
    if (r[1].integer == 1)
      return SessionResult<ForgetOutcome>::fail("session_busy", session_busy_message(id));
    ForgetOutcome out = apply_forget(s->state, request, config().max_session_memory_bytes);
    s->used_ms = now_ms();
    RedisReply w = shared_->redis->eval(
        kWrite, {k.rec, k.busy},
        {std::to_string(s->version), "", encode(k, *s), std::to_string(s->used_ms),
         std::to_string(config().session_idle_timeout_ms)});
    if (w.type != RedisReply::Type::Integer) unexpected(w, "a forget");
    if (w.integer == -2 || w.integer == -3)
      return SessionResult<ForgetOutcome>::fail("session_busy", session_busy_message(id));
    if (w.integer < 0) {
      SessionError e = missing(k, id);
      return SessionResult<ForgetOutcome>::fail(e.reason, e.message);
    }
    s->version = w.integer;
    out.info = info(*s, false);
    return {std::move(out), {}};
  } catch (const StoreUnavailable& e) {
    return unavailable<ForgetOutcome>(e);
  }
}

SessionResult<SessionInfo> RedisSessionStore::close(const std::string& owner, std::string_view id,
                                                    const std::string& reason) {
  try {
    Keys k = keys(owner, id);
    std::string why = store::seal(shared_->key, k.tomb, session_closed_why(reason));
    RedisReply r = shared_->redis->eval(kClose, {k.rec, k.busy, k.tomb, k.idx, k.all},
                                        {std::string(id), why, std::to_string(kTombstoneMs)});
    if (r.type == RedisReply::Type::Integer && r.integer == -3)
      return SessionResult<SessionInfo>::fail("session_busy", session_busy_message(id));
    if (r.type == RedisReply::Type::String) {
      if (auto s = decode(k, r.str, 0, now_ms())) {
        if (log_enabled(LogLevel::Info))
          log(LogLevel::Info, "session_closed",
              {{"session", host::str(session_log_tag(id))},
               {"turn", HostValue::integer(static_cast<int64_t>(s->state.turn))}});
        return {info(*s, false), {}};
      }
    } else if (r.type != RedisReply::Type::Integer) {
      unexpected(r, "a close");
    }
    SessionError e = missing(k, id);
    return SessionResult<SessionInfo>::fail(e.reason, e.message);
  } catch (const StoreUnavailable& e) {
    return unavailable<SessionInfo>(e);
  }
}

size_t RedisSessionStore::live_count() {
  try {
    RedisReply all = shared_->redis->command({"ZRANGE", shared_->prefix + "sessions", "0", "-1"});
    std::vector<store::Redis::Args> probes;
    for (const RedisReply& k : all.elements)
      probes.push_back({"EXISTS", k.str});
    size_t n = 0;
    for (const RedisReply& r : shared_->redis->pipeline(probes))
      n += r.integer == 1;
    return n;
  } catch (const StoreUnavailable&) {
    return 0;
  }
}

}  // namespace ptc::mcp
