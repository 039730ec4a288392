;; Regex matching (re-find re-matches re-seq re-split extract extract-int),
;; the JSON helpers and the date/time interop, run end to end.
;; The format: tests/lang/README.md.

;; ---- Regex
;; LibRegex.PatternAndPredicate
(regex? (re-pattern "a+")) ; expect: true
(regex? #"a+") ; expect: true
(regex? "a+") ; expect: false
(regex? nil) ; expect: false
;; An existing regex is returned as it is (GAP-S66).
(re-find (re-pattern #"a+") "baac") ; expect: "aa"
(re-pattern 5) ; expect-error: type_error
(re-pattern "(") ; expect-error: type_error
;; LibRegex.FindReturnsStringOrGroupVector
(re-find (re-pattern "\\d+") "v1") ; expect: "1"
(re-find #"\d+" "ab 12 34") ; expect: "12"
(re-find #"(\d+)-(\d+)" "10-20") ; expect: ["10-20" "10" "20"]
(re-find #"z" "abc") ; expect: nil
(re-find #"" "") ; expect: ""
(re-find #"x" "") ; expect: nil
;; Unicode text: matches are whole code points.
(re-find #"é+" "caféé!") ; expect: "éé"
;; LibRegex.UnmatchedOptionalGroupsAreNil
;; GAP-S92: Clojure keeps a nil slot for every group that did not take part.
(re-find #"a(\d+)?" "xa") ; expect: ["a" nil]
(re-matches #"a(\d+)?" "a") ; expect: ["a" nil]
(re-find #"(a)?(b)" "b") ; expect: ["b" nil "b"]
(re-matches #"(a)?(b)?(c)" "c") ; expect: ["c" nil nil "c"]
(re-seq #"a(\d+)?" "a a2") ; expect: [["a" nil] ["a2" "2"]]
(re-seq #"(a)?(b)?(c)" "c abc") ; expect: [["c" nil nil "c"] ["abc" "a" "b" "c"]]
;; A group that matched the empty string is "", not nil.
(re-find #"a(x*)" "a") ; expect: ["a" ""]
;; LibRegex.MatchesNeedsTheWholeString
(re-matches (re-pattern "\\d+") "123") ; expect: "123"
(re-matches (re-pattern "\\d+") "123abc") ; expect: nil
(re-matches #"\d+" "abc123") ; expect: nil
(re-matches #"(\w+)@(\w+)" "me@host") ; expect: ["me@host" "me" "host"]
;; The alternative that spans the whole string is the one taken.
(re-matches #"a|ab" "ab") ; expect: "ab"
(re-matches #"" "") ; expect: ""
;; LibRegex.SeqFindsEveryMatch
(re-seq (re-pattern "\\d+") "a1b22c333") ; expect: ["1" "22" "333"]
(re-seq (re-pattern "(\\d)(\\w)") "1a2b") ; expect: [["1a" "1" "a"] ["2b" "2" "b"]]
;; No match is nil (GAP-S82), which still works as an empty collection.
(re-seq #"z" "abc") ; expect: nil
(count (re-seq #"z" "abc")) ; expect: 0
(re-seq #"z" "") ; expect: nil
;; Empty matches advance one character at a time, as Java's Matcher does.
(re-seq #"a*" "baa") ; expect: ["" "aa" ""]
(count (re-seq #"" "héllo")) ; expect: 6
(re-seq #"\w+" "one two  three") ; expect: ["one" "two" "three"]
;; LibRegex.SplitCutsAtMatches
(re-split (re-pattern "\\s+") "a  b   c") ; expect: ["a" "b" "c"]
(re-split (re-pattern ",") "a,b,c") ; expect: ["a" "b" "c"]
(re-split #"," ",a,,b,") ; expect: ["" "a" "" "b" ""]
(re-split #"," "abc") ; expect: ["abc"]
(re-split #"," "") ; expect: [""]
;; An empty pattern splits between characters, without empty ends.
(re-split #"" "abc") ; expect: ["a" "b" "c"]
;; Groups only shape the separator; they are not part of the result.
(re-split #"(-)" "a-b") ; expect: ["a" "b"]
;; LibRegex.ExtractTakesAGroup
(extract "ID:(\\d+)" "ID:42") ; expect: "42"
(extract "ID:(\\d+)" "ID:42" 0) ; expect: "ID:42"
(extract "x=(\\d+) y=(\\d+)" "x=10 y=20" 2) ; expect: "20"
(extract "ID:(\\d+)" "no match") ; expect: nil
(extract #"ID:(\d+)" "ID:7") ; expect: "7"
;; No such group, a pattern without groups, a group that did not take part.
(extract "ID:(\\d+)" "ID:42" 3) ; expect: nil
(extract "ID:(\\d+)" "ID:42" -1) ; expect: nil
(extract "ID:\\d+" "ID:42") ; expect: nil
(extract #"a(b)?" "a") ; expect: nil
;; nil text is "no match", so a missing field flows through.
(extract "(a)" nil) ; expect: nil
(extract "(a)" (:missing {})) ; expect: nil
;; Reachable through the string namespace (its reference section).
(clojure.string/extract "(b)" "abc") ; expect: "b"
;; LibRegex.ExtractIntParsesWithDefault
(extract-int "age=(\\d+)" "age=25") ; expect: 25
(extract-int "age=(\\d+)" "no match") ; expect: nil
(extract-int "x=(\\d+) y=(\\d+)" "x=10 y=20" 2) ; expect: 20
(extract-int "age=(\\d+)" "no match" 1 0) ; expect: 0
(extract-int "x=(\\d+) y=(\\d+)" "x=10 y=20" 2 0) ; expect: 20
(extract-int #"t=(-?\d+)" "t=-40") ; expect: -40
;; Text that is not an integer, or beyond int64, gives the default.
(extract-int "v=(\\w+)" "v=abc" 1 -1) ; expect: -1
(extract-int "v=(\\d+)" "v=99999999999999999999" 1 :big) ; expect: :big
(extract-int "v=(\\d+)" "v=9223372036854775807") ; expect: 9223372036854775807
(extract-int "(a)" nil 1 5) ; expect: 5
;; LibRegex.Errors
;; re-* take a regex: a pattern string is refused with a hint.
(re-find "a" "a") ; expect-error: type_error: re-find: expected a regex (argument 1)
; expect-hint: re-pattern
(re-seq #"a" 42) ; expect-error: type_error: argument 2
(re-find #"a" nil) ; expect-error: type_error
(re-matches #"a" ["a"]) ; expect-error: type_error
(re-split "," "a,b") ; expect-error: type_error
(extract 5 "a") ; expect-error: type_error
(extract "(a)" 5) ; expect-error: type_error
(extract "(a)" "a" "1") ; expect-error: type_error
(extract-int "(" "a") ; expect-error: type_error
;; Arity is checked by the registry.
(re-find #"a") ; expect-error: arity_error
(re-seq #"a" "a" "a") ; expect-error: arity_error
(extract "a") ; expect-error: arity_error
(extract-int "a" "b" 1 2 3) ; expect-error: arity_error
;; LibRegex.UnsupportedJavaConstructsAreExplained
(re-find (re-pattern "(?<=a)b") "ab") ; expect-error: type_error
; expect-hint: lookahead
(re-find (re-pattern "(a)\\1") "aa") ; expect-error: type_error
; expect-hint: backreference
;; \C (any byte) could cut a character in two: refused when the pattern compiles.
(re-find (re-pattern "\\C") "e") ; expect-error: type_error: \C is not supported
;; Java named groups are translated for RE2.
(re-find #"(?<y>\d+)-" "12-") ; expect: ["12-" "12"]
(re-pattern (apply str (repeat 300 "a"))) ; expect-error: type_error: 256
;; LibRegex.LargeInputsAreNotTruncated
;; The match lies beyond the first 32 KB that the reference would scan.
(re-find #"needle" (str (apply str (repeat 40000 "x")) "needle")) ; expect: "needle"
(count (re-seq #"a" (apply str (repeat 50000 "ab")))) ; expect: 50000
;; Catastrophic backtracking does not exist for RE2.
(re-find #"(a+)+b" (apply str (repeat 50 "a"))) ; expect: nil

;; ---- JSON
;; LibJson.ParseString
(json/parse-string "{\"a\": 1, \"b\": [2, 3.5, null, true]}") ; expect: {"a" 1 "b" [2 3.5 nil true]}
(json/parse-string "[1, 2, 3]") ; expect: [1 2 3]
(json/parse-string "\"hi\"") ; expect: "hi"
(json/parse-string "12345678901234567890123") ; expect: 12345678901234567890123
;; Keys stay strings; keyword lookup still finds them (flexible access).
(keys (json/parse-string "{\"name\": \"x\"}")) ; expect: ["name"]
(:name (json/parse-string "{\"name\": \"x\"}")) ; expect: "x"
(json/parse-string "{}") ; expect: {}
(json/parse-string "[]") ; expect: []
;; LibJson.ParseStringFailuresAreNil
;; DIV-23: never an error.
(json/parse-string "not json") ; expect: nil
(json/parse-string "null") ; expect: nil
(json/parse-string nil) ; expect: nil
(json/parse-string 42) ; expect: nil
(json/parse-string "") ; expect: nil
(json/parse-string "{\"a\": }") ; expect: nil
(json/parse-string (apply str (repeat 2000 "["))) ; expect: nil
(json/parse-string) ; expect-error: arity_error
;; LibJson.ParseLines
(json/parse-lines "{\"a\":1}\n\nnull\nnot json") ; expect: [{"a" 1} nil nil]
(json/parse-lines "{\"a\":1}\n[2,3]\n") ; expect: [{"a" 1} [2 3]]
(json/parse-lines "1\r\n2\r3") ; expect: [1 2 3]
(json/parse-lines "  \n\t\n{\"ok\":true}") ; expect: [{"ok" true}]
(json/parse-lines "") ; expect: []
(json/parse-lines nil) ; expect: nil
(json/parse-lines 42) ; expect: nil
(json/parse-lines "1" "2") ; expect-error: arity_error
;; LibJson.GenerateString
(json/generate-string {"a" [1 2.5 nil true false]}) ; expect: "{\"a\":[1,2.5,null,true,false]}"
(json/generate-string nil) ; expect: "null"
(json/generate-string [1 2 3]) ; expect: "[1,2,3]"
(json/generate-string "hello") ; expect: "\"hello\""
(json/generate-string 1.0) ; expect: "1.0"
(json/generate-string 123456789012345678901234567890) ; expect: "123456789012345678901234567890"
(json/generate-string []) ; expect: "[]"
(json/generate-string {}) ; expect: "{}"
;; Escapes: quotes, backslashes, control characters; UTF-8 passes through.
(json/generate-string "a\"b\\c\nd\u0001é") ; expect: "\"a\\\"b\\\\c\\nd\\u0001é\""
;; Integer keys are written as strings (no round trip), sets as arrays.
(json/generate-string {1 "a"}) ; expect: "{\"1\":\"a\"}"
(json/generate-string #{1}) ; expect: "[1]"
;; Round trip of string-keyed data.
(let [v {"a" [1 {"b" "c"}]}] (= v (json/parse-string (json/generate-string v)))) ; expect: true
;; LibJson.GenerateStringRefusesWithNil
;; DIV-24: keywords (as values or keys), other key types, special floats and
;; functions have no faithful JSON form.
(json/generate-string :fs) ; expect: nil
(json/generate-string {:server "fs"}) ; expect: nil
(json/generate-string {"server" :fs}) ; expect: nil
(json/generate-string {"server" (name :fs)}) ; expect: "{\"server\":\"fs\"}"
(json/generate-string {1.5 "a"}) ; expect: nil
(json/generate-string {[1] "a"}) ; expect: nil
(json/generate-string {nil 1}) ; expect: nil
(json/generate-string POSITIVE_INFINITY) ; expect: nil
(json/generate-string [1 NaN]) ; expect: nil
(json/generate-string inc) ; expect: nil
(json/generate-string [#"a"]) ; expect: nil
(json/generate-string) ; expect-error: arity_error

;; ---- Dates and times
;; LibDates.LocalDateParseAndPrint
(LocalDate/parse "2023-10-27") ; expect-printed: "2023-10-27"
(java.time.LocalDate/parse "2023-10-27") ; expect-printed: "2023-10-27"
(parse "2023-10-27") ; expect-printed: "2023-10-27"
(str (LocalDate/parse "2023-10-27")) ; expect: "2023-10-27"
(pr-str (LocalDate/parse "2023-10-27")) ; expect: "\"2023-10-27\""
(string? (LocalDate/parse "2023-10-27")) ; expect: false
;; With a time component the parse family gives a DateTime (GAP-J06 kept).
(LocalDate/parse "2024-01-02T03:04:05") ; expect-printed: "2024-01-02T03:04:05Z"
(Instant/parse "2024-01-02") ; expect-printed: "2024-01-02"
;; LibDates.EpochDaysAndDayArithmetic
(.toEpochDay (LocalDate/parse "1970-01-01")) ; expect: 0
(.toEpochDay (LocalDate/parse "2024-01-01")) ; expect: 19723
(.toEpochDay (LocalDate/parse "1969-12-31")) ; expect: -1
(.toEpochDay (LocalDate/parse "2000-03-01")) ; expect: 11017
(.plusDays (LocalDate/parse "2024-02-28") 1) ; expect-printed: "2024-02-29"
(.plusDays (LocalDate/parse "2023-02-28") 1) ; expect-printed: "2023-03-01"
(.plusDays (LocalDate/parse "2023-12-31") 367) ; expect-printed: "2025-01-01"
(.minusDays (LocalDate/parse "2024-03-01") 1) ; expect-printed: "2024-02-29"
(.minusDays (LocalDate/parse "1900-03-01") 1) ; expect-printed: "1900-02-28"
(.plusDays (LocalDate/parse "2024-01-10") -10) ; expect-printed: "2023-12-31"
;; Day counts as Clojure passes them to a Java long (GAP-J12).
(.toEpochDay (.plusDays (LocalDate/parse "2024-01-02") 1.0)) ; expect: 19725
(.toEpochDay (.plusDays (LocalDate/parse "2024-01-01") 1.9)) ; expect: 19724
(.toEpochDay (.minusDays (LocalDate/parse "2024-01-01") 1.9)) ; expect: 19722
(.toEpochDay (.plusDays (LocalDate/parse "2024-01-01") NaN)) ; expect: 19723
;; Day differences the recommended way.
(- (.toEpochDay (LocalDate/parse "2024-03-01")) (.toEpochDay (LocalDate/parse "2024-02-01"))) ; expect: 29
;; Years beyond four digits are written with a sign, and read back.
(.plusDays (LocalDate/parse "9999-12-31") 1) ; expect-printed: "+10000-01-01"
(.minusDays (LocalDate/parse "0000-01-01") 1) ; expect-printed: "-0001-12-31"
(.toEpochDay (LocalDate/parse "+10000-01-01")) ; expect: 2932897
;; LibDates.DateConstructor
;; Integers below 10^12 in magnitude are seconds, larger ones milliseconds.
(.getTime (java.util.Date. 0)) ; expect: 0
(.getTime (java.util.Date. 1000)) ; expect: 1000000
(.getTime (java.util.Date. -1)) ; expect: -1000
(.getTime (java.util.Date. 1700000000000)) ; expect: 1700000000000
(java.util.Date. 1700000000) ; expect-printed: "2023-11-14T22:13:20Z"
;; Strings: ISO with and without offset, date only, RFC 2822, Java's own form.
(java.util.Date. "2026-01-08T14:30:00Z") ; expect-printed: "2026-01-08T14:30:00Z"
(java.util.Date. "2026-01-08T14:30:00") ; expect-printed: "2026-01-08T14:30:00Z"
(java.util.Date. "2026-01-08T16:30:00.250+02:00") ; expect-printed: "2026-01-08T14:30:00.250Z"
(java.util.Date. "2026-01-08T09:30-0500") ; expect-printed: "2026-01-08T14:30:00Z"
(.getTime (java.util.Date. "2024-01-02")) ; expect: 1704153600000
(java.util.Date. "Wed, 8 Jan 2026 14:30:00 +0000") ; expect-printed: "2026-01-08T14:30:00Z"
(java.util.Date. "8 Jan 2026 09:30:00 EST") ; expect-printed: "2026-01-08T14:30:00Z"
(java.util.Date. "Wed, 08 Jan 2026 16:30:00 +0200") ; expect-printed: "2026-01-08T14:30:00Z"
(.getTime (java.util.Date. "Thu Jan 01 00:00:01 UTC 1970")) ; expect: 1000
;; Dates pass through (a LocalDate becomes its midnight UTC).
(let [d (java.util.Date. 5)] (= d (java.util.Date. d))) ; expect: true
(java.util.Date. (LocalDate/parse "2024-05-01")) ; expect-printed: "2024-05-01T00:00:00Z"
;; The round trip through str works.
(let [d (java.util.Date. "2026-01-08T14:30:00.5Z")] (= d (java.util.Date. (str d)))) ; expect: true
;; Now is after 2023 and agrees with currentTimeMillis.
(> (.getTime (java.util.Date.)) 1700000000000) ; expect: true
(<= (- (System/currentTimeMillis) (.getTime (java.util.Date.))) 1000) ; expect: true
(integer? (currentTimeMillis)) ; expect: true
;; LibDates.InstantParse
(.getTime (java.time.Instant/parse "1970-01-01T00:00:01Z")) ; expect: 1000
(.getTime (Instant/parse "1970-01-01T00:00:00.123Z")) ; expect: 123
(.getTime (Instant/parse "1970-01-01T01:00:00+01:00")) ; expect: 0
(.getTime (Instant/parse "1969-12-31T23:59:59Z")) ; expect: -1000
(.getTime (Instant/parse "1970-01-01T00:00:00.999999999Z")) ; expect: 999
(.getTime (Instant/parse "1969-12-31T23:59:59.5Z")) ; expect: -500
(Instant/parse "1969-12-31T23:59:59.5Z") ; expect-printed: "1969-12-31T23:59:59.500Z"
(parse "2024-02-29T12:00:00Z") ; expect-printed: "2024-02-29T12:00:00Z"
;; LibDates.DurationBetween
(Duration/between (Instant/parse "2024-01-01T00:00:00Z") (Instant/parse "2024-01-01T00:00:01.5Z")) ; expect: #duration[1500ms]
(.toMillis (java.time.Duration/between (java.util.Date. 0) (Instant/parse "1970-01-01T00:00:01Z"))) ; expect: 1000
(.toDays (Duration/between (Instant/parse "2024-01-01T00:00:00Z") (Instant/parse "2024-01-03T23:00:00Z"))) ; expect: 2
;; Partial days truncate toward zero, negative ones too.
(.toDays (Duration/between (Instant/parse "2024-01-03T00:00:00Z") (Instant/parse "2024-01-01T01:00:00Z"))) ; expect: -1
(.toMillis (Duration/between (java.util.Date. 5) (java.util.Date. 0))) ; expect: -5000
(str (Duration/between (java.util.Date. 0) (java.util.Date. 0))) ; expect: "#duration[0ms]"
;; LibDates.Comparison
(.isBefore (LocalDate/parse "2023-01-01") (LocalDate/parse "2023-12-31")) ; expect: true
(.isAfter (LocalDate/parse "2023-01-01") (LocalDate/parse "2023-12-31")) ; expect: false
(.isAfter (java.util.Date. "2024-01-01T00:00:00Z") (java.util.Date. "2023-01-01T00:00:00Z")) ; expect: true
(.isBefore (java.util.Date. 0) (java.util.Date. 0)) ; expect: false
;; Dates are values: equality, hashing, ordering.
(= (LocalDate/parse "2024-05-01") (LocalDate/parse "2024-05-01")) ; expect: true
(= (LocalDate/parse "2024-05-01") "2024-05-01") ; expect: false
(= (LocalDate/parse "1970-01-01") (java.util.Date. 0)) ; expect: false
(count #{(LocalDate/parse "2024-05-01") (LocalDate/parse "2024-05-01")}) ; expect: 1
(get {(LocalDate/parse "2024-05-01") :x} (parse "2024-05-01")) ; expect: :x
(sort [(LocalDate/parse "2024-05-01") (LocalDate/parse "2023-01-01")]) ; expect-printed: ["2023-01-01" "2024-05-01"]
(compare (java.util.Date. 1) (java.util.Date. 2)) ; expect: -1
;; LibDates.JsonWritesDatesAsIsoText
(json/generate-string [(LocalDate/parse "2024-01-01") (java.util.Date. 0)]) ; expect: "[\"2024-01-01\",\"1970-01-01T00:00:00Z\"]"
(json/generate-string (Duration/between (java.util.Date. 0) (java.util.Date. 1))) ; expect: nil
;; LibDates.Errors
(.isBefore (LocalDate/parse "2023-01-01") (java.util.Date. "2023-01-01T00:00:00Z")) ; expect-error: type_error: cannot compare LocalDate with DateTime
(.getTime (LocalDate/parse "2024-05-01")) ; expect-error: type_error: .getTime: expected a DateTime (argument 1), got LocalDate
; expect-hint: .toEpochDay
(.getTime nil) ; expect-error: type_error: got nil
(java.util.Date. nil) ; expect-error: type_error
(java.util.Date. [1]) ; expect-error: type_error
(java.util.Date. 1.5) ; expect-error: type_error
(java.util.Date. (Duration/between (java.util.Date. 0) (java.util.Date. 0))) ; expect-error: type_error
(java.util.Date. "yesterday") ; expect-error: type_error: cannot parse
(LocalDate/parse nil) ; expect-error: type_error
(LocalDate/parse 20240101) ; expect-error: type_error
(LocalDate/parse "2024-13-01") ; expect-error: type_error
(LocalDate/parse "2023-02-29") ; expect-error: type_error
(LocalDate/parse "2024-1-5") ; expect-error: type_error
(Instant/parse "2024-01-01T25:00:00Z") ; expect-error: type_error
(Instant/parse "2024-01-01T10:00:00Q") ; expect-error: type_error
(.toEpochDay (java.util.Date. 0)) ; expect-error: type_error
(.plusDays (java.util.Date. 0) 1) ; expect-error: type_error
(.plusDays (LocalDate/parse "2024-01-01") "1") ; expect-error: type_error
(.plusDays (LocalDate/parse "2024-01-01") 100000000000000) ; expect-error: arithmetic_error
(Duration/between (LocalDate/parse "2024-01-01") (LocalDate/parse "2024-01-02")) ; expect-error: type_error
; expect-hint: .toEpochDay
(.toMillis 5) ; expect-error: type_error
(.toDays (java.util.Date. 0)) ; expect-error: type_error
(.isAfter 1 2) ; expect-error: type_error
(.isAfter (java.util.Date. 0) 2) ; expect-error: type_error
;; Arity is checked by the registry.
(java.util.Date. 1 2) ; expect-error: arity_error
(.plusDays (LocalDate/parse "2024-01-01")) ; expect-error: arity_error
(System/currentTimeMillis 1) ; expect-error: arity_error
(Duration/between (java.util.Date. 0)) ; expect-error: arity_error
;; Java namespaces hold only the registered members.
(LocalDate/now) ; expect-error: unbound_var
(between (java.util.Date. 0) (java.util.Date. 0)) ; expect-error: unbound_var
