// Waits that suspend a fiber on a lane (vm/lane.hpp) and block a thread
// anywhere else. Code that may run inside a parallel branch and waits for
// the world (the upstream MCP clients) waits through these, so that a
// branch waiting for a reply leaves its thread to the other branches. A
// wait that blocks the thread instead (a host tool, a plain condition
// variable) would hold up every branch of the lane: run it through
// run_blocking().
#pragma once

#include <poll.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

namespace ptc {
class Lane;
}  // namespace ptc

namespace ptc::coop {

using Clock = std::chrono::steady_clock;

// True when the running code is a fiber on a lane: waiting here lets other
// branches of the lane run.
bool on_lane();
// The lane the running fiber is on, as an identity to compare; nullptr on a thread.
const void* current_lane();

// poll(2); on a lane it suspends the fiber instead. May return 0 early.
int poll(pollfd* fds, int nfds, int timeout_ms);

// A condition variable whose waiters may be fibers or threads. Like
// std::condition_variable: waits may end spuriously and sit in loops that
// re-check their condition under the mutex.
class CondVar {
 public:
  std::cv_status wait_until(std::unique_lock<std::mutex>& lock, Clock::time_point until);
  template <class Pred>
  bool wait_until(std::unique_lock<std::mutex>& lock, Clock::time_point until, Pred pred) {
    while (!pred())
      if (wait_until(lock, until) == std::cv_status::timeout) return pred();
    return true;
  }
  template <class Rep, class Period>
  std::cv_status wait_for(std::unique_lock<std::mutex>& lock,
                          std::chrono::duration<Rep, Period> d) {
    return wait_until(lock, Clock::now() + d);
  }
  void wait(std::unique_lock<std::mutex>& lock) { wait_until(lock, Clock::time_point::max()); }
  template <class Pred>
  void wait(std::unique_lock<std::mutex>& lock, Pred pred) {
    while (!pred())
      wait(lock);
  }
  void notify_one();
  void notify_all();

 private:
  struct FiberWaiter;
  std::mutex mutex_;  // guards fibers_
  std::vector<FiberWaiter*> fibers_;
  std::condition_variable threads_;
};

// Sleeps for `d`; on a lane the fiber parks instead.
void sleep_for(std::chrono::milliseconds d);

// A wait for an answer only the host can give (an execution's deferred tool
// call). The waiting fiber parks; once every fiber of the execution waits so,
// the execution's own fiber is suspended and the host's thread returns to
// it. answer() comes from the host while the execution is suspended, before
// it resumes the execution's fiber (on whatever thread it calls from).
class HostWait {
 public:
  // From a fiber: returns once answered. Throws std::logic_error outside one
  // (nothing could ever answer).
  void wait();
  // From the host, while the execution is suspended.
  void answer();
  bool answered() const { return answered_; }

 private:
  Lane* lane_ = nullptr;
  void* task_ = nullptr;
  bool answered_ = false;
};

// Runs `fn` to its end. On a lane it runs on a pool thread while the fiber
// waits (the lane's other branches go on); elsewhere, or when no thread can
// be had, here. An exception from fn is thrown here.
void run_blocking(const std::function<void()>& fn);

}  // namespace ptc::coop
