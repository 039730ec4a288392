// What the scheduler tests share. Every test runs under a HangGuard: a wait
// that never ends (a lost wake-up, a lane blocked by a wait that should have
// let it go) aborts the binary with the test's name instead of hanging it.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/lane.hpp"

namespace ptc::testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Aborts the process when the test it guards has not ended within `limit`.
class HangGuard {
 public:
  explicit HangGuard(std::chrono::seconds limit = 60s) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    name_ = info ? std::string(info->test_suite_name()) + "." + info->name() : "?";
    thread_ = std::thread([this, limit] {
      std::unique_lock lock(mutex_);
      if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
        std::fprintf(stderr, "hang guard: %s did not end within %lld s\n", name_.c_str(),
                     static_cast<long long>(limit.count()));
        std::fflush(stderr);
        std::abort();
      }
    });
  }
  ~HangGuard() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  HangGuard(const HangGuard&) = delete;
  HangGuard& operator=(const HangGuard&) = delete;

 private:
  std::string name_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Runs `bodies` as fibers of `lane`, on this thread, in order of start.
inline void run_lane(Lane& lane, std::vector<std::function<void()>> bodies) {
  size_t next = 0;
  lane.run([&]() -> std::function<void()> {
    if (next < bodies.size()) return bodies[next++];
    return {};
  });
}

// A pipe closed at scope exit.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2");
  }
  ~Pipe() {
    ::close(fd[0]);
    ::close(fd[1]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return fd[0]; }
  void put(char c) const { ASSERT_EQ(::write(fd[1], &c, 1), 1); }
  char take() const {
    char c = 0;
    return ::read(fd[0], &c, 1) == 1 ? c : '\0';
  }
};

}  // namespace ptc::testing
