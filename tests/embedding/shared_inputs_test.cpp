// Compiled programs, prepared contexts and the program cache: a run over them
// gives what run(source) with a parsed context gives, many runs and threads
// share them without writing into them, and a run's heap limit does not
// count them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"
#include "runtime/freeze.hpp"
#include "runtime/sanitizers.hpp"
#include "runtime/vector.hpp"

namespace {

using ptc::ErrorKind;
using ptc::HostValue;
using ptc::RunOptions;
using ptc::Step;
using H = HostValue;

constexpr std::string_view kOrders =
    R"({"orders":[{"id":1,"total":88,"tags":["a"]},{"id":2,"total":12,"tags":[]},)"
    R"({"id":3,"total":40,"tags":["b","a"]}],"xs":[1,2,3],"owner":"ann","unused":{"k":1}})";

// The printed result, or the error's description.
std::string outcome(const Step& s) {
  return s.ok ? s.printed : "error " + s.error.describe();
}

TEST(CompiledProgram, RunsLikeTheSourceWithEveryKindOfContext) {
  const char* programs[] = {
      "(->> data/orders (filter #(> (:total %) 20)) (map :id))",
      "(group-by #(count (:tags %)) data/orders)",
      "[data/owner (count data/xs) (get-in data/orders [2 :tags 0])]",
      "(reduce (fn [m o] (update m (:total o) (fnil inc 0))) {} data/orders)",
      "(conj data/xs 4)",
      "(def n 3) (defn f [x] (* x n)) (f 14)",
      "(:missing data/orders)",
      "(nth data/xs 10)",
  };
  auto prepared = ptc::prepare_context(kOrders);
  for (const char* source : programs) {
    SCOPED_TRACE(source);
    RunOptions host;
    host.context = ptc::parse_json(kOrders);
    Step expected = ptc::run(source, host);
    auto program = ptc::compile(source, host);
    EXPECT_EQ(ptc::program_source(*program), source);
    RunOptions json;
    json.context_json = kOrders;
    RunOptions shared;
    shared.prepared_context = prepared;
    for (const RunOptions* o : {&host, &json, &shared}) {
      EXPECT_EQ(outcome(ptc::run(*program, *o)), outcome(expected));
      EXPECT_EQ(outcome(ptc::run(source, *o)), outcome(expected));
    }
  }
}

TEST(CompiledProgram, CompileErrorsAreTheRunsErrors) {
  for (const char* source : {"(+ 1", "(undefined-fn 1)", "(tool/nope {})", "(let [x] x)"}) {
    SCOPED_TRACE(source);
    Step s = ptc::run(source);
    ASSERT_FALSE(s.ok);
    try {
      (void)ptc::compile(source);
      ADD_FAILURE() << "compiled";
    } catch (ptc::LispError& e) {
      EXPECT_EQ(e.error().describe(), s.error.describe());
    }
  }
}

TEST(CompiledProgram, MemoryNamesAndFunctionsCarryOver) {
  ptc::Session session;
  ASSERT_TRUE(session.eval("(def base 10) (defn add-base [x] (+ x base))").ok);
  RunOptions o;
  o.memory = session.memory();
  // Compiled with the memory's names; the memory holds a function the
  // program reads, so the run compiles the source with it.
  auto program = ptc::compile("(add-base base)", o);
  Step s = ptc::run(*program, o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "20");
  // Plain data in memory is read from the compiled program as it is.
  RunOptions data;
  data.memory = HostValue::map({{H::string("n"), H::integer(5)}});
  auto times = ptc::compile("(def m (* n 2)) m", data);
  Step t = ptc::run(*times, data);
  ASSERT_TRUE(t.ok) << t.error.describe();
  EXPECT_EQ(t.printed, "10");
  EXPECT_EQ(t.memory.get("m")->as_int(), 10);
  // A name the program reads that the run's memory lacks is unbound.
  Step unbound = ptc::run(*times, {});
  EXPECT_FALSE(unbound.ok);
}

TEST(CompiledProgram, KeywordsOfTheProgramMatchTheRunsKeywords) {
  // (keyword "total") is interned by the run; :total is the program's.
  auto program = ptc::compile("(let [k (keyword \"total\")] [(= k :total) (get {:total 5} k)])");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(outcome(ptc::run(*program)), "[true 5]");
}

TEST(CompiledProgram, ItsKeywordsCountAgainstTheRunsSymbolLimit) {
  RunOptions o;
  o.limits.max_symbols = 5;
  const char* source = "[:a :b :c (keyword \"x\") (keyword \"y\") (keyword \"z\")]";
  EXPECT_EQ(ptc::run(source, o).error.kind, ErrorKind::SymbolLimit);
  auto program = ptc::compile(source, o);
  EXPECT_EQ(ptc::run(*program, o).error.kind, ErrorKind::SymbolLimit);
  EXPECT_EQ(outcome(ptc::run(*ptc::compile("[:a :b :c (keyword \"x\") (keyword \"a\")]", o), o)),
            "[:a :b :c :x :a]");
}

TEST(CompiledProgram, LiteralVectorsAreNotAppendedToInPlace) {
  auto program = ptc::compile("(let [v [1 2 3]] [(conj v :a) (conj v :b) v])");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(outcome(ptc::run(*program)), "[[1 2 3 :a] [1 2 3 :b] [1 2 3]]");
}

TEST(Freeze, TurnsOffAppendingInPlace) {
  ptc::Limits limits;
  ptc::Ctx ctx(limits);
  auto two = [&ctx] {
    const ptc::VecObj* v = ptc::vec_conj(ctx.arena, ptc::empty_vector(), ptc::Value::integer(1));
    return ptc::vec_conj(ctx.arena, v, ptc::Value::integer(2));
  };
  const ptc::VecObj* v = two();
  // Before freezing, conj on the owner of the tail's end appends in place.
  const ptc::VecObj* before = ptc::vec_conj(ctx.arena, v, ptc::Value::integer(3));
  EXPECT_EQ(before->tail, v->tail);
  const ptc::VecObj* w = two();
  ptc::Value nested[] = {ptc::Value::object(w)};
  const ptc::VecObj* outer = ptc::vec_from(ctx.arena, nested, 1);
  ptc::freeze(ptc::Value::object(outer));
  const ptc::VecObj* after = ptc::vec_conj(ctx.arena, w, ptc::Value::integer(3));
  EXPECT_NE(after->tail, w->tail);
  EXPECT_EQ(w->count, 2u);
}

TEST(PreparedContext, RunsShareItWithoutChangingIt) {
  RunOptions o;
  o.prepared_context = ptc::prepare_context(kOrders);
  EXPECT_EQ(outcome(ptc::run("(conj data/xs 4)", o)), "[1 2 3 4]");
  EXPECT_EQ(outcome(ptc::run("(conj data/xs 5)", o)), "[1 2 3 5]");
  EXPECT_EQ(outcome(ptc::run("(assoc (first data/orders) \"total\" 0)", o)),
            "{\"id\" 1 \"total\" 0 \"tags\" [\"a\"]}");
  EXPECT_EQ(outcome(ptc::run("[data/xs (:total (first data/orders))]", o)), "[[1 2 3] 88]");
}

TEST(PreparedContext, FromHostValuesToo) {
  RunOptions o;
  o.prepared_context = ptc::prepare_context(ptc::parse_json(kOrders));
  EXPECT_EQ(outcome(ptc::run("(map :id data/orders)", o)), "[1 2 3]");
}

TEST(PreparedContext, IsNotChargedToTheRunsHeap) {
  std::string big = R"({"rows":[)";
  for (int i = 0; i < 20000; ++i)
    big += (i ? "," : "") + std::string(R"({"name":"row-)") + std::to_string(i) + R"(","n":1})";
  big += "]}";
  RunOptions o;
  o.limits.max_heap_bytes = 256 * 1024;
  o.context_json = big;
  Step copied = ptc::run("(count data/rows)", o);
  EXPECT_EQ(copied.error.kind, ErrorKind::MemoryLimit) << outcome(copied);
  auto prepared = ptc::prepare_context(big);
  EXPECT_GT(ptc::prepared_bytes(*prepared), size_t{256 * 1024});
  o.prepared_context = prepared;
  EXPECT_EQ(outcome(ptc::run("(count data/rows)", o)), "20000");
  // Building from it is charged as usual.
  EXPECT_EQ(ptc::run("(mapv :name data/rows)", o).error.kind, ErrorKind::MemoryLimit);
}

TEST(PreparedContext, BadInputIsAPreciseError) {
  try {
    (void)ptc::prepare_context(R"({"a": [1, 2,)");
    ADD_FAILURE() << "prepared";
  } catch (ptc::LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::ParseError);
    EXPECT_TRUE(e.error().loc.line > 0) << e.error().describe();
  }
  for (std::string_view json : {"[1,2]", "3", "\"x\""}) {
    try {
      (void)ptc::prepare_context(json);
      ADD_FAILURE() << json;
    } catch (ptc::LispError& e) {
      EXPECT_EQ(e.error().kind, ErrorKind::ArgsError) << json;
    }
  }
  try {
    (void)ptc::prepare_context(kOrders, 64);
    ADD_FAILURE() << "over its cap";
  } catch (ptc::LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::MemoryLimit);
  }
}

// Under TSan this is the check that shared programs and contexts are only read.
TEST(SharedInputs, ManyThreadsRunOneProgramOverOneContext) {
  auto prepared = ptc::prepare_context(kOrders);
  const char* source =
      "(let [g (group-by #(> (:total %) 20) data/orders)"
      "      s (set (mapcat :tags data/orders))]"
      "  [(count (get g true)) (contains? s \"a\") (conj data/xs 9) (hash-map :k [1 2])"
      "   (pmap #(* % 2) data/xs)"
      // a function made when compiling (a program constant), and a reduce
      // writing its own accumulator in place
      "   (conj ((constantly [1 2])) 3)"
      "   (reduce (fn [m o] (update m (> (:total o) 20) (fnil inc 0))) {} data/orders)])";
  auto program = ptc::compile(source);
  RunOptions o;
  o.prepared_context = prepared;
  std::string expected = outcome(ptc::run(source, o));
  ASSERT_EQ(expected, "[2 true [1 2 3 9] {:k [1 2]} [2 4 6] [1 2 3] {true 2 false 1}]");
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 300; ++i)
        if (outcome(ptc::run(*program, o)) != expected) ++wrong;
    });
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A compiled program's functions are printed for memory once and kept with
// the program: every run, on any thread, exports the same restorer text, and
// a run of the kept text gives the functions back (under TSan: one printing).
TEST(SharedInputs, ManyThreadsExportOneProgramsFunctions) {
  const char* source =
      "(defn twice [x] (* x 2)) (def add3 (let [k 3] (fn [y] (+ y k)))) (twice (add3 1))";
  auto program = ptc::compile(source);
  auto factories = [](const Step& s) {
    std::string out;
    for (const char* name : {"twice", "add3"}) {
      const HostValue* v = s.memory.get(name);
      if (!v || !v->restorer()) return std::string("no restorer for ") + name;
      out += v->restorer()->factory + "\n";
    }
    return out;
  };
  Step first = ptc::run(source);
  ASSERT_TRUE(first.ok) << first.error.describe();
  std::string expected = factories(first);
  EXPECT_EQ(expected,
            "(fn [] (fn twice [x] (* x 2)))\n"
            "(fn [k] (fn [y] (+ y k)))\n");
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        Step s = ptc::run(*program);
        if (!s.ok || s.printed != "8" || factories(s) != expected) ++wrong;
      }
    });
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
  // The kept text rebuilds the functions in a later run.
  RunOptions later;
  later.memory = first.memory;
  Step again = ptc::run("[(twice 5) (add3 1)]", later);
  EXPECT_EQ(outcome(again), "[10 4]");
}

[[maybe_unused]] size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Runs leave nothing behind: after warming up, many more runs of a compiled
// program over a prepared context do not grow the process.
TEST(SharedInputs, ResidentMemoryStaysFlatOverManyRuns) {
#if defined(PTC_SANITIZER_ADDRESS) || defined(PTC_SANITIZER_THREAD)
  GTEST_SKIP() << "the sanitizers keep freed memory in quarantine";
#else
  RunOptions o;
  o.prepared_context = ptc::prepare_context(kOrders);
  auto program = ptc::compile("(mapv #(assoc % :seen true) data/orders)", o);
  auto runs = [&](int n) {
    for (int i = 0; i < n; ++i)
      ASSERT_TRUE(ptc::run(*program, o).ok);
  };
  runs(20000);
  size_t warm = resident_bytes();
  runs(200000);
  size_t after = resident_bytes();
  EXPECT_LT(after, warm + (size_t{2} << 20)) << "warm " << warm << " after " << after;
#endif
}

TEST(ProgramCache, CompilesOncePerSourceAndOptions) {
  ptc::ProgramCache cache(2);
  RunOptions o;
  auto program = cache.get("(+ 1 2)", o);
  EXPECT_EQ(cache.get("(+ 1 2)", o), program);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 1u);
  // The memory's names shape compilation: another entry.
  RunOptions with_n;
  with_n.memory = HostValue::map({{H::string("n"), H::integer(1)}});
  EXPECT_NE(cache.get("(+ 1 2)", with_n), program);
  EXPECT_EQ(cache.size(), 2u);
  // Least recently used goes first.
  (void)cache.get("(* 2 3)", o);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(cache.get("(+ 1 2)", o), program);
  EXPECT_EQ(cache.misses(), 4u);
  // A source that does not compile is thrown each time, never kept.
  EXPECT_THROW((void)cache.get("(+ 1", o), ptc::LispError);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ProgramCache, RunKeepsASourceFromItsSecondRun) {
  ptc::ProgramCache cache;
  RunOptions o;
  EXPECT_EQ(outcome(cache.run("(+ 1 2)", o)), "3");  // once: run as is, not kept
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(outcome(cache.run("(+ 1 2)", o)), "3");  // twice: compiled and kept
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(outcome(cache.run("(+ 1 2)", o)), "3");
  EXPECT_EQ(cache.hits(), 1u);
  // Many programs that each run once leave nothing behind.
  for (int i = 0; i < 2000; ++i)
    EXPECT_EQ(outcome(cache.run("(+ 1 " + std::to_string(i) + ")", o)), std::to_string(i + 1));
  EXPECT_EQ(cache.size(), 1u);
  // Errors are the run's, every time.
  EXPECT_EQ(cache.run("(+ 1", o).error.kind, ErrorKind::ParseError);
  EXPECT_EQ(cache.run("(+ 1", o).error.kind, ErrorKind::ParseError);
  EXPECT_EQ(cache.run("(+ 1", o).error.kind, ErrorKind::ParseError);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ProgramCache, ToolsShapeCompilation) {
  ptc::ProgramCache cache;
  RunOptions none;
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(cache.run("(tool/echo {:x 1})", none).error.kind, ErrorKind::UnknownTool);
  RunOptions with_echo;
  with_echo.tools["echo"] = {[](const HostValue& a) { return ptc::ToolResult::success(a); }};
  (void)cache.run("(tool/echo {:x 1})", with_echo);
  Step s = cache.run("(tool/echo {:x 1})", with_echo);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.printed, "{\"x\" 1}");
}

}  // namespace
