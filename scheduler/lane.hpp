// A lane: one thread running many fibers, switching between them only where
// a fiber waits (through vm/cooperative.hpp). It is how pmap keeps several
// upstream calls in flight on one thread: a branch that waits for a reply
// parks, the lane runs another branch, and while every branch waits the lane
// sleeps in one poll(2) over all their file descriptors and its own eventfd,
// as an event loop would. Other threads make a parked fiber runnable with
// wake().
//
// Work comes from sources: functions the lane asks for the body of a new
// fiber whenever none of its fibers can run (so branches that are already
// in flight go first). A source answers with an empty function when it has
// nothing to start now; the lane ends when no source has work and all of its
// fibers have ended.
#pragma once

#include <poll.h>

#include <chrono>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "scheduler/fiber.hpp"

namespace ptc {

class Lane {
 public:
  using Clock = std::chrono::steady_clock;
  using Source = std::function<std::function<void()>()>;
  struct Task;  // one fiber and how it waits

  Lane();
  ~Lane();
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  // Runs on this thread until no source has work and every fiber ended. An
  // exception that left a fiber's body is thrown once all have ended.
  void run(Source source);
  // From a fiber of this lane: another source (a parallel call made inside a
  // branch). Returns its id for remove_source.
  size_t add_source(Source source);
  void remove_source(size_t id);

  // The lane running on this thread (inside its fibers too), or nullptr.
  static Lane* current();
  // The task of the fiber running now (from inside it).
  Task* running() const { return running_; }
  // When the lane last came out of its poll (or started): a lane that has
  // gone long without sleeping is busy computing, not waiting.
  Clock::time_point awake_since() const { return awake_since_; }

  // From a fiber of this lane: suspends it until wake(), `until`, or one of
  // `fds` is ready (their revents set). A wake() that came while the fiber
  // ran makes it return at once; callers wait in loops that re-check.
  void park(Clock::time_point until, pollfd* fds = nullptr, int nfds = 0);
  // From a fiber of this lane: suspends it until wake(), for an answer only
  // the host can give (an execution's deferred tool call). When every fiber
  // of the lane waits so, the lane suspends the fiber it runs on itself (the
  // execution's), handing the thread back to the host, whose resume() runs
  // it again, on any thread.
  void park_for_host();
  // Any thread: `task` (a fiber of this lane, parked or running) runs again.
  void wake(Task* task);

  // While one lives, the running fiber's waits are for other fibers of this
  // lane (a parallel call inside a branch, waiting for its branches): they
  // do not keep the lane from handing its thread back to the host when all
  // those fibers wait for it.
  class WaitingOnLane {
   public:
    explicit WaitingOnLane(Lane& lane);
    ~WaitingOnLane();
    WaitingOnLane(const WaitingOnLane&) = delete;
    WaitingOnLane& operator=(const WaitingOnLane&) = delete;

   private:
    Task* task_;
  };

 private:
  void resume(Task* task);
  bool start_from_sources();
  void wait_for_events();
  bool waits_for_host_only() const;

  std::mutex mutex_;  // guards the tasks' wait state, ready_ and sleeping_
  std::vector<std::unique_ptr<Task>> tasks_;
  std::deque<Task*> ready_;
  bool sleeping_ = false;
  bool host_idle_ = false;
  int wake_fd_ = -1;
  std::vector<std::pair<size_t, Source>> sources_;
  size_t next_source_id_ = 0;
  Task* running_ = nullptr;
  Clock::time_point awake_since_{};
  std::exception_ptr error_;
  Lane* outer_ = nullptr;
};

}  // namespace ptc
