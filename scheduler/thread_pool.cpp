#include "scheduler/thread_pool.hpp"

namespace ptc {

ThreadPool& ThreadPool::instance() {
  static ThreadPool pool;
  return pool;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_)
    t.join();
}

bool ThreadPool::submit(std::function<void()> task) noexcept {
  return enqueue(std::move(task), false);
}

bool ThreadPool::start_now(std::function<void()> task) noexcept {
  return enqueue(std::move(task), true);
}

bool ThreadPool::enqueue(std::function<void()> task, bool only_now) noexcept {
  std::lock_guard lock(mutex_);
  try {
    queue_.push_back(std::move(task));
  } catch (...) {
    return false;
  }
  if (only_now && idle_ < queue_.size() && threads_.size() >= kMaxThreads) {
    queue_.pop_back();
    return false;
  }
  if (idle_ < queue_.size() && threads_.size() < kMaxThreads) {
    try {
      threads_.emplace_back([this] { loop(); });
      return true;
    } catch (...) {
      // Out of threads or memory: an existing thread may still take the task.
      if (threads_.empty() || only_now) {
        queue_.pop_back();
        return false;
      }
    }
  }
  wake_.notify_one();
  return true;
}

void ThreadPool::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (queue_.empty()) return;  // stopping
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    try {
      task();
    } catch (...) {
      // Tasks report their own failures; nothing may end a pool thread.
    }
    lock.lock();
  }
}

}  // namespace ptc
