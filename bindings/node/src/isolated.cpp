// Isolated runs: WorkerPool of index.js over ptc::WorkerPool (handles of
// shared references; the default pool is one per process, shared by every
// thread), and run()/runSync() with the isolate option. An isolated run is
// ptc::run with RunOptions::isolate, whose program runs in a worker process
// while its tool calls come back to this process on threads the pool starts
// for them; the JS tools must run on the main thread, so each such call is
// handed over and its thread waits for the answer:
//   - run(): ptc::run on a thread of its own (not node's pool, whose threads
//     a run waiting on its tools must not hold: the tools may need them),
//     which hands each call, then the outcome, to the main thread through a
//     thread-safe function; index.js calls the tool, awaits it, and answers
//     with answerIsolated;
//   - runSync(): ptc::run on a thread of its own while the calling thread
//     takes the calls from a queue and calls the (synchronous) tools itself.
// A waiting call gives up when its run is cancelled or stopped (the
// ToolCallContext of the call); a run aborted so ends `cancelled`, as an
// in-process run() aborted while it waits on its tools does.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "convert.hpp"
#include "exports.hpp"
#include "jobs.hpp"

namespace ptc::node {

namespace {

constexpr napi_type_tag kPoolTag = {0x7074636c69737031ULL, 0x706f6f6c2d776b72ULL};
constexpr napi_type_tag kIsolatedTag = {0x7074636c69737031ULL, 0x69736f6c61746564ULL};

// ---------------------------------------------------------------- pools

// A handle's reference; closeWorkerPool drops it (runs in flight keep
// theirs).
struct PoolHolder {
  std::shared_ptr<WorkerPool> pool;
};

napi_value pool_handle(napi_env env, std::shared_ptr<WorkerPool> pool) {
  auto holder = std::make_unique<PoolHolder>(PoolHolder{std::move(pool)});
  napi_value out = nullptr;
  check(env, napi_create_external(
                 env, holder.get(),
                 [](napi_env, void* data, void*) { delete static_cast<PoolHolder*>(data); },
                 nullptr, &out));
  holder.release();
  check(env, napi_type_tag_object(env, out, &kPoolTag));
  return out;
}

PoolHolder* holder_of(napi_env env, napi_value value) {
  void* data = nullptr;
  if (napi_get_value_external(env, value, &data) != napi_ok) return nullptr;
  bool tagged = false;
  check(env, napi_check_object_type_tag(env, value, &kPoolTag, &tagged));
  return tagged ? static_cast<PoolHolder*>(data) : nullptr;
}

PoolHolder& required_holder(napi_env env, napi_value value) {
  PoolHolder* holder = holder_of(env, value);
  if (!holder) throw_type_error(env, "ptc-lisp: not a WorkerPool handle");
  return *holder;
}

// The pool, or an Error (code ERR_PTC_UNAVAILABLE) saying why it cannot
// start: no ptc-worker found, or it failed to come up.
std::shared_ptr<WorkerPool> start_pool(napi_env env, WorkerPoolOptions options) {
  try {
    return std::make_shared<WorkerPool>(std::move(options));
  } catch (const LispError& e) {
    const Error& error = e.error();
    std::string message = "ptc-lisp: " + error.message;
    if (!error.hint.empty()) message += "; " + error.hint;
    napi_throw_error(env, "ERR_PTC_UNAVAILABLE", message.c_str());
    throw_pending();
  }
}

uint64_t whole_number(napi_env env, napi_value v, const std::string& name, uint64_t max) {
  napi_valuetype t = type_of(env, v);
  if (t != napi_number)
    throw_type_error(
        env, "WorkerPool option " + name + " must be a number, got " + std::string(type_name(t)));
  double d = 0;
  check(env, napi_get_value_double(env, v, &d));
  if (!(d >= 0) || d > static_cast<double>(max) || std::trunc(d) != d)
    throw_range_error(env, "WorkerPool option " + name + " must be an integer from 0 to " +
                               std::to_string(max) + ", got " + std::to_string(d));
  return static_cast<uint64_t>(d);
}

bool flag(napi_env env, napi_value v, const std::string& name) {
  napi_valuetype t = type_of(env, v);
  if (t != napi_boolean)
    throw_type_error(
        env, "WorkerPool option " + name + " must be a boolean, got " + std::string(type_name(t)));
  bool b = false;
  check(env, napi_get_value_bool(env, v, &b));
  return b;
}

WorkerPoolOptions pool_options(napi_env env, napi_value options) {
  WorkerPoolOptions o;
  napi_valuetype t = type_of(env, options);
  if (t == napi_undefined || t == napi_null) return o;
  require_object(env, options, "WorkerPool options");
  for_each_property(env, options, [&](napi_value key, napi_value v) {
    std::string name = string_of(env, key);
    if (type_of(env, v) == napi_undefined) return;  // as if absent
    if (name == "workers") {
      o.workers = whole_number(env, v, name, 4096);
    } else if (name == "maxRuns") {
      o.max_runs = whole_number(env, v, name, uint64_t{1} << 53);
    } else if (name == "maxHeap") {
      o.max_heap_bytes = whole_number(env, v, name, uint64_t{1} << 40);
    } else if (name == "killMargin") {
      o.kill_margin_ms = static_cast<uint32_t>(whole_number(env, v, name, UINT32_MAX));
    } else if (name == "maxFrameBytes") {
      o.max_frame_bytes = whole_number(env, v, name, uint64_t{1} << 53);
    } else if (name == "workerPath") {
      if (type_of(env, v) != napi_string)
        throw_type_error(env, "WorkerPool option workerPath must be a string, got " +
                                  std::string(type_name(type_of(env, v))));
      o.worker_path = string_of(env, v);
    } else if (name == "namespaces") {
      o.namespaces = flag(env, v, name);
    } else if (name == "workerStderr") {
      o.worker_stderr = flag(env, v, name);
    } else if (name == "cpuHandoff") {
      o.cpu_handoff = flag(env, v, name);
    } else {
      throw_type_error(env, "unknown WorkerPool option '" + name + "'");
    }
  });
  return o;
}

// createWorkerPool(options) -> handle
napi_value create_worker_pool(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    WorkerPoolOptions options = pool_options(env, first_argument(env, info));
    return pool_handle(env, start_pool(env, std::move(options)));
  });
}

// defaultWorkerPool() -> a handle over the process's default pool, made on
// first use (by whichever thread asks first) and never destroyed: its
// workers end with the process (the launcher ends them when its socket
// closes).
napi_value default_worker_pool(napi_env env, napi_callback_info) {
  return guard(env, [&] {
    static std::mutex mutex;
    static auto* pool = new std::shared_ptr<WorkerPool>;
    std::shared_ptr<WorkerPool> p;
    {
      std::lock_guard lock(mutex);
      if (!*pool) *pool = start_pool(env, {});
      p = *pool;
    }
    return pool_handle(env, std::move(p));
  });
}

// workerPoolStats(handle) -> {workers, busy, started, runs, recycled, died,
// killed, contextsSent, contextsHandedOver, namespaces, workerPath}
napi_value worker_pool_stats(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    std::shared_ptr<WorkerPool> pool = worker_pool_of(env, first_argument(env, info));
    if (!pool) throw_type_error(env, "ptc-lisp: not a WorkerPool handle");
    WorkerPoolStats s = pool->stats();
    napi_value out = nullptr;
    check(env, napi_create_object(env, &out));
    napi_property_descriptor fields[] = {
        field("workers", js_number(env, static_cast<double>(s.workers))),
        field("busy", js_number(env, static_cast<double>(s.busy))),
        field("started", js_number(env, static_cast<double>(s.started))),
        field("runs", js_number(env, static_cast<double>(s.runs))),
        field("recycled", js_number(env, static_cast<double>(s.recycled))),
        field("died", js_number(env, static_cast<double>(s.died))),
        field("killed", js_number(env, static_cast<double>(s.killed))),
        field("contextsSent", js_number(env, static_cast<double>(s.contexts_sent))),
        field("contextsHandedOver", js_number(env, static_cast<double>(s.contexts_handed_over))),
        field("namespaces", js_bool(env, s.namespaces)),
        field("workerPath", js_string(env, pool->worker_path())),
    };
    check(env, napi_define_properties(env, out, std::size(fields), fields));
    return out;
  });
}

// closeWorkerPool(handle): the handle lets go of its reference.
napi_value close_worker_pool(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    required_holder(env, first_argument(env, info)).pool.reset();
    return js_undefined(env);
  });
}

// ---------------------------------------------------------------- runs

// A tool call of an isolated run, waiting on its thread for the answer.
struct HostCall {
  uint64_t id = 0;
  std::string tool;
  HostValue args;
  bool answered = false;
  ToolResult answer;
};

struct IsolatedJob {
  // What set_up fills.
  std::string source;
  std::shared_ptr<const Program> program;
  ParsedOptions options;
  std::atomic<bool> cancel{false};
  std::optional<protocol::Profile> payload_profile;

  std::mutex mutex;
  std::condition_variable changed;
  std::map<uint64_t, std::shared_ptr<HostCall>> waiting;  // handed over, not answered
  std::deque<std::shared_ptr<HostCall>> queued;           // runSync: not yet taken
  uint64_t next_id = 0;
  bool finished = false;  // runSync: the run thread is done
  bool gave_up = false;   // a call stopped waiting: the run was cancelled

  Step step;
  std::string payload;
  std::string failure;  // an unexpected C++ exception

  napi_threadsafe_function tsfn = nullptr;  // run(): calls and the end, to the main thread
};

// What the run thread hands the main thread through the thread-safe
// function: a call, or (call null) the end of the run.
struct Event {
  std::shared_ptr<HostCall> call;
};

void answer(IsolatedJob& job, uint64_t id, ToolResult result) {
  std::lock_guard lock(job.mutex);
  auto it = job.waiting.find(id);
  if (it == job.waiting.end()) return;  // given up meanwhile (cancelled, stopped)
  it->second->answer = std::move(result);
  it->second->answered = true;
  job.waiting.erase(it);
  job.changed.notify_all();
}

// What a call that stopped waiting answers (the program's tool_error,
// turned into the run's `cancelled` by run_job).
constexpr std::string_view kGaveUp = "the run was cancelled while this call waited";

// A tool's implementation in an isolated run: hands the call to the main
// thread and waits for its answer, or until the run no longer needs it.
ToolResult call_on_main_thread(IsolatedJob& job, const std::string& tool, const HostValue& args) {
  auto call = std::make_shared<HostCall>();
  call->tool = tool;
  call->args = args;
  {
    std::lock_guard lock(job.mutex);
    call->id = job.next_id++;
    job.waiting.emplace(call->id, call);
    if (!job.tsfn) {
      job.queued.push_back(call);
      job.changed.notify_all();
    }
  }
  if (job.tsfn) {
    auto event = std::make_unique<Event>(Event{call});
    if (napi_call_threadsafe_function(job.tsfn, event.get(), napi_tsfn_blocking) != napi_ok) {
      std::lock_guard lock(job.mutex);
      job.waiting.erase(call->id);
      return ToolResult::failure("the thread that ran the tools is gone");
    }
    event.release();
  }
  const ToolCallContext* context = current_tool_call();
  std::unique_lock lock(job.mutex);
  while (!call->answered) {
    if (context && context->cancelled()) {
      job.waiting.erase(call->id);
      job.gave_up = true;
      return ToolResult::failure(std::string(kGaveUp));
    }
    job.changed.wait_for(lock, std::chrono::milliseconds(20));
  }
  return std::move(call->answer);
}

// The run's tools: each a call to the main thread, none deferred.
void host_tools(IsolatedJob& job) {
  RunOptions& run = job.options.run;
  run.deferred_tools.clear();
  for (const std::string& name : job.options.tools) {
    Tool tool;
    tool.fn = [j = &job, name](const HostValue& args) {
      return call_on_main_thread(*j, name, args);
    };
    run.tools.insert_or_assign(name, std::move(tool));
  }
}

// A run that ended on the failure of a call that gave up waiting because it
// was cancelled ends `cancelled` (the call leaves the ledger), as run() in
// process reports an abort while the program waits on its tools.
void report_cancelled(IsolatedJob& job) {
  Step& step = job.step;
  {
    std::lock_guard lock(job.mutex);
    if (!job.gave_up) return;
  }
  if (step.ok || step.error.kind != ErrorKind::ToolError ||
      step.error.message.find(kGaveUp) == std::string::npos)
    return;
  step.error.kind = ErrorKind::Cancelled;
  step.error.message = "execution was cancelled";
  step.error.hint.clear();
  std::erase_if(step.tool_calls, [](const ToolCall& c) { return c.error == kGaveUp; });
}

void run_job(IsolatedJob& job) {
  try {
    job.step = job.program ? run(*job.program, job.options.run) : run(job.source, job.options.run);
  } catch (const LispError& e) {
    job.step = error_step(e.error(), job.options.run);
  } catch (const std::exception& e) {
    job.failure = e.what();
    return;
  }
  report_cancelled(job);
  if (job.payload_profile) job.payload = payload_of(job.step);
}

// The handle index.js keeps for answers and abort.
napi_value job_handle(napi_env env, std::shared_ptr<IsolatedJob> job) {
  using Holder = std::shared_ptr<IsolatedJob>;
  auto holder = std::make_unique<Holder>(std::move(job));
  napi_value out = nullptr;
  check(env,
        napi_create_external(
            env, holder.get(),
            [](napi_env, void* data, void*) { delete static_cast<Holder*>(data); }, nullptr, &out));
  holder.release();
  check(env, napi_type_tag_object(env, out, &kIsolatedTag));
  return out;
}

IsolatedJob& job_of_handle(napi_env env, napi_value value) {
  void* data = nullptr;
  bool tagged = false;
  if (napi_get_value_external(env, value, &data) == napi_ok)
    check(env, napi_check_object_type_tag(env, value, &kIsolatedTag, &tagged));
  if (!tagged) throw_type_error(env, "ptc-lisp: not an isolated run handle");
  return **static_cast<std::shared_ptr<IsolatedJob>*>(data);
}

// The JS object of a call: {id, tool, args}.
napi_value call_object(napi_env env, const HostCall& call) {
  napi_value out = nullptr;
  check(env, napi_create_object(env, &out));
  napi_property_descriptor fields[] = {
      field("id", js_number(env, static_cast<double>(call.id))),
      field("tool", js_string(env, call.tool)),
      field("args", to_js(env, call.args)),
  };
  check(env, napi_define_properties(env, out, std::size(fields), fields));
  return out;
}

napi_value outcome_object(napi_env env, IsolatedJob& job) {
  return result_object(env, job.step, job.payload_profile ? &job.payload : nullptr);
}

// A JS answer (ok, value) as the tool's result, converted as an
// execution's answers are (jobs.cpp take_answers).
ToolResult answer_of(napi_env env, bool ok, napi_value value) {
  if (!ok) return ToolResult::failure(string_of(env, value));
  ToolResult result;
  std::string problem = to_host_or_message(env, value, result.value);
  if (!problem.empty()) return ToolResult::failure("the tool's value has no JSON form: " + problem);
  return result;
}

// On the main thread, for each Event: onEvent(error, call, result).
void deliver(napi_env env, napi_value on_event, void* context, void* data) {
  std::unique_ptr<Event> event(static_cast<Event*>(data));
  IsolatedJob& job = **static_cast<std::shared_ptr<IsolatedJob>*>(context);
  if (!env) {  // the environment is going away: nobody will answer
    job.cancel.store(true);
    if (event->call) answer(job, event->call->id, ToolResult::failure("the run's thread ended"));
    return;
  }
  napi_value argv[3] = {nullptr, nullptr, nullptr};
  try {
    argv[0] = argv[1] = argv[2] = js_null(env);
    if (event->call) {
      {
        std::lock_guard lock(job.mutex);
        if (!job.waiting.count(event->call->id)) return;  // given up meanwhile
      }
      argv[1] = call_object(env, *event->call);
    } else if (!job.failure.empty()) {
      napi_value message = js_string(env, "ptc-lisp: " + job.failure);
      check(env, napi_create_error(env, nullptr, message, &argv[0]));
    } else {
      argv[2] = outcome_object(env, job);
    }
  } catch (...) {
    // A conversion failed (a pending exception, or no memory): the call
    // fails; the end becomes the error.
    napi_value error = nullptr;
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) napi_get_and_clear_last_exception(env, &error);
    if (event->call) {
      answer(job, event->call->id, ToolResult::failure("the call could not be handed to JS"));
      return;
    }
    if (!error) napi_create_string_utf8(env, "ptc-lisp: internal error", NAPI_AUTO_LENGTH, &error);
    argv[0] = error;
    napi_get_null(env, &argv[1]);
    napi_get_null(env, &argv[2]);
  }
  napi_value undefined = nullptr;
  napi_get_undefined(env, &undefined);
  napi_call_function(env, undefined, on_event, 3, argv, nullptr);
}

// runIsolated(program, options, payloadProfile, onEvent) -> handle
// onEvent(null, {id, tool, args}, null) for each tool call (answer it with
// answerIsolated), then onEvent(null, null, result) or onEvent(error).
napi_value run_isolated(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[4];
    arguments(env, info, argv);
    auto job = std::make_shared<IsolatedJob>();
    set_up(env, argv, *job);
    if (!job->options.run.isolate) throw_type_error(env, "ptc-lisp: runIsolated needs isolate");
    if (type_of(env, argv[3]) != napi_function) throw_type_error(env, "onEvent must be a function");
    host_tools(*job);
    auto context = std::make_unique<std::shared_ptr<IsolatedJob>>(job);
    check(env, napi_create_threadsafe_function(
                   env, argv[3], nullptr, js_string(env, "ptc-lisp.isolated"), 0, 1, context.get(),
                   [](napi_env, void* data, void*) {
                     delete static_cast<std::shared_ptr<IsolatedJob>*>(data);
                   },
                   context.get(), deliver, &job->tsfn));
    context.release();
    try {
      std::thread([job] {
        run_job(*job);
        auto end = std::make_unique<Event>();
        if (napi_call_threadsafe_function(job->tsfn, end.get(), napi_tsfn_blocking) == napi_ok)
          end.release();
        napi_release_threadsafe_function(job->tsfn, napi_tsfn_release);
      }).detach();
    } catch (...) {
      napi_release_threadsafe_function(job->tsfn, napi_tsfn_abort);
      throw;
    }
    return job_handle(env, job);
  });
}

// answerIsolated(handle, id, ok, value): the answer to a call (ok: value is
// the tool's value; else its error message). A call given up is ignored.
napi_value answer_isolated(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[4];
    arguments(env, info, argv);
    IsolatedJob& job = job_of_handle(env, argv[0]);
    double id = 0;
    check(env, napi_get_value_double(env, argv[1], &id));
    bool ok = false;
    check(env, napi_get_value_bool(env, argv[2], &ok));
    answer(job, static_cast<uint64_t>(id), answer_of(env, ok, argv[3]));
    return js_undefined(env);
  });
}

// abortIsolated(handle): the run ends with `cancelled`; its waiting calls
// give up.
napi_value abort_isolated(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    IsolatedJob& job = job_of_handle(env, first_argument(env, info));
    job.cancel.store(true);
    std::lock_guard lock(job.mutex);
    job.changed.notify_all();
    return js_undefined(env);
  });
}

// runIsolatedSync(program, options, payloadProfile, callTool) -> result
// callTool(tool, args) -> [ok, value], called on this thread for each call.
napi_value run_isolated_sync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[4];
    arguments(env, info, argv);
    IsolatedJob job;
    set_up(env, argv, job);
    if (!job.options.run.isolate) throw_type_error(env, "ptc-lisp: runIsolatedSync needs isolate");
    if (type_of(env, argv[3]) != napi_function)
      throw_type_error(env, "callTool must be a function");
    host_tools(job);
    std::thread runner([&job] {
      run_job(job);
      std::lock_guard lock(job.mutex);
      job.finished = true;
      job.changed.notify_all();
    });
    // However this call ends, the run ends first: cancelled, its waiting
    // calls give up (the tools capture `job`).
    struct Join {
      IsolatedJob& job;
      std::thread& thread;
      ~Join() {
        if (!thread.joinable()) return;
        job.cancel.store(true);
        thread.join();
      }
    } join{job, runner};
    napi_value thrown = nullptr;  // a JS exception to rethrow once the run has ended
    for (;;) {
      std::shared_ptr<HostCall> call;
      {
        std::unique_lock lock(job.mutex);
        job.changed.wait(lock, [&] { return !job.queued.empty() || job.finished; });
        if (job.queued.empty()) break;
        call = std::move(job.queued.front());
        job.queued.pop_front();
        if (!job.waiting.count(call->id)) continue;  // given up meanwhile
      }
      ToolResult result = ToolResult::failure("the tool failed");
      if (!thrown) {
        try {
          napi_value args[2] = {js_string(env, call->tool), to_js(env, call->args)};
          napi_value out = nullptr;
          check(env, napi_call_function(env, js_undefined(env), argv[3], 2, args, &out));
          napi_value ok = nullptr;
          napi_value value = nullptr;
          check(env, napi_get_element(env, out, 0, &ok));
          check(env, napi_get_element(env, out, 1, &value));
          bool is_ok = false;
          check(env, napi_get_value_bool(env, ok, &is_ok));
          result = answer_of(env, is_ok, value);
        } catch (...) {
          // The thread is being stopped (a worker's terminate()), or no
          // memory: stop the run, answer what is left with failures.
          bool pending = false;
          napi_is_exception_pending(env, &pending);
          if (pending) napi_get_and_clear_last_exception(env, &thrown);
          if (!thrown)
            napi_create_string_utf8(env, "ptc-lisp: a tool call failed", NAPI_AUTO_LENGTH, &thrown);
          job.cancel.store(true);
        }
      }
      answer(job, call->id, std::move(result));
    }
    runner.join();  // finished (Join then has nothing to do)
    if (thrown) {
      napi_throw(env, thrown);
      throw_pending();
    }
    if (!job.failure.empty()) throw_error(env, "ptc-lisp: " + job.failure);
    return outcome_object(env, job);
  });
}

}  // namespace

std::shared_ptr<WorkerPool> worker_pool_of(napi_env env, napi_value value) {
  PoolHolder* holder = holder_of(env, value);
  if (!holder) return nullptr;
  if (!holder->pool) throw_type_error(env, "ptc-lisp: the WorkerPool is closed");
  return holder->pool;
}

void register_isolation(napi_env env, napi_value exports) {
  export_function(env, exports, "createWorkerPool", create_worker_pool);
  export_function(env, exports, "defaultWorkerPool", default_worker_pool);
  export_function(env, exports, "workerPoolStats", worker_pool_stats);
  export_function(env, exports, "closeWorkerPool", close_worker_pool);
  export_function(env, exports, "runIsolated", run_isolated);
  export_function(env, exports, "answerIsolated", answer_isolated);
  export_function(env, exports, "abortIsolated", abort_isolated);
  export_function(env, exports, "runIsolatedSync", run_isolated_sync);
}

}  // namespace ptc::node
