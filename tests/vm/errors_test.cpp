// Errors: each has the right reason, a location, and a message that names the
// problem; analysis errors are reported before anything runs.
#include <gtest/gtest.h>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

struct ErrCase {
  const char* program;
  ErrorKind kind;
  uint32_t line, col;
  const char* message_part;
};

void check_errors(std::initializer_list<ErrCase> cases) {
  for (const ErrCase& c : cases) {
    ptc::Error e = eval_error(c.program);
    EXPECT_EQ(e.kind, c.kind) << c.program << " -> " << e.describe();
    EXPECT_EQ(e.loc.line, c.line) << c.program << " -> " << e.describe();
    EXPECT_EQ(e.loc.col, c.col) << c.program << " -> " << e.describe();
    EXPECT_NE(e.message.find(c.message_part), std::string::npos)
        << c.program << " -> " << e.describe();
  }
}

TEST(Errors, AnalysisErrors) {
  check_errors({
      {"(foo 1)", ErrorKind::UnboundVar, 1, 2, "undefined symbol foo"},
      {"(let [x] x)", ErrorKind::InvalidForm, 1, 6, "pairs"},
      {"(let x 1)", ErrorKind::InvalidForm, 1, 6, "binding vector"},
      {"(if)", ErrorKind::InvalidArity, 1, 1, "if expects"},
      {"(if 1 2 3 4)", ErrorKind::InvalidArity, 1, 1, "if expects"},
      {"(recur 1)", ErrorKind::InvalidForm, 1, 1, "only allowed inside loop or fn"},
      {"(loop [i 0] (+ 1 (recur i)))", ErrorKind::InvalidForm, 1, 18, "tail position"},
      {"(loop [i 0] (recur))", ErrorKind::InvalidArity, 1, 13, "recur expects 1 argument"},
      {"(fn [x] (recur 1 2))", ErrorKind::InvalidArity, 1, 9, "recur expects 1"},
      {"(cond true)", ErrorKind::InvalidForm, 1, 1, "pairs"},
      {"(def)", ErrorKind::InvalidForm, 1, 1, "needs a name"},
      {"(def x)", ErrorKind::InvalidForm, 1, 1, "has no value"},
      {"(def data/x 1)", ErrorKind::InvalidForm, 1, 6, "protected namespace"},
      {"(inc 1 2)", ErrorKind::ArityError, 1, 1, "inc expects 1 argument"},
      {"{:a 1 :a 2}", ErrorKind::InvalidForm, 1, 7, "duplicate key :a"},
      {"#{1 1}", ErrorKind::InvalidForm, 1, 5, "duplicate element 1"},
      {"(case 1 1 :a 1 :b)", ErrorKind::InvalidForm, 1, 14, "duplicate case test"},
      {"(case x y 1)", ErrorKind::UnboundVar, 1, 7, "undefined symbol x"},
      {"(case 1 y 1)", ErrorKind::InvalidForm, 1, 9, "must be a literal"},
      {"(fn [x & y z] x)", ErrorKind::InvalidForm, 1, 8, "& must be followed"},
      {"(fn ([x] 1) ([y] 2))", ErrorKind::InvalidForm, 1, 14, "two arities"},
      {"(let [{:syms [a]} {}] a)", ErrorKind::UnsupportedPattern, 1, 8, ":syms"},
      {"(let [5 1] 5)", ErrorKind::UnsupportedPattern, 1, 7, "cannot bind"},
      {"(for [x 5] x)", ErrorKind::InvalidForm, 1, 9, "expects a collection"},
      {"(for [x [1] :until true] x)", ErrorKind::InvalidForm, 1, 13, "unknown modifier"},
      {"(#(%21))", ErrorKind::InvalidPlaceholder, 1, 4, "invalid placeholder"},
      {"(\"a\" 1)", ErrorKind::NotCallable, 1, 2, "is not a function"},
      {"(1 2)", ErrorKind::NotCallable, 1, 2, "integer 1 is not a function"},
      {"(2.5)", ErrorKind::NotCallable, 1, 2, "2.5 is not a function"},
      {"(nil 2)", ErrorKind::NotCallable, 1, 2, "nil is not a function"},
      {"(try 1 (catch e 2))", ErrorKind::UnboundVar, 1, 2, "not supported"},
      {"(swap! a inc)", ErrorKind::UnboundVar, 1, 2, "not supported"},
      {"(map when [1])", ErrorKind::InvalidForm, 1, 6, "special form"},
      {"data", ErrorKind::UnboundVar, 1, 1, "data is not a value"},
      {"(clojure.string/capitalize \"a\")", ErrorKind::UnboundVar, 1, 2, "not available"},
      {"(foo/bar 1)", ErrorKind::UnboundVar, 1, 2, "unknown namespace foo"},
      {"tool/get-user", ErrorKind::InvalidForm, 1, 1, "must be called"},
      {"(:a)", ErrorKind::ArityError, 1, 1, "keyword :a called with 0"},
      {"(defn f [x] {:pre [(pos? x)]} x)", ErrorKind::InvalidForm, 1, 13, ":pre/:post"},
      {"(if-let [a 1 b 2] a)", ErrorKind::InvalidForm, 1, 9, "exactly one binding"},
      {"(condp = 1 :>> inc)", ErrorKind::InvalidForm, 1, 12, ":>>"},
      {"(if false #\"(?=a)\" 1)", ErrorKind::TypeError, 1, 11, "invalid regex"},
  });
}

TEST(Errors, DidYouMeanHints) {
  ptc::Error e = eval_error("(fliter odd? [1 2])");
  EXPECT_NE(e.hint.find("filter"), std::string::npos) << e.hint;
  e = eval_error("(let [count-x 1] cuont-x)");
  EXPECT_NE(e.hint.find("count-x"), std::string::npos) << e.hint;
  // Insertions, deletions and the longest distance still suggested (3).
  EXPECT_NE(eval_error("(def order-total 1) ordr-total").hint.find("order-total"),
            std::string::npos);
  EXPECT_NE(eval_error("(def order-total 1) orderr-totall").hint.find("order-total"),
            std::string::npos);
  EXPECT_NE(eval_error("(def order-total 1) xxdxr-total").hint.find("order-total"),
            std::string::npos);
  EXPECT_EQ(eval_error("(def order-total 1) xxdxx-total").hint.find("order-total"),
            std::string::npos);
  // A binding that went out of scope is no longer suggested; the visible one is.
  e = eval_error("(let [apple 1] (let [apples 2] apples)) appl");
  EXPECT_NE(e.hint.find("apply"), std::string::npos) << e.hint;
  EXPECT_EQ(e.hint.find("apple"), std::string::npos) << e.hint;
  EXPECT_EQ(eval("(let [a 1] (let [a 2] a))"), "2");
  EXPECT_EQ(eval("(let [a 1] (let [a 2] a) a)"), "1");
}

TEST(Errors, RuntimeErrors) {
  check_errors({
      {"(+ 1 nil)", ErrorKind::TypeError, 1, 1, "+: expected a number (argument 2), got nil"},
      {"(name nil)", ErrorKind::TypeError, 1, 1, "got nil"},
      {"(let [x \"a\"]\n  (* 2 x))", ErrorKind::TypeError, 2, 3, "expected a number"},
      {"(/ 1 0)", ErrorKind::ArithmeticError, 1, 1, "division by zero"},
      {"(quot 1 0)", ErrorKind::ArithmeticError, 1, 1, "division by zero"},
      {"(map inc 5)", ErrorKind::TypeError, 1, 1, "map: expected a collection (argument 2)"},
      {"(x 1) (def x 2)", ErrorKind::UnboundVar, 1, 2, "used before it is defined"},
      {"((fn [x] x))", ErrorKind::ArityError, 1, 1, "called with 0 arguments, but takes 1"},
      {"(defn f [a b] a) (f 1)", ErrorKind::ArityError, 1, 18, "fn f called with 1 argument"},
      {"(let [s \"ab\"] (s 0))", ErrorKind::NotCallable, 1, 15, "string \"ab\" is not a function"},
      {"(let [v [1 2]] (v 2))", ErrorKind::RuntimeError, 1, 16, "index 2 is out of bounds"},
      {"(let [m nil] (m 1))", ErrorKind::NotCallable, 1, 14, "nil"},
      {"(tool/get-user {:id 1})", ErrorKind::UnknownTool, 1, 1, "tool/get-user"},
      {"(assoc [1 2] 5 :x)", ErrorKind::RuntimeError, 1, 1, "out of bounds"},
      {"(nth {:a 1} 0)", ErrorKind::TypeError, 1, 1, "nth: expected a vector or string"},
      {"(let [[a] 5] a)", ErrorKind::DestructureError, 1, 7, "cannot destructure integer 5"},
      {"(keyword \"a b\")", ErrorKind::TypeError, 1, 1, "invalid keyword name"},
      {"(range 1 10 0)", ErrorKind::TypeError, 1, 1, "step"},
      {"(map (fn [x] (+ x :k)) [1])", ErrorKind::TypeError, 1, 14, "got keyword :k"},
  });
}

TEST(Errors, ErrorInsideCallbackPointsAtTheCallback) {
  ptc::Error e = eval_error("(map\n  (fn [x]\n    (inc x))\n  [1 \"two\"])");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_EQ(e.loc.line, 3u);
  EXPECT_EQ(e.loc.col, 5u);
}

TEST(Errors, DescribeFormat) {
  ptc::Error e = eval_error("(+ 1 :a)");
  EXPECT_EQ(e.describe(), "type_error at 1:1: +: expected a number (argument 2), got keyword :a");
}

}  // namespace

// The pc rule (vm/vm.cpp, at SAVE_PC): an instruction that raises reports
// its own line, never that of an earlier instruction that saved pc (the
// println before it here). One case per family of instructions that can
// raise; the deep ones make compare and equals hit the native stack guard.
TEST(Errors, EveryInstructionThatCanFailReportsItsOwnLine) {
  const std::string deep =
      "(let [a (reduce (fn [acc _] [acc]) [] (range 60000))\n"
      "      b (reduce (fn [acc _] [acc]) [] (range 60000))]\n"
      "  (println \"built\")\n";
  const std::string flat = "(let [n 1 k :k f 5 s \"s\"]\n  (println \"p\")\n";
  struct Case {
    const char* family;
    std::string program;
    ErrorKind kind;
    uint32_t line;
  };
  const Case cases[] = {
      {"EQ", deep + "  (let [r (= a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"LT", deep + "  (let [r (< a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"LE", deep + "  (let [r (<= a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"GT", deep + "  (let [r (> a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"GE", deep + "  (let [r (>= a b)] r))", ErrorKind::CallDepthExceeded, 4},
      {"IFLT", deep + "  (if (< a b) 1 2))", ErrorKind::CallDepthExceeded, 4},
      {"IFEQ", deep + "  (if (= a b) 1 2))", ErrorKind::CallDepthExceeded, 4},
      {"ADD", flat + "  (+ n k))", ErrorKind::TypeError, 3},
      {"SUB", flat + "  (- n k))", ErrorKind::TypeError, 3},
      {"MUL", flat + "  (* n k))", ErrorKind::TypeError, 3},
      {"INC", flat + "  (inc s))", ErrorKind::TypeError, 3},
      {"DEC", flat + "  (dec s))", ErrorKind::TypeError, 3},
      {"CALL", flat + "  (f 1))", ErrorKind::NotCallable, 3},
      {"CALLB", flat + "  (nth k 0))", ErrorKind::TypeError, 3},
      {"GETGLOBAL", "(println \"p\")\n(do\n  later)\n(def later 1)", ErrorKind::UnboundVar, 3},
  };
  for (const Case& c : cases) {
    ptc::Error e = eval_error(c.program);
    EXPECT_EQ(e.kind, c.kind) << c.family << ": " << e.describe();
    EXPECT_EQ(e.loc.line, c.line) << c.family << ": " << e.describe();
  }
}
