;; Numbers, comparison, predicates, output and describe, end to end.
;; The format: tests/lang/README.md.

;; ---- Arithmetic
;; LibNumbers.VariadicArithmetic
(+) ; expect: 0
(*) ; expect: 1
(+ 1 2 3 4) ; expect: 10
(- 10 3 2) ; expect: 5
(- 5) ; expect: -5
(* 2 3 4) ; expect: 24
(/ 10 2) ; expect: 5.0
(/ 4) ; expect: 0.25
(/ 100 2 5) ; expect: 10.0
(+ 1 2.5) ; expect: 3.5
;; The primed aliases and higher-order use go through the builtins.
(+' 9223372036854775807 1) ; expect: 9223372036854775808
(*' 2 3) ; expect: 6
(-' 1) ; expect: -1
(reduce + [1 2 3]) ; expect: 6
(apply * [9223372036854775807 2]) ; expect: 18446744073709551614
(map inc' [1 2]) ; expect: [2 3]
(map dec [1 2]) ; expect: [0 1]
;; LibNumbers.ArithmeticSpecialValues
(/ 1.0 0.0) ; expect: ##Inf
(/ -1 0.0) ; expect: ##-Inf
(/ 0.0 0.0) ; expect: ##NaN
(+ Double/POSITIVE_INFINITY 1) ; expect: ##Inf
(* Double/NaN 10) ; expect: ##NaN
(- ##Inf ##Inf) ; expect: ##NaN
;; LibNumbers.ArithmeticErrors
(apply + [1 nil]) ; expect-error: type_error: +: expected a number
(apply / [1 0]) ; expect-error: arithmetic_error: /: division by zero
(map inc ["a"]) ; expect-error: type_error: inc: expected a number
(map dec [nil]) ; expect-error: type_error: dec: expected a number
;; Unary forms check their argument too (GAP-S104).
(+ [1 2]) ; expect-error: type_error
(+ :a) ; expect-error: type_error
(* "a") ; expect-error: type_error
(/ :a) ; expect-error: type_error
(- "a") ; expect-error: type_error
;; GAP-S28
(-) ; expect-error: arity_error
(apply / []) ; expect-error: arity_error
(inc 1 2) ; expect-error: arity_error
;; LibNumbers.QuotRemMod
(quot 10 3) ; expect: 3
(quot -7 2) ; expect: -3
(rem -10 3) ; expect: -1
(rem 10 -3) ; expect: 1
(mod -10 3) ; expect: 2
(mod 10 -3) ; expect: -2
(mod -1 5) ; expect: 4
;; Floats give floats, as in Clojure.
(quot 7.5 2) ; expect: 3.0
(rem 5.5 2) ; expect: 1.5
(mod -7.5 2) ; expect: 0.5
;; Bignums.
(quot 100000000000000000000 3) ; expect: 33333333333333333333
(mod -100000000000000000000 7) ; expect: 5
;; An infinite divisor is fine: the quotient truncates to zero (GAP-S138).
(quot 2 ##Inf) ; expect: 0.0
(rem 2 ##Inf) ; expect: ##NaN
;; NaN or an infinite dividend has no integer quotient (GAP-S138).
(quot ##NaN 2) ; expect-error: arithmetic_error
(rem ##NaN 2) ; expect-error: arithmetic_error
(mod ##NaN 2) ; expect-error: arithmetic_error
(quot 2 ##NaN) ; expect-error: arithmetic_error
(rem 2 ##NaN) ; expect-error: arithmetic_error
(mod 2 ##NaN) ; expect-error: arithmetic_error
(quot ##Inf 2) ; expect-error: arithmetic_error
(rem ##-Inf 2) ; expect-error: arithmetic_error
(mod ##Inf 2) ; expect-error: arithmetic_error
(quot 1 0) ; expect-error: arithmetic_error
(mod 1.0 0.0) ; expect-error: arithmetic_error
(rem "7" 2) ; expect-error: type_error: rem: expected a number
(mod 7 nil) ; expect-error: type_error: mod: expected a number
(quot 1) ; expect-error: arity_error
;; LibNumbers.AbsMaxMin
(abs -5) ; expect: 5
(abs -2.5) ; expect: 2.5
(abs ##-Inf) ; expect: ##Inf
;; DIV-45
(abs -9223372036854775808) ; expect: 9223372036854775808
(Math/abs -100000000000000000000) ; expect: 100000000000000000000
(abs nil) ; expect-error: type_error: abs: expected a number
(max 1 5 3) ; expect: 5
(min 1 5 3) ; expect: 1
(max 42) ; expect: 42
;; DIV-44: variadic
(Math/min 3 2 1) ; expect: 1
;; DIV-45: mixed numbers by value, anything else by the total order.
(Math/max 1 2.0) ; expect: 2.0
(Math/min 1 2.0) ; expect: 1
(Math/min nil 1) ; expect: 1
(Math/max "a" 1) ; expect: "a"
(max "apple" "pear" "fig") ; expect: "pear"
(apply max [3 100000000000000000000 2.5]) ; expect: 100000000000000000000
(max 1 ##NaN 3) ; expect: ##NaN
(min ##NaN 1) ; expect: ##NaN
(max ##-Inf -5) ; expect: -5
(max) ; expect-error: arity_error

;; ---- Rounding, roots, powers, coercions
;; LibNumbers.RoundingReturnsIntegers
(floor 3.7) ; expect: 3
(floor -3.2) ; expect: -4
(ceil 3.2) ; expect: 4
(ceil -3.7) ; expect: -3
(round 3.5) ; expect: 4
;; halves away from zero (DIV-43)
(round -2.5) ; expect: -3
(Math/round -1.5) ; expect: -2
(round 2.4) ; expect: 2
(trunc -3.7) ; expect: -3
(trunc 3.7) ; expect: 3
;; DIV-42
(str (Math/ceil 1.2)) ; expect: "2"
(str (Math/floor -1.2)) ; expect: "-2"
(floor 7) ; expect: 7
(round 100000000000000000000) ; expect: 100000000000000000000
(floor 1e20) ; expect: 100000000000000000000
(integer? (floor 2.0)) ; expect: true
;; Special values pass through (DIV-43).
(round ##NaN) ; expect: ##NaN
(floor ##Inf) ; expect: ##Inf
(Math/round ##-Inf) ; expect: ##-Inf
(floor "3.5") ; expect-error: type_error: floor: expected a number
(round nil) ; expect-error: type_error: round
;; LibNumbers.SqrtAndPow
(sqrt 16) ; expect: 4.0
(sqrt 2.25) ; expect: 1.5
(sqrt -1) ; expect: ##NaN
(sqrt ##Inf) ; expect: ##Inf
(pow 2 10) ; expect: 1024.0
(pow 2 -1) ; expect: 0.5
(Math/pow 9 0.5) ; expect: 3.0
;; java.lang.Math.pow's special cases (GAP-J13).
(Math/pow -1 0.5) ; expect: ##NaN
(Math/pow 0 -1) ; expect: ##Inf
(Math/pow 1 ##NaN) ; expect: ##NaN
(Math/pow 1 ##Inf) ; expect: ##NaN
(Math/pow -1 ##-Inf) ; expect: ##NaN
(Math/pow -0.0 -3) ; expect: ##-Inf
(pow ##NaN 0) ; expect: 1.0
(pow 10 400) ; expect: ##Inf
(pow "2" 2) ; expect-error: type_error: pow: expected a number
(pow 2) ; expect-error: arity_error
;; LibNumbers.DoubleFloatInt
(double 5) ; expect: 5.0
(float 1) ; expect: 1.0
(float? (double 100000000000000000000)) ; expect: true
;; GAP-S122: kept by design
(float ##Inf) ; expect: ##Inf
(double "1") ; expect-error: type_error: double: expected a number
(int 3.7) ; expect: 3
(int -3.7) ; expect: -3
(int 42) ; expect: 42
;; GAP-S62
(int ##NaN) ; expect: 0
;; GAP-S121
(int \A) ; expect: 65
(int \newline) ; expect: 10
(int "é") ; expect: 233
(int 2147483647) ; expect: 2147483647
(int -2147483648.5) ; expect: -2147483648
;; Infinity and values past 32 bits are arithmetic errors (GAP-S111).
(int Double/POSITIVE_INFINITY) ; expect-error: arithmetic_error
(int 2147483648) ; expect-error: arithmetic_error
(int -2147483649) ; expect-error: arithmetic_error
(int 1e10) ; expect-error: arithmetic_error
(int 100000000000000000000) ; expect-error: arithmetic_error
(int "12") ; expect-error: type_error: int: expected a number
(int nil) ; expect-error: type_error: int
;; LibNumbers.MathInterop
(Math/log Math/E) ; expect: 1.0
(Math/log 0) ; expect: ##-Inf
(Math/log -1) ; expect: ##NaN
(Math/log10 1000) ; expect: 3.0
(Math/exp 0) ; expect: 1.0
(Math/sin 0) ; expect: 0.0
(Math/cos 0) ; expect: 1.0
(Math/tan 0) ; expect: 0.0
;; Printed as (/ Math/PI 2) is.
(Math/asin 1) ; expect-printed: 1.5707963268
(Math/acos 1) ; expect: 0.0
(Math/atan 0) ; expect: 0.0
;; Printed as (/ Math/PI 2) is.
(Math/atan2 1 0) ; expect-printed: 1.5707963268
(Math/sinh 0) ; expect: 0.0
(Math/cosh 0) ; expect: 1.0
(Math/tanh 0) ; expect: 0.0
(Math/cbrt 27) ; expect-printed: 3.0
(Math/hypot 3 4) ; expect: 5.0
(Math/signum -3) ; expect: -1.0
(Math/signum 2.5) ; expect: 1.0
(Math/signum 0) ; expect: 0.0
(Math/signum ##NaN) ; expect: ##NaN
(Math/toDegrees Math/PI) ; expect: 180.0
;; Printed as Math/PI is.
(Math/toRadians 180) ; expect-printed: 3.1415926536
;; The Math category reaches the bare helpers of the same name.
(Math/sqrt 9) ; expect: 3.0
(Math/floor 2.5) ; expect: 2
(map Math/abs [-1 2]) ; expect: [1 2]
;; The Java methods exist only under Math/, not as bare names, and not random.
(log 1) ; expect-error: unbound_var
(Math/random) ; expect-error: unbound_var
(Math/map inc [1]) ; expect-error: unbound_var
(Math/log "1") ; expect-error: type_error: Math/log: expected a number
(Math/hypot 1 nil) ; expect-error: type_error: Math/hypot
(Math/atan2 1) ; expect-error: arity_error

;; ---- Bitwise
;; LibNumbers.BitwiseSpecExamples
(bit-and 12 10) ; expect: 8
(bit-or 12 10) ; expect: 14
(bit-xor 12 10) ; expect: 6
(bit-and-not 15 9) ; expect: 6
(bit-not 0) ; expect: -1
(bit-shift-left 1 4) ; expect: 16
(bit-shift-right 256 4) ; expect: 16
(bit-set 0 3) ; expect: 8
(bit-clear 15 1) ; expect: 13
(bit-flip 0 2) ; expect: 4
(bit-test 5 0) ; expect: true
(bit-test 5 1) ; expect: false
(bit-and 15 7 3) ; expect: 3
(bit-or 1 2 4 8) ; expect: 15
(bit-and-not 15 1 2) ; expect: 12
(bit-and -1 255) ; expect: 255
;; LibNumbers.BitwiseArbitraryPrecision
;; No 64-bit width: shifts grow and are not taken modulo 64 (spec §8.4a).
(bit-shift-left 1 64) ; expect: 18446744073709551616
(bit-shift-left 1 63) ; expect: 9223372036854775808
(bit-shift-left -1 63) ; expect: -9223372036854775808
(bit-shift-left 3 62) ; expect: 13835058055282163712
(bit-shift-right -2 64) ; expect: -1
(bit-shift-right 8 100) ; expect: 0
(bit-shift-right -9 1) ; expect: -5
(bit-set 0 64) ; expect: 18446744073709551616
(bit-flip 0 64) ; expect: 18446744073709551616
(bit-clear -1 64) ; expect: -18446744073709551617
(bit-clear 1 64) ; expect: 1
(bit-set -1 100) ; expect: -1
(bit-test 1 64) ; expect: false
(bit-test -1 1000) ; expect: true
;; Bignum operands (GAP-S142 is decided for arbitrary precision).
(bit-not 9223372036854775808) ; expect: -9223372036854775809
(bit-and 9223372036854775808 1) ; expect: 0
(bit-or 9223372036854775808 1) ; expect: 9223372036854775809
(bit-xor 9223372036854775809 1) ; expect: 9223372036854775808
(bit-and-not 18446744073709551615 1) ; expect: 18446744073709551614
(bit-test 9223372036854775808 63) ; expect: true
(bit-shift-right 18446744073709551616 60) ; expect: 16
(bit-clear 18446744073709551617 64) ; expect: 1
(bit-test 1 9223372036854775808) ; expect: false
(bit-shift-right 5 9223372036854775808) ; expect: 0
;; LibNumbers.BitwiseErrors
;; Two or more arguments for the folding helpers (GAP-S108).
(bit-and 7) ; expect-error: arity_error
(bit-or 7) ; expect-error: arity_error
(bit-xor 7) ; expect-error: arity_error
(bit-and-not 7) ; expect-error: arity_error
(bit-not 1 2) ; expect-error: arity_error
;; Integers only, and bit indexes are non-negative (spec §8.4a; GAP-S52).
(bit-and 1.0 2) ; expect-error: type_error: bit-and: expected an integer (argument 1)
(bit-or 1 nil) ; expect-error: type_error: bit-or: expected an integer (argument 2)
(bit-not "1") ; expect-error: type_error: bit-not
(bit-shift-left 1 -1) ; expect-error: type_error
(bit-shift-right 8 -1) ; expect-error: type_error
(bit-test 1 -1) ; expect-error: type_error
(bit-set 1 -1) ; expect-error: type_error
(bit-clear 1 -1) ; expect-error: type_error
(bit-flip 1 -1) ; expect-error: type_error
(bit-set 1 2.0) ; expect-error: type_error
(bit-test 1 nil) ; expect-error: type_error
;; A shift that cannot fit the memory cap fails cleanly.
(bit-shift-left 1 100000000000) ; expect-error: memory_limit
(bit-set 0 9223372036854775808) ; expect-error: memory_limit

;; ---- Comparison
;; LibNumbers.Equality
(= 1) ; expect: true
(= 1 1 1) ; expect: true
;; DIV-32
(= 1 1.0) ; expect: true
(not= 1 1.0) ; expect: false
(== 1 1.0) ; expect: true
;; DIV-10: any type
(== :a :a) ; expect: true
(== "a" 1) ; expect: false
(= [1 2] [1 2] [1 2]) ; expect: true
(= nil nil) ; expect: true
(= 5 nil) ; expect: false
(= Double/NaN Double/NaN) ; expect: false
(not= ##NaN ##NaN) ; expect: true
(not= 1) ; expect: false
(apply = [2 2 2]) ; expect: true
(=) ; expect-error: arity_error
(not=) ; expect-error: arity_error
;; LibNumbers.OrderedComparisons
(< 1 2 3) ; expect: true
(< 1 3 2) ; expect: false
(<= 1 1 2) ; expect: true
(> 3 2 1) ; expect: true
(>= 3 3 4) ; expect: false
(< 5) ; expect: true
(< 1.0 Double/POSITIVE_INFINITY) ; expect: true
(> -1.0 Double/NEGATIVE_INFINITY) ; expect: true
(< Double/NaN 0.0) ; expect: false
(>= Double/NaN 0.0) ; expect: false
(apply < [1 ##NaN 3]) ; expect: false
;; Recoverable term order (spec §11.3).
(> "b" "a") ; expect: true
(< 1 nil) ; expect: true
(> 5 nil) ; expect: false
(<= nil nil) ; expect: true
(apply > [9 100000000000000000000]) ; expect: false
(<) ; expect-error: arity_error
;; LibNumbers.Compare
(compare 1 2) ; expect: -1
(compare 2 2.0) ; expect: 0
(compare 3 1) ; expect: 1
(compare "a" "c") ; expect: -1
(compare :b :a) ; expect: 1
(compare [1 2] [1 3]) ; expect: -1
(compare nil 1) ; expect: 1
;; NaN is unordered and compares as 0, as in Clojure (DIV-33 reclassified).
(compare ##NaN 1) ; expect: 0
(compare ##NaN ##NaN) ; expect: 0
(compare 1) ; expect-error: arity_error

;; ---- Predicates
;; LibNumbers.ValuePredicates
[(nil? nil) (nil? false) (some? false) (some? nil)] ; expect: [true false true false]
[(true? true) (true? 1) (false? false) (false? nil)] ; expect: [true false true false]
[(boolean? false) (boolean? nil) (boolean 0) (boolean nil) (boolean false)] ; expect: [true false true false false]
[(number? 1) (number? 1.5) (number? ##NaN) (number? "1")] ; expect: [true true true false]
[(int? 1) (integer? 100000000000000000000) (int? 1.0) (int? "42")] ; expect: [true true false false]
;; NaN and the infinities are floats (GAP-S127).
[(float? 1.5) (double? ##NaN) (float? ##Inf) (double? 1) (float? nil)] ; expect: [true true true false false]
[(string? "") (string? :a) (keyword? :a) (keyword? "a")] ; expect: [true false true false]
[(char? \a) (char? "ab") (char? "") (char? 1)] ; expect: [true false false false]
;; DIV-19, DIV-20, DIV-49: always false.
[(symbol? :a) (symbol? 'a) (symbol? nil)] ; expect: [false false false]
[(decimal? 1.5) (ratio? 1) (ratio? 0.5) (map-entry? [:a 1])] ; expect: [false false false false]
(map-entry? (first (vec {:a 1}))) ; expect: false
[(rational? 42) (rational? 100000000000000000000) (rational? 3.14) (rational? nil)] ; expect: [true true false false]
;; LibNumbers.CollectionPredicates
[(vector? []) (vector? {}) (map? {}) (map? []) (set? #{}) (set? [])] ; expect: [true false true false true false]
[(coll? [1]) (coll? {:a 1}) (coll? #{1}) (coll? "s") (coll? nil)] ; expect: [true true true false false]
[(sequential? [1]) (sequential? {:a 1}) (sequential? "s") (sequential? nil)] ; expect: [true false false false]
;; spec §8.7 over GAP-S84
[(seq? [1 2 3]) (seq? []) (seq? {:a 1}) (seq? nil)] ; expect: [true true false false]
[(associative? [1]) (associative? {}) (associative? #{1}) (associative? nil)] ; expect: [true true false false]
;; PTC assertions: strings are counted, indexed and reversible.
[(counted? [1]) (counted? {}) (counted? #{}) (counted? "") (counted? nil) (counted? 42)] ; expect: [true true true true false false]
[(indexed? []) (indexed? "abc") (indexed? {:a 1}) (indexed? #{1}) (indexed? nil)] ; expect: [true true false false false]
[(reversible? [1]) (reversible? "") (reversible? {:a 1}) (reversible? nil)] ; expect: [true true false false]
[(sorted? [1 2]) (sorted? {:a 1}) (sorted? #{1})] ; expect: [false false false]
[(seqable? []) (seqable? {}) (seqable? #{}) (seqable? "") (seqable? nil) (seqable? 42) (seqable? :k)] ; expect: [true true true true true false false]
;; LibNumbers.FunctionPredicates
[(fn? inc) (fn? (fn [x] x)) (fn? (partial + 1)) (fn? :a) (fn? {:a 1}) (fn? [1])] ; expect: [true true true false false false]
[(ifn? inc) (ifn? :keyword) (ifn? {:a 1}) (ifn? #{1}) (ifn? [1]) (ifn? "s") (ifn? nil)] ; expect: [true true true true true false false]
;; LibNumbers.NumericPredicates
[(zero? 0) (zero? 0.0) (zero? -0.0) (zero? 1) (zero? ##NaN)] ; expect: [true true true false false]
[(pos? 1) (pos? ##Inf) (pos? 0) (neg? -1) (neg? ##-Inf) (neg? ##NaN)] ; expect: [true true false true true false]
;; DIV-31: false, not an error, for anything that is not a number.
[(zero? nil) (pos? "1") (neg? "-1") (even? nil) (odd? \a) (infinite? nil) (NaN? "x")] ; expect: [false false false false false false false]
;; GAP-S08: whole floats count, fractional ones are neither.
[(even? 4) (even? 4.0) (even? 4.5) (odd? 3.0) (odd? 4.0) (odd? -3)] ; expect: [true true false true false true]
[(even? 100000000000000000000) (odd? 100000000000000000001) (even? ##Inf)] ; expect: [true true false]
[(nat-int? 0) (nat-int? -1) (nat-int? 3.0) (pos-int? 5) (pos-int? 0) (neg-int? -1) (neg-int? -1.5) (pos-int? nil)] ; expect: [true false false true false true false false]
[(pos-int? 100000000000000000000) (neg-int? -100000000000000000000)] ; expect: [true true]
[(infinite? ##Inf) (infinite? ##-Inf) (infinite? ##NaN) (infinite? 42)] ; expect: [true true false false]
[(NaN? ##NaN) (NaN? 0.0) (NaN? ##Inf) (NaN? 1)] ; expect: [true false false false]
;; LibNumbers.LogicAndEmptiness
[(not nil) (not false) (not 0) (not "")] ; expect: [true true false false]
(identity 42) ; expect: 42
(filter identity [1 nil 2 false]) ; expect: [1 2]
[(empty? []) (empty? nil) (empty? "") (empty? {}) (empty? #{}) (empty? [1]) (empty? " ")] ; expect: [true true true true true false false]
(empty? 42) ; expect-error: type_error: empty?
(not) ; expect-error: arity_error
(nil? 1 2) ; expect-error: arity_error
;; LibNumbers.DistinctP
(distinct? 1 2 3) ; expect: true
(distinct? 1 2 1) ; expect: false
(distinct? 1) ; expect: true
;; = is numeric type-independent
(distinct? 1 1.0) ; expect: false
(distinct? [1] [1]) ; expect: false
;; NaN equals nothing, so repeated NaNs are distinct (GAP-S101).
(distinct? ##NaN ##NaN) ; expect: true
(distinct? ##NaN 1 ##NaN) ; expect: true
;; Many arguments go through a set.
(apply distinct? (range 100)) ; expect: true
(apply distinct? (conj (vec (range 100)) 50)) ; expect: false
;; GAP-S64
(distinct?) ; expect-error: arity_error
;; LibNumbers.Type
(type nil) ; expect: nil
[(type true) (type 1) (type 1.5) (type 100000000000000000000) (type ##NaN)] ; expect: [:boolean :number :number :number :number]
[(type "s") (type :k) (type [1]) (type {}) (type #{})] ; expect: [:string :keyword :vector :map :set]
[(type inc) (type (fn [x] x)) (type (partial + 1)) (type #"a+")] ; expect: [:function :function :function :regex]

;; ---- Output
;; LibNumbers.PrintAndPrn
;; as Clojure: nested strings unquoted too
(print "a" 1 nil ["x"]) (prn "a" 1 nil) (prn) (print) 7 ; expect: 7
; expect-output: ["a 1 nil [x]" "\"a\" 1 nil" "" ""]
(print 1) ; expect: nil
(prn {:a "b"}) ; expect: nil
;; Each call is one entry, in order, interleaved with println.
(doseq [x [1 2]] (print x)) (println "done") (prn 1.5) ; expect: nil
; expect-output: ["1" "2" "done" "1.5"]

;; ---- describe
;; LibNumbers.DescribeReferenceExample
(= (describe [{"event" "turn"} {"event" "done" "ok" true}]) {:type "vector" :count 2 :scanned 2 :item_types {"map" 2} :keys {"event" {:present 2 :pct 100.0 :types {"string" 2} :examples ["turn" "done"] :distinct_count 2} "ok" {:present 1 :pct 50.0 :types {"boolean" 1} :examples [true] :distinct_count 1}} :key_types {"string" 3}}) ; expect: true
;; Printed in the reference implementation's key order.
(describe [{"event" "turn"} {"event" "done" "ok" true}]) ; expect-printed: {:type "vector" :count 2 :scanned 2 :item_types {"map" 2} :key_types {"string" 3} :keys {"event" {:present 2 :pct 100.0 :types {"string" 2} :examples ["turn" "done"] :distinct_count 2} "ok" {:present 1 :pct 50.0 :types {"boolean" 1} :examples [true] :distinct_count 1}}}
;; LibNumbers.DescribeScalarsAndCollections
(describe 42) ; expect: {:type "integer" :sample 42 :types {"integer" 1} :examples [42] :range {:min 42 :max 42} :distinct_count 1}
(describe nil) ; expect: {:type "nil" :sample nil :types {"nil" 1} :examples [nil] :distinct_count 1}
(:type (describe ##NaN)) ; expect: "nan"
(:type (describe inc)) ; expect: "function"
(:non_empty (describe "")) ; expect: 0
(describe []) ; expect: {:type "vector" :count 0 :scanned 0 :item_types {}}
(describe [1 "a" 2]) ; expect: {:type "vector" :count 3 :scanned 3 :item_types {"integer" 2 "string" 1}}
(describe #{1 :a}) ; expect: {:type "set" :count 2 :scanned 2 :item_types {"integer" 1 "keyword" 1}}
(describe {:b "x" :a 1.5}) ; expect: {:type "map" :count 2 :key_types {"keyword" 2} :keys {":a" {:types {"float" 1} :examples [1.5] :range {:min 1.5 :max 1.5} :distinct_count 1} ":b" {:types {"string" 1} :examples ["x"] :distinct_count 1}}}
(describe {}) ; expect: {:type "map" :count 0 :key_types {} :keys {}}
;; LibNumbers.DescribeFieldSummaries
;; Numeric strings count toward the range; empty values show in :non_empty.
(get (:keys (describe [{:p "10"} {:p "2.5"} {:p ""} {:q 1}])) ":p") ; expect: {:present 3 :pct 75.0 :types {"string" 3} :examples ["10" "2.5" ""] :non_empty 2 :range {:min 2.5 :max 10.0} :distinct_count 3}
;; Examples are distinct and limited by :sample (1 to 3); collections are shown as text.
(get (:keys (describe [{:t [1]} {:t [1]} {:t []}] {:sample 1})) ":t") ; expect: {:present 3 :pct 100.0 :types {"vector" 3} :examples ["[1]"] :non_empty 2}
(count (:examples (get (:keys (describe (mapv (fn [i] {:n i}) (range 10)) {"sample" 99})) ":n"))) ; expect: 3
;; Distinct counts stop at 50.
;; Long strings are cut in examples.
(let [n (get (:keys (describe (mapv (fn [i] {:n i}) (range 80)))) ":n")] [(:distinct_count n) (:distinct_capped n) (:range n)]) ; expect: [50 true {:min 0 :max 79}]
(first (:examples (describe (apply str (repeat 200 "ab"))))) ; expect: "abababababababababababababababababababababababababababababababababababababababababababababababababababababababababababab...(400 chars)"
;; Keys that render alike are told apart by type.
(sort (keys (:keys (describe {1 :a "1" :b})))) ; expect: ["integer:1" "string:1"]
;; LibNumbers.DescribePaths
(:paths (describe [{:a {:b 1}} {:a {:b "2" :c nil}}] {:paths true :depth 2})) ; expect: {":a" {:present 2 :pct 100.0 :types {"map" 2} :examples ["{:b 1}" "{:b \"2\" :c nil}"]} ":a.:b" {:present 2 :pct 100.0 :types {"integer" 1 "string" 1} :examples [1 "2"] :range {:min 1 :max 2.0} :distinct_count 2} ":a.:c" {:present 1 :pct 50.0 :types {"nil" 1} :examples [nil] :distinct_count 1}}
;; The default depth is 1; vectors under a path are looked through.
(keys (:paths (describe {:a {:b 1}} {:paths true}))) ; expect: [":a"]
(get (:paths (describe {"orders" [{"id" 1} {"id" 2} {"id" 3}]} {:paths true :depth 2})) "orders.id") ; expect: {:present 1 :pct 100.0 :types {"integer" 3} :examples [1 2 3] :range {:min 1 :max 3} :distinct_count 3 :value_count 3}
;; Dots in keys are escaped in path names.
(keys (:paths (describe {"a.b" {"c" 1}} {:paths true :depth 2}))) ; expect: ["a\\.b" "a\\.b.c"]
(:paths (describe [1 2] {:paths true})) ; expect: {}
;; LibNumbers.DescribeCaps
(let [d (describe (vec (range 1500)))] [(:count d) (:scanned d) (:count_capped d) (:truncated d) (:caps_hit d)]) ; expect: [1000 1000 true true ["max_items"]]
(let [d (describe (reduce (fn [m i] (assoc m i i)) {} (range 150)))] [(:count d) (count (:keys d)) (:caps_hit d)]) ; expect: [150 100 ["max_keys"]]
(let [d (describe (mapv (fn [i] {(keyword (str "k" i)) i}) (range 150)))] [(count (:keys d)) (:caps_hit d)]) ; expect: [100 ["max_keys"]]
;; 1000 maps of 11 keys are 11000 path values, past the 10000 cap.
(let [row (fn [i] (reduce (fn [m k] (assoc m k i)) {} (range 11)))
                          d (describe (mapv row (range 1000)) {:paths true})]
                      [(count (:paths d)) (:caps_hit d)]) ; expect: [11 ["max_path_values"]]
; no-gc-stress: 11000 path values one at a time, quadratic when every step collects
(let [d (describe {:a (vec (range 2000))} {:paths true :depth 2})] [(:present (get (:paths d) ":a")) (:caps_hit d)]) ; expect: [1 ["max_items"]]
;; LibNumbers.DescribeStaysBoundedOnSharedStructure
;; 10^9 nested items through sharing: the path walk stops after its visit budget.
(let [v1 (vec (repeat 1000 1)) v2 (vec (repeat 1000 v1)) v3 (vec (repeat 1000 v2))]
                      (:caps_hit (describe {:a v3} {:paths true :depth 2}))) ; expect: ["max_visits"]
;; Examples of huge values are cut short.
(let [v1 (vec (repeat 1000 1)) v2 (vec (repeat 1000 v1))]
                      (count (first (:examples (get (:keys (describe {:a v2})) ":a"))))) ; expect: 123
;; LibNumbers.DescribeOptionsAndErrors
(= (describe [1] nil) (describe [1])) ; expect: true
(= (describe [1] {:depth 99 :sample -4}) (describe [1])) ; expect: true
(describe [1] 5) ; expect-error: type_error: describe: expected an options map
(describe) ; expect-error: arity_error
(describe 1 {} 2) ; expect-error: arity_error
