// stdio: NDJSON frames on stdin, replies on stdout, one whole line at a time
// under a lock. Reading is a role the transport's threads pass around
// (leader/follower): the thread that reads a tools/call runs it itself and
// hands reading to another thread, so a call crosses no thread on its way
// from stdin to stdout.
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/mcp/log.hpp"
#include "protocol/mcp/transports.hpp"

namespace ptc::mcp {

namespace {

class StdoutPeer final : public Peer {
 public:
  explicit StdoutPeer(int fd) : fd_(fd) {}

  void send(std::string frame) override {
    frame.push_back('\n');
    std::lock_guard lock(mutex_);
    const char* p = frame.data();
    size_t left = frame.size();
    while (left > 0 && !broken_) {
      ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        broken_ = true;  // the client went away; replies have nowhere to go
        log(LogLevel::Warning, "stdout_closed",
            {{"error", HostValue::string(std::strerror(errno))}});
        break;
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
  std::mutex mutex_;
  bool broken_ = false;
};

// What the reading role holds: the bytes read but not yet dispatched.
class Reader {
 public:
  Reader(int fd, const Server& server)
      : fd_(fd),
        server_(server),
        max_frame_(server.config().max_frame_bytes),
        buf_(64 << 10, '\0') {}

  enum class Next { Line, TooLong, End };
  // The next complete line (without its newline or a trailing \r).
  Next next(std::string& line) {
    for (;;) {
      if (size_t nl = pending_.find('\n', scan_); nl != std::string::npos) {
        if (skipping_) {
          skipping_ = false;
          pending_.erase(0, nl + 1);
          scan_ = 0;
          continue;
        }
        if (nl > max_frame_) {  // the whole over-long line came in one read
          pending_.erase(0, nl + 1);
          scan_ = 0;
          return Next::TooLong;
        }
        line.assign(pending_, 0, nl);
        pending_.erase(0, nl + 1);
        scan_ = 0;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return Next::Line;
      }
      scan_ = pending_.size();
      if (!skipping_ && pending_.size() > max_frame_) {
        pending_.clear();
        pending_.shrink_to_fit();
        scan_ = 0;
        skipping_ = true;  // drop bytes up to the next newline
        return Next::TooLong;
      }
      if (skipping_) {
        pending_.clear();
        scan_ = 0;
      }
      if (eof_) {
        if (skipping_ || pending_.empty()) return Next::End;
        line = std::move(pending_);  // a last line without a newline is still a message
        pending_.clear();
        return Next::Line;
      }
      if (!wait_for_input()) return Next::End;
      ssize_t n = ::read(fd_, buf_.data(), buf_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n < 0)
          log(LogLevel::Error, "stdin_read_failed",
              {{"error", HostValue::string(std::strerror(errno))}});
        eof_ = true;
        continue;
      }
      pending_.append(buf_.data(), static_cast<size_t>(n));
    }
  }

 private:
  // Waits until stdin has bytes (or its end). During a drain (SIGTERM) the
  // frames the client already sent are still read and answered (calls get
  // shutting_down); reading stops once stdin is quiet and no call runs, or
  // when the drain's grace is over.
  bool wait_for_input() {
    using Clock = std::chrono::steady_clock;
    for (;;) {
      bool draining = server_.draining();
      pollfd p{fd_, POLLIN, 0};
      int ready = ::poll(&p, 1, draining ? 10 : 100);
      if (ready > 0) return true;
      if (ready < 0 && errno != EINTR) return true;  // let read() report it
      if (!draining) continue;
      if (drain_started_ == Clock::time_point{}) drain_started_ = Clock::now();
      auto grace = std::chrono::milliseconds(server_.config().http_shutdown_grace_ms);
      if (server_.in_flight() == 0 || Clock::now() - drain_started_ > grace) return false;
    }
  }

  int fd_;
  const Server& server_;
  std::chrono::steady_clock::time_point drain_started_{};
  size_t max_frame_;
  std::string buf_;
  std::string pending_;
  size_t scan_ = 0;  // pending_ before this has no newline
  bool skipping_ = false;
  bool eof_ = false;
};

bool blank(const std::string& s) {
  return s.find_first_not_of(" \t\r") == std::string::npos;
}

}  // namespace

int serve_stdio(Server& server, int in_fd, int out_fd) {
  std::signal(SIGPIPE, SIG_IGN);  // a client that stops reading is EPIPE (stdout_closed), not death
  auto peer = std::make_shared<StdoutPeer>(out_fd);
  const Caller caller{"stdio", "stdio", false};
  const size_t max_frame = server.config().max_frame_bytes;
  Reader reader(in_fd, server);

  std::mutex mutex;
  std::condition_variable turn;      // followers wait here for the reading role
  std::condition_variable finished;  // serve_stdio waits here for the end
  bool reading_free = true;          // no thread holds the reading role
  bool ended = false;                // stdin reached its end

  // Each thread waits for the reading role, reads until it meets a call it
  // runs itself (giving the role away first), and waits again.
  auto thread_main = [&] {
    std::string line;
    for (;;) {
      {
        std::unique_lock lock(mutex);
        turn.wait(lock, [&] { return reading_free || ended; });
        if (ended) return;
        reading_free = false;
      }
      bool gave_away = false;
      Server::Runner run_here = [&](std::function<void()> call) {
        {
          std::lock_guard lock(mutex);
          reading_free = true;
        }
        turn.notify_one();  // only followers wait on `turn`: one of them reads next
        gave_away = true;
        call();
      };
      while (!gave_away) {
        Reader::Next next = reader.next(line);
        if (next == Reader::Next::End) {
          {
            std::lock_guard lock(mutex);
            ended = true;
          }
          turn.notify_all();
          finished.notify_all();
          return;
        }
        if (next == Reader::Next::TooLong) {
          server.reject_frame(
              peer,
              fmt::format("the message is longer than {} bytes (max-frame-bytes)", max_frame));
          log(LogLevel::Warning, "frame_too_large",
              {{"limit", HostValue::integer(static_cast<int64_t>(max_frame))}});
          continue;
        }
        if (!blank(line)) server.handle(line, peer, caller, run_here);
      }
    }
  };

  // As many threads as calls may run at once, and one more to keep reading.
  std::vector<std::thread> threads;
  for (uint32_t i = 0; i < server.capacity() + 1; ++i)
    threads.emplace_back(thread_main);
  log(LogLevel::Info, "stdio_ready", {{"capacity", HostValue::integer(server.capacity())}});
  {
    std::unique_lock lock(mutex);
    finished.wait(lock, [&] { return ended; });
  }
  // EOF (the client is gone) or a finished drain: stop what runs and leave.
  server.cancel_all();
  for (std::thread& t : threads)
    t.join();
  server.wait_idle(std::chrono::milliseconds(2000));
  log(LogLevel::Info, server.draining() ? "stdio_drained" : "stdio_eof");
  return 0;
}

}  // namespace ptc::mcp
