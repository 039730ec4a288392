// What suspending costs (build/ptc_execution_benchmarks): a program making N
// tool calls in a loop, total += (:score (tool/get-user {:id i})), the loop
// pydantic Monty's suspend benchmark runs (../shared/bench/monty/suspend.mjs),
//
// - BM_SyncTools: ptc::run with a synchronous tool (the baseline);
// - BM_Resume: ptc::start with the tool deferred, each call answered by
//   resume() in memory;
// - BM_DumpLoadResume: the same with dump() + load() before every resume, as
//   a durable host that stores the execution at every call;
// - BM_Load/K: loading a snapshot that stands at call K (replaying K calls),
//   beside BM_RunTo/K: a run of the program that makes those K calls;
// - BM_StartNoDefer: start() of a program that defers nothing, beside
//   BM_RunNoDefer: run() of it (what an execution adds to a run);
// - BM_SuspendedMemory: 10,000 executions suspended at once, each at a tool
//   call after a small computation: resident memory per execution beyond
//   its heaps (kib_beyond_heaps; the goal is at most 64).
//
// Counters: us_per_call (the figure Monty's script prints) and bytes (the
// average snapshot size). The program is compiled once, as a host that runs
// it many times would.
#include <benchmark/benchmark.h>

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace {

using ptc::HostValue;
using ptc::ToolResult;

std::string loop_program(int calls) {
  return "(loop [i 0 total 0] (if (< i " + std::to_string(calls) +
         ") (recur (inc i) (+ total (:score (tool/get-user {:id i})))) total))";
}

HostValue user(int64_t id) {
  return HostValue::map({{HostValue::string("id"), HostValue::integer(id)},
                         {HostValue::string("score"), HostValue::integer(id % 7)}});
}

ToolResult answer_for(const ptc::PendingCall& call) {
  return ToolResult::success(user(call.args.get("id")->as_int()));
}

ptc::RunOptions sync_options() {
  ptc::RunOptions o;
  o.tools["get-user"] = {
      [](const HostValue& args) { return ToolResult::success(user(args.get("id")->as_int())); }};
  return o;
}

ptc::RunOptions deferred_options() {
  ptc::RunOptions o;
  o.deferred_tools = {"get-user"};
  return o;
}

void per_call(benchmark::State& state, int calls) {
  state.counters["us_per_call"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * calls * 1e-6,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_SyncTools(benchmark::State& state) {
  int n = static_cast<int>(state.range(0));
  ptc::RunOptions o = sync_options();
  auto program = ptc::compile(loop_program(n), o);
  for (auto _ : state) {
    ptc::Step s = ptc::run(*program, o);
    if (!s.ok) state.SkipWithError(s.error.message.c_str());
  }
  per_call(state, n);
}

void BM_Resume(benchmark::State& state) {
  int n = static_cast<int>(state.range(0));
  ptc::RunOptions o = deferred_options();
  auto program = ptc::compile(loop_program(n), o);
  for (auto _ : state) {
    ptc::Execution e = ptc::start(*program, o);
    while (!e.done()) {
      ptc::PendingCall call = e.pending().front();
      e.resume({{call.id, answer_for(call)}});
    }
    if (!e.step().ok) state.SkipWithError(e.step().error.message.c_str());
  }
  per_call(state, n);
}

void BM_DumpLoadResume(benchmark::State& state) {
  int n = static_cast<int>(state.range(0));
  ptc::RunOptions o = deferred_options();
  auto program = ptc::compile(loop_program(n), o);
  size_t bytes = 0, dumps = 0;
  for (auto _ : state) {
    ptc::Execution e = ptc::start(*program, o);
    while (!e.done()) {
      std::string snapshot = e.dump();
      bytes += snapshot.size();
      ++dumps;
      e = ptc::load(snapshot, o);
      ptc::PendingCall call = e.pending().front();
      e.resume({{call.id, answer_for(call)}});
    }
    if (!e.step().ok) state.SkipWithError(e.step().error.message.c_str());
  }
  per_call(state, n);
  state.counters["bytes"] = dumps ? static_cast<double>(bytes) / static_cast<double>(dumps) : 0;
}

// A snapshot of the N-call loop standing at call K.
std::string snapshot_at(int n, int k) {
  ptc::RunOptions o = deferred_options();
  ptc::Execution e = ptc::start(loop_program(n), o);
  for (int i = 0; i < k; ++i) {
    ptc::PendingCall call = e.pending().front();
    e.resume({{call.id, answer_for(call)}});
  }
  return e.dump();
}

void BM_Load(benchmark::State& state) {
  int k = static_cast<int>(state.range(0));
  std::string snapshot = snapshot_at(1000, k);
  ptc::RunOptions o = deferred_options();
  for (auto _ : state) {
    std::optional<ptc::Execution> e = ptc::load(snapshot, o);
    benchmark::DoNotOptimize(e->done());
    state.PauseTiming();  // dropping a suspended execution unwinds it: not loading
    e.reset();
    state.ResumeTiming();
  }
  state.counters["bytes"] = static_cast<double>(snapshot.size());
}

// What the replayed part costs to run in the first place: the program reads,
// compiles (as load does) and makes K calls answered synchronously.
void BM_RunTo(benchmark::State& state) {
  int k = static_cast<int>(state.range(0));
  ptc::RunOptions o = sync_options();
  std::string program = loop_program(k);
  for (auto _ : state) {
    ptc::Step s = ptc::run(program, o);
    if (!s.ok) state.SkipWithError(s.error.message.c_str());
  }
}

void BM_RunNoDefer(benchmark::State& state) {
  auto program = ptc::compile("(reduce + (range 10))");
  for (auto _ : state)
    benchmark::DoNotOptimize(ptc::run(*program).ok);
}

void BM_StartNoDefer(benchmark::State& state) {
  auto program = ptc::compile("(reduce + (range 10))");
  for (auto _ : state)
    benchmark::DoNotOptimize(ptc::start(*program).done());
}

// Resident memory of the process (VmRSS), in KiB.
double resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6));
  return 0;
}

void BM_SuspendedMemory(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ptc::RunOptions o = deferred_options();
  auto program = ptc::compile(
      "(let [xs (map #(* % %) (range 50)) total (reduce + xs) u (tool/get-user {:id total})]"
      " (+ total (:score u)))",
      o);
  { ptc::Execution warm = ptc::start(*program, o); }
  for (auto _ : state) {
    std::vector<ptc::Execution> suspended;
    suspended.reserve(static_cast<size_t>(n));
    double before = resident_kib();
    for (int i = 0; i < n; ++i)
      suspended.push_back(ptc::start(*program, o));
    double after = resident_kib();
    double heaps = 0;
    for (const ptc::Execution& e : suspended)
      heaps += static_cast<double>(e.heap_bytes());
    state.counters["kib_each"] = (after - before) / n;
    state.counters["heap_kib_each"] = heaps / 1024 / n;
    state.counters["kib_beyond_heaps"] = (after - before - heaps / 1024) / n;
    state.PauseTiming();
    suspended.clear();
    state.ResumeTiming();
  }
}

}  // namespace

BENCHMARK(BM_SyncTools)->Arg(100);
BENCHMARK(BM_Resume)->Arg(100);
BENCHMARK(BM_DumpLoadResume)->Arg(100);
BENCHMARK(BM_Load)->Arg(10)->Arg(50)->Arg(100);
BENCHMARK(BM_RunTo)->Arg(10)->Arg(50)->Arg(100);
BENCHMARK(BM_RunNoDefer);
BENCHMARK(BM_StartNoDefer);
BENCHMARK(BM_SuspendedMemory)->Arg(10000)->Iterations(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
