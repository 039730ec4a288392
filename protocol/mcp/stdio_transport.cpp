// stdio: NDJSON frames on stdin, replies on stdout. The reading thread
// dispatches; replies are written by whichever thread finishes a call, one
// whole line at a time under a lock.
#include <errno.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstring>
#include <mutex>
#include <string>

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

}  // namespace

int serve_stdio(Server& server, int in_fd, int out_fd) {
  auto peer = std::make_shared<StdoutPeer>(out_fd);
  Caller caller{"stdio", "stdio", false};
  const size_t max_frame = server.config().max_frame_bytes;
  std::string line;       // the frame being read
  bool skipping = false;  // an oversize line: drop bytes up to its newline
  std::string buf(64 << 10, '\0');
  log(LogLevel::Info, "stdio_ready", {{"capacity", HostValue::integer(server.capacity())}});
  for (;;) {
    ssize_t n = ::read(in_fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      log(LogLevel::Error, "stdin_read_failed",
          {{"error", HostValue::string(std::strerror(errno))}});
      break;
    }
    if (n == 0) break;  // EOF
    size_t start = 0;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      if (buf[i] != '\n') continue;
      if (skipping) {
        skipping = false;
      } else {
        line.append(buf.data() + start, i - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t\r") != std::string::npos) server.handle(line, peer, caller);
      }
      line.clear();
      start = i + 1;
    }
    if (!skipping) {
      line.append(buf.data() + start, static_cast<size_t>(n) - start);
      if (line.size() > max_frame) {
        server.reject_frame(
            peer, fmt::format("the message is longer than {} bytes (max-frame-bytes)", max_frame));
        log(LogLevel::Warning, "frame_too_large",
            {{"limit", HostValue::integer(static_cast<int64_t>(max_frame))}});
        line.clear();
        line.shrink_to_fit();
        skipping = true;
      }
    }
  }
  // A last line without a newline is still a message.
  if (!skipping && line.find_first_not_of(" \t\r") != std::string::npos)
    server.handle(line, peer, caller);
  // EOF: the client is gone; stop its calls and leave.
  server.cancel_all();
  server.wait_idle(std::chrono::milliseconds(2000));
  log(LogLevel::Info, "stdio_eof");
  return 0;
}

}  // namespace ptc::mcp
