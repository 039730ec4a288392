#include "isolation/worker_loop.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
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

// A cancel is SIGUSR1 carrying the number of the run it is for (a late one
// must not cancel the next run).
std::atomic<int> g_run{0};
std::atomic<bool> g_cancel{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

void on_cancel(int, siginfo_t* info, void*) {
  if (info->si_code == SI_QUEUE && info->si_value.sival_int == g_run.load()) g_cancel.store(true);
}

// A run's program finished compiling at this steady-clock time (ns); 0
// between runs. Written under the write lock.
std::atomic<int64_t> g_compiled_at{0};
bool g_started_sent = false;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The main thread reads the socket between runs. During a run, the tool
// calls' replies are read by whichever waiting call gets there first, and
// handed to the others (no reader thread: a run costs no thread hop).
class Worker {
 public:
  Worker(int fd, WorkerTestHook hook) : fd_(fd), hook_(hook), reader_(fd, kMaxParentFrame) {}

  [[noreturn]] void serve() {
    // A run still going 25 ms after it compiled tells the parent when it
    // compiled, so that the parent's deadline is the run's own; a short run
    // sends nothing more than its answer.
    std::thread([this] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
        std::lock_guard lock(write_mutex_);
        int64_t at = g_compiled_at.load();
        if (at == 0 || g_started_sent) continue;
        int64_t since_ms = (now_ns() - at) / 1000000;
        if (since_ms < 25) continue;
        g_started_sent = true;
        if (!write_frame(fd_, FrameKind::Started, encode_started(static_cast<uint32_t>(since_ms))))
          _exit(0);
      }
    }).detach();
    for (;;) {
      Frame frame;
      if (reader_.next(frame) != ReadStatus::Ok) _exit(0);  // the parent is gone
      if (frame.kind == FrameKind::ToolReply) continue;     // for a run that ended (timed out)
      if (frame.kind != FrameKind::Run) _exit(0);           // the parent sends nothing else
      g_run.fetch_add(1);
      g_cancel.store(false);
      Step step = run_one(frame.body);
      std::string done = encode_step(step);
      std::lock_guard lock(write_mutex_);
      g_compiled_at.store(0);
      if (!write_frame(fd_, FrameKind::Done, done)) _exit(0);
    }
  }

 private:
  void send(FrameKind kind, const std::string& body) {
    std::lock_guard lock(write_mutex_);
    if (!write_frame(fd_, kind, body)) _exit(0);
  }

  ToolResult call_parent(const std::string& tool, const HostValue& args) {
    uint64_t id;
    {
      std::lock_guard lock(mutex_);
      id = next_call_++;
    }
    send(FrameKind::ToolCall, encode_tool_call({id, tool, args}));
    std::unique_lock lock(mutex_);
    for (;;) {
      if (auto it = replies_.find(id); it != replies_.end()) {
        ToolResult r = std::move(it->second);
        replies_.erase(it);
        return r;
      }
      if (reading_) {
        arrived_.wait(lock);
        continue;
      }
      reading_ = true;
      lock.unlock();
      Frame frame;
      ReadStatus status = reader_.next(frame);
      ToolReply reply;
      bool ok = status == ReadStatus::Ok && frame.kind == FrameKind::ToolReply;
      if (ok) try {
          reply = decode_tool_reply(frame.body);
        } catch (...) {
          ok = false;
        }
      if (!ok) _exit(0);  // the parent is gone, or broke the protocol
      lock.lock();
      reading_ = false;
      replies_[reply.id] = std::move(reply.result);
      arrived_.notify_all();
    }
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
    RunOptions o;
    try {
      q = decode_run(body);
      switch (q.context_form) {
        case RunRequest::Context::Value:
          o.context = std::move(q.context);
          break;
        case RunRequest::Context::Json:
          o.context_json = q.context_json;
          break;
        case RunRequest::Context::Prepared:
          o.prepared_context = prepared(q);
          break;
      }
    } catch (LispError& e) {
      Step failed;
      failed.error = e.error();
      return failed;
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
    o.cancel = &g_cancel;
    // Compiled: the parent's deadline is the run's from here. A test hook
    // acts now, inside the run, as a fault in a builtin would.
    running_source_ = q.source;
    set_compiled_hook(
        [](void* data) {
          auto* self = static_cast<Worker*>(data);
          {
            std::lock_guard lock(self->write_mutex_);
            g_compiled_at.store(now_ns());
            g_started_sent = false;
          }
          if (self->hook_) self->hook_(self->running_source_);
        },
        this);
    Step step = programs_.run(q.source, o);
    set_compiled_hook(nullptr, nullptr);
    return step;
  }

  int fd_;
  WorkerTestHook hook_;
  FrameReader reader_;
  std::string running_source_;
  std::mutex write_mutex_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  bool reading_ = false;
  std::map<uint64_t, ToolResult> replies_;
  uint64_t next_call_ = 0;
  std::deque<std::pair<uint64_t, std::shared_ptr<const PreparedContext>>> prepared_;
  ProgramCache programs_{64, size_t{32} << 20};
};

}  // namespace

void prepare_cancel_signal() {
  struct sigaction action {};
  action.sa_sigaction = on_cancel;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGUSR1, &action, nullptr);
}

void serve_worker(int fd, WorkerTestHook hook) {
  // Never destroyed: the process ends with _exit, without running
  // destructors (or a leak checker) that need more than the jail allows.
  auto* worker = new Worker(fd, hook);
  worker->serve();
}

}  // namespace ptc::isolation
