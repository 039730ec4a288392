;; Errors: each has the right reason, a location, and a message that names the
;; problem; analysis errors are reported before anything runs.
;; The format: tests/lang/README.md.
;; Errors.AnalysisErrors
(foo 1) ; expect-error: unbound_var at 1:2: undefined symbol foo
(let [x] x) ; expect-error: invalid_form at 1:6: pairs
(let x 1) ; expect-error: invalid_form at 1:6: binding vector
(if) ; expect-error: invalid_arity at 1:1: if expects
(if 1 2 3 4) ; expect-error: invalid_arity at 1:1: if expects
(recur 1) ; expect-error: invalid_form at 1:1: only allowed inside loop or fn
(loop [i 0] (+ 1 (recur i))) ; expect-error: invalid_form at 1:18: tail position
(loop [i 0] (recur)) ; expect-error: invalid_arity at 1:13: recur expects 1 argument
(fn [x] (recur 1 2)) ; expect-error: invalid_arity at 1:9: recur expects 1
(cond true) ; expect-error: invalid_form at 1:1: pairs
(def) ; expect-error: invalid_form at 1:1: needs a name
(def x) ; expect-error: invalid_form at 1:1: has no value
(def data/x 1) ; expect-error: invalid_form at 1:6: protected namespace
(inc 1 2) ; expect-error: arity_error at 1:1: inc expects 1 argument
{:a 1 :a 2} ; expect-error: invalid_form at 1:7: duplicate key :a
#{1 1} ; expect-error: invalid_form at 1:5: duplicate element 1
(case 1 1 :a 1 :b) ; expect-error: invalid_form at 1:14: duplicate case test
(case x y 1) ; expect-error: unbound_var at 1:7: undefined symbol x
(case 1 y 1) ; expect-error: invalid_form at 1:9: must be a literal
(fn [x & y z] x) ; expect-error: invalid_form at 1:8: & must be followed
(fn ([x] 1) ([y] 2)) ; expect-error: invalid_form at 1:14: two arities
(let [{:syms [a]} {}] a) ; expect-error: unsupported_pattern at 1:8: :syms
(let [5 1] 5) ; expect-error: unsupported_pattern at 1:7: cannot bind
(for [x 5] x) ; expect-error: invalid_form at 1:9: expects a collection
(for [x [1] :until true] x) ; expect-error: invalid_form at 1:13: unknown modifier
(#(%21)) ; expect-error: invalid_placeholder at 1:4: invalid placeholder
("a" 1) ; expect-error: not_callable at 1:2: is not a function
(1 2) ; expect-error: not_callable at 1:2: integer 1 is not a function
(2.5) ; expect-error: not_callable at 1:2: 2.5 is not a function
(nil 2) ; expect-error: not_callable at 1:2: nil is not a function
(try 1 (catch e 2)) ; expect-error: unbound_var at 1:2: not supported
(swap! a inc) ; expect-error: unbound_var at 1:2: not supported
(map when [1]) ; expect-error: invalid_form at 1:6: special form
data ; expect-error: unbound_var at 1:1: data is not a value
(clojure.string/capitalize "a") ; expect-error: unbound_var at 1:2: not available
(foo/bar 1) ; expect-error: unbound_var at 1:2: unknown namespace foo
tool/get-user ; expect-error: invalid_form at 1:1: must be called
(:a) ; expect-error: arity_error at 1:1: keyword :a called with 0
(defn f [x] {:pre [(pos? x)]} x) ; expect-error: invalid_form at 1:13: :pre/:post
(if-let [a 1 b 2] a) ; expect-error: invalid_form at 1:9: exactly one binding
(condp = 1 :>> inc) ; expect-error: invalid_form at 1:12: :>>
(if false #"(?=a)" 1) ; expect-error: type_error at 1:11: invalid regex
;; Errors.DidYouMeanHints
(fliter odd? [1 2]) ; expect-error: unbound_var
; expect-hint: filter
(let [count-x 1] cuont-x) ; expect-error: unbound_var
; expect-hint: count-x
;; Insertions, deletions and the longest distance still suggested (3).
(def order-total 1) ordr-total ; expect-error: unbound_var
; expect-hint: order-total
(def order-total 1) orderr-totall ; expect-error: unbound_var
; expect-hint: order-total
(def order-total 1) xxdxr-total ; expect-error: unbound_var
; expect-hint: order-total
(def order-total 1) xxdxx-total ; expect-error: unbound_var
; expect-no-hint: order-total
;; A binding that went out of scope is no longer suggested; the visible one is.
(let [apple 1] (let [apples 2] apples)) appl ; expect-error: unbound_var
; expect-hint: apply
; expect-no-hint: apple
(let [a 1] (let [a 2] a)) ; expect: 2
(let [a 1] (let [a 2] a) a) ; expect: 1
;; Errors.RuntimeErrors
(+ 1 nil) ; expect-error: type_error at 1:1: +: expected a number (argument 2), got nil
(name nil) ; expect-error: type_error at 1:1: got nil
(let [x "a"]
  (* 2 x)) ; expect-error: type_error at 2:3: expected a number
(/ 1 0) ; expect-error: arithmetic_error at 1:1: division by zero
(quot 1 0) ; expect-error: arithmetic_error at 1:1: division by zero
(map inc 5) ; expect-error: type_error at 1:1: map: expected a collection (argument 2)
(x 1) (def x 2) ; expect-error: unbound_var at 1:2: used before it is defined
((fn [x] x)) ; expect-error: arity_error at 1:1: called with 0 arguments, but takes 1
(defn f [a b] a) (f 1) ; expect-error: arity_error at 1:18: fn f called with 1 argument
(let [s "ab"] (s 0)) ; expect-error: not_callable at 1:15: string "ab" is not a function
(let [v [1 2]] (v 2)) ; expect-error: runtime_error at 1:16: index 2 is out of bounds
(let [m nil] (m 1)) ; expect-error: not_callable at 1:14: nil
(tool/get-user {:id 1}) ; expect-error: unknown_tool at 1:1: tool/get-user
(assoc [1 2] 5 :x) ; expect-error: runtime_error at 1:1: out of bounds
(nth {:a 1} 0) ; expect-error: type_error at 1:1: nth: expected a vector or string
(let [[a] 5] a) ; expect-error: destructure_error at 1:7: cannot destructure integer 5
(keyword "a b") ; expect-error: type_error at 1:1: invalid keyword name
(range 1 10 0) ; expect-error: type_error at 1:1: step
(map (fn [x] (+ x :k)) [1]) ; expect-error: type_error at 1:14: got keyword :k
;; Errors.ErrorInsideCallbackPointsAtTheCallback
(map
  (fn [x]
    (inc x))
  [1 "two"]) ; expect-error: type_error at 3:5
