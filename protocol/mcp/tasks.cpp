#include "protocol/mcp/tasks.hpp"

#include <fmt/format.h>

#include <vector>

#include "protocol/mcp/era.hpp"
#include "protocol/mcp/json_rpc.hpp"
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/random_bytes.hpp"
#include "protocol/mcp/redis_tasks.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::mcp {

namespace {

using host::str;

}  // namespace

MemoryTaskStore::MemoryTaskStore(std::chrono::milliseconds ttl, size_t max_tasks,
                                 std::chrono::milliseconds poll_interval)
    : ttl_(ttl), max_tasks_(max_tasks), poll_interval_(poll_interval) {}

TaskStore::Created MemoryTaskStore::create(std::string owner, std::string_view tool,
                                           std::function<void()> cancel) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  expire(now);
  if (tasks_.size() >= max_tasks_) {
    // Room for the new one: the finished task created first goes. Working
    // tasks stay (there are at most as many as call slots).
    auto oldest = tasks_.end();
    for (auto it = tasks_.begin(); it != tasks_.end(); ++it)
      if (it->second.status != TaskStatus::Working &&
          (oldest == tasks_.end() || it->second.created < oldest->second.created))
        oldest = it;
    if (oldest != tasks_.end()) tasks_.erase(oldest);
  }
  std::string id = random_hex_id();
  Task& t = tasks_[id];
  t.owner = std::move(owner);
  t.tool = std::string(tool);
  t.created = t.updated = std::chrono::system_clock::now();
  t.expires = now + ttl_;
  t.cancel = std::move(cancel);
  HostValue view = render(id, t);
  return {std::move(id), std::move(view)};
}

void MemoryTaskStore::finish(const std::string& id, HostValue result, bool stopped) {
  std::vector<std::function<void()>> waiting;
  {
    std::lock_guard lock(mutex_);
    auto it = tasks_.find(id);
    if (it == tasks_.end()) return;  // working tasks are never dropped, so only after a restart
    Task& t = it->second;
    t.cancel = nullptr;
    t.updated = std::chrono::system_clock::now();
    if (t.cancel_asked || stopped) {
      t.status = TaskStatus::Cancelled;
    } else {
      t.status = TaskStatus::Completed;
      t.result = std::move(result);
    }
    waiting.swap(t.on_stop);
  }
  // Outside the lock: an ack writes to a peer, which may block.
  for (auto& ack : waiting)
    ack();
}

MemoryTaskStore::Task* MemoryTaskStore::find(std::string_view id, std::string_view owner) {
  expire(std::chrono::steady_clock::now());
  auto it = tasks_.find(id);
  if (it == tasks_.end() || it->second.owner != owner) return nullptr;
  return &it->second;
}

void MemoryTaskStore::expire(std::chrono::steady_clock::time_point now) {
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    Task& t = it->second;
    if (t.expires > now) {
      ++it;
    } else if (t.status == TaskStatus::Working) {
      // Past its time and still working: stopped now, forgotten once it
      // ended (so cancels waiting on it are answered).
      if (!t.cancel_asked && t.cancel) t.cancel();
      t.cancel_asked = true;
      ++it;
    } else {
      it = tasks_.erase(it);
    }
  }
}

std::optional<HostValue> MemoryTaskStore::view(std::string_view id, std::string_view owner) {
  std::lock_guard lock(mutex_);
  Task* t = find(id, owner);
  if (!t) return std::nullopt;
  return render(id, *t);
}

HostValue render_task(std::string_view id, const TaskState& t, std::chrono::milliseconds ttl,
                      std::chrono::milliseconds poll_interval) {
  std::vector<std::pair<HostValue, HostValue>> fields;
  fields.emplace_back(str("taskId"), str(id));
  switch (t.status) {
    case TaskStatus::Working:
      fields.emplace_back(str("status"), str("working"));
      fields.emplace_back(str("statusMessage"),
                          str(t.cancel_asked ? fmt::format("{} is stopping (cancel asked)", t.tool)
                                             : fmt::format("{} is running", t.tool)));
      break;
    case TaskStatus::Completed:
      fields.emplace_back(str("status"), str("completed"));
      break;
    case TaskStatus::Failed:
      fields.emplace_back(str("status"), str("failed"));
      fields.emplace_back(str("statusMessage"), str(t.failure));
      break;
    case TaskStatus::Cancelled:
      fields.emplace_back(str("status"), str("cancelled"));
      fields.emplace_back(str("statusMessage"), str("cancelled by tasks/cancel"));
      break;
  }
  fields.emplace_back(str("createdAt"), str(utc_timestamp(t.created)));
  fields.emplace_back(str("lastUpdatedAt"), str(utc_timestamp(t.updated)));
  fields.emplace_back(str("ttlMs"), HostValue::integer(ttl.count()));
  fields.emplace_back(str("pollIntervalMs"), HostValue::integer(poll_interval.count()));
  if (t.status == TaskStatus::Completed) fields.emplace_back(str("result"), t.result);
  return HostValue::map(std::move(fields));
}

bool MemoryTaskStore::cancel(std::string_view id, std::string_view owner,
                             std::function<void()> stopped) {
  {
    std::lock_guard lock(mutex_);
    Task* t = find(id, owner);
    if (!t) return false;
    if (t->status == TaskStatus::Working) {
      if (!t->cancel_asked) {
        t->cancel_asked = true;
        t->updated = std::chrono::system_clock::now();
        if (t->cancel) t->cancel();
      }
      t->on_stop.push_back(std::move(stopped));
      return true;
    }
  }
  stopped();
  return true;
}

bool MemoryTaskStore::exists(std::string_view id, std::string_view owner) {
  std::lock_guard lock(mutex_);
  return find(id, owner) != nullptr;
}

void MemoryTaskStore::cancel_all() {
  std::lock_guard lock(mutex_);
  for (auto& [id, t] : tasks_)
    if (t.status == TaskStatus::Working && t.cancel) {
      t.cancel_asked = true;
      t.cancel();
    }
}

size_t MemoryTaskStore::size() {
  std::lock_guard lock(mutex_);
  return tasks_.size();
}

std::unique_ptr<TaskStore> make_task_store(const ServerConfig& config,
                                           std::chrono::milliseconds poll_interval) {
  if (config.shared_store)
    return std::make_unique<RedisTaskStore>(
        config.shared_store, std::chrono::milliseconds(config.task_ttl_ms),
        std::chrono::milliseconds(config.task_lease_ms), poll_interval);
  return std::make_unique<MemoryTaskStore>(std::chrono::milliseconds(config.task_ttl_ms),
                                           config.max_tasks, poll_interval);
}

std::string missing_tasks_capability_frame(const HostValue& id) {
  return error_frame(
      id, kMissingRequiredClientCapability,
      fmt::format("Missing required client capability: declare the extension {} in "
                  "params._meta[\"{}\"].extensions to use tasks",
                  kTasksExtension, kClientCapabilitiesKey),
      HostValue::map(
          {{str("requiredCapabilities"),
            HostValue::map({{str("extensions"),
                             HostValue::map({{str(kTasksExtension), HostValue::map({})}})}})}}));
}

}  // namespace ptc::mcp
