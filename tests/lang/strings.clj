;; String builtins end to end: clojure.string helpers, the Java String
;; methods, parsing and format.
;; The format: tests/lang/README.md.

;; ---- str & co
;; LibStrings.StrPrStrNameKeyword
(str) ; expect: ""
(str 42 true nil :user "x") ; expect: "42true:userx"
(str {:a 1} ["a"]) ; expect: "{:a 1}[\"a\"]"
(str 1.0 ##Inf) ; expect: "1.0Infinity"
;; the pattern source (GAP-S93)
(str #"a+") ; expect: "a+"
(pr-str 1 "a" nil) ; expect: "1 \"a\" nil"
(pr-str) ; expect: ""
(name :foo) ; expect: "foo"
(name "bar") ; expect: "bar"
(name nil) ; expect-error: type_error
(name 42) ; expect-error: type_error
(keyword "foo") ; expect: :foo
(keyword nil) ; expect: nil
(keyword "a b") ; expect-error: type_error
(name) ; expect-error: arity_error

;; ---- subs
;; LibStrings.Subs
(subs "hello" 1) ; expect: "ello"
(subs "hello" 1 4) ; expect: "ell"
(subs "hello" 0 0) ; expect: ""
(subs "" 0) ; expect: ""
;; Signal values instead of errors (DIV-22).
(subs "abcdef" -1) ; expect: ""
(subs "abc" 10) ; expect: ""
(subs "abc" 1 99) ; expect: "bc"
(subs "abc" 2 1) ; expect: ""
(let [s "abcdef"] (subs s (.indexOf s "xyz"))) ; expect: ""
;; Finite float indexes truncate (GAP-S79); indexes count graphemes (DIV-36).
(subs "abcd" 1.0 2.0) ; expect: "b"
(subs "abcd" 1 3.9) ; expect: "bc"
(subs "😀a" 1) ; expect: "a"
(subs "éxy" 1 2) ; expect: "x"
(subs nil 1) ; expect-error: type_error
(subs "abc" "1") ; expect-error: type_error
(subs "abc" ##NaN) ; expect-error: type_error
(subs "abc") ; expect-error: arity_error

;; ---- split
;; LibStrings.SplitOnCharactersAndRegexes
(split "a,b,c" ",") ; expect: ["a" "b" "c"]
(split "a,b" \,) ; expect: ["a" "b"]
(split "hello" "") ; expect: ["h" "e" "l" "l" "o"]
(split "a,,b" ",") ; expect: ["a" "" "b"]
(split "a--b--c" #"--") ; expect: ["a" "b" "c"]
(clojure.string/split "a1b22c" #"\d+") ; expect: ["a" "b" "c"]
(str/split "😀a😀" #"") ; expect: ["😀" "a" "😀"]
(split "x" #",") ; expect: ["x"]
;; LibStrings.SplitFollowsJavaFieldRules
;; Trailing empty fields go, leading ones stay; "" is one empty field (GAP-S95, S15).
(split "a,b," #",") ; expect: ["a" "b"]
(split ",a" #",") ; expect: ["" "a"]
(split "" #",") ; expect: [""]
(split ",," #",") ; expect: []
(split "abc" #"") ; expect: ["a" "b" "c"]
;; The limit arity (GAP-S25).
(split "abc" #"" 2) ; expect: ["a" "bc"]
(split "a,,b" #"," 0) ; expect: ["a" "" "b"]
(split "a,,b" #"," 1) ; expect: ["a,,b"]
(split "a,b,," #"," -1) ; expect: ["a" "b" "" ""]
(split "a,b,c" "," 2) ; expect: ["a" "b,c"]
;; LibStrings.SplitErrors
;; A plain string of several characters must be a regex (DIV-50).
(split "a..b" "..") ; expect-error: type_error
; expect-hint: #".."
(split nil ",") ; expect-error: type_error
(split "a b" 1) ; expect-error: type_error
(split "a b") ; expect-error: arity_error
;; LibStrings.SplitLines
(split-lines "a\nb\r\nc") ; expect: ["a" "b" "c"]
(split-lines "a\n\n\n") ; expect: ["a"]
(split-lines "\na") ; expect: ["" "a"]
(split-lines "a\rb") ; expect: ["a\rb"]
;; GAP-S51
(split-lines "") ; expect: [""]
(split-lines nil) ; expect-error: type_error

;; ---- join
;; LibStrings.Join
(join ", " ["a" "b" "c"]) ; expect: "a, b, c"
(join "-" [1 2 3]) ; expect: "1-2-3"
(join [1 nil :a 2.5]) ; expect: "1:a2.5"
(join "," #{1}) ; expect: "1"
(join "," []) ; expect: ""
;; nil and other seqables (GAP-S26).
(join nil) ; expect: ""
(join "," nil) ; expect: ""
(join nil [1 2]) ; expect: "12"
(join "ab") ; expect: "ab"
(join "," "ab") ; expect: "a,b"
(join "," {:a 1}) ; expect: "[:a 1]"
(join "," 5) ; expect-error: type_error
(join) ; expect-error: arity_error

;; ---- trims
;; LibStrings.TrimAndBlank
(trim "\n\tworld\r\n") ; expect: "world"
(triml "  hi  ") ; expect: "hi  "
(trimr "  hi  ") ; expect: "  hi"
(trim "   ") ; expect: ""
(trim "") ; expect: ""
(trim-newline "hi\r\n\n") ; expect: "hi"
(trim-newline "hi  ") ; expect: "hi  "
(trim-newline \newline) ; expect: ""
;; Java whitespace: EM SPACE is whitespace, NO-BREAK SPACE is not (GAP-S50).
(trim " x ") ; expect: "x"
(trim " x ") ; expect: " x "
(triml " x") ; expect: "x"
(trimr "x ") ; expect: "x "
(blank? nil) ; expect: true
(blank? "") ; expect: true
(blank? " \t\n") ; expect: true
(blank? " ") ; expect: true
(blank? " ") ; expect: false
(blank? "a") ; expect: false
(trim nil) ; expect-error: type_error
(blank? 5) ; expect-error: type_error
(trim "a" "b") ; expect-error: arity_error

;; ---- replace
;; LibStrings.ReplaceLiteral
(replace "hello" "l" "L") ; expect: "heLLo"
(replace "aaa" "a" "b") ; expect: "bbb"
(replace "aaaa" "aa" "b") ; expect: "bb"
(replace "aba" \a "x") ; expect: "xbx"
;; literal, no groups
(replace "a$b" "$" "$1") ; expect: "a$1b"
(replace "abc" "" "-") ; expect: "-a-b-c-"
(replace "" "a" "b") ; expect: ""
;; GAP-S139
(replace 121 "1" "x") ; expect: "x2x"
(replace-first "aaa" "a" "b") ; expect: "baa"
(replace-first "abc" "x" "b") ; expect: "abc"
;; LibStrings.ReplaceRegex
(replace "a1b22" #"\d+" "#") ; expect: "a#b#"
;; $n group references (GAP-S73), escapes, and function replacements (GAP-S27).
(replace "a1" #"(\d)" "<$1>") ; expect: "a<1>"
(replace "ab" #"(a)(b)" "$2$1$0") ; expect: "baab"
(replace "a1" #"\d" "\\$") ; expect: "a$"
(replace "k=v" #"(?P<key>\w)=(\w)" "${key}:$2") ; expect: "k:v"
(replace "ab" #"(x)?b" "[$1]") ; expect: "a[]"
(replace "a1" #"\d" (fn [m] "X")) ; expect: "aX"
(replace "a1b2" #"(\d)" (fn [[m g]] (str "<" g ">"))) ; expect: "a<1>b<2>"
(replace "abc" #"x*" "-") ; expect: "-a-b-c-"
(replace-first "a1b2" #"\d" "#") ; expect: "a#b2"
(replace-first "a1b2" #"(\d)" (fn [[_ d]] (str d d))) ; expect: "a11b2"
;; no match, no check
(replace "xyz" #"\d" "$9") ; expect: "xyz"
;; LibStrings.ReplaceErrors
(replace "a1" #"\d" "$$") ; expect-error: runtime_error
(replace "a1" #"\d" "$1") ; expect-error: runtime_error
(replace "a1" #"\d" "x\\") ; expect-error: runtime_error
(replace "a1" "1" inc) ; expect-error: type_error
(replace "a1" 1 "x") ; expect-error: type_error
(replace nil "a" "b") ; expect-error: type_error
(replace "a") ; expect-error: arity_error
(replace-first "a" "b") ; expect-error: arity_error
;; LibStrings.ReplaceItemsWithSmap
;; clojure.core/replace (GAP-S16).
(replace {:a :x} [:a :b]) ; expect: [:x :b]
(replace [10 20 30] [0 1 2 0 5]) ; expect: [10 20 30 10 5]
(replace {:a nil} [:a]) ; expect: [nil]
(replace {"a" 1} "ab") ; expect: [1 "b"]
(replace {:a 1} nil) ; expect: []
(replace nil [1 2]) ; expect: [1 2]
(clojure.core/replace {1 :one} #{1 2}) ; expect: [:one 2]
(replace "abc" "b") ; expect-error: type_error
(replace {:a 1} 5) ; expect-error: type_error

;; ---- case
;; LibStrings.CaseConversion
(upcase "hello") ; expect: "HELLO"
(upper-case "world") ; expect: "WORLD"
(downcase "HELLO") ; expect: "hello"
(lower-case "WORLD") ; expect: "world"
(upper-case "") ; expect: ""
(upper-case "éλя") ; expect: "ÉΛЯ"
(upper-case "straße ﬁ") ; expect: "STRASSE FI"
(lower-case "ÉΛЯ") ; expect: "éλя"
;; final sigma
(lower-case "ΟΔΟΣ ΣΑ") ; expect: "οδος σα"
(lower-case "İ") ; expect: "i̇"
;; GAP-S139
(lower-case 12) ; expect: "12"
(str/upper-case \a) ; expect: "A"
(upper-case nil) ; expect-error: type_error
(lower-case :a) ; expect-error: type_error

;; ---- search
;; LibStrings.PrefixSuffixIncludes
(starts-with? "hello" "he") ; expect: true
(starts-with? "hello" "lo") ; expect: false
(starts-with? "hello" "") ; expect: true
(ends-with? "hello" "lo") ; expect: true
(ends-with? "hello" "he") ; expect: false
(ends-with? "" "") ; expect: true
(includes? "hello" "ll") ; expect: true
(includes? "hello" "x") ; expect: false
(includes? "abc" \b) ; expect: true
(includes? 123 "2") ; expect: true
(starts-with? 123 "1") ; expect: true
(includes? nil "a") ; expect-error: type_error
(includes? "a" nil) ; expect-error: type_error
(starts-with? "a") ; expect-error: arity_error
;; LibStrings.IndexOf
(index-of "hello" "l") ; expect: 2
(index-of "hello" "x") ; expect: nil
(index-of "hello" "l" 3) ; expect: 3
(index-of "hello" "") ; expect: 0
(index-of "hello" "h" -5) ; expect: 0
(index-of "abc" "" 9) ; expect: 3
(index-of "abc" "c" 9) ; expect: nil
;; GAP-S124
(index-of "abcabc" "b" 1.9) ; expect: 1
;; graphemes (DIV-36)
(index-of "😀a" "a") ; expect: 1
(index-of 123 "2") ; expect: 1
(last-index-of "hello" "l") ; expect: 3
(last-index-of "hello" "x") ; expect: nil
(last-index-of "hello" "l" 2) ; expect: 2
(last-index-of "hello" "") ; expect: 5
(last-index-of "aaa" "aa") ; expect: 1
(last-index-of "ababa" "a" 3.0) ; expect: 2
;; GAP-S80
(last-index-of "abc" "a" -1) ; expect: nil
(last-index-of "abc" "" -1) ; expect: nil
(last-index-of "a😀b😀" "😀") ; expect: 3
(index-of "abc" 1) ; expect-error: type_error
(index-of "abc" "a" "1") ; expect-error: type_error
(index-of nil "a") ; expect-error: type_error
(last-index-of "a") ; expect-error: arity_error
;; LibStrings.CapitalizeIsNotAvailable
;; The spec (§9.8) names clojure.string/capitalize as unavailable.
(clojure.string/capitalize "ab") ; expect-error: unbound_var

;; ---- Java methods
;; LibStringMethods.SpecExamples
(.indexOf "hello" "ll") ; expect: 2
(.indexOf "hello" "x") ; expect: -1
(.indexOf "hello" "l" 3) ; expect: 3
(.lastIndexOf "hello" "l") ; expect: 3
(.lastIndexOf "hello" "z") ; expect: -1
(.toLowerCase "Hello") ; expect: "hello"
(.toUpperCase "Hello") ; expect: "HELLO"
(.startsWith "hello" "he") ; expect: true
(.endsWith "hello" "lo") ; expect: true
(.contains "hello" "ell") ; expect: true
(.length "hello") ; expect: 5
(.length "") ; expect: 0
(.substring "hello" 2) ; expect: "llo"
(.substring "hello" 1 3) ; expect: "el"
(.substring "hello" 5) ; expect: ""
;; LibStringMethods.OverloadsAndCharacters
;; GAP-J05 overloads.
(.startsWith "abc" "b" 1) ; expect: true
(.startsWith "abc" "a" -1) ; expect: false
(.startsWith "abc" "" 4) ; expect: false
(.startsWith "abc" "" 3) ; expect: true
(.lastIndexOf "ababa" "ba" 2) ; expect: 1
(.lastIndexOf "abcabc" "b" -1) ; expect: -1
(.lastIndexOf "abcabc" "b" 99) ; expect: 4
(.lastIndexOf "abc" "" 4) ; expect: 3
(.indexOf "abc" 98) ; expect: 1
(.indexOf "abc" 97 1) ; expect: -1
(.lastIndexOf "abca" 97) ; expect: 3
(.lastIndexOf "abc" 97 1) ; expect: 0
;; Characters are strings (DIV-40, DIV-41); float indexes truncate (GAP-J14).
(.startsWith "abc" \a) ; expect: true
(.length \a) ; expect: 1
(.toUpperCase \a) ; expect: "A"
(.substring \a 0) ; expect: "a"
(.substring "abcd" 1.9) ; expect: "bcd"
(.substring "abcd" 1.0 3.0) ; expect: "bc"
(.substring "😀ab" 1 2) ; expect: "a"
;; LibStringMethods.Errors
(.indexOf 123 "x") ; expect-error: type_error: .indexOf
(.length nil) ; expect-error: type_error
(.contains "abc" 1) ; expect-error: type_error
(.endsWith "abc" nil) ; expect-error: type_error
;; .substring raises where subs returns signal values.
(.substring "abc" -1) ; expect-error: runtime_error
(.substring "abc" 4) ; expect-error: runtime_error
(.substring "abc" 1 4) ; expect-error: runtime_error
(.substring "abc" 2 1) ; expect-error: runtime_error
(.substring "abc" ##Inf) ; expect-error: type_error
(.length "a" "b") ; expect-error: arity_error
(.substring "a") ; expect-error: arity_error

;; ---- parsing
;; LibParsing.ClojureParsersReturnNilOnFailure
(parse-long "42") ; expect: 42
(parse-long "-17") ; expect: -17
(parse-long "+5") ; expect: 5
(parse-int "7") ; expect: 7
(parse-long "-9223372036854775808") ; expect: -9223372036854775808
;; GAP-S85
(parse-long "9223372036854775808") ; expect: nil
(parse-long "+9223372036854775808") ; expect: nil
(parse-long "42abc") ; expect: nil
(parse-long " 1") ; expect: nil
(parse-long "") ; expect: nil
(parse-long "-") ; expect: nil
(parse-long "1.0") ; expect: nil
;; Non-strings are nil, not errors (DIV-18).
(parse-long 42) ; expect: nil
(parse-long nil) ; expect: nil
(->> ["1" "2" "x" "4"] (map parse-long) (filter some?) (reduce +)) ; expect: 7
;; LibParsing.ParseDoubleSyntax
(parse-double "3.14") ; expect: 3.14
(parse-double "-0.5") ; expect: -0.5
(= (parse-double "1.23e-4") 1.23e-4) ; expect: true
(parse-double "42") ; expect: 42.0
;; Java decimal spellings (GAP-S61).
(parse-double ".5") ; expect: 0.5
(parse-double "1.") ; expect: 1.0
(parse-double "0x1.8p1") ; expect: 3.0
(parse-double "2.5f") ; expect: 2.5
(parse-double "NaN") ; expect: ##NaN
(parse-double "-Infinity") ; expect: ##-Inf
(parse-double "1e400") ; expect: ##Inf
;; The spec keeps whitespace out.
(parse-double "3.14 ") ; expect: nil
(parse-double "invalid") ; expect: nil
(parse-double ".") ; expect: nil
(parse-double "1e") ; expect: nil
(parse-double "inf") ; expect: nil
(parse-double "0x1.0") ; expect: nil
(parse-double nil) ; expect: nil
(parse-double 3.14) ; expect: nil
;; LibParsing.ParseBoolean
(parse-boolean "true") ; expect: true
(parse-boolean "false") ; expect: false
(parse-boolean "TRUE") ; expect: nil
(parse-boolean "") ; expect: nil
(parse-boolean true) ; expect: nil
(parse-boolean nil) ; expect: nil
(parse-boolean) ; expect-error: arity_error
;; LibParsing.JavaParsers
(Integer/parseInt "42") ; expect: 42
(Integer/parseInt "-2147483648") ; expect: -2147483648
;; GAP-J15
(Integer/parseInt "ff" 16) ; expect: 255
(Long/parseLong "10" 16) ; expect: 16
(Long/parseLong "-101" 2) ; expect: -5
(Long/parseLong "9223372036854775807") ; expect: 9223372036854775807
(Double/parseDouble "3.14") ; expect: 3.14
;; Java trims
(Double/parseDouble " 1.5") ; expect: 1.5
(Double/parseDouble "0x1.0p0") ; expect: 1.0
(Float/parseFloat "1.5 ") ; expect: 1.5
(Boolean/parseBoolean "true") ; expect: true
(Boolean/parseBoolean "TrUe") ; expect: true
(Boolean/parseBoolean "x") ; expect: false
(Boolean/parseBoolean "") ; expect: false
(Boolean/parseBoolean nil) ; expect: false
;; Java semantics: bad text raises (GAP-J01), with a hint to the nil-safe parser.
(Integer/parseInt "x") ; expect-error: runtime_error
; expect-hint: parse-long
(Integer/parseInt "") ; expect-error: runtime_error
(Integer/parseInt " 1") ; expect-error: runtime_error
(Integer/parseInt "2147483648") ; expect-error: runtime_error
(Integer/parseInt nil) ; expect-error: runtime_error
(Long/parseLong "9223372036854775808") ; expect-error: runtime_error
(Long/parseLong "10" 99) ; expect-error: runtime_error
(Double/parseDouble "x") ; expect-error: runtime_error
(Double/parseDouble nil) ; expect-error: runtime_error
(Float/parseFloat "") ; expect-error: runtime_error
(Long/parseLong 5) ; expect-error: type_error
(Boolean/parseBoolean true) ; expect-error: type_error
(Integer/parseInt "1" 10 3) ; expect-error: arity_error

;; ---- format
;; LibFormat.SpecExamples
(format "%s has %d items" "cart" 3) ; expect: "cart has 3 items"
(format "%.2f" 3.14159) ; expect: "3.14"
(format "%d in hex is %x" 255 255) ; expect: "255 in hex is ff"
(format "%e" 1234.5) ; expect: "1.234500e+03"
(format "%o" 8) ; expect: "10"
(format "100%%") ; expect: "100%"
;; DIV-21
(format "%s" nil) ; expect: ""
(format "%s and %s" "a" "b" "c") ; expect: "a and b"
(format "%f" ##Inf) ; expect: "Infinity"
(format "%s %s" ##-Inf ##NaN) ; expect: "-Infinity NaN"
(format "") ; expect: ""
(format "%s" [1 "a"]) ; expect: "[1 \"a\"]"
(format "%f" 1) ; expect: "1.000000"
(format "%d" 4.0) ; expect: "4"
;; LibFormat.WidthFlagsAndPrecision
;; GAP-S65.
(format "%02d" 3) ; expect: "03"
(format "%-4s!" "x") ; expect: "x   !"
(format "%5s" "x") ; expect: "    x"
(format "%05.2f" 3.1) ; expect: "03.10"
(format "%+d" 3) ; expect: "+3"
(format "% d" 3) ; expect: " 3"
(format "%04x" 15) ; expect: "000f"
(format "%#x" 15) ; expect: "0xf"
(format "%#o" 8) ; expect: "010"
(format "%(d" -3) ; expect: "(3)"
(format "%08.3f" -1.5) ; expect: "-001.500"
(format "%,010d" 1234) ; expect: "000001,234"
(format "%.3s" "abcdef") ; expect: "abc"
(format "%3s|" "😀") ; expect: "  😀|"
(format "%10.3f|" -3.14159) ; expect: "    -3.142|"
(format "%010f" ##-Inf) ; expect: " -Infinity"
;; LibFormat.MoreConversions
;; GAP-S89, S96, S117.
(format "%b %B" nil true) ; expect: "false TRUE"
(format "%b" 0) ; expect: "true"
(format "a%nb") ; expect: "a\nb"
(format "%d %o %x %f" nil nil nil nil) ; expect: "null null null null"
(format "%S" "ab") ; expect: "AB"
(format "%,d" 1000) ; expect: "1,000"
(format "%,.2f" 1234.5) ; expect: "1,234.50"
(format "%X" 255) ; expect: "FF"
(format "%g" 1.0) ; expect: "1.00000"
(format "%.2g" 12.34) ; expect: "12"
(format "%g" 123456789.0) ; expect: "1.23457e+08"
(format "%G" 1.0) ; expect: "1.00000"
(format "%E" 1.0) ; expect: "1.000000E+00"
(format "%c%c" \A 98) ; expect: "Ab"
(format "%h" "abc") ; expect: "17862"
(format "%2$s %1$s" "a" "b") ; expect: "b a"
(format "%2$04d %1$s" "x" 3) ; expect: "0003 x"
(format "%s %<s" "a") ; expect: "a a"
(format "%x" -1) ; expect: "ffffffffffffffff"
(format "%d" 123456789012345678901234) ; expect: "123456789012345678901234"
(format "%x" -123456789012345678901234) ; expect: "-1a249b1f10a06c96aff2"
;; LibFormat.JavaRounding
;; Half-up on the shortest decimal digits, as java.util.Formatter does.
(format "%.2f" 0.125) ; expect: "0.13"
(format "%.1f" 0.05) ; expect: "0.1"
(format "%.0f" 0.5) ; expect: "1"
(format "%.2f" 0.005) ; expect: "0.01"
(format "%.2f" 9.999) ; expect: "10.00"
(format "%.3f" 1e-10) ; expect: "0.000"
(format "%f" 1e20) ; expect: "100000000000000000000.000000"
(format "%.20f" 0.1) ; expect: "0.10000000000000000000"
(format "%e" 9.9999999) ; expect: "1.000000e+01"
(format "%.3e" 0.0) ; expect: "0.000e+00"
(format "%.1e" 0.00012) ; expect: "1.2e-04"
(format "%f" -0.0) ; expect: "-0.000000"
;; LibFormat.Errors
(format "%d" ##Inf) ; expect-error: type_error
(format "%d" 3.5) ; expect-error: type_error
(format "%d" "3") ; expect-error: type_error
(format "%f" "x") ; expect-error: type_error
(format "%c" "ab") ; expect-error: type_error
(format "%s %s" 1) ; expect-error: runtime_error
(format "%q" 1) ; expect-error: runtime_error
(format "%tY" 1) ; expect-error: runtime_error
(format "100%") ; expect-error: runtime_error
(format "%-d" 1) ; expect-error: runtime_error
(format "%+s" 1) ; expect-error: runtime_error
(format "%.2d" 1) ; expect-error: runtime_error
(format "%+ d" 1) ; expect-error: runtime_error
(format "%<s" 1) ; expect-error: runtime_error
(format "%3$s" 1) ; expect-error: runtime_error
(format 5) ; expect-error: type_error
(format) ; expect-error: arity_error

;; ---- limits
;; LibStrings.HugeResultsEndInMemoryLimit
(let [s (apply str (repeat 3000 "x"))] (replace s "" (apply str (repeat 5000 "y")))) ; expect-error: memory_limit
(format "%999999999d" 1) ; expect-error: memory_limit
(format "%.999999999f" 1.0) ; expect-error: memory_limit
(let [s (apply str (repeat 1000 "ab"))] (reduce (fn [acc _] (str acc acc)) s (range 40))) ; expect-error: memory_limit
;; LibStrings.SplitOnALiteralRegexMatchesTheRegexEngine
;; A regex with no special characters splits without the regex engine: the
;; pieces are those of an equivalent regex that does go through it.
(clojure.string/split "a b  c" #" ") ; expect: ["a" "b" "" "c"]
;; . is special
(clojure.string/split "a.b" #".") ; expect: []
