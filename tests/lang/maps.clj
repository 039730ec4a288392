;; Map and set builtins (maps.cpp, sets.cpp), end to end.
;; The format: tests/lang/README.md.

;; ---- construction
;; LibMaps.HashMapAndArrayMap
(hash-map :a 1 :b 2) ; expect: {:a 1 :b 2}
(hash-map) ; expect: {}
;; later value wins, first position kept
(hash-map :a 1 :a 2) ; expect: {:a 2}
(array-map :b 1 :a 2) ; expect-printed: {:b 1 :a 2}
(count (apply hash-map (range 40))) ; expect: 20
(hash-map :a) ; expect-error: arity_error: key/value pairs

;; ---- get / get-in
;; LibMaps.Get
(get {:a 1} :a) ; expect: 1
(get {:a 1} :b) ; expect: nil
(get {:a 1} :b "default") ; expect: "default"
;; present nil is not missing
(get {:a nil} :a :d) ; expect: nil
;; Flexible keys (spec §7.5): keyword and string match, exact type wins.
(get {"a" 1} :a) ; expect: 1
(get {:a 1} "a") ; expect: 1
(get {:a 9 "a" 1} :a) ; expect: 9
(get {:a 9 "a" 1} "a") ; expect: 1
(get {:turn_summaries 3} :turn-summaries) ; expect: 3
;; Vectors and strings by index, sets by member (GAP-S12, GAP-S36).
(get [10 20] 1) ; expect: 20
(get [10 20] 2 :x) ; expect: :x
(get [10 20] -1) ; expect: nil
(get "abc" 1) ; expect: "b"
(get "ab" 9 :x) ; expect: :x
(get #{1 2} 1) ; expect: 1
(get #{1 2} 3 :x) ; expect: :x
(get #{nil} nil :x) ; expect: nil
;; nil and non-collections are missing everything.
(get nil :a) ; expect: nil
(get nil :a 0) ; expect: 0
(get 42 :a :x) ; expect: :x
(get {} :a) ; expect: nil
;; a vector key matches exactly
(get {[1 2] :v} [1 2]) ; expect: :v
(get {:a 1}) ; expect-error: arity_error: get expects 2 to 3 arguments
(get {:a 1} :a 1 2) ; expect-error: arity_error
;; LibMaps.GetIn
(get-in {:user {:name "A"}} [:user :name]) ; expect: "A"
(get-in {:results [{:title "A"}]} [:results 0 :title]) ; expect: "A"
(get-in [[1 2] [3 4]] [1 0]) ; expect: 3
(get-in [1 2 3] [10]) ; expect: nil
(get-in [1 2 3] [-1]) ; expect: nil
(get-in {:a 1} [:b :c] :none) ; expect: :none
;; Flexible at each level independently.
(get-in {"user" {:email "e"}} [:user "email"]) ; expect: "e"
;; A present nil is returned, not the default (GAP-S22)...
(get-in {:a nil} [:a] :missing) ; expect: nil
(get-in {:a {:b nil}} [:a :b] :missing) ; expect: nil
(get-in [nil :b] [0] :missing) ; expect: nil
;; ...but a path that continues past it is missing.
(get-in {:a nil} [:a :b] :missing) ; expect: :missing
;; Empty and nil paths are the root (GAP-S144), even with a default.
(get-in {:a 1} []) ; expect: {:a 1}
(get-in {:a 1} nil) ; expect: {:a 1}
(get-in {:a 1} nil :d) ; expect: {:a 1}
;; nil roots, sets and strings (GAP-S19, GAP-S36, GAP-S12).
(get-in nil [:a]) ; expect: nil
(get-in nil [:a] :x) ; expect: :x
(get-in #{:a} [:a]) ; expect: :a
(get-in #{:a} [:b] :missing) ; expect: :missing
(get-in #{nil} [nil] :missing) ; expect: nil
(get-in "ab" [0]) ; expect: "a"
;; a number has no keys
(get-in {:a 5} [:a :b] :d) ; expect: :d
(get-in {:a 1} :a) ; expect-error: type_error: get-in: expected a sequence of keys
(get-in {:a 1} 5) ; expect-error: type_error: (argument 2)
(get-in {:a 1}) ; expect-error: arity_error
;; LibMaps.FindKeyVal
(find {:a 1 :b 2} :b) ; expect: [:b 2]
(find {:a 1} :b) ; expect: nil
(find {:a nil} :a) ; expect: [:a nil]
;; the stored key
(find {"a" 1} :a) ; expect: ["a" 1]
(find nil :a) ; expect: nil
(find {} :a) ; expect: nil
(find [10 20 30] 2) ; expect: [2 30]
(find [nil :b] 0) ; expect: [0 nil]
(find [10 20] 2) ; expect: nil
(find [10 20] -1) ; expect: nil
(find [10 20] :a) ; expect: nil
;; Not associative: a type error (DIV-48).
(find #{nil} nil) ; expect-error: type_error: find: expected a map or vector
(find "abc" 0) ; expect-error: type_error: got string
(find {:a 1}) ; expect-error: arity_error
(key (first (entries {:a 1}))) ; expect: :a
(val (first (entries {:a 1}))) ; expect: 1
(map key {:a 1 :b 2}) ; expect: [:a :b]
(map val {:a 1 :b 2}) ; expect: [1 2]
(key (find {:a 1} :a)) ; expect: :a
;; No separate map-entry type (DIV-49): any [k v] vector is an entry.
(val [:a 1]) ; expect: 1
(key nil) ; expect-error: type_error: key: expected a map entry
(val [1 2 3]) ; expect-error: type_error: val: expected a map entry
(key {:a 1}) ; expect-error: type_error
(key) ; expect-error: arity_error
;; LibMaps.SelectKeys
(select-keys {:a 1 :b 2 :c 3} [:a :c]) ; expect: {:a 1 :c 3}
(select-keys {:a 1 :b 2} [:c]) ; expect: {}
(select-keys {:a nil} [:a]) ; expect: {:a nil}
;; GAP-S23
(select-keys {:a 1} nil) ; expect: {}
(select-keys nil [:a]) ; expect: {}
(select-keys {} [:a]) ; expect: {}
;; Flexible lookup, keyed as requested (DIV-46).
(select-keys {:a 1} ["a"]) ; expect: {"a" 1}
(select-keys {:a 1 :b 2} ":a") ; expect: {"a" 1}
(select-keys {"id" 7 "x" 0} [:id]) ; expect: {:id 7}
(select-keys {:a 1 :b 2} #{:b}) ; expect: {:b 2}
;; GAP-S43
(select-keys [10 20] [0 1 5]) ; expect: {0 10 1 20}
(select-keys {:a 1} :a) ; expect-error: type_error: select-keys: expected a sequence
(select-keys 5 [:a]) ; expect-error: type_error: select-keys: expected a map
(select-keys {:a 1}) ; expect-error: arity_error
;; LibMaps.KeysValsEntries
(keys {:a 1 :b 2}) ; expect: [:a :b]
(vals {:a 1 :b 2}) ; expect: [1 2]
;; insertion order
(keys {:b 2 :a 1}) ; expect: [:b :a]
(keys {}) ; expect: nil
(vals {}) ; expect: nil
(keys nil) ; expect: nil
(vals nil) ; expect: nil
(count (keys (reduce #(assoc %1 %2 %2) {} (range 100)))) ; expect: 100
(entries {:a 1 :b 2}) ; expect: [[:a 1] [:b 2]]
(entries {}) ; expect: []
(entries nil) ; expect: []
(keys [1 2]) ; expect-error: type_error: keys: expected a map (argument 1)
(vals "ab") ; expect-error: type_error: vals: expected a map
(entries #{1}) ; expect-error: type_error: entries: expected a map
(keys) ; expect-error: arity_error

;; ---- assoc / dissoc
;; LibMaps.Assoc
(assoc {:a 1} :b 2) ; expect: {:a 1 :b 2}
(assoc {:a 1} :a 5) ; expect: {:a 5}
(assoc {} :a 1 :b 2 :c 3) ; expect: {:a 1 :b 2 :c 3}
(assoc nil :a 1) ; expect: {:a 1}
(assoc [1 2 3] 1 5) ; expect: [1 5 3]
;; index = count appends
(assoc [1 2] 2 3) ; expect: [1 2 3]
(assoc [] 0 :x) ; expect: [:x]
;; assoc sets the key exactly as given.
(assoc {"a" 1} :a 2) ; expect: {"a" 1 :a 2}
(count (reduce (fn [m i] (assoc m i i)) {} (range 1000))) ; expect: 1000
(assoc [1 2 3] 5 0) ; expect-error: runtime_error: index 5 is out of bounds
(assoc [1 2 3] -1 0) ; expect-error: runtime_error: out of bounds
(assoc [1] :a 0) ; expect-error: type_error: an integer index
(assoc [1] 0 0 :k 1) ; expect-error: type_error: (argument 4)
(assoc "ab" 0 "x") ; expect-error: type_error: assoc: expected a map or vector
(assoc #{} 0 1) ; expect-error: type_error
(assoc {} :a 1 :b) ; expect-error: arity_error: key/value pairs
;; GAP-S105
(assoc {}) ; expect-error: arity_error
;; LibMaps.Dissoc
(dissoc {:a 1 :b 2} :b) ; expect: {:a 1}
(dissoc {:a 1 :b 2 :c 3} :a :b) ; expect: {:c 3}
(dissoc {:a 1} :z) ; expect: {:a 1}
(dissoc {:a 1}) ; expect: {:a 1}
(dissoc {} :a) ; expect: {}
;; GAP-S19
(dissoc nil :a) ; expect: nil
;; exact key
(dissoc {"a" 1} :a) ; expect: {"a" 1}
(count (apply dissoc (reduce #(assoc %1 %2 %2) {} (range 50)) (range 10 50))) ; expect: 10
(dissoc [1 2] 0) ; expect-error: type_error: dissoc: expected a map (argument 1)
(dissoc) ; expect-error: arity_error
;; LibMaps.AssocIn
(assoc-in {} [:user :name] "Bob") ; expect: {:user {:name "Bob"}}
(assoc-in {:a {:b 1 :c 2}} [:a :b] 9) ; expect: {:a {:b 9 :c 2}}
(assoc-in nil [:a :b] 1) ; expect: {:a {:b 1}}
(assoc-in [1 2 3] [1] 99) ; expect: [1 99 3]
(assoc-in [[1 2] [3 4]] [0 1] 99) ; expect: [[1 99] [3 4]]
(assoc-in {:xs [{:n 1}]} [:xs 0 :n] 2) ; expect: {:xs [{:n 2}]}
(assoc-in [] [0 :a] 1) ; expect: [{:a 1}]
;; Empty or nil path: the nil key (GAP-S68).
(assoc-in {:a 1} [] 2) ; expect: {:a 1 nil 2}
(assoc-in {} [] 1) ; expect: {nil 1}
(assoc-in {:a 1} nil 2) ; expect: {:a 1 nil 2}
;; The path descends into string-keyed maps; the last key is set exactly.
(assoc-in {"user" {"name" "A"}} [:user :age] 3) ; expect: {"user" {"name" "A" :age 3}}
;; A deep generated path does not exhaust the stack.
(get-in (assoc-in {} (range 20000) :deep) (range 20000)) ; expect: :deep
(assoc-in {:a 5} [:a :b] 1) ; expect-error: type_error: not a map or vector
(assoc-in [1 2] [5] 0) ; expect-error: runtime_error: out of bounds
(assoc-in {} :a 1) ; expect-error: type_error: expected a sequence of keys
(assoc-in 5 [:a] 1) ; expect-error: type_error: (argument 1)
(assoc-in {} [:a]) ; expect-error: arity_error

;; ---- update / update-in
;; LibMaps.Update
(update {:n 1} :n inc) ; expect: {:n 2}
(update {:n 1} :n + 5) ; expect: {:n 6}
(update {:n 1} :n + 1 2 3 4) ; expect: {:n 11}
(update {:n nil} :n (fnil inc 0)) ; expect: {:n 1}
(update {:n nil} :n (fnil + 0) 5) ; expect: {:n 5}
(update {} :xs conj 1) ; expect: {:xs [1]}
(update {:a 1} :b (fn [x] x)) ; expect: {:a 1 :b nil}
;; keyword as the function
(update {:m {:a 1}} :m :a) ; expect: {:m 1}
;; GAP-S19
(update nil :a (fnil inc 0)) ; expect: {:a 1}
(update [1 2 3] 0 inc) ; expect: [2 2 3]
;; GAP-S83
(update [10 20] 2 (fnil inc 0)) ; expect: [10 20 1]
;; Read-modify-write on string-keyed data writes back where it read.
(update {"a" 1} :a inc) ; expect: {"a" 2}
(update {:a 9 "a" 1} "a" inc) ; expect: {:a 9 "a" 2}
(update {:turn_count 1} :turn-count inc) ; expect: {:turn_count 2}
(update [1 2] 5 inc) ; expect-error: runtime_error: update: index 5 is out of bounds
(update "ab" 0 inc) ; expect-error: type_error: update: expected a map or vector
(update {:a 1} :a 5) ; expect-error: type_error: update: expected a function (argument 3)
(update {:a "x"} :a inc) ; expect-error: type_error
(update {:a 1} :a) ; expect-error: arity_error
;; LibMaps.UpdateIn
(update-in {:a {:b 1}} [:a :b] + 10) ; expect: {:a {:b 11}}
(update-in {:a {:b 1}} [:a :b] inc) ; expect: {:a {:b 2}}
(update-in {} [:a :b] (fnil inc 0)) ; expect: {:a {:b 1}}
(update-in nil [:a] (fnil inc 0)) ; expect: {:a 1}
(update-in [1 2 3] [1] inc) ; expect: [1 3 3]
(update-in {:xs [{:n 1} {:n 2}]} [:xs 1 :n] * 10) ; expect: {:xs [{:n 1} {:n 20}]}
;; GAP-S83
(update-in [10 20] [2] (fnil inc 0)) ; expect: [10 20 1]
(update-in [] [0] (fnil identity :x)) ; expect: [:x]
;; Empty or nil path: the nil key (GAP-S55).
(update-in {:a 1} [] identity) ; expect: {:a 1 nil nil}
(update-in {:a 1} [] (constantly 2)) ; expect: {:a 1 nil 2}
(update-in {:a 1} nil identity) ; expect: {:a 1 nil nil}
(update-in {nil 1 "" 5} [] inc) ; expect: {nil 2 "" 5}
;; String-keyed data, at every level.
(update-in {"user" {"visits" 1}} [:user :visits] inc) ; expect: {"user" {"visits" 2}}
(update-in {:a "s"} [:a :b] inc) ; expect-error: type_error: not a map or vector
(update-in [1] [nil] inc) ; expect-error: type_error: an integer index
(update-in [1] [3] inc) ; expect-error: runtime_error: out of bounds
(update-in {:a 1} [:a] nil) ; expect-error: type_error: expected a function
(update-in {:a 1} :a inc) ; expect-error: type_error: sequence of keys
(update-in {:a 1} [:a]) ; expect-error: arity_error

;; ---- merging
;; LibMaps.Merge
(merge {:a 1} {:b 2} {:a 3}) ; expect: {:a 3 :b 2}
(merge {:a 1} nil {:b 2}) ; expect: {:a 1 :b 2}
(merge nil {:a 1}) ; expect: {:a 1}
(merge {} {:a 1}) ; expect: {:a 1}
(merge {:a 1}) ; expect: {:a 1}
;; Nothing truthy: nil (GAP-S54).
(merge) ; expect: nil
(merge nil) ; expect: nil
(merge nil nil) ; expect: nil
;; One argument is returned as it is (GAP-S146); vector targets conj (GAP-S90);
;; a [k v] source is an entry (GAP-S100).
(merge "ab") ; expect: "ab"
(merge [1 2]) ; expect: [1 2]
(merge [1 2] [3 4]) ; expect: [1 2 [3 4]]
(merge {:a 1} [:b 2]) ; expect: {:a 1 :b 2}
;; Exact keys: a string key and a keyword key stay apart.
(merge {"a" 1} {:a 2}) ; expect: {"a" 1 :a 2}
;; Small into large and large into small give the same map.
(let [big (reduce #(assoc %1 %2 %2) {} (range 100))]  [(count (merge big {:x 1})) (get (merge big {5 :five}) 5)   (count (merge {:x 1} big)) (first (keys (merge {:x 1} big)))   (= (merge big big) big)]) ; expect: [101 :five 101 :x true]
(merge {:a 1} 5) ; expect-error: type_error: merge: expected a map
(merge {:a 1} [1 2 3]) ; expect-error: type_error: (argument 2)
(merge "ab" {:a 1}) ; expect-error: type_error: (argument 1)
;; LibMaps.MergeWith
(merge-with + {:a 1 :b 2} {:a 3 :c 4}) ; expect: {:a 4 :b 2 :c 4}
(merge-with + {:a 1} {:a 2} {:a 3}) ; expect: {:a 6}
(merge-with conj {:a [1]} {:a 2 :b [3]}) ; expect: {:a [1 2] :b [3]}
(merge-with + nil {:a 1}) ; expect: {:a 1}
(merge-with + {:a 1} nil) ; expect: {:a 1}
;; GAP-S54
(merge-with +) ; expect: nil
(merge-with + nil) ; expect: nil
;; GAP-S146
(merge-with + "ab") ; expect: "ab"
(merge-with + [1 2]) ; expect: [1 2]
;; GAP-S90
(merge-with + [1 2] {1 10}) ; expect: [1 12]
(merge-with + [1 2] {2 10}) ; expect: [1 2 10]
;; Many entries take the table path: same result as the persistent path.
(let [a (reduce #(assoc %1 %2 1) {} (range 50)) b (reduce #(assoc %1 %2 2) {} (range 25 75))      m (merge-with + a b)]  [(count m) (get m 0) (get m 30) (get m 70) (first (keys m))]) ; expect: [75 1 3 2 0]
(merge-with + {:a 1} [:a 2]) ; expect-error: type_error: merge-with: expected a map
(merge-with + [1] {5 1}) ; expect-error: runtime_error: out of bounds
(merge-with 5 {:a 1} {:a 2}) ; expect-error: type_error: expected a function
(merge-with) ; expect-error: arity_error

;; ---- update-keys / update-vals
;; LibMaps.UpdateKeysAndVals
(update-vals {:a 1 :b 2} inc) ; expect: {:a 2 :b 3}
(update-keys {:a 1 :b 2} str) ; expect: {":a" 1 ":b" 2}
(update-keys {:a 1 :b 2} name) ; expect: {"a" 1 "b" 2}
;; later wins
(update-keys {1 :a 2 :b} (constantly 0)) ; expect: {0 :b}
(update-vals (group-by :s [{:s :x} {:s :y} {:s :x}]) count) ; expect: {:x 2 :y 1}
(update-vals {} inc) ; expect: {}
(update-keys {} inc) ; expect: {}
;; GAP-S24
(update-keys nil name) ; expect: {}
(update-vals nil inc) ; expect: {}
;; GAP-S75
(update-keys [10 20] inc) ; expect: {1 10 2 20}
(update-vals [10 20] inc) ; expect: [11 21]
(update-vals [] inc) ; expect: []
(update-keys [] inc) ; expect: {}
(update-vals {:a :x :b :y} {:x 1 :y 2}) ; expect: {:a 1 :b 2}
(update-vals "ab" inc) ; expect-error: type_error: update-vals: expected a map
(update-keys {:a 1} 3) ; expect-error: type_error: expected a function (argument 2)
(update-vals {:a 1}) ; expect-error: arity_error

;; ---- sets
;; LibSets.Construction
(hash-set 1 1 2) ; expect: #{1 2}
(hash-set) ; expect: #{}
(set [1 2 2 3]) ; expect: #{1 2 3}
;; GAP-S30
(set nil) ; expect: #{}
(set "abca") ; expect: #{"a" "b" "c"}
(set {:a 1}) ; expect: #{[:a 1]}
(set []) ; expect: #{}
(= (set [1 2]) #{2 1}) ; expect: true
(set? (set [1])) ; expect: true
(set? [1]) ; expect: false
(set 5) ; expect-error: type_error: set: expected a collection
(set) ; expect-error: arity_error
;; LibSets.Contains
(contains? #{1 2} 1) ; expect: true
(contains? #{1 2} 3) ; expect: false
(contains? #{nil} nil) ; expect: true
(contains? {:a nil} :a) ; expect: true
;; flexible keys (DIV-47)
(contains? {"a" 1} :a) ; expect: true
(contains? {:a 1} :b) ; expect: false
;; Vectors: membership, not index (DIV-27).
(contains? [1 2] 2) ; expect: true
(contains? [10 20] 1) ; expect: false
(contains? nil :a) ; expect: false
(contains? [] 1) ; expect: false
;; Strings: index (GAP-S35).
(contains? "abc" 1) ; expect: true
(contains? "abc" 1.0) ; expect: true
(contains? "abc" 3) ; expect: false
(contains? "abc" "a") ; expect: false
(contains? 5 1) ; expect-error: type_error: contains?: expected a collection
(contains? #{1}) ; expect-error: arity_error
;; LibSets.Disj
(disj #{1 2 3} 2) ; expect: #{1 3}
(disj #{1 2 3} 2 3) ; expect: #{1}
(disj #{1 2} 9) ; expect: #{1 2}
(disj #{1}) ; expect: #{1}
(disj #{} 1) ; expect: #{}
(disj nil 1) ; expect: nil
(disj [1 2] 1) ; expect-error: type_error: disj: expected a set (argument 1)
(disj) ; expect-error: arity_error
;; LibSets.Union
(clojure.set/union #{1 2} #{2 3}) ; expect: #{1 2 3}
(clojure.set/union #{1} #{2} #{3 4}) ; expect: #{3 4 1 2}
(union #{1 2} #{2 3}) ; expect: #{1 2 3}
(clojure.set/union) ; expect: #{}
(clojure.set/union #{1}) ; expect: #{1}
;; GAP-S30
(clojure.set/union nil #{1}) ; expect: #{1}
(clojure.set/union #{1} nil) ; expect: #{1}
(clojure.set/union nil nil) ; expect: nil
(clojure.set/union #{} #{}) ; expect: #{}
(clojure.set/union {:a 1} #{[:b 2]}) ; expect: {:a 1 :b 2}
(clojure.set/union #{"a" "b" "c"} "ab" "ad") ; expect: #{"a" "b" "c" "d"}
(count (clojure.set/union (set (range 100)) #{-1} (set (range 50 150)))) ; expect: 151
(clojure.set/union #{1} 5) ; expect-error: type_error: (argument 2)
(clojure.set/union "ab" #{1}) ; expect-error: type_error: union: expected sets
;; LibSets.Intersection
(clojure.set/intersection #{1 2 3} #{2 3 4}) ; expect: #{2 3}
(clojure.set/intersection #{1 2 3} #{2 3 4} #{3 9}) ; expect: #{3}
(clojure.set/intersection #{1 2} #{3}) ; expect: #{}
(clojure.set/intersection #{1}) ; expect: #{1}
;; GAP-S30
(clojure.set/intersection nil #{1}) ; expect: nil
(clojure.set/intersection #{1 2} nil) ; expect: nil
(clojure.set/intersection {:a 1} #{[:a 1]}) ; expect: {:a 1}
;; A vector argument is tested for membership, as contains? does (DIV-27).
(clojure.set/intersection #{1 2} [2 3]) ; expect: #{2}
(clojure.set/intersection [1 2] #{2}) ; expect: #{2}
(clojure.set/intersection [1 2] [2]) ; expect-error: type_error: expected a set
(clojure.set/intersection #{1} 5) ; expect-error: type_error
(clojure.set/intersection) ; expect-error: arity_error
;; LibSets.Difference
(clojure.set/difference #{1 2 3} #{2}) ; expect: #{1 3}
(clojure.set/difference #{1 2 3} #{2} #{3}) ; expect: #{1}
(clojure.set/difference #{1 2}) ; expect: #{1 2}
;; GAP-S30
(clojure.set/difference nil #{1}) ; expect: nil
(clojure.set/difference #{1 2} nil) ; expect: #{1 2}
(clojure.set/difference #{1 2} [2]) ; expect: #{1}
(clojure.set/difference #{[:a 1]} {:a 1}) ; expect: #{}
(clojure.set/difference #{"a" "b" "c"} "ab") ; expect: #{"c"}
(count (clojure.set/difference (set (range 1000)) #{5 6})) ; expect: 998
(count (clojure.set/difference (set (range 10)) (set (range 5 100)))) ; expect: 5
(clojure.set/difference [1 2] #{1}) ; expect-error: type_error: expected a set
(clojure.set/difference #{1} 5) ; expect-error: type_error
(clojure.set/difference) ; expect-error: arity_error
;; LibSets.SubsetSuperset
(clojure.set/subset? #{1} #{1 2}) ; expect: true
(clojure.set/subset? #{1 3} #{1 2}) ; expect: false
(clojure.set/subset? #{} #{1}) ; expect: true
(clojure.set/subset? nil #{1}) ; expect: true
(clojure.set/subset? #{1} nil) ; expect: false
(clojure.set/superset? #{1 2} #{1}) ; expect: true
(clojure.set/superset? #{1} #{1 2}) ; expect: false
(clojure.set/subset? [1] #{1}) ; expect-error: type_error: subset?: expected a set
(clojure.set/superset? #{1}) ; expect-error: arity_error
;; LibSets.RenameKeys
(clojure.set/rename-keys {:a 1 :b 2} {:a :x}) ; expect: {:b 2 :x 1}
(clojure.set/rename-keys {:a 1 :b 2} {:a :b :b :a}) ; expect: {:b 1 :a 2}
(clojure.set/rename-keys {:a 1} {:z :y}) ; expect: {:a 1}
(clojure.set/rename-keys {"id" 1} {:id :user-id}) ; expect: {:user-id 1}
(clojure.set/rename-keys nil {:a :b}) ; expect: nil
(clojure.set/rename-keys {:a 1} {}) ; expect: {:a 1}
(clojure.set/rename-keys [1] {:a :b}) ; expect-error: type_error: expected a map
(clojure.set/rename-keys {:a 1} [:a :b]) ; expect-error: type_error: (argument 2)
