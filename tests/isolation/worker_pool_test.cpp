// ptc::WorkerPool: programs in jailed worker processes. Runs go through
// ptc-worker-test, whose ";;hook:NAME" programs crash their worker or probe
// its jail (tests/isolation_worker/test_worker.cpp).
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "include/ptc/ptc.hpp"

namespace {

using ptc::ErrorKind;
using ptc::HostValue;
using ptc::RunOptions;
using ptc::Step;
using ptc::ToolResult;
using ptc::WorkerPool;
using ptc::WorkerPoolOptions;

constexpr uint32_t kReadyMs = 30000;

std::shared_ptr<WorkerPool> make_pool(size_t workers = 2, size_t max_runs = 1000) {
  WorkerPoolOptions o;
  o.workers = workers;
  o.max_runs = max_runs;
  o.worker_path = PTC_TEST_WORKER;
  o.kill_margin_ms = 300;
  return std::make_shared<WorkerPool>(o);
}

RunOptions isolated(const std::shared_ptr<WorkerPool>& pool) {
  RunOptions o;
  o.isolate = pool;
  return o;
}

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#else
  return false;
#endif
}

// ---------------------------------------------------------------- /proc

struct Proc {
  int pid = 0;
  int ppid = 0;
  std::string comm;
  char state = '?';
};

// A /proc file's text; empty when it cannot be read. Not std::ifstream: a
// process that ends while its file is read fails the read with ESRCH,
// which libstdc++'s filebuf throws as an exception.
std::string read_proc_file(const std::string& path) {
  std::string text;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    text.append(buf, static_cast<size_t>(n));
  close(fd);
  return n < 0 ? std::string() : text;
}

std::vector<Proc> processes() {
  std::vector<Proc> out;
  DIR* d = opendir("/proc");
  while (dirent* e = d ? readdir(d) : nullptr) {
    int pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::string text = read_proc_file(std::string("/proc/") + e->d_name + "/stat");
    size_t open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    Proc p;
    p.pid = pid;
    p.comm = text.substr(open + 1, close - open - 1);
    std::istringstream rest(text.substr(close + 2));
    rest >> p.state >> p.ppid;
    out.push_back(p);
  }
  if (d) closedir(d);
  return out;
}

// This process's descendants.
std::vector<Proc> descendants() {
  std::vector<Proc> all = processes(), out;
  std::set<int> family{getpid()};
  for (bool grew = true; grew;) {
    grew = false;
    for (const Proc& p : all)
      if (family.count(p.ppid) && !family.count(p.pid)) {
        family.insert(p.pid);
        out.push_back(p);
        grew = true;
      }
  }
  return out;
}

std::vector<int> worker_pids() {
  std::vector<int> pids;
  for (const Proc& p : descendants())
    if (p.comm == "ptc-worker" && p.state != 'Z') pids.push_back(p.pid);
  return pids;
}

size_t open_fds() {
  size_t n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n - 1;  // the listing's own
}

// A context whose encoding has every kind of byte: floats, negative and
// big numbers, text beyond ASCII, nesting.
std::string fmt_json(int n) {
  return "{\"n\": " + std::to_string(n) +
         ", \"pad\": [1, -2, 3.25, 1e300, 123456789012345678901234567890, null, true],"
         " \"who\": {\"name\": \"Zoë ☃ 𝄞\", \"tags\": [\"a\", \"\\u0000b\"], \"x\": -0.5}}";
}

// What `program` gives over `context` in-process.
std::string in_process(const char* program,
                       const std::shared_ptr<const ptc::PreparedContext>& context) {
  RunOptions o;
  o.prepared_context = context;
  Step s = ptc::run(program, o);
  EXPECT_TRUE(s.ok) << s.error.describe();
  return s.printed;
}

constexpr const char* kWholeContext = "[data/n data/pad data/who]";

// ---------------------------------------------------------------- behaviour

TEST(WorkerPool, RunsProgramsAsInProcess) {
  auto pool = make_pool();
  ASSERT_TRUE(pool->wait_ready(kReadyMs));
  const char* programs[] = {
      "(+ 1 2)",
      "(do (println \"hi\") (def x 5) (defn twice [n] (* 2 n)) (twice x))",
      "(reduce + (map inc (range 100)))",
      "(->> data/orders (filter :paid) (map :total) (reduce +))",
      "(str/join \",\" (sort [\"b\" \"a\"]))",
      "(fail {:why \"no\"})",
      "(let [x 1] (+ x \"a\"))",
      "(* 99999999999 99999999999 99999999999)",
      "{:a #{1 2} :b [1.5 nil true]}",
      "(return 7)",
  };
  RunOptions plain;
  plain.context =
      ptc::parse_json(R"({"orders": [{"paid": true, "total": 3}, {"paid": false, "total": 4}]})");
  RunOptions iso = plain;
  iso.isolate = pool;
  for (const char* p : programs) {
    SCOPED_TRACE(p);
    Step a = ptc::run(p, plain), b = ptc::run(p, iso);
    EXPECT_EQ(a.ok, b.ok);
    EXPECT_EQ(a.printed, b.printed);
    EXPECT_EQ(a.value, b.value);
    EXPECT_EQ(a.returned, b.returned);
    EXPECT_EQ(a.prints, b.prints);
    EXPECT_EQ(ptc::format_value(a.memory), ptc::format_value(b.memory));
    EXPECT_EQ(a.error.describe(), b.error.describe());
    EXPECT_EQ(a.fail_value, b.fail_value);
    EXPECT_EQ(a.usage.eval_reductions, b.usage.eval_reductions);
  }
  // Memory (a defn'd function) carries from one isolated run to the next.
  Step first = ptc::run("(defn add-n [x] (+ x 10))", iso);
  ASSERT_TRUE(first.ok) << first.error.describe();
  RunOptions next = iso;
  next.memory = first.memory;
  Step second = ptc::run("(add-n 5)", next);
  EXPECT_EQ(second.printed, "15");
  // A compiled program runs isolated too.
  auto program = ptc::compile("(* 6 7)");
  EXPECT_EQ(ptc::run(*program, iso).printed, "42");
}

TEST(WorkerPool, HostToolsAreCalledInTheHostProcess) {
  auto pool = make_pool();
  RunOptions o = isolated(pool);
  std::atomic<int> calls{0};
  pid_t host = getpid();
  o.tools["add"] = ptc::Tool{[&](const HostValue& args) {
    ++calls;
    EXPECT_EQ(getpid(), host);
    const ptc::ToolCallContext* call = ptc::current_tool_call();
    EXPECT_NE(call, nullptr);
    if (call) {
      EXPECT_FALSE(call->cancelled());
    }
    return ToolResult::success(HostValue::integer(args.get("x")->as_int() + 1));
  }};
  o.tools["broken"] = ptc::Tool{
      [](const HostValue&) -> ToolResult { throw std::runtime_error("the database is down"); }};
  Step s = ptc::run("(tool/add {:x 41})", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "42");
  ASSERT_EQ(s.tool_calls.size(), 1u);
  EXPECT_EQ(s.tool_calls[0].name, "add");
  // Parallel branches call tools concurrently.
  s = ptc::run("(pmap (fn [i] (tool/add {:x i})) (range 8))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[1 2 3 4 5 6 7 8]");
  EXPECT_EQ(s.tool_calls.size(), 8u);
  EXPECT_EQ(s.pmap_calls.size(), 1u);
  EXPECT_EQ(calls.load(), 9);
  s = ptc::run("(tool/broken {})", o);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::ToolError);
  EXPECT_NE(s.error.message.find("the database is down"), std::string::npos);
  s = ptc::run("(tool/nope {})", o);
  EXPECT_EQ(s.error.kind, ErrorKind::UnknownTool);
}

TEST(WorkerPool, PreparedContextsReachWorkersOncePerWorker) {
  auto pool = make_pool(1);
  RunOptions o = isolated(pool);
  std::vector<std::shared_ptr<const ptc::PreparedContext>> contexts;
  for (int i = 0; i < 6; ++i)
    contexts.push_back(ptc::prepare_context(fmt_json(i)));
  // More contexts than a worker keeps (4, the last used first), in an order
  // that evicts and reloads: each is sent again only after an eviction.
  std::deque<int> held;
  uint64_t sends = 0;
  for (int round = 0; round < 3; ++round)
    for (int i : {0, 1, 2, 3, 4, 5, 0, 5, 1}) {
      o.prepared_context = contexts[i];
      Step s = ptc::run(kWholeContext, o);
      ASSERT_TRUE(s.ok) << s.error.describe();
      EXPECT_EQ(s.printed, in_process(kWholeContext, contexts[i]));
      auto it = std::find(held.begin(), held.end(), i);
      if (it == held.end()) {
        ++sends;
      } else {
        held.erase(it);
      }
      held.push_front(i);
      if (held.size() > 4) held.pop_back();
    }
  EXPECT_EQ(pool->stats().contexts_sent, sends);
  EXPECT_EQ(pool->stats().contexts_handed_over, 0u);
  o.prepared_context.reset();
  o.context_json = R"({"n": 99})";
  EXPECT_EQ(ptc::run("data/n", o).printed, "99");
}

TEST(WorkerPool, ARecycledWorkersSuccessorHoldsItsContextsBeforeItsFirstRun) {
  auto pool = make_pool(1, 16);
  RunOptions o = isolated(pool);
  auto a = ptc::prepare_context(fmt_json(1));
  auto b = ptc::prepare_context(fmt_json(2));
  std::string expected_a = in_process(kWholeContext, a);
  std::string expected_b = in_process(kWholeContext, b);
  // 64 runs: four workers of 16 runs each; each one's successor starts two
  // runs before its last and is handed both contexts then.
  for (int i = 0; i < 64; ++i) {
    o.prepared_context = i % 2 ? b : a;
    Step s = ptc::run(kWholeContext, o);
    ASSERT_TRUE(s.ok) << s.error.describe();
    ASSERT_EQ(s.printed, i % 2 ? expected_b : expected_a) << "run " << i;
  }
  ASSERT_TRUE(pool->wait_ready(kReadyMs));
  ptc::WorkerPoolStats stats = pool->stats();
  EXPECT_EQ(stats.recycled, 4u);
  EXPECT_EQ(stats.contexts_sent, 2u);  // to the first worker only
  EXPECT_EQ(stats.contexts_handed_over, 8u);
  EXPECT_EQ(stats.workers, 1u);
}

TEST(WorkerPool, ToolsThatNeedApprovalAskTheHostsApprover) {
  auto pool = make_pool(1);
  RunOptions o = isolated(pool);
  std::atomic<int> calls{0};
  ptc::Tool refund{[&](const HostValue& args) {
    ++calls;
    return ToolResult::success(args.get("amount")->as_int() == 5 ? HostValue::integer(5)
                                                                 : HostValue::nil());
  }};
  refund.needs_approval = true;
  o.tools["refund"] = refund;
  // No approver: the isolated run fails closed as in-process, the tool uncalled.
  Step s = ptc::run("(tool/refund {:amount 5})", o);
  EXPECT_EQ(s.error.kind, ErrorKind::ToolError);
  EXPECT_NE(s.error.message.find("tool/refund was not called"), std::string::npos)
      << s.error.message;
  EXPECT_EQ(calls.load(), 0);
  o.approver = [](const ptc::PendingCall& call) {
    return call.args.get("amount")->as_int() <= 10 ? ptc::Decision::approve()
                                                   : ptc::Decision::reject("too much");
  };
  s = ptc::run("(tool/refund {:amount 5})", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "5");
  s = ptc::run("(tool/refund {:amount 50})", o);
  EXPECT_EQ(s.error.message, "tool/refund was rejected: too much");
  EXPECT_EQ(s.error.message, ptc::run("(tool/refund {:amount 50})",
                                      [&] {
                                        RunOptions in = o;
                                        in.isolate = nullptr;
                                        return in;
                                      }())
                                 .error.message);
  EXPECT_EQ(calls.load(), 1);
}

TEST(WorkerPool, TheHostsValidatorsJudgeIsolatedRuns) {
  auto pool = make_pool(1);
  RunOptions o = isolated(pool);
  std::atomic<int> calls{0};
  o.tools["read"] = ptc::Tool{[&](const HostValue&) {
    ++calls;
    return ToolResult::success(HostValue::integer(1));
  }};
  o.validate_program = [](std::string_view,
                          const ptc::ProgramAnalysis& a) -> std::optional<std::string> {
    if (std::find(a.data_keys.begin(), a.data_keys.end(), "secret") != a.data_keys.end())
      return "no data/secret";
    return std::nullopt;
  };
  o.validate_tool_call = [](const ptc::PendingCall& call) -> std::optional<std::string> {
    if (call.args.get("all")) return "not all at once";
    return std::nullopt;
  };
  Step s = ptc::run("(println 1) data/secret", o);
  EXPECT_EQ(s.error.kind, ErrorKind::ValidationError);
  EXPECT_EQ(s.error.message, "the host refused the program: no data/secret");
  EXPECT_TRUE(s.prints.empty());
  s = ptc::run("(tool/read {:all true})", o);
  EXPECT_EQ(s.error.message, "tool/read was refused: not all at once");
  s = ptc::run("(tool/read {})", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(calls.load(), 1);
}

TEST(WorkerPool, CancelReachesTheWorker) {
  auto pool = make_pool(1);
  RunOptions o = isolated(pool);
  o.limits.timeout_ms = 20000;
  std::atomic<bool> cancel{false};
  o.cancel = &cancel;
  std::atomic<bool> started{false};
  o.tools["started"] = ptc::Tool{[&](const HostValue&) {
    started = true;
    started.notify_all();
    return ToolResult::success(HostValue::nil());
  }};
  std::thread canceller([&] {
    started.wait(false);
    cancel = true;
  });
  Step s = ptc::run(
      "(tool/started {}) (reduce (fn [a _] (reduce + a (range 1000))) 0 (range 100000))", o);
  canceller.join();
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::Cancelled) << s.error.describe();
  o.cancel = nullptr;
  EXPECT_EQ(ptc::run("(+ 1 2)", o).printed, "3");
}

TEST(WorkerPool, TelemetryIsReportedByTheHost) {
  auto pool = make_pool(1);
  RunOptions o = isolated(pool);
  std::vector<ptc::TelemetryEvent::Kind> kinds;
  o.telemetry = [&](const ptc::TelemetryEvent& e) { kinds.push_back(e.kind); };
  ptc::run("(+ 1 2)", o);
  EXPECT_EQ(kinds,
            (std::vector{ptc::TelemetryEvent::Kind::Start, ptc::TelemetryEvent::Kind::Stop}));
}

TEST(WorkerPool, ExecutionsRefuseIsolation) {
  auto pool = make_pool(1);
  try {
    ptc::start("(+ 1 2)", isolated(pool));
    FAIL() << "start ran isolated";
  } catch (const ptc::LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::ArgsError);
  }
}

// ---------------------------------------------------------------- containment

void expect_worker_died(WorkerPool& pool, const char* hook, const char* how) {
  SCOPED_TRACE(hook);
  RunOptions o;
  o.isolate = std::shared_ptr<ptc::Isolation>(&pool, [](ptc::Isolation*) {});
  Step s = ptc::run(std::string(";;hook:") + hook + "\n(+ 1 2)", o);
  EXPECT_FALSE(s.ok) << s.printed;
  EXPECT_EQ(s.error.kind, ErrorKind::InternalError) << s.error.describe();
  EXPECT_NE(s.error.message.find("worker process running this program died"), std::string::npos)
      << s.error.message;
  EXPECT_NE(s.error.message.find(how), std::string::npos) << s.error.message;
  // The next call is answered, and the pool is back to its size.
  Step next = ptc::run("(+ 1 2)", o);
  EXPECT_TRUE(next.ok) << next.error.describe();
  EXPECT_TRUE(pool.wait_ready(kReadyMs));
  EXPECT_EQ(pool.stats().workers, 2u);
}

TEST(WorkerPool, ACrashEndsOnlyItsOwnRun) {
  auto pool = make_pool(2);
  ASSERT_TRUE(pool->wait_ready(kReadyMs));
  // Under ASan a SEGV is reported first (and the report needs more than the
  // jail allows): the worker still dies, by one signal or another.
  expect_worker_died(*pool, "segv", sanitized() ? "" : "SIGSEGV");
  expect_worker_died(*pool, "abort", sanitized() ? "" : "SIGABRT");
  expect_worker_died(*pool, "exit", "exited with status 3");
  EXPECT_EQ(pool->stats().died, 3u);
}

TEST(WorkerPool, ForbiddenSystemCallsKillTheWorkerBySigsys) {
  auto pool = make_pool(2);
  ASSERT_TRUE(pool->wait_ready(kReadyMs));
  for (const char* probe : {"open", "socket", "execve", "ptrace", "fork", "kill-parent"})
    expect_worker_died(*pool, probe, "SIGSYS");
}

TEST(WorkerPool, TheHostsEnvironmentNeverReachesAWorker) {
  setenv("PTC_ISOLATION_TEST_SECRET", "sk-not-for-programs", 1);
  auto pool = make_pool(1);
  unsetenv("PTC_ISOLATION_TEST_SECRET");
  Step s = ptc::run(";;hook:env\n(+ 1 2)", isolated(pool));
  EXPECT_TRUE(s.ok) << s.error.describe();
}

TEST(WorkerPool, AllocationPastTheAddressSpaceLimitIsContained) {
  if (sanitized()) GTEST_SKIP() << "the sanitizers' shadow memory rules out RLIMIT_AS";
  auto pool = make_pool(1);
  // The 8 GiB allocation fails inside the worker; the program then runs.
  Step s = ptc::run(";;hook:alloc\n(+ 1 2)", isolated(pool));
  EXPECT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "3");
}

TEST(WorkerPool, ANativeInfiniteLoopIsKilledAtItsDeadline) {
  auto pool = make_pool(1);
  RunOptions o = isolated(pool);
  o.limits.timeout_ms = 100;
  o.limits.compile_timeout_ms = 100;
  auto start = std::chrono::steady_clock::now();
  Step s = ptc::run(";;hook:spin\n(+ 1 2)", o);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(s.error.kind, ErrorKind::Timeout) << s.error.describe();
  EXPECT_NE(s.error.message.find("was killed"), std::string::npos) << s.error.message;
  EXPECT_EQ(pool->stats().killed, 1u);
  // The deadline (100 + 100 + the 300 ms margin) is what stopped it, not a
  // test timeout.
  EXPECT_LT(took, std::chrono::seconds(20));
  EXPECT_EQ(ptc::run("(+ 1 2)", o).printed, "3");
}

TEST(WorkerPool, AWorkerThatLiesIsKilled) {
  auto pool = make_pool(1);
  Step s = ptc::run(";;hook:lie\n(+ 1 2)", isolated(pool));
  EXPECT_EQ(s.error.kind, ErrorKind::InternalError) << s.error.describe();
  EXPECT_NE(s.error.message.find("malformed frame"), std::string::npos) << s.error.message;
  EXPECT_EQ(pool->stats().killed, 1u);
  EXPECT_EQ(ptc::run("(+ 1 2)", isolated(pool)).printed, "3");
}

// -------------------------------------------------------- cpu handoff

// The CPUs a process or thread ("self/task/TID") may run on.
std::set<int> cpus_allowed(const std::string& who) {
  std::string text = read_proc_file("/proc/" + who + "/status");
  size_t at = text.find("Cpus_allowed_list:");
  std::set<int> cpus;
  if (at == std::string::npos) return cpus;
  std::istringstream list(text.substr(at + 18, text.find('\n', at) - at - 18));
  std::string range;
  while (std::getline(list, range, ',')) {
    int first = std::stoi(range), last = first;
    if (size_t dash = range.find('-'); dash != std::string::npos)
      last = std::stoi(range.substr(dash + 1));
    for (int c = first; c <= last; ++c)
      cpus.insert(c);
  }
  return cpus;
}

// Worker processes bound to one CPU, and the CPU.
std::vector<int> bound_worker_cpus() {
  std::vector<int> cpus;
  for (int pid : worker_pids())
    if (std::set<int> c = cpus_allowed(std::to_string(pid)); c.size() == 1)
      cpus.push_back(*c.begin());
  return cpus;
}

bool several_cpus() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
}

TEST(WorkerPool, ARunAloneTakesTurnsWithItsCallerOnTheCallersCpu) {
  if (!several_cpus()) GTEST_SKIP() << "one CPU: nothing to hand off";
  auto pool = make_pool(1);
  ASSERT_TRUE(pool->wait_ready(kReadyMs));
  std::string caller = "self/task/" + std::to_string(gettid());
  std::set<int> before = cpus_allowed(caller);
  std::set<int> caller_during;
  std::vector<int> workers_during;
  RunOptions o = isolated(pool);
  o.tools["look"] = ptc::Tool{[&](const HostValue&) {
    caller_during = cpus_allowed(caller);
    workers_during = bound_worker_cpus();
    return ToolResult::success(HostValue::nil());
  }};
  Step s = ptc::run("(tool/look {}) (+ 1 2)", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  ASSERT_EQ(caller_during.size(), 1u);
  ASSERT_EQ(workers_during.size(), 1u);
  EXPECT_EQ(workers_during[0], *caller_during.begin());
  EXPECT_EQ(cpus_allowed(caller), before);  // put back after the run

  // Turned off: neither is bound.
  WorkerPoolOptions off;
  off.workers = 1;
  off.worker_path = PTC_TEST_WORKER;
  off.cpu_handoff = false;
  o.isolate = std::make_shared<WorkerPool>(off);
  pool.reset();  // its worker ends
  s = ptc::run("(tool/look {})", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(caller_during, before);
  EXPECT_TRUE(workers_during.empty());
}

TEST(WorkerPool, OverlappingRunsAreLeftToTheScheduler) {
  if (!several_cpus()) GTEST_SKIP() << "one CPU: nothing to hand off";
  auto pool = make_pool(2);
  ASSERT_TRUE(pool->wait_ready(kReadyMs));
  // Alone: worker X is bound, and first in line again after it.
  ASSERT_EQ(ptc::run("(+ 1 2)", isolated(pool)).printed, "3");
  ASSERT_EQ(bound_worker_cpus().size(), 1u);

  // P (alone) takes X, Q (not alone) takes Y; both wait in a tool.
  std::atomic<int> entered{0};
  std::atomic<bool> release_p{false}, release_q{false};
  RunOptions o = isolated(pool);
  auto hold = [&](std::atomic<bool>& release) {
    return ptc::Tool{[&](const HostValue&) {
      ++entered;
      entered.notify_all();
      release.wait(false);
      return ToolResult::success(HostValue::nil());
    }};
  };
  o.tools["hold_p"] = hold(release_p);
  o.tools["hold_q"] = hold(release_q);
  std::thread p([&] { EXPECT_TRUE(ptc::run("(tool/hold_p {})", o).ok); });
  for (int n = entered.load(); n < 1; n = entered.load())
    entered.wait(n);
  std::thread q([&] { EXPECT_TRUE(ptc::run("(tool/hold_q {})", o).ok); });
  for (int n = entered.load(); n < 2; n = entered.load())
    entered.wait(n);
  EXPECT_EQ(bound_worker_cpus().size(), 1u);  // X, for P
  release_p = true;
  release_p.notify_all();
  p.join();

  // R, while Q runs, is not alone: X is lent to it unbound, and R's caller
  // stays where it may run.
  std::string caller = "self/task/" + std::to_string(gettid());
  std::set<int> before = cpus_allowed(caller), caller_during;
  std::vector<int> workers_during{-1};
  o.tools["look"] = ptc::Tool{[&](const HostValue&) {
    caller_during = cpus_allowed(caller);
    workers_during = bound_worker_cpus();
    return ToolResult::success(HostValue::nil());
  }};
  Step s = ptc::run("(tool/look {})", o);
  release_q = true;
  release_q.notify_all();
  q.join();
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_TRUE(workers_during.empty());
  EXPECT_EQ(caller_during, before);
}

TEST(WorkerPool, WorkersAreRecycledAfterMaxRuns) {
  auto pool = make_pool(1, 3);
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(ptc::run("(+ 1 2)", isolated(pool)).printed, "3");
  EXPECT_EQ(pool->stats().recycled, 3u);
  EXPECT_EQ(pool->stats().runs, 10u);
  EXPECT_GE(pool->stats().started, 4u);
}

TEST(WorkerPool, AMissingWorkerExecutableIsAClearError) {
  WorkerPoolOptions o;
  o.worker_path = "/nonexistent/ptc-worker";
  try {
    WorkerPool pool(o);
    FAIL() << "a pool started without its worker";
  } catch (const ptc::LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::InternalError);
    EXPECT_NE(e.error().message.find("/nonexistent/ptc-worker"), std::string::npos);
  }
}

TEST(WorkerPool, TheReleaseWorkerRunsPrograms) {
  WorkerPoolOptions o;
  o.workers = 1;
  o.worker_path = PTC_WORKER_PATH;
  auto pool = std::make_shared<WorkerPool>(o);
  EXPECT_EQ(ptc::run("(+ 1 2)", isolated(pool)).printed, "3");
  // Its programs have no hooks: this is a comment.
  EXPECT_EQ(ptc::run(";;hook:segv\n(+ 1 2)", isolated(pool)).printed, "3");
}

// 10,000 calls through 4 workers while a chaos thread kills random workers:
// every call gets an answer, a value or internal_error; afterwards no fd is
// left open and no process is left behind.
TEST(WorkerPool, ChaosKillsLoseOnlyTheirOwnCalls) {
  size_t fds_before = open_fds();
  constexpr int kCalls = 10000;
  std::atomic<int> values{0}, lost{0}, other{0};
  std::atomic<int> kills{0};
  {
    auto pool = make_pool(4, 500);
    ASSERT_TRUE(pool->wait_ready(kReadyMs));
    std::atomic<bool> done{false};
    std::thread chaos([&] {
      std::mt19937 random(7);
      while (!done.load()) {
        std::vector<int> pids = worker_pids();
        if (!pids.empty() && kill(pids[random() % pids.size()], SIGKILL) == 0) ++kills;
        // A kill every few hundred calls: the pool must keep up.
        for (int i = 0; i < 20 && !done.load(); ++i)
          std::this_thread::yield();
        usleep(2000);
      }
    });
    std::atomic<int> next{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
      callers.emplace_back([&] {
        RunOptions o = isolated(pool);
        o.tools["echo"] = ptc::Tool{[](const HostValue& a) { return ToolResult::success(a); }};
        for (int i; (i = next++) < kCalls;) {
          Step s = ptc::run(i % 3 ? "(reduce + (range 100))" : "(:n (tool/echo {:n 4950}))", o);
          if (s.ok && s.printed == "4950")
            ++values;
          else if (s.error.kind == ErrorKind::InternalError)
            ++lost;
          else
            ++other, ADD_FAILURE() << s.error.describe();
        }
      });
    for (std::thread& t : callers)
      t.join();
    done = true;
    chaos.join();
    EXPECT_TRUE(pool->wait_ready(kReadyMs));
    EXPECT_EQ(pool->stats().workers, 4u);
  }
  EXPECT_EQ(values + lost + other, kCalls);
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(kills.load(), 10);
  EXPECT_LE(lost.load(), kills.load());
  // Everything the pool held is gone with it: fds, workers, its launcher.
  EXPECT_EQ(open_fds(), fds_before);
  EXPECT_TRUE(descendants().empty());
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);  // no child left, not even a zombie
  RecordProperty("calls", kCalls);
  RecordProperty("kills", kills.load());
  RecordProperty("lost", lost.load());
}

}  // namespace

namespace {

// The launcher itself killed: its workers end with it, the calls they ran
// get internal_error, and the pool starts a new launcher.
TEST(WorkerPool, ALostLauncherIsReplaced) {
  auto pool = make_pool(2);
  ASSERT_TRUE(pool->wait_ready(kReadyMs));
  std::vector<int> launchers;
  for (const Proc& p : descendants())
    if (p.ppid == getpid()) launchers.push_back(p.pid);
  ASSERT_EQ(launchers.size(), 1u);
  ASSERT_EQ(kill(launchers[0], SIGKILL), 0);
  // Runs go on: the first may meet a worker that died with the launcher.
  int ok = 0;
  for (int i = 0; i < 10; ++i)
    ok += ptc::run("(+ 1 2)", isolated(pool)).ok;
  EXPECT_GE(ok, 8);
  EXPECT_TRUE(pool->wait_ready(kReadyMs));
  EXPECT_EQ(pool->stats().workers, 2u);
  Step s = ptc::run("(+ 1 2)", isolated(pool));
  EXPECT_EQ(s.printed, "3") << s.error.describe();
}

}  // namespace
