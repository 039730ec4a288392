// An execution: a run on a fiber of its own that can wait for its host.
//
// In memory, a program waiting on a deferred tool is a parked fiber: the
// call registers a pending slot and waits (scheduler/cooperative.hpp's
// HostWait); once every live part of the run waits so, the execution's fiber
// is suspended and start() or resume() returns to the host. resume() fills
// the slots and runs the fiber again, on the host's thread (any thread).
//
// On bytes, native stacks are not written (builtins call back into the VM
// through C++ frames). The run is deterministic, so a snapshot is its inputs
// plus the journal of what the world answered (embedding/journal.hpp), and
// load() runs the program again against the journal: every call the journal
// holds is answered from it, the calls that were pending become pending
// again, and anything else is a divergence.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "embedding/journal.hpp"
#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"
#include "scheduler/cooperative.hpp"
#include "scheduler/fiber.hpp"

namespace ptc {

class ExecutionState;
struct SnapshotInputs;

// ptc::run's body (embedding/run.cpp); with `execution`, the run is that
// execution's.
Step run_step(std::string_view source, const Program* program, const RunOptions& options,
              ExecutionState* execution);

// Where a tool call's answer comes from.
enum class AnswerSource {
  Journal,       // a replay: the journal holds it
  Host,          // it waits for the host's answer (deferred, pending when dumped)
  HostApproval,  // it waits for a person's decision (pending so when dumped)
  Live,          // the broker obtains it (cache, or the tool)
};

class ExecutionState final : public World {
 public:
  using Clock = std::chrono::steady_clock;

  // The run's inputs, owned: `options.context_json` points into
  // `context_text`, and a compiled `program` (when given) is kept alive.
  ExecutionState(std::string source, std::shared_ptr<const Program> program, RunOptions options);
  ~ExecutionState();
  ExecutionState(const ExecutionState&) = delete;
  ExecutionState& operator=(const ExecutionState&) = delete;

  // ---- for the Execution handle (under api_mutex)
  // Runs the fiber until the execution finishes or every live part waits.
  void run_until_waiting();
  void resume(Answers answers);
  void cancel();
  bool done() const { return done_; }
  const Step& step() const { return step_; }
  std::vector<PendingCall> pending() const;
  size_t heap_bytes() const;
  std::string dump(std::string_view key) const;
  // Loading: the journal to replay, the calls that were pending, and the
  // engine that recorded them.
  // `approvals`: those of the pending calls that wait for a decision.
  void replay(Journal journal, std::vector<std::string> pending_ids,
              std::vector<std::string> approvals, std::string recorded_by,
              std::string inputs_bytes);
  // After a load's replay: throws snapshot_divergence (unwinding the run)
  // when it did not end where the snapshot stood.
  void check_replay();
  mutable std::mutex api_mutex;

  // ---- for the run (embedding/run.cpp, the tool broker)
  void attach(Ctx& run);
  uint64_t first_ledger_seq() const { return journal_.tool_count(); }
  int64_t paused_ns() const { return paused_ns_.load(std::memory_order_relaxed); }
  // Being dropped: the run is discarded unseen.
  bool dropping() const { return stopping_ == Stopping::Drop; }
  // Where the answer to a branch's call `number` comes from; during a replay
  // the call must be the journal's (tool and arguments) or the replay diverges.
  AnswerSource source_of(const Ctx& ctx, uint32_t number, std::string_view tool, Value args);
  // The journal's record of the call (a replay).
  const JournalCall& recorded(const Ctx& ctx, uint32_t number);
  // Waits for the host's answer (the fiber parks); throws cancelled when the
  // execution is cancelled meanwhile.
  ToolResult await_answer(Ctx& ctx, uint32_t number, std::string_view tool, const HostValue& args);
  // Waits for a person's decision on the call, as await_answer waits.
  Decision await_decision(Ctx& ctx, uint32_t number, std::string_view tool, const HostValue& args);
  // A new journal entry for the next call of ctx's branch, to fill in.
  JournalCall& new_call(const Ctx& ctx);
  // The run's ledger: every journaled call's entry, in the order they ended.
  std::vector<ToolCall> ledger() const;

  // ---- World
  int64_t clock_ms(Ctx& ctx) override;
  void branch_started(Ctx& parent, Ctx& branch, uint32_t call, size_t index) override;
  void branch_ended(Ctx& branch) override;
  bool branches_share_thread() const override { return true; }

 private:
  // How the execution is being stopped: cancelled (it ends with a cancelled
  // error), or dropped by its destructor (it only unwinds).
  enum class Stopping { None, Cancel, Drop };
  // Thrown through the run's frames when it is dropped: not a program error,
  // so no handler of those stops or rewraps it.
  struct Dropped {};

  struct Pending {
    const Ctx* ctx;  // the branch waiting
    PendingCall call;
    coop::HostWait wait;
    ToolResult answer;
    Decision decision;
    bool listed = true;  // in pending_
    bool cancelled = false;
  };
  [[noreturn]] void diverge(std::string what) const;
  void stop(Stopping how);
  [[noreturn]] void stopped(Ctx& ctx) const;
  // Waits of branches stopped meanwhile (a sibling failed): they are told so
  // rather than left for the host. True when there were any.
  bool withdraw_stopped_waits();
  void count_pause();  // the time since the execution was suspended is not the run's
  std::vector<std::string> pending_ids() const;
  std::vector<std::string> approval_ids() const;
  // Lists `p`, the branch's call `number` of `kind`, and waits for the
  // host: false when the execution is dropped and the run returns rather
  // than unwinds (ctx.abandoned is then set).
  bool park(Ctx& ctx, Pending& p, PendingCall::Kind kind, uint32_t number, std::string_view tool,
            const HostValue& args);

  std::string source_;
  std::shared_ptr<const Program> program_;
  std::string context_text_;
  RunOptions options_;
  std::string engine_;       // this engine
  std::string recorded_by_;  // the engine that recorded the journal (loaded: the snapshot's)
  mutable std::string inputs_bytes_;  // the snapshot's inputs part, once written (or loaded)

  std::unique_ptr<Fiber> fiber_;
  Step step_;
  bool done_ = false;
  Stopping stopping_ = Stopping::None;
  Clock::time_point suspended_at_{};
  std::atomic<int64_t> paused_ns_{0};

  Journal journal_;
  bool replaying_ = false;
  std::set<std::string, std::less<>> pending_at_dump_;
  std::set<std::string, std::less<>> approvals_at_dump_;  // of those, waiting for a decision
  size_t journal_tools_ = 0, journal_clocks_ = 0;         // what a load's replay must use up
  size_t replayed_tools_ = 0, replayed_clocks_ = 0;

  std::vector<Pending*> pending_;  // in the order the calls were made
  std::vector<Ctx*> contexts_;     // the run's and its live branches'
};

}  // namespace ptc
