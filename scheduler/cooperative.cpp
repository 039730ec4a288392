#include "scheduler/cooperative.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>

#include "scheduler/lane.hpp"
#include "scheduler/thread_pool.hpp"

namespace ptc::coop {

namespace {
// The lane whose fiber is running here, or nullptr (a thread, or a lane's own
// scheduling code: neither can park).
Lane* fiber_lane() {
  Lane* lane = Lane::current();
  return lane && lane->running() ? lane : nullptr;
}
}  // namespace

bool on_lane() {
  return fiber_lane() != nullptr;
}

const void* current_lane() {
  return fiber_lane();
}

int poll(pollfd* fds, int nfds, int timeout_ms) {
  Lane* lane = fiber_lane();
  if (!lane || timeout_ms == 0) return ::poll(fds, nfds, timeout_ms);
  auto until = timeout_ms < 0 ? Clock::time_point::max()
                              : Clock::now() + std::chrono::milliseconds(timeout_ms);
  lane->park(until, fds, nfds);
  int ready = 0;
  for (int i = 0; i < nfds; ++i)
    ready += fds[i].revents != 0;
  return ready;
}

struct CondVar::FiberWaiter {
  Lane* lane;
  Lane::Task* task;
};

std::cv_status CondVar::wait_until(std::unique_lock<std::mutex>& lock, Clock::time_point until) {
  Lane* lane = fiber_lane();
  if (!lane) {
    if (until == Clock::time_point::max()) {
      threads_.wait(lock);
      return std::cv_status::no_timeout;
    }
    return threads_.wait_until(lock, until);
  }
  FiberWaiter me{lane, lane->running()};
  {
    std::lock_guard g(mutex_);
    fibers_.push_back(&me);
  }
  lock.unlock();
  lane->park(until);
  bool notified;
  {
    // A notifier wakes a waiter only while it is listed, under mutex_: once
    // off the list here, no wake() can reach this task late.
    std::lock_guard g(mutex_);
    auto it = std::find(fibers_.begin(), fibers_.end(), &me);
    notified = it == fibers_.end();
    if (!notified) fibers_.erase(it);
  }
  lock.lock();
  return notified || Clock::now() < until ? std::cv_status::no_timeout : std::cv_status::timeout;
}

void CondVar::notify_one() {
  {
    std::lock_guard g(mutex_);
    if (!fibers_.empty()) {
      FiberWaiter* w = fibers_.front();
      fibers_.erase(fibers_.begin());
      w->lane->wake(w->task);
    }
  }
  // Threads may wait too; a spurious wake-up is allowed, a lost one is not.
  threads_.notify_one();
}

void CondVar::notify_all() {
  {
    std::lock_guard g(mutex_);
    for (FiberWaiter* w : fibers_)
      w->lane->wake(w->task);
    fibers_.clear();
  }
  threads_.notify_all();
}

void HostWait::wait() {
  Lane* lane = fiber_lane();
  if (lane) {
    lane_ = lane;
    task_ = lane->running();
    while (!answered_)
      lane->park_for_host();
    lane_ = nullptr;
    return;
  }
  if (!Fiber::current()) throw std::logic_error("a wait for the host outside a suspendable fiber");
  while (!answered_)
    Fiber::suspend();  // the execution's own fiber: straight back to the host
}

void HostWait::answer() {
  answered_ = true;
  if (lane_) lane_->wake(static_cast<Lane::Task*>(task_));
}

void sleep_for(std::chrono::milliseconds d) {
  Lane* lane = fiber_lane();
  if (!lane) return std::this_thread::sleep_for(d);
  auto until = Clock::now() + d;
  while (Clock::now() < until)
    lane->park(until);  // may return early (a stale wake-up): park again
}

void run_blocking(const std::function<void()>& fn) {
  if (!on_lane()) return fn();
  struct Shared {
    std::mutex mutex;
    CondVar done_cv;
    bool done = false;
    std::exception_ptr error;
  };
  auto shared = std::make_shared<Shared>();
  // `fn` lives on this fiber's stack, which waits below until the task is
  // done with it (never abandoned, even when cancelled: fn itself sees that).
  // Only onto a thread that takes it now: queued behind busy pool threads
  // (lanes among them, waiting for such tasks) it could wait for ever.
  bool started = ThreadPool::instance().start_now([shared, &fn] {
    std::exception_ptr error;
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(shared->mutex);
    shared->error = std::move(error);  // one owner, handed over under the mutex
    shared->done = true;
    shared->done_cv.notify_one();  // under the mutex: the waiter may free nothing before
  });
  if (!started) return fn();
  std::unique_lock lock(shared->mutex);
  shared->done_cv.wait(lock, [&] { return shared->done; });
  // Taken out of `shared`: the pool thread may drop the last reference to
  // `shared` after the caller has caught the exception, and the exception
  // must not die there (exception_ptr's count is invisible to TSan).
  std::exception_ptr error = std::move(shared->error);
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

}  // namespace ptc::coop
