// One process-wide pool of threads for parallel branches. It grows on demand
// up to a fixed cap and never blocks a submitter: a task that finds no idle
// thread waits in the queue, and the thread that submitted it keeps working
// on its own branches meanwhile, so nested parallel calls cannot deadlock.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ptc {

class ThreadPool {
 public:
  static ThreadPool& instance();

  // Queues a task. False when it could not be queued (no memory, no thread
  // could be started and none exists): the caller then does the work itself.
  bool submit(std::function<void()> task) noexcept;
  // Like submit, but only when a thread can take the task now (an idle one,
  // or a new one): false rather than queued behind busy threads.
  bool start_now(std::function<void()> task) noexcept;

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

 private:
  ThreadPool() = default;
  void loop();
  bool enqueue(std::function<void()> task, bool only_now) noexcept;

  static constexpr size_t kMaxThreads = 64;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace ptc
