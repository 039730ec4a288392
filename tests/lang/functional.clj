;; Ordering, aggregation, function combinators, clojure.walk and pmap/pcalls,
;; run end to end.
;; The format: tests/lang/README.md.

;; ---- sort
;; LibSort.NaturalOrder
(sort [3 1 2]) ; expect: [1 2 3]
(sort [2.5 1 -3 2]) ; expect: [-3 1 2 2.5]
(sort ["b" "a" "c"]) ; expect: ["a" "b" "c"]
(sort [:b :c :a]) ; expect: [:a :b :c]
(sort [[2 1] [1 2] [1 1]]) ; expect: [[1 1] [1 2] [2 1]]
;; Bignums take their numeric place.
(sort [(* 9223372036854775807 2) 1 -5]) ; expect: [-5 1 18446744073709551614]
;; LibSort.MixedTypesUseTheTotalTermOrder
;; DIV-30: numbers before nil/keywords, strings last; no error.
(sort [1 nil]) ; expect: [1 nil]
(sort ["a" 1]) ; expect: [1 "a"]
(sort ["x" nil 2 :k 1.5]) ; expect: [1.5 2 :k nil "x"]
;; LibSort.SeqablesAndNil
(sort nil) ; expect: []
(sort []) ; expect: []
(sort #{3 1 2}) ; expect: [1 2 3]
(sort {:b 2 :a 1}) ; expect: [[:a 1] [:b 2]]
(sort "cab") ; expect: ["a" "b" "c"]
(sort > nil) ; expect: []
;; LibSort.Comparators
(sort :desc [1 3 2]) ; expect: [3 2 1]
(sort :asc [3 1 2]) ; expect: [1 2 3]
;; GAP-S46: nil is the default
(sort nil [2 1]) ; expect: [1 2]
(sort > [1 3 2]) ; expect: [3 2 1]
(sort < [1 3 2]) ; expect: [1 2 3]
(sort compare [3 1 2]) ; expect: [1 2 3]
(sort (fn [a b] (compare b a)) [3 1 2]) ; expect: [3 2 1]
(sort (fn [a b] (- a b)) [3 1 2]) ; expect: [1 2 3]
(sort (fn [a b] (- a b)) [0.5 0.25 0.75]) ; expect: [0.25 0.5 0.75]
;; GAP-S107: a predicate that never says "before" keeps the input order.
(sort (fn [a b] false) [3 1 2]) ; expect: [3 1 2]
;; LibSort.IsStable
(sort-by :k [{:k 1 :i 0} {:k 0 :i 1} {:k 1 :i 2} {:k 0 :i 3}]) ; expect: [{:k 0 :i 1} {:k 0 :i 3} {:k 1 :i 0} {:k 1 :i 2}]
(sort-by :k > [{:k 1 :i 0} {:k 2 :i 1} {:k 1 :i 2}]) ; expect: [{:k 2 :i 1} {:k 1 :i 0} {:k 1 :i 2}]
(sort-by :k :desc [{:k 1 :i 0} {:k 2 :i 1} {:k 1 :i 2}]) ; expect: [{:k 2 :i 1} {:k 1 :i 0} {:k 1 :i 2}]
(map :i (sort (fn [a b] (compare (:k a) (:k b)))   (map (fn [i] {:k (mod i 3) :i i}) (range 9)))) ; expect: [0 3 6 1 4 7 2 5 8]
;; LibSort.LargeInputs
(= (sort (map (fn [i] (mod (* i 7919) 10007)) (range 10007))) (range 10007)) ; expect: true
; no-gc-stress: 10^4 items sorted one step at a time, past the 1 s timeout under the sanitizers when every step collects
(let [s (sort > (range 5000))] [(first s) (nth s 1) (last s)]) ; expect: [4999 4998 0]
;; A comparator that is not a consistent order still terminates with a permutation.
(count (sort (fn [a b] (odd? (+ a b))) (range 1000))) ; expect: 1000
(reduce + (sort (fn [a b] (mod (+ a (* 3 b)) 3)) (range 1000))) ; expect: 499500
;; LibSort.Errors
(sort 5) ; expect-error: type_error
(sort :name [1 2]) ; expect-error: type_error
(sort [1 2] :desc) ; expect-error: type_error
(sort) ; expect-error: arity_error
(sort < [1] [2]) ; expect-error: arity_error
(sort (fn [a b] "x") [2 1]) ; expect-error: type_error: the comparator returned string
(sort (fn [a] 1) [2 1]) ; expect-error: arity_error: sort: the comparator failed
;; LibSortBy.KeysAndComparators
(sort-by :price [{:price 3} {:price 1} {:price 2}]) ; expect: [{:price 1} {:price 2} {:price 3}]
(sort-by "price" [{:price 3} {:price 1}]) ; expect: [{:price 1} {:price 3}]
(sort-by :price [{"price" 3} {"price" 1}]) ; expect: [{"price" 1} {"price" 3}]
(sort-by first [["b" 2] ["a" 1] ["c" 3]]) ; expect: [["a" 1] ["b" 2] ["c" 3]]
(sort-by (fn [x] (nth x 1)) > [["a" 2] ["b" 1] ["c" 3]]) ; expect: [["c" 3] ["a" 2] ["b" 1]]
(sort-by :p (fn [a b] (compare b a)) [{:p 1} {:p 2}]) ; expect: [{:p 2} {:p 1}]
(sort-by second > {:food 100 :travel 500 :office 200}) ; expect: [[:travel 500] [:office 200] [:food 100]]
(sort-by (juxt :p :n) [{:p 2 :n "b"} {:p 1 :n "z"} {:p 2 :n "a"}]) ; expect: [{:p 1 :n "z"} {:p 2 :n "a"} {:p 2 :n "b"}]
;; maps are callable
(sort-by {:a 2 :b 1} [:a :b]) ; expect: [:b :a]
(sort-by - #{1 3 2}) ; expect: [3 2 1]
;; DIV-30: a nil key sorts after the numbers.
(sort-by :a [{:a nil} {:a 1}]) ; expect: [{:a 1} {:a nil}]
(sort-by identity (fn [a b] false) [2 1]) ; expect: [2 1]
;; LibSortBy.NilAndEmpty
(sort-by :x []) ; expect: []
(sort-by :x nil) ; expect: []
(sort-by :x > nil) ; expect: []
;; LibSortBy.KeyFunctionsRunOncePerItem
(sort-by (fn [x] (println x) x) [3 1 2]) ; expect: [1 2 3]
; expect-output: ["3" "1" "2"]
;; LibSortBy.Errors
(sort-by 5 [1 2]) ; expect-error: type_error
(sort-by :a 5) ; expect-error: type_error
(sort-by :a 1 [{:a 1}]) ; expect-error: type_error
(sort-by :a) ; expect-error: arity_error
(sort-by inc [1 "a"]) ; expect-error: type_error: sort-by: the key function failed on "a"

;; ---- aggregates
;; LibAggregate.SumAndAvg
(sum [1 2 3 4 5]) ; expect: 15
(sum [1 2.5]) ; expect: 3.5
(sum [1 nil 2]) ; expect: 3
(sum [9223372036854775807 1]) ; expect: 9223372036854775808
(sum #{1 2}) ; expect: 3
(avg [1 2 3 4 5]) ; expect: 3.0
(avg [10 20]) ; expect: 15.0
(avg [1 nil 2]) ; expect: 1.5
;; LibAggregate.SumAndAvgEmpty
(sum []) ; expect: 0
(sum nil) ; expect: 0
(avg []) ; expect: nil
(avg nil) ; expect: nil
(avg [nil]) ; expect: nil
;; LibAggregate.SumAndAvgErrors
(sum [1 "2"]) ; expect-error: arithmetic_error
(avg [:a]) ; expect-error: arithmetic_error
(sum 5) ; expect-error: type_error
(sum) ; expect-error: arity_error
(avg [1] [2]) ; expect-error: arity_error
;; LibAggregate.SumByAndAvgBy
(sum-by :amount [{:amount 10} {:amount nil} {:other 5}]) ; expect: 10
(avg-by :amount [{:amount 10} {:amount nil} {:amount 20}]) ; expect: 15.0
(sum-by "amount" [{:amount 1} {"amount" 2}]) ; expect: 3
(sum-by (fn [x] (nth x 1)) [["a" 2] ["b" 3]]) ; expect: 5
(sum-by second {:a 1 :b 2}) ; expect: 3
;; a key path
(sum-by [:a :b] [{:a {:b 1}} {:a {:b 2}} {:a nil}]) ; expect: 3
(sum-by :x []) ; expect: 0
(sum-by :x nil) ; expect: 0
(avg-by :x []) ; expect: nil
(avg-by :x [{:y 1}]) ; expect: nil
;; LibAggregate.SumByErrors
(sum-by :amount [{:amount "10"} {:amount 20}]) ; expect-error: arithmetic_error: sum-by
(avg-by :value [{:value {:x 1}}]) ; expect-error: arithmetic_error
(sum-by 5 [{:a 1}]) ; expect-error: type_error
(sum-by :a 5) ; expect-error: type_error
(sum-by :a) ; expect-error: arity_error
;; LibAggregate.MinByMaxBy
(min-by :price [{:price nil} {:price 10} {:price 5}]) ; expect: {:price 5}
(max-by :price [{:price nil} {:price 10} {:price 5}]) ; expect: {:price 10}
(min-by first [["b" 2] ["a" 1]]) ; expect: ["a" 1]
(max-by (fn [x] (nth x 1)) [["a" 2] ["b" 3]]) ; expect: ["b" 3]
;; The first of equal keys wins.
(min-by :k [{:k 1 :i 0} {:k 1 :i 1}]) ; expect: {:k 1 :i 0}
(max-by :k [{:k 1 :i 0} {:k 1 :i 1}]) ; expect: {:k 1 :i 0}
;; Individual items instead of a collection.
(min-by :x {:x 3} {:x 1} {:x 2}) ; expect: {:x 1}
(max-by count "a" "abc" "ab") ; expect: "abc"
(max-by second {:a 1 :b 5 :c 2}) ; expect: [:b 5]
;; LibAggregate.MinByMaxByEmpty
(min-by :x []) ; expect: nil
(max-by :x []) ; expect: nil
(max-by :x nil) ; expect: nil
(min-by :x [{:y 1}]) ; expect: nil
;; LibAggregate.MinByMaxByErrors
(min-by 5 [1]) ; expect-error: type_error
(max-by :x) ; expect-error: arity_error
(max-by inc ["a"]) ; expect-error: type_error
;; LibAggregate.MinKeyMaxKey
(max-key count "a" "abc" "ab") ; expect: "abc"
(min-key count "abc" "a" "ab") ; expect: "a"
(max-key #(nth % 1) ["a" 1] ["b" 5] ["c" 3]) ; expect: ["b" 5]
(max-key count "x") ; expect: "x"
;; GAP-S47: the later of tied values wins.
(min-key count "a" "bb" "c") ; expect: "c"
(max-key count "aa" "bb" "c") ; expect: "bb"
(max-key count "a" "b" "c") ; expect: "c"
;; DIV-30: total term order for non-numbers.
(max-key :a {:a nil} {:a 1}) ; expect: {:a nil}
(min-key identity true false) ; expect: false
(max-key {:a 1 :b 2} :a :b) ; expect: :b
(apply max-key second [[:a 3] [:b 7] [:c 2]]) ; expect: [:b 7]
;; LibAggregate.MinKeyMaxKeyErrors
(max-key count) ; expect-error: arity_error
(min-key 5 1 2) ; expect-error: type_error
(max-key inc "a" "b") ; expect-error: type_error
;; LibAggregate.DistinctBy
(distinct-by first [["a" 1] ["a" 2] ["b" 3]]) ; expect: [["a" 1] ["b" 3]]
(distinct-by :c [{:c 1 :i 1} {:c 2 :i 2} {:c 1.0 :i 3}]) ; expect: [{:c 1 :i 1} {:c 2 :i 2}]
;; both keys are nil
(distinct-by :x [{:y 1} {:y 2}]) ; expect: [{:y 1}]
(distinct-by :x []) ; expect: []
(distinct-by :x nil) ; expect: []
(distinct-by :x 5) ; expect-error: type_error
(distinct-by 5 [1]) ; expect-error: type_error
(distinct-by :x) ; expect-error: arity_error
;; LibAggregate.GroupBy
(group-by first [["a" 1] ["a" 2] ["b" 3]]) ; expect: {"a" [["a" 1] ["a" 2]] "b" [["b" 3]]}
(group-by :s [{:s :x :i 1} {:s :y :i 2} {:s :x :i 3} {:i 4}]) ; expect: {:x [{:s :x :i 1} {:s :x :i 3}] :y [{:s :y :i 2}] nil [{:i 4}]}
(group-by odd? [1 2 3]) ; expect: {true [1 3] false [2]}
(group-by identity "aba") ; expect: {"a" ["a" "a"] "b" ["b"]}
(group-by #{:a} [:a :b]) ; expect: {:a [:a] nil [:b]}
(group-by second {:a 1 :b 2 :c 1}) ; expect: {1 [[:a 1] [:c 1]] 2 [[:b 2]]}
(count (group-by #(mod % 100) (range 10000))) ; expect: 100
; no-gc-stress: 10^4 items grouped one step at a time, past the 1 s timeout under the sanitizers when every step collects
(group-by :x nil) ; expect: {}
(group-by :x []) ; expect: {}
(group-by :x 5) ; expect-error: type_error
(group-by 5 [1]) ; expect-error: type_error
(group-by :x) ; expect-error: arity_error
;; LibAggregate.Frequencies
(frequencies [:a :b :a :c :b :a]) ; expect: {:a 3 :b 2 :c 1}
(frequencies "hello") ; expect: {"h" 1 "e" 1 "l" 2 "o" 1}
;; = is numeric
(frequencies [1 1.0 2]) ; expect: {1 2 2 1}
(frequencies {:a 1}) ; expect: {[:a 1] 1}
(frequencies [[1 2] [1 2] nil]) ; expect: {[1 2] 2 nil 1}
(frequencies nil) ; expect: {}
(frequencies []) ; expect: {}
(frequencies 5) ; expect-error: type_error
(frequencies) ; expect-error: arity_error

;; ---- apply
;; LibApply.Spreads
(apply + [1 2 3]) ; expect: 6
(apply str ["a" "b" "c"]) ; expect: "abc"
(apply + 1 2 [3 4]) ; expect: 10
(apply merge {:a 1} [{:b 2} {:c 3}]) ; expect: {:a 1 :b 2 :c 3}
(apply :name [{:name "Alice"}]) ; expect: "Alice"
(apply #{1 2 3} [2]) ; expect: 2
(apply + #{1 2}) ; expect: 3
(apply vector {:a 1}) ; expect: [[:a 1]]
(apply (fn [x & xs] xs) 1 2 [3 4]) ; expect: [2 3 4]
(map #(apply + %) [[1 2] [3 4]]) ; expect: [3 7]
(apply max (range 5000)) ; expect: 4999
;; LibApply.NilAndEmpty
(apply + []) ; expect: 0
;; GAP-S33: nil is an empty sequence and strings spread their characters.
(apply + nil) ; expect: 0
(apply vector nil) ; expect: []
(apply str "ab") ; expect: "ab"
(apply str "a" "bc") ; expect: "abc"
;; LibApply.Errors
(apply + 1 2 3) ; expect-error: type_error
(apply nil [1]) ; expect-error: not_callable
(apply 5 [1]) ; expect-error: not_callable
(apply +) ; expect-error: arity_error
(apply inc [1 2]) ; expect-error: arity_error

;; ---- combinators
;; LibCombinators.Comp
((comp str inc) 5) ; expect: "6"
((comp str +) 1 2 3) ; expect: "6"
((comp inc inc inc) 0) ; expect: 3
((comp) 42) ; expect: 42
((comp inc) 5) ; expect: 6
(map (comp inc inc) [1 2 3]) ; expect: [3 4 5]
((comp inc {:a 1}) :a) ; expect: 2
((comp :b :a) {:a {:b 7}}) ; expect: 7
(fn? (comp inc dec)) ; expect: true
(str (comp inc dec)) ; expect: "#fn[...]"
(comp 5) ; expect-error: type_error
((comp nil) 1) ; expect-error: type_error
((comp inc inc) 1 2) ; expect-error: arity_error
;; LibCombinators.Partial
((partial + 10) 5) ; expect: 15
((partial + 1 2)) ; expect: 3
((partial +) 1 2) ; expect: 3
((partial str "a" "b") "c" "d") ; expect: "abcd"
(map (partial + 10) [1 2 3]) ; expect: [11 12 13]
((partial {:a 1}) :a) ; expect: 1
((partial get {:a 1}) :a) ; expect: 1
(fn? (partial + 1)) ; expect: true
(partial) ; expect-error: arity_error
(partial 5 1) ; expect-error: type_error
((partial inc 1) 2) ; expect-error: arity_error
;; LibCombinators.Juxt
((juxt :name :age) {:name "Alice" :age 30}) ; expect: ["Alice" 30]
((juxt #(+ % 1) #(* % 2)) 5) ; expect: [6 10]
((juxt first last) [1 2 3]) ; expect: [1 3]
;; GAP-S58
((juxt + vector) 1 2 3) ; expect: [6 [1 2 3]]
((juxt #{:a} {:a 1}) :a) ; expect: [:a 1]
(map (juxt :x :y) [{:x 1 :y 2} {:x 3}]) ; expect: [[1 2] [3 nil]]
;; GAP-S110
(juxt) ; expect-error: arity_error
((juxt) 1) ; expect-error: arity_error
(juxt :a 5) ; expect-error: type_error
;; LibCombinators.ComplementAndConstantly
((complement even?) 3) ; expect: true
((complement even?) 4) ; expect: false
((complement <) 3 2) ; expect: true
((complement :a) {:a 1}) ; expect: false
((complement identity) nil) ; expect: true
(filter (complement even?) [1 2 3 4]) ; expect: [1 3]
((constantly 5) 1 2 3) ; expect: 5
((constantly 5)) ; expect: 5
((constantly nil) :a :b) ; expect: nil
(map (constantly [1]) [:a :b]) ; expect: [[1] [1]]
(complement 5) ; expect-error: type_error
(complement) ; expect-error: arity_error
(constantly 1 2) ; expect-error: arity_error
;; LibCombinators.EveryPredAndSomeFn
((every-pred even? pos?) 4) ; expect: true
((every-pred even? pos?) -4) ; expect: false
((every-pred even? pos?) 4 6 8) ; expect: true
((every-pred even? pos?) 4 -6 8) ; expect: false
;; always a boolean
((every-pred :a) {:a 1}) ; expect: true
((every-pred even?)) ; expect: true
(filter (every-pred even? pos?) [-2 -1 0 1 2 3 4]) ; expect: [2 4]
((some-fn :a :b) {:a 1}) ; expect: 1
((some-fn :a :b) {:b 2}) ; expect: 2
((some-fn :a :b) {:c 3}) ; expect: nil
((some-fn even? pos?) 3) ; expect: true
((some-fn even? pos?) -3) ; expect: false
((some-fn even?)) ; expect: nil
((some-fn even?) 1 3 4) ; expect: true
((some-fn {:a nil} {:b 2}) :b) ; expect: 2
(every-pred) ; expect-error: arity_error
(some-fn) ; expect-error: arity_error
(every-pred even? 5) ; expect-error: type_error
(some-fn "a") ; expect-error: type_error
;; LibCombinators.Fnil
((fnil inc 0) nil) ; expect: 1
((fnil inc 0) 5) ; expect: 6
(update {:n nil} :n (fnil inc 0)) ; expect: {:n 1}
(update {:n nil} :n (fnil + 0) 5) ; expect: {:n 5}
;; GAP-S42
((fnil + 10 20) nil nil) ; expect: 30
((fnil vector 1 2 3) nil nil nil) ; expect: [1 2 3]
((fnil vector 1 2 3) nil 5 nil nil) ; expect: [1 5 3 nil]
((fnil vector 1 2) nil) ; expect: [1]
((fnil {:a 1} :x) nil) ; expect: nil
((fnil :a {:a 9}) nil) ; expect: 9
(fnil inc) ; expect-error: arity_error
(fnil inc 1 2 3 4) ; expect-error: arity_error
(fnil 5 1) ; expect-error: type_error
;; LibCombinators.UsableEverywhere
(sort-by (comp - :a) [{:a 1} {:a 3} {:a 2}]) ; expect: [{:a 3} {:a 2} {:a 1}]
(reduce (partial +) 0 [1 2 3]) ; expect: 6
(apply (juxt min max) [3 1 2]) ; expect: [1 3]
(group-by (complement odd?) [1 2 3]) ; expect: {false [1 3] true [2]}
(let [f (comp (partial * 2) inc)] (f 3)) ; expect: 8
((comp (juxt inc dec) (partial + 1)) 1) ; expect: [3 1]

;; ---- walk
;; LibWalk.Walk
(walk inc #(apply + %) [1 2 3]) ; expect: 9
(walk identity identity [1 2 3]) ; expect: [1 2 3]
(walk inc identity #{1 2 3}) ; expect: #{2 3 4}
(walk second #(apply max %) [[1 2] [3 4] [5 6]]) ; expect: 6
(walk (fn [[k v]] [k (inc v)]) identity {:a 1 :b 2}) ; expect: {:a 2 :b 3}
(walk (fn [[k v]] [v k]) identity {:a 1}) ; expect: {1 :a}
;; a leaf: only outer applies
(walk inc identity 5) ; expect: 5
(walk inc str "ab") ; expect: "ab"
(walk inc identity nil) ; expect: nil
(walk inc identity []) ; expect: []
(walk {:a :x} identity [:a :b]) ; expect: [:x nil]
(clojure.walk/walk inc identity [1]) ; expect: [2]
;; LibWalk.WalkErrors
(walk (fn [e] 5) identity {:a 1}) ; expect-error: type_error: map entry
(walk 5 identity [1]) ; expect-error: type_error
(walk inc 5 [1]) ; expect-error: type_error
(walk inc [1]) ; expect-error: arity_error
;; LibWalk.Prewalk
(prewalk #(if (number? %) (inc %) %) [1 [2 3]]) ; expect: [2 [3 4]]
(prewalk #(if (number? %) (inc %) %) {:a 1 :b {:c 2 :d 3}}) ; expect: {:a 2 :b {:c 3 :d 4}}
(prewalk #(if (and (map? %) (:value %)) (update % :value inc) %) {:value 1 :nested {:value 2}}) ; expect: {:value 2 :nested {:value 3}}
(prewalk #(if (number? %) (inc %) %) #{1 2 3}) ; expect: #{2 3 4}
;; Parents first: the replacement's children are walked, not the original's.
(prewalk #(if (= % :x) [1 2] (if (number? %) (* 10 %) %)) [:x 3]) ; expect: [[10 20] 30]
(prewalk inc 5) ; expect: 6
(prewalk identity nil) ; expect: nil
(prewalk identity []) ; expect: []
(prewalk {:a :x} [:a :b]) ; expect: nil
(prewalk 5 [1]) ; expect-error: type_error
(prewalk inc) ; expect-error: arity_error
;; LibWalk.Postwalk
(postwalk #(if (number? %) (inc %) %) [1 [2 3]]) ; expect: [2 [3 4]]
(postwalk #(if (vector? %) (apply + %) %) [[1 2] [3 4]]) ; expect: 10
(postwalk #(if (string? %) (count %) %) {"ab" ["xyz" #{"q"}]}) ; expect: {2 [3 #{1}]}
(postwalk #(if (keyword? %) (name %) %) {:a {:b [:c]}}) ; expect: {"a" {"b" ["c"]}}
;; Children first: the order in which nodes are seen.
(postwalk (fn [x] (println x) x) [1 [2]]) ; expect: [1 [2]]
; expect-output: ["1" "2" "[2]" "[1 [2]]"]
(postwalk inc 5) ; expect: 6
(postwalk identity nil) ; expect: nil
(postwalk identity []) ; expect: []
(postwalk nil [1]) ; expect-error: type_error
(postwalk inc) ; expect-error: arity_error

;; ---- pmap / pcalls
;; LibParallel.Pmap
(let [factor 10] (pmap #(* % factor) [1 2 3])) ; expect: [10 20 30]
(pmap :name [{:name "a"} {:name "b"}]) ; expect: ["a" "b"]
(pmap inc nil) ; expect: []
(pmap inc []) ; expect: []
(pmap str "ab") ; expect: ["a" "b"]
(pmap + [1 2 3] [10 20]) ; expect: [11 22]
(pmap :a [{:a 1}] [99]) ; expect: [1]
(pmap first {:a 1 :b 2}) ; expect: [:a :b]
;; Order is preserved and every branch runs once.
(pmap (fn [x] (println x) x) [3 1 2]) ; expect: [3 1 2]
; expect-output: ["3" "1" "2"]
;; LibParallel.PmapErrors
(pmap (fn [x] (/ x 0)) [1 2]) ; expect-error: arithmetic_error
(pmap 5 [1]) ; expect-error: type_error
(pmap inc 5) ; expect-error: type_error
(pmap inc) ; expect-error: arity_error
;; LibParallel.Pcalls
(pcalls #(+ 1 1) #(* 2 3) #(- 10 5)) ; expect: [2 6 5]
(pcalls) ; expect: []
(let [[a b] (pcalls (constantly 1) (fn [] {:x 2}))] [a (:x b)]) ; expect: [1 2]
;; LibParallel.PcallsErrors
(pcalls #(+ 1 1) #(/ 1 0)) ; expect-error: arithmetic_error: pcalls: function 2 of 2 failed
(pcalls #(+ 1 1) 5) ; expect-error: type_error
(pcalls inc) ; expect-error: arity_error
(pcalls (fn [] (fail "boom"))) ; expect-error: fail
;; LibCombinators.VectorsMapsAndSetsAreFunctions
;; Vectors are functions of an index, as in Clojure (GAP-S13), wherever a
;; function is accepted (GAP-S71); maps and sets already are.
([10 20] 1) ; expect: 20
(apply [10 20] [1]) ; expect: 20
(ifn? [1 2]) ; expect: true
(map [10 20 30] [2 0]) ; expect: [30 10]
((comp [10 20] inc) 0) ; expect: 20
((juxt [:a :b] {1 :one}) 1) ; expect: [:b :one]
(map {:a 1 :b 2} [:a :c :b]) ; expect: [1 nil 2]
(filter {:a true :b false} [:a :b :c]) ; expect: [:a]
(sort-by {:x 2 :y 1} [:x :y]) ; expect: [:y :x]
;; Unlike nth and get, a call out of range or with a non-integer is an error.
([1 2] 2) ; expect-error: runtime_error
([1 2] -1) ; expect-error: runtime_error
([1 2] 1.0) ; expect-error: type_error
([1 2] 0 :default) ; expect-error: arity_error
