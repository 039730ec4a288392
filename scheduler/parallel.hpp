// Parallel branches of pmap and pcalls for one run. Each branch runs in its
// own context (arena capped at worker_max_heap; the run's deadline, or the
// call's pmap_timeout when sooner; a fresh VM over the run's compiled program
// with a copy of the globals, so a def inside a branch stays in the branch).
// A finished branch's result and prints are copied into the caller at once
// and its heap freed, so memory held at any moment is the caller's heap plus
// one heap per running branch. Up to pmap_max_concurrency
// branches of a call are in flight, on ThreadPool threads plus the calling
// thread; max_parallel_workers bounds the workers alive across the whole run,
// nesting included. A call runs with the slots it can get, and one that gets
// none fails with parallel_capacity_exceeded rather than wait.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "compiler/proto.hpp"
#include "include/ptc/tools.hpp"
#include "runtime/ctx.hpp"
#include "scheduler/lane.hpp"

namespace ptc {

// Branches in flight per parallel call when pmap_max_concurrency is 0: twice
// the hardware threads.
uint32_t default_pmap_window();

class BranchExecutor final : public ParallelExecutor {
 public:
  BranchExecutor(const CompiledProgram& program, const Limits& limits)
      : program_(program), limits_(limits) {}
  ~BranchExecutor() override;

  Value run_branches(Ctx& ctx, const ParallelBranches& branches) override;

  std::vector<ParallelCall> take_records();

 private:
  struct Call;
  // A worker's loop. Static: a helper may start after the call, and even
  // the executor, are gone; it then touches nothing but `call`.
  static void work(Call& call);
  static Lane::Source branch_source(const std::shared_ptr<Call>& call);
  static void lane_work(const std::shared_ptr<Call>& call);
  static void on_busy_slice(void* call, std::chrono::steady_clock::time_point now);
  static void add_lane_if_busy(Call& call, std::chrono::steady_clock::time_point now);
  void run_branch(Call& call, size_t i);
  void settle_prints(Call& call, size_t i, Ctx& bctx);
  void settle_result(Call& call, size_t i, Value result);
  bool try_acquire_slot();
  void release_slots(uint32_t n);

  const CompiledProgram& program_;
  const Limits& limits_;
  std::atomic<uint32_t> slots_held_{0};
  std::mutex mutex_;  // guards records_
  std::vector<ParallelCall> records_;
  std::atomic<bool> recorded_{false};  // records_ has had an entry
};

}  // namespace ptc
