// The per-run runtime context every builtin receives: the arena, the keyword
// interner, the limits, the reduction budget with its wall-clock deadline,
// captured prints, and the way back into the VM to call functions.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/arena.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/error.hpp"
#include "runtime/interner.hpp"
#include "runtime/limits.hpp"
#include "runtime/objects.hpp"
#include "runtime/roots.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/value.hpp"

namespace ptc {

// Implemented by the VM: calls any callable value (closure, builtin, keyword,
// map, set, native function) with arguments.
class Invoker {
 public:
  virtual ~Invoker() = default;
  virtual Value invoke(Value fn, const Value* args, uint32_t nargs) = 0;
  // invoke, handing a step function that owns its accumulator (its first
  // argument) the owner token of the caller (runtime/builtins/owned.hpp).
  virtual Value invoke_owned(Value fn, const Value* args, uint32_t nargs, uint32_t owner) = 0;
};

class Ctx;
class LispError;
struct ToolCatalog;

// The branches of one pmap or pcalls call. Branch i calls fns[0] (pmap) or
// fns[i] (pcalls) with the `arity` arguments starting at args[i * arity].
struct ParallelBranches {
  const char* kind;  // "pmap" or "pcalls", for errors and the host's records
  size_t count;
  const Value* fns;
  bool one_fn;
  const Value* args;
  uint32_t arity;
  // Adds the branch's place to its error (pcalls names the function).
  void (*annotate)(LispError& e, size_t branch, size_t count);
};

// What a run reads from the world outside it besides tools (the clock), for
// runs whose reads are journaled: an execution that can be suspended and
// written to bytes replays them (embedding/execution.cpp). Parallel branches
// report their start and end, so that each gets a place of its own.
class World {
 public:
  // System/currentTimeMillis and (java.util.Date.) in `ctx`'s branch.
  virtual int64_t clock_ms(Ctx& ctx) = 0;
  // Branch `index` of the `call`-th parallel call `parent` made starts in `branch`.
  virtual void branch_started(Ctx& parent, Ctx& branch, uint32_t call, size_t index) = 0;
  virtual void branch_ended(Ctx& branch) = 0;
  // True when parallel branches must share the thread of the call (fibers
  // on one lane): the execution they belong to may be suspended whole.
  virtual bool branches_share_thread() const = 0;

 protected:
  ~World() = default;
};

// Where a context stands in what it asked of the world, for a journaled run
// (Ctx::world): its branch's path ("" for the program, "p0.3/" for branch 3
// of its first parallel call) and how many tool calls, clock reads and
// parallel calls it made so far.
struct WorldPlace {
  std::string path;
  uint32_t tool_calls = 0;
  uint32_t clock_reads = 0;
  uint32_t parallel_calls = 0;
};

// Runs parallel branches; implemented by the embedding layer, which owns the
// threads. Without one, a run evaluates branches in order on its own thread.
class ParallelExecutor {
 public:
  virtual ~ParallelExecutor() = default;
  // Results in branch order, in ctx's arena. Throws the error of a failed branch.
  virtual Value run_branches(Ctx& ctx, const ParallelBranches& branches) = 0;
};

class Ctx {
 public:
  explicit Ctx(const Limits& limits);
  // The clock of limits.timeout_ms started at `start` (a time the caller
  // already read: reading the clock is a good part of a tiny run's cost).
  Ctx(const Limits& limits, std::chrono::steady_clock::time_point start);

  Arena arena;
  Interner interner;
  Limits limits;
  std::vector<std::string> prints;
  Invoker* invoker = nullptr;
  // Raised by a host (or by a failing sibling branch) to stop the run early.
  const std::atomic<bool>* cancel = nullptr;
  // A parallel branch's calling context: its cancellation stops the branch too.
  const Ctx* outer = nullptr;
  ParallelExecutor* parallel = nullptr;
  // Held by any thread other than the run's own that touches this context's
  // arena or interner (a parallel branch copying its result in, a tool call
  // charging the ledger). The run's own thread never does so while such
  // threads exist, as it is then busy inside the parallel call.
  std::mutex foreign;
  // What (budget/remaining) returns: the host's budget map, nil when none.
  Value budget;
  // Upstream tools that discovery also searches (RunOptions::tool_catalog); may be null.
  const ToolCatalog* tool_catalog = nullptr;
  // The value of the (fail v) that ended the run, for the host to read as
  // data (unset when a parallel branch failed: its value is in its own arena).
  std::optional<Value> failed_with;
  // Told at the end of every slice of reductions while set: a parallel
  // branch sharing its thread with others asks for another thread when it
  // computes for long without waiting (vm/parallel.cpp).
  void (*on_slice)(void* arg, std::chrono::steady_clock::time_point now) = nullptr;
  void* on_slice_arg = nullptr;
  // Regexes compiled by this run, by pattern (each is charged once).
  std::map<std::string, Value, std::less<>> regexes;
  // Set for runs whose reads of the world are journaled; `place` is then kept.
  World* world = nullptr;
  WorldPlace place;
  // A tool call being made by the program's outermost run of the VM loop
  // (no builtin's frames between it and the run): set by the TOOL
  // instruction for the call it makes.
  bool tool_call_outermost = false;
  // Where the program makes the tool call being made (set by the TOOL
  // instruction): what a host asked to approve it is shown.
  SourceLoc tool_call_loc;
  // Set when a tool call that was outermost is told that its run is being
  // discarded unseen (a dropped execution): the VM loop then returns at once
  // instead of being unwound by an exception, which costs microseconds per
  // frame. Nothing reads what the run returns then.
  bool abandoned = false;

  // A fresh owner token for a reduce's accumulator (never 0).
  uint32_t new_owner() {
    if (++last_owner_ == 0) ++last_owner_;
    return last_owner_;
  }

  // A builtin (fnil's +, (map inc xs)) or a native function is called here
  // directly, with the stack check the VM's path makes: they nest. Always
  // inlined: builtins call it per item, and left to itself the compiler
  // makes it a call of its own.
  //
  // A call is a safe point: whoever calls keeps what it uses afterwards in a
  // root scope (roots.hpp), as it must anyway since `fn` may be a closure;
  // the callee and the arguments are rooted here. So a builtin that calls a
  // builtin per item ((reduce * xs), (reduce str xs)) collects as it goes.
  [[gnu::always_inline]] Value call(Value fn, const Value* args, uint32_t nargs) {
    if (fn.is(Type::Builtin)) {
      check_native_stack("calling a function from a builtin");
      if (collection_due_) [[unlikely]]
        collect_around(fn, args, nargs);
      return call_builtin(*this, fn.builtin_id(), args, nargs);
    }
    if (fn.is(Type::NativeFn)) {  // (fnil + 0), (partial f x), ...: C++ too
      check_native_stack("calling a function from a builtin");
      if (collection_due_) [[unlikely]]
        collect_around(fn, args, nargs);
      const auto* native = fn.as<const NativeFnObj>();
      return native->impl(*this, native, args, nargs);
    }
    return invoker->invoke(fn, args, nargs);
  }
  // call, from a reduce that gave its accumulator (args[0]) owner token
  // `owner` (0: none): a step compiled to own it may update it in place.
  Value call_owned(Value fn, const Value* args, uint32_t nargs, uint32_t owner) {
    return owner ? invoker->invoke_owned(fn, args, nargs, owner) : call(fn, args, nargs);
  }
  [[gnu::always_inline]] Value call(Value fn, Value a) { return call(fn, &a, 1); }
  [[gnu::always_inline]] Value call(Value fn, Value a, Value b) {
    Value args[2] = {a, b};
    return call(fn, args, 2);
  }

  // Charges `cost` reductions. Every slice the wall clock is checked, so a
  // run ends with ErrorKind::Timeout within about a slice of its deadline.
  void tick(int64_t cost = 1) {
    budget_ -= cost;
    if (budget_ < 0) [[unlikely]]
      end_slice();
  }
  // tick, from a safe point of the VM (a call, a backward jump): a
  // collection that is due happens here (runtime/roots.hpp).
  void safepoint_tick(int64_t cost = 1) {
    budget_ -= cost;
    if (budget_ < 0) [[unlikely]]
      end_slice_at_safepoint();
  }
  // Whether a collection is due; the VM asks before a builtin call and
  // collects there (collect_if_due).
  bool collection_due() const { return collection_due_; }
  void collect_if_due();
  // collect_if_due, with a call's callee and arguments rooted.
  void collect_around(Value fn, const Value* args, uint32_t nargs);

  // ---- the collected heap (runtime/collector.hpp)
  // From now on the run's objects are collected; the live heap is capped at
  // limits.max_heap_bytes (or `cap`).
  void start_collecting();
  void start_collecting(size_t cap);
  // The arena's budget is spent: a collection is due at the next safe point.
  // The next tick of any kind reaches the slow path, and a builtin's ticks
  // keep coming back to it until the VM's does.
  void collection_wanted();
  // Collects now, at a safe point. Throws memory_limit when more than the
  // cap is still live.
  void collect();
  // Collects a suspended execution's part as it parks: memory only, outside
  // the schedule (collect_heap's Collection::Between).
  void collect_while_parked();
  // Roots: sources (a VM, a pmap call) register for as long as they live.
  void add_root_source(RootSource* source) {
    source->next_root_source = root_sources_;
    root_sources_ = source;
  }
  void remove_root_source(RootSource* source);
  RootSource* root_sources() const { return root_sources_; }
  RootStack roots;
  // While one lives, due collections wait (importing the inputs: a memory
  // function is restored by running code, while the values being imported
  // are held by C++ frames that no root knows).
  class NoCollection {
   public:
    explicit NoCollection(Ctx& ctx) : ctx_(ctx) { ++ctx_.no_collection_; }
    ~NoCollection() { --ctx_.no_collection_; }
    NoCollection(const NoCollection&) = delete;
    NoCollection& operator=(const NoCollection&) = delete;

   private:
    Ctx& ctx_;
  };
  // Starts the clock for the run phase (limits.timeout_ms), or for another
  // phase with its own limit; `phase` names it in the timeout message.
  void start_clock();
  void start_clock(uint32_t timeout_ms, const char* phase);
  // A clock that ends at a deadline fixed elsewhere (the run's, shared by
  // every parallel branch); `timeout_ms` and `phase` only word the error.
  void start_clock_until(std::chrono::steady_clock::time_point deadline, uint32_t timeout_ms,
                         const char* phase);
  // start_clock(timeout_ms, phase) counted from `start` instead of now.
  void start_clock_at(std::chrono::steady_clock::time_point start, uint32_t timeout_ms,
                      const char* phase);
  // The run's clock: the steady clock less the time the run spent suspended
  // (an execution waiting for its host), so that limits count the time the
  // program runs. Deadlines are on this clock.
  std::chrono::steady_clock::time_point clock_now() const {
    auto now = std::chrono::steady_clock::now();
    if (paused_ns_) now -= std::chrono::nanoseconds(paused_ns_->load(std::memory_order_relaxed));
    return now;
  }
  // No phase's deadline falls after `cap` (RunOptions::attempt_us), the
  // current one's included.
  void cap_deadlines(std::chrono::steady_clock::time_point cap) {
    cap_ = cap;
    deadline_ = std::min(deadline_, cap_);
  }
  // The time spent suspended so far, kept by the execution (nullptr: none).
  void count_pauses_in(const std::atomic<int64_t>* paused_ns) { paused_ns_ = paused_ns; }
  const std::atomic<int64_t>* pauses() const { return paused_ns_; }
  // The deadline on the run's clock, and on the steady clock (for tools).
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }
  std::chrono::steady_clock::time_point steady_deadline() const {
    if (!paused_ns_ || deadline_ == std::chrono::steady_clock::time_point::max()) return deadline_;
    return deadline_ + std::chrono::nanoseconds(paused_ns_->load(std::memory_order_relaxed));
  }
  // Milliseconds since the Unix epoch, as System/currentTimeMillis reads them
  // (through the world when it is journaled).
  int64_t clock_ms();
  uint32_t timeout_ms() const { return timeout_ms_; }
  const char* phase() const { return phase_; }
  // Checks the deadline (and cancellation) now, after work that took time
  // without reductions, such as waiting for a tool.
  void check_deadline() { end_slice(); }
  // True once the run stopped because `cancel` was raised (its error says
  // "cancelled"; the cause is elsewhere, e.g. a sibling parallel branch).
  bool was_cancelled() const { return cancelled_; }
  void mark_cancelled() { cancelled_ = true; }
  // True when this context or one it runs inside was cancelled.
  bool cancel_requested() const {
    for (const Ctx* c = this; c; c = c->outer)
      if (c->cancel && c->cancel->load(std::memory_order_relaxed)) return true;
    return false;
  }
  uint64_t reductions() const { return spent_ + static_cast<uint64_t>(window_ - budget_); }

  // Appends one println line, truncated to max_print_length characters.
  void add_print(std::string line);

  Value string(std::string_view bytes);
  Value keyword(std::string_view name) { return Value::object(interner.keyword(name)); }

  static constexpr int64_t kSlice = 4096;

 private:
  void end_slice();
  void end_slice_at_safepoint();
  static void collection_wanted_thunk(void* ctx) { static_cast<Ctx*>(ctx)->collection_wanted(); }
  // Reductions left in the current window and the window's length (a
  // slice; shorter while a collection is due).
  int64_t budget_ = kSlice;
  int64_t window_ = kSlice;
  uint64_t spent_ = 0;
  bool collection_due_ = false;
  bool collect_always_ = false;  // the test builds' stress mode
  int no_collection_ = 0;
  RootSource* root_sources_ = nullptr;  // a list through RootSource::next_root_source
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point cap_ = std::chrono::steady_clock::time_point::max();
  uint32_t timeout_ms_ = 0;
  bool cancelled_ = false;
  const char* phase_ = "execution";
  const std::atomic<int64_t>* paused_ns_ = nullptr;
  uint32_t last_owner_ = 0;
};

// Marks the run executing on this thread for as long as it lives. Deep walks
// over values (equality, ordering, printing) are reached from too many places
// to pass a Ctx, yet shared structure lets one such call visit billions of
// items: they charge the current run through charge_walk, so its time limit
// holds inside them too. A thread running part of a run (a parallel branch)
// opens its own scope.
//
// The thread-local is read and written only inside ctx.cpp's functions, never
// inline: a suspended execution's fiber may resume on another thread, and a
// frame that spans the suspension must not keep the first thread's address of
// it (compilers cache thread-local addresses within a function).
class CurrentRun {
 public:
  explicit CurrentRun(Ctx& ctx) : saved_(exchange(&ctx)) {}
  ~CurrentRun() { exchange(saved_); }
  CurrentRun(const CurrentRun&) = delete;
  CurrentRun& operator=(const CurrentRun&) = delete;
  static Ctx* get();
  // A fiber keeps its own current run: switching fibers swaps it.
  static Ctx* exchange(Ctx* ctx);

 private:
  Ctx* saved_;
};

// Charges `items` reductions to the run on this thread, if any.
inline void charge_walk(int64_t items = 1) {
  if (Ctx* c = CurrentRun::get()) c->tick(items);
}

// Inline: builtins open one per call, some per item.
inline RootScope::RootScope(Ctx& ctx) : stack_(ctx.roots), mark_(ctx.roots.size()) {}

}  // namespace ptc
