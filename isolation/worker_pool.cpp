// ptc::WorkerPool: the parent's side of isolated runs. One control thread
// talks to the launcher (spawned workers arrive, ended ones are reported);
// each run borrows a ready worker, sends it the program, answers its tool
// calls on threads of this process, and takes back its Step, killing the
// worker when it overruns its deadline or sends anything malformed.
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "embedding/run_telemetry.hpp"
#include "embedding/shared_inputs.hpp"
#include "embedding/tool_broker.hpp"
#include "embedding/validators.hpp"
#include "include/ptc/ptc.hpp"
#include "isolation/control.hpp"
#include "isolation/cpu_handoff.hpp"
#include "isolation/frames.hpp"
#include "runtime/host_value.hpp"
#include "scheduler/fiber.hpp"
#include "scheduler/thread_pool.hpp"

extern char** environ;

namespace ptc {

using namespace isolation;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kStartTimeout = std::chrono::seconds(10);
constexpr auto kStatusWait = std::chrono::seconds(2);
// Workers that die before they are ready, in a row, before the pool gives up.
constexpr int kMaxFailedStarts = 5;

[[noreturn]] void pool_error(std::string message, std::string hint = {}) {
  throw_error(ErrorKind::InternalError, std::move(message), std::move(hint));
}

std::string find_worker(const std::string& given) {
  namespace fs = std::filesystem;
  if (!given.empty()) return given;
  if (const char* env = std::getenv("PTC_WORKER"); env && *env) return env;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&find_worker), &info) && info.dli_fname) {
    std::error_code ec;
    fs::path self = fs::weakly_canonical(fs::path(info.dli_fname), ec);
    fs::path dir = self.parent_path();
    for (const fs::path& p : {dir / "ptc-worker", dir / ".." / "libexec" / "ptc" / "ptc-worker"})
      if (access(p.c_str(), X_OK) == 0) return fs::weakly_canonical(p, ec).string();
  }
  pool_error("ptc-worker, the worker executable of isolated runs, was not found",
             "install ptc-worker beside the library or the ptc executable (or in "
             "../libexec/ptc/), or name it with $PTC_WORKER or WorkerPoolOptions::worker_path");
}

// Receives a control message and, with a Spawned one, its kSpawnedFds fds
// (else they stay -1).
bool receive(int fd, ControlMessage& m, int fds[kSpawnedFds]) {
  iovec iov{&m, sizeof m};
  alignas(cmsghdr) char control[CMSG_SPACE(kSpawnedFds * sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  std::fill(fds, fds + kSpawnedFds, -1);
  ssize_t n;
  while ((n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
  if (n != static_cast<ssize_t>(sizeof m) || m.magic != ControlMessage::kMagic) return false;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
        c->cmsg_len == CMSG_LEN(kSpawnedFds * sizeof(int)))
      std::memcpy(fds, CMSG_DATA(c), kSpawnedFds * sizeof(int));
  return true;
}

bool wait_readable(int fd, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() < 0) return false;
    pollfd p{fd, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left.count()) + 1);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return fmt::format("it exited with status {}", WEXITSTATUS(status));
  if (!WIFSIGNALED(status)) return "it stopped";
  switch (int sig = WTERMSIG(status)) {
    case SIGSYS:
      return "killed by SIGSYS: it made a system call its jail forbids";
    case SIGSEGV:
      return "it crashed with SIGSEGV";
    case SIGBUS:
      return "it crashed with SIGBUS";
    case SIGABRT:
      return "it aborted (SIGABRT)";
    case SIGKILL:
      return "it was killed (SIGKILL)";
    case SIGXCPU:
      return "it used up its CPU time limit (SIGXCPU)";
    default:
      return fmt::format("killed by signal {} ({})", sig, strsignal(sig));
  }
}

Step failed_step(ErrorKind kind, std::string message, std::string hint) {
  Step s;
  s.error.kind = kind;
  s.error.message = std::move(message);
  s.error.hint = std::move(hint);
  return s;
}

}  // namespace

struct Worker {
  uint64_t id = 0;
  int to_worker = -1;    // frames to it
  int from_worker = -1;  // frames from it
  int pidfd = -1;
  size_t runs = 0;
  // Its successor is asked for (near max_runs): it no longer counts in
  // `live`, and retires after its max_runs-th run.
  bool replaced = false;
  isolation::WorkerCpu cpu;  // its process, and the CPU it is bound to
  std::unique_ptr<FrameReader> reader;
  std::deque<uint64_t> prepared;  // the worker's prepared contexts, most recent first

  ~Worker() {
    for (int fd : {to_worker, from_worker, pidfd})
      if (fd >= 0) close(fd);
  }
  void kill() const { syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0); }
  // Cancels its run number `run` (worker_loop.cpp's on_cancel).
  void cancel(size_t run) const {
    siginfo_t info{};
    info.si_signo = SIGUSR1;
    info.si_code = SI_QUEUE;
    info.si_value.sival_int = static_cast<int>(run);
    syscall(SYS_pidfd_send_signal, pidfd, SIGUSR1, &info, 0);
  }
};

// A run the watchdog looks after: its deadline (moved on while the host's
// tools run, and once the worker says when it compiled), its cancel flag.
struct Watched {
  Worker* worker = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  size_t run = 0;  // the worker's number for it
  // Under the pool's watch_mutex:
  Clock::time_point deadline;
  int tools = 0;  // host tool calls running
  Clock::time_point paused_at;
  bool cancel_sent = false;
  std::atomic<bool> killed{false};  // by the watchdog, at the deadline

  Clock::time_point deadline_now(std::mutex& m) {
    std::lock_guard lock(m);
    return deadline;
  }
};

struct WorkerPool::State {
  WorkerPoolOptions options;
  std::string path;
  size_t max_frame = 0;
  pid_t launcher = -1;
  int control = -1;
  bool namespaces = false;
  // Programs compiled here for the host's program validator.
  ProgramCache validated{64, size_t{16} << 20};

  mutable std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::unique_ptr<Worker>> ready;
  size_t live = 0;      // ready + busy + starting
  size_t starting = 0;  // asked of the launcher, not yet ready
  size_t busy = 0;
  uint64_t next_id = 1;
  std::map<uint64_t, int> ended;  // wait statuses the launcher reported, by worker
  int failed_starts = 0;
  std::map<uint64_t, std::string> failed_start;  // workers that ended before they were ready
  uint64_t launchers_lost = 0;
  // The prepared contexts of workers on their last run, for the next
  // workers to start (oldest first): a successor holds them before its
  // first run instead of being sent each in the way of a run.
  std::deque<std::deque<uint64_t>> handovers;
  std::string broken;  // why no worker can start, once that is clear
  bool stopping = false;
  WorkerPoolStats counts;
  std::thread control_thread;

  // The watchdog: every 20 ms, kills the workers of runs past their
  // deadline and forwards cancels (so a run's own thread only reads).
  std::mutex watch_mutex;
  std::condition_variable watchdog_wake;
  std::set<Watched*> watched;
  bool watchdog_stop = false;
  std::thread watchdog;

  void watch(Watched* w) {
    std::lock_guard lock(watch_mutex);
    watched.insert(w);
  }
  void unwatch(Watched* w) {
    std::lock_guard lock(watch_mutex);
    watched.erase(w);
  }
  // The host's tools do not count against the worker's deadline.
  void tool_started(Watched& w) {
    std::lock_guard lock(watch_mutex);
    if (w.tools++ == 0) w.paused_at = Clock::now();
  }
  void tool_ended(Watched& w) {
    std::lock_guard lock(watch_mutex);
    if (--w.tools == 0) w.deadline += Clock::now() - w.paused_at;
  }
  void watchdog_loop() {
    std::unique_lock lock(watch_mutex);
    while (!watchdog_stop) {
      watchdog_wake.wait_for(lock, std::chrono::milliseconds(20));
      auto now = Clock::now();
      for (Watched* w : watched) {
        if (w->cancel && !w->cancel_sent && w->cancel->load()) {
          w->cancel_sent = true;
          w->worker->cancel(w->run);
        }
        if (w->tools == 0 && now >= w->deadline && !w->killed.load()) {
          w->killed.store(true);
          w->worker->kill();
        }
      }
    }
  }

  std::mutex prepared_mutex;
  struct PreparedEntry {
    std::weak_ptr<const PreparedContext> context;
    uint64_t id;
    // Its value encoded, made when a worker first needs it and kept for
    // the next ones (a recycled worker's successor starts without it).
    std::shared_ptr<const std::string> encoded;
  };
  std::map<const PreparedContext*, PreparedEntry> prepared_ids;
  uint64_t next_prepared = 1;

  // ------------------------------------------------------------ workers

  // Asks the launcher for workers until `live` is back to the pool's size.
  void replenish(std::unique_lock<std::mutex>&) {
    while (!stopping && broken.empty() && live < options.workers) {
      ControlMessage m;
      m.kind = ControlMessage::Spawn;
      m.worker = next_id++;
      m.a = address_space();
      m.b = cpu_seconds();
      m.c = options.worker_stderr ? ControlMessage::kStderr : 0;
      // No launcher now (it ended, and the control thread is starting
      // another, which replenishes the pool once it is up).
      if (control < 0 ||
          send(control, &m, sizeof m, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof m))
        return;
      ++live;
      ++starting;
    }
  }

  uint64_t address_space() const {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return 0;  // the sanitizers reserve terabytes of shadow memory
#else
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return 0;
#endif
#endif
    return WorkerPoolOptions::kAddressSpaceBase + 4 * options.max_heap_bytes;
#endif
  }

  uint64_t cpu_seconds() const {
    // A backstop for the deadline the pool enforces itself: generous, over the
    // worker's whole life.
    uint64_t runs = options.max_runs ? options.max_runs : 100000;
    return std::min<uint64_t>(runs * 60 + 60, uint64_t{1} << 31);
  }

  // Starts the launcher and waits for it to say it is ready; an error
  // message, or "".
  std::string start_launcher() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
      return fmt::format("socketpair failed: {}", std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], 3);
    std::vector<std::string> args = {path, "--launcher", "3"};
    if (!options.namespaces) args.push_back("--no-namespaces");
    std::vector<char*> argv;
    for (std::string& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    // The host's environment (API keys among it) never reaches a worker: only
    // what the sanitizers read.
    std::vector<std::string> env_text;
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"})
      if (const char* v = std::getenv(name)) env_text.push_back(std::string(name) + "=" + v);
    std::vector<char*> envp;
    for (std::string& e : env_text)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    // Its own process group (a terminal's ^C is the host's to handle), no
    // blocked signals, and the host's ignored ones back to their defaults.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP})
      sigaddset(&defaults, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), envp.data());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    close(sv[1]);
    if (rc != 0) {
      close(sv[0]);
      return fmt::format("the worker launcher {} could not be started: {}", path,
                         std::strerror(rc));
    }
    ControlMessage up;
    int fds[kSpawnedFds];
    if (!wait_readable(sv[0], Clock::now() + kStartTimeout) || !receive(sv[0], up, fds) ||
        up.kind != ControlMessage::Ready) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      close(sv[0]);
      return fmt::format("the worker launcher {} did not start", path);
    }
    std::lock_guard lock(mutex);
    launcher = pid;
    control = sv[0];
    namespaces = up.a == 1;
    if (stopping) shutdown(control, SHUT_RDWR);  // the pool is going: so is this launcher
    return "";
  }

  void control_loop() {
    for (;;) {
      ControlMessage m;
      int fds[kSpawnedFds];
      if (!receive(control, m, fds)) {
        if (!restart_launcher()) return;
        continue;
      }
      if (m.kind == ControlMessage::Spawned) {
        started(m, fds);
      } else if (m.kind == ControlMessage::Exited) {
        std::unique_lock lock(mutex);
        ended[m.worker] = static_cast<int>(m.a);
        if (ended.size() > 4096) ended.erase(ended.begin());
        if (auto failed = failed_start.find(m.worker); failed != failed_start.end()) {
          int status = static_cast<int>(m.a);
          bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
          if (!killed && ++failed_starts >= kMaxFailedStarts)
            broken = fmt::format("{} ({})", failed->second, describe_status(status));
          failed_start.erase(failed);
        }
        // A ready worker that died idle leaves the pool now.
        auto idle = std::find_if(ready.begin(), ready.end(),
                                 [&](const auto& w) { return w->id == m.worker; });
        if (idle != ready.end()) {
          ready.erase(idle);
          --live;
          ++counts.died;
          replenish(lock);
        }
        changed.notify_all();
      }
      for (int fd : fds)
        if (fd >= 0 && m.kind != ControlMessage::Spawned) close(fd);
    }
  }

  void started(const ControlMessage& m, int fds[kSpawnedFds]) {
    auto w = std::make_unique<Worker>();
    w->id = m.worker;
    w->to_worker = fds[kToWorker];
    w->from_worker = fds[kFromWorker];
    w->pidfd = fds[kWorkerPidfd];
    if (w->pidfd >= 0) w->cpu.pid = isolation::pid_of_pidfd(w->pidfd);
    std::string why;
    bool in_namespaces = false;
    if (m.a != 0 || w->to_worker < 0 || w->from_worker < 0 || w->pidfd < 0) {
      why = fmt::format("the launcher could not fork a worker: {}",
                        std::strerror(static_cast<int>(m.a)));
    } else if (!wait_readable(w->from_worker, Clock::now() + kStartTimeout)) {
      w->kill();
      why = "a worker did not come up in time";
    } else {
      Frame frame;
      Hello hello;
      w->reader = std::make_unique<FrameReader>(w->from_worker, max_frame);
      bool ok = w->reader->next(frame) == ReadStatus::Ok && frame.kind == FrameKind::Hello;
      if (ok) try {
          hello = decode_hello(frame.body);
        } catch (LispError&) {
          ok = false;
        }
      if (!ok) {
        w->kill();
        why =
            "a worker ended before it was ready (its jail could not be set up; run with "
            "worker_stderr to see why)";
      } else if (hello.version != kProtocolVersion) {
        w->kill();
        why = fmt::format("the worker {} speaks protocol {}, this library {}", path, hello.version,
                          kProtocolVersion);
      } else {
        in_namespaces = hello.namespaces;
      }
    }
    if (why.empty() && !hand_over(*w)) {
      w->kill();
      why = "a worker ended before it was ready (it took no prepared context)";
    }
    std::unique_lock lock(mutex);
    --starting;
    if (!why.empty()) {
      --live;
      // Counted against the pool once the launcher says how it ended: a
      // worker killed from outside while it started is not a failed start.
      if (m.a == 0) {
        failed_start[m.worker] = why;
      } else if (++failed_starts >= kMaxFailedStarts) {
        broken = why;
      }
      replenish(lock);
    } else {
      namespaces = in_namespaces;
      failed_starts = 0;
      ++counts.started;
      ready.push_back(std::move(w));
    }
    changed.notify_all();
  }

  // Sends a new worker the prepared contexts a retired one held, if any
  // wait (those still alive), in the order that leaves its list and the
  // mirror of it as they were. False when the worker is gone.
  bool hand_over(Worker& w) {
    std::deque<uint64_t> ids;
    {
      std::lock_guard lock(mutex);
      if (handovers.empty()) return true;
      ids = std::move(handovers.front());
      handovers.pop_front();
    }
    for (auto id = ids.rbegin(); id != ids.rend(); ++id) {
      PrepareRequest q;
      q.id = *id;
      {
        std::lock_guard lock(prepared_mutex);
        for (const auto& [_, entry] : prepared_ids)
          if (entry.id == q.id && !entry.context.expired()) q.encoded = entry.encoded;
      }
      if (!q.encoded) continue;
      if (!write_frame(w.to_worker, FrameKind::Prepare, encode_prepare(q))) return false;
      hold_first(w.prepared, std::find(w.prepared.begin(), w.prepared.end(), q.id), q.id);
      std::lock_guard lock(mutex);
      ++counts.contexts_handed_over;
    }
    return true;
  }

  // The launcher ended (killed, crashed): its workers ended with it. A new
  // one takes its place; false when the pool is stopping or none starts.
  bool restart_launcher() {
    {
      std::unique_lock lock(mutex);
      if (stopping) return false;
      live -= ready.size() + starting;
      ready.clear();
      starting = 0;
      ++launchers_lost;
      changed.notify_all();  // runs waiting for how their worker ended
      close(control);
      control = -1;
    }
    while (waitpid(launcher, nullptr, 0) < 0 && errno == EINTR) {}
    std::string error;
    for (int attempt = 0; attempt < 3; ++attempt) {
      if ((error = start_launcher()).empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100 << attempt));
    }
    std::unique_lock lock(mutex);
    if (!error.empty()) {
      broken = "the launcher of worker processes ended and could not be started again: " + error;
      changed.notify_all();
      return false;
    }
    replenish(lock);
    return true;
  }

  // alone: set when no other run is in flight.
  std::unique_ptr<Worker> acquire(bool& alone) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return !ready.empty() || !broken.empty() || stopping; });
    if (ready.empty())
      pool_error(fmt::format("no worker process can run the program: {}",
                             broken.empty() ? "the pool is shutting down" : broken));
    std::unique_ptr<Worker> w = std::move(ready.front());
    ready.pop_front();
    alone = ++busy == 1;
    // Its last eighth of runs: its successor starts now (tens of
    // milliseconds) and takes the prepared contexts it holds, so that
    // recycling stays out of the runs' way.
    if (options.max_runs != 0 && !w->replaced &&
        w->runs + std::max<size_t>(1, options.max_runs / 8) >= options.max_runs) {
      w->replaced = true;
      --live;
      if (!w->prepared.empty()) {
        handovers.push_back(w->prepared);
        if (handovers.size() > options.workers) handovers.pop_front();
      }
      replenish(lock);
    }
    return w;
  }

  // After a run: back to the ready list, or retired (recycled, dead, killed).
  void release(std::unique_ptr<Worker> w, bool healthy) {
    std::unique_lock lock(mutex);
    --busy;
    ++counts.runs;
    bool last = w->replaced && w->runs >= options.max_runs;
    if (healthy && !stopping && !last) {
      // The warmest first: a replaced worker runs until its last run, and
      // its successor waits, ready, behind it.
      ready.push_front(std::move(w));
    } else {
      if (healthy && last) ++counts.recycled;
      // A replaced worker left `live` when its successor was asked for.
      bool counted = !w->replaced;
      w.reset();  // closing its sockets ends a live worker
      if (counted) {
        --live;
        replenish(lock);
      }
    }
    changed.notify_all();
  }

  // How a worker that closed its sockets ended, as the launcher reports it.
  std::string end_of(const Worker& w) {
    std::unique_lock lock(mutex);
    uint64_t lost = launchers_lost;
    changed.wait_for(lock, kStatusWait,
                     [&] { return ended.count(w.id) > 0 || stopping || launchers_lost != lost; });
    auto it = ended.find(w.id);
    if (it == ended.end())
      return launchers_lost != lost ? "its launcher ended" : "its end was not reported";
    std::string text = describe_status(it->second);
    ended.erase(it);
    return text;
  }

  uint64_t prepared_id(const std::shared_ptr<const PreparedContext>& context) {
    std::lock_guard lock(prepared_mutex);
    for (auto it = prepared_ids.begin(); it != prepared_ids.end();)
      it = it->second.context.expired() ? prepared_ids.erase(it) : std::next(it);
    auto [it, added] = prepared_ids.try_emplace(context.get(), PreparedEntry{context, 0, nullptr});
    if (added) it->second.id = next_prepared++;
    return it->second.id;
  }

  // The encoded value of a context prepared_id has numbered.
  std::shared_ptr<const std::string> prepared_encoding(const PreparedContext& context) {
    {
      std::lock_guard lock(prepared_mutex);
      auto it = prepared_ids.find(&context);
      if (it != prepared_ids.end() && it->second.encoded) return it->second.encoded;
    }
    // Outside the lock: other runs go on meanwhile (two may both encode it).
    auto encoded = std::make_shared<const std::string>(encode_prepared_context(context));
    std::lock_guard lock(prepared_mutex);
    if (auto it = prepared_ids.find(&context); it != prepared_ids.end())
      it->second.encoded = encoded;
    return encoded;
  }
};

// ---------------------------------------------------------------- one run

namespace {

// A host tool's call, as the tool sees it (current_tool_call()).
class ParentToolCall final : public ToolCallContext {
 public:
  ParentToolCall(const std::atomic<bool>& stopped, const std::atomic<bool>* cancel,
                 Clock::time_point deadline)
      : stopped_(stopped), cancel_(cancel), deadline_(deadline) {}
  bool cancelled() const override { return stopped_.load() || (cancel_ && cancel_->load()); }
  Clock::time_point deadline() const override { return deadline_; }

 private:
  const std::atomic<bool>& stopped_;
  const std::atomic<bool>* cancel_;
  Clock::time_point deadline_;
};

class IsolatedRun {
 public:
  IsolatedRun(WorkerPool::State& pool, Worker& worker, const RunOptions& options)
      : pool_(pool), w_(worker), options_(options) {
    watch_.worker = &worker;
    watch_.cancel = options.cancel;
  }

  ~IsolatedRun() {
    stopped_.store(true);
    std::unique_lock lock(tools_mutex_);
    tools_done_.wait(lock, [&] { return tools_running_ == 0; });
    pool_.unwatch(&watch_);
  }

  // The Step, and whether the worker can take another run. This thread only
  // reads the worker's frames (one blocking read per wake-up); the pool's
  // watchdog kills the worker at its deadline and forwards a cancel.
  std::pair<Step, bool> run(std::string_view source) {
    const Limits& l = options_.limits;
    std::string body;
    try {
      body = encode_run(request(source));
    } catch (LispError& e) {  // options that cannot be sent (a value nested too deep)
      return {failed_step(e.error().kind, e.error().message, e.error().hint), true};
    }
    watch_.run = ++w_.runs;
    watch_.deadline =
        Clock::now() + std::chrono::milliseconds(uint64_t{l.compile_timeout_ms} + l.timeout_ms +
                                                 pool_.options.kill_margin_ms);
    pool_.watch(&watch_);
    if (!send(FrameKind::Run, body)) return died();
    for (;;) {
      Frame frame;
      switch (w_.reader->next(frame)) {
        case ReadStatus::Ok:
          break;
        case ReadStatus::Closed:
          return watch_.killed.load() ? overran() : died();
        case ReadStatus::TooLarge:
          return lied(fmt::format("a frame larger than the cap of {} bytes", pool_.max_frame));
        case ReadStatus::BadKind:
          return lied("a frame of no known kind");
      }
      try {
        if (frame.kind == FrameKind::Started) {
          // Compiled this long ago: from then on the run has its timeout,
          // and the margin.
          uint32_t since = decode_started(frame.body);
          std::lock_guard lock(pool_.watch_mutex);
          watch_.deadline =
              Clock::now() - std::chrono::milliseconds(since) +
              std::chrono::milliseconds(uint64_t{l.timeout_ms} + pool_.options.kill_margin_ms);
        } else if (frame.kind == FrameKind::ToolCall) {
          call_tool(decode_tool_call(frame.body));
        } else if (frame.kind == FrameKind::Done) {
          Step step = decode_step(frame.body);
          pool_.unwatch(&watch_);
          // Killed at its deadline just as it answered: the answer stands,
          // the worker is gone.
          return {std::move(step), !watch_.killed.load()};
        } else {
          return lied("a frame only a parent sends");
        }
      } catch (LispError& e) {
        return lied(e.error().message);
      } catch (const std::bad_alloc&) {
        return lied("a frame the host could not hold in memory");
      }
    }
  }

 private:
  RunRequest request(std::string_view source) {
    const RunOptions& o = options_;
    RunRequest q;
    q.source = std::string(source);
    if (o.prepared_context) {
      q.context_form = RunRequest::Context::Prepared;
      q.prepared_id = pool_.prepared_id(o.prepared_context);
      auto& held = w_.prepared;
      auto it = std::find(held.begin(), held.end(), q.prepared_id);
      if (it == held.end()) {
        q.prepared_encoded = pool_.prepared_encoding(*o.prepared_context);
        std::lock_guard lock(pool_.mutex);
        ++pool_.counts.contexts_sent;
      }
      hold_first(held, it, q.prepared_id);
    } else if (!o.context_json.empty()) {
      q.context_form = RunRequest::Context::Json;
      q.context_json = std::string(o.context_json);
    } else {
      q.context = o.context;
    }
    q.memory = o.memory;
    q.turn_history = o.turn_history;
    for (const auto& [name, tool] : o.tools)
      q.tools.push_back({name, tool.cacheable, tool.deferred});
    q.deferred_tools = o.deferred_tools;
    for (const auto& [name, why] : o.unavailable_tools)
      q.unavailable_tools.emplace_back(name, why);
    if (o.tool_catalog) q.catalog = *o.tool_catalog;
    q.signature = o.signature;
    q.float_precision = o.float_precision;
    q.limits = o.limits;
    q.filter_context = o.filter_context;
    q.budget = o.budget;
    q.caller = o.caller;
    q.profile = o.profile;
    q.display_limit = o.display_limit;
    q.attempt_us = o.attempt_us;
    return q;
  }

  bool send(FrameKind kind, const std::string& body) {
    std::lock_guard lock(write_mutex_);
    return write_frame(w_.to_worker, kind, body);
  }

  void call_tool(ToolCallRequest call) {
    auto it = options_.tools.find(call.tool);
    pool_.tool_started(watch_);
    {
      std::lock_guard lock(tools_mutex_);
      ++tools_running_;
    }
    // On a thread of the process-wide pool (as a blocking tool of a pmap
    // branch is), so that parallel calls run at once and a call costs no
    // thread start; on a thread of its own when the pool is full.
    auto task = [this, call = std::move(call), it] {
      ToolResult r;
      if (it == options_.tools.end()) {
        r = call_host_tool(Tool{}, call.args);  // no function: its failure
      } else if (std::optional<ToolResult> refused =
                     gate_in_host(options_, it->second,
                                  PendingCall{std::string(), call.tool, call.args,
                                              PendingCall::Kind::Call, SourceLoc{}})) {
        r = std::move(*refused);  // the host's validator or approver said no
      } else {
        ParentToolCall context(stopped_, options_.cancel, watch_.deadline_now(pool_.watch_mutex));
        const ToolCallContext* saved = exchange_current_tool_call(&context);
        r = call_host_tool(it->second, call.args);
        exchange_current_tool_call(saved);
      }
      std::string reply;
      try {
        reply = encode_tool_reply({call.id, std::move(r)});
      } catch (LispError& e) {
        reply = encode_tool_reply({call.id, ToolResult::failure(e.error().message)});
      }
      send(FrameKind::ToolReply, reply);
      pool_.tool_ended(watch_);
      std::lock_guard lock(tools_mutex_);
      if (--tools_running_ == 0) tools_done_.notify_all();
    };
    auto shared = std::make_shared<decltype(task)>(std::move(task));
    if (!ThreadPool::instance().start_now([shared] { (*shared)(); }))
      std::thread([shared] { (*shared)(); }).detach();
  }

  std::pair<Step, bool> died() {
    std::string how = pool_.end_of(w_);
    {
      std::lock_guard lock(pool_.mutex);
      ++pool_.counts.died;
    }
    return {failed_step(ErrorKind::InternalError,
                        fmt::format("the worker process running this program died ({}); "
                                    "nothing else was affected",
                                    how),
                        "run it again; a program that kills its worker every time reaches a "
                        "fault in the engine: report it with the program"),
            false};
  }

  std::pair<Step, bool> overran() {
    w_.kill();
    {
      std::lock_guard lock(pool_.mutex);
      ++pool_.counts.killed;
    }
    return {failed_step(ErrorKind::Timeout,
                        fmt::format("the program ran past its timeout of {} ms and its worker "
                                    "process did not stop: it was killed",
                                    options_.limits.timeout_ms),
                        "make the program do less work per run, or raise the timeout"),
            false};
  }

  std::pair<Step, bool> lied(const std::string& what) {
    w_.kill();
    {
      std::lock_guard lock(pool_.mutex);
      ++pool_.counts.killed;
    }
    return {failed_step(ErrorKind::InternalError,
                        fmt::format("the worker process running this program sent a malformed "
                                    "frame ({}) and was killed",
                                    what),
                        "run it again; report the program if it happens again"),
            false};
  }

  WorkerPool::State& pool_;
  Worker& w_;
  const RunOptions& options_;
  Watched watch_;
  std::mutex write_mutex_;
  std::atomic<bool> stopped_{false};
  std::mutex tools_mutex_;
  std::condition_variable tools_done_;
  int tools_running_ = 0;
};

}  // namespace

// ---------------------------------------------------------------- the pool

WorkerPool::WorkerPool(WorkerPoolOptions options) : state_(std::make_shared<State>()) {
  State& s = *state_;
  if (options.workers == 0) options.workers = 1;
  s.options = std::move(options);
  s.max_frame = s.options.max_frame_bytes ? s.options.max_frame_bytes
                                          : (size_t{64} << 20) + 16 * s.options.max_heap_bytes;
  s.path = find_worker(s.options.worker_path);

  if (std::string error = s.start_launcher(); !error.empty())
    pool_error(error, "run it with worker_stderr set to see its error");
  s.control_thread = std::thread([&s] { s.control_loop(); });
  s.watchdog = std::thread([&s] { s.watchdog_loop(); });
  std::unique_lock lock(s.mutex);
  s.replenish(lock);
}

WorkerPool::~WorkerPool() {
  State& s = *state_;
  {
    std::unique_lock lock(s.mutex);
    s.changed.wait(lock, [&] { return s.busy == 0; });
    s.stopping = true;
    s.ready.clear();
    s.changed.notify_all();
  }
  {
    std::lock_guard lock(s.watch_mutex);
    s.watchdog_stop = true;
  }
  s.watchdog_wake.notify_all();
  s.watchdog.join();
  {
    std::lock_guard lock(s.mutex);
    if (s.control >= 0) shutdown(s.control, SHUT_RDWR);  // the launcher ends its workers and itself
  }
  s.control_thread.join();
  if (s.control >= 0) close(s.control);
  while (waitpid(s.launcher, nullptr, 0) < 0 && errno == EINTR) {}
}

Step WorkerPool::run(std::string_view source, const RunOptions& options) {
  State& s = *state_;
  auto start = Clock::now();
  TelemetryEvent event = report_run_start(source, options, start);
  Step step;
  try {
    // The program validator is the host's: it judges the program compiled
    // here, once per source (one that does not compile is the worker's to
    // report).
    if (options.validate_program) {
      std::shared_ptr<const Program> program;
      try {
        program = s.validated.get(source, options);
      } catch (const LispError&) {}
      if (program) check_program(source, *program->code, options.validate_program);
    }
    bool alone = false;
    std::unique_ptr<Worker> worker = s.acquire(alone);
    bool healthy = false;
    {
      isolation::CpuHandoff handoff(worker->cpu, alone && s.options.cpu_handoff);
      IsolatedRun run(s, *worker, options);
      std::tie(step, healthy) = run.run(source);
    }
    s.release(std::move(worker), healthy);
  } catch (LispError& e) {
    step = failed_step(e.error().kind, e.error().message, e.error().hint);
  }
  if (!step.ok) step.memory = options.memory;  // a failed run changes nothing
  report_run_end(event, options, step, Clock::now(), false);
  return step;
}

WorkerPoolStats WorkerPool::stats() const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  WorkerPoolStats out = s.counts;
  out.workers = s.live - s.starting;
  out.busy = s.busy;
  out.namespaces = s.namespaces;
  return out;
}

bool WorkerPool::wait_ready(uint32_t timeout_ms) const {
  State& s = *state_;
  std::unique_lock lock(s.mutex);
  return s.changed.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return !s.broken.empty() || (s.starting == 0 && s.live == s.options.workers);
  }) && s.broken.empty();
}

const std::string& WorkerPool::worker_path() const {
  return state_->path;
}

}  // namespace ptc
