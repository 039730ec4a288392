// Tasks in the store replicas share (--store): status, result and cancel
// requests live in Redis, so tasks/get, tasks/cancel and tasks/update work
// on whichever replica a request reaches. The call itself runs on the
// replica that created the task (its runner), which holds a lease on it.
//
// Keys, under the owner's namespace (SharedStore::owner_prefix), so another
// owner's request names another key and finds nothing, as for an unknown id:
//   {owner_prefix}task:{id}        the record, sealed under its key name;
//                                  expires --task-ttl-ms after creation
//   {owner_prefix}task:{id}:lease  the runner's replica id, PX --task-lease-ms,
//                                  renewed every lease/5 while the call runs
// Only the lease's existence counts (no one trusts its value: whoever could
// forge one could as well delete the record). A working record without a
// lease is a task whose runner was lost: the replica that sees it first
// makes it `failed`, atomically (a script compares the record and checks the
// lease), so a late finish and the lost-transition cannot both win.
//
// One background thread per store renews the leases of the calls it runs,
// reads their records (a cancel asked on another replica, a record failed or
// gone: the call is stopped), watches the tasks whose cancel it must
// acknowledge for another replica's call, and retries a result the store
// could not take when the call ended.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "protocol/mcp/shared_store.hpp"
#include "protocol/mcp/tasks.hpp"

namespace ptc::mcp {

// The statusMessage of a task whose runner stopped renewing its lease.
inline constexpr std::string_view kTaskLostMessage =
    "the server running this task was lost (its lease lapsed)";

class RedisTaskStore : public TaskStore {
 public:
  // ttl: a record's life from creation (a call still working then is
  // stopped); lease: how long a runner may go without renewing before its
  // tasks are lost; poll_interval: the hint clients get.
  RedisTaskStore(std::shared_ptr<SharedStore> shared, std::chrono::milliseconds ttl,
                 std::chrono::milliseconds lease, std::chrono::milliseconds poll_interval);
  // Stops the background thread and leaves the store as it is: the leases
  // of calls still running lapse, and other replicas report them failed.
  ~RedisTaskStore() override;
  RedisTaskStore(const RedisTaskStore&) = delete;
  RedisTaskStore& operator=(const RedisTaskStore&) = delete;

  Created create(std::string owner, std::string_view tool, std::function<void()> cancel) override;
  void finish(const std::string& id, HostValue result, bool stopped) override;
  std::optional<HostValue> view(std::string_view id, std::string_view owner) override;
  bool cancel(std::string_view id, std::string_view owner, std::function<void()> stopped) override;
  bool exists(std::string_view id, std::string_view owner) override;
  void cancel_all() override;
  size_t size() override;  // the calls this replica runs (or whose result it still owes the store)

  // How often a replica that acknowledges a cancel for another's call reads
  // the task, and how long it waits at most (then the task is failed or
  // cancelled by then, or will be).
  static constexpr std::chrono::milliseconds kCancelPoll{75};
  std::chrono::milliseconds cancel_wait() const { return 2 * lease_; }

 private:
  struct Keys {
    std::string record, lease;
  };
  // What a record holds (the payload of the sealed bytes).
  struct Record {
    TaskState state;
    int64_t ttl_ms = 0;
    std::string runner;  // replica id, for the log
  };
  struct Loaded {
    Record record;
    std::string sealed;  // the bytes as read, for compare-and-set
  };
  // A call this replica runs.
  struct Local {
    Keys keys;
    std::chrono::steady_clock::time_point expires;
    std::function<void()> cancel;  // until asked
    bool cancel_asked = false;     // here: by tasks/cancel, cancel_all, the TTL or the record
    std::vector<std::function<void()>> on_stop;
    // The call ended while the store was unreachable: its end, retried.
    bool finishing = false;
    HostValue result;
    bool stopped = false;
    std::chrono::milliseconds backoff{0};
    std::chrono::steady_clock::time_point retry_at, give_up_at;
  };
  // A cancel acknowledged once another replica's call no longer works.
  struct Waiter {
    std::string id;
    Keys keys;
    std::chrono::steady_clock::time_point give_up_at;
    std::function<void()> stopped;
  };

  Keys keys_of(std::string_view id, std::string_view owner) const;
  std::string encode(const Keys& keys, const Record& r) const;
  // The record a GET answered: nullopt when there is none, or none to trust
  // (refused: logged once per key). Throws StoreUnavailable on another error.
  std::optional<Record> read(const Keys& keys, std::string_view id, const store::RedisReply& got);
  // The task's record (a lost runner's made failed first); nullopt when
  // missing or refused. Throws StoreUnavailable.
  std::optional<Loaded> load(const Keys& keys, std::string_view id);
  // Writes the end of a call. Throws StoreUnavailable.
  void write_end(const std::string& id, const Keys& keys, const HostValue& result, bool stopped);
  void ended(const std::string& id);  // forgets the call and acknowledges its cancels

  void run();  // the background thread
  void renew();
  void retry_ends(std::chrono::steady_clock::time_point now);
  void poll_waiters(std::chrono::steady_clock::time_point now);
  void stop_locally(const std::vector<std::string>& ids);

  std::shared_ptr<SharedStore> shared_;
  std::chrono::milliseconds ttl_, lease_, poll_interval_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool kicked_ = false;
  std::map<std::string, Local, std::less<>> local_;
  std::vector<Waiter> waiters_;
  std::set<std::string> refused_;  // records already logged as refused
  std::thread thread_;
};

}  // namespace ptc::mcp
