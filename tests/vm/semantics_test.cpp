// End-to-end semantics of the core language through ptc::run: special forms,
// destructuring, closures, recursion, and the printed results.
#include <gtest/gtest.h>

#include "support/run_helpers.hpp"

using ptc::testing::eval;

namespace {

struct Case {
  const char* program;
  const char* expected;
};

void check_all(std::initializer_list<Case> cases) {
  for (const Case& c : cases)
    EXPECT_EQ(eval(c.program), c.expected) << "program: " << c.program;
}

TEST(Semantics, Literals) {
  check_all({
      {"nil", "nil"},
      {"true", "true"},
      {"42", "42"},
      {"-17", "-17"},
      {"3.14", "3.14"},
      {"\"hi\\n\"", "\"hi\\n\""},
      {"\\a", "\"a\""},
      {":kw", ":kw"},
      {"[1 [2 3] {}]", "[1 [2 3] {}]"},
      {"{:a 1 :b [true nil]}", "{:a 1 :b [true nil]}"},
      {"#{1}", "#{1}"},
      {"##Inf", "##Inf"},
      {"##NaN", "##NaN"},
      {"123456789012345678901234567890", "123456789012345678901234567890"},
      {"()", "[]"},
      {"'foo", "'foo"},
      {"", "nil"},
      {"1 2 3", "3"},
  });
}

TEST(Semantics, Arithmetic) {
  check_all({
      {"(+ 1 2 3)", "6"},
      {"(+)", "0"},
      {"(*)", "1"},
      {"(- 5)", "-5"},
      {"(- 10 3 2)", "5"},
      {"(/ 10 2)", "5.0"},
      {"(/ 1 4)", "0.25"},
      {"(/ 2)", "0.5"},
      {"(* 2 3.5)", "7.0"},
      {"(+ 9223372036854775807 1)", "9223372036854775808"},
      {"(* 9223372036854775807 9223372036854775807)", "85070591730234615847396907784232501249"},
      {"(- -9223372036854775808 1)", "-9223372036854775809"},
      {"(- (+ 9223372036854775807 1) 1)", "9223372036854775807"},
      {"(inc 9223372036854775807)", "9223372036854775808"},
      {"(quot -7 2)", "-3"},
      {"(rem -10 3)", "-1"},
      {"(mod -10 3)", "2"},
      {"(mod 10 -3)", "-2"},
      {"(/ 1.0 0.0)", "##Inf"},
      {"(/ 0.0 0.0)", "##NaN"},
      {"(max 1 5 3)", "5"},
      {"(min 1 5 3)", "1"},
      {"(abs -5)", "5"},
      {"(+ 0.1 0.2)", "0.3"},
  });
}

TEST(Semantics, Comparison) {
  check_all({
      {"(= 1 1.0)", "true"},
      {"(= [1 2] [1 2])", "true"},
      {"(= {:a 1 :b 2} {:b 2 :a 1})", "true"},
      {"(= ##NaN ##NaN)", "false"},
      {"(not= 1 2)", "true"},
      {"(< 1 2 3)", "true"},
      {"(< 1 3 2)", "false"},
      {"(> 5 nil)", "false"},
      {"(< nil 10)", "false"},
      {"(< 1 nil)", "true"},
      {"(> \"b\" \"a\")", "true"},
      {"(< ##NaN 0.0)", "false"},
      {"(>= ##NaN 0.0)", "false"},
      {"(compare 1 2)", "-1"},
      {"(= :a :a)", "true"},
      {"(= \\a \"a\")", "true"},
  });
}

TEST(Semantics, Truthiness) {
  check_all({
      {"(if nil :t :f)", ":f"},
      {"(if false :t :f)", ":f"},
      {"(if 0 :t :f)", ":t"},
      {"(if \"\" :t :f)", ":t"},
      {"(if [] :t :f)", ":t"},
      {"(if true :t)", ":t"},
      {"(if false :t)", "nil"},
  });
}

TEST(Semantics, ConditionalForms) {
  check_all({
      {"(if-not true :y :n)", ":n"},
      {"(if-not false :y)", ":y"},
      {"(when (> 5 3) :a :b)", ":b"},
      {"(when false :a)", "nil"},
      {"(when-not false 1 2)", "2"},
      {"(cond false :a (> 2 1) :b :else :c)", ":b"},
      {"(cond false :only)", "nil"},
      {"(cond)", "nil"},
      {"(case :a :a 1 :b 2)", "1"},
      {"(case :z :a 1 :b 2 99)", "99"},
      {"(case :c (:a :b) 1 (:c :d) 2)", "2"},
      {"(case :z :a 1)", "nil"},
      {"(case nil nil \"matched\" :a \"nope\")", "\"matched\""},
      {"(case 1.0 1 :one :other)", ":one"},
      {"(case \"x\" \"x\" :str [1 2] :vec)", ":str"},
      {"(case [1 2] \"x\" :str [1 2] :vec)", ":vec"},
      {"(condp = :a :a 1 :b 2)", "1"},
      {"(condp > 5 10 \"big\" 3 \"small\")", "\"big\""},
      {"(condp = :z :a 1 \"default\")", "\"default\""},
      {"(condp = :z :a 1 :b 2)", "nil"},
      {"(if-let [x 0] :t :f)", ":t"},
      {"(if-let [x nil] :t :f)", ":f"},
      {"(if-let [[a b] [1 2]] (+ a b) :none)", "3"},
      {"(when-let [{:keys [a]} {:a 5}] (inc a))", "6"},
      {"(when-let [x false] (+ x 1))", "nil"},
      {"(if-some [x false] x :nope)", "false"},
      {"(if-some [x nil] x :nope)", ":nope"},
      {"(when-some [x 42] (inc x))", "43"},
      {"(when-first [x [1 2 3]] x)", "1"},
      {"(when-first [x []] x)", "nil"},
      {"(when-first [x nil] x)", "nil"},
      {"(when-first [x \"ab\"] x)", "\"a\""},
  });
}

TEST(Semantics, AndOr) {
  check_all({
      {"(and)", "true"},
      {"(or)", "nil"},
      {"(and 1 2 3)", "3"},
      {"(and 1 nil 3)", "nil"},
      {"(and 1 false 3)", "false"},
      {"(or nil false \"x\")", "\"x\""},
      {"(or nil false)", "false"},
      {"(let [x 5] (and (> x 1) (< x 10)))", "true"},
  });
}

TEST(Semantics, LetAndDestructuring) {
  check_all({
      {"(let [x 1 y (+ x 1)] y)", "2"},
      {"(let [x 1] (let [x 2] x))", "2"},
      {"(let [x 10] (def saved x) (* x 2))", "20"},
      {"(let [[a b] [1 2]] (+ a b))", "3"},
      {"(let [[_ b] [1 2]] b)", "2"},
      {"(let [[a [b c]] [1 [2 3]]] (+ a b c))", "6"},
      {"(let [[x & rest] [1 2 3 4]] rest)", "[2 3 4]"},
      {"(let [[a b & rest] [1 2 3 4 5]] [a b rest])", "[1 2 [3 4 5]]"},
      {"(let [[& all] [1 2 3]] all)", "[1 2 3]"},
      {"(let [[x & rest] [1]] rest)", "nil"},
      {"(let [[a b :as all] [1 2 3]] [a b all])", "[1 2 [1 2 3]]"},
      {"(let [[a b c] [1]] [a b c])", "[1 nil nil]"},
      {"(let [[a b] \"xy\"] b)", "\"y\""},
      {"(let [[a b] nil] [a b])", "[nil nil]"},
      {"(let [{:keys [name age]} {:name \"Alice\" :age 30}] name)", "\"Alice\""},
      {"(let [{:keys [name age] :or {age 0}} {:name \"Bob\"}] age)", "0"},
      {"(let [{:keys [a] :or {a 5}} {:a nil}] a)", "nil"},
      {"(let [{the-name :name} {:name \"Carol\"}] the-name)", "\"Carol\""},
      {"(let [{:keys [id] :as user} {:id 123 :name \"Alice\"}] (:name user))", "\"Alice\""},
      {"(let [{:strs [name age]} {\"name\" \"Alice\" \"age\" 30}] name)", "\"Alice\""},
      {"(let [{:keys [name]} {\"name\" \"json\"}] name)", "\"json\""},
      {"(let [{:keys [a b] :or {b 2}} {:a 1}] (+ a b))", "3"},
      {"(let [{[x y] :point} {:point [3 4]}] (* x y))", "12"},
      {"(let [[{:keys [a]} {:keys [b]}] [{:a 1} {:b 2}]] (+ a b))", "3"},
      {"(let [{:keys [:a]} {:a 7}] a)", "7"},
      {"(let [[k v] (first (seq {:a 1}))] [k v])", "[:a 1]"},
      {"((fn [& {:keys [a b]}] [a b]) :a 1 :b 2)", "[1 2]"},
  });
}

TEST(Semantics, FunctionsAndClosures) {
  check_all({
      {"((fn [x] (* x 2)) 21)", "42"},
      {"(let [mk (fn [x] (fn [y] (+ x y)))] ((mk 10) 5))", "15"},
      {"(let [a 1] (let [f (fn [] (let [b 2] (fn [] (+ a b))))] ((f))))", "3"},
      {"((fn [a & more] [a more]) 1 2 3)", "[1 [2 3]]"},
      {"((fn [a & more] [a more]) 1)", "[1 nil]"},
      {"((fn ([x] [:one x]) ([x y] [:two x y])) 1 2)", "[:two 1 2]"},
      {"((fn ([x] [:one x]) ([x & r] [:many x r])) 1 2 3)", "[:many 1 [2 3]]"},
      {"((fn fact [n] (if (< n 2) 1 (* n (fact (dec n))))) 5)", "120"},
      {"((fn [[a b]] (+ a b)) [1 2])", "3"},
      {"((fn [{:keys [x]}] x) {:x 9})", "9"},
      {"(#(+ % 1) 1)", "2"},
      {"(#(+ %1 %2) 1 2)", "3"},
      {"(#(* % %) 4)", "16"},
      {"(#(vector %1 %&) 1 2 3)", "[1 [2 3]]"},
      {"(#(42))", "42"},
      {"(#(%) 5)", "5"},
      {"(#(str %2) 1 2)", "\"2\""},
      {"(map #(* % 10) [1 2 3])", "[10 20 30]"},
      {"(defn twice [x] (* x 2)) (twice 21)", "42"},
      {"(defn greet \"doc\" [name] (str \"Hello, \" name)) (greet \"W\")", "\"Hello, W\""},
      {"(defn f ([x] (f x 10)) ([x y] (+ x y))) (f 1)", "11"},
      {"(defn sum-all [& xs] (reduce + 0 xs)) (sum-all 1 2 3)", "6"},
      {"(defn first-name [[first last]] first) (first-name [\"Alice\" \"Smith\"])", "\"Alice\""},
      {"(def rate 0.1) (defn apply-rate [x] (* x rate)) (apply-rate 100)", "10.0"},
      {"(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 20)", "6765"},
      {"(defn is-even [n] (if (= n 0) true (is-odd (dec n)))) (defn is-odd [n] (if (= n 0) false "
       "(is-even (dec n)))) (is-even 10)",
       "true"},
      {"(fn [x y] x)", "#fn[x y]"},
      {"inc", "#<builtin>"},
      {"(let [fn 5] fn)", "5"},
      {"(let [if inc] (if true 1 2))", "1"},
      {"(let [when (fn [a b] [a b])] (when 1 2))", "[1 2]"},
      {"(let [let 3] (+ let 1))", "4"},
  });
}

TEST(Semantics, DefAndGlobals) {
  check_all({
      {"(def x 42)", "#'x"},
      {"(def x 42) x", "42"},
      {"(def x 1) (def x 2) x", "2"},
      {"(def a 1) (def b (+ a 1)) b", "2"},
      {"(defonce t 0) (defonce t 5) t", "0"},
      {"(defonce t 0)", "#'t"},
      {"(def map {}) map", "{}"},
      {"(map inc [1]) ", "[2]"},
      {"(def s \"doc\" 3) s", "3"},
      {"(def x 1) #'x", "#'x"},
      {"(defn f [] (g)) (defn g [] :g) (f)", ":g"},
  });
}

TEST(Semantics, LoopRecur) {
  check_all({
      {"(loop [i 0 acc 0] (if (< i 5) (recur (inc i) (+ acc i)) acc))", "10"},
      {"((fn [n acc] (if (> n 0) (recur (dec n) (* acc n)) acc)) 5 1)", "120"},
      {"(loop [[head & tail] [1 2 3 4] sum 0] (if head (recur tail (+ sum head)) sum))", "10"},
      {"(loop [i 1 acc 0] (if (> i 1000) acc (recur (inc i) (+ acc i))))", "500500"},
      {"(loop [x 1] (let [y (* x 2)] (if (< y 100) (recur y) y)))", "128"},
      {"(loop [a 1 b 2] (if (> a 10) [a b] (recur b (+ a b))))", "[13 21]"},
      {"(defn count-down [n] (if (zero? n) :done (recur (dec n)))) (count-down 500)", ":done"},
      {"(loop [i 0] (when (< i 3) (recur (inc i))))", "nil"},
      {"(loop [i 0] (cond (= i 3) :three :else (recur (inc i))))", ":three"},
      {"(loop [i 0] (case i 5 :five (recur (inc i))))", ":five"},
      {"(loop [i 0] (and true (if (< i 2) (recur (inc i)) i)))", "2"},
  });
}

TEST(Semantics, ForAndDoseq) {
  check_all({
      {"(for [x [1 2 3]] (* x 2))", "[2 4 6]"},
      {"(for [x [1 2] y [\"a\" \"b\"]] [x y])", "[[1 \"a\"] [1 \"b\"] [2 \"a\"] [2 \"b\"]]"},
      {"(for [[k v] {:a 1 :b 2}] (str k \"=\" v))", "[\":a=1\" \":b=2\"]"},
      {"(for [x [1 2 3 4 5] :when (odd? x)] x)", "[1 3 5]"},
      {"(for [x [1 2 3] :let [y (* x 10)]] y)", "[10 20 30]"},
      {"(for [x [1 2 3 4 5] :while (< x 4)] x)", "[1 2 3]"},
      {"(for [x [1 2 3 4] :when (odd? x) :let [y (* x 10)]] y)", "[10 30]"},
      {"(for [x [1 2 3] :let [y (* x 2)] :when (> y 3)] y)", "[4 6]"},
      {"(for [x [1 2] y [10 20 30] :while (< y 25)] [x y])", "[[1 10] [1 20] [2 10] [2 20]]"},
      {"(for [x [] ] x)", "[]"},
      {"(for [x nil] x)", "[]"},
      {"(for [c \"ab\"] c)", "[\"a\" \"b\"]"},
      {"(doseq [x [1 2 3]] (println x))", "nil"},
      {"(for [x [1 2 3]] (println x) (* x 10))", "[10 20 30]"},
      {"(dotimes [i 3] (println i))", "nil"},
  });
}

TEST(Semantics, ForHasNoLoopLimit) {
  EXPECT_EQ(eval("(count (for [x (range 5000)] x))"), "5000");
  EXPECT_EQ(eval("(count (for [x (range 100) y (range 100)] [x y]))"), "10000");
  ptc::Step r = ptc::run("(doseq [x [1 2 3]] (println \"x\" x))");
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.prints.size(), 3u);
  EXPECT_EQ(r.prints[2], "x 3");
}

TEST(Semantics, Threading) {
  check_all({
      {"(->> [1 2 3] (map inc))", "[2 3 4]"},
      {"(->> [1 2 3] (map inc) (filter even?))", "[2 4]"},
      {"(-> {:a 1} (assoc :b 2))", "{:a 1 :b 2}"},
      {"(-> {:a 1} (assoc :b 2) (assoc :c 3))", "{:a 1 :b 2 :c 3}"},
      {"(-> {:a {:b 1}} :a :b)", "1"},
      {"(-> 5 inc (- 1))", "5"},
      {"(->> 5 inc (- 1))", "-5"},
      {"(as-> 1 x (+ x 1) (* x 2))", "4"},
      {"(as-> 42 x)", "42"},
      {"(cond-> 1 true inc false dec)", "2"},
      {"(cond-> 42)", "42"},
      {"(cond-> 10 true (- 5))", "5"},
      {"(cond->> 10 true (- 5))", "-5"},
      {"(some-> 1 inc)", "2"},
      {"(some-> nil inc)", "nil"},
      {"(some-> {:a nil} (:a) inc)", "nil"},
      {"(some-> false not)", "true"},
      {"(some->> [1 2 3] (map inc))", "[2 3 4]"},
      {"(some->> nil (map inc))", "nil"},
      {"(let [inc dec] (-> 5 inc))", "4"},
  });
}

TEST(Semantics, KeywordsMapsSetsAsFunctions) {
  check_all({
      {"(:name {:name \"Alice\"})", "\"Alice\""},
      {"(:missing {:name \"Alice\"} \"default\")", "\"default\""},
      {"({:name \"Alice\"} :name)", "\"Alice\""},
      {"({:a 1} :missing \"d\")", "\"d\""},
      {"({\"name\" \"Alice\"} \"name\")", "\"Alice\""},
      {"(#{1 2 3} 2)", "2"},
      {"(#{1 2 3} 4)", "nil"},
      {"(filter #{:a :b} [:a :c :b])", "[:a :b]"},
      {"(map :name [{:name \"A\"} {:name \"B\"}])", "[\"A\" \"B\"]"},
      {"(filter :active [{:active true} {:active false}])", "[{:active true}]"},
      {"(:status {\"status\" \"ok\"})", "\"ok\""},
      {"(:turn-summaries {\"turn_summaries\" 3})", "3"},
      {"(:a [1 2])", "nil"},
  });
}

TEST(Semantics, CoreBuiltins) {
  check_all({
      {"(count [1 2 3])", "3"},
      {"(count {:a 1})", "1"},
      {"(count \"héllo\")", "5"},
      {"(count nil)", "0"},
      {"(first [1 2])", "1"},
      {"(first [])", "nil"},
      {"(first \"hello\")", "\"h\""},
      {"(rest [1 2 3])", "[2 3]"},
      {"(rest [])", "[]"},
      {"(next [1])", "nil"},
      {"(nth [1 2 3] 1)", "2"},
      {"(nth [1 2 3] 10)", "nil"},
      {"(nth [1 2 3] 10 :d)", ":d"},
      {"(get {:a 1} :a)", "1"},
      {"(get {:a 1} :b \"default\")", "\"default\""},
      {"(get [1 2 3] 1)", "2"},
      {"(conj [1 2] 3)", "[1 2 3]"},
      {"(conj #{1 2} 3)", "#{1 2 3}"},
      {"(conj {:a 1} [:b 2])", "{:a 1 :b 2}"},
      {"(conj nil 1)", "[1]"},
      {"(assoc {:a 1} :b 2)", "{:a 1 :b 2}"},
      {"(assoc [1 2 3] 1 5)", "[1 5 3]"},
      {"(assoc [1 2] 2 3)", "[1 2 3]"},
      {"(assoc nil :a 1)", "{:a 1}"},
      {"(dissoc {:a 1 :b 2 :c 3} :a :b)", "{:c 3}"},
      {"(contains? [\"a\" \"b\" \"c\"] \"b\")", "true"},
      {"(contains? [\"a\" \"b\" \"c\"] 1)", "false"},
      {"(contains? {:a 1} :a)", "true"},
      {"(let [x 1] {:a x :b #{x}})", "{:a 1 :b #{1}}"},
      {"(vector 1 2)", "[1 2]"},
      {"(list 1 2)", "[1 2]"},
      {"(hash-map :a 1 :b 2)", "{:a 1 :b 2}"},
      {"(hash-set 1 1 2)", "#{1 2}"},
      {"(map + [1 2 3] [10 20 30])", "[11 22 33]"},
      {"(map + [1 2 3 4] [10 20])", "[11 22]"},
      {"(map (fn [[k v]] [v k]) {:a 1})", "[[1 :a]]"},
      {"(filter odd? [1 2 3 4])", "[1 3]"},
      {"(remove odd? [1 2 3 4])", "[2 4]"},
      {"(reduce + [1 2 3])", "6"},
      {"(reduce + [])", "0"},
      {"(reduce - 10 [1 2 3])", "4"},
      {"(reduce (fn [acc [k v]] (+ acc v)) 0 {:a 1 :b 2})", "3"},
      {"(reduce (fn [acc x] (str acc \"-\" x)) \"a\" \"bc\")", "\"a-b-c\""},
      {"(range 5)", "[0 1 2 3 4]"},
      {"(range 5 10)", "[5 6 7 8 9]"},
      {"(range 0 10 2)", "[0 2 4 6 8]"},
      {"(range 10 0 -2)", "[10 8 6 4 2]"},
      {"(range 5 5)", "[]"},
      {"(range 0 1 0.25)", "[0 0.25 0.5 0.75]"},
      {"(str)", "\"\""},
      {"(str 42 true nil :user \"x\")", "\"42true:userx\""},
      {"(str {:a 1})", "\"{:a 1}\""},
      {"(str 'sym)", "\"sym\""},
      {"(str 1.5 1.0E10)", "\"1.51.0E10\""},
      {"(keyword \"foo\")", ":foo"},
      {"(keyword nil)", "nil"},
      {"(name :foo)", "\"foo\""},
      {"(pr-str 1 \"a\")", "\"1 \\\"a\\\"\""},
  });
}

TEST(Semantics, ContextData) {
  ptc::RunOptions opts;
  opts.context = ptc::parse_json(R"({"orders":[{"total":5},{"total":30}],"user-id":"u1","n":3})");
  EXPECT_EQ(eval("(->> data/orders (filter #(> (:total %) 20)) (map :total))", opts), "[30]");
  EXPECT_EQ(eval("data/user-id", opts), "\"u1\"");
  EXPECT_EQ(eval("data/missing", opts), "nil");
  EXPECT_EQ(eval("(let [n 1] (+ n data/n))", opts), "4");
}

TEST(Semantics, ReturnAndFail) {
  EXPECT_EQ(eval("(do (return 5) 6)"), "5");
  EXPECT_EQ(eval("(map (fn [x] (if (= x 2) (return :early) x)) [1 2 3])"), ":early");
  ptc::Step r = ptc::run("(fail \"no input\")");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.kind, ptc::ErrorKind::Fail);
  EXPECT_EQ(r.error.message, "no input");
  EXPECT_EQ(r.error.fail_value, "\"no input\"");
  EXPECT_EQ(r.error.loc.line, 1u);
}

TEST(Semantics, PrintsAreCapturedAndTruncated) {
  ptc::RunOptions opts;
  opts.limits.max_print_length = 5;
  ptc::Step r = ptc::run("(println \"hello world\" [\"a\"]) (println 1 nil) 7", opts);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.prints.size(), 2u);
  EXPECT_EQ(r.prints[0], "hello...");
  EXPECT_EQ(r.prints[1], "1 nil");
}

TEST(Semantics, TasksWithoutAJournalJustRun) {
  check_all({
      {"(task \"fetch\" (+ 1 2))", "3"},
      {"(let [x (task \"t\" [1 2])] (count x))", "2"},
      {"(step-done \"gather\" \"Found 3\")", "\"Found 3\""},
      {"(task-reset \"fetch\")", "nil"},
      {"(loop [i 0] (if (< i 2) (task \"t\" (recur (inc i))) i))", "2"},
  });
  EXPECT_EQ(ptc::testing::eval_error("(task :id 1)").kind, ptc::ErrorKind::TypeError);
}

TEST(Semantics, CommentAndDiscard) {
  check_all({
      {"(comment (undefined-thing)) 5", "5"},
      {"[1 #_ 2 3]", "[1 3]"},
      {"; just a comment\n 4", "4"},
  });
}

TEST(Semantics, ResultDisplayLimit) {
  ptc::RunOptions opts;
  opts.display_limit = 2;
  ptc::Step r = ptc::run("[1 2 3]", opts);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.printed, "[1 2 ...] (2/3)");
  EXPECT_TRUE(r.truncated);
}

}  // namespace

// Forms are found by their head's name (frontend/form_heads.hpp): forms
// still expand, calls still call, and a local named like a macro is called
// as the local (only the true special forms cannot be shadowed).
TEST(Semantics, FormHeadsAndShadowingLocals) {
  EXPECT_EQ(eval("(when true (-> 1 inc (+ 2)))"), "4");
  EXPECT_EQ(eval("(let [when (fn [a b] (+ a b))] (when 1 2))"), "3");
  EXPECT_EQ(eval("(let [if (fn [a] a)] (if false 1 2))"), "2");
  EXPECT_EQ(eval("(cond-> 1 true inc)"), "2");
  EXPECT_EQ(eval("(let [f (fn [x] (* 2 x))] (f 21))"), "42");
}
