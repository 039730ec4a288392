#include "scheduler/parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <system_error>
#include <thread>

#include "runtime/error.hpp"
#include "runtime/transfer.hpp"
#include "runtime/vector.hpp"
#include "scheduler/cooperative.hpp"
#include "scheduler/lane.hpp"
#include "scheduler/thread_pool.hpp"
#include "vm/vm.hpp"

namespace ptc {

namespace {

unsigned hardware_threads() {
  // Read once: glibc reads /sys at every call.
  static const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return hw;
}

// A lane that has run branches this long without sleeping (computing, not
// waiting) gets another lane (thread), so compute-bound branches still
// spread over the cores.
constexpr auto kBusyLane = std::chrono::milliseconds(2);

}  // namespace

uint32_t default_pmap_window() {
  return 2 * hardware_threads();
}

// Everything the workers of one call share. Workers that start after the
// call is over (queued helpers) only touch `next`, `in_flight` and `cancel`;
// the pointers are used for claimed branches, which the call waits for.
struct BranchExecutor::Call {
  std::weak_ptr<Call> self;  // for a helper lane asked for from inside a branch
  BranchExecutor* executor;
  const ParallelBranches* branches;  // only valid while the call waits
  size_t count;
  Ctx* parent;
  VM* parent_vm;
  uint32_t number;  // the how-many-th parallel call of the parent's branch (from 0)
  Limits branch_limits;
  // One deadline for every branch: the run's, or the call's pmap_timeout
  // when that comes first. A branch never gets a clock of its own.
  std::chrono::steady_clock::time_point deadline;
  uint32_t deadline_ms;
  const char* deadline_phase;
  std::atomic<size_t> next{0};
  std::atomic<bool> cancel{false};
  std::atomic<uint64_t> reductions{0};
  // With lanes (window > 1): branches in flight, at most `window`, on up to
  // `max_lanes` lanes (the calling thread's and pool threads').
  uint32_t window = 1;
  std::atomic<uint32_t> running{0};
  std::atomic<uint32_t> lanes{0};
  uint32_t max_lanes = 1;
  std::mutex mutex;
  coop::CondVar changed;
  size_t in_flight = 0;  // workers inside work() or helper lanes, under mutex
  // Per branch, filled by the branch's worker. Results and prints are
  // already in the parent's arena (charged there): a finished branch's own
  // heap is gone, so only the branches running now hold memory of their own.
  std::vector<Value> results;
  std::vector<std::vector<std::string>> prints;
  std::vector<std::optional<Error>> errors;
  std::vector<char> ran;
  std::vector<char> cancelled;  // branch i stopped because another failed
};

BranchExecutor::~BranchExecutor() = default;

bool BranchExecutor::try_acquire_slot() {
  uint32_t held = slots_held_.fetch_add(1) + 1;
  if (held <= limits_.max_parallel_workers) return true;
  slots_held_.fetch_sub(1);
  return false;
}

void BranchExecutor::release_slots(uint32_t n) {
  slots_held_.fetch_sub(n);
}

// Moves a finished branch's prints into the call, charged to the calling
// context. Under the caller's lock: other branches may be finishing at once.
void BranchExecutor::settle_prints(Call& call, size_t i, Ctx& bctx) {
  Ctx& parent = *call.parent;
  std::lock_guard lock(parent.foreign);
  size_t bytes = 0;
  for (const std::string& line : bctx.prints)
    bytes += line.size() + sizeof(std::string);
  parent.arena.charge(bytes);
  call.prints[i] = std::move(bctx.prints);
}

// Copies a finished branch's result into the calling context, which holds
// it in the call's results (a root of the caller: run_branches).
void BranchExecutor::settle_result(Call& call, size_t i, Value result) {
  Ctx& parent = *call.parent;
  std::lock_guard lock(parent.foreign);
  call.results[i] = transfer_value(parent, result);
}

void BranchExecutor::run_branch(Call& call, size_t i) {
  const ParallelBranches& b = *call.branches;
  std::unique_ptr<Ctx> owned;
  try {
    owned = std::make_unique<Ctx>(call.branch_limits);
    Ctx& bctx = *owned;
    bctx.start_collecting();
    bctx.interner.set_parent(call.parent->interner.parent());
    bctx.cancel = &call.cancel;
    bctx.outer = call.parent;
    bctx.parallel = this;
    bctx.budget = call.parent->budget;
    bctx.tool_catalog = call.parent->tool_catalog;
    if (Lane::current() && call.max_lanes > 1) {
      bctx.on_slice = &BranchExecutor::on_busy_slice;
      bctx.on_slice_arg = &call;
    }
    bctx.count_pauses_in(call.parent->pauses());
    bctx.start_clock_until(call.deadline, call.deadline_ms, call.deadline_phase);
    call.ran[i] = 1;
    CurrentRun current(bctx);
    struct InWorld {  // a journaled run knows each branch by its place
      Ctx& branch;
      InWorld(Call& call, Ctx& b, size_t i) : branch(b) {
        if (call.parent->world) call.parent->world->branch_started(*call.parent, b, call.number, i);
      }
      ~InWorld() {
        if (branch.world) branch.world->branch_ended(branch);
      }
    } in_world(call, bctx, i);
    try {
      VM vm(bctx, program_);
      vm.globals() = call.parent_vm->globals();
      vm.data = call.parent_vm->data;
      vm.turn_history = call.parent_vm->turn_history;
      vm.tool_caller = call.parent_vm->tool_caller;
      vm.lost_functions = call.parent_vm->lost_functions;
      Value result;
      try {
        result = vm.invoke(b.one_fn ? b.fns[0] : b.fns[i], b.args + i * b.arity, b.arity);
      } catch (ReturnSignal& r) {
        result = r.value;  // (return v) ends the branch, not the program
      }
      call.reductions.fetch_add(bctx.reductions(), std::memory_order_relaxed);
      settle_prints(call, i, bctx);
      settle_result(call, i, result);
    } catch (LispError& e) {
      if (b.annotate) b.annotate(e, i, b.count);
      call.errors[i] = e.error();
      call.cancelled[i] = bctx.was_cancelled();
      call.cancel.store(true);
      try {
        settle_prints(call, i, bctx);  // what a failed branch printed is kept when it fits
      } catch (LispError&) {}
      return;
    }
  } catch (LispError& e) {  // setting up the branch failed
    call.errors[i] = e.error();
    call.cancel.store(true);
  } catch (std::bad_alloc&) {
    call.errors[i] =
        Error{ErrorKind::MemoryLimit, "out of memory in a parallel branch", "", {}, ""};
    call.cancel.store(true);
  } catch (std::exception& e) {
    // Never expected; it must not take the worker thread (and the process) down.
    call.errors[i] = Error{ErrorKind::RuntimeError,
                           fmt::format("internal error in a parallel branch: {}", e.what()),
                           "",
                           {},
                           ""};
    call.cancel.store(true);
  }
}

// The next branch for a lane to start, when one may start now.
Lane::Source BranchExecutor::branch_source(const std::shared_ptr<Call>& shared) {
  return [shared]() -> std::function<void()> {
    Call& call = *shared;
    if (call.cancel.load()) return {};
    uint32_t r = call.running.load();
    do {
      if (r >= call.window) return {};
    } while (!call.running.compare_exchange_weak(r, r + 1));
    size_t i = call.next.fetch_add(1);
    if (i >= call.count) {
      call.running.fetch_sub(1);
      return {};
    }
    if (call.lanes.load() < call.max_lanes) add_lane_if_busy(call, Lane::Clock::now());
    return [shared, i] {
      Call& c = *shared;
      // Counted out even when the branch is unwound by something other than a
      // program error (an execution dropped by its host): the call waits for it.
      struct Done {
        Call& c;
        ~Done() {
          c.running.fetch_sub(1);
          {
            std::lock_guard lock(c.mutex);  // the waiter checks `running` under it
          }
          c.changed.notify_all();
        }
      } done{c};
      c.executor->run_branch(c, i);
    };
  };
}

// A pool thread's lane for one call (asked for by a busy branch).
void BranchExecutor::lane_work(const std::shared_ptr<Call>& shared) {
  Call& call = *shared;
  try {
    Lane lane;
    lane.run(branch_source(shared));
  } catch (...) {
    // No lane (no eventfd): the branches go on in the other lanes.
  }
  call.lanes.fetch_sub(1);
  {
    std::lock_guard lock(call.mutex);
    --call.in_flight;
  }
  call.changed.notify_all();
}

void BranchExecutor::on_busy_slice(void* arg, std::chrono::steady_clock::time_point now) {
  add_lane_if_busy(*static_cast<Call*>(arg), now);
}

// Asked at every branch start and every slice of a branch's work.
void BranchExecutor::add_lane_if_busy(Call& call, std::chrono::steady_clock::time_point now) {
  Lane* lane = Lane::current();
  if (!lane || now - lane->awake_since() < kBusyLane) return;
  if (call.cancel.load() || call.next.load() >= call.count || call.running.load() >= call.window)
    return;
  uint32_t l = call.lanes.load();
  do {
    if (l >= call.max_lanes) return;
  } while (!call.lanes.compare_exchange_weak(l, l + 1));
  std::shared_ptr<Call> shared = call.self.lock();
  {
    std::lock_guard lock(call.mutex);
    ++call.in_flight;
  }
  // Only onto a thread that starts now: a queued helper is of no use to a
  // busy branch, and the call would wait for it.
  if (!shared || !ThreadPool::instance().start_now([shared] { lane_work(shared); })) {
    call.lanes.fetch_sub(1);
    std::lock_guard lock(call.mutex);
    --call.in_flight;
  }
}

void BranchExecutor::work(Call& call) {
  for (;;) {
    {
      std::lock_guard lock(call.mutex);
      ++call.in_flight;
    }
    struct Out {  // as in branch_source: counted out whatever unwinds the branch
      Call& call;
      ~Out() {
        {
          std::lock_guard lock(call.mutex);
          --call.in_flight;
        }
        call.changed.notify_all();
      }
    };
    size_t i = call.cancel.load() ? call.count : call.next.fetch_add(1);
    {
      Out out{call};
      if (i < call.count) call.executor->run_branch(call, i);
    }
    if (i >= call.count) return;
  }
}

Value BranchExecutor::run_branches(Ctx& ctx, const ParallelBranches& b) {
  auto* parent_vm = dynamic_cast<VM*>(ctx.invoker);
  if (!parent_vm) throw_error(ErrorKind::RuntimeError, "parallel call outside a running program");
  ctx.check_deadline();  // a call made after the deadline starts nothing
  auto started = ctx.clock_now();
  auto started_steady = std::chrono::steady_clock::now();
  uint32_t number = ctx.place.parallel_calls++;
  uint32_t window =
      limits_.pmap_max_concurrency ? limits_.pmap_max_concurrency : default_pmap_window();
  // As many workers as slots allow, up to the window; none at all is an error
  // (waiting could deadlock: the slots free only when their holders finish).
  auto wanted = static_cast<uint32_t>(std::min<size_t>(b.count, window));
  uint32_t workers = 0;
  while (workers < wanted && try_acquire_slot())
    ++workers;
  if (workers == 0)
    throw_error(ErrorKind::ParallelCapacityExceeded,
                fmt::format("{}: parallel capacity exceeded: {} parallel workers are already "
                            "running (max_parallel_workers)",
                            b.kind, limits_.max_parallel_workers),
                "do not nest pmap/pcalls inside pmap/pcalls; use map for the inner level");
  auto release = [this, &workers] { release_slots(workers); };
  struct OnExit {
    decltype(release)& fn;
    ~OnExit() { fn(); }
  } slot_release{release};

  auto call = std::make_shared<Call>();
  call->self = call;
  call->executor = this;
  call->branches = &b;
  call->count = b.count;
  call->parent = &ctx;
  call->parent_vm = parent_vm;
  call->number = number;
  call->branch_limits = ctx.limits;
  if (limits_.worker_max_heap_bytes)
    call->branch_limits.max_heap_bytes = limits_.worker_max_heap_bytes;
  auto pmap_deadline = started + std::chrono::milliseconds(limits_.pmap_timeout_ms);
  if (pmap_deadline < ctx.deadline()) {
    call->deadline = pmap_deadline;
    call->deadline_ms = limits_.pmap_timeout_ms;
    call->deadline_phase = "parallel branch";
  } else {
    call->deadline = ctx.deadline();
    call->deadline_ms = ctx.timeout_ms();
    call->deadline_phase = ctx.phase();
  }
  call->results.resize(b.count);
  // Roots of the calling run while its branches go on: what they call, and
  // the results already copied in (a suspended execution is collected while
  // it waits here).
  RootScope roots(ctx);
  roots.add(b.fns, b.one_fn ? 1 : b.count);
  if (b.args) roots.add(b.args, b.count * b.arity);
  roots.add(call->results);
  call->prints.resize(b.count);
  call->errors.resize(b.count);
  call->ran.resize(b.count);
  call->cancelled.resize(b.count);

  std::exception_ptr failed;
  if (workers > 1) {
    // Branches as fibers on lanes: this thread's first (or the lane this
    // call is made on, inside a branch), more lanes when branches compute
    // rather than wait. A branch waiting for an upstream reply leaves its
    // lane to the others, so `workers` calls are in flight on one thread.
    call->window = workers;
    call->max_lanes = std::min<uint32_t>(workers, hardware_threads());
    // Branches of a suspendable execution stay on one lane: it is suspended
    // whole, and a suspended execution holds no thread.
    if (ctx.world && ctx.world->branches_share_thread()) call->max_lanes = 1;
    call->lanes = 1;
    if (Lane* lane = Lane::current(); lane && lane->running()) {
      size_t source = lane->add_source(branch_source(call));
      Lane::WaitingOnLane waiting_for_branches(*lane);
      std::unique_lock lock(call->mutex);
      call->changed.wait(lock, [&] {
        return call->running.load() == 0 && call->in_flight == 0 &&
               (call->cancel.load() || call->next.load() >= call->count);
      });
      lock.unlock();
      lane->remove_source(source);
    } else {
      std::optional<Lane> own;
      try {
        own.emplace();
      } catch (const std::system_error&) {}
      if (own) {
        try {
          own->run(branch_source(call));
        } catch (...) {  // never expected: the helpers still end before the call does
          failed = std::current_exception();
          call->cancel.store(true);
        }
      } else {  // no lane could be made (no eventfd): the branches run one by one here
        call->max_lanes = 1;
        work(*call);
      }
    }
  } else {
    work(*call);
  }
  {
    std::unique_lock lock(call->mutex);
    call->changed.wait(lock, [&] { return call->in_flight == 0 && call->running.load() == 0; });
  }
  if (failed) std::rethrow_exception(failed);
  if (!call->cancel.load() && call->next.load() < b.count)  // a lane could not start them
    throw_error(ErrorKind::MemoryLimit,
                fmt::format("{}: out of memory starting parallel branches", b.kind));

  ParallelCall record;
  record.kind = b.kind;
  record.count = b.count;
  const Error* failure = nullptr;
  bool failure_cancelled = false;
  for (size_t i = 0; i < b.count; ++i) {
    if (call->errors[i]) {
      ++record.error_count;
      // The first real failure; branches stopped because of it were cancelled.
      if (!failure || (!call->cancelled[i] && failure_cancelled)) {
        failure = &*call->errors[i];
        failure_cancelled = call->cancelled[i];
      }
    } else if (call->ran[i]) {
      ++record.success_count;
    }
  }
  record.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_steady)
          .count();
  {
    std::lock_guard lock(mutex_);
    records_.push_back(record);
    recorded_.store(true, std::memory_order_release);
  }

  // Prints of the branches in branch order (already charged), then their cost.
  for (auto& lines : call->prints)
    for (std::string& line : lines)
      ctx.prints.push_back(std::move(line));
  if (failure) {
    // Every branch stopped because something outside the call was cancelled
    // (an enclosing call's sibling failed): so did this context.
    if (failure_cancelled) ctx.mark_cancelled();
    throw LispError(*failure);
  }
  ctx.tick(static_cast<int64_t>(call->reductions.load()));
  return Value::object(vec_from(ctx.arena, call->results.data(), call->results.size()));
}

std::vector<ParallelCall> BranchExecutor::take_records() {
  if (!recorded_.load(std::memory_order_acquire)) return {};  // most runs: no pmap, no lock
  std::lock_guard lock(mutex_);
  return std::move(records_);
}

}  // namespace ptc
