;; REPL discovery forms and the Clojure-compatibility helpers.
;; The format: tests/lang/README.md.
;; LibDiscovery.DocPrintsAndReturnsNil
(doc no-such-thing) ; expect: nil
; expect-output: ["no documentation for no-such-thing"]
;; LibDiscovery.BareSymbolsAreNamesNotValues
;; (doc x) never evaluates x, even when x is bound to something else.
(let [inc 5] (:name (meta inc))) ; expect: "inc"
(:kind (meta when)) ; expect: "special-form"
(meta nope) ; expect: nil
;; LibDiscovery.DirAprioposAndNamespaces
(count (dir clojure.core {:limit 5})) ; expect: 5
(= (first (dir clojure.core {:limit 1 :offset 0})) (first (dir core))) ; expect: true
(starts-with? (first (apropos "reduce")) "local: clojure.core/reduce") ; expect: true
(all-ns) ; expect: ["clojure.core" "clojure.set" "clojure.string" "clojure.walk" "json"]
(ns-name str) ; expect: "clojure.string"
(map? (ns-publics clojure.core)) ; expect: true
(dir nowhere) ; expect-error: runtime_error
(ns-name nowhere) ; expect-error: runtime_error
(dir core {:limit 0}) ; expect-error: type_error
(apropos 5) ; expect-error: type_error
;; LibDiscovery.SourceHasNothingForBuiltins
(source map) ; expect: nil
; expect-output: ["no source available"]
;; LibCompat.DoallAndDorun
(doall (map inc [1 2])) ; expect: [2 3]
(dorun (map inc [1 2])) ; expect: nil
;; LibCompat.LeftOutClojureNamesExplainThemselves
(swap! a inc) ; expect-error: unbound_var
; expect-hint: no mutable state
(printf "%d" 1) ; expect-error: unbound_var
; expect-hint: format
(rand-int 10) ; expect-error: unbound_var
; expect-hint: deterministic
(clojure.string/frobnicate "a") ; expect-error: unbound_var
; expect-hint: clojure.string functions:
