;; The sequence library end to end: collection access and construction
;; (collections.cpp), the higher-order functions and generators
;; (sequences.cpp), and slicing/reshaping (seq_ops.cpp). Each family covers
;; normal use, nil punning, empty collections, and its errors.
;; The format: tests/lang/README.md.

;; ---- collections.cpp
;; LibSequences.CountAndConstruction
(count [1 2 3]) ; expect: 3
(count {:a 1 :b 2}) ; expect: 2
(count #{1 2}) ; expect: 2
(count "héllo") ; expect: 5
(count nil) ; expect: 0
(count []) ; expect: 0
(vector 1 :a) ; expect: [1 :a]
(list 1 2) ; expect: [1 2]
(list) ; expect: []
(vec {:a 1}) ; expect: [[:a 1]]
(vec "ab") ; expect: ["a" "b"]
(vec nil) ; expect: []
(count 5) ; expect-error: type_error
(vec :a) ; expect-error: type_error
(count [1] [2]) ; expect-error: arity_error
;; LibSequences.Seq
(seq [1 2 3]) ; expect: [1 2 3]
(seq "hey") ; expect: ["h" "e" "y"]
;; insertion order
(seq {:b 2 :a 1}) ; expect: [[:b 2] [:a 1]]
(seq #{3 1}) ; expect: [3 1]
(seq []) ; expect: nil
(seq "") ; expect: nil
(seq {}) ; expect: nil
(seq nil) ; expect: nil
(seq 1) ; expect-error: type_error
;; LibSequences.FirstSecondLast
(first [1 2 3]) ; expect: 1
(second [1 2 3]) ; expect: 2
(last [1 2 3]) ; expect: 3
(first "héllo") ; expect: "h"
(second "héllo") ; expect: "é"
(last "héllo") ; expect: "o"
(first nil) ; expect: nil
(second nil) ; expect: nil
(last nil) ; expect: nil
(first []) ; expect: nil
(second [1]) ; expect: nil
(last "") ; expect: nil
;; Maps and sets have no positions (DIV-29, spec §3.9); seq gives an ordered view.
(first {:a 1}) ; expect-error: type_error: first
; expect-hint: (seq m)
(last #{1 2}) ; expect-error: type_error
(second {:a 1}) ; expect-error: type_error
(first (seq {:a 1})) ; expect: [:a 1]
(first 1) ; expect-error: type_error
(first) ; expect-error: arity_error
;; LibSequences.RestNextButlast
(rest [1 2 3]) ; expect: [2 3]
(rest [1]) ; expect: []
(rest []) ; expect: []
(rest nil) ; expect: []
(rest "abc") ; expect: ["b" "c"]
(next [1 2 3]) ; expect: [2 3]
(next [1]) ; expect: nil
(next nil) ; expect: nil
(next "a") ; expect: nil
(butlast [1 2 3 4]) ; expect: [1 2 3]
(butlast [1]) ; expect: nil
(butlast []) ; expect: nil
(butlast nil) ; expect: nil
(butlast "ab") ; expect: ["a"]
;; A vector with a trie (more than 32 items) slices correctly.
(= (rest (vec (range 100))) (range 1 100)) ; expect: true
(= (butlast (vec (range 100))) (range 99)) ; expect: true
(rest {:a 1}) ; expect-error: type_error
(next #{1}) ; expect-error: type_error
(butlast {:a 1}) ; expect-error: type_error
(rest 3) ; expect-error: type_error
;; LibSequences.FirstAndNextCompositions
(ffirst [[1 2] [3]]) ; expect: 1
(fnext [1 2 3]) ; expect: 2
(nfirst [[1 2] [3]]) ; expect: [2]
(nnext [1 2 3 4]) ; expect: [3 4]
(nnext [1 2]) ; expect: nil
(ffirst nil) ; expect: nil
(fnext nil) ; expect: nil
(nfirst nil) ; expect: nil
(nnext nil) ; expect: nil
(ffirst ["ab"]) ; expect: "a"
(ffirst [1]) ; expect-error: type_error
(fnext {:a 1 :b 2}) ; expect-error: type_error
;; LibSequences.Nth
(nth [1 2 3] 1) ; expect: 2
;; DIV-26
(nth [1 2 3] 10) ; expect: nil
(nth [1 2 3] -1) ; expect: nil
(nth [1 2] 5 :x) ; expect: :x
(nth nil 0) ; expect: nil
(nth nil 0 :x) ; expect: :x
(nth "héllo" 1) ; expect: "é"
;; GAP-S79
(nth [10 20] 1.0) ; expect: 20
(nth {:a 1} 0) ; expect-error: type_error
(nth #{1} 0) ; expect-error: type_error
(nth [1] :a) ; expect-error: type_error
(nth [1]) ; expect-error: arity_error
;; LibSequences.PeekPopSubvec
(peek [1 2 3]) ; expect: 3
(peek []) ; expect: nil
(peek nil) ; expect: nil
(pop [1 2 3]) ; expect: [1 2]
(pop [1]) ; expect: []
;; DIV-26
(pop []) ; expect: nil
(pop nil) ; expect: nil
(subvec [0 1 2 3 4] 1 3) ; expect: [1 2]
(subvec [0 1 2 3 4] 2) ; expect: [2 3 4]
;; clamped (DIV-26)
(subvec [1 2 3] 0 9) ; expect: [1 2 3]
(subvec [1 2 3] -1) ; expect: [1 2 3]
(subvec [1 2 3] 2 1) ; expect: []
;; GAP-S79
(subvec [1 2 3] 0.9 2.9) ; expect: [1 2]
(subvec [] 0) ; expect: []
(peek "ab") ; expect-error: type_error
(pop #{1}) ; expect-error: type_error
(subvec "abc" 1) ; expect-error: type_error
(subvec [1] :a) ; expect-error: type_error
(subvec [1]) ; expect-error: arity_error
;; LibSequences.EmptyAndNotEmpty
(empty [1 2 3]) ; expect: []
(empty {:a 1}) ; expect: {}
(empty #{1}) ; expect: #{}
(empty nil) ; expect: nil
;; GAP-S56
(empty "abc") ; expect: nil
;; GAP-S88
(empty 1) ; expect: nil
(empty :a) ; expect: nil
(not-empty [1 2]) ; expect: [1 2]
(not-empty {:a 1}) ; expect: {:a 1}
(not-empty "abc") ; expect: "abc"
(not-empty []) ; expect: nil
(not-empty "") ; expect: nil
(not-empty nil) ; expect: nil
(not-empty 5) ; expect-error: type_error
(empty) ; expect-error: arity_error
;; LibSequences.ConsAndConj
(cons 0 [1 2 3]) ; expect: [0 1 2 3]
(cons 0 nil) ; expect: [0]
(cons 0 []) ; expect: [0]
(cons :x "ab") ; expect: [:x "a" "b"]
(cons 0 {:a 1}) ; expect: [0 [:a 1]]
(conj [1 2] 3) ; expect: [1 2 3]
(conj [1] 2 3) ; expect: [1 2 3]
(conj [1] nil) ; expect: [1 nil]
(conj nil 1) ; expect: [1]
;; DIV-25: no lists
(conj nil :a :b) ; expect: [:a :b]
(conj) ; expect: []
(conj [1]) ; expect: [1]
(conj #{1 2} 3) ; expect: #{1 2 3}
(conj #{1} 1 2) ; expect: #{1 2}
(conj {:a 1} [:b 2]) ; expect: {:a 1 :b 2}
;; GAP-S76
(conj {:a 1} {:b 2 :a 3}) ; expect: {:a 3 :b 2}
(conj {:a 1} nil) ; expect: {:a 1}
(conj {:a 1} [:b 2] [:c 3]) ; expect: {:a 1 :b 2 :c 3}
;; A vector with a trie keeps its items.
(= (conj (vec (range 40)) 40 41) (range 42)) ; expect: true
(conj {:a 1} [:b]) ; expect-error: type_error
(conj "ab" "c") ; expect-error: type_error
(cons 1 2) ; expect-error: type_error
(cons 1) ; expect-error: arity_error
;; LibSequences.Into
(into [] [1 2 3]) ; expect: [1 2 3]
(into [0] (list 1 2)) ; expect: [0 1 2]
(into [] {:a 1 :b 2}) ; expect: [[:a 1] [:b 2]]
(into #{} [1 2 2 3]) ; expect: #{1 2 3}
;; GAP-S41
(into #{} "ab") ; expect: #{"a" "b"}
(into {} [[:a 1] [:b 2]]) ; expect: {:a 1 :b 2}
(into #{} {:a 1}) ; expect: #{[:a 1]}
(into {} #{[:a 1]}) ; expect: {:a 1}
(into {:a 1} {:a 2 :b 3}) ; expect: {:a 2 :b 3}
(into {} [{:a 1} nil]) ; expect: {:a 1}
(into nil [1 2]) ; expect: [1 2]
(into [1] nil) ; expect: [1]
(into) ; expect: []
(into [1]) ; expect: [1]
;; Few items into a big collection take the persistent path; same result.
(= (into (vec (range 100)) [100]) (range 101)) ; expect: true
(count (into (set (range 100)) [1 100])) ; expect: 101
(get (into (zipmap (range 100) (range 100)) [[5 :x]]) 5) ; expect: :x
(into {} [[1 2 3]]) ; expect-error: type_error
(into "ab" [1]) ; expect-error: type_error
(into [] 5) ; expect-error: type_error
(into [] [1] [2]) ; expect-error: arity_error
;; LibSequences.Zipmap
(zipmap [:a :b :c] [1 2 3]) ; expect: {:a 1 :b 2 :c 3}
(zipmap [:a :b] [1 2 3]) ; expect: {:a 1 :b 2}
(zipmap "ab" [1 2]) ; expect: {"a" 1 "b" 2}
(zipmap nil [1]) ; expect: {}
(zipmap [] []) ; expect: {}
(zipmap 1 [1]) ; expect-error: type_error
(zipmap [1]) ; expect-error: arity_error

;; ---- sequences.cpp
;; LibSequences.MapAndMapv
(map inc [1 2 3]) ; expect: [2 3 4]
(mapv inc [1 2 3]) ; expect: [2 3 4]
(map + [1 2 3] [10 20]) ; expect: [11 22]
;; GAP-S102
(map vector "ab" [1 2]) ; expect: [["a" 1] ["b" 2]]
(map (fn [a b c d] (+ a b c d)) [1] [2] [3] [4]) ; expect: [10]
(map (fn [[k v]] v) {:a 1 :b 2}) ; expect: [1 2]
(map :name [{:name "A"} {"name" "B"}]) ; expect: ["A" "B"]
(map inc nil) ; expect: []
(map inc []) ; expect: []
(map + [1] nil) ; expect: []
;; vectors are functions (GAP-S13)
(map [1 2] [1]) ; expect: [2]
(map "ab" [1]) ; expect-error: type_error: expected a function
(map inc 5) ; expect-error: type_error
(map inc) ; expect-error: arity_error
;; LibSequences.FilterRemoveKeep
(filter even? [1 2 3 4]) ; expect: [2 4]
(filterv odd? [1 2 3 4]) ; expect: [1 3]
(remove even? [1 2 3 4]) ; expect: [1 3]
(filter #{:a :b} [:a :c :b]) ; expect: [:a :b]
(filter (fn [[k v]] (> v 1)) {:a 1 :b 2}) ; expect: [[:b 2]]
(filter #(= "l" %) "hello") ; expect: ["l" "l"]
(keep identity [false nil 1 2 nil 3]) ; expect: [false 1 2 3]
(keep (fn [[k v]] (when (> v 1) k)) {:a 1 :b 2 :c 3}) ; expect: [:b :c]
(keep-indexed (fn [i v] (if (odd? i) v)) [:a :b :c :d]) ; expect: [:b :d]
(map-indexed (fn [i x] [i x]) ["a" "b"]) ; expect: [[0 "a"] [1 "b"]]
(map-indexed vector "ab") ; expect: [[0 "a"] [1 "b"]]
;; LibSequences.Mapcat
(mapcat (fn [x] [x (* x 2)]) [1 2 3]) ; expect: [1 2 2 4 3 6]
(mapcat identity [[1 2] [3 4] [5]]) ; expect: [1 2 3 4 5]
;; GAP-S49: several collections, string and nil results.
(mapcat vector [1 2] [:a :b]) ; expect: [1 :a 2 :b]
(mapcat identity ["ab" "c"]) ; expect: ["a" "b" "c"]
(mapcat (fn [x] nil) [1 2]) ; expect: []
(mapcat identity [{:a 1}]) ; expect: [[:a 1]]
(mapcat identity nil) ; expect: []
(mapcat identity [1]) ; expect-error: type_error
(mapcat 1 [1]) ; expect-error: type_error
(mapcat identity) ; expect-error: arity_error
;; LibSequences.SomeEveryNotAnyNotEvery
(some even? [1 2 3]) ; expect: true
(some even? [1 3]) ; expect: nil
(some #{"x"} ["a" "x"]) ; expect: "x"
(some :admin [{:admin false} {:admin :yes}]) ; expect: :yes
(some (fn [[k v]] (when (= v 2) k)) {:a 1 :b 2}) ; expect: :b
(some #(= % "b") "abc") ; expect: true
(every? even? [2 4]) ; expect: true
(every? even? [2 3]) ; expect: false
(not-any? even? [1 3]) ; expect: true
(not-any? even? [1 2]) ; expect: false
(not-every? even? [2 3]) ; expect: true
(not-every? :active [{:active true}]) ; expect: false
;; Empty and nil collections.
(some even? nil) ; expect: nil
(every? even? []) ; expect: true
(every? even? nil) ; expect: true
(not-any? even? nil) ; expect: true
(not-every? even? []) ; expect: false
;; Stops at the first decisive item.
(every? #(< (/ 1 %) 1) [2 0.5 0]) ; expect: false
(some even? 5) ; expect-error: type_error
(every? 5 [1]) ; expect-error: type_error
(not-any? even?) ; expect-error: arity_error
;; LibSequences.Reduce
(reduce + [1 2 3]) ; expect: 6
(reduce - 10 [1 2 3]) ; expect: 4
(reduce (fn [acc [k v]] (+ acc v)) 0 {:a 1 :b 2}) ; expect: 3
(reduce (fn [acc x] (str acc "-" x)) "a" "bc") ; expect: "a-b-c"
(reduce + 0 #{1 2 3}) ; expect: 6
;; GAP-S21: no init on empty input calls (f); one item is returned as is.
(reduce + []) ; expect: 0
(reduce + nil) ; expect: 0
(reduce vector []) ; expect: []
(reduce (fn [a b] :never) [7]) ; expect: 7
(reduce (fn ([] :empty) ([a b] a)) []) ; expect: :empty
(reduce + 5 nil) ; expect: 5
(reduce + 5) ; expect-error: type_error
(reduce 1 [1 2]) ; expect-error: type_error
(reduce +) ; expect-error: arity_error
;; LibSequences.ReduceKv
(reduce-kv (fn [acc k v] (+ acc v)) 0 {:a 1 :b 2 :c 3}) ; expect: 6
(reduce-kv (fn [acc k v] (assoc acc k (* v 2))) {} {:a 1 :b 2}) ; expect: {:a 2 :b 4}
;; GAP-S59: vectors give index and item.
(reduce-kv (fn [acc k v] (conj acc [k v])) [] [:a :b]) ; expect: [[0 :a] [1 :b]]
(reduce-kv (fn [acc k v] (conj acc [k v])) [] []) ; expect: []
(reduce-kv (fn [acc k v] acc) :init nil) ; expect: :init
(reduce-kv (fn [a k v] a) 0 "ab") ; expect-error: type_error
(reduce-kv (fn [a k v] a) 0 #{1}) ; expect-error: type_error
(reduce-kv (fn [a k v] a) {}) ; expect-error: arity_error
;; LibSequences.TreeSeq
(tree-seq vector? seq [[1 2 [3]] [4]]) ; expect: [[[1 2 [3]] [4]] [1 2 [3]] 1 2 [3] 3 [4] 4]
(tree-seq vector? seq []) ; expect: [[]]
(tree-seq vector? seq 42) ; expect: [42]
(tree-seq vector? seq nil) ; expect: [nil]
(let [tree {:id 1 :children [{:id 2 :children []} {:id 3 :children []}]}]  (map :id (tree-seq :children :children tree))) ; expect: [1 2 3]
(tree-seq map? vals {:a {:b 1} :c 2}) ; expect: [{:a {:b 1} :c 2} {:b 1} 1 2]
;; GAP-S77: characters of a string are leaves, as in Clojure.
(tree-seq string? seq "ab") ; expect: ["ab" "a" "b"]
(tree-seq string? seq "a") ; expect: ["a" "a"]
;; Deep trees do not exhaust the native stack.
(count (tree-seq vector? seq (reduce (fn [t _] [t]) [] (range 20000)))) ; expect: 20001
; no-gc-stress: 20000 levels one step at a time, quadratic when every step collects
(tree-seq vector? (fn [x] 5) [1]) ; expect-error: type_error
(tree-seq 1 seq [1]) ; expect-error: type_error
(tree-seq vector? seq) ; expect-error: arity_error
;; LibSequences.Range
(range 5) ; expect: [0 1 2 3 4]
(range 5 10) ; expect: [5 6 7 8 9]
(range 0 10 3) ; expect: [0 3 6 9]
(range 10 0 -2) ; expect: [10 8 6 4 2]
(range 5 5) ; expect: []
(range 0 10 -1) ; expect: []
(range -3) ; expect: []
(range 0 2.5) ; expect: [0 1 2]
(range 1 4 1.5) ; expect: [1 2.5]
(range 10 0 -2.5) ; expect: [10 7.5 5.0 2.5]
;; Floats accumulate by repeated addition, as in Clojure: 11 items.
(count (range 0 1 0.1)) ; expect: 11
;; Crossing the int64 range promotes instead of wrapping.
(range 9223372036854775806 9223372036854775809) ; expect: [9223372036854775806 9223372036854775807 9223372036854775808]
(range 5 5 0) ; expect: []
;; A zero step or an infinite bound never ends (DIV-02).
(range 1 5 0) ; expect-error: type_error: step of 0
(range 0 ##Inf) ; expect-error: type_error
;; GAP-S99
(range nil) ; expect-error: type_error
(range "1" 3) ; expect-error: type_error
(range 1 5 nil) ; expect-error: type_error
;; (range) alone is endless; under take it is a prefix.
(range) ; expect-error: type_error
; expect-hint: (take n (range))
(range 1 2 3 4) ; expect-error: arity_error
;; LibSequences.TakeOfRangeMakesOnlyThePrefix
;; (take n (range ...)) builds only the prefix it keeps, so ranges that would
;; never end on their own work as they do in Clojure (spec §8 Sequence Generation).
(take 3 (range 1 5 0)) ; expect: [1 1 1]
(take 3 (range 5 5 0)) ; expect: []
(->> (range 0 ##Inf) (take 3)) ; expect: [0 1 2]
(take 3 (range)) ; expect: [0 1 2]
(take 2 (range 0 1e300 1e299)) ; expect: [0 1.0E299]
(take 4 (range 3)) ; expect: [0 1 2]
(take 0 (range 1 5 0)) ; expect: []
(take -2 (range 10)) ; expect: []
(take 2.9 (range 10)) ; expect: [0 1]
;; A billion-item range is never built: only the prefix is charged.
(take 2 (range 1000000000000)) ; expect: [0 1]
;; Argument errors still name the function the program called.
(take :x (range 3)) ; expect-error: type_error: take
(take 2 (range 1 nil)) ; expect-error: type_error: range
;; A shadowed take or range is not rewritten.
(let [take (fn [n xs] n)] (take 3 (range 1 5))) ; expect: 3
;; A huge prefix of an endless range is still refused by the heap cap.
(take 1000000000000 (range 1 5 0)) ; expect-error: memory_limit
;; LibSequences.Repeat
(repeat 3 :x) ; expect: [:x :x :x]
(repeat 0 :x) ; expect: []
(repeat -2 :x) ; expect: []
(repeat 2 nil) ; expect: [nil nil]
(count (repeat 100 [1])) ; expect: 100
(repeat :x) ; expect-error: arity_error: infinite
; expect-hint: (repeat n x)
(repeat "a" :x) ; expect-error: type_error
(repeat) ; expect-error: arity_error
(repeat 1 2 3) ; expect-error: arity_error

;; ---- seq_ops.cpp
;; LibSequences.TakeAndDrop
(take 2 [1 2 3 4]) ; expect: [1 2]
(take 10 [1 2 3]) ; expect: [1 2 3]
(take 2 "hello") ; expect: ["h" "e"]
(take 2 {:a 1 :b 2 :c 3}) ; expect: [[:a 1] [:b 2]]
(take 2 #{5 6 7}) ; expect: [5 6]
;; GAP-S32
(take -1 [1 2]) ; expect: []
;; GAP-S79
(take 1.0 [10 20]) ; expect: [10]
(drop 2 [1 2 3 4]) ; expect: [3 4]
(drop 10 [1 2 3]) ; expect: []
(drop -1 [1 2]) ; expect: [1 2]
(drop 1 "abc") ; expect: ["b" "c"]
(drop 1 {:a 1 :b 2}) ; expect: [[:b 2]]
(nthrest [1 2 3] 1) ; expect: [2 3]
(nthrest [1 2 3] 0) ; expect: [1 2 3]
(nthnext [1 2 3] 1.0) ; expect: [2 3]
(nthnext [1 2 3] 3) ; expect: nil
(take 2 nil) ; expect: []
(drop 2 nil) ; expect: []
(take 2 []) ; expect: []
(nthrest nil 1) ; expect: []
(nthnext nil 1) ; expect: nil
(take :a [1]) ; expect-error: type_error
(drop 1 5) ; expect-error: type_error
(nthrest 1 [1]) ; expect-error: type_error
(take 1) ; expect-error: arity_error
;; LibSequences.TakeLastDropLast
(take-last 2 [1 2 3]) ; expect: [2 3]
(take-last 5 [1 2 3]) ; expect: [1 2 3]
(take-last 2 "abc") ; expect: ["b" "c"]
;; Nil whenever nothing is taken (GAP-S32, GAP-S48).
(take-last 2 nil) ; expect: nil
(take-last 2 []) ; expect: nil
(take-last 0 [1 2]) ; expect: nil
(take-last -1 "ab") ; expect: nil
(drop-last [1 2 3]) ; expect: [1 2]
(drop-last 2 [1 2 3]) ; expect: [1]
(drop-last 5 [1 2 3]) ; expect: []
(drop-last -1 [1 2]) ; expect: [1 2]
(drop-last 1 "ab") ; expect: ["a"]
(drop-last nil) ; expect: []
(take-last 1 5) ; expect-error: type_error
(drop-last 1 2 3) ; expect-error: arity_error
;; LibSequences.TakeWhileDropWhileSplit
(take-while :active [{:active true} {:active true} {:active false}]) ; expect: [{:active true} {:active true}]
(drop-while :pending [{:pending true} {:pending false}]) ; expect: [{:pending false}]
(take-while #(not= "c" %) "abcd") ; expect: ["a" "b"]
(drop-while (fn [[k v]] (< v 2)) {:a 1 :b 2}) ; expect: [[:b 2]]
(take-while pos? nil) ; expect: []
(drop-while pos? []) ; expect: []
(split-at 2 [1 2 3 4 5]) ; expect: [[1 2] [3 4 5]]
(split-at 0 [1 2 3]) ; expect: [[] [1 2 3]]
(split-at -1 [1 2 3]) ; expect: [[] [1 2 3]]
(split-at 1 "ab") ; expect: [["a"] ["b"]]
(split-at 1 nil) ; expect: [[] []]
(split-with pos? [1 2 -1 3]) ; expect: [[1 2] [-1 3]]
(split-with pos? nil) ; expect: [[] []]
(take-while 5 [1]) ; expect-error: type_error
(drop-while pos? 5) ; expect-error: type_error
(split-at "a" [1]) ; expect-error: type_error
(split-with pos?) ; expect-error: arity_error
;; LibSequences.Partition
(partition 2 [1 2 3 4 5 6]) ; expect: [[1 2] [3 4] [5 6]]
(partition 3 [1 2 3 4 5]) ; expect: [[1 2 3]]
(partition 2 1 [1 2 3 4]) ; expect: [[1 2] [2 3] [3 4]]
(partition 3 3 [0] [1 2 3 4 5]) ; expect: [[1 2 3] [4 5 0]]
(partition 3 3 [0 0 0 0] [1 2 3 4]) ; expect: [[1 2 3] [4 0 0]]
;; GAP-S31
(partition 3 3 nil [1 2]) ; expect: [[1 2]]
;; GAP-S53
(partition -1 [1 2 3]) ; expect: []
;; GAP-S79
(partition 2 1.0 [1 2 3]) ; expect: [[1 2] [2 3]]
(partition 2 "abc") ; expect: [["a" "b"]]
(partition 2 nil) ; expect: []
(partition-all 2 [1 2 3 4 5]) ; expect: [[1 2] [3 4] [5]]
(partition-all 2 1 [1 2 3]) ; expect: [[1 2] [2 3] [3]]
(partition-all 0 1 [1 2]) ; expect: [[] []]
(partition-all 2 []) ; expect: []
(partition-by odd? [1 1 2 2 3]) ; expect: [[1 1] [2 2] [3]]
(partition-by identity "aab") ; expect: [["a" "a"] ["b"]]
(partition-by odd? nil) ; expect: []
;; A step that does not advance would repeat a window forever.
(partition 0 [1 2]) ; expect-error: type_error: forever
(partition 2 0 [1 2 3]) ; expect-error: type_error
(partition-all -1 [1]) ; expect-error: type_error
(partition :a [1]) ; expect-error: type_error
(partition-by 1 [1]) ; expect-error: type_error
(partition 1) ; expect-error: arity_error
(partition-all 1 1 1 [1]) ; expect-error: arity_error
;; LibSequences.DistinctAndDedupe
(distinct [1 2 1 3 2]) ; expect: [1 2 3]
;; = is numeric type-independent
(distinct [1 1.0 2]) ; expect: [1 2]
(distinct "abca") ; expect: ["a" "b" "c"]
(distinct [[1] [1] {:a 1} {:a 1}]) ; expect: [[1] {:a 1}]
(count (distinct (concat (range 1000) (range 1000)))) ; expect: 1000
(distinct nil) ; expect: []
(distinct []) ; expect: []
(dedupe [1 1 2 3 3 2]) ; expect: [1 2 3 2]
(dedupe "aabcc") ; expect: ["a" "b" "c"]
(dedupe nil) ; expect: []
;; GAP-S134
(distinct {:a 1}) ; expect-error: type_error
(distinct #{1}) ; expect-error: type_error
(dedupe 1) ; expect-error: type_error
(distinct) ; expect-error: arity_error
;; LibSequences.InterleaveInterpose
(interleave [1 2 3] [:a :b :c]) ; expect: [1 :a 2 :b 3 :c]
(interleave [1 2] [3 4] [5 6]) ; expect: [1 3 5 2 4 6]
(interleave [1 2 3] [:a]) ; expect: [1 :a]
;; GAP-S98
(interleave "ab" [1 2]) ; expect: ["a" 1 "b" 2]
;; GAP-S143
(interleave) ; expect: []
(interleave [1 2]) ; expect: [1 2]
(interleave nil [1]) ; expect: []
(interpose ", " ["a" "b" "c"]) ; expect: ["a" ", " "b" ", " "c"]
;; GAP-S60
(interpose "," "ab") ; expect: ["a" "," "b"]
(interpose 0 [1]) ; expect: [1]
(interpose 0 nil) ; expect: []
;; DIV-29
(interleave {:a 1} [:x]) ; expect-error: type_error
(interpose :x {:a 1}) ; expect-error: type_error
(interpose :x 5) ; expect-error: type_error
(interpose :x) ; expect-error: arity_error
;; LibSequences.ConcatFlattenReverse
(concat [1 2] [3 4]) ; expect: [1 2 3 4]
(concat [1] nil [2] []) ; expect: [1 2]
;; GAP-S57
(concat "ab" "cd") ; expect: ["a" "b" "c" "d"]
(concat {:a 1} #{2}) ; expect: [[:a 1] 2]
(concat) ; expect: []
(concat nil) ; expect: []
(flatten [[1 2] [3 [4]]]) ; expect: [1 2 3 4]
(flatten [1 [2 {:a 3}] "str" #{[5]}]) ; expect: [1 2 {:a 3} "str" #{[5]}]
(flatten [[] [[]]]) ; expect: []
;; A root that is not a vector flattens to [] (GAP-S81).
(flatten nil) ; expect: []
(flatten 1) ; expect: []
(flatten "ab") ; expect: []
(flatten {:a [1]}) ; expect: []
(= (flatten (reduce (fn [v _] [v 1]) [] (range 20000)))
   (vec (repeat 20000 1))) ; expect: true
; no-gc-stress: 20000 levels one step at a time, quadratic when every step collects
(reverse [1 2 3]) ; expect: [3 2 1]
(reverse "héllo") ; expect: ["o" "l" "l" "é" "h"]
(reverse nil) ; expect: []
(reverse []) ; expect: []
(= (reverse (range 100)) (range 99 -1 -1)) ; expect: true
(concat [1] 2) ; expect-error: type_error
;; DIV-29
(reverse {:a 1 :b 2}) ; expect-error: type_error
(reverse 5) ; expect-error: type_error
(flatten) ; expect-error: arity_error
;; LibSequences.ZipAndCombinations
(zip [1 2] [:a :b]) ; expect: [[1 :a] [2 :b]]
(zip [1 2 3] "ab") ; expect: [[1 "a"] [2 "b"]]
(zip nil [1]) ; expect: []
(combinations [1 2 3] 2) ; expect: [[1 2] [1 3] [2 3]]
(combinations [1 2 3 4] 3) ; expect: [[1 2 3] [1 2 4] [1 3 4] [2 3 4]]
(combinations [1 2 3] 0) ; expect: [[]]
(combinations [1 2] 3) ; expect: []
(combinations [1 2] -1) ; expect: []
(combinations "abc" 2) ; expect: [["a" "b"] ["a" "c"] ["b" "c"]]
(combinations nil 0) ; expect: [[]]
(combinations nil 1) ; expect: []
(count (combinations (range 10) 5)) ; expect: 252
(combinations (range 60) 30) ; expect-error: memory_limit
(zip [1] 2) ; expect-error: type_error
(combinations [1] :a) ; expect-error: type_error
(zip [1]) ; expect-error: arity_error

;; ---- limits
;; LibSequences.OversizedResultsAreRefusedUpFront
;; Hostile sizes end with a memory limit error instead of building the result.
(count (range 100000000)) ; expect-error: memory_limit
(count (repeat 10000000 "x")) ; expect-error: memory_limit
(count (partition 1000 1 (range 100000))) ; expect-error: memory_limit
(count (range 0.0 1e9 0.5)) ; expect-error: memory_limit
(count (combinations (range 100) 50)) ; expect-error: memory_limit
