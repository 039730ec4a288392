// Runs callbacks a fixed delay after they were armed, on one thread of its
// own. Every callback waits the same delay, so they come due in the order
// they were armed: a queue, not a heap, and arming wakes the thread only
// when the queue was empty.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace ptc::mcp {

class FifoTimer {
 public:
  explicit FifoTimer(std::chrono::milliseconds delay);
  ~FifoTimer();  // callbacks not yet due are dropped
  FifoTimer(const FifoTimer&) = delete;
  FifoTimer& operator=(const FifoTimer&) = delete;

  // `fire` runs on the timer's thread once the delay has passed (the thread
  // starts with the first call).
  void arm(std::function<void()> fire);

 private:
  void run();

  using Clock = std::chrono::steady_clock;
  std::chrono::milliseconds delay_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<Clock::time_point, std::function<void()>>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ptc::mcp
