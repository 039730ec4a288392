// The collector (runtime/collector.hpp), measured with Google Benchmark
// (build/ptc_gc_benchmarks).
//
// BM_FullCollection: one full collection of a live heap of about 8 MB of
// maps and vectors (records {:id :name :score :tags :pos}, the data of
// bench/gc/lua_pause.lua), the pause a run sees. Lua 5.4's
// collectgarbage("collect") over the same records is the anchor:
//   lua5.4 bench/gc/lua_pause.lua 8
// Counters: live_bytes (what the collection found) and records.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "runtime/collector.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/vector.hpp"

namespace ptc {
namespace {

Value record(Ctx& ctx, int64_t i) {
  Value tags[3] = {ctx.string("a" + std::to_string(i % 7)),
                   ctx.string("b" + std::to_string(i % 11)), ctx.string("c")};
  Value pos[2] = {Value::integer(i), Value::integer(i + 1)};
  Value kv[10] = {ctx.keyword("id"),    Value::integer(i),
                  ctx.keyword("name"),  ctx.string("user-" + std::to_string(i)),
                  ctx.keyword("score"), Value::floating(static_cast<double>(i) * 0.5),
                  ctx.keyword("tags"),  Value::object(vec_from(ctx.arena, tags, 3)),
                  ctx.keyword("pos"),   Value::object(vec_from(ctx.arena, pos, 2))};
  return Value::object(small_map_of_distinct(ctx.arena, kv, 5));
}

void BM_FullCollection(benchmark::State& state) {
  Limits limits;
  limits.max_heap_bytes = size_t{64} << 20;
  Ctx ctx(limits);
  ctx.start_collecting();
  constexpr size_t kLive = size_t{8} << 20;
  RootScope roots(ctx);
  VecBuilder data(ctx.arena);
  roots.add(data);
  int64_t n = 0;
  for (;;) {  // records until a collection finds 8 MB live
    for (int k = 0; k < 1000; ++k)
      data.push(record(ctx, n++));
    ctx.collect();
    if (ctx.arena.live_at_last_collection() >= kLive) break;
  }
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    ctx.collect();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  state.counters["live_bytes"] = static_cast<double>(ctx.arena.live_at_last_collection());
  state.counters["records"] = static_cast<double>(n);
}
BENCHMARK(BM_FullCollection)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace
}  // namespace ptc

BENCHMARK_MAIN();
