#include "vm/parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <optional>
#include <thread>

#include "runtime/error.hpp"
#include "runtime/transfer.hpp"
#include "runtime/vector.hpp"
#include "vm/vm.hpp"
#include "vm/worker_pool.hpp"

namespace ptc {

namespace {

uint32_t default_window() {
  unsigned hw = std::thread::hardware_concurrency();
  return 2 * (hw ? hw : 1);
}

}  // namespace

// Everything the workers of one call share. Workers that start after the
// call is over (queued helpers) only touch `next`, `in_flight` and `cancel`;
// the pointers are used for claimed branches, which the call waits for.
struct BranchExecutor::Call {
  BranchExecutor* executor;
  const ParallelBranches* branches;  // only valid while the call waits
  size_t count;
  Ctx* parent;
  VM* parent_vm;
  Limits branch_limits;
  std::atomic<size_t> next{0};
  std::atomic<bool> cancel{false};
  std::mutex mutex;
  std::condition_variable changed;
  size_t in_flight = 0;  // workers inside work(), under mutex
  std::vector<std::unique_ptr<Ctx>> ctxs;
  std::vector<Value> results;
  std::vector<std::optional<Error>> errors;
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

void BranchExecutor::run_branch(Call& call, size_t i) {
  const ParallelBranches& b = *call.branches;
  auto ctx = std::make_unique<Ctx>(call.branch_limits);
  Ctx& bctx = *ctx;
  call.ctxs[i] = std::move(ctx);
  bctx.cancel = &call.cancel;
  bctx.parallel = this;
  bctx.budget = call.parent->budget;
  bctx.start_clock(call.branch_limits.timeout_ms, "parallel branch");
  CurrentRun current(bctx);
  try {
    VM vm(bctx, program_);
    vm.globals() = call.parent_vm->globals();
    vm.data = call.parent_vm->data;
    vm.turn_history = call.parent_vm->turn_history;
    vm.tool_caller = call.parent_vm->tool_caller;
    vm.lost_functions = call.parent_vm->lost_functions;
    try {
      call.results[i] = vm.invoke(b.one_fn ? b.fns[0] : b.fns[i], b.args + i * b.arity, b.arity);
    } catch (ReturnSignal& r) {
      call.results[i] = r.value;  // (return v) ends the branch, not the program
    }
  } catch (LispError& e) {
    if (b.annotate) b.annotate(e, i, b.count);
    call.errors[i] = e.error();
    call.cancelled[i] = bctx.was_cancelled();
    call.cancel.store(true);
  } catch (std::bad_alloc&) {
    call.errors[i] =
        Error{ErrorKind::MemoryLimit, "out of memory in a parallel branch", "", {}, ""};
    call.cancel.store(true);
  }
}

void BranchExecutor::work(Call& call) {
  for (;;) {
    {
      std::lock_guard lock(call.mutex);
      ++call.in_flight;
    }
    size_t i = call.cancel.load() ? call.count : call.next.fetch_add(1);
    if (i < call.count) call.executor->run_branch(call, i);
    bool last = i >= call.count;
    {
      std::lock_guard lock(call.mutex);
      --call.in_flight;
    }
    call.changed.notify_all();
    if (last) return;
  }
}

Value BranchExecutor::run_branches(Ctx& ctx, const ParallelBranches& b) {
  auto* parent_vm = dynamic_cast<VM*>(ctx.invoker);
  if (!parent_vm) throw_error(ErrorKind::RuntimeError, "parallel call outside a running program");
  auto started = std::chrono::steady_clock::now();
  uint32_t window = limits_.pmap_max_concurrency ? limits_.pmap_max_concurrency : default_window();
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
  auto release = [this, workers] { release_slots(workers); };
  struct OnExit {
    decltype(release)& fn;
    ~OnExit() { fn(); }
  } slot_release{release};

  auto call = std::make_shared<Call>();
  call->executor = this;
  call->branches = &b;
  call->count = b.count;
  call->parent = &ctx;
  call->parent_vm = parent_vm;
  call->branch_limits = ctx.limits;
  if (limits_.worker_max_heap_bytes)
    call->branch_limits.max_heap_bytes = limits_.worker_max_heap_bytes;
  call->branch_limits.timeout_ms = static_cast<uint32_t>(
      std::min<int64_t>(limits_.pmap_timeout_ms, std::max<int64_t>(ctx.remaining_ms(), 1)));
  call->ctxs.resize(b.count);
  call->results.resize(b.count);
  call->errors.resize(b.count);
  call->cancelled.resize(b.count);

  // Helpers on the pool; this thread is a worker too, so the call progresses
  // even when every pool thread is busy.
  for (uint32_t w = 1; w < workers; ++w)
    WorkerPool::instance().submit([call] { work(*call); });
  work(*call);
  {
    std::unique_lock lock(call->mutex);
    call->changed.wait(lock, [&] { return call->in_flight == 0; });
  }

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
    } else if (call->ctxs[i]) {
      ++record.success_count;
    }
  }
  record.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  {
    std::lock_guard lock(mutex_);
    records_.push_back(record);
  }

  // Prints of the branches, in branch order, then their cost.
  for (size_t i = 0; i < b.count; ++i) {
    if (!call->ctxs[i]) continue;
    Ctx& bctx = *call->ctxs[i];
    ctx.tick(static_cast<int64_t>(bctx.reductions()));
    for (std::string& line : bctx.prints) {
      ctx.arena.charge(line.size() + sizeof(std::string));
      ctx.prints.push_back(std::move(line));
    }
  }
  if (failure) throw LispError(*failure);

  VecBuilder out(ctx.arena);
  for (size_t i = 0; i < b.count; ++i) {
    Value r = call->results[i];
    if (is_transferable(r)) {
      out.push(transfer_value(ctx, r));
    } else {
      // Code cannot be copied: keep the branch's arena for the rest of the run.
      ctx.arena.charge(call->ctxs[i]->arena.used());
      out.push(r);
      std::lock_guard lock(mutex_);
      kept_.push_back(std::move(call->ctxs[i]));
    }
  }
  return Value::object(out.finish());
}

std::vector<ParallelCall> BranchExecutor::take_records() {
  std::lock_guard lock(mutex_);
  return std::move(records_);
}

}  // namespace ptc
