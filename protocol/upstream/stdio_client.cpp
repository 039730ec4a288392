#include "protocol/upstream/stdio_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "include/ptc/error.hpp"
#include "protocol/net/sigpipe.hpp"
#include "protocol/upstream/handshake.hpp"
#include "runtime/unique_fd.hpp"
#include "scheduler/cooperative.hpp"

extern char** environ;

namespace ptc::upstream {

namespace {

constexpr size_t kMaxStderrLine = 4096;
constexpr auto kMaxBackoff = std::chrono::milliseconds(8000);
constexpr auto kFirstBackoff = std::chrono::milliseconds(250);
// The idle reader takes the pipe only once no call has waited for this long:
// calls back to back keep the reading among themselves, with no thread
// woken between them.
constexpr auto kIdleAfter = std::chrono::milliseconds(50);
// A fiber holding the reading role polls only when its lane's thread is free;
// a caller on another lane or thread takes the role over from one whose poll
// should have ended this long ago (its lane is busy, e.g. computing).
constexpr auto kTakeOver = std::chrono::milliseconds(10);

// The id of a reply too large to decode, from its first or last bytes
// ({"result":...,"jsonrpc":"2.0","id":7} puts it last); -1 when not found.
int64_t find_id(std::string_view head, std::string_view tail) {
  auto scan = [](std::string_view s, bool last) -> int64_t {
    size_t at = last ? s.rfind("\"id\":") : s.find("\"id\":");
    if (at == std::string_view::npos) return -1;
    size_t i = at + 5;
    while (i < s.size() && s[i] == ' ')
      ++i;
    int64_t v = 0;
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 15)
      v = v * 10 + (s[i++] - '0');
    return i > start ? v : -1;
  };
  int64_t id = scan(tail, true);
  return id >= 0 ? id : scan(head, false);
}

// Who writes stdin: one line at a time. A mutex whose waits can end at a
// deadline (std::timed_mutex's timed lock is invisible to ThreadSanitizer)
// and suspend a fiber rather than its thread (a fiber holding it may be
// waiting for stdin to drain, on the same thread).
class StdinGate {
 public:
  void lock() {
    std::unique_lock g(m_);
    free_.wait(g, [this] { return !busy_; });
    busy_ = true;
  }
  bool try_lock() {
    std::lock_guard g(m_);
    if (busy_) return false;
    busy_ = true;
    return true;
  }
  // Waits in slices of 20 ms while `keep_waiting()` says so.
  template <class KeepWaiting>
  bool lock_while(KeepWaiting keep_waiting) {
    std::unique_lock g(m_);
    while (busy_) {
      if (!keep_waiting()) return false;
      free_.wait_for(g, std::chrono::milliseconds(20));
    }
    busy_ = true;
    return true;
  }
  void unlock() {
    {
      std::lock_guard g(m_);
      busy_ = false;
    }
    free_.notify_one();
  }

 private:
  std::mutex m_;
  coop::CondVar free_;
  bool busy_ = false;
};

}  // namespace

// One child process and its pipes.
class Connection {
 public:
  // One call in flight. Each has its own condition variable so that a reply
  // wakes only its caller (one shared one woke every caller per reply, and
  // they fought over the mutex: ten futex calls a reply under pmap). A
  // caller on a lane (a pmap branch) is a fiber: it parks, and the lane runs
  // other branches meanwhile.
  struct Pending {
    bool done = false;
    bool waiting = false;  // in the wait loop (its request is written)
    bool in_read = false;  // holds (or held, until its poll ends) the reading role
    Reply reply;
    coop::CondVar cv;
  };

  pid_t pid = -1;
  // Our end of its stdin: also polled by the reader, and closed by shutdown
  // at the moment it asks the process to leave (hence not a UniqueFd).
  std::atomic<int> in_fd{-1};
  UniqueFd out_fd, err_fd;
  size_t max_bytes = 0;
  std::string name;
  const Redactor* redactor = nullptr;
  LogFn log;

  std::mutex mutex;
  std::map<int64_t, std::shared_ptr<Pending>> pending;
  bool dead = false;
  std::atomic<bool> gone{false};  // dead or stopping; read without the mutex (writers stop)
  std::string death;
  // Who reads stdout (leader/follower): a caller waiting for its reply reads
  // the pipe itself and hands other callers their replies, so a reply wakes
  // one thread, not a reader thread and then its caller. When no call is in
  // flight for kIdleAfter the idle reader holds the role (server
  // notifications, an exit); a caller kicks it off through wake_fd.
  bool reading = false;
  // Who holds the role: its lane (nullptr: a thread, always able to poll),
  // whether it is still in its poll (it may then be replaced), when that
  // poll ends at the latest, and the role's epoch, bumped at each new
  // holder: a replaced holder sees the change when its poll ends and reads
  // nothing.
  const void* holder_lane = nullptr;
  bool holder_polling = false;
  Clock::time_point holder_until{};
  uint64_t role_epoch = 0;
  coop::CondVar role_free;  // notified when `reading` falls (shutdown waits for it)
  bool drain_now = false;   // a writer waits for stdin and nobody reads: the idle reader should
  size_t waiters = 0;       // calls in the wait loop; the idle reader reads while there are none
  Clock::time_point quiet_since{};  // when waiters last fell to 0
  bool idle_reading = false, idle_kicked = false, stopping = false;
  std::condition_variable idle_cv;
  UniqueFd wake_fd;
  StdinGate stdin_gate;  // one line at a time on stdin
  // Lines the reader could not write at once (answers to the server's own
  // requests): the next write sends them first. The reader never waits for
  // stdin, which may be full while the server waits for us to read.
  std::mutex outbox_mutex;
  std::string outbox;
  std::atomic<int64_t> next_id{1};
  std::thread idle_reader, err_reader;
  // Revision 2026-07-28: every request carries the envelope. Set by the
  // handshake, before the connection is shared.
  bool modern = false;

  // The line being assembled; touched only by the thread that is reading.
  std::string partial;
  bool oversize = false;
  std::string head, tail;
  size_t over_bytes = 0;

  ~Connection() { shutdown(); }

  std::string redact(std::string_view s) const {
    return redactor ? redactor->redact(s) : std::string(s);
  }

  void logf(std::string_view line) {
    if (log) log(redact(fmt::format("upstream {}: {}", name, line)));
  }

  void mark_dead(std::string why) {
    std::map<int64_t, std::shared_ptr<Pending>> failed;
    {
      std::lock_guard lock(mutex);
      if (dead) return;
      dead = true;
      gone = true;
      death = std::move(why);
      for (auto& [id, p] : pending) {
        p->done = true;
        p->reply.status = Reply::Status::Unavailable;
        p->reply.message = redact(fmt::format("upstream {} {}", name, death));
      }
      failed.swap(pending);
    }
    for (auto& [id, p] : failed)
      p->cv.notify_one();
  }

  bool is_dead() {
    std::lock_guard lock(mutex);
    return dead;
  }

  enum class Written { Ok, Failed, TimedOut };

  // Writes `data` whole, waiting for room until `deadline` (stdin is
  // non-blocking); `*done` gets the bytes written. A line cut short leaves
  // the stream corrupt: the connection is then dead (restarted on the next
  // call). stdin_gate held.
  Written write_all(std::string_view data, Clock::time_point deadline,
                    const std::function<bool()>& cancelled, size_t* done) {
    size_t off = 0;
    Written result = Written::Ok;
    while (off < data.size()) {
      ssize_t n = ::write(in_fd, data.data() + off, data.size() - off);
      if (n > 0) {
        off += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != EAGAIN) {
        result = Written::Failed;
        break;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0 || (cancelled && cancelled()) || gone) {
        result = Written::TimedOut;
        break;
      }
      {
        // stdin is full: if nobody reads stdout, the server may be blocked
        // writing to us. The idle reader drains it now, not after kIdleAfter.
        std::lock_guard lock(mutex);
        if ((!reading || holder_stalled(Clock::now())) && !drain_now) {
          drain_now = true;
          idle_cv.notify_one();
        }
      }
      pollfd p{in_fd, POLLOUT, 0};
      (void)coop::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 20)));
    }
    if (done) *done = off;
    if (off > 0 && off < data.size())
      mark_dead("stopped reading its stdin in the middle of a request");
    return result;
  }

  // Writes what it can of the outbox now, without waiting. stdin_gate held.
  void flush_outbox_now() {
    std::lock_guard ob(outbox_mutex);
    while (!outbox.empty() && in_fd >= 0) {
      ssize_t n = ::write(in_fd, outbox.data(), outbox.size());
      if (n > 0) {
        outbox.erase(0, static_cast<size_t>(n));
      } else if (n < 0 && errno != EINTR) {
        return;  // full (EAGAIN): later; gone (EPIPE): the reader sees the exit
      }
    }
  }

  // One line, whole, after what the reader queued; waits for stdin (and for
  // another caller's write) only until `deadline`.
  Written write_line(const std::string& line, Clock::time_point deadline,
                     const std::function<bool()>& cancelled = {}) {
    bool got = stdin_gate.lock_while(
        [&] { return Clock::now() < deadline && !(cancelled && cancelled()) && !gone; });
    if (!got) return Written::TimedOut;
    std::unique_lock lock(stdin_gate, std::adopt_lock);
    if (in_fd < 0) return Written::Failed;
    std::string queued;
    {
      std::lock_guard ob(outbox_mutex);
      queued.swap(outbox);
    }
    size_t done = 0;
    Written w = write_all(queued, deadline, {}, &done);
    if (w != Written::Ok) {
      if (done == 0) {  // nothing left: the lines wait for the next writer
        std::lock_guard ob(outbox_mutex);
        outbox.insert(0, queued);
      }
      return w;
    }
    w = write_all(line, deadline, cancelled, nullptr);
    if (w == Written::Ok) flush_outbox_now();  // what the reader queued meanwhile
    return w;
  }

  // The reader's own writes (answers to the server's requests): never waits
  // for stdin, which may be full while the server waits for us to read.
  // Queued behind what is queued; written now as far as stdin takes it.
  void write_or_queue(const std::string& line) {
    {
      std::lock_guard ob(outbox_mutex);
      outbox += line;
    }
    std::unique_lock lock(stdin_gate, std::try_to_lock);
    if (lock.owns_lock()) flush_outbox_now();
  }

  bool outbox_empty() {
    std::lock_guard ob(outbox_mutex);
    return outbox.empty();
  }

  void deliver(int64_t id, Reply reply) {
    std::shared_ptr<Pending> p;
    {
      std::lock_guard lock(mutex);
      auto it = pending.find(id);
      if (it == pending.end()) return;  // timed out already
      p = std::move(it->second);
      pending.erase(it);
      p->done = true;
      p->reply = std::move(reply);
    }
    p->cv.notify_one();  // after unlocking: the caller need not wait for the mutex
  }

  void handle_line(std::string_view line) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
    HostValue msg;
    try {
      msg = parse_json(line);
    } catch (const LispError&) {
      logf(fmt::format("not JSON on stdout: {}", line.substr(0, 200)));
      return;
    }
    if (msg.kind() != HostValue::Kind::Map) return;
    const HostValue* id = msg.get("id");
    if (msg.get("method")) {
      // A request or notification from the server: refuse requests (we offer
      // no sampling, roots or elicitation), ignore notifications.
      if (id && !id->is_nil()) {
        std::string reply = fmt::format(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":-32601,\"message\":\"not "
            "supported by this client\"}}}}\n",
            to_json(*id));
        write_or_queue(reply);
      }
      return;
    }
    if (!id || id->kind() != HostValue::Kind::Int) return;
    Reply r;
    r.bytes = line.size();
    if (const HostValue* err = msg.get("error")) {
      r.status = Reply::Status::UpstreamError;
      const HostValue* m = err->kind() == HostValue::Kind::Map ? err->get("message") : nullptr;
      r.message = redact(m && m->kind() == HostValue::Kind::String ? m->text() : to_json(*err));
    } else if (const HostValue* res = msg.get("result")) {
      r.result = *res;
    } else {
      r.status = Reply::Status::UpstreamError;
      r.message = "reply with neither result nor error";
    }
    deliver(id->as_int(), std::move(r));
  }

  // Splits what was read into lines and handles each; a line over the cap
  // is dropped as it streams (only its ends are kept, to find its id).
  void consume(std::string_view chunk) {
    while (!chunk.empty()) {
      size_t nl = chunk.find('\n');
      std::string_view part = chunk.substr(0, nl);
      if (!oversize) {
        partial.append(part);
        if (partial.size() > max_bytes) {
          oversize = true;
          head = partial.substr(0, 256);
          over_bytes = partial.size();
          tail = partial.substr(partial.size() - std::min<size_t>(partial.size(), 256));
          std::string().swap(partial);
        }
      } else {
        over_bytes += part.size();
        tail.append(part);
        if (tail.size() > 512) tail.erase(0, tail.size() - 256);
      }
      if (nl == std::string_view::npos) break;
      chunk.remove_prefix(nl + 1);
      if (oversize) {
        int64_t id = find_id(head, tail);
        if (id < 0) {
          std::lock_guard lock(mutex);
          if (pending.size() == 1) id = pending.begin()->first;
        }
        Reply r;
        r.status = Reply::Status::TooLarge;
        r.bytes = over_bytes;
        r.message =
            fmt::format("upstream {} replied with more than {} bytes (the cap)", name, max_bytes);
        if (id >= 0) deliver(id, std::move(r));
        oversize = false;
        head.clear();
        tail.clear();
      } else {
        handle_line(partial);
        partial.clear();
      }
    }
  }

  // Takes the reading role (mutex held); the epoch to hand read_once.
  uint64_t take_role(Clock::time_point poll_until) {
    reading = true;
    holder_lane = coop::current_lane();
    holder_polling = true;
    holder_until = poll_until;
    return ++role_epoch;
  }

  // True when the role's holder is a fiber of another lane, in its poll
  // (mutex held): it polls only when its lane is free.
  bool holder_polls_elsewhere() const {
    return reading && holder_polling && holder_lane && holder_lane != coop::current_lane();
  }

  // True when that holder's poll should have ended kTakeOver ago: its lane
  // is busy, so this caller reads instead (a holder merely waiting for a
  // slow reply is left alone).
  bool holder_stalled(Clock::time_point now) const {  // mutex held
    return holder_polls_elsewhere() && now - kTakeOver >= holder_until;
  }

  // One wait for stdout, by the caller holding the reading role as `epoch`:
  // up to timeout_ms (-1: until something happens), then whatever is there.
  // The idle reader also wakes on wake_fd. False when stdout is closed;
  // `*replaced` set when the role went to another caller meanwhile (then
  // nothing was read and the role is not this caller's to give up).
  bool read_once(int timeout_ms, bool idle, uint64_t epoch, bool* replaced) {
    *replaced = false;
    // Queued answers to the server go out from here too when stdin is free
    // (a writer holding it sends them after its own line).
    bool want_out = false;
    {
      std::unique_lock lock(stdin_gate, std::try_to_lock);
      if (lock.owns_lock()) {
        flush_outbox_now();
        want_out = !outbox_empty() && in_fd >= 0;
      }
    }
    pollfd fds[3] = {{out_fd.get(), POLLIN, 0},
                     {want_out ? in_fd.load() : -1, POLLOUT, 0},
                     {wake_fd.get(), POLLIN, 0}};
    int n = coop::poll(fds, idle ? 3 : 2, timeout_ms);
    int poll_errno = errno;
    {
      std::lock_guard lock(mutex);
      if (role_epoch != epoch) {
        *replaced = true;
        return true;
      }
      holder_polling = false;  // reading now: nobody may take over until it is done
    }
    if (n < 0) return poll_errno == EINTR;
    if (n == 0 || fds[0].revents == 0) return true;
    char buf[65536];
    ssize_t got = ::read(out_fd.get(), buf, sizeof buf);
    if (got < 0 && errno == EINTR) return true;
    if (got <= 0) {
      mark_dead("exited (its stdout closed)");
      return false;
    }
    consume(std::string_view(buf, static_cast<size_t>(got)));
    return true;
  }

  // Nobody holds the reading role any more (mutex held).
  void drop_role() {
    reading = false;
    role_free.notify_all();
  }

  // Gives the reading role up (mutex held) and wakes one caller in the wait
  // loop to take it.
  void release_reading() {
    drop_role();
    for (auto& [call_id, pp] : pending)
      if (pp->waiting && !pp->in_read) {
        pp->cv.notify_one();
        return;
      }
  }

  // Asks the idle reader to give the role up (or, stopping, to end).
  void kick_idle_reader() {
    uint64_t one = 1;
    (void)!::write(wake_fd.get(), &one, sizeof one);
  }

  // Reads while no call has waited for kIdleAfter (and leaves the role to
  // callers, who kick it off); ends when stdout closes or the connection
  // stops. Callers never wake it: it looks again every kIdleAfter.
  void idle_loop() {
    std::unique_lock lock(mutex);
    while (!dead && !stopping) {
      // Calls still writing do not read: if their write waits for a server
      // that waits for us to read its stdout, this thread reads for them.
      auto now = Clock::now();
      if ((reading && !holder_stalled(now)) ||
          (!drain_now && (waiters > 0 || now - quiet_since < kIdleAfter))) {
        idle_cv.wait_for(lock, kIdleAfter);
        continue;
      }
      drain_now = false;
      uint64_t epoch = take_role(Clock::time_point::max());  // a thread: never replaced
      idle_reading = true;
      idle_kicked = false;
      bool waiting_calls = !pending.empty();
      lock.unlock();
      bool open = false, replaced = false;
      try {
        open = read_once(waiting_calls ? 100 : -1, true, epoch, &replaced);
      } catch (...) {  // never expected (out of memory): the connection ends
        lock.lock();
        idle_reading = false;
        if (role_epoch == epoch) release_reading();
        lock.unlock();
        mark_dead("could not be read");
        return;
      }
      uint64_t kicks = 0;
      (void)!::read(wake_fd.get(), &kicks, sizeof kicks);  // nonblocking: drains a kick if any
      lock.lock();
      idle_reading = false;
      if (!replaced) release_reading();
      if (!open) break;
    }
  }

  void read_stderr() {
    std::string line;
    char buf[4096];
    for (;;) {
      ssize_t n = ::read(err_fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      for (ssize_t i = 0; i < n; ++i) {
        if (buf[i] == '\n') {
          logf(line);
          line.clear();
        } else if (line.size() < kMaxStderrLine) {
          line += buf[i];
        }
      }
    }
    if (!line.empty()) logf(line);
  }

  Reply request(std::string_view method, const HostValue& params, Clock::time_point deadline,
                const std::function<bool()>& cancelled) {
    int64_t id = next_id++;
    auto p = std::make_shared<Pending>();
    {
      std::lock_guard lock(mutex);
      if (dead) {
        Reply r;
        r.status = Reply::Status::Unavailable;
        r.message = redact(fmt::format("upstream {} {}", name, death));
        return r;
      }
      pending[id] = p;
    }
    std::string frame =
        fmt::format("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":{},\"params\":{}}}\n", id,
                    to_json(HostValue::string(std::string(method))),
                    to_json(modern ? with_modern_envelope(params) : params));
    Written written = write_line(frame, deadline, cancelled);
    if (written == Written::Failed) {
      mark_dead("cannot be written to (it exited)");
      std::lock_guard lock(mutex);
      return p->reply;
    }
    std::unique_lock lock(mutex);
    p->waiting = true;
    ++waiters;
    // Every way out of the loop below stops it waiting (under the mutex).
    struct Leave {
      Connection& c;
      std::unique_lock<std::mutex>& lock;
      bool left = false;
      void now() {  // mutex held
        if (left) return;
        left = true;
        if (--c.waiters == 0) c.quiet_since = Clock::now();  // the idle reader may read later
      }
      ~Leave() {
        if (!lock.owns_lock()) lock.lock();
        now();
      }
    } leave{*this, lock};
    for (;;) {
      if (p->done) return p->reply;
      auto now = Clock::now();
      bool stop = cancelled && cancelled();
      if (now >= deadline || stop || written == Written::TimedOut) {
        pending.erase(id);
        p->waiting = false;
        leave.now();  // before anything that may wait: it reads no more
        if (!reading) release_reading();
        lock.unlock();
        if (written == Written::Ok) {
          HostValue cancel = HostValue::map(
              {{HostValue::string("requestId"), HostValue::integer(id)},
               {HostValue::string("reason"), HostValue::string(stop ? "cancelled" : "timeout")}});
          write_or_queue(fmt::format(
              "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}}\n",
              to_json(modern ? with_modern_envelope(cancel) : cancel)));
        }
        Reply r;
        r.status = stop ? Reply::Status::Cancelled : Reply::Status::Timeout;
        r.message = stop ? fmt::format("the call to upstream {} was cancelled", name)
                         : fmt::format("upstream {} did not answer {} in time", name, method);
        return r;
      }
      auto wake = std::min(deadline, now + std::chrono::milliseconds(cancelled ? 20 : 1000));
      if ((!reading || holder_stalled(now)) && !dead) {
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count();
        ms = std::max<int64_t>(ms, 1);
        uint64_t epoch = take_role(now + std::chrono::milliseconds(ms));
        p->in_read = true;
        lock.unlock();
        bool replaced = false;
        try {
          read_once(static_cast<int>(ms), false, epoch, &replaced);
        } catch (...) {  // never expected (out of memory): give the role back
          lock.lock();
          p->in_read = false;
          pending.erase(id);
          if (role_epoch == epoch) release_reading();
          throw;
        }
        lock.lock();
        p->in_read = false;
        if (replaced) continue;  // the new holder reads; this call waits for its reply
        if (p->done)
          release_reading();  // another caller takes over
        else
          drop_role();  // this caller reads again on the next turn
        continue;
      }
      if (idle_reading && !idle_kicked) {
        idle_kicked = true;
        kick_idle_reader();
      }
      // A fiber of another lane holds the role: look again when it would be
      // overdue, to take it over then rather than at the end of this slice.
      if (holder_polls_elsewhere()) wake = std::min(wake, holder_until + kTakeOver);
      p->cv.wait_until(lock, wake);
    }
  }

  void notify(std::string_view method, Clock::time_point deadline) {
    write_line(fmt::format("{{\"jsonrpc\":\"2.0\",\"method\":\"{}\"}}\n", method), deadline);
  }

  void shutdown() {
    gone = true;  // writers waiting for stdin give up
    {
      std::lock_guard lock(stdin_gate);
      if (in_fd >= 0) ::close(in_fd);
      in_fd = -1;
    }
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    idle_cv.notify_all();
    if (wake_fd) kick_idle_reader();
    if (pid > 0) {
      // Closing stdin asks it to leave; then TERM, then KILL, the whole group.
      int status = 0;
      auto reaped_within = [&](std::chrono::milliseconds grace) {
        for (auto until = Clock::now() + grace; Clock::now() < until;) {
          if (::waitpid(pid, &status, WNOHANG) == pid) return true;
          coop::sleep_for(std::chrono::milliseconds(10));  // a fiber lets its lane go on
        }
        return false;
      };
      bool reaped = reaped_within(std::chrono::milliseconds(500));
      ::kill(-pid, SIGTERM);
      if (!reaped) reaped = reaped_within(std::chrono::milliseconds(500));
      ::kill(-pid, SIGKILL);
      if (!reaped) ::waitpid(pid, &status, 0);
      pid = -1;
    }
    if (idle_reader.joinable()) idle_reader.join();
    if (err_reader.joinable()) err_reader.join();
    mark_dead("was stopped");  // nobody takes the reading role any more
    // A caller's poll ends at its next check (<= 1 s; EOF sooner). That
    // caller may be a fiber parked on this very thread's lane (a restart
    // made from a pmap branch): the wait parks too, so it can run.
    std::unique_lock lock(mutex);
    role_free.wait(lock, [&] { return !reading; });
    lock.unlock();
    for (UniqueFd* fd : {&out_fd, &err_fd, &wake_fd})
      fd->reset();
  }
};

StdioClient::StdioClient(UpstreamConfig config, const Redactor* redactor, LogFn log)
    : config_(std::move(config)), redactor_(redactor), log_(std::move(log)) {}

StdioClient::~StdioClient() {
  stop();
}

void StdioClient::stop() {
  std::shared_ptr<Connection> c;
  {
    std::lock_guard lock(mutex_);
    c = std::move(conn_);
  }
  if (c) c->shutdown();
}

pid_t StdioClient::pid() const {
  std::lock_guard lock(mutex_);
  return conn_ ? conn_->pid : -1;
}

// How long the server/discover probe waits before a server that stays silent
// is taken for a 2025 one ("protocol": "legacy" skips the probe).
constexpr std::chrono::milliseconds kProbeWindow{2000};

std::string StdioClient::spawn_and_initialize(std::shared_ptr<Connection>& out, bool list_tools) {
  auto deadline = Clock::now() + std::chrono::milliseconds(config_.handshake_timeout_ms);
  std::shared_ptr<Connection> c;
  if (std::string err = spawn(c); !err.empty()) return err;
  // Revision 2026-07-28 first, as the official client's auto mode does: a
  // server that offers it needs no handshake, and every request carries the
  // envelope. A 2025 server answers the probe with an error, or not at all
  // within kProbeWindow, and gets the handshake on the same process; one that
  // exits over it gets a new process.
  bool probe_unanswered = false;
  if (config_.protocol != "legacy") {
    bool pinned = config_.protocol == "2026-07-28";
    c->modern = true;
    Reply d = c->request("server/discover", HostValue::map({}),
                         pinned ? deadline : std::min(deadline, Clock::now() + kProbeWindow), {});
    c->modern = d.status == Reply::Status::Ok && offers_modern(d.result);
    probe_unanswered = d.status == Reply::Status::Timeout;
    if (pinned && !c->modern) {
      c->shutdown();
      return pinned_refusal(d);
    }
    if (d.status == Reply::Status::Timeout && Clock::now() >= deadline) {
      c->shutdown();
      return "server/discover failed: " + d.message;
    }
    if (d.status == Reply::Status::Unavailable) {
      c->shutdown();
      if (std::string err = spawn(c); !err.empty()) return err;
    }
  }
  if (!c->modern) {
    Reply r = c->request("initialize", initialize_params(), deadline, {});
    if (r.status == Reply::Status::UpstreamError && probe_unanswered) {
      // It refuses the 2025 handshake, so it is up and was only slow to
      // start (a loaded machine): ask the 2026 question again, to the end.
      c->modern = true;
      Reply d = c->request("server/discover", HostValue::map({}), deadline, {});
      c->modern = d.status == Reply::Status::Ok && offers_modern(d.result);
    }
    if (!c->modern) {
      if (r.status != Reply::Status::Ok) {
        c->shutdown();
        return "initialize failed: " + r.message;
      }
      c->notify("notifications/initialized", deadline);
    }
  }
  if (list_tools) {
    std::vector<HostValue> tools;
    std::string err = list_all_tools(
        [&](const HostValue& params) { return c->request("tools/list", params, deadline, {}); },
        tools);
    if (!err.empty()) {
      c->shutdown();
      return err;
    }
    tools_ = std::move(tools);
  }
  out = std::move(c);
  return {};
}

std::string StdioClient::spawn(std::shared_ptr<Connection>& out) {
  net::ignore_sigpipe();  // a dead upstream is EPIPE, not our death
  auto redact = [&](std::string s) { return redactor_ ? redactor_->redact(s) : s; };
  // Its stdin, stdout and stderr: the child's ends go to it, ours stay here.
  PipeEnds stdin_pipe, stdout_pipe, stderr_pipe;
  for (PipeEnds* ends : {&stdin_pipe, &stdout_pipe, &stderr_pipe}) {
    *ends = open_pipe(O_CLOEXEC);
    if (!ends->read_end) return "cannot create a pipe";
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, stdin_pipe.read_end.get(), 0);
  posix_spawn_file_actions_adddup2(&fa, stdout_pipe.write_end.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, stderr_pipe.write_end.get(), 2);
  if (!config_.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, config_.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  // The environment: what a server needs to start (as the MCP SDK passes),
  // then the configured variables. Nothing else of ours leaks to it.
  std::vector<std::string> env;
  for (const char* k : {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}) {
    bool overridden = false;
    for (auto& [ck, cv] : config_.env)
      overridden |= ck == k;
    if (const char* v = std::getenv(k); v && !overridden) env.push_back(fmt::format("{}={}", k, v));
  }
  for (auto& [k, v] : config_.env)
    env.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_s{config_.command};
  argv_s.insert(argv_s.end(), config_.args.begin(), config_.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawnp(&pid, config_.command.c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  for (UniqueFd* child_end : {&stdin_pipe.read_end, &stdout_pipe.write_end, &stderr_pipe.write_end})
    child_end->reset();  // the child has its copies
  if (rc != 0)
    return redact(fmt::format("cannot start {}: {}", config_.command, std::strerror(rc)));
  // Our end of its stdin never blocks: a write waits with the call's deadline.
  ::fcntl(stdin_pipe.write_end.get(), F_SETFL,
          ::fcntl(stdin_pipe.write_end.get(), F_GETFL) | O_NONBLOCK);
  auto c = std::make_shared<Connection>();
  c->pid = pid;
  c->in_fd = stdin_pipe.write_end.release();
  c->out_fd = std::move(stdout_pipe.read_end);
  c->err_fd = std::move(stderr_pipe.read_end);
  c->max_bytes = config_.max_response_bytes;
  c->name = config_.name;
  c->redactor = redactor_;
  c->log = log_;
  Connection* raw = c.get();
  c->wake_fd.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!c->wake_fd) {
    c->shutdown();
    return "cannot create an eventfd";
  }
  c->idle_reader = std::thread([raw] { raw->idle_loop(); });
  c->err_reader = std::thread([raw] { raw->read_stderr(); });
  out = std::move(c);
  return {};
}

std::string StdioClient::start() {
  std::shared_ptr<Connection> c;
  std::string err = spawn_and_initialize(c, true);
  if (!err.empty()) return err;
  std::lock_guard lock(mutex_);
  conn_ = std::move(c);
  return {};
}

std::shared_ptr<Connection> StdioClient::live_connection(std::string* error) {
  std::shared_ptr<Connection> old;
  {
    std::lock_guard lock(mutex_);
    if (conn_ && !conn_->is_dead()) return conn_;
    auto now = Clock::now();
    if (now < next_restart_) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next_restart_ - now).count();
      *error = fmt::format("upstream {} is down; it is restarted on a call in {} ms or later",
                           config_.name, ms);
      return nullptr;
    }
    backoff_ = backoff_.count() == 0 ? kFirstBackoff : std::min(backoff_ * 2, kMaxBackoff);
    next_restart_ = now + backoff_;
    old = std::move(conn_);
  }
  if (old) {
    if (log_) log_(fmt::format("upstream {}: restarting (the process had died)", config_.name));
    old->shutdown();  // reap it and join its threads
  }
  std::shared_ptr<Connection> fresh;
  std::string err = spawn_and_initialize(fresh, false);
  std::lock_guard lock(mutex_);
  if (!err.empty()) {
    *error = fmt::format("upstream {} could not be restarted: {}", config_.name, err);
    return nullptr;
  }
  if (conn_ && !conn_->is_dead()) {  // another caller restarted it meanwhile
    fresh->shutdown();
    return conn_;
  }
  conn_ = fresh;
  return fresh;
}

Reply StdioClient::request(std::string_view method, const HostValue& params,
                           Clock::time_point deadline, const std::function<bool()>& cancelled) {
  std::string err;
  std::shared_ptr<Connection> c = live_connection(&err);
  if (!c) {
    Reply r;
    r.status = Reply::Status::Unavailable;
    r.message = redactor_ ? redactor_->redact(err) : err;
    return r;
  }
  Reply r = c->request(method, params, deadline, cancelled);
  if (r.status == Reply::Status::Ok) {
    std::lock_guard lock(mutex_);
    backoff_ = std::chrono::milliseconds(0);
    next_restart_ = {};
  }
  return r;
}

}  // namespace ptc::upstream
