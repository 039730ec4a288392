#include "protocol/mcp/redis_tasks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "protocol/mcp/log.hpp"
#include "protocol/mcp/random_bytes.hpp"
#include "protocol/store/sealed_record.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::mcp {

namespace {

using host::str;
using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;
using SystemClock = std::chrono::system_clock;

constexpr uint64_t kRecordVersion = 1;

// The record, replaced only if it is still the bytes that were read (so a
// cancel request, an end and the lost-transition never overwrite each
// other), keeping its expiry; ARGV[3] == "1": the call ended, its lease goes.
const store::RedisScript kReplace(R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
if ARGV[3] == '1' then redis.call('DEL', KEYS[2]) end
return 1
)lua");

// A working record whose lease lapsed becomes the failed one, unless the
// lease came back or the record changed since it was read.
const store::RedisScript kLost(R"lua(
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
)lua");

// Task ids are random_hex_id()s; anything else is not found without asking the store.
bool plausible_id(std::string_view id) {
  return id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

int64_t to_ms(SystemClock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
}

SystemClock::time_point from_ms(int64_t ms) {
  return SystemClock::time_point(
      std::chrono::duration_cast<SystemClock::duration>(milliseconds(ms)));
}

// An error reply (out of memory, a read-only replica): as unreachable, retryable.
const store::RedisReply& checked(const store::RedisReply& r) {
  if (r.error()) throw store::StoreUnavailable("the shared store refused a command: " + r.str);
  return r;
}

// A short, non-secret name for logs.
HostValue short_id(std::string_view id) {
  return str(id.substr(0, 8));
}

}  // namespace

RedisTaskStore::RedisTaskStore(std::shared_ptr<SharedStore> shared, milliseconds ttl,
                               milliseconds lease, milliseconds poll_interval)
    : shared_(std::move(shared)), ttl_(ttl), lease_(lease), poll_interval_(poll_interval) {
  thread_ = std::thread([this] { run(); });
}

RedisTaskStore::~RedisTaskStore() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

RedisTaskStore::Keys RedisTaskStore::keys_of(std::string_view id, std::string_view owner) const {
  std::string record = fmt::format("{}task:{}", shared_->owner_prefix(owner), id);
  std::string lease = record + ":lease";
  return {std::move(record), std::move(lease)};
}

std::string RedisTaskStore::encode(const Keys& keys, const Record& r) const {
  const TaskState& t = r.state;
  store::RecordWriter w;
  w.u64(kRecordVersion)
      .str(t.tool)
      .u64(static_cast<uint64_t>(t.status))
      .u64(t.cancel_asked ? 1 : 0)
      .str(t.failure)
      .i64(to_ms(t.created))
      .i64(to_ms(t.updated))
      .i64(r.ttl_ms)
      .str(r.runner);
  if (t.status == TaskStatus::Completed) w.value(t.result);
  return store::seal(shared_->key, keys.record, w.take());
}

std::optional<RedisTaskStore::Record> RedisTaskStore::read(const Keys& keys, std::string_view id,
                                                           const store::RedisReply& got) {
  if (got.nil()) return std::nullopt;
  std::string why;
  if (got.error() && got.str.rfind("WRONGTYPE", 0) == 0) {
    why = "not a string";
  } else if (auto payload = store::unseal(shared_->key, keys.record, checked(got).str)) {
    try {
      store::RecordReader in(*payload);
      if (in.u64() != kRecordVersion) throw std::runtime_error("a record of another version");
      Record r;
      TaskState& t = r.state;
      t.tool = in.str();
      uint64_t status = in.u64();
      if (status > static_cast<uint64_t>(TaskStatus::Cancelled))
        throw std::runtime_error("an unknown status");
      t.status = static_cast<TaskStatus>(status);
      t.cancel_asked = in.u64() != 0;
      t.failure = in.str();
      t.created = from_ms(in.i64());
      t.updated = from_ms(in.i64());
      r.ttl_ms = in.i64();
      r.runner = in.str();
      if (t.status == TaskStatus::Completed) t.result = in.value();
      if (!in.done()) throw std::runtime_error("bytes after the record");
      return r;
    } catch (const std::runtime_error& e) {
      why = e.what();
    }
  } else {
    why = "its seal does not match (altered, forged or moved)";
  }
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    if (refused_.size() >= 4096) refused_.clear();
    first = refused_.insert(keys.record).second;
  }
  if (first)
    log(LogLevel::Warning, "store_record_refused",
        {{"record", str("task")}, {"task", short_id(id)}, {"why", str(why)}});
  return std::nullopt;
}

std::optional<RedisTaskStore::Loaded> RedisTaskStore::load(const Keys& keys, std::string_view id) {
  std::optional<Loaded> seen;
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto replies = shared_->redis->pipeline({{"GET", keys.record}, {"EXISTS", keys.lease}});
    std::optional<Record> r = read(keys, id, replies[0]);
    if (!r) return std::nullopt;
    seen = Loaded{std::move(*r), std::move(replies[0].str)};
    if (seen->record.state.status != TaskStatus::Working || checked(replies[1]).integer == 1)
      return seen;
    // Working, and no replica renews its lease: its runner is lost.
    Record failed = seen->record;
    failed.state.status = TaskStatus::Failed;
    failed.state.failure = std::string(kTaskLostMessage);
    failed.state.updated = SystemClock::now();
    std::string sealed = encode(keys, failed);
    if (checked(shared_->redis->eval(kLost, {keys.record, keys.lease}, {seen->sealed, sealed}))
            .integer == 1) {
      log(LogLevel::Warning, "task_lost",
          {{"task", short_id(id)}, {"runner", short_id(failed.runner)}});
      return Loaded{std::move(failed), std::move(sealed)};
    }
    // It changed meanwhile (ended, a cancel was asked, its lease renewed): read it again.
  }
  return seen;
}

TaskStore::Created RedisTaskStore::create(std::string owner, std::string_view tool,
                                          std::function<void()> cancel) {
  std::string id = random_hex_id();
  Keys keys = keys_of(id, owner);
  Record r;
  r.state.tool = std::string(tool);
  r.state.created = r.state.updated = SystemClock::now();
  r.ttl_ms = ttl_.count();
  r.runner = shared_->replica_id;
  // The lease first: no one ever sees the working record without it.
  auto replies = shared_->redis->pipeline(
      {{"SET", keys.lease, shared_->replica_id, "PX", std::to_string(lease_.count())},
       {"SET", keys.record, encode(keys, r), "PX", std::to_string(ttl_.count())}});
  for (const auto& reply : replies)
    checked(reply);
  {
    std::lock_guard lock(mutex_);
    Local& l = local_[id];
    l.keys = std::move(keys);
    l.expires = SteadyClock::now() + ttl_;
    l.cancel = std::move(cancel);
    kicked_ = true;
  }
  wake_.notify_all();
  HostValue view = render_task(id, r.state, ttl_, poll_interval_);
  return {std::move(id), std::move(view)};
}

void RedisTaskStore::write_end(const std::string& id, const Keys& keys, const HostValue& result,
                               bool stopped) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    store::RedisReply got = shared_->redis->command({"GET", keys.record});
    std::optional<Record> r = read(keys, id, got);
    // Ended already: an earlier attempt took, though its answer did not come back.
    if (r && (r->state.status == TaskStatus::Completed || r->state.status == TaskStatus::Cancelled))
      return;
    if (!r || r->state.status != TaskStatus::Working) {
      // Gone (past its TTL, or the store lost it) or failed (this replica's
      // lease lapsed and another reported it lost): the result has no place.
      log(LogLevel::Warning, "task_result_dropped",
          {{"task", short_id(id)},
           {"why", str(r ? "the task was reported failed: this replica's lease lapsed"
                         : "the task's record is gone (past its TTL, or the store lost it)")}});
      try {
        shared_->redis->command({"DEL", keys.lease});
      } catch (const store::StoreUnavailable&) {
        // It lapses by itself.
      }
      return;
    }
    Record end = *r;
    end.state.updated = SystemClock::now();
    if (end.state.cancel_asked || stopped) {
      end.state.status = TaskStatus::Cancelled;
    } else {
      end.state.status = TaskStatus::Completed;
      end.state.result = result;
    }
    if (checked(shared_->redis->eval(kReplace, {keys.record, keys.lease},
                                     {got.str, encode(keys, end), "1"}))
            .integer == 1)
      return;
  }
  log(LogLevel::Error, "task_result_dropped",
      {{"task", short_id(id)}, {"why", str("the record kept changing")}});
}

void RedisTaskStore::finish(const std::string& id, HostValue result, bool stopped) {
  Keys keys;
  {
    std::lock_guard lock(mutex_);
    auto it = local_.find(id);
    if (it == local_.end()) return;
    it->second.cancel = nullptr;
    stopped = stopped || it->second.cancel_asked;
    keys = it->second.keys;
  }
  try {
    write_end(id, keys, result, stopped);
  } catch (const store::StoreUnavailable& e) {
    // Not lost: retried from the background thread while the lease holds.
    log(LogLevel::Warning, "task_end_deferred", {{"task", short_id(id)}, {"error", str(e.what())}});
    auto now = SteadyClock::now();
    {
      std::lock_guard lock(mutex_);
      auto it = local_.find(id);
      if (it == local_.end()) return;
      Local& l = it->second;
      l.finishing = true;
      l.result = std::move(result);
      l.stopped = stopped;
      l.backoff = milliseconds(50);
      l.retry_at = now + l.backoff;
      l.give_up_at = now + lease_;
      kicked_ = true;
    }
    wake_.notify_all();
    return;
  } catch (const std::exception& e) {
    log(LogLevel::Error, "task_result_lost", {{"task", short_id(id)}, {"error", str(e.what())}});
  }
  ended(id);
}

void RedisTaskStore::ended(const std::string& id) {
  std::vector<std::function<void()>> waiting;
  {
    std::lock_guard lock(mutex_);
    auto it = local_.find(id);
    if (it == local_.end()) return;
    waiting.swap(it->second.on_stop);
    local_.erase(it);
  }
  // Outside the lock: an ack writes to a peer, which may block.
  for (auto& ack : waiting)
    ack();
}

std::optional<HostValue> RedisTaskStore::view(std::string_view id, std::string_view owner) {
  if (!plausible_id(id)) return std::nullopt;
  std::optional<Loaded> got = load(keys_of(id, owner), id);
  if (!got) return std::nullopt;
  return render_task(id, got->record.state, milliseconds(got->record.ttl_ms), poll_interval_);
}

bool RedisTaskStore::exists(std::string_view id, std::string_view owner) {
  return plausible_id(id) && load(keys_of(id, owner), id).has_value();
}

bool RedisTaskStore::cancel(std::string_view id, std::string_view owner,
                            std::function<void()> stopped) {
  if (!plausible_id(id)) return false;
  Keys keys = keys_of(id, owner);
  // The request, in the record: its runner (maybe another replica) reads it there.
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::optional<Loaded> got = load(keys, id);
    if (!got) return false;
    if (got->record.state.status != TaskStatus::Working) {
      stopped();
      return true;
    }
    if (got->record.state.cancel_asked) break;
    Record asked = got->record;
    asked.state.cancel_asked = true;
    asked.state.updated = SystemClock::now();
    if (checked(shared_->redis->eval(kReplace, {keys.record, keys.lease},
                                     {got->sealed, encode(keys, asked), "0"}))
            .integer == 1)
      break;
  }
  std::function<void()> stop;
  {
    std::lock_guard lock(mutex_);
    auto it = local_.find(id);
    if (it != local_.end() && it->second.keys.record == keys.record) {
      // This replica runs it: stopped now, acknowledged when the call ends.
      Local& l = it->second;
      if (!l.cancel_asked) stop = std::move(l.cancel);
      l.cancel = nullptr;
      l.cancel_asked = true;
      l.on_stop.push_back(std::move(stopped));
    } else {
      // Another does (or this one just ended it): acknowledged once the
      // record no longer works.
      waiters_.push_back({std::string(id), std::move(keys), SteadyClock::now() + cancel_wait(),
                          std::move(stopped)});
      kicked_ = true;
    }
  }
  wake_.notify_all();
  if (stop) stop();
  return true;
}

void RedisTaskStore::cancel_all() {
  std::vector<std::function<void()>> stops;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, l] : local_) {
      if (!l.cancel_asked && l.cancel) stops.push_back(std::move(l.cancel));
      l.cancel = nullptr;
      l.cancel_asked = true;
    }
  }
  for (auto& stop : stops)
    stop();
}

size_t RedisTaskStore::size() {
  std::lock_guard lock(mutex_);
  return local_.size();
}

void RedisTaskStore::run() {
  const milliseconds renew_every = std::max(lease_ / 5, milliseconds(1));
  auto next_renewal = SteadyClock::now() + renew_every;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    bool watching =
        !waiters_.empty() || std::any_of(local_.begin(), local_.end(),
                                         [](const auto& entry) { return entry.second.finishing; });
    auto woken = [this] { return stopping_ || kicked_; };
    if (local_.empty() && !watching) {
      wake_.wait(lock, woken);
    } else {
      auto until = local_.empty() ? SteadyClock::time_point::max() : next_renewal;
      if (watching) until = std::min(until, SteadyClock::now() + kCancelPoll);
      wake_.wait_until(lock, until, woken);
    }
    if (stopping_) return;
    kicked_ = false;
    lock.unlock();
    auto now = SteadyClock::now();
    try {
      if (now >= next_renewal) {
        next_renewal = now + renew_every;
        renew();
      }
      retry_ends(now);
      poll_waiters(now);
    } catch (const std::exception& e) {
      log(LogLevel::Error, "task_store_thread", {{"error", str(e.what())}});
    }
    lock.lock();
  }
}

// Renews the leases of the calls this replica runs and reads their records:
// a call is stopped when a cancel was asked, when its record is failed or
// gone, or past its TTL.
void RedisTaskStore::renew() {
  std::vector<std::pair<std::string, Keys>> held;
  std::vector<std::string> stop;
  auto now = SteadyClock::now();
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, l] : local_) {
      held.emplace_back(id, l.keys);
      if (!l.finishing && !l.cancel_asked && l.expires <= now) stop.push_back(id);
    }
  }
  if (held.empty()) return;
  std::vector<store::Redis::Args> commands;
  const std::string px = std::to_string(lease_.count());
  for (const auto& [id, keys] : held) {
    commands.push_back({"SET", keys.lease, shared_->replica_id, "PX", px});
    commands.push_back({"GET", keys.record});
  }
  try {
    auto replies = shared_->redis->pipeline(commands);
    for (size_t i = 0; i < held.size(); ++i) {
      std::optional<Record> r;
      try {
        r = read(held[i].second, held[i].first, replies[2 * i + 1]);
      } catch (const store::StoreUnavailable&) {
        continue;
      }
      if (!r || r->state.status != TaskStatus::Working || r->state.cancel_asked)
        stop.push_back(held[i].first);
    }
  } catch (const store::StoreUnavailable&) {
    // The store is down (its own log says so): the leases lapse unless it comes back in time.
  }
  stop_locally(stop);
}

void RedisTaskStore::stop_locally(const std::vector<std::string>& ids) {
  std::vector<std::function<void()>> stops;
  {
    std::lock_guard lock(mutex_);
    for (const std::string& id : ids) {
      auto it = local_.find(id);
      if (it == local_.end() || it->second.finishing || it->second.cancel_asked) continue;
      if (it->second.cancel) stops.push_back(std::move(it->second.cancel));
      it->second.cancel = nullptr;
      it->second.cancel_asked = true;
    }
  }
  for (auto& s : stops)
    s();
}

// The ends the store could not take, tried again with backoff; after one
// lease period the result is given up (the lease lapses, the task is failed).
void RedisTaskStore::retry_ends(SteadyClock::time_point now) {
  struct Due {
    std::string id;
    Keys keys;
    HostValue result;
    bool stopped;
  };
  std::vector<Due> due;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, l] : local_)
      if (l.finishing && l.retry_at <= now) due.push_back({id, l.keys, l.result, l.stopped});
  }
  for (const Due& d : due) {
    try {
      write_end(d.id, d.keys, d.result, d.stopped);
    } catch (const store::StoreUnavailable& e) {
      bool give_up = false;
      {
        std::lock_guard lock(mutex_);
        auto it = local_.find(d.id);
        if (it == local_.end()) continue;
        Local& l = it->second;
        give_up = now >= l.give_up_at;
        l.backoff = std::min(l.backoff * 2, std::max(lease_ / 5, milliseconds(50)));
        l.retry_at = now + l.backoff;
      }
      if (!give_up) continue;
      log(LogLevel::Error, "task_result_lost",
          {{"task", short_id(d.id)},
           {"error", str(e.what())},
           {"why", str("the shared store stayed unreachable for a lease period")}});
    }
    ended(d.id);
  }
}

// Cancels of other replicas' calls: acknowledged once the task no longer
// works (or is gone), or after cancel_wait() at most.
void RedisTaskStore::poll_waiters(SteadyClock::time_point now) {
  std::vector<Waiter> watching;
  {
    std::lock_guard lock(mutex_);
    watching.swap(waiters_);
  }
  if (watching.empty()) return;
  std::vector<Waiter> still;
  std::vector<std::function<void()>> acks;
  for (Waiter& w : watching) {
    bool over = now >= w.give_up_at;
    if (!over) {
      try {
        std::optional<Loaded> got = load(w.keys, w.id);
        over = !got || got->record.state.status != TaskStatus::Working;
      } catch (const store::StoreUnavailable&) {
        // Asked again next time, until it gives up.
      }
    }
    if (over)
      acks.push_back(std::move(w.stopped));
    else
      still.push_back(std::move(w));
  }
  {
    std::lock_guard lock(mutex_);
    for (Waiter& w : still)
      waiters_.push_back(std::move(w));
  }
  for (auto& ack : acks)
    ack();
}

}  // namespace ptc::mcp
