// The dispatcher: JSON-RPC methods, the gate, the call workers, in-flight
// ids and cancellation. A gated tools/call crosses threads twice: the
// transport's thread hands it to a call worker, which sends the reply itself.
#include "protocol/mcp/server.hpp"

#include <fmt/format.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "protocol/mcp/envelope.hpp"
#include "protocol/mcp/era.hpp"
#include "protocol/mcp/fifo_timer.hpp"
#include "protocol/mcp/json_rpc.hpp"
#include "protocol/mcp/lisp_eval_tool.hpp"
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/session_tools.hpp"
#include "protocol/mcp/shared_store.hpp"
#include "protocol/mcp/tasks.hpp"
#include "runtime/host_builders.hpp"

#ifndef PTC_VERSION
#define PTC_VERSION "0.1.0"
#endif

namespace ptc::mcp {

namespace {

using Clock = std::chrono::steady_clock;

using host::str;

constexpr std::string_view kVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

constexpr std::string_view kInstructions =
    "Call lisp_eval with a PTC-Lisp program to compute, filter, aggregate or transform data "
    "passed as `context`; the program's value comes back as the result.";

HostValue server_info() {
  return HostValue::map({{str("name"), str("ptc-lisp")},
                         {str("title"), str("PTC-Lisp")},
                         {str("version"), str(PTC_VERSION)}});
}

// `result` (a map) with more entries after its own.
HostValue with_entries(const HostValue& result, std::vector<std::pair<HostValue, HostValue>> more) {
  std::vector<std::pair<HostValue, HostValue>> entries;
  const auto& items = result.items();
  entries.reserve(items.size() / 2 + more.size());
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    entries.emplace_back(items[i], items[i + 1]);
  for (auto& e : more)
    entries.push_back(std::move(e));
  return HostValue::map(std::move(entries));
}

// Listing results (server/discover, tools/list) are cacheable in revision
// 2026-07-28: this server's tools are the same for every caller and for its
// whole life, so a client may reuse them for a minute.
HostValue with_cache_hints(const HostValue& result) {
  return with_entries(
      result, {{str("ttlMs"), HostValue::integer(60000)}, {str("cacheScope"), str("public")}});
}

// A result as revision 2026-07-28 sends it: with its kind ("complete": this
// server never asks the client for input mid-request) and the server's info.
HostValue modern_result(const HostValue& result, std::string_view kind = "complete") {
  // Built once: host values share their contents, so every reply reuses these.
  static const HostValue result_type = str("resultType"), complete = str("complete"),
                         meta_key = str("_meta"),
                         meta = HostValue::map({{str(kServerInfoKey), server_info()}});
  return with_entries(result,
                      {{result_type, kind == "complete" ? complete : str(kind)}, {meta_key, meta}});
}

// The reply frame of a modern result: the result's own JSON with the added
// fields spliced in as text made once (the frame ends with the result's
// closing brace and the frame's), not a rebuilt map serialized per reply.
std::string modern_result_frame(const HostValue& id, const HostValue& result) {
  if (result.kind() != HostValue::Kind::Map || result.items().empty())
    return result_frame(id, modern_result(result));
  static const std::string added = [] {
    std::string framed = to_json(modern_result(HostValue::map({})));  // {"resultType":...}
    return "," + framed.substr(1, framed.size() - 2);
  }();
  std::string frame = result_frame(id, result);
  frame.insert(frame.size() - 2, added);
  return frame;
}

// One tools/call in flight.
struct Call {
  std::shared_ptr<Peer> peer;
  Caller caller;
  HostValue id;
  std::string key;                // connection + id
  std::string context_json;       // the call's context as JSON text, for tools that take it so
  bool modern = false;            // a 2026-07-28 request: its result says so (modern_result)
  const McpTool* tool = nullptr;  // the server's: it outlives every call
  std::atomic<bool> cancel{false};
  std::atomic<bool> silent{false};  // cancelled where no reply may follow (stdio)
  // Who answers the request: the call when it ends (Answered), or the
  // promotion to a task when it runs too long (Tasked: the end goes to the
  // task store). Decided once, under state_mutex.
  enum class State { Running, Answered, Tasked };
  std::mutex state_mutex;
  State state = State::Running;
  std::string task_id;
};

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

struct Server::Impl {
  explicit Impl(ServerConfig c)
      : config(std::move(c)),
        capacity(effective_max_concurrent_calls(config)),
        tasks(make_task_store(config, std::chrono::milliseconds(kTaskPollIntervalMs))) {
    if (config.task_after_ms)
      task_timer = std::make_unique<FifoTimer>(std::chrono::milliseconds(config.task_after_ms));
  }

  // The polling hint a task carries: a program's result is usually wanted
  // soon after it is ready.
  static constexpr int64_t kTaskPollIntervalMs = 250;

  ServerConfig config;
  uint32_t capacity;
  std::vector<std::unique_ptr<McpTool>> tools;
  std::atomic<uint32_t> gate{0};
  std::atomic<bool> draining{false};

  // In-flight calls by connection and id; guarded by mutex.
  std::mutex mutex;
  std::condition_variable idle;
  std::unordered_map<std::string, std::shared_ptr<Call>> calls;
  // Calls that became tasks and have not yet handed their end to the task
  // store: a drain waits for them too, so a task that finishes while its
  // server shuts down is stored completed, not cancelled by the shutdown.
  uint32_t tasks_ending = 0;
  // Connections that asked for log messages (logging/setLevel), and their peers.
  std::map<std::string, std::pair<LogLevel, std::weak_ptr<Peer>>, std::less<>> log_subscribers;

  // The call workers: a fixed set, as many as the gate admits, so a call
  // never waits for a thread.
  std::mutex queue_mutex;
  std::condition_variable queue_wake;
  std::deque<std::function<void()>> queue;
  std::vector<std::thread> workers;
  bool stopping = false;

  // Calls that became tasks; the timer that promotes them (declared after
  // the store: it stops first, so no promotion outlives the store).
  std::unique_ptr<TaskStore> tasks;
  std::unique_ptr<FifoTimer> task_timer;
  // The shared store could not take the last task (logged once until one is taken).
  std::atomic<bool> task_store_down{false};

  // Started with the first call that needs them (stdio runs its calls on
  // its own threads and never does).
  void start_workers() {
    for (uint32_t i = 0; i < capacity; ++i)
      workers.emplace_back([this] { work(); });
  }

  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(queue_mutex);
        queue_wake.wait(lock, [this] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      job();
    }
  }

  void submit(std::function<void()> job) {
    {
      std::lock_guard lock(queue_mutex);
      if (workers.empty()) start_workers();
      queue.push_back(std::move(job));
    }
    queue_wake.notify_one();
  }

  McpTool* find_tool(std::string_view name) {
    for (auto& t : tools)
      if (t->name() == name) return t.get();
    return nullptr;
  }

  // A log message to the connections that asked for them, at their level.
  void notify_log(LogLevel level, std::string_view event, const HostValue& data) {
    std::vector<std::shared_ptr<Peer>> peers;
    {
      std::lock_guard lock(mutex);
      for (auto& [conn, sub] : log_subscribers)
        if (static_cast<int>(level) >= static_cast<int>(sub.first))
          if (auto p = sub.second.lock()) peers.push_back(std::move(p));
    }
    if (peers.empty()) return;
    HostValue params = HostValue::map(
        {{str("level"), str(log_level_name(level))},
         {str("logger"), str("ptc")},
         {str("data"), HostValue::map({{str("event"), str(event)}, {str("detail"), data}})}});
    std::string frame = notification_frame("notifications/message", params);
    for (auto& p : peers)
      p->send(frame);
  }

  void reply(const std::shared_ptr<Peer>& peer, const HostValue& id, const HostValue& result,
             bool modern = false) {
    peer->send(modern ? modern_result_frame(id, result) : result_frame(id, result));
  }

  HostValue initialize_result(const HostValue& params) {
    std::string version(kVersions[0]);
    if (const HostValue* v = params.get("protocolVersion");
        v && v->kind() == HostValue::Kind::String)
      for (std::string_view s : kVersions)
        if (v->text() == s) version = s;
    return HostValue::map(
        {{str("protocolVersion"), str(version)},
         {str("capabilities"),
          HostValue::map(
              {{str("tools"), HostValue::map({{str("listChanged"), HostValue::boolean(false)}})},
               {str("logging"), HostValue::map({})},
               {str("completions"), HostValue::map({})}})},
         {str("serverInfo"), server_info()},
         {str("instructions"), str(kInstructions)}});
  }

  // server/discover: what a modern client learns instead of a handshake.
  HostValue discover_result() {
    return HostValue::map(
        {{str("supportedVersions"), HostValue::vector({str(kModernRevision)})},
         {str("capabilities"),
          HostValue::map(
              {{str("tools"), HostValue::map({{str("listChanged"), HostValue::boolean(false)}})},
               {str("extensions"), HostValue::map({{str(kTasksExtension), HostValue::map({})}})}})},
         {str("instructions"), str(kInstructions)}});
  }

  HostValue tools_list() {
    std::vector<HostValue> defs;
    for (auto& t : tools)
      defs.push_back(t->definition());
    return HostValue::map({{str("tools"), HostValue::vector(std::move(defs))}});
  }

  // `envelope`: a 2026-07-28 request's; nullptr for a 2025-era one.
  Handled tools_call(const RpcMessage& m, const std::shared_ptr<Peer>& peer, const Caller& caller,
                     const Server::Runner* runner, const Envelope* envelope) {
    const bool modern = envelope != nullptr;
    if (m.params.kind() != HostValue::Kind::Map) {
      peer->send(error_frame(m.id, kInvalidParams, "Invalid params: tools/call takes an object"));
      return Handled::Reply;
    }
    const HostValue* name = m.params.get("name");
    if (!name || name->kind() != HostValue::Kind::String) {
      peer->send(error_frame(m.id, kInvalidParams, "Invalid params: `name` must be a string"));
      return Handled::Reply;
    }
    HostValue args = HostValue::map({});
    if (const HostValue* a = m.params.get("arguments"); a && !a->is_nil()) {
      if (a->kind() != HostValue::Kind::Map) {
        peer->send(
            error_frame(m.id, kInvalidParams, "Invalid params: `arguments` must be an object"));
        return Handled::Reply;
      }
      args = *a;
    }
    McpTool* tool = find_tool(name->text());
    std::string context_json = m.context_json;
    if (tool && !context_json.empty() && !tool->takes_context_json()) {
      // This tool wants its context inside the arguments, as a host tree.
      std::vector<std::pair<HostValue, HostValue>> entries;
      const auto& items = args.items();
      for (size_t i = 0; i + 1 < items.size(); i += 2)
        entries.emplace_back(items[i], items[i + 1]);
      entries.emplace_back(str("context"), parse_json(context_json));
      args = HostValue::map(std::move(entries));
      context_json.clear();
    }
    if (!tool) {
      std::string names;
      for (auto& t : tools)
        names += (names.empty() ? "" : ", ") + t->name();
      reply(peer, m.id,
            error_result("unknown_tool", fmt::format("unknown tool `{}`", name->text()),
                         fmt::format("the tools are: {}", names)),
            modern);
      return Handled::Reply;
    }
    if (draining.load()) {
      reply(peer, m.id,
            error_result("shutting_down", "the server is shutting down and takes no new calls",
                         "reconnect to a running server"),
            modern);
      return Handled::Reply;
    }
    if (auto bad = tool->precheck(args, caller, context_json)) {
      reply(peer, m.id, *bad, modern);
      return Handled::Reply;
    }
    auto call = std::make_shared<Call>();
    call->peer = peer;
    call->caller = caller;
    call->id = m.id;
    call->key = caller.connection + '\n' + id_key(m.id);
    call->context_json = std::move(context_json);
    call->modern = modern;
    call->tool = tool;
    {
      std::lock_guard lock(mutex);
      if (!calls.emplace(call->key, call).second) {
        peer->send(
            error_frame(m.id, kInvalidRequest,
                        fmt::format("Invalid Request: id {} is already in flight", id_key(m.id))));
        return Handled::Reply;
      }
    }
    if (!tool->gated()) {
      run_call(*tool, call, args, false);
      return Handled::Reply;
    }
    uint32_t held = gate.fetch_add(1) + 1;
    if (held > capacity) {
      gate.fetch_sub(1);
      finish(call);
      log(LogLevel::Warning, "call_busy",
          {{"tool", str(tool->name())}, {"capacity", HostValue::integer(capacity)}});
      reply(peer, m.id,
            error_result("busy", fmt::format("server busy: {} calls in flight", capacity),
                         "wait briefly and retry"),
            modern);
      return Handled::Reply;
    }
    if (modern && envelope->tasks) {
      // Revision 2026-07-28 with the tasks extension: a call still running
      // after --task-after-ms is answered with a task to poll.
      if (!task_timer) {
        promote(call);
      } else {
        std::weak_ptr<Call> weak = call;
        task_timer->arm([this, weak] {
          if (auto c = weak.lock()) promote(c);
        });
      }
    }
    std::function<void()> job = [this, tool, call, args] { run_call(*tool, call, args, true); };
    if (runner)
      (*runner)(std::move(job));
    else
      submit(std::move(job));
    return Handled::Reply;
  }

  // Runs a call and answers it. A gated call gives its slot back before the
  // reply leaves, so a client that calls again at once finds it free.
  void run_call(McpTool& tool, const std::shared_ptr<Call>& call, const HostValue& args,
                bool gated) {
    auto t0 = Clock::now();
    HostValue result;
    ToolEnv env(call->caller, call->cancel, config, call->context_json);
    try {
      result = tool.call(args, env);
    } catch (const std::exception& e) {
      result = error_result("runtime_error", fmt::format("internal error: {}", e.what()),
                            "this is a fault of the server; the call may be retried");
    }
    bool silent = call->silent.load();
    // Whether the call was stopped is decided now, as it ends: a cancel that
    // comes later (a shutdown's cancel_all) must not turn a finished task's
    // result into "cancelled".
    bool stopped = call->cancel.load();
    if (gated) gate.fetch_sub(1);
    finish(call);
    double ms = ms_since(t0);
    const HostValue* is_error = result.get("isError");
    bool failed = is_error && is_error->as_bool();
    if (log_enabled(LogLevel::Debug))
      log(LogLevel::Debug, "tool_call",
          {{"tool", str(tool.name())},
           {"duration_ms", HostValue::floating(ms)},
           {"error", HostValue::boolean(failed)},
           {"cancelled", HostValue::boolean(call->cancel.load())}});
    notify_log(LogLevel::Debug, "tool_call",
               HostValue::map({{str("tool"), str(tool.name())},
                               {str("duration_ms"), HostValue::floating(ms)},
                               {str("error"), HostValue::boolean(failed)}}));
    bool tasked;
    {
      std::lock_guard lock(call->state_mutex);
      tasked = call->state == Call::State::Tasked;
      if (!tasked) call->state = Call::State::Answered;
    }
    if (tasked) {
      tasks->finish(call->task_id, modern_result(result), stopped);
      {
        std::lock_guard lock(mutex);
        --tasks_ending;
      }
      idle.notify_all();
      return;
    }
    if (silent) return;  // cancelled over stdio: no reply follows
    if (call->cancel.load() && call->caller.reply_when_cancelled)
      result = error_result("cancelled", "the call was cancelled", "call again if still needed");
    reply(call->peer, call->id, result, call->modern);
  }

  // The request is answered with a task; the call goes on as the task's, no
  // longer the connection's: neither notifications/cancelled nor the
  // connection closing stops it (tasks/cancel does). When the shared store
  // cannot take the task, the call is not promoted: it answers when it ends.
  void promote(const std::shared_ptr<Call>& call) {
    HostValue created;
    {
      std::lock_guard lock(call->state_mutex);
      if (call->state != Call::State::Running || call->cancel.load()) return;
      std::weak_ptr<Call> weak = call;
      std::optional<TaskStore::Created> made;
      try {
        made = tasks->create(call->caller.owner, call->tool->name(), [weak] {
          if (auto c = weak.lock()) c->cancel.store(true);
        });
      } catch (const store::StoreUnavailable& e) {
        if (!task_store_down.exchange(true))
          log(LogLevel::Warning, "task_not_created",
              {{"tool", str(call->tool->name())}, {"error", str(e.what())}});
        return;
      }
      task_store_down.store(false);
      TaskStore::Created& task = *made;
      call->task_id = std::move(task.id);
      call->state = Call::State::Tasked;
      {
        std::lock_guard counting(mutex);
        ++tasks_ending;
      }
      created = std::move(task.view);
    }
    {
      std::lock_guard lock(mutex);
      auto it = calls.find(call->key);
      if (it != calls.end() && it->second == call) calls.erase(it);
    }
    log(LogLevel::Debug, "call_became_task",
        {{"tool", str(call->tool->name())}, {"task", str(call->task_id)}});
    call->peer->send(result_frame(call->id, modern_result(created, "task")));
  }

  // tasks/get, tasks/update, tasks/cancel (the client declared the extension).
  void task_method(const RpcMessage& m, const std::shared_ptr<Peer>& peer, const Caller& caller,
                   const Envelope& envelope) {
    if (!envelope.tasks) {
      peer->send(missing_tasks_capability_frame(m.id));
      return;
    }
    const HostValue* id = m.params.get("taskId");
    if (!id || id->kind() != HostValue::Kind::String) {
      peer->send(error_frame(m.id, kInvalidParams,
                             fmt::format("Invalid params: {} takes `taskId`, a string (the id "
                                         "of the task a tools/call answered with)",
                                         m.method)));
      return;
    }
    auto not_found = [&] {
      peer->send(error_frame(
          m.id, kInvalidParams,
          fmt::format("Failed to retrieve task: Task not found (no task {} for this caller: it "
                      "may have expired after --task-ttl-ms, or belong to another server)",
                      id->text())));
    };
    try {
      task_request(m, peer, caller, id->text(), not_found);
    } catch (const store::StoreUnavailable&) {
      peer->send(error_frame(
          m.id, kInternalError,
          "Internal error: the shared store is unreachable; the request is safe to retry",
          HostValue::map({{str("reason"), str(kStoreUnavailableReason)},
                          {str("retryable"), HostValue::boolean(true)}})));
    }
  }

  // What a tasks/* request asks of the store (which may be unreachable: StoreUnavailable).
  void task_request(const RpcMessage& m, const std::shared_ptr<Peer>& peer, const Caller& caller,
                    std::string_view id, const std::function<void()>& not_found) {
    if (m.method == "tasks/get") {
      if (auto task = tasks->view(id, caller.owner))
        reply(peer, m.id, *task, true);
      else
        not_found();
    } else if (m.method == "tasks/cancel") {
      // Acknowledged once the program has stopped and its slot is free, so a
      // client may call again at once (the requester ends its side on the ack).
      if (!tasks->cancel(id, caller.owner,
                         [this, peer, rid = m.id] { reply(peer, rid, HostValue::map({}), true); }))
        not_found();
    } else {  // tasks/update: this server never asks for input, so there is nothing to take
      const HostValue* responses = m.params.get("inputResponses");
      if (!responses || responses->kind() != HostValue::Kind::Map) {
        peer->send(error_frame(m.id, kInvalidParams,
                               "Invalid params: tasks/update takes `inputResponses`, an object"));
      } else if (tasks->exists(id, caller.owner)) {
        reply(peer, m.id, HostValue::map({}), true);
      } else {
        not_found();
      }
    }
  }

  void finish(const std::shared_ptr<Call>& call) {
    {
      std::lock_guard lock(mutex);
      auto it = calls.find(call->key);
      if (it != calls.end() && it->second == call) calls.erase(it);
    }
    idle.notify_all();
  }

  void cancel_where(const std::function<bool(const Call&)>& which) {
    std::lock_guard lock(mutex);
    for (auto& [key, call] : calls) {
      if (!which(*call)) continue;
      if (!call->caller.reply_when_cancelled) call->silent.store(true);
      call->cancel.store(true);
    }
  }

  // Who a 2026-07-28 request comes from. Without a connection to tell
  // clients apart (one stdio pipe or one HTTP token may carry many), the
  // client's name from its envelope's clientInfo narrows the transport's
  // owner: sessions and tasks one client starts are not listed to, or usable
  // by, a client of another name. A name is a claim, not a credential: give
  // clients that must be kept apart distinct bearer tokens.
  static Caller modern_caller(const Caller& caller, const Envelope& envelope) {
    if (envelope.client_name.empty()) return caller;
    Caller scoped = caller;
    scoped.owner +=
        "\x1f"
        "client:";
    scoped.owner += envelope.client_name;
    return scoped;
  }

  // A 2026-07-28 request: no handshake came before it and none of the
  // connection's state applies; what the revision removed (ping,
  // logging/setLevel, initialize) is not found.
  Handled dispatch_modern(const RpcMessage& m, const Envelope& envelope,
                          const std::shared_ptr<Peer>& peer, const Caller& transport_caller,
                          const Server::Runner* runner) {
    const Caller caller = modern_caller(transport_caller, envelope);
    if (std::string error = envelope_error_frame(m.id, envelope); !error.empty()) {
      peer->send(std::move(error));
    } else if (m.method == "server/discover") {
      reply(peer, m.id, with_cache_hints(discover_result()), true);
    } else if (m.method == "tools/list") {
      reply(peer, m.id, with_cache_hints(tools_list()), true);
    } else if (m.method == "tools/call") {
      return tools_call(m, peer, caller, runner, &envelope);
    } else if (m.method == "tasks/get" || m.method == "tasks/update" ||
               m.method == "tasks/cancel") {
      task_method(m, peer, caller, envelope);
    } else {
      peer->send(error_frame(m.id, kMethodNotFound, fmt::format("Method not found: {}", m.method)));
    }
    return Handled::Reply;
  }

  Handled dispatch(const RpcMessage& m, const std::shared_ptr<Peer>& peer, const Caller& caller,
                   const Server::Runner* runner) {
    if (m.kind == RpcMessage::Kind::Notification) {
      if (m.method == "notifications/cancelled") {
        const HostValue* id = m.params.get("requestId");
        if (id) {
          std::string key = caller.connection + '\n' + id_key(*id);
          cancel_where([&](const Call& c) { return c.key == key; });
          log(LogLevel::Debug, "call_cancelled", {{"request_id", *id}});
        }
      }
      return Handled::NoReply;  // initialized, cancelled, and anything else: no reply
    }
    if (m.envelope.modern) return dispatch_modern(m, m.envelope, peer, caller, runner);
    if (m.method == "initialize") {
      reply(peer, m.id, initialize_result(m.params));
    } else if (m.method == "ping") {
      reply(peer, m.id, HostValue::map({}));
    } else if (m.method == "tools/list") {
      reply(peer, m.id, tools_list());
    } else if (m.method == "tools/call") {
      return tools_call(m, peer, caller, runner, nullptr);
    } else if (m.method == "server/discover") {
      // Without an envelope: a client finding out whether this server speaks
      // 2026-07-28 (the answer is the same).
      reply(peer, m.id, with_cache_hints(discover_result()), true);
    } else if (m.method == "logging/setLevel") {
      const HostValue* level = m.params.get("level");
      LogLevel l;
      if (!level || level->kind() != HostValue::Kind::String ||
          !log_level_from_name(level->text(), &l)) {
        peer->send(error_frame(m.id, kInvalidParams,
                               "Invalid params: level must be one of debug, info, notice, warning, "
                               "error, critical, alert, emergency"));
        return Handled::Reply;
      }
      {
        std::lock_guard lock(mutex);
        log_subscribers[caller.connection] = {l, peer};
      }
      reply(peer, m.id, HostValue::map({}));
    } else if (m.method == "completion/complete") {
      reply(peer, m.id,
            HostValue::map({{str("completion"),
                             HostValue::map({{str("values"), HostValue::vector({})},
                                             {str("hasMore"), HostValue::boolean(false)}})}}));
    } else if (m.method == "shutdown") {
      draining.store(true);
      log(LogLevel::Info, "shutdown_requested");
      reply(peer, m.id, HostValue());
    } else {
      peer->send(error_frame(m.id, kMethodNotFound, fmt::format("Method not found: {}", m.method)));
    }
    return Handled::Reply;
  }
};

Server::Server(ServerConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}

Server::~Server() {
  cancel_all();
  wait_idle(std::chrono::milliseconds(5000));
  {
    std::lock_guard lock(impl_->queue_mutex);
    impl_->stopping = true;
  }
  impl_->queue_wake.notify_all();
  for (std::thread& t : impl_->workers)
    t.join();
}

void Server::add_tool(std::unique_ptr<McpTool> tool) {
  impl_->tools.push_back(std::move(tool));
}

Handled Server::handle(std::string_view frame, const std::shared_ptr<Peer>& peer,
                       const Caller& caller) {
  return handle(frame, peer, caller, Runner());
}

Handled Server::handle(std::string_view frame, const std::shared_ptr<Peer>& peer,
                       const Caller& caller, const Runner& run) {
  RpcMessage m = parse_message(frame);
  switch (m.kind) {
    case RpcMessage::Kind::Invalid:
      peer->send(error_frame(m.id, m.error_code, m.error_message));
      return Handled::Reply;
    case RpcMessage::Kind::Response:
      return Handled::NoReply;
    default:
      break;
  }
  try {
    return impl_->dispatch(m, peer, caller, run ? &run : nullptr);
  } catch (const std::exception& e) {
    log(LogLevel::Error, "dispatch_failed", {{"method", str(m.method)}, {"error", str(e.what())}});
    if (m.kind == RpcMessage::Kind::Request)
      peer->send(error_frame(m.id, kInternalError, fmt::format("Internal error: {}", e.what())));
    return m.kind == RpcMessage::Kind::Request ? Handled::Reply : Handled::NoReply;
  }
}

void Server::reject_frame(const std::shared_ptr<Peer>& peer, std::string_view why) {
  peer->send(error_frame(HostValue(), kParseError, fmt::format("Parse error: {}", why)));
}

void Server::cancel_connection(std::string_view connection) {
  impl_->cancel_where([&](const Call& c) { return c.caller.connection == connection; });
  std::lock_guard lock(impl_->mutex);
  impl_->log_subscribers.erase(std::string(connection));
}

void Server::cancel_all() {
  impl_->cancel_where([](const Call&) { return true; });
  impl_->tasks->cancel_all();
}

void Server::begin_drain() {
  impl_->draining.store(true);
}

bool Server::wait_idle(std::chrono::milliseconds grace) {
  std::unique_lock lock(impl_->mutex);
  return impl_->idle.wait_for(lock, grace, [this] {
    return impl_->calls.empty() && impl_->gate.load() == 0 && impl_->tasks_ending == 0;
  });
}

bool Server::draining() const {
  return impl_->draining.load();
}

size_t Server::in_flight() const {
  return impl_->gate.load();
}

uint32_t Server::capacity() const {
  return impl_->capacity;
}

const ServerConfig& Server::config() const {
  return impl_->config;
}

std::unique_ptr<Server> make_server(const ServerConfig& config) {
  auto server = std::make_unique<Server>(config);
  server->add_tool(make_lisp_eval_tool(server->config()));
  if (server->config().sessions) add_session_tools(*server, server->config());
  return server;
}

}  // namespace ptc::mcp
