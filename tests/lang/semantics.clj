;; End-to-end semantics of the core language through ptc::run: special forms,
;; destructuring, closures, recursion, and the printed results.
;; The format: tests/lang/README.md.
;; Semantics.Literals
nil ; expect: nil
true ; expect: true
42 ; expect: 42
-17 ; expect: -17
3.14 ; expect: 3.14
"hi\n" ; expect: "hi\n"
\a ; expect: "a"
:kw ; expect: :kw
[1 [2 3] {}] ; expect: [1 [2 3] {}]
{:a 1 :b [true nil]} ; expect: {:a 1 :b [true nil]}
#{1} ; expect: #{1}
##Inf ; expect: ##Inf
##NaN ; expect: ##NaN
123456789012345678901234567890 ; expect: 123456789012345678901234567890
() ; expect: []
'foo ; expect: 'foo
;; The empty program:
; expect: nil
1 2 3 ; expect: 3
;; Semantics.Arithmetic
(+ 1 2 3) ; expect: 6
(+) ; expect: 0
(*) ; expect: 1
(- 5) ; expect: -5
(- 10 3 2) ; expect: 5
(/ 10 2) ; expect: 5.0
(/ 1 4) ; expect: 0.25
(/ 2) ; expect: 0.5
(* 2 3.5) ; expect: 7.0
(+ 9223372036854775807 1) ; expect: 9223372036854775808
(* 9223372036854775807 9223372036854775807) ; expect: 85070591730234615847396907784232501249
(- -9223372036854775808 1) ; expect: -9223372036854775809
(- (+ 9223372036854775807 1) 1) ; expect: 9223372036854775807
(inc 9223372036854775807) ; expect: 9223372036854775808
(quot -7 2) ; expect: -3
(rem -10 3) ; expect: -1
(mod -10 3) ; expect: 2
(mod 10 -3) ; expect: -2
(/ 1.0 0.0) ; expect: ##Inf
(/ 0.0 0.0) ; expect: ##NaN
(max 1 5 3) ; expect: 5
(min 1 5 3) ; expect: 1
(abs -5) ; expect: 5
(+ 0.1 0.2) ; expect-printed: 0.3
;; Semantics.Comparison
(= 1 1.0) ; expect: true
(= [1 2] [1 2]) ; expect: true
(= {:a 1 :b 2} {:b 2 :a 1}) ; expect: true
(= ##NaN ##NaN) ; expect: false
(not= 1 2) ; expect: true
(< 1 2 3) ; expect: true
(< 1 3 2) ; expect: false
(> 5 nil) ; expect: false
(< nil 10) ; expect: false
(< 1 nil) ; expect: true
(> "b" "a") ; expect: true
(< ##NaN 0.0) ; expect: false
(>= ##NaN 0.0) ; expect: false
(compare 1 2) ; expect: -1
(= :a :a) ; expect: true
(= \a "a") ; expect: true
;; Semantics.Truthiness
(if nil :t :f) ; expect: :f
(if false :t :f) ; expect: :f
(if 0 :t :f) ; expect: :t
(if "" :t :f) ; expect: :t
(if [] :t :f) ; expect: :t
(if true :t) ; expect: :t
(if false :t) ; expect: nil
;; Semantics.ConditionalForms
(if-not true :y :n) ; expect: :n
(if-not false :y) ; expect: :y
(when (> 5 3) :a :b) ; expect: :b
(when false :a) ; expect: nil
(when-not false 1 2) ; expect: 2
(cond false :a (> 2 1) :b :else :c) ; expect: :b
(cond false :only) ; expect: nil
(cond) ; expect: nil
(case :a :a 1 :b 2) ; expect: 1
(case :z :a 1 :b 2 99) ; expect: 99
(case :c (:a :b) 1 (:c :d) 2) ; expect: 2
(case :z :a 1) ; expect: nil
(case nil nil "matched" :a "nope") ; expect: "matched"
(case 1.0 1 :one :other) ; expect: :one
(case "x" "x" :str [1 2] :vec) ; expect: :str
(case [1 2] "x" :str [1 2] :vec) ; expect: :vec
(condp = :a :a 1 :b 2) ; expect: 1
(condp > 5 10 "big" 3 "small") ; expect: "big"
(condp = :z :a 1 "default") ; expect: "default"
(condp = :z :a 1 :b 2) ; expect: nil
(if-let [x 0] :t :f) ; expect: :t
(if-let [x nil] :t :f) ; expect: :f
(if-let [[a b] [1 2]] (+ a b) :none) ; expect: 3
(when-let [{:keys [a]} {:a 5}] (inc a)) ; expect: 6
(when-let [x false] (+ x 1)) ; expect: nil
(if-some [x false] x :nope) ; expect: false
(if-some [x nil] x :nope) ; expect: :nope
(when-some [x 42] (inc x)) ; expect: 43
(when-first [x [1 2 3]] x) ; expect: 1
(when-first [x []] x) ; expect: nil
(when-first [x nil] x) ; expect: nil
(when-first [x "ab"] x) ; expect: "a"
;; Semantics.AndOr
(and) ; expect: true
(or) ; expect: nil
(and 1 2 3) ; expect: 3
(and 1 nil 3) ; expect: nil
(and 1 false 3) ; expect: false
(or nil false "x") ; expect: "x"
(or nil false) ; expect: false
(let [x 5] (and (> x 1) (< x 10))) ; expect: true
;; Semantics.LetAndDestructuring
(let [x 1 y (+ x 1)] y) ; expect: 2
(let [x 1] (let [x 2] x)) ; expect: 2
(let [x 10] (def saved x) (* x 2)) ; expect: 20
(let [[a b] [1 2]] (+ a b)) ; expect: 3
(let [[_ b] [1 2]] b) ; expect: 2
(let [[a [b c]] [1 [2 3]]] (+ a b c)) ; expect: 6
(let [[x & rest] [1 2 3 4]] rest) ; expect: [2 3 4]
(let [[a b & rest] [1 2 3 4 5]] [a b rest]) ; expect: [1 2 [3 4 5]]
(let [[& all] [1 2 3]] all) ; expect: [1 2 3]
(let [[x & rest] [1]] rest) ; expect: nil
(let [[a b :as all] [1 2 3]] [a b all]) ; expect: [1 2 [1 2 3]]
(let [[a b c] [1]] [a b c]) ; expect: [1 nil nil]
(let [[a b] "xy"] b) ; expect: "y"
(let [[a b] nil] [a b]) ; expect: [nil nil]
(let [{:keys [name age]} {:name "Alice" :age 30}] name) ; expect: "Alice"
(let [{:keys [name age] :or {age 0}} {:name "Bob"}] age) ; expect: 0
(let [{:keys [a] :or {a 5}} {:a nil}] a) ; expect: nil
(let [{the-name :name} {:name "Carol"}] the-name) ; expect: "Carol"
(let [{:keys [id] :as user} {:id 123 :name "Alice"}] (:name user)) ; expect: "Alice"
(let [{:strs [name age]} {"name" "Alice" "age" 30}] name) ; expect: "Alice"
(let [{:keys [name]} {"name" "json"}] name) ; expect: "json"
(let [{:keys [a b] :or {b 2}} {:a 1}] (+ a b)) ; expect: 3
(let [{[x y] :point} {:point [3 4]}] (* x y)) ; expect: 12
(let [[{:keys [a]} {:keys [b]}] [{:a 1} {:b 2}]] (+ a b)) ; expect: 3
(let [{:keys [:a]} {:a 7}] a) ; expect: 7
(let [[k v] (first (seq {:a 1}))] [k v]) ; expect: [:a 1]
((fn [& {:keys [a b]}] [a b]) :a 1 :b 2) ; expect: [1 2]
;; Semantics.FunctionsAndClosures
((fn [x] (* x 2)) 21) ; expect: 42
(let [mk (fn [x] (fn [y] (+ x y)))] ((mk 10) 5)) ; expect: 15
(let [a 1] (let [f (fn [] (let [b 2] (fn [] (+ a b))))] ((f)))) ; expect: 3
((fn [a & more] [a more]) 1 2 3) ; expect: [1 [2 3]]
((fn [a & more] [a more]) 1) ; expect: [1 nil]
((fn ([x] [:one x]) ([x y] [:two x y])) 1 2) ; expect: [:two 1 2]
((fn ([x] [:one x]) ([x & r] [:many x r])) 1 2 3) ; expect: [:many 1 [2 3]]
((fn fact [n] (if (< n 2) 1 (* n (fact (dec n))))) 5) ; expect: 120
((fn [[a b]] (+ a b)) [1 2]) ; expect: 3
((fn [{:keys [x]}] x) {:x 9}) ; expect: 9
(#(+ % 1) 1) ; expect: 2
(#(+ %1 %2) 1 2) ; expect: 3
(#(* % %) 4) ; expect: 16
(#(vector %1 %&) 1 2 3) ; expect: [1 [2 3]]
(#(42)) ; expect: 42
(#(%) 5) ; expect: 5
(#(str %2) 1 2) ; expect: "2"
(map #(* % 10) [1 2 3]) ; expect: [10 20 30]
(defn twice [x] (* x 2)) (twice 21) ; expect: 42
(defn greet "doc" [name] (str "Hello, " name)) (greet "W") ; expect: "Hello, W"
(defn f ([x] (f x 10)) ([x y] (+ x y))) (f 1) ; expect: 11
(defn sum-all [& xs] (reduce + 0 xs)) (sum-all 1 2 3) ; expect: 6
(defn first-name [[first last]] first) (first-name ["Alice" "Smith"]) ; expect: "Alice"
(def rate 0.1) (defn apply-rate [x] (* x rate)) (apply-rate 100) ; expect: 10.0
(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 20) ; expect: 6765
(defn is-even [n] (if (= n 0) true (is-odd (dec n)))) (defn is-odd [n] (if (= n 0) false (is-even (dec n)))) (is-even 10) ; expect: true
(fn [x y] x) ; expect: #fn[x y]
inc ; expect: #<builtin>
(let [fn 5] fn) ; expect: 5
(let [if inc] (if true 1 2)) ; expect: 1
(let [when (fn [a b] [a b])] (when 1 2)) ; expect: [1 2]
(let [let 3] (+ let 1)) ; expect: 4
;; Semantics.DefAndGlobals
(def x 42) ; expect: #'x
(def x 42) x ; expect: 42
(def x 1) (def x 2) x ; expect: 2
(def a 1) (def b (+ a 1)) b ; expect: 2
(defonce t 0) (defonce t 5) t ; expect: 0
(defonce t 0) ; expect: #'t
(def map {}) map ; expect: {}
(map inc [1]) ; expect: [2]
(def s "doc" 3) s ; expect: 3
(def x 1) #'x ; expect: #'x
(defn f [] (g)) (defn g [] :g) (f) ; expect: :g
;; Semantics.LoopRecur
(loop [i 0 acc 0] (if (< i 5) (recur (inc i) (+ acc i)) acc)) ; expect: 10
((fn [n acc] (if (> n 0) (recur (dec n) (* acc n)) acc)) 5 1) ; expect: 120
(loop [[head & tail] [1 2 3 4] sum 0] (if head (recur tail (+ sum head)) sum)) ; expect: 10
(loop [i 1 acc 0] (if (> i 1000) acc (recur (inc i) (+ acc i)))) ; expect: 500500
(loop [x 1] (let [y (* x 2)] (if (< y 100) (recur y) y))) ; expect: 128
(loop [a 1 b 2] (if (> a 10) [a b] (recur b (+ a b)))) ; expect: [13 21]
(defn count-down [n] (if (zero? n) :done (recur (dec n)))) (count-down 500) ; expect: :done
(loop [i 0] (when (< i 3) (recur (inc i)))) ; expect: nil
(loop [i 0] (cond (= i 3) :three :else (recur (inc i)))) ; expect: :three
(loop [i 0] (case i 5 :five (recur (inc i)))) ; expect: :five
(loop [i 0] (and true (if (< i 2) (recur (inc i)) i))) ; expect: 2
;; Semantics.ForAndDoseq
(for [x [1 2 3]] (* x 2)) ; expect: [2 4 6]
(for [x [1 2] y ["a" "b"]] [x y]) ; expect: [[1 "a"] [1 "b"] [2 "a"] [2 "b"]]
(for [[k v] {:a 1 :b 2}] (str k "=" v)) ; expect: [":a=1" ":b=2"]
(for [x [1 2 3 4 5] :when (odd? x)] x) ; expect: [1 3 5]
(for [x [1 2 3] :let [y (* x 10)]] y) ; expect: [10 20 30]
(for [x [1 2 3 4 5] :while (< x 4)] x) ; expect: [1 2 3]
(for [x [1 2 3 4] :when (odd? x) :let [y (* x 10)]] y) ; expect: [10 30]
(for [x [1 2 3] :let [y (* x 2)] :when (> y 3)] y) ; expect: [4 6]
(for [x [1 2] y [10 20 30] :while (< y 25)] [x y]) ; expect: [[1 10] [1 20] [2 10] [2 20]]
(for [x [] ] x) ; expect: []
(for [x nil] x) ; expect: []
(for [c "ab"] c) ; expect: ["a" "b"]
(doseq [x [1 2 3]] (println x)) ; expect: nil
(for [x [1 2 3]] (println x) (* x 10)) ; expect: [10 20 30]
(dotimes [i 3] (println i)) ; expect: nil
;; Semantics.ForHasNoLoopLimit
(count (for [x (range 5000)] x)) ; expect: 5000
; no-gc-stress: 5000 items one step at a time, past the 1 s timeout under the sanitizers when every step collects
(count (for [x (range 100) y (range 100)] [x y])) ; expect: 10000
; no-gc-stress: 10^4 items one step at a time, quadratic when every step collects
(doseq [x [1 2 3]] (println "x" x)) ; expect: nil
; expect-output: ["x 1" "x 2" "x 3"]
;; Semantics.Threading
(->> [1 2 3] (map inc)) ; expect: [2 3 4]
(->> [1 2 3] (map inc) (filter even?)) ; expect: [2 4]
(-> {:a 1} (assoc :b 2)) ; expect: {:a 1 :b 2}
(-> {:a 1} (assoc :b 2) (assoc :c 3)) ; expect: {:a 1 :b 2 :c 3}
(-> {:a {:b 1}} :a :b) ; expect: 1
(-> 5 inc (- 1)) ; expect: 5
(->> 5 inc (- 1)) ; expect: -5
(as-> 1 x (+ x 1) (* x 2)) ; expect: 4
(as-> 42 x) ; expect: 42
(cond-> 1 true inc false dec) ; expect: 2
(cond-> 42) ; expect: 42
(cond-> 10 true (- 5)) ; expect: 5
(cond->> 10 true (- 5)) ; expect: -5
(some-> 1 inc) ; expect: 2
(some-> nil inc) ; expect: nil
(some-> {:a nil} (:a) inc) ; expect: nil
(some-> false not) ; expect: true
(some->> [1 2 3] (map inc)) ; expect: [2 3 4]
(some->> nil (map inc)) ; expect: nil
(let [inc dec] (-> 5 inc)) ; expect: 4
;; Semantics.KeywordsMapsSetsAsFunctions
(:name {:name "Alice"}) ; expect: "Alice"
(:missing {:name "Alice"} "default") ; expect: "default"
({:name "Alice"} :name) ; expect: "Alice"
({:a 1} :missing "d") ; expect: "d"
({"name" "Alice"} "name") ; expect: "Alice"
(#{1 2 3} 2) ; expect: 2
(#{1 2 3} 4) ; expect: nil
(filter #{:a :b} [:a :c :b]) ; expect: [:a :b]
(map :name [{:name "A"} {:name "B"}]) ; expect: ["A" "B"]
(filter :active [{:active true} {:active false}]) ; expect: [{:active true}]
(:status {"status" "ok"}) ; expect: "ok"
(:turn-summaries {"turn_summaries" 3}) ; expect: 3
(:a [1 2]) ; expect: nil
;; Semantics.CoreBuiltins
(count [1 2 3]) ; expect: 3
(count {:a 1}) ; expect: 1
(count "héllo") ; expect: 5
(count nil) ; expect: 0
(first [1 2]) ; expect: 1
(first []) ; expect: nil
(first "hello") ; expect: "h"
(rest [1 2 3]) ; expect: [2 3]
(rest []) ; expect: []
(next [1]) ; expect: nil
(nth [1 2 3] 1) ; expect: 2
(nth [1 2 3] 10) ; expect: nil
(nth [1 2 3] 10 :d) ; expect: :d
(get {:a 1} :a) ; expect: 1
(get {:a 1} :b "default") ; expect: "default"
(get [1 2 3] 1) ; expect: 2
(conj [1 2] 3) ; expect: [1 2 3]
(conj #{1 2} 3) ; expect: #{1 2 3}
(conj {:a 1} [:b 2]) ; expect: {:a 1 :b 2}
(conj nil 1) ; expect: [1]
(assoc {:a 1} :b 2) ; expect: {:a 1 :b 2}
(assoc [1 2 3] 1 5) ; expect: [1 5 3]
(assoc [1 2] 2 3) ; expect: [1 2 3]
(assoc nil :a 1) ; expect: {:a 1}
(dissoc {:a 1 :b 2 :c 3} :a :b) ; expect: {:c 3}
(contains? ["a" "b" "c"] "b") ; expect: true
(contains? ["a" "b" "c"] 1) ; expect: false
(contains? {:a 1} :a) ; expect: true
(let [x 1] {:a x :b #{x}}) ; expect: {:a 1 :b #{1}}
(vector 1 2) ; expect: [1 2]
(list 1 2) ; expect: [1 2]
(hash-map :a 1 :b 2) ; expect: {:a 1 :b 2}
(hash-set 1 1 2) ; expect: #{1 2}
(map + [1 2 3] [10 20 30]) ; expect: [11 22 33]
(map + [1 2 3 4] [10 20]) ; expect: [11 22]
(map (fn [[k v]] [v k]) {:a 1}) ; expect: [[1 :a]]
(filter odd? [1 2 3 4]) ; expect: [1 3]
(remove odd? [1 2 3 4]) ; expect: [2 4]
(reduce + [1 2 3]) ; expect: 6
(reduce + []) ; expect: 0
(reduce - 10 [1 2 3]) ; expect: 4
(reduce (fn [acc [k v]] (+ acc v)) 0 {:a 1 :b 2}) ; expect: 3
(reduce (fn [acc x] (str acc "-" x)) "a" "bc") ; expect: "a-b-c"
(range 5) ; expect: [0 1 2 3 4]
(range 5 10) ; expect: [5 6 7 8 9]
(range 0 10 2) ; expect: [0 2 4 6 8]
(range 10 0 -2) ; expect: [10 8 6 4 2]
(range 5 5) ; expect: []
(range 0 1 0.25) ; expect: [0 0.25 0.5 0.75]
(str) ; expect: ""
(str 42 true nil :user "x") ; expect: "42true:userx"
(str {:a 1}) ; expect: "{:a 1}"
(str 'sym) ; expect: "sym"
(str 1.5 1.0E10) ; expect: "1.51.0E10"
(keyword "foo") ; expect: :foo
(keyword nil) ; expect: nil
(name :foo) ; expect: "foo"
(pr-str 1 "a") ; expect: "1 \"a\""
;; Semantics.ReturnAndFail
(do (return 5) 6) ; expect: 5
(map (fn [x] (if (= x 2) (return :early) x)) [1 2 3]) ; expect: :early
;; Semantics.TasksWithoutAJournalJustRun
(task "fetch" (+ 1 2)) ; expect: 3
(let [x (task "t" [1 2])] (count x)) ; expect: 2
(step-done "gather" "Found 3") ; expect: "Found 3"
(task-reset "fetch") ; expect: nil
(loop [i 0] (if (< i 2) (task "t" (recur (inc i))) i)) ; expect: 2
(task :id 1) ; expect-error: type_error
;; Semantics.CommentAndDiscard
(comment (undefined-thing)) 5 ; expect: 5
[1 #_ 2 3] ; expect: [1 3]
;; A comment line between forms is skipped.
1
; just a comment
 4 ; expect: 4
;; Semantics.FormHeadsAndShadowingLocals
;; Forms are found by their head's name (frontend/form_heads.hpp): forms
;; still expand, calls still call, and a local named like a macro is called
;; as the local (only the true special forms cannot be shadowed).
(when true (-> 1 inc (+ 2))) ; expect: 4
(let [when (fn [a b] (+ a b))] (when 1 2)) ; expect: 3
(let [if (fn [a] a)] (if false 1 2)) ; expect: 2
(cond-> 1 true inc) ; expect: 2
(let [f (fn [x] (* 2 x))] (f 21)) ; expect: 42
