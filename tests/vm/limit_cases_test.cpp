// One GoogleTest per limit and per checked option: a hostile program (or a bad
// option) must end with that limit's own reason, hand back the memory it was
// given although it def'd before failing, and leave the host able to run the
// next program.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "include/ptc/ptc.hpp"

namespace {

using ptc::ErrorKind;
using ptc::RunOptions;
using ptc::Step;
using H = ptc::HostValue;

struct LimitCase {
  const char* name;
  std::string program;  // runs after "(def kept 0) (def fresh 1) "
  void (*set)(RunOptions&);
  ErrorKind reason;
};

std::string many_forms(int n) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += "(+ 1 2) ";
  return s;
}

std::string nested(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

ptc::ToolResult slow_tool(const H&) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return ptc::ToolResult::success(H::nil());
}

const LimitCase kLimits[] = {
    {"timeout", "(defn f [n] (if (= n 0) 0 (+ (f (dec n)) (f (dec n))))) (f 40)",
     [](RunOptions& o) { o.limits.timeout_ms = 50; }, ErrorKind::Timeout},
    {"compile_timeout", many_forms(100000), [](RunOptions& o) { o.limits.compile_timeout_ms = 1; },
     ErrorKind::Timeout},
    {"max_heap", "(count (vec (range 1000000)))",
     [](RunOptions& o) { o.limits.max_heap_bytes = 100000; }, ErrorKind::MemoryLimit},
    {"worker_max_heap", "(pmap (fn [i] (count (vec (range 100000)))) (range 2))",
     [](RunOptions& o) { o.limits.worker_max_heap_bytes = 100000; }, ErrorKind::MemoryLimit},
    {"max_symbols", "(count (map #(keyword (str \"k\" %)) (range 5000)))",
     [](RunOptions& o) { o.limits.max_symbols = 100; }, ErrorKind::SymbolLimit},
    {"max_program_bytes", "(+ 1 2)", [](RunOptions& o) { o.limits.max_program_bytes = 30; },
     ErrorKind::ProgramTooLarge},
    {"loop_limit", "(loop [i 0] (recur (inc i)))", [](RunOptions& o) { o.limits.loop_limit = 10; },
     ErrorKind::LoopLimitExceeded},
    {"max_call_depth", "(defn down [n] (if (= n 0) 0 (inc (down (dec n))))) (down 1000)",
     [](RunOptions& o) { o.limits.max_call_depth = 100; }, ErrorKind::CallDepthExceeded},
    {"max_nesting_depth", nested(50), [](RunOptions& o) { o.limits.max_nesting_depth = 20; },
     ErrorKind::ParseError},
    {"max_tool_calls", "(doseq [i (range 5)] (tool/slow {:i i}))",
     [](RunOptions& o) { o.limits.max_tool_calls = 2; }, ErrorKind::ToolCallLimitExceeded},
    {"pmap_timeout", "(pmap (fn [i] (doseq [j (range 100)] (tool/slow {}))) (range 2))",
     [](RunOptions& o) {
       o.limits.timeout_ms = 5000;
       o.limits.pmap_timeout_ms = 50;
     },
     ErrorKind::Timeout},
    {"max_parallel_workers", "(pmap (fn [i] (pmap inc (range 4))) (range 4))",
     [](RunOptions& o) {
       o.limits.max_parallel_workers = 4;
       o.limits.pmap_max_concurrency = 4;
     },
     ErrorKind::ParallelCapacityExceeded},
    // Options the run checks before it starts.
    {"caller", "1", [](RunOptions& o) { o.caller = "cli"; }, ErrorKind::ArgsError},
    {"profile", "1", [](RunOptions& o) { o.profile = "admin"; }, ErrorKind::ArgsError},
    {"signature_syntax", "1", [](RunOptions& o) { o.signature = "{a :int"; },
     ErrorKind::ParseError},
    {"signature_mismatch", "{:total \"many\"}", [](RunOptions& o) { o.signature = "{total :int}"; },
     ErrorKind::ValidationError},
    {"float_precision", "1.5", [](RunOptions& o) { o.float_precision = -1; }, ErrorKind::ArgsError},
    {"context", "1", [](RunOptions& o) { o.context = H::vector({}); }, ErrorKind::ArgsError},
    {"tools", "(tool/missing {})", [](RunOptions&) {}, ErrorKind::UnknownTool},
};

void PrintTo(const LimitCase& c, std::ostream* os) {
  *os << c.name;
}

class EachLimit : public ::testing::TestWithParam<LimitCase> {};

TEST_P(EachLimit, FailsWithItsReasonAndChangesNothing) {
  const LimitCase& c = GetParam();
  RunOptions o;
  o.memory = H::map({{H::string("kept"), H::integer(41)}});
  o.tools["slow"] = {slow_tool, false};
  c.set(o);
  // Every program defs before it fails, except the one the reader refuses.
  std::string program = c.name == std::string("max_nesting_depth")
                            ? c.program
                            : "(def kept 0) (def fresh 1) " + c.program;
  Step s = ptc::run(program, o);
  ASSERT_FALSE(s.ok) << s.printed;
  EXPECT_EQ(s.error.kind, c.reason) << s.error.describe();
  EXPECT_FALSE(s.error.message.empty());
  EXPECT_EQ(s.memory, o.memory) << "a failed run must hand back the memory it was given";
  EXPECT_TRUE(s.value.is_nil());

  // The host is unharmed: the next run in this process works normally.
  RunOptions next;
  next.memory = s.memory;
  Step after = ptc::run("(+ kept 1)", next);
  ASSERT_TRUE(after.ok) << after.error.describe();
  EXPECT_EQ(after.value, H::integer(42));
}

INSTANTIATE_TEST_SUITE_P(Api, EachLimit, ::testing::ValuesIn(kLimits),
                         [](const ::testing::TestParamInfo<LimitCase>& param) {
                           return std::string(param.param.name);
                         });

}  // namespace
