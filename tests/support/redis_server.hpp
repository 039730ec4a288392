// A private redis-server (Debian's) for a test: on a Unix socket in a fresh
// temporary folder, with no persistence unless asked, started and waited
// for by its "ready to accept connections" line (no polling, no sleeps), and
// killed when the test ends. Fails the test when redis-server is missing
// (scripts/setup installs it).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ptc::testing {

class RedisServer {
 public:
  // `persist`: append-only file in the folder, so a restart keeps the data.
  explicit RedisServer(bool persist = false) : persist_(persist) {
    char dir_template[] = "/tmp/ptc-redis-XXXXXX";
    if (!mkdtemp(dir_template)) throw std::runtime_error("mkdtemp failed");
    dir_ = dir_template;
    start();
  }
  ~RedisServer() {
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  std::string socket() const { return dir_ + "/redis.sock"; }
  std::string url() const { return "unix://" + socket(); }
  const std::string& dir() const { return dir_; }
  bool running() const { return pid_ > 0; }

  void start() {
    if (pid_ > 0) return;
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    std::vector<std::string> args = {"redis-server",
                                     "--port",
                                     "0",
                                     "--unixsocket",
                                     socket(),
                                     "--unixsocketperm",
                                     "700",
                                     "--dir",
                                     dir_,
                                     "--save",
                                     "",
                                     "--appendonly",
                                     persist_ ? "yes" : "no",
                                     "--daemonize",
                                     "no",
                                     "--loglevel",
                                     "notice"};
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 2);
      close(out[0]);
      std::vector<char*> argv;
      for (std::string& a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      execvp("redis-server", argv.data());
      _exit(127);
    }
    close(out[1]);
    // Read its log until it is ready (or it ended: not installed, or failed).
    std::string seen;
    char buf[512];
    for (;;) {
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      seen.append(buf, static_cast<size_t>(n));
      if (ready(seen)) break;
    }
    // Keep draining its log so that it never blocks on a full pipe; the
    // thread ends when redis-server does (end of file).
    std::thread([fd = out[0]] {
      char sink[512];
      while (read(fd, sink, sizeof sink) > 0) {}
      close(fd);
    }).detach();
    if (!ready(seen)) {
      stop();
      throw std::runtime_error(
          "redis-server did not start (is it installed? scripts/setup installs it): " + seen);
    }
  }

  // SIGKILL by default; SIGTERM lets it write its append-only file first.
  void stop(int signal = SIGKILL) {
    if (pid_ <= 0) return;
    kill(pid_, signal);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    unlink(socket().c_str());
  }

 private:
  // Redis 7 says "The server is now ready to accept connections at PATH";
  // others "Ready to accept connections".
  static bool ready(const std::string& log) {
    return log.find("eady to accept connections") != std::string::npos;
  }

  bool persist_;
  std::string dir_;
  pid_t pid_ = -1;
};

// One server for the whole test process, started on first use (tests that
// share it clear it with FLUSHALL first).
inline RedisServer& shared_redis_server() {
  static RedisServer server;
  return server;
}

}  // namespace ptc::testing
