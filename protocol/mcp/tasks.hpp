// Tasks: the extension io.modelcontextprotocol/tasks of revision 2026-07-28.
// A tools/call from a client that declares the extension and still runs
// after --task-after-ms is answered with a task handle instead of its result;
// the client polls tasks/get for the status and, at the end, the result, and
// may stop the call with tasks/cancel. A store keeps the tasks, each bound to
// the owner that started it: another owner is told the task does not exist.
// MemoryTaskStore keeps this process's; RedisTaskStore (redis_tasks.hpp) the
// ones replicas share.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/config.hpp"
#include "protocol/mcp/era.hpp"

namespace ptc::mcp {

// A task as both stores keep it, and as tasks/get shows it (render_task).
enum class TaskStatus : uint8_t { Working, Completed, Failed, Cancelled };
struct TaskState {
  std::string tool;
  TaskStatus status = TaskStatus::Working;
  bool cancel_asked = false;  // by tasks/cancel, or the server stopping it
  std::string failure;        // why it failed (Failed)
  std::chrono::system_clock::time_point created, updated;
  HostValue result;  // the CallToolResult (Completed)
};

// The task as tasks/get and the CreateTaskResult show it (without
// resultType): taskId, status, statusMessage, createdAt, lastUpdatedAt,
// ttlMs, pollIntervalMs, and result once completed.
HostValue render_task(std::string_view id, const TaskState& t, std::chrono::milliseconds ttl,
                      std::chrono::milliseconds poll_interval);

// Where tasks live: this process (MemoryTaskStore, the default) or the store
// replicas share (RedisTaskStore, with --store). Every method but finish and
// cancel_all may throw store::StoreUnavailable when the shared store cannot
// be reached (the caller answers a retryable error).
class TaskStore {
 public:
  virtual ~TaskStore() = default;

  // A new working task of `owner`, for a call of `tool`; `cancel` asks the
  // call to stop (run at most once, by tasks/cancel or cancel_all, while the
  // task works). Returns the task's id (128 random bits, in hex) and the
  // task as the CreateTaskResult shows it.
  struct Created {
    std::string id;
    HostValue view;
  };
  virtual Created create(std::string owner, std::string_view tool,
                         std::function<void()> cancel) = 0;

  // The call ended: completed with `result` (the CallToolResult as the
  // request would have had it), or cancelled when a cancel was asked first
  // (by tasks/cancel, or `stopped`: the server stopped the call).
  virtual void finish(const std::string& id, HostValue result, bool stopped) = 0;

  // The task as tasks/get and the CreateTaskResult show it (without
  // resultType); nullopt when `owner` has no task of this id.
  virtual std::optional<HostValue> view(std::string_view id, std::string_view owner) = 0;
  // tasks/cancel: asks a working task to stop; false when not found (then
  // `stopped` never runs). `stopped` runs once the task no longer works: at
  // once when it has ended, else when its call ends (after finish(), so the
  // call's slot is free by then). The ack of a cancel thus means "stopped".
  virtual bool cancel(std::string_view id, std::string_view owner,
                      std::function<void()> stopped) = 0;
  // tasks/update: whether the task exists for this owner.
  virtual bool exists(std::string_view id, std::string_view owner) = 0;

  // Stops every task this process runs (shutdown).
  virtual void cancel_all() = 0;
  // Tasks this store holds for this process (tests, diagnostics).
  virtual size_t size() = 0;
};

// The tasks of this process, in memory.
class MemoryTaskStore : public TaskStore {
 public:
  // ttl: how long a task is kept from its creation (then a finished task is
  // forgotten; a working one is stopped, and forgotten once it ends); max_tasks: how many are kept
  // at once (the oldest finished one goes first to make room); poll_interval: the hint clients get.
  MemoryTaskStore(std::chrono::milliseconds ttl, size_t max_tasks,
                  std::chrono::milliseconds poll_interval);

  Created create(std::string owner, std::string_view tool, std::function<void()> cancel) override;
  void finish(const std::string& id, HostValue result, bool stopped) override;
  std::optional<HostValue> view(std::string_view id, std::string_view owner) override;
  bool cancel(std::string_view id, std::string_view owner, std::function<void()> stopped) override;
  bool exists(std::string_view id, std::string_view owner) override;
  void cancel_all() override;
  size_t size() override;

 private:
  struct Task : TaskState {
    std::string owner;
    std::chrono::steady_clock::time_point expires;
    std::function<void()> cancel;                // while working
    std::vector<std::function<void()>> on_stop;  // cancels waiting for the end
  };
  Task* find(std::string_view id, std::string_view owner);
  void expire(std::chrono::steady_clock::time_point now);
  HostValue render(std::string_view id, const Task& t) const {
    return render_task(id, t, ttl_, poll_interval_);
  }

  std::mutex mutex_;
  std::map<std::string, Task, std::less<>> tasks_;
  std::chrono::milliseconds ttl_;
  size_t max_tasks_;
  std::chrono::milliseconds poll_interval_;
};

// The server's task store: the shared one with config.shared_store, else
// one in this process.
std::unique_ptr<TaskStore> make_task_store(const ServerConfig& config,
                                           std::chrono::milliseconds poll_interval);

// The -32021 error for a client that did not declare the extension.
std::string missing_tasks_capability_frame(const HostValue& id);

}  // namespace ptc::mcp
