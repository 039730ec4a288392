// What an isolated run costs (build/ptc_isolation_benchmarks): the same
// programs in-process and through a ptc::WorkerPool (RunOptions::isolate),
// beside the floor any process boundary has, in one sitting:
//
// - BM_SocketRoundTrip: a small frame (13 bytes: a 5-byte header and an
//   8-byte body) written to a forked child over a socketpair (AF_UNIX,
//   SOCK_STREAM, as the workers' sockets) and echoed back: one round trip
//   between two processes, the baseline;
// - BM_Add: `(+ 1 2)` compiled once (ptc::compile) and run with
//   run(Program), in-process (workers:0) and through a pool of one worker
//   (workers:1) with the default max_runs (1000: a worker is replaced, and
//   its successor starts cold, every 1000 runs) and with max_runs 0 (never
//   replaced). The goal: isolated minus in-process at most twice the round
//   trip. On 2 threads: in-process, and through a pool of two workers;
// - BM_Orders: filter + map + reduce over a prepared context of about 1 MB
//   of JSON (10,000 orders, maps of six fields), the same ways. The goal:
//   isolated within 1.2x of in-process. BM_OrdersHostValuePrepared: in-
//   process over the same context prepared from its HostValue, which is
//   how a worker prepares what its parent sends.
//
// Counters: starts_per_1k_runs (workers the pool started while timing),
// items_per_second (runs per second, all threads). bench/compare-isolation
// builds this, runs it and prints the ratios.
#include <benchmark/benchmark.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "include/ptc/ptc.hpp"
#include "include/ptc/worker_pool.hpp"

namespace {

// ---------------------------------------------------------------- baseline

constexpr size_t kFrameBytes = 13;

bool io_all(int fd, char* data, size_t n, bool writing) {
  while (n > 0) {
    ssize_t got = writing ? write(fd, data, n) : read(fd, data, n);
    if (got <= 0) return false;
    data += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

void BM_SocketRoundTrip(benchmark::State& state) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    state.SkipWithError("socketpair failed");
    return;
  }
  pid_t child = fork();
  if (child == 0) {
    // Echoes each frame until the parent closes its end.
    close(sv[0]);
    char frame[kFrameBytes];
    while (io_all(sv[1], frame, sizeof frame, false) && io_all(sv[1], frame, sizeof frame, true)) {}
    _exit(0);
  }
  close(sv[1]);
  char frame[kFrameBytes] = {8, 0, 0, 0, 6, 'r', 'o', 'u', 'n', 'd', 't', 'r', 'p'};
  for (auto _ : state) {
    if (!io_all(sv[0], frame, sizeof frame, true) || !io_all(sv[0], frame, sizeof frame, false)) {
      state.SkipWithError("the echo child is gone");
      break;
    }
  }
  close(sv[0]);
  waitpid(child, nullptr, 0);
}
BENCHMARK(BM_SocketRoundTrip)->UseRealTime();

// ---------------------------------------------------------------- pools

// A pool of `workers` processes replaced after `max_runs` runs for the
// benchmark `name`, made once (by its first repetition) and kept for the
// rest of the sitting. Each benchmark has its own: a recycled worker's
// successor is handed the prepared contexts its predecessor held, and
// (+ 1 2) should not pay for importing the orders' context.
std::shared_ptr<ptc::WorkerPool> pool(const std::string& name, size_t workers, size_t max_runs) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, size_t, size_t>, std::shared_ptr<ptc::WorkerPool>> pools;
  std::lock_guard lock(mutex);
  std::shared_ptr<ptc::WorkerPool>& p = pools[{name, workers, max_runs}];
  if (!p) {
    ptc::WorkerPoolOptions o;
    o.workers = workers;
    o.max_runs = max_runs;
    p = std::make_shared<ptc::WorkerPool>(o);
  }
  return p;
}

// A few runs before timing: a worker compiles a source into its cache on its
// second run, and holds a prepared context after its first.
void warm(const ptc::Program& program, const ptc::RunOptions& options) {
  for (int i = 0; i < 8; ++i)
    (void)ptc::run(program, options);
}

// Workers the pool started while timing, per run: a worker is replaced after
// max_runs (1000 by default) runs, and its successor starts cold.
void count_starts(benchmark::State& state, const std::shared_ptr<ptc::WorkerPool>& p,
                  uint64_t started_before) {
  if (!p || state.thread_index() != 0) return;
  state.counters["starts_per_1k_runs"] = benchmark::Counter(
      1000.0 * static_cast<double>(p->stats().started - started_before) /
      static_cast<double>(state.iterations() * static_cast<uint64_t>(state.threads())));
}

bool check(benchmark::State& state, const ptc::Step& step, const char* expected) {
  if (step.ok && step.printed == expected) return true;
  state.SkipWithError(
      (step.ok ? "unexpected value " + step.printed : "failed: " + ptc::format_error(step.error))
          .c_str());
  return false;
}

// Runs `program` over `options` in-process (workers 0) or through the pool
// of the benchmark `name`.
void run_benchmark(benchmark::State& state, const char* name, const ptc::Program& program,
                   ptc::RunOptions options, const std::string& expected) {
  auto workers = static_cast<size_t>(state.range(0));
  std::shared_ptr<ptc::WorkerPool> p;
  if (workers) {
    p = pool(name, workers, static_cast<size_t>(state.range(1)));
    options.isolate = p;
  }
  warm(program, options);
  uint64_t started = p ? p->stats().started : 0;
  for (auto _ : state) {
    ptc::Step step = ptc::run(program, options);
    if (!check(state, step, expected.c_str())) break;
  }
  state.SetItemsProcessed(state.iterations());
  count_starts(state, p, started);
}

void isolation_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"workers", "max_runs"});
  b->Args({0, 0})->Args({1, 1000})->Args({1, 0});
  b->UseRealTime();
}

// ---------------------------------------------------------------- (+ 1 2)

void BM_Add(benchmark::State& state) {
  static std::shared_ptr<const ptc::Program> program = ptc::compile("(+ 1 2)");
  run_benchmark(state, "add", *program, {}, "3");
}
BENCHMARK(BM_Add)->Apply(isolation_args);
BENCHMARK(BM_Add)
    ->ArgNames({"workers", "max_runs"})
    ->Args({0, 0})
    ->Args({2, 1000})
    ->Threads(2)
    ->UseRealTime();

// ---------------------------------------------------------------- 1 MB of orders

// About 1 MB of JSON: {"orders": [{"id": 0, "customer": "customer-0", ...}, ...]}.
std::string orders_json(int n) {
  static const char* statuses[] = {"paid", "pending", "refunded", "paid"};
  static const char* regions[] = {"north", "south", "east", "west", "central"};
  std::string out = "{\"orders\": [";
  char buf[256];
  for (int i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf,
                  "%s{\"id\": %d, \"customer\": \"customer-%d\", \"status\": \"%s\", "
                  "\"region\": \"%s\", \"items\": %d, \"total\": %d.%02d}",
                  i ? ", " : "", i, i % 977, statuses[i % 4], regions[i % 5], 1 + i % 9,
                  10 + (i * 37) % 490, i % 100);
    out += buf;
  }
  return out + "]}";
}

constexpr const char* kOrdersProgram =
    "(->> data/orders (filter #(= (:status %) \"paid\")) (filter #(> (:items %) 2))"
    " (map :total) (reduce + 0))";

std::shared_ptr<const ptc::PreparedContext> orders_context() {
  static std::shared_ptr<const ptc::PreparedContext> context = [] {
    std::string json = orders_json(10000);
    return ptc::prepare_context(json);
  }();
  return context;
}

// The same context prepared from its HostValue, as a worker prepares what
// its parent sends (the parent exports the prepared context to a HostValue).
std::shared_ptr<const ptc::PreparedContext> orders_context_from_host_value() {
  static std::shared_ptr<const ptc::PreparedContext> context =
      ptc::prepare_context(ptc::parse_json(orders_json(10000)));
  return context;
}

const ptc::Program& orders_program() {
  static std::shared_ptr<const ptc::Program> program = ptc::compile(kOrdersProgram);
  return *program;
}

const std::string& orders_expected() {
  static std::string expected = [] {
    ptc::RunOptions o;
    o.prepared_context = orders_context();
    return ptc::run(orders_program(), o).printed;
  }();
  return expected;
}

void BM_Orders(benchmark::State& state) {
  ptc::RunOptions options;
  options.prepared_context = orders_context();
  run_benchmark(state, "orders", orders_program(), options, orders_expected());
}
BENCHMARK(BM_Orders)->Apply(isolation_args)->Unit(benchmark::kMicrosecond);

void BM_OrdersHostValuePrepared(benchmark::State& state) {
  ptc::RunOptions options;
  options.prepared_context = orders_context_from_host_value();
  run_benchmark(state, "orders", orders_program(), options, orders_expected());
}
BENCHMARK(BM_OrdersHostValuePrepared)
    ->ArgNames({"workers", "max_runs"})
    ->Args({0, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
