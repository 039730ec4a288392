// Google Benchmark over the reference programs: full runs and each pipeline
// phase on its own.
#include <benchmark/benchmark.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
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

namespace {

struct Program {
  std::string id;
  std::string source;
  ptc::HostValue context;
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
    if (const ptc::HostValue* c = row.get("context")) p.context = *c;
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

}  // namespace

int main(int argc, char** argv) {
  std::string path = PTC_BENCH_PROGRAMS;
  static std::vector<Program> programs = load_programs(path);
  static Program baseline{"baseline_nil", "nil", {}};
  benchmark::RegisterBenchmark("BM_FullRun/baseline_nil", full_run, baseline);
  for (const Program& p : programs) {
    ptc::Step probe = ptc::run(p.source, options_for(p));
    if (!probe.ok) {
      std::cerr << "skipping " << p.id << ": " << probe.error.describe() << "\n";
      continue;
    }
    benchmark::RegisterBenchmark(("BM_FullRun/" + p.id).c_str(), full_run, p);
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
