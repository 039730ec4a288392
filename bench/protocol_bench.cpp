// What the lisp_eval protocol layer adds to a run: a bare ptc::run of a
// program returning 1000 rows, the same run rendered as a success payload,
// and one whole agent turn (a scripted model's lisp_eval call, the run, the
// payload, the messages). The ratio to the bare run is the layer's cost.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/agent/agent.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace {

using ptc::HostValue;
using namespace ptc::protocol;

const char* kProgram = "(vec (for [i (range 1000)] {:id i :total (* i 1.5) :region \"emea\"}))";

void BM_BareRun(benchmark::State& state) {
  for (auto _ : state) {
    ptc::Step s = ptc::run(kProgram);
    benchmark::DoNotOptimize(s.value);
  }
}

void BM_RunAndRenderSuccess(benchmark::State& state) {
  for (auto _ : state) {
    ptc::Step s = ptc::run(kProgram);
    std::string payload = render_success_from_step(s);
    benchmark::DoNotOptimize(payload);
  }
}

void BM_RenderSuccessOnly(benchmark::State& state) {
  ptc::Step s = ptc::run(kProgram);
  for (auto _ : state) {
    std::string payload = render_success_from_step(s);
    benchmark::DoNotOptimize(payload);
  }
}

void BM_AgentLispEvalTurn(benchmark::State& state) {
  LlmResponse call;
  ToolCallRequest c;
  c.id = "c1";
  c.name = "lisp_eval";
  c.args = HostValue::map({{HostValue::string("program"),
                            HostValue::string(std::string("(return ") + kProgram + ")")}});
  call.tool_calls.push_back(c);
  AgentOptions o;
  o.max_turns = 2;
  for (auto _ : state) {
    Agent agent(o, [&](const LlmRequest&) { return call; });
    AgentResult r = agent.run();
    benchmark::DoNotOptimize(r.value);
    if (!r.ok) state.SkipWithError(r.fail_message.c_str());
  }
}

BENCHMARK(BM_BareRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunAndRenderSuccess)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RenderSuccessOnly)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AgentLispEvalTurn)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
