// Functions in memory: what a run defines with defn/def/fn is rebuilt in the
// next run from its source and captured values, so a session can define
// helpers once and call them later.
#include <gtest/gtest.h>

#include "include/ptc/ptc.hpp"

namespace {

using ptc::ErrorKind;
using ptc::HostValue;
using ptc::Session;
using ptc::Step;

// Evaluates `turns` in one session; the printed result of the last.
std::string last_of(std::initializer_list<const char*> turns, Session& session) {
  Step s;
  for (const char* t : turns) {
    s = session.eval(t);
    if (!s.ok) return "ERROR " + s.error.describe();
  }
  return s.printed;
}

std::string last_of(std::initializer_list<const char*> turns) {
  Session session;
  return last_of(turns, session);
}

TEST(MemoryFunctions, DefnIsCallableInTheNextRun) {
  EXPECT_EQ(last_of({"(defn double [x] (* 2 x))", "(double 21)"}), "42");
}

TEST(MemoryFunctions, MultiArityVariadicAndDestructuringSurvive) {
  EXPECT_EQ(last_of({"(defn f ([] 0) ([x] x) ([x & more] (apply + x more)))",
                     "(defn g [{:keys [a b]} [c d]] [a b c d])",
                     "[(f) (f 1) (f 1 2 3) (g {:a 1 :b 2} [3 4])]"}),
            "[0 1 6 [1 2 3 4]]");
}

TEST(MemoryFunctions, RecursionAndCallsBetweenHelpers) {
  EXPECT_EQ(last_of({"(defn fact [n] (if (<= n 1) 1 (* n (fact (dec n)))))",
                     "(defn fact-list [xs] (mapv fact xs))", "(fact-list [3 4 5])"}),
            "[6 24 120]");
}

TEST(MemoryFunctions, ClosuresKeepTheirCapturedValues) {
  EXPECT_EQ(last_of({"(def add-n (let [n 5 m {:k [1 2]}] (fn [x] (+ x n (count (:k m))))))",
                     "(def inc-all #(mapv inc %))", "[(add-n 1) (inc-all [1 2])]"}),
            "[8 [2 3]]");
}

TEST(MemoryFunctions, FunctionsMadeByBuiltinsSurvive) {
  EXPECT_EQ(
      last_of(
          {"(def add10 (partial + 10)) (def inc-then-double (comp #(* 2 %) inc)) "
           "(def f inc) (def re #\"a+\") (def sym 'hello) (def both (juxt :a :b))",
           "[(add10 1) (inc-then-double 3) (f 1) (re-find re \"baa\") sym (both {:a 1 :b 2})]"}),
      "[11 8 2 \"aa\" 'hello [1 2]]");
}

TEST(MemoryFunctions, CapturesFromLoopsPatternsAndNamedFunctions) {
  EXPECT_EQ(
      last_of({"(def fs (vec (for [i (range 3)] (fn [] (* i 10))))) "
               "(def get-a (let [{:keys [a] :as m} {:a 1 :b 2}] (fn [] [a (count m)]))) "
               "(def counter (fn count-down [n] (if (pos? n) (cons n (count-down (dec n))) "
               "[]))) (def maker (fn self [n] (fn [] (if (pos? n) ((self (dec n))) :bottom))))"
               " (def deep-maker (maker 3))",
               "[(mapv (fn [f] (f)) fs) (get-a) (counter 3) (deep-maker)]"}),
      "[[0 10 20] [1 2] [3 2 1] :bottom]");
}

TEST(MemoryFunctions, HelpersThatCallToolsAndLoop) {
  Session session;
  session.options().tools["get-user"] = {[](const HostValue& args) {
    return ptc::ToolResult::success(
        HostValue::string("user " + std::to_string(args.get("id")->as_int())));
  }};
  EXPECT_EQ(last_of({"(defn user-names [ids] (loop [ids ids out []] (if (empty? ids) out "
                     "(recur (rest ids) (conj out (tool/get-user {:id (first ids)}))))))",
                     "(user-names [1 2])"},
                    session),
            "[\"user 1\" \"user 2\"]");
}

TEST(MemoryFunctions, FunctionsInsideDataSurvive) {
  EXPECT_EQ(last_of({"(def handlers {:twice (fn [x] (* 2 x)) :neg -})",
                     "[((:twice handlers) 4) ((:neg handlers) 4)]"}),
            "[8 -4]");
}

TEST(MemoryFunctions, ARestoredFunctionCanBeRestoredAgain) {
  // Turn 2 does not redefine `h`; turn 3 must still find it, and a function
  // defined in turn 2 from `h` keeps working.
  EXPECT_EQ(last_of({"(defn h [x] (str \"<\" x \">\"))", "(def hh (comp h h)) (h 1)", "(hh 2)"}),
            "\"<<2>>\"");
}

TEST(MemoryFunctions, StringsAndFloatsInTheSourceReadBack) {
  EXPECT_EQ(last_of({"(defn wrap [s] (str \"\\\"\" s \"\\\\\\n\" 1.5 \" \" 1e20 \" \" ##Inf))",
                     "(wrap \"x\")"}),
            last_of({"(defn wrap [s] (str \"\\\"\" s \"\\\\\\n\" 1.5 \" \" 1e20 \" \" ##Inf)) "
                     "(wrap \"x\")"}));
}

// A restorer copies the function's collections as they were written:
// comments, #_ discards, reader shorthands, character literals and line
// breaks inside them must read back as the same function.
TEST(MemoryFunctions, SourceAsWrittenReadsBack) {
  const char* def =
      "(defn shape [xs] ; the shape of xs\n"
      "  (let [n (count xs) #_ (unused 1 2)\n"
      "        pick #(get % 0)\r\n"
      "        tags #{:a \\b} m {:k [\\newline \"s;t\"]}]\n"
      "    [n (pick xs) (contains? tags \\b) (count (get-in m [:k 0])) 'sym (count \"a\\\"\")]))";
  std::string direct = last_of({def, "(shape [7 8])"});
  EXPECT_EQ(direct, "[2 7 true 1 'sym 2]");
  Session session;
  EXPECT_EQ(last_of({def, "(shape [7 8])"}, session), direct);
  // A third run rebuilds it from the restorer the second one exported.
  EXPECT_EQ(last_of({"(shape [9])"}, session), "[1 9 true 1 'sym 2]");
  // The restorer's text is the function as written (its comment too).
  const HostValue* shape = session.memory().get("shape");
  ASSERT_TRUE(shape && shape->restorer());
  EXPECT_NE(shape->restorer()->factory.find("#_ (unused 1 2)"), std::string::npos)
      << shape->restorer()->factory;
}

TEST(MemoryFunctions, ContextKeysReadByAHelperAreImported) {
  Session session;
  ASSERT_EQ(last_of({"(defn total [] (reduce + (map :n data/items)))"}, session), "#'total");
  session.options().context = HostValue::map(
      {{HostValue::string("items"),
        HostValue::vector({HostValue::map({{HostValue::keyword("n"), HostValue::integer(3)}}),
                           HostValue::map({{HostValue::keyword("n"), HostValue::integer(4)}})})}});
  // The program itself never mentions data/items; the helper does.
  EXPECT_EQ(last_of({"(total)"}, session), "7");
}

TEST(MemoryFunctions, AHelperMayNameAGlobalThatWasNeverDefined) {
  // `later` was never def'd (the branch did not run): the helper still comes
  // back, and calling it says what is missing.
  Session session;
  ASSERT_EQ(last_of({"(defn f [] (later)) (if false (defn later [] 1) nil)"}, session), "nil");
  Step s = session.eval("(f)");
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::UnboundVar) << s.error.describe();
  EXPECT_NE(s.error.message.find("later"), std::string::npos) << s.error.message;
  EXPECT_EQ(last_of({"(defn later [] 2)", "(f)"}, session), "2");
}

TEST(MemoryFunctions, AFactoryThatDoesNotReadIsReportedByName) {
  // A host may hand in memory it built itself: a broken factory only makes
  // that name unusable, with a clear message.
  auto restorer = std::make_shared<ptc::Restorer>();
  restorer->factory = "(fn [] (fn [x] x)";  // unbalanced
  ptc::RunOptions o;
  o.memory = HostValue::map({{HostValue::string("broken"), HostValue::opaque("#fn[x]", restorer)},
                             {HostValue::string("fine"), HostValue::integer(1)}});
  EXPECT_EQ(ptc::run("fine", o).printed, "1");
  Step s = ptc::run("(broken 1)", o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::UnboundVar);
  EXPECT_NE(s.error.message.find("broken"), std::string::npos) << s.error.message;
  EXPECT_NE(s.error.message.find("could not be carried over"), std::string::npos);
}

TEST(MemoryFunctions, RestoredFunctionsKeepTheirMemoryEntryUnchanged) {
  Session session;
  ASSERT_TRUE(session.eval("(defn sq [x] (* x x))").ok);
  HostValue before = *session.memory().get("sq");
  ASSERT_NE(before.restorer(), nullptr);
  EXPECT_EQ(before.restorer()->factory, "(fn [] (fn sq [x] (* x x)))");
  ASSERT_TRUE(session.eval("(sq 3)").ok);
  EXPECT_EQ(session.memory().get("sq")->restorer(), before.restorer());
}

TEST(MemoryFunctions, SharedFunctionsAreExportedOnceAndStayShared) {
  // Each level captures the one below twice: written out naively the export
  // doubles per level (2^60 factories); once per function it is linear.
  Session session;
  ASSERT_EQ(last_of({"(def deep (reduce (fn [f _] (let [g f h f] (fn [] (g) (h)))) (fn [] 1) "
                     "(range 60))) (def a (fn [] 1)) (def pair [a a]) :ok"},
                    session),
            ":ok");
  EXPECT_EQ(
      last_of({"[(fn? deep) (= (first pair) (second pair)) (= a (first pair)) (= a (fn [] 1))]"},
              session),
      "[true true true false]");
}

TEST(MemoryFunctions, ResultsAndToolArgumentsCarryNoSource) {
  Step s = ptc::run("(fn [x] x)");
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.value.kind(), HostValue::Kind::Opaque);
  EXPECT_EQ(s.value.restorer(), nullptr);
}

}  // namespace
