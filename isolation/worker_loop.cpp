#include "isolation/worker_loop.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "embedding/compiled_hook.hpp"
#include "isolation/frames.hpp"

namespace ptc::isolation {

namespace {

// Prepared contexts a worker keeps, by the parent's id; the parent mirrors
// this list (same capacity, same order) to know when to send a value again.
constexpr size_t kPreparedContexts = 4;
// What the parent may send in one frame: a program, its context and memory.
constexpr size_t kMaxParentFrame = size_t{1} << 31;

class Worker {
 public:
  Worker(int fd, WorkerTestHook hook) : fd_(fd), hook_(hook) {}

  [[noreturn]] void serve() {
    std::thread reader([this] { read_loop(); });
    reader.detach();
    for (;;) {
      std::string body;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return !runs_.empty(); });
        body = std::move(runs_.front());
        runs_.pop_front();
      }
      Step step = run_one(body);
      send(FrameKind::Done, encode_step(step));
    }
  }

 private:
  void send(FrameKind kind, const std::string& body) {
    std::lock_guard lock(write_mutex_);
    if (!write_frame(fd_, kind, body)) _exit(0);  // the parent is gone
  }

  void read_loop() {
    Frame frame;
    for (;;) {
      if (read_frame(fd_, kMaxParentFrame, frame) != ReadStatus::Ok) _exit(0);
      switch (frame.kind) {
        case FrameKind::Run: {
          std::lock_guard lock(mutex_);
          cancel_.store(false);
          runs_.push_back(std::move(frame.body));
          wake_.notify_one();
          break;
        }
        case FrameKind::ToolReply: {
          ToolReply reply;
          try {
            reply = decode_tool_reply(frame.body);
          } catch (...) {
            _exit(1);
          }
          std::lock_guard lock(mutex_);
          auto it = waiting_.find(reply.id);
          if (it != waiting_.end()) {
            it->second.set_value(std::move(reply.result));
            waiting_.erase(it);
          }
          break;
        }
        case FrameKind::Cancel:
          cancel_.store(true);
          break;
        default:
          _exit(0);  // the parent sends nothing else
      }
    }
  }

  ToolResult call_parent(const std::string& tool, const HostValue& args) {
    std::future<ToolResult> answer;
    uint64_t id;
    {
      std::lock_guard lock(mutex_);
      id = next_call_++;
      answer = waiting_[id].get_future();
    }
    send(FrameKind::ToolCall, encode_tool_call({id, tool, args}));
    return answer.get();
  }

  std::shared_ptr<const PreparedContext> prepared(const RunRequest& q) {
    auto found = std::find_if(prepared_.begin(), prepared_.end(),
                              [&](const auto& p) { return p.first == q.prepared_id; });
    std::shared_ptr<const PreparedContext> context;
    if (q.prepared_value) {
      if (found != prepared_.end()) prepared_.erase(found);
      context = prepare_context(*q.prepared_value);
    } else {
      if (found == prepared_.end())
        throw_error(ErrorKind::InternalError,
                    "the worker was sent a prepared context it does not hold");
      context = found->second;
      prepared_.erase(found);
    }
    prepared_.emplace_front(q.prepared_id, context);
    if (prepared_.size() > kPreparedContexts) prepared_.pop_back();
    return context;
  }

  Step run_one(const std::string& body) {
    RunRequest q;
    try {
      q = decode_run(body);
    } catch (LispError& e) {
      Step failed;
      failed.error = e.error();
      return failed;
    }
    RunOptions o;
    switch (q.context_form) {
      case RunRequest::Context::Value:
        o.context = std::move(q.context);
        break;
      case RunRequest::Context::Json:
        o.context_json = q.context_json;
        break;
      case RunRequest::Context::Prepared:
        try {
          o.prepared_context = prepared(q);
        } catch (LispError& e) {
          Step failed;
          failed.error = e.error();
          return failed;
        }
        break;
    }
    o.memory = std::move(q.memory);
    o.turn_history = std::move(q.turn_history);
    for (const ToolSpec& t : q.tools) {
      Tool tool;
      tool.cacheable = t.cacheable;
      tool.deferred = t.deferred;
      tool.fn = [this, name = t.name](const HostValue& args) { return call_parent(name, args); };
      o.tools.emplace(t.name, std::move(tool));
    }
    o.deferred_tools = std::move(q.deferred_tools);
    for (auto& [name, why] : q.unavailable_tools)
      o.unavailable_tools.emplace(std::move(name), std::move(why));
    if (q.catalog) o.tool_catalog = std::make_shared<const ToolCatalog>(std::move(*q.catalog));
    o.signature = std::move(q.signature);
    o.float_precision = q.float_precision;
    o.limits = q.limits;
    o.filter_context = q.filter_context;
    o.budget = std::move(q.budget);
    o.caller = std::move(q.caller);
    o.profile = std::move(q.profile);
    o.display_limit = static_cast<size_t>(q.display_limit);
    o.attempt_us = q.attempt_us;
    o.cancel = &cancel_;
    // Compiled: the parent's deadline is the run's from here. A test hook
    // acts now, inside the run, as a fault in a builtin would.
    running_source_ = q.source;
    set_compiled_hook(
        [](void* data) {
          auto* self = static_cast<Worker*>(data);
          self->send(FrameKind::Started, {});
          if (self->hook_) self->hook_(self->running_source_);
        },
        this);
    Step step = programs_.run(q.source, o);
    set_compiled_hook(nullptr, nullptr);
    return step;
  }

  int fd_;
  WorkerTestHook hook_;
  std::string running_source_;
  std::mutex write_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::string> runs_;
  std::map<uint64_t, std::promise<ToolResult>> waiting_;
  uint64_t next_call_ = 0;
  std::atomic<bool> cancel_{false};
  std::deque<std::pair<uint64_t, std::shared_ptr<const PreparedContext>>> prepared_;
  ProgramCache programs_{64, size_t{32} << 20};
};

}  // namespace

void serve_worker(int fd, WorkerTestHook hook) {
  // Never destroyed: the process ends with _exit, without running
  // destructors (or a leak checker) that need more than the jail allows.
  auto* worker = new Worker(fd, hook);
  worker->serve();
}

}  // namespace ptc::isolation
