#include "protocol/mcp/fifo_timer.hpp"

namespace ptc::mcp {

FifoTimer::FifoTimer(std::chrono::milliseconds delay) : delay_(delay) {}

FifoTimer::~FifoTimer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void FifoTimer::arm(std::function<void()> fire) {
  bool was_empty;
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    was_empty = queue_.empty();
    queue_.emplace_back(Clock::now() + delay_, std::move(fire));
  }
  if (was_empty) wake_.notify_one();
}

void FifoTimer::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (stopping_) return;
    if (queue_.empty()) {
      wake_.wait(lock);
      continue;
    }
    if (Clock::time_point due = queue_.front().first; Clock::now() < due) {
      wake_.wait_until(lock, due);
      continue;
    }
    std::function<void()> fire = std::move(queue_.front().second);
    queue_.pop_front();
    lock.unlock();
    fire();
    lock.lock();
  }
}

}  // namespace ptc::mcp
