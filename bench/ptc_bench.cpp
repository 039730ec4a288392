// Google Benchmark over the reference programs: full runs, each pipeline
// phase on its own, runs of a compiled program over the context as JSON text
// or prepared once, and the heap bytes a run allocates outside its arena.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "compiler/compiler.hpp"
#include "frontend/analyzer.hpp"
#include "frontend/reader.hpp"
#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/host_value.hpp"
#include "runtime/printer.hpp"
#include "vm/vm.hpp"

// Bytes requested through operator new on this thread (the executable's
// definitions replace the allocator library's): what a run allocates beside
// its arena, pmap branches on pool threads aside. Per thread, so that
// counting does not make threads contend.
thread_local uint64_t t_new_bytes = 0;

void* operator new(size_t n) {
  t_new_bytes += n;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) {
  return operator new(n);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t) noexcept {
  std::free(p);
}

namespace {

struct Program {
  std::string id;
  std::string source;
  ptc::HostValue context;
  std::string context_json;  // the same context as JSON text
};

std::vector<Program> load_programs(const std::string& path) {
  std::vector<Program> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ptc::HostValue row = ptc::parse_json(line);
    Program p;
    p.id = row.get("id")->text();
    p.source = row.get("program")->text();
    if (const ptc::HostValue* c = row.get("context")) {
      p.context = *c;
      p.context_json = ptc::to_json(*c);
    }
    out.push_back(std::move(p));
  }
  return out;
}

ptc::RunOptions options_for(const Program& p) {
  ptc::RunOptions o;
  o.context = p.context;
  return o;
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void full_run(benchmark::State& state, const Program& p) {
  ptc::RunOptions o = options_for(p);
  for (auto _ : state) {
    ptc::Step r = ptc::run(p.source, o);
    benchmark::DoNotOptimize(r.ok);
  }
}

void phase_read(benchmark::State& state, const Program& p) {
  for (auto _ : state) {
    ptc::Ctx ctx(ptc::Limits{});
    auto t0 = Clock::now();
    auto forms = ptc::read_program(ctx.arena, p.source);
    benchmark::DoNotOptimize(forms.data());
    state.SetIterationTime(seconds_since(t0));
  }
}

void phase_analyze(benchmark::State& state, const Program& p) {
  for (auto _ : state) {
    ptc::Ctx ctx(ptc::Limits{});
    auto forms = ptc::read_program(ctx.arena, p.source);
    auto t0 = Clock::now();
    auto analyzed = ptc::analyze_program(ctx, forms);
    benchmark::DoNotOptimize(analyzed.main);
    state.SetIterationTime(seconds_since(t0));
  }
}

void phase_compile(benchmark::State& state, const Program& p) {
  for (auto _ : state) {
    ptc::Ctx ctx(ptc::Limits{});
    auto forms = ptc::read_program(ctx.arena, p.source);
    auto analyzed = ptc::analyze_program(ctx, forms);
    auto t0 = Clock::now();
    auto program = ptc::compile_program(ctx, analyzed);
    benchmark::DoNotOptimize(program.get());
    state.SetIterationTime(seconds_since(t0));
  }
}

// Execution: VM setup, context import, the program, printing the result.
void phase_execute(benchmark::State& state, const Program& p) {
  for (auto _ : state) {
    ptc::Ctx ctx(ptc::Limits{});
    auto forms = ptc::read_program(ctx.arena, p.source);
    auto analyzed = ptc::analyze_program(ctx, forms);
    auto program = ptc::compile_program(ctx, analyzed);
    auto t0 = Clock::now();
    ptc::VM vm(ctx, *program);
    if (p.context.kind() == ptc::HostValue::Kind::Map) vm.data = ptc::import_value(ctx, p.context);
    ptc::Value v = vm.run();
    std::string printed = ptc::display_value(v);
    benchmark::DoNotOptimize(printed.data());
    state.SetIterationTime(seconds_since(t0));
  }
}

// A compiled program over the context as JSON text (what a batch line or an
// MCP call brings), or prepared once (compute only). Counters: heap bytes
// allocated outside the arena and arena bytes, per run.
void compiled_run(benchmark::State& state, const Program& p, bool prepared) {
  ptc::RunOptions o;
  if (prepared && !p.context_json.empty())
    o.prepared_context = ptc::prepare_context(p.context_json);
  else
    o.context_json = p.context_json;
  auto program = ptc::compile(p.source, o);
  uint64_t new_bytes = 0, arena_bytes = 0;
  for (auto _ : state) {
    uint64_t before = t_new_bytes;
    ptc::Step r = ptc::run(*program, o);
    new_bytes += t_new_bytes - before;
    arena_bytes += r.usage.memory_bytes;
    benchmark::DoNotOptimize(r.printed.data());
  }
  auto per_run = [&state](uint64_t total) {
    return benchmark::Counter(static_cast<double>(total), benchmark::Counter::kAvgIterations);
  };
  state.SetItemsProcessed(state.iterations());  // runs/s, summed over threads
  state.counters["heap_bytes"] = per_run(new_bytes);
  state.counters["arena_bytes"] = per_run(arena_bytes);
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = PTC_BENCH_PROGRAMS;
  static std::vector<Program> programs = load_programs(path);
  static Program baseline{"baseline_nil", "nil", {}, {}};
  benchmark::RegisterBenchmark("BM_FullRun/baseline_nil", full_run, baseline);
  // Throughput of tiny compiled programs on one and two threads.
  static Program arithmetic{"arithmetic", "(+ 1 (* 2 3) (- 10 4) (* (+ 1 1) 5))", {}, {}};
  for (const Program* p : {&baseline, &arithmetic})
    benchmark::RegisterBenchmark(("BM_CompiledRun/" + p->id).c_str(), compiled_run, *p, false)
        ->Threads(1)
        ->Threads(2)
        ->UseRealTime();
  // (count data/orders) over 1000 orders: the context's cost alone.
  for (const Program& p : programs)
    if (p.id == "group_by_aggregate_1000") {
      static Program count{"count_orders_1000", "(count data/orders)", p.context, p.context_json};
      benchmark::RegisterBenchmark("BM_CompiledRun/count_orders_1000", compiled_run, count, false);
      benchmark::RegisterBenchmark("BM_PreparedRun/count_orders_1000", compiled_run, count, true);
      benchmark::RegisterBenchmark("BM_FullRun/count_orders_1000_host_context", full_run, count);
    }
  for (const Program& p : programs) {
    ptc::Step probe = ptc::run(p.source, options_for(p));
    if (!probe.ok) {
      std::cerr << "skipping " << p.id << ": " << probe.error.describe() << "\n";
      continue;
    }
    benchmark::RegisterBenchmark(("BM_FullRun/" + p.id).c_str(), full_run, p);
    benchmark::RegisterBenchmark(("BM_CompiledRun/" + p.id).c_str(), compiled_run, p, false);
    if (!p.context_json.empty())
      benchmark::RegisterBenchmark(("BM_PreparedRun/" + p.id).c_str(), compiled_run, p, true);
    benchmark::RegisterBenchmark(("BM_Read/" + p.id).c_str(), phase_read, p)->UseManualTime();
    benchmark::RegisterBenchmark(("BM_Analyze/" + p.id).c_str(), phase_analyze, p)->UseManualTime();
    benchmark::RegisterBenchmark(("BM_Compile/" + p.id).c_str(), phase_compile, p)->UseManualTime();
    benchmark::RegisterBenchmark(("BM_Execute/" + p.id).c_str(), phase_execute, p)->UseManualTime();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
