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
#include "embedding/shared_inputs.hpp"
#include "isolation/frames.hpp"

namespace ptc::isolation {

namespace {

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

// The main thread reads the parent's socket between runs. During a run, the tool
// calls' replies are read by whichever waiting call gets there first, and
// handed to the others (no reader thread: a run costs no thread hop).
class Worker {
 public:
  Worker(int from_parent, int to_parent, WorkerTestHook hook)
      : to_parent_(to_parent), hook_(hook), reader_(from_parent, kMaxParentFrame) {}

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
        if (!write_frame(to_parent_, FrameKind::Started,
                         encode_started(static_cast<uint32_t>(since_ms))))
          _exit(0);
      }
    }).detach();
    for (;;) {
      Frame frame;
      if (reader_.next(frame) != ReadStatus::Ok) _exit(0);  // the parent is gone
      if (frame.kind == FrameKind::ToolReply) continue;     // for a run that ended (timed out)
      if (frame.kind == FrameKind::Prepare) {
        hold_ahead(frame.body);
        continue;
      }
      if (frame.kind != FrameKind::Run) _exit(0);  // the parent sends nothing else
      g_run.fetch_add(1);
      g_cancel.store(false);
      Step step = run_one(frame.body);
      std::string done = encode_step(step);
      std::lock_guard lock(write_mutex_);
      g_compiled_at.store(0);
      if (!write_frame(to_parent_, FrameKind::Done, done)) _exit(0);
    }
  }

 private:
  void send(FrameKind kind, const std::string& body) {
    std::lock_guard lock(write_mutex_);
    if (!write_frame(to_parent_, kind, body)) _exit(0);
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

  // A context the parent sent (or sent before), kept by its id. One that
  // could not be prepared here is kept as its error, so that this list
  // changes exactly as the parent's mirror of it does, and a run over it
  // fails as the first did.
  struct Held {
    uint64_t id = 0;
    std::shared_ptr<const PreparedContext> context;
    Error failed;
  };

  // The context of a run: held already, or sent along (`encoded`).
  std::shared_ptr<const PreparedContext> prepared(
      uint64_t id, const std::shared_ptr<const std::string>& encoded) {
    auto found =
        std::find_if(prepared_.begin(), prepared_.end(), [&](const Held& h) { return h.id == id; });
    Held held{id, nullptr, {}};
    if (encoded) {
      try {
        held.context = prepare_encoded_context(*encoded);
      } catch (LispError& e) {
        held.failed = e.error();
      }
    } else {
      if (found == prepared_.end())
        throw_error(ErrorKind::InternalError,
                    "the worker was sent a prepared context it does not hold");
      held = *found;
    }
    hold_first(prepared_, found, held);
    if (!held.context) throw LispError(held.failed);
    return held.context;
  }

  // A context sent ahead of its runs (a Prepare frame): held as a run's
  // would be; a failure waits for the first run over it.
  void hold_ahead(const std::string& body) {
    PrepareRequest q;
    try {
      q = decode_prepare(body);
    } catch (LispError&) {
      _exit(0);  // the parent broke the protocol
    }
    try {
      (void)prepared(q.id, q.encoded);
    } catch (LispError&) {}
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
          o.prepared_context = prepared(q.prepared_id, q.prepared_encoded);
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

  int to_parent_;
  WorkerTestHook hook_;
  FrameReader reader_;
  std::string running_source_;
  std::mutex write_mutex_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  bool reading_ = false;
  std::map<uint64_t, ToolResult> replies_;
  uint64_t next_call_ = 0;
  std::deque<Held> prepared_;
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

void serve_worker(int from_parent, int to_parent, WorkerTestHook hook) {
  // Never destroyed: the process ends with _exit, without running
  // destructors (or a leak checker) that need more than the jail allows.
  auto* worker = new Worker(from_parent, to_parent, hook);
  worker->serve();
}

}  // namespace ptc::isolation
