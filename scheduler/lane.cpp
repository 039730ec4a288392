#include "scheduler/lane.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <new>
#include <system_error>

#include "runtime/unique_fd.hpp"

namespace ptc {

namespace {
// One eventfd per thread, kept for its next lanes (a pmap call makes one).
thread_local UniqueFd t_wake_fd;

// This thread's eventfd. Out of line: a lane that comes back from its host on
// another thread asks again (fiber.hpp says why thread-locals are read so).
[[gnu::noinline]] int thread_wake_fd() {
  if (!t_wake_fd) {
    t_wake_fd.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!t_wake_fd) throw std::system_error(errno, std::generic_category(), "eventfd");
  }
  return t_wake_fd.get();
}
}  // namespace

struct Lane::Task {
  enum class State { Ready, Running, Parked };
  std::unique_ptr<Fiber> fiber;
  State state = State::Ready;
  bool woken = false;     // a wake() while it ran: its next park returns at once
  bool for_host = false;  // parked until the host answers (park_for_host)
  int on_lane_waits = 0;  // > 0: its waits are for other fibers of the lane
  Clock::time_point until = Clock::time_point::max();
  pollfd* fds = nullptr;
  int nfds = 0;
  size_t polled_at = 0;  // index of its first descriptor in the lane's poll
};

Lane::Lane() : wake_fd_(thread_wake_fd()) {}

Lane::~Lane() {
  uint64_t stale = 0;  // a wake() that came after the last poll
  (void)!::read(wake_fd_, &stale, sizeof stale);
}

Lane* Lane::current() {
  return lane_slot();
}

size_t Lane::add_source(Source source) {
  sources_.emplace_back(next_source_id_, std::move(source));
  return next_source_id_++;
}

void Lane::remove_source(size_t id) {
  sources_.erase(std::remove_if(sources_.begin(), sources_.end(),
                                [id](const auto& s) { return s.first == id; }),
                 sources_.end());
}

void Lane::run(Source source) {
  outer_ = exchange_lane_slot(this);
  struct Restore {
    Lane* self;
    ~Restore() { exchange_lane_slot(self->outer_); }
  } restore{this};
  add_source(std::move(source));
  awake_since_ = Clock::now();
  for (;;) {
    Task* next = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (!ready_.empty()) {
        next = ready_.front();
        ready_.pop_front();
      }
    }
    if (next) {
      resume(next);
      continue;
    }
    if (start_from_sources()) continue;
    if (tasks_.empty()) break;
    wait_for_events();
  }
  sources_.clear();
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

// Starts one fiber from the newest source that has work (an inner parallel
// call finishing first lets the branch waiting for it go on).
bool Lane::start_from_sources() {
  // What a new fiber needs is had before a source hands out work: work
  // taken cannot be given back. Without memory nothing starts now; a
  // parallel call notices branches that never started.
  std::unique_ptr<Task> task;
  try {
    task = std::make_unique<Task>();
    tasks_.reserve(tasks_.size() + 1);
  } catch (const std::bad_alloc&) {
    return false;
  }
  for (size_t i = sources_.size(); i-- > 0;) {
    std::function<void()> body = sources_[i].second();
    if (!body) continue;
    try {
      task->fiber = std::make_unique<Fiber>(body);
    } catch (const std::bad_alloc&) {
      // No stack to be had: the work runs here, on the lane's own stack, its
      // waits blocking the thread (slower, never lost).
      exchange_lane_slot(outer_);
      try {
        body();
      } catch (...) {
        if (!error_) error_ = std::current_exception();
      }
      exchange_lane_slot(this);
      return true;
    }
    task->state = Task::State::Running;
    Task* t = task.get();
    tasks_.push_back(std::move(task));
    resume(t);
    return true;
  }
  return false;
}

void Lane::resume(Task* task) {
  {
    std::lock_guard lock(mutex_);
    task->state = Task::State::Running;
  }
  running_ = task;
  try {
    task->fiber->resume();
  } catch (...) {
    if (!error_) error_ = std::current_exception();
  }
  running_ = nullptr;
  if (task->fiber->finished()) {
    std::lock_guard lock(mutex_);  // a late wake() may still look at it: it is gone after this
    auto it = std::find_if(tasks_.begin(), tasks_.end(),
                           [task](const std::unique_ptr<Task>& t) { return t.get() == task; });
    if (it != tasks_.end()) tasks_.erase(it);
  }
}

void Lane::park(Clock::time_point until, pollfd* fds, int nfds) {
  Task* t = running_;
  {
    std::lock_guard lock(mutex_);
    for (int i = 0; i < nfds; ++i)
      fds[i].revents = 0;
    if (t->woken) {
      t->woken = false;
      return;
    }
    t->state = Task::State::Parked;
    t->until = until;
    t->fds = fds;
    t->nfds = nfds;
  }
  Fiber::suspend();
}

void Lane::park_for_host() {
  Task* t = running_;
  {
    std::lock_guard lock(mutex_);
    if (t->woken) {
      t->woken = false;
      return;
    }
    t->state = Task::State::Parked;
    t->for_host = true;
    t->until = Clock::time_point::max();
    t->fds = nullptr;
    t->nfds = 0;
  }
  Fiber::suspend();
}

Lane::WaitingOnLane::WaitingOnLane(Lane& lane) : task_(lane.running_) {
  if (task_) ++task_->on_lane_waits;
}

Lane::WaitingOnLane::~WaitingOnLane() {
  if (task_) --task_->on_lane_waits;
}

void Lane::wake(Task* task) {
  std::lock_guard lock(mutex_);
  if (task->state == Task::State::Parked) {
    task->state = Task::State::Ready;
    task->for_host = false;
    task->fds = nullptr;
    task->nfds = 0;
    ready_.push_back(task);
    if (sleeping_) {
      uint64_t one = 1;
      (void)!::write(wake_fd_, &one, sizeof one);
    }
  } else if (task->state == Task::State::Running) {
    task->woken = true;
  }
}

// Every fiber is parked: one poll over all their descriptors, the lane's
// eventfd (wake() from another thread) and the nearest deadline.
void Lane::wait_for_events() {
  std::vector<pollfd> fds;
  auto until = Clock::time_point::max();
  {
    std::lock_guard lock(mutex_);
    if (!ready_.empty()) return;
    if (waits_for_host_only()) {
      // Nothing here can go on before the host answers: the thread goes back
      // to it (the execution is suspended), and the lane carries on where
      // the host resumes it, maybe on another thread.
      host_idle_ = true;
    }
  }
  if (host_idle_) {
    host_idle_ = false;
    Fiber::suspend();
    wake_fd_ = thread_wake_fd();
    awake_since_ = Clock::now();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (!ready_.empty()) return;
    fds.push_back({wake_fd_, POLLIN, 0});
    for (auto& t : tasks_) {
      if (t->state != Task::State::Parked) continue;
      until = std::min(until, t->until);
      t->polled_at = fds.size();
      fds.insert(fds.end(), t->fds, t->fds + t->nfds);
    }
    sleeping_ = true;
  }
  int timeout = -1;
  if (until != Clock::time_point::max()) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
    timeout = static_cast<int>(std::clamp<int64_t>(left, 0, 60'000));
  }
  int n = ::poll(fds.data(), fds.size(), timeout);
  if (n < 0 && errno != EINTR) {
    // Never expected (ENOMEM): parked fibers must not be abandoned; look again soon.
    n = 0;
    ::poll(nullptr, 0, 1);
  }
  if (n > 0 && fds[0].revents) {
    uint64_t drained = 0;
    (void)!::read(wake_fd_, &drained, sizeof drained);
  }
  auto now = Clock::now();
  awake_since_ = now;
  std::lock_guard lock(mutex_);
  sleeping_ = false;
  for (auto& t : tasks_) {
    // Still parked: its descriptors are the ones polled (a wake() since
    // would have made it ready and dropped them).
    if (t->state != Task::State::Parked) continue;
    bool ready = now >= t->until;
    for (int i = 0; n > 0 && i < t->nfds; ++i) {
      t->fds[i].revents = fds[t->polled_at + i].revents;
      ready |= t->fds[i].revents != 0;
    }
    if (ready) {
      t->state = Task::State::Ready;
      t->fds = nullptr;
      t->nfds = 0;
      ready_.push_back(t.get());
    }
  }
}

}  // namespace ptc

namespace ptc {

// Under mutex_, with no fiber ready: true when every parked fiber waits for
// the host, or for other fibers of this lane that do, and the lane runs on a
// fiber its host can suspend.
bool Lane::waits_for_host_only() const {
  bool any_for_host = false;
  for (const auto& t : tasks_) {
    if (t->state != Task::State::Parked) return false;
    if (t->for_host)
      any_for_host = true;
    else if (t->on_lane_waits == 0 || t->nfds > 0)
      return false;
  }
  return any_for_host && Fiber::current() != nullptr;
}

}  // namespace ptc
