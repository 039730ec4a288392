// Executions: programs that suspend at deferred tools and resume with the
// host's answers (in memory, and from bytes), and what a run gives them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "embedding/snapshot.hpp"
#include "include/ptc/ptc.hpp"
#include "support/equivalence.hpp"

namespace {

using ptc::Answers;
using ptc::Execution;
using ptc::HostValue;
using ptc::PendingCall;
using ptc::RunOptions;
using ptc::ToolResult;

RunOptions deferring(std::vector<std::string> names) {
  RunOptions o;
  o.deferred_tools = std::move(names);
  return o;
}

HostValue user(const std::string& name) {
  return HostValue::map({{HostValue::string("name"), HostValue::string(name)}});
}

std::vector<std::string> ids(const Execution& e) {
  std::vector<std::string> out;
  for (const PendingCall& c : e.pending())
    out.push_back(c.id);
  return out;
}

ptc::ErrorKind error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (ptc::LispError& e) {
    return e.error().kind;
  }
  ADD_FAILURE() << "no error";
  return ptc::ErrorKind::RuntimeError;
}

TEST(Execution, WithNothingDeferredItIsARun) {
  Execution e = ptc::start("(+ 1 2)");
  ASSERT_TRUE(e.done());
  EXPECT_TRUE(e.step().ok);
  EXPECT_EQ(e.step().printed, "3");
  EXPECT_TRUE(e.pending().empty());
}

TEST(Execution, SuspendsAtADeferredToolAndResumes) {
  Execution e = ptc::start(
      "(def seen (tool/get-user {:id 7 :opts {:deep-key true}}))\n(println \"got\" (:name seen))\n"
      "(str (:name seen) \"!\")",
      deferring({"get-user"}));
  ASSERT_FALSE(e.done());
  std::vector<PendingCall> calls = e.pending();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].id, "c0");
  EXPECT_EQ(calls[0].tool, "get-user");
  // Exactly as a host tool receives them: keyword keys as strings, at every depth.
  EXPECT_EQ(ptc::to_json(calls[0].args, true), R"({"id":7,"opts":{"deep-key":true}})");
  EXPECT_EQ(error_of([&] { (void)e.step(); }), ptc::ErrorKind::ArgsError);
  e.resume({{"c0", ToolResult::success(user("Ada"))}});
  ASSERT_TRUE(e.done());
  const ptc::Step& s = e.step();
  ASSERT_TRUE(s.ok) << ptc::format_error(s.error);
  EXPECT_EQ(s.printed, "\"Ada!\"");
  EXPECT_EQ(s.prints, std::vector<std::string>{"got Ada"});
  ASSERT_EQ(s.tool_calls.size(), 1u);
  EXPECT_EQ(s.tool_calls[0].name, "get-user");
  EXPECT_EQ(ptc::format_value(s.tool_calls[0].result), "{\"name\" \"Ada\"}");
  EXPECT_EQ(ptc::format_value(*s.memory.get("seen")), "{\"name\" \"Ada\"}");
}

TEST(Execution, DeferredByToolFlagOrByStar) {
  RunOptions flagged;
  flagged.tools["f"] = ptc::Tool{nullptr, false, false, true};
  Execution a = ptc::start("(tool/f {})", flagged);
  EXPECT_EQ(ids(a), std::vector<std::string>{"c0"});
  // "*" defers every tool the program calls that `tools` does not give.
  RunOptions star = deferring({"*"});
  star.tools["sync"] = {
      [](const HostValue&) { return ToolResult::success(HostValue::integer(1)); }};
  Execution b = ptc::start("[(tool/sync {}) (tool/anything {:x 1})]", star);
  ASSERT_EQ(b.pending().size(), 1u);
  EXPECT_EQ(b.pending()[0].tool, "anything");
  b.resume({{"c1", ToolResult::success(HostValue::integer(2))}});
  EXPECT_EQ(b.step().printed, "[1 2]");
  // Without "*", a tool nobody gives still fails before the program runs.
  Execution c = ptc::start("(tool/unknown {})", deferring({"f"}));
  ASSERT_TRUE(c.done());
  EXPECT_EQ(c.step().error.kind, ptc::ErrorKind::UnknownTool);
}

TEST(Execution, RunCannotWaitForADeferredTool) {
  ptc::Step s = ptc::run("(tool/f {})", deferring({"f"}));
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ptc::ErrorKind::ArgsError);
  EXPECT_NE(s.error.hint.find("ptc::start"), std::string::npos) << s.error.hint;
}

TEST(Execution, PmapSuspendsOnceWithEveryCallPending) {
  Execution e = ptc::start("(pmap #(tool/get-user {:id %}) [1 2 3 4])", deferring({"get-user"}));
  ASSERT_FALSE(e.done());
  EXPECT_EQ(ids(e), (std::vector<std::string>{"p0.0/c0", "p0.1/c0", "p0.2/c0", "p0.3/c0"}));
  // A subset, in any order; the rest stay pending.
  e.resume({{"p0.2/c0", ToolResult::success(HostValue::integer(30))},
            {"p0.0/c0", ToolResult::success(HostValue::integer(10))}});
  EXPECT_EQ(ids(e), (std::vector<std::string>{"p0.1/c0", "p0.3/c0"}));
  e.resume({{"p0.3/c0", ToolResult::success(HostValue::integer(40))}});
  e.resume({{"p0.1/c0", ToolResult::success(HostValue::integer(20))}});
  ASSERT_TRUE(e.done());
  EXPECT_EQ(e.step().printed, "[10 20 30 40]");
  ASSERT_EQ(e.step().pmap_calls.size(), 1u);
  EXPECT_EQ(e.step().pmap_calls[0].success_count, 4u);
}

TEST(Execution, WindowedAndNestedParallelCalls) {
  // More branches than the window: the later ones start as earlier ones end.
  RunOptions o = deferring({"f"});
  o.limits.pmap_max_concurrency = 2;
  Execution e = ptc::start("(pmap #(tool/f {:i %}) (range 5))", o);
  size_t rounds = 0;
  while (!e.done()) {
    ASSERT_LE(e.pending().size(), 2u);
    Answers a;
    for (const PendingCall& c : e.pending())
      a.emplace(c.id, ToolResult::success(HostValue::integer(c.args.get("i")->as_int() * 10)));
    e.resume(std::move(a));
    ++rounds;
  }
  EXPECT_EQ(e.step().printed, "[0 10 20 30 40]");
  EXPECT_GE(rounds, 3u);
  // A pmap inside a branch: its branches wait on the same lane, and the whole
  // execution suspends with every innermost call pending.
  Execution n =
      ptc::start("(pmap (fn [x] (pmap #(tool/f {:x x :y %}) [1 2])) [1 2])", deferring({"f"}));
  EXPECT_EQ(ids(n), (std::vector<std::string>{"p0.0/p0.0/c0", "p0.0/p0.1/c0", "p0.1/p0.0/c0",
                                              "p0.1/p0.1/c0"}));
  Answers all;
  for (const PendingCall& c : n.pending())
    all.emplace(c.id, ToolResult::success(HostValue::integer(c.args.get("x")->as_int() * 10 +
                                                             c.args.get("y")->as_int())));
  n.resume(std::move(all));
  EXPECT_EQ(n.step().printed, "[[11 12] [21 22]]");
  // pcalls too.
  Execution p = ptc::start("(pcalls #(tool/f {:a 1}) #(tool/f {:a 2}))", deferring({"f"}));
  EXPECT_EQ(ids(p), (std::vector<std::string>{"p0.0/c0", "p0.1/c0"}));
}

TEST(Execution, SynchronousToolsKeepWorkingBesideDeferredOnes) {
  RunOptions o = deferring({"slow"});
  std::atomic<int> calls{0};
  o.tools["fast"] = {[&](const HostValue& a) {
    ++calls;
    return ToolResult::success(HostValue::integer(a.get("n")->as_int() + 1));
  }};
  Execution e = ptc::start("(pmap (fn [n] (+ (tool/fast {:n n}) (tool/slow {:n n}))) [1 2])", o);
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(ids(e), (std::vector<std::string>{"p0.0/c1", "p0.1/c1"}));
  e.resume({{"p0.0/c1", ToolResult::success(HostValue::integer(100))},
            {"p0.1/c1", ToolResult::success(HostValue::integer(200))}});
  EXPECT_EQ(e.step().printed, "[102 203]");
}

TEST(Execution, PendingCallsAreListedInProgramOrderWhicheverWaitedFirst) {
  // Branch 0 holds its synchronous call until branch 1 has made its own, so
  // branch 1 usually reaches its deferred call first; the list does not say so.
  RunOptions o = deferring({"slow"});
  std::atomic<bool> second_called{false};
  o.tools["fast"] = {[&](const HostValue& a) {
    if (a.get("n")->as_int() == 0) {
      for (int i = 0; i < 200 && !second_called.load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    } else {
      second_called = true;
    }
    return ToolResult::success(HostValue::integer(0));
  }};
  Execution e = ptc::start("(pmap (fn [n] (tool/slow {:n (tool/fast {:n n})})) [0 1])", o);
  EXPECT_EQ(ids(e), (std::vector<std::string>{"p0.0/c1", "p0.1/c1"}));
  // Numbers compare as numbers: branch 2 before branch 10.
  RunOptions wide = deferring({"slow"});
  wide.limits.pmap_max_concurrency = 12;
  wide.limits.max_parallel_workers = 12;
  Execution many = ptc::start("(pmap #(tool/slow {:n %}) (range 12))", wide);
  std::vector<std::string> expected;
  for (int i = 0; i < 12; ++i)
    expected.push_back("p0." + std::to_string(i) + "/c0");
  EXPECT_EQ(ids(many), expected);
}

TEST(Execution, AnErrorAnswerIsTheToolsFailure) {
  Execution e = ptc::start("(do (tool/f {}) :never)", deferring({"f"}));
  e.resume({{"c0", ToolResult::failure("no such user")}});
  ASSERT_TRUE(e.done());
  EXPECT_EQ(e.step().error.kind, ptc::ErrorKind::ToolError);
  EXPECT_NE(e.step().error.message.find("no such user"), std::string::npos);
  ASSERT_EQ(e.step().tool_calls.size(), 1u);
  EXPECT_EQ(e.step().tool_calls[0].error, "no such user");
}

TEST(Execution, ACachedCallNeverSuspendsAndLimitsHold) {
  RunOptions o;
  o.tools["f"] = ptc::Tool{nullptr, true, false, true};  // cacheable, deferred
  Execution e = ptc::start("[(tool/f {:a 1}) (tool/f {:a 1}) (tool/f {:a 2})]", o);
  e.resume({{"c0", ToolResult::success(HostValue::integer(1))}});
  EXPECT_EQ(ids(e), std::vector<std::string>{"c2"});  // c1 came from the cache
  e.resume({{"c2", ToolResult::success(HostValue::integer(2))}});
  ASSERT_TRUE(e.done());
  EXPECT_EQ(e.step().printed, "[1 1 2]");
  EXPECT_TRUE(e.step().tool_calls[1].cached);
  // max_tool_calls counts deferred calls too.
  RunOptions capped = deferring({"f"});
  capped.limits.max_tool_calls = 1;
  Execution c = ptc::start("[(tool/f {}) (tool/f {})]", capped);
  c.resume({{"c0", ToolResult::success(HostValue::integer(1))}});
  ASSERT_TRUE(c.done());
  EXPECT_EQ(c.step().error.kind, ptc::ErrorKind::ToolCallLimitExceeded);
}

TEST(Execution, BadResumesAreRefusedAndChangeNothing) {
  Execution e = ptc::start("(pmap #(tool/f {:i %}) [1 2])", deferring({"f"}));
  auto before = ids(e);
  EXPECT_EQ(error_of([&] { e.resume({}); }), ptc::ErrorKind::ArgsError);
  EXPECT_EQ(error_of([&] {
              e.resume({{"c9", ToolResult::success({})}});
            }),
            ptc::ErrorKind::ArgsError);
  // One unknown id among good ones: nothing is taken.
  EXPECT_EQ(error_of([&] {
              e.resume({{"p0.0/c0", ToolResult::success({})}, {"nope", ToolResult::success({})}});
            }),
            ptc::ErrorKind::ArgsError);
  EXPECT_EQ(ids(e), before);
  e.resume({{"p0.0/c0", ToolResult::success(HostValue::integer(1))}});
  try {
    e.resume({{"p0.0/c0", ToolResult::success(HostValue::integer(1))}});
    ADD_FAILURE() << "answered twice";
  } catch (ptc::LispError& err) {
    EXPECT_EQ(err.error().kind, ptc::ErrorKind::ArgsError);
    EXPECT_NE(err.error().message.find("answered before"), std::string::npos);
    EXPECT_NE(err.error().hint.find("p0.1/c0"), std::string::npos) << err.error().hint;
  }
  e.resume({{"p0.1/c0", ToolResult::success(HostValue::integer(2))}});
  ASSERT_TRUE(e.done());
  EXPECT_EQ(error_of([&] {
              e.resume({{"p0.1/c0", ToolResult::success({})}});
            }),
            ptc::ErrorKind::ArgsError);
  EXPECT_EQ(error_of([&] { (void)e.dump(); }), ptc::ErrorKind::ArgsError);
  EXPECT_EQ(e.step().printed, "[1 2]");
}

TEST(Execution, TimeoutCountsRunningNotWaiting) {
  RunOptions o = deferring({"f"});
  o.limits.timeout_ms = 150;
  Execution e = ptc::start("(do (tool/f {}) (tool/f {:again true}) :done)", o);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));  // waiting is not running
  e.resume({{"c0", ToolResult::success({})}});
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  e.resume({{"c1", ToolResult::success({})}});
  ASSERT_TRUE(e.done());
  EXPECT_TRUE(e.step().ok) << ptc::format_error(e.step().error);
  EXPECT_LT(e.step().usage.duration_ms, 150);
  // Running still counts: a loop that outlasts the limit ends it.
  o.limits.loop_limit = 10000;
  Execution busy = ptc::start(
      "(tool/f {}) (loop [i 0] (if (< i 10000) (do (loop [j 0] (if (< j 10000) (recur (inc j)))) "
      "(recur (inc i)))))",
      o);
  busy.resume({{"c0", ToolResult::success({})}});
  ASSERT_TRUE(busy.done());
  EXPECT_EQ(busy.step().error.kind, ptc::ErrorKind::Timeout);
}

TEST(Execution, CancelAndDropUnwindTheRun) {
  Execution e = ptc::start("(pmap #(tool/f {:i %}) [1 2 3])", deferring({"f"}));
  e.cancel();
  ASSERT_TRUE(e.done());
  EXPECT_EQ(e.step().error.kind, ptc::ErrorKind::Cancelled);
  e.cancel();  // done: nothing happens
  EXPECT_EQ(e.step().error.kind, ptc::ErrorKind::Cancelled);
  // Dropped while suspended (sequential and parallel): unwound, nothing leaks (ASan).
  for (int i = 0; i < 50; ++i) {
    Execution a = ptc::start("(let [x (tool/f {})] x)", deferring({"f"}));
    Execution b = ptc::start("(pmap #(tool/f {:i %}) (range 6))", deferring({"f"}));
  }
  // The host's cancel flag, raised while suspended, ends it at the next resume.
  std::atomic<bool> stop{false};
  RunOptions o = deferring({"f"});
  o.cancel = &stop;
  Execution c = ptc::start("(tool/f {}) (reduce + (range 100000000))", o);
  stop = true;
  c.resume({{"c0", ToolResult::success({})}});
  EXPECT_EQ(c.step().error.kind, ptc::ErrorKind::Cancelled);
}

TEST(Execution, ADroppedExecutionRunsNothingMoreWhereverItWaits) {
  // Waiting at the top, in a function, under a builtin's frames (map, reduce),
  // in a branch: dropped, it neither calls another tool nor reports a stop.
  const char* programs[] = {
      "(do (tool/f {}) (tool/after {}))",
      "(defn g [x] (+ (tool/f {:x x}) (tool/after {}))) (g 1) (tool/after {})",
      "(doall (map (fn [x] (tool/f {:x x}) (tool/after {})) [1 2])) (tool/after {})",
      "(reduce (fn [a x] (+ a (tool/f {:x x}))) 0 [1 2]) (tool/after {})",
      "(loop [i 0] (if (< i 3) (do (tool/f {:i i}) (recur (inc i))) (tool/after {})))",
      "(pmap #(do (tool/f {:x %}) (tool/after {})) [1 2]) (tool/after {})",
  };
  for (const char* program : programs) {
    SCOPED_TRACE(program);
    RunOptions o = deferring({"f"});
    std::atomic<int> after{0};
    o.tools["after"] = {[&](const HostValue&) {
      ++after;
      return ToolResult::success(HostValue::integer(0));
    }};
    std::vector<ptc::TelemetryEvent::Kind> events;
    o.telemetry = [&](const ptc::TelemetryEvent& e) { events.push_back(e.kind); };
    {
      Execution e = ptc::start(program, o);
      ASSERT_FALSE(e.done());
    }
    EXPECT_EQ(after.load(), 0);
    EXPECT_EQ(events, std::vector<ptc::TelemetryEvent::Kind>{ptc::TelemetryEvent::Kind::Start});
  }
}

TEST(Execution, ResumedFromOtherThreads) {
  // Each resume on a thread of its own: the execution moves with its host.
  Execution e =
      ptc::start("(loop [i 0 acc []] (if (< i 6) (recur (inc i) (conj acc (tool/f {:i i}))) acc))",
                 deferring({"f"}));
  while (!e.done()) {
    std::thread t([&] {
      PendingCall c = e.pending().at(0);
      e.resume({{c.id, ToolResult::success(HostValue::integer(c.args.get("i")->as_int() * 2))}});
    });
    t.join();
  }
  EXPECT_EQ(e.step().printed, "[0 2 4 6 8 10]");
  // Many executions, suspended at once, resumed by several threads together.
  std::vector<Execution> many;
  for (int i = 0; i < 64; ++i)
    many.push_back(ptc::start("(pmap #(+ % (tool/f {:i %})) [1 2])", deferring({"f"})));
  std::vector<std::thread> threads;
  std::atomic<size_t> next{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < many.size();)
        many[i].resume({{"p0.0/c0", ToolResult::success(HostValue::integer(10))},
                        {"p0.1/c0", ToolResult::success(HostValue::integer(20))}});
    });
  for (auto& t : threads)
    t.join();
  for (const Execution& x : many)
    EXPECT_EQ(x.step().printed, "[11 22]");
}

TEST(Execution, HeapBytesReportsWhatItHolds) {
  Execution e = ptc::start("(def big (vec (range 10000))) (tool/f {})", deferring({"f"}));
  EXPECT_GT(e.heap_bytes(), 10000u * 8);
  e.resume({{"c0", ToolResult::success({})}});
}

TEST(Snapshot, DumpAndLoadContinueWhereItStood) {
  RunOptions o = deferring({"get-user"});
  o.context = ptc::parse_json(R"({"ids": [1, 2], "label": "users"})");
  o.memory = HostValue::map({{HostValue::string("greeting"), HostValue::string("hi")}});
  const char* program =
      "(defn greet [u] (str greeting \" \" (:name u)))\n"
      "(println data/label)\n"
      "(mapv #(greet (tool/get-user {:id %})) data/ids)";
  Execution e = ptc::start(program, o);
  e.resume({{"c0", ToolResult::success(user("Ada"))}});
  std::string bytes = e.dump();
  // Loaded with no tools at all: the tool it knows is deferred.
  Execution loaded = ptc::load(bytes);
  EXPECT_EQ(ids(loaded), std::vector<std::string>{"c1"});
  loaded.resume({{"c1", ToolResult::success(user("Bob"))}});
  e.resume({{"c1", ToolResult::success(user("Bob"))}});
  ASSERT_TRUE(loaded.done());
  EXPECT_EQ(loaded.step().printed, "[\"hi Ada\" \"hi Bob\"]");
  EXPECT_EQ(ptc::equivalence::compare(e.step(), loaded.step(), false), "");
  // The ledger of the loaded execution is the whole run's.
  EXPECT_EQ(loaded.step().tool_calls.size(), 2u);
  EXPECT_EQ(loaded.step().prints, std::vector<std::string>{"users"});
}

TEST(Snapshot, AToolTheHostGivesAtLoadIsCalled) {
  // Deferred by name at start; given as a function at load: called from then on.
  Execution e = ptc::start("[(tool/f {:i 1}) (tool/f {:i 2})]", deferring({"f"}));
  std::string bytes = e.dump();
  RunOptions later;
  later.tools["f"] = {[](const HostValue&) { return ToolResult::success(HostValue::integer(7)); }};
  Execution l = ptc::load(bytes, later);
  EXPECT_EQ(ids(l), std::vector<std::string>{"c0"});  // pending when dumped: still the host's
  l.resume({{"c0", ToolResult::success(HostValue::integer(1))}});
  ASSERT_TRUE(l.done());
  EXPECT_EQ(l.step().printed, "[1 7]");
}

TEST(Snapshot, ClockReadsComeBackFromTheJournal) {
  Execution e = ptc::start("(let [t (System/currentTimeMillis)] (tool/f {}) [t (java.util.Date.)])",
                           deferring({"f"}));
  std::string bytes = e.dump();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Execution l = ptc::load(bytes);
  l.resume({{"c0", ToolResult::success({})}});
  e.resume({{"c0", ToolResult::success({})}});
  // Only the first read was made before the dump: it comes back as it was.
  EXPECT_EQ(e.step().value.items()[0].as_int(), l.step().value.items()[0].as_int());
}

TEST(Snapshot, SignedSnapshotsFailClosed) {
  Execution e = ptc::start("(tool/f {})", deferring({"f"}));
  std::string plain = e.dump(), sealed = e.dump("secret");
  EXPECT_FALSE(ptc::load(sealed, {}, "secret").done());
  EXPECT_EQ(error_of([&] { ptc::load(sealed, {}, "other"); }), ptc::ErrorKind::SnapshotError);
  EXPECT_EQ(error_of([&] { ptc::load(sealed); }), ptc::ErrorKind::SnapshotError);
  EXPECT_EQ(error_of([&] { ptc::load(plain, {}, "secret"); }), ptc::ErrorKind::SnapshotError);
  std::string tampered = sealed;
  tampered[20] ^= 1;
  EXPECT_EQ(error_of([&] { ptc::load(tampered, {}, "secret"); }), ptc::ErrorKind::SnapshotError);
}

TEST(Snapshot, DamagedBytesAreSnapshotErrors) {
  RunOptions o = deferring({"f"});
  o.context = ptc::parse_json(R"({"xs": [1, 2.5, "three", {"k": null}]})");
  Execution e = ptc::start("(count data/xs) (tool/f {:xs data/xs}) (tool/f {})", o);
  e.resume({{"c0", ToolResult::success(ptc::parse_json(R"({"a": [1, {"b": "c"}]})"))}});
  std::string bytes = e.dump();
  // Every truncation, and every single-byte change, is refused with a snapshot
  // error or loads into an execution: never a crash.
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      ptc::load(bytes.substr(0, n));
      ADD_FAILURE() << "a snapshot cut at " << n << " loaded";
    } catch (ptc::LispError& err) {
      EXPECT_EQ(err.error().kind, ptc::ErrorKind::SnapshotError) << n;
    }
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string changed = bytes;
    changed[i] = static_cast<char>(changed[i] ^ 0x5a);
    try {
      ptc::load(changed);
    } catch (ptc::LispError& err) {
      auto k = err.error().kind;
      EXPECT_TRUE(k == ptc::ErrorKind::SnapshotError || k == ptc::ErrorKind::SnapshotDivergence)
          << i << ": " << ptc::format_error(err.error());
    }
  }
  try {
    ptc::load("not a snapshot at all");
  } catch (ptc::LispError& err) {
    EXPECT_NE(err.error().message.find("not a ptc snapshot"), std::string::npos);
  }
}

TEST(Snapshot, AReplayThatLeavesItsJournalDiverges) {
  Execution e = ptc::start("(tool/f {:a 1}) (tool/f {:a 2})", deferring({"f"}));
  e.resume({{"c0", ToolResult::success({})}});
  ptc::Snapshot s = ptc::decode_snapshot(e.dump(), "");
  auto with_source = [&](const char* source) {
    s.inputs.source = source;
    return ptc::encode_snapshot(s.inputs.engine, ptc::encode_inputs(s.inputs), s.inputs.limits,
                                s.journal, s.pending, s.approvals, "");
  };
  // The same journal under another program: its first call has other arguments.
  std::string changed = with_source("(tool/f {:a 3}) (tool/f {:a 2})");
  try {
    ptc::load(changed);
    ADD_FAILURE() << "a changed program replayed";
  } catch (ptc::LispError& err) {
    EXPECT_EQ(err.error().kind, ptc::ErrorKind::SnapshotDivergence);
    EXPECT_NE(err.error().message.find("other arguments"), std::string::npos)
        << err.error().message;
  }
  // A program that makes fewer calls than the journal holds.
  EXPECT_EQ(error_of([&] { ptc::load(with_source("(tool/f {:a 1})")); }),
            ptc::ErrorKind::SnapshotDivergence);
}

TEST(Snapshot, ReplayComparesArgumentsOfEveryKind) {
  // Each argument replays as itself (compared by its bytes, or by its key for
  // kinds the bytes are not compared for), and any change diverges.
  // Deeper than the byte comparison goes: compared by key.
  std::string deep = "{:deep " + std::string(40, '[') + "1" + std::string(40, ']') + "}";
  std::string deeper = "{:deep " + std::string(40, '[') + "2" + std::string(40, ']') + "}";
  std::vector<std::string> args = {
      deep,
      "{:a 1}",
      "{:a -7 :b 2.5 :c \"s\" :d :kw :e nil :f true :g [1 [2 {:h 3}]]}",
      "{\"a\" 1 :b {\"c\" [0.1 -0.0]}}",
      "{:s #{1 2 3} :big 123456789012345678901234567890}",
      "{1 :one [2] \"two\"}",
  };
  std::vector<std::string> changed = {
      deeper,
      "{:a 2}",
      "{:a -7 :b 2.5 :c \"s\" :d :kw :e nil :f true :g [1 [2 {:h 4}]]}",
      "{\"a\" 1 :b {\"c\" [0.2 -0.0]}}",
      "{:s #{1 2 4} :big 123456789012345678901234567890}",
      "{1 :one [2] \"three\"}",
  };
  for (size_t i = 0; i < args.size(); ++i) {
    SCOPED_TRACE(args[i]);
    std::string program = "(tool/f " + args[i] + ") (tool/f {})";
    Execution e = ptc::start(program, deferring({"f"}));
    ASSERT_FALSE(e.done()) << e.step().error.message;
    e.resume({{"c0", ToolResult::success(HostValue::integer(1))}});
    Execution same = ptc::load(e.dump());
    EXPECT_EQ(ids(same), std::vector<std::string>{"c1"});
    ptc::Snapshot s = ptc::decode_snapshot(e.dump(), "");
    s.inputs.source = "(tool/f " + changed[i] + ") (tool/f {})";
    std::string other =
        ptc::encode_snapshot(s.inputs.engine, ptc::encode_inputs(s.inputs), s.inputs.limits,
                             s.journal, s.pending, s.approvals, "");
    EXPECT_EQ(error_of([&] { ptc::load(other); }), ptc::ErrorKind::SnapshotDivergence);
  }
}

TEST(Equivalence, ProgramsEndAsRunEndsThem) {
  const char* programs[] = {
      "(tool/a {:x 1})",
      "(let [u (tool/a {:id 1})] (if (map? u) (:n u) u))",
      "(def total (reduce + (map #(let [r (tool/a {:i %})] (if (number? r) r 1)) (range 8))))",
      "(pmap #(tool/a {:i %}) (range 5))",
      "(pmap (fn [i] (let [a (tool/a {:i i}) b (tool/b {:a a})] [a b])) (range 3))",
      "(pcalls #(tool/a {}) #(tool/b {}) #(tool/a {:k 1}))",
      "(doseq [i (range 3)] (println (tool/a {:i i})))",
      "(tool/a {:fail true})",
      "(pmap #(tool/a {:fail (= % 2)}) (range 4))",
      "(for [x (range 3) :let [r (tool/a {:x x})]] r)",
      "(sort-by :n (map #(tool/b {:i %}) (range 4)))",
      "(loop [i 0 acc []] (if (< i 4) (recur (inc i) (conj acc (tool/a {:i i}))) acc))",
      "(defn f [x] (tool/a {:x x})) (pmap f [1 2]) (f 3)",
      "(return (tool/a {:done true}))",
      "(fail (tool/a {}))",
      // Found by fuzz_execution: ##NaN is not equal to itself, and the
      // harness compared values with ==.
      "##NaN",
      "(def x ##NaN) [x (tool/a {})]",
  };
  for (const char* p : programs)
    EXPECT_EQ(ptc::equivalence::check_program(p), "") << p;
}

}  // namespace
