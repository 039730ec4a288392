// The embedding API (include/ptc/ptc.hpp): options, Step, memory, tools,
// Session, limits with their reasons, parallel branches and telemetry.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "embedding/tool_broker.hpp"
#include "include/ptc/ptc.hpp"

namespace {

using ptc::ErrorKind;
using ptc::HostValue;
using ptc::RunOptions;
using ptc::Step;
using ptc::ToolResult;
using H = HostValue;

H map_of(std::vector<std::pair<std::string, H>> entries) {
  std::vector<std::pair<H, H>> out;
  for (auto& [k, v] : entries)
    out.emplace_back(H::string(k), std::move(v));
  return H::map(std::move(out));
}

// The memory a failed run hands back is exactly the memory passed in.
void expect_failed_with(const Step& s, ErrorKind kind, const RunOptions& o) {
  ASSERT_FALSE(s.ok) << s.printed;
  EXPECT_EQ(s.error.kind, kind) << s.error.describe();
  EXPECT_EQ(s.memory, o.memory);
  EXPECT_TRUE(s.value.is_nil());
}

RunOptions with_memory() {
  RunOptions o;
  o.memory = map_of({{"kept", H::integer(41)}});
  return o;
}

// ---------------------------------------------------------------- memory

TEST(Api, DefPersistsIntoMemoryAndMemoryIsRead) {
  RunOptions o = with_memory();
  Step s = ptc::run("(def total (+ kept 1)) (defonce once 5) total", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.value, H::integer(42));
  EXPECT_EQ(s.memory.get("kept")->as_int(), 41);
  EXPECT_EQ(s.memory.get("total")->as_int(), 42);
  EXPECT_EQ(s.memory.get("once")->as_int(), 5);
}

TEST(Api, FailedRunLeavesMemoryUnchanged) {
  RunOptions o = with_memory();
  Step s = ptc::run("(def kept 0) (def other 1) (/ 1 0)", o);
  expect_failed_with(s, ErrorKind::ArithmeticError, o);
}

TEST(Api, FunctionsInMemoryThatCannotBeRebuiltSaySo) {
  // Functions carry over (memory_functions_test.cpp) unless they captured a
  // value with no data form, such as a var.
  Step first = ptc::run("(def x 1) (let [v #'x] (defn f [] v)) (f)");
  ASSERT_TRUE(first.ok) << first.error.describe();
  RunOptions o;
  o.memory = first.memory;
  Step second = ptc::run("(f)", o);
  ASSERT_FALSE(second.ok);
  EXPECT_EQ(second.error.kind, ErrorKind::UnboundVar);
  EXPECT_NE(second.error.message.find("earlier run"), std::string::npos) << second.error.message;
  EXPECT_EQ(ptc::run("x", o).printed, "1");
}

// ---------------------------------------------------------------- session

TEST(Api, SessionKeepsMemoryAndHistoryAcrossThreeTurns) {
  ptc::Session session;
  Step a = session.eval("(def xs [1 2 3]) (count xs)");
  ASSERT_TRUE(a.ok) << a.error.describe();
  Step b = session.eval("(+ *1 (reduce + xs))");
  ASSERT_TRUE(b.ok) << b.error.describe();
  EXPECT_EQ(b.value, H::integer(9));
  Step c = session.eval("[*1 *2 *3 (count xs)]");
  ASSERT_TRUE(c.ok) << c.error.describe();
  EXPECT_EQ(c.printed, "[9 3 nil 3]");
  // A failed turn changes neither memory nor history.
  Step bad = session.eval("(def xs nil) (fail \"no\")");
  EXPECT_FALSE(bad.ok);
  Step d = session.eval("[*1 (count xs)]");
  EXPECT_EQ(d.printed, "[[9 3 nil 3] 3]");
  EXPECT_EQ(session.history().size(), 3u);
}

TEST(Api, TurnHistoryIsChronological) {
  RunOptions o;
  o.turn_history = {H::integer(1), H::integer(2), H::integer(3), H::integer(4)};
  EXPECT_EQ(ptc::run("[*1 *2 *3]", o).printed, "[4 3 2]");
}

// ---------------------------------------------------------------- context

TEST(Api, ContextFilteringImportsOnlyReadKeys) {
  RunOptions o;
  std::vector<H> many(20000, H::string("unused"));
  o.context = map_of({{"orders", H::vector({H::integer(1), H::integer(2)})},
                      {"users", H::vector(many)},
                      {"prompt", H::string("hi")}});
  Step filtered = ptc::run("[(count data/orders) data/prompt]", o);
  EXPECT_EQ(filtered.printed, "[2 \"hi\"]");
  o.filter_context = false;
  Step all = ptc::run("[(count data/orders) data/prompt]", o);
  EXPECT_EQ(all.printed, "[2 \"hi\"]");
  EXPECT_GT(all.usage.memory_bytes, filtered.usage.memory_bytes + 20000 * 16);
  EXPECT_EQ(ptc::run("(count data/users)", o).printed, "20000");
}

// ---------------------------------------------------------------- tools

RunOptions with_tools(std::atomic<int>* calls = nullptr) {
  RunOptions o;
  o.tools["get-user"] = {
      [calls](const H& args) {
        if (calls) ++*calls;
        const H* id = args.get("id");
        if (!id) return ToolResult::failure("id is required");
        return ToolResult::success(map_of({{"id", *id}, {"name", H::string("Ada")}}));
      },
      false};
  o.tools["search"] = {[calls](const H&) {
                         if (calls) ++*calls;
                         return ToolResult::success(H::string(std::string(40000, 'x')));
                       },
                       true};
  return o;
}

TEST(Api, ToolsAreCalledAndRecorded) {
  RunOptions o = with_tools();
  Step s = ptc::run("(:name (tool/get-user {:id 7}))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.value, H::string("Ada"));
  ASSERT_EQ(s.tool_calls.size(), 1u);
  EXPECT_EQ(s.tool_calls[0].name, "get-user");
  EXPECT_EQ(s.tool_calls[0].args, map_of({{"id", H::integer(7)}}));
  EXPECT_TRUE(s.tool_calls[0].error.empty());
}

TEST(Api, ToolErrorsAndUnknownToolsAreRuntimeErrors) {
  RunOptions o = with_tools();
  Step s = ptc::run("(tool/get-user {})", o);
  expect_failed_with(s, ErrorKind::ToolError, o);
  EXPECT_NE(s.error.message.find("id is required"), std::string::npos);
  ASSERT_EQ(s.tool_calls.size(), 1u);
  EXPECT_EQ(s.tool_calls[0].error, "id is required");
  Step u = ptc::run("(tool/get-usr {:id 1})", o);
  expect_failed_with(u, ErrorKind::UnknownTool, o);
  EXPECT_NE(u.error.hint.find("tool/get-user"), std::string::npos);
}

// A run's own cache is made at its first cacheable call, which parallel
// branches may make at once (the ThreadSanitizer build runs this too).
TEST(Api, PmapBranchesShareTheRunsToolCache) {
  std::atomic<int> calls{0};
  RunOptions o = with_tools(&calls);
  o.limits.pmap_max_concurrency = 8;
  Step s =
      ptc::run("(vec (pmap (fn [i] (count (tool/search {:q (str (mod i 2))}))) (range 16)))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed,
            "[40000 40000 40000 40000 40000 40000 40000 40000 40000 40000 40000 40000 40000 "
            "40000 40000 40000]");
  ASSERT_EQ(s.tool_calls.size(), 16u);
  int cached = 0;
  for (const auto& c : s.tool_calls)
    cached += c.cached ? 1 : 0;
  EXPECT_EQ(cached + calls.load(), 16);
  EXPECT_GE(calls.load(), 2);  // each argument was asked of the tool at least once
  // Without cacheable calls no cache is made, and nothing is cached.
  Step t = ptc::run("(:name (tool/get-user {:id 1}))", o);
  ASSERT_TRUE(t.ok) << t.error.describe();
  EXPECT_FALSE(t.tool_calls[0].cached);
}

TEST(Api, LedgerResultsAreBoundedAndCacheableToolsAnswerFromTheCache) {
  std::atomic<int> calls{0};
  RunOptions o = with_tools(&calls);
  Step s = ptc::run(
      "[(count (tool/search {:q \"a\" :opts {:x 1 :y 2.0}}))"
      " (count (tool/search {\"q\" \"a\" :opts {:y 2 :x 1}}))]",
      o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[40000 40000]");  // the program sees the whole result
  EXPECT_EQ(calls.load(), 1);
  ASSERT_EQ(s.tool_calls.size(), 2u);
  EXPECT_TRUE(s.tool_calls[1].cached);
  EXPECT_TRUE(s.tool_calls[0].result_truncated);
  EXPECT_LE(s.tool_calls[0].result.text().size(), 16384u);
}

TEST(Api, CanonicalArgsKeyIgnoresKeyKindOrderAndIntegralFloats) {
  H a = map_of({{"a", H::integer(1)}, {"b", map_of({{"c", H::floating(2.0)}})}});
  H b = H::map({{H::keyword("b"), H::map({{H::keyword("c"), H::integer(2)}})},
                {H::keyword("a"), H::integer(1)}});
  EXPECT_EQ(ptc::canonical_args_key(a), ptc::canonical_args_key(b));
  EXPECT_NE(ptc::canonical_args_key(a), ptc::canonical_args_key(map_of({{"a", H::integer(2)}})));
  // - and _ in names are one key (at every depth); values keep their text.
  EXPECT_EQ(
      ptc::canonical_args_key(map_of({{"was-improved", map_of({{"in-ner", H::integer(1)}})}})),
      ptc::canonical_args_key(map_of({{"was_improved", map_of({{"in_ner", H::integer(1)}})}})));
  EXPECT_NE(ptc::canonical_args_key(map_of({{"q", H::string("a-b")}})),
            ptc::canonical_args_key(map_of({{"q", H::string("a_b")}})));
  // Arguments that are not a map never share a key with a map.
  EXPECT_NE(ptc::canonical_args_key(H::vector({})), ptc::canonical_args_key(H::map({})));
  EXPECT_EQ(ptc::canonical_args_key(H::vector({H::floating(1.0)})),
            ptc::canonical_args_key(H::vector({H::integer(1)})));
}

TEST(Api, ContextAsJsonTextIsReadStraightIntoTheRun) {
  std::string json =
      R"j({"orders":[{"id":1,"total":9.5},{"id":2,"total":20}],"unread":[1,2,3],"label":"q3",)j"
      R"j("big":123456789012345678901234567890,"nested":{"a":{"b":[true,null]}}})j";
  RunOptions o;
  o.context_json = json;
  Step s = ptc::run("[(reduce + (map :total data/orders)) data/label data/big data/nested]", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[29.5 \"q3\" 123456789012345678901234567890 {\"a\" {\"b\" [true nil]}}]");
  // The same program over the same context given as a host tree prints the same.
  RunOptions h;
  h.context = ptc::parse_json(json);
  EXPECT_EQ(
      ptc::run("[(reduce + (map :total data/orders)) data/label data/big data/nested]", h).printed,
      s.printed);
  EXPECT_EQ(ptc::run("(count data/unread)", o).printed, "3");
  RunOptions bad;
  bad.context_json = "[1,2]";
  EXPECT_EQ(ptc::run("1", bad).error.kind, ErrorKind::ArgsError);
  bad.context_json = "{\"a\": [1,}";
  Step p = ptc::run("1", bad);
  EXPECT_EQ(p.error.kind, ErrorKind::ParseError);
  EXPECT_NE(p.error.message.find("line 1"), std::string::npos) << p.error.message;
}

TEST(Api, ToolsAreCheckedBeforeTheProgramRuns) {
  int calls = 0;
  RunOptions o;
  o.tools["ok"] = {[&](const H&) {
    ++calls;
    return ToolResult::success(H::nil());
  }};
  // The unknown call is never reached, yet the program is rejected before
  // the known tool runs.
  Step s = ptc::run("(tool/ok {})\n(if false (tool/nope {}) 1)", o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::UnknownTool);
  EXPECT_EQ(s.error.loc.line, 2u);
  EXPECT_EQ(s.error.loc.col, 11u);
  EXPECT_EQ(s.error.hint, "available tools: tool/ok");
  EXPECT_EQ(calls, 0);
  o.unavailable_tools["search"] = "it is exposed to the model natively only";
  Step t = ptc::run("(tool/search {:q 1})", o);
  EXPECT_EQ(t.error.kind, ErrorKind::UnknownTool);
  EXPECT_EQ(t.error.message,
            "tool/search cannot be called from programs: it is exposed to the model natively only");
}

TEST(Api, SharedToolCacheAnswersLaterRuns) {
  int calls = 0;
  RunOptions o;
  o.tools["lookup"] = {[&](const H& args) {
                         ++calls;
                         return ToolResult::success(H::integer(args.get("n")->as_int() * 10));
                       },
                       true};
  o.tool_cache = std::make_shared<ptc::ToolCache>();
  // A host (an agent's native call) seeds the cache under the canonical key.
  o.tool_cache->store("lookup", ptc::canonical_args_key(map_of({{"n", H::integer(4)}})),
                      H::integer(99));
  Step s = ptc::run("[(tool/lookup {:n 4.0}) (tool/lookup {:n 5})]", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[99 50]");
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(s.tool_calls[0].cached);
  Step t = ptc::run("(tool/lookup {:n 5})", o);
  EXPECT_EQ(t.printed, "50");
  EXPECT_EQ(calls, 1) << "the second run is answered from the shared cache";
  EXPECT_EQ(o.tool_cache->size(), 2u);
}

TEST(Api, MaxToolCalls) {
  RunOptions o = with_tools();
  o.limits.max_tool_calls = 2;
  Step s = ptc::run("(doseq [i (range 5)] (tool/get-user {:id i}))", o);
  expect_failed_with(s, ErrorKind::ToolCallLimitExceeded, o);
  EXPECT_EQ(s.tool_calls.size(), 2u);
}

// ---------------------------------------------------------------- limits

// Each limit exceeded by a hostile program: limit_cases_test.cpp.

TEST(Api, StepSaysWhetherTheProgramReturnedEarly) {
  Step s = ptc::run("(return 5) 6");
  ASSERT_TRUE(s.ok);
  EXPECT_TRUE(s.returned);
  EXPECT_EQ(s.value, H::integer(5));
  Step t = ptc::run("(do 5 6)");
  ASSERT_TRUE(t.ok);
  EXPECT_FALSE(t.returned);
  EXPECT_EQ(t.value, H::integer(6));
}

TEST(Api, FailHandsTheHostItsValueAsData) {
  RunOptions o = with_memory();
  Step s = ptc::run("(def kept 0) (fail {:reason :not-found :ids [1 2]})", o);
  expect_failed_with(s, ErrorKind::Fail, o);
  EXPECT_EQ(s.fail_value, H::map({{H::keyword("reason"), H::keyword("not-found")},
                                  {H::keyword("ids"), H::vector({H::integer(1), H::integer(2)})}}));
  EXPECT_EQ(s.error.fail_value, "{:reason :not-found :ids [1 2]}");
  // Other failures carry none.
  EXPECT_TRUE(ptc::run("(/ 1 0)").fail_value.is_nil());
}

TEST(Api, PrintsAreCutAtMaxPrintLength) {
  RunOptions o;
  o.limits.max_print_length = 5;
  Step s = ptc::run("(println \"abcdefghij\") 1", o);
  ASSERT_EQ(s.prints.size(), 1u);
  EXPECT_EQ(s.prints[0], "abcde...");
}

// ---------------------------------------------------------------- options

TEST(Api, FloatPrecisionRoundsTheResult) {
  RunOptions o;
  o.float_precision = 2;
  Step s = ptc::run("{:a (/ 10 3) :b [1.23456]}", o);
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.printed, "{:a 3.33 :b [1.23]}");
  EXPECT_DOUBLE_EQ(s.value.get("a")->as_float(), 3.33);
}

TEST(Api, BudgetRemainingReadsTheBudgetOption) {
  RunOptions o;
  EXPECT_EQ(ptc::run("(budget/remaining)", o).printed, "{}");
  o.budget = H::map({{H::keyword("turns"), H::integer(10)}});
  EXPECT_EQ(ptc::run("(:turns (budget/remaining))", o).printed, "10");
}

TEST(Api, SignatureValidatesTheResult) {
  RunOptions o = with_memory();
  o.signature = "{total :int}";
  EXPECT_TRUE(ptc::run("{:total 3}", o).ok);
  Step s = ptc::run("{:total \"many\"}", o);
  expect_failed_with(s, ErrorKind::ValidationError, o);
  o.signature = "{total";
  expect_failed_with(ptc::run("{:total 3}", o), ErrorKind::ParseError, o);
}

TEST(Api, ValidateListsUndefinedNames) {
  EXPECT_TRUE(ptc::validate("(and (map? data/result) (> (count data/result) 0))").empty());
  EXPECT_EQ(ptc::validate("(and (map? foo) (bar 1) foo)"),
            (std::vector<std::string>{"foo", "bar"}));
  EXPECT_TRUE(ptc::validate("(let [x 1] (> x 0))").empty());
  RunOptions o = with_memory();
  EXPECT_TRUE(ptc::validate("(inc kept)", o).empty());
  EXPECT_EQ(ptc::validate("(+ 1").size(), 1u);
}

TEST(Api, FormatValueAndFormatError) {
  bool truncated = false;
  EXPECT_EQ(
      ptc::format_value(H::vector({H::integer(1), H::integer(2), H::integer(3)}), 2, &truncated),
      "[1 2 ...] (2/3)");
  EXPECT_TRUE(truncated);
  Step s = ptc::run("(+ 1 \"a\")");
  EXPECT_EQ(ptc::format_error(s.error).rfind("type_error at 1:1", 0), 0u);
}

TEST(Api, TelemetryReportsStartAndStop) {
  std::vector<ptc::TelemetryEvent> events;
  RunOptions o;
  o.caller = "mcp";
  o.profile = "mcp_no_tools";
  o.trace_context = map_of({{"trace_id", H::string("t1")}});
  o.telemetry = [&](const ptc::TelemetryEvent& e) { events.push_back(e); };
  ptc::run("(println 1) [1 2]", o);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, ptc::TelemetryEvent::Kind::Start);
  EXPECT_EQ(events[1].kind, ptc::TelemetryEvent::Kind::Stop);
  EXPECT_EQ(events[1].caller, "mcp");
  EXPECT_EQ(events[1].profile, "mcp_no_tools");
  EXPECT_EQ(events[1].program_bytes, 17u);
  EXPECT_EQ(events[1].prints_count, 1u);
  EXPECT_EQ(events[1].result_bytes, 5u);
  EXPECT_EQ(events[1].trace_context.get("trace_id")->text(), "t1");
  events.clear();
  o.signature = "{x";
  ptc::run("1", o);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[1].signature_supplied);
  EXPECT_EQ(events[1].reason, "parse_error");
}

// ---------------------------------------------------------------- parallel

TEST(Api, PmapRunsToolCallsConcurrently) {
  RunOptions o;
  o.tools["slow"] = {[](const H& args) {
                       std::this_thread::sleep_for(std::chrono::milliseconds(20));
                       return ToolResult::success(*args.get("i"));
                     },
                     false};
  o.limits.timeout_ms = 5000;
  o.limits.pmap_max_concurrency = 16;
  auto t0 = std::chrono::steady_clock::now();
  Step s = ptc::run("(reduce + (pmap #(tool/slow {:i %}) (range 64)))", o);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.value, H::integer(2016));
  EXPECT_EQ(s.tool_calls.size(), 64u);
  ASSERT_EQ(s.pmap_calls.size(), 1u);
  EXPECT_EQ(s.pmap_calls[0].success_count, 64u);
  EXPECT_LT(ms, 64 * 20 / 2) << "sequential would take 1280 ms";
}

TEST(Api, BranchesKeepOrderAndIsolateDefs) {
  Step s = ptc::run("(def x 1) [(pmap (fn [i] (def x i) (* i i)) (range 10)) x]");
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "[[0 1 4 9 16 25 36 49 64 81] 1]");
  Step p = ptc::run("(pcalls (fn [] (println \"a\") :a) (fn [] (println \"b\") {:k [1 \"s\"]}))");
  EXPECT_EQ(p.printed, "[:a {:k [1 \"s\"]}]");
  EXPECT_EQ(p.prints, (std::vector<std::string>{"a", "b"}));
}

TEST(Api, BranchFailureEndsTheCall) {
  RunOptions o = with_memory();
  Step s = ptc::run("(pmap (fn [i] (if (= i 5) (fail \"five\") i)) (range 10))", o);
  expect_failed_with(s, ErrorKind::Fail, o);
  EXPECT_EQ(s.error.message, "five");
  Step t = ptc::run("(pmap (fn [i] (loop [] (recur))) (range 3))", o);
  EXPECT_FALSE(t.ok);
}

TEST(Api, PmapTimeoutBoundsTheBranches) {
  RunOptions o = with_memory();
  o.limits.timeout_ms = 5000;
  o.limits.pmap_timeout_ms = 50;
  o.tools["slow"] = {[](const H&) {
                       std::this_thread::sleep_for(std::chrono::milliseconds(20));
                       return ToolResult::success(H::nil());
                     },
                     false};
  auto t0 = std::chrono::steady_clock::now();
  Step s = ptc::run("(pmap (fn [i] (doseq [j (range 100)] (tool/slow {}))) (range 2))", o);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  expect_failed_with(s, ErrorKind::Timeout, o);
  EXPECT_NE(s.error.message.find("parallel branch"), std::string::npos) << s.error.message;
  EXPECT_LT(ms, 1000);
}

// attempt_us: a host's short try in place. A run that does not finish in
// time ends as a timeout long before its own timeout, compiled or not, its
// parallel branches too; one that does is untouched.
TEST(Api, AttemptBoundEndsALongRunEarlyAndLeavesAShortOneAlone) {
  const char* endless = "(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 40)";
  RunOptions o;
  o.limits.timeout_ms = 60000;
  o.attempt_us = 2000;
  auto timed = [&](auto&& run) {
    auto t0 = std::chrono::steady_clock::now();
    Step s = run();
    EXPECT_EQ(s.error.kind, ErrorKind::Timeout) << s.error.message;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  EXPECT_LT(timed([&] { return ptc::run(endless, o); }), 30000);
  auto program = ptc::compile(endless, o);
  EXPECT_LT(timed([&] { return ptc::run(*program, o); }), 30000);
  EXPECT_LT(
      timed([&] {
        return ptc::run(
            "(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (pmap fib [40 40])", o);
      }),
      30000);
  Step quick = ptc::run("(reduce + (range 100))", o);
  ASSERT_TRUE(quick.ok) << quick.error.message;
  EXPECT_EQ(quick.value.as_int(), 4950);
}

TEST(Api, PmapMaxConcurrencyIsTheWindow) {
  std::atomic<int> in_flight{0}, peak{0};
  RunOptions o;
  o.limits.timeout_ms = 5000;
  o.limits.pmap_max_concurrency = 3;
  o.tools["probe"] = {[&](const H&) {
                        int now = ++in_flight;
                        int seen = peak.load();
                        while (now > seen && !peak.compare_exchange_weak(seen, now)) {}
                        std::this_thread::sleep_for(std::chrono::milliseconds(10));
                        --in_flight;
                        return ToolResult::success(H::nil());
                      },
                      false};
  Step s = ptc::run("(count (pmap (fn [i] (tool/probe {})) (range 12)))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_LE(peak.load(), 3);
  EXPECT_GE(peak.load(), 2);
}

TEST(Api, ClosuresReturnedByBranchesStayCallable) {
  Step s = ptc::run("(map (fn [f] (f 10)) (pmap (fn [i] (fn [x] (+ x i))) (range 3)))");
  EXPECT_EQ(s.printed, "[10 11 12]");
}

// ---------------------------------------------------------------- threads

TEST(Api, ConcurrentRunsGiveTheSameResults) {
  const char* programs[] = {
      "(reduce + (map inc (range 100)))",     "(->> [{:a 1} {:a 2}] (map :a) (filter odd?) vec)",
      "(str/join \",\" (map str (range 5)))", "(pmap inc [1 2 3])",
      "(def m {:x 1}) (assoc m :y 2)",        "(/ 1 0)",
  };
  std::vector<std::string> expected;
  for (const char* p : programs) {
    Step s = ptc::run(p);
    expected.push_back(s.ok ? s.printed : s.error.describe());
  }
  std::atomic<int> mismatches{0};
  auto worker = [&] {
    for (int i = 0; i < 10000; ++i) {
      size_t k = static_cast<size_t>(i) % std::size(programs);
      Step s = ptc::run(programs[k]);
      if ((s.ok ? s.printed : s.error.describe()) != expected[k]) ++mismatches;
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
