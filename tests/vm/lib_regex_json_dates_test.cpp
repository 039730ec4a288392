// Regex matching (re-find re-matches re-seq re-split extract extract-int),
// the JSON helpers and the date/time interop, run end to end.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// ---------------------------------------------------------------------------
// Regex

TEST(LibRegex, PatternAndPredicate) {
  EXPECT_EQ(eval("(regex? (re-pattern \"a+\"))"), "true");
  EXPECT_EQ(eval("(regex? #\"a+\")"), "true");
  EXPECT_EQ(eval("(regex? \"a+\")"), "false");
  EXPECT_EQ(eval("(regex? nil)"), "false");
  // An existing regex is returned as it is (GAP-S66).
  EXPECT_EQ(eval("(re-find (re-pattern #\"a+\") \"baac\")"), "\"aa\"");
  EXPECT_EQ(eval_error("(re-pattern 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(re-pattern \"(\")").kind, ErrorKind::TypeError);
}

TEST(LibRegex, FindReturnsStringOrGroupVector) {
  EXPECT_EQ(eval("(re-find (re-pattern \"\\\\d+\") \"v1\")"), "\"1\"");
  EXPECT_EQ(eval("(re-find #\"\\d+\" \"ab 12 34\")"), "\"12\"");
  EXPECT_EQ(eval("(re-find #\"(\\d+)-(\\d+)\" \"10-20\")"), "[\"10-20\" \"10\" \"20\"]");
  EXPECT_EQ(eval("(re-find #\"z\" \"abc\")"), "nil");
  EXPECT_EQ(eval("(re-find #\"\" \"\")"), "\"\"");
  EXPECT_EQ(eval("(re-find #\"x\" \"\")"), "nil");
  // Unicode text: matches are whole code points.
  EXPECT_EQ(eval("(re-find #\"é+\" \"caféé!\")"), "\"éé\"");
}

TEST(LibRegex, UnmatchedOptionalGroupsAreNil) {
  // GAP-S92: Clojure keeps a nil slot for every group that did not take part.
  EXPECT_EQ(eval("(re-find #\"a(\\d+)?\" \"xa\")"), "[\"a\" nil]");
  EXPECT_EQ(eval("(re-matches #\"a(\\d+)?\" \"a\")"), "[\"a\" nil]");
  EXPECT_EQ(eval("(re-find #\"(a)?(b)\" \"b\")"), "[\"b\" nil \"b\"]");
  EXPECT_EQ(eval("(re-matches #\"(a)?(b)?(c)\" \"c\")"), "[\"c\" nil nil \"c\"]");
  EXPECT_EQ(eval("(re-seq #\"a(\\d+)?\" \"a a2\")"), "[[\"a\" nil] [\"a2\" \"2\"]]");
  EXPECT_EQ(eval("(re-seq #\"(a)?(b)?(c)\" \"c abc\")"),
            "[[\"c\" nil nil \"c\"] [\"abc\" \"a\" \"b\" \"c\"]]");
  // A group that matched the empty string is "", not nil.
  EXPECT_EQ(eval("(re-find #\"a(x*)\" \"a\")"), "[\"a\" \"\"]");
}

TEST(LibRegex, MatchesNeedsTheWholeString) {
  EXPECT_EQ(eval("(re-matches (re-pattern \"\\\\d+\") \"123\")"), "\"123\"");
  EXPECT_EQ(eval("(re-matches (re-pattern \"\\\\d+\") \"123abc\")"), "nil");
  EXPECT_EQ(eval("(re-matches #\"\\d+\" \"abc123\")"), "nil");
  EXPECT_EQ(eval("(re-matches #\"(\\w+)@(\\w+)\" \"me@host\")"), "[\"me@host\" \"me\" \"host\"]");
  // The alternative that spans the whole string is the one taken.
  EXPECT_EQ(eval("(re-matches #\"a|ab\" \"ab\")"), "\"ab\"");
  EXPECT_EQ(eval("(re-matches #\"\" \"\")"), "\"\"");
}

TEST(LibRegex, SeqFindsEveryMatch) {
  EXPECT_EQ(eval("(re-seq (re-pattern \"\\\\d+\") \"a1b22c333\")"), "[\"1\" \"22\" \"333\"]");
  EXPECT_EQ(eval("(re-seq (re-pattern \"(\\\\d)(\\\\w)\") \"1a2b\")"),
            "[[\"1a\" \"1\" \"a\"] [\"2b\" \"2\" \"b\"]]");
  // No match is nil (GAP-S82), which still works as an empty collection.
  EXPECT_EQ(eval("(re-seq #\"z\" \"abc\")"), "nil");
  EXPECT_EQ(eval("(count (re-seq #\"z\" \"abc\"))"), "0");
  EXPECT_EQ(eval("(re-seq #\"z\" \"\")"), "nil");
  // Empty matches advance one character at a time, as Java's Matcher does.
  EXPECT_EQ(eval("(re-seq #\"a*\" \"baa\")"), "[\"\" \"aa\" \"\"]");
  EXPECT_EQ(eval("(count (re-seq #\"\" \"héllo\"))"), "6");
  EXPECT_EQ(eval("(re-seq #\"\\w+\" \"one two  three\")"), "[\"one\" \"two\" \"three\"]");
}

TEST(LibRegex, SplitCutsAtMatches) {
  EXPECT_EQ(eval("(re-split (re-pattern \"\\\\s+\") \"a  b   c\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(re-split (re-pattern \",\") \"a,b,c\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(re-split #\",\" \",a,,b,\")"), "[\"\" \"a\" \"\" \"b\" \"\"]");
  EXPECT_EQ(eval("(re-split #\",\" \"abc\")"), "[\"abc\"]");
  EXPECT_EQ(eval("(re-split #\",\" \"\")"), "[\"\"]");
  // An empty pattern splits between characters, without empty ends.
  EXPECT_EQ(eval("(re-split #\"\" \"abc\")"), "[\"a\" \"b\" \"c\"]");
  // Groups only shape the separator; they are not part of the result.
  EXPECT_EQ(eval("(re-split #\"(-)\" \"a-b\")"), "[\"a\" \"b\"]");
}

TEST(LibRegex, ExtractTakesAGroup) {
  EXPECT_EQ(eval("(extract \"ID:(\\\\d+)\" \"ID:42\")"), "\"42\"");
  EXPECT_EQ(eval("(extract \"ID:(\\\\d+)\" \"ID:42\" 0)"), "\"ID:42\"");
  EXPECT_EQ(eval("(extract \"x=(\\\\d+) y=(\\\\d+)\" \"x=10 y=20\" 2)"), "\"20\"");
  EXPECT_EQ(eval("(extract \"ID:(\\\\d+)\" \"no match\")"), "nil");
  EXPECT_EQ(eval("(extract #\"ID:(\\d+)\" \"ID:7\")"), "\"7\"");
  // No such group, a pattern without groups, a group that did not take part.
  EXPECT_EQ(eval("(extract \"ID:(\\\\d+)\" \"ID:42\" 3)"), "nil");
  EXPECT_EQ(eval("(extract \"ID:(\\\\d+)\" \"ID:42\" -1)"), "nil");
  EXPECT_EQ(eval("(extract \"ID:\\\\d+\" \"ID:42\")"), "nil");
  EXPECT_EQ(eval("(extract #\"a(b)?\" \"a\")"), "nil");
  // nil text is "no match", so a missing field flows through.
  EXPECT_EQ(eval("(extract \"(a)\" nil)"), "nil");
  EXPECT_EQ(eval("(extract \"(a)\" (:missing {}))"), "nil");
  // Reachable through the string namespace (its reference section).
  EXPECT_EQ(eval("(clojure.string/extract \"(b)\" \"abc\")"), "\"b\"");
}

TEST(LibRegex, ExtractIntParsesWithDefault) {
  EXPECT_EQ(eval("(extract-int \"age=(\\\\d+)\" \"age=25\")"), "25");
  EXPECT_EQ(eval("(extract-int \"age=(\\\\d+)\" \"no match\")"), "nil");
  EXPECT_EQ(eval("(extract-int \"x=(\\\\d+) y=(\\\\d+)\" \"x=10 y=20\" 2)"), "20");
  EXPECT_EQ(eval("(extract-int \"age=(\\\\d+)\" \"no match\" 1 0)"), "0");
  EXPECT_EQ(eval("(extract-int \"x=(\\\\d+) y=(\\\\d+)\" \"x=10 y=20\" 2 0)"), "20");
  EXPECT_EQ(eval("(extract-int #\"t=(-?\\d+)\" \"t=-40\")"), "-40");
  // Text that is not an integer, or beyond int64, gives the default.
  EXPECT_EQ(eval("(extract-int \"v=(\\\\w+)\" \"v=abc\" 1 -1)"), "-1");
  EXPECT_EQ(eval("(extract-int \"v=(\\\\d+)\" \"v=99999999999999999999\" 1 :big)"), ":big");
  EXPECT_EQ(eval("(extract-int \"v=(\\\\d+)\" \"v=9223372036854775807\")"), "9223372036854775807");
  EXPECT_EQ(eval("(extract-int \"(a)\" nil 1 5)"), "5");
}

TEST(LibRegex, Errors) {
  // re-* take a regex: a pattern string is refused with a hint.
  ptc::Error e = eval_error("(re-find \"a\" \"a\")");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, "re-find")) << e.message;
  EXPECT_TRUE(contains(e.message, "argument 1")) << e.message;
  EXPECT_TRUE(contains(e.hint, "re-pattern")) << e.hint;
  e = eval_error("(re-seq #\"a\" 42)");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, "argument 2")) << e.message;
  EXPECT_EQ(eval_error("(re-find #\"a\" nil)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(re-matches #\"a\" [\"a\"])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(re-split \",\" \"a,b\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(extract 5 \"a\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(extract \"(a)\" 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(extract \"(a)\" \"a\" \"1\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(extract-int \"(\" \"a\")").kind, ErrorKind::TypeError);
  // Arity is checked by the registry.
  EXPECT_EQ(eval_error("(re-find #\"a\")").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(re-seq #\"a\" \"a\" \"a\")").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(extract \"a\")").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(extract-int \"a\" \"b\" 1 2 3)").kind, ErrorKind::ArityError);
}

TEST(LibRegex, UnsupportedJavaConstructsAreExplained) {
  ptc::Error e = eval_error("(re-find (re-pattern \"(?<=a)b\") \"ab\")");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.hint, "lookahead")) << e.hint;
  e = eval_error("(re-find (re-pattern \"(a)\\\\1\") \"aa\")");
  EXPECT_TRUE(contains(e.hint, "backreference")) << e.hint;
  // \C (any byte) could cut a character in two: refused when the pattern compiles.
  e = eval_error("(re-find (re-pattern \"\\\\C\") \"e\")");
  EXPECT_TRUE(contains(e.message, "\\C is not supported")) << e.message;
  // Java named groups are translated for RE2.
  EXPECT_EQ(eval("(re-find #\"(?<y>\\d+)-\" \"12-\")"), "[\"12-\" \"12\"]");
  e = eval_error("(re-pattern (apply str (repeat 300 \"a\")))");
  EXPECT_TRUE(contains(e.message, "256")) << e.message;
}

TEST(LibRegex, LargeInputsAreNotTruncated) {
  // The match lies beyond the first 32 KB that the reference would scan.
  EXPECT_EQ(eval("(re-find #\"needle\" (str (apply str (repeat 40000 \"x\")) \"needle\"))"),
            "\"needle\"");
  EXPECT_EQ(eval("(count (re-seq #\"a\" (apply str (repeat 50000 \"ab\"))))"), "50000");
  // Catastrophic backtracking does not exist for RE2.
  EXPECT_EQ(eval("(re-find #\"(a+)+b\" (apply str (repeat 50 \"a\")))"), "nil");
}

TEST(LibRegex, HugeMatchCountsHitTheHeapCap) {
  ptc::RunOptions opts;
  opts.limits.max_heap_bytes = 2 * 1024 * 1024;
  ptc::Error e = eval_error("(count (re-seq #\"(a)\" (apply str (repeat 60000 \"a\"))))", opts);
  EXPECT_EQ(e.kind, ErrorKind::MemoryLimit);
}

// ---------------------------------------------------------------------------
// JSON

TEST(LibJson, ParseString) {
  EXPECT_EQ(eval("(json/parse-string \"{\\\"a\\\": 1, \\\"b\\\": [2, 3.5, null, true]}\")"),
            "{\"a\" 1 \"b\" [2 3.5 nil true]}");
  EXPECT_EQ(eval("(json/parse-string \"[1, 2, 3]\")"), "[1 2 3]");
  EXPECT_EQ(eval("(json/parse-string \"\\\"hi\\\"\")"), "\"hi\"");
  EXPECT_EQ(eval("(json/parse-string \"12345678901234567890123\")"), "12345678901234567890123");
  // Keys stay strings; keyword lookup still finds them (flexible access).
  EXPECT_EQ(eval("(keys (json/parse-string \"{\\\"name\\\": \\\"x\\\"}\"))"), "[\"name\"]");
  EXPECT_EQ(eval("(:name (json/parse-string \"{\\\"name\\\": \\\"x\\\"}\"))"), "\"x\"");
  EXPECT_EQ(eval("(json/parse-string \"{}\")"), "{}");
  EXPECT_EQ(eval("(json/parse-string \"[]\")"), "[]");
}

TEST(LibJson, ParseStringFailuresAreNil) {
  // DIV-23: never an error.
  EXPECT_EQ(eval("(json/parse-string \"not json\")"), "nil");
  EXPECT_EQ(eval("(json/parse-string \"null\")"), "nil");
  EXPECT_EQ(eval("(json/parse-string nil)"), "nil");
  EXPECT_EQ(eval("(json/parse-string 42)"), "nil");
  EXPECT_EQ(eval("(json/parse-string \"\")"), "nil");
  EXPECT_EQ(eval("(json/parse-string \"{\\\"a\\\": }\")"), "nil");
  EXPECT_EQ(eval("(json/parse-string (apply str (repeat 2000 \"[\")))"), "nil");
  EXPECT_EQ(eval_error("(json/parse-string)").kind, ErrorKind::ArityError);
}

TEST(LibJson, ParseLines) {
  EXPECT_EQ(eval("(json/parse-lines \"{\\\"a\\\":1}\\n\\nnull\\nnot json\")"),
            "[{\"a\" 1} nil nil]");
  EXPECT_EQ(eval("(json/parse-lines \"{\\\"a\\\":1}\\n[2,3]\\n\")"), "[{\"a\" 1} [2 3]]");
  EXPECT_EQ(eval("(json/parse-lines \"1\\r\\n2\\r3\")"), "[1 2 3]");
  EXPECT_EQ(eval("(json/parse-lines \"  \\n\\t\\n{\\\"ok\\\":true}\")"), "[{\"ok\" true}]");
  EXPECT_EQ(eval("(json/parse-lines \"\")"), "[]");
  EXPECT_EQ(eval("(json/parse-lines nil)"), "nil");
  EXPECT_EQ(eval("(json/parse-lines 42)"), "nil");
  EXPECT_EQ(eval_error("(json/parse-lines \"1\" \"2\")").kind, ErrorKind::ArityError);
}

TEST(LibJson, GenerateString) {
  EXPECT_EQ(eval("(json/generate-string {\"a\" [1 2.5 nil true false]})"),
            "\"{\\\"a\\\":[1,2.5,null,true,false]}\"");
  EXPECT_EQ(eval("(json/generate-string nil)"), "\"null\"");
  EXPECT_EQ(eval("(json/generate-string [1 2 3])"), "\"[1,2,3]\"");
  EXPECT_EQ(eval("(json/generate-string \"hello\")"), "\"\\\"hello\\\"\"");
  EXPECT_EQ(eval("(json/generate-string 1.0)"), "\"1.0\"");
  EXPECT_EQ(eval("(json/generate-string 123456789012345678901234567890)"),
            "\"123456789012345678901234567890\"");
  EXPECT_EQ(eval("(json/generate-string [])"), "\"[]\"");
  EXPECT_EQ(eval("(json/generate-string {})"), "\"{}\"");
  // Escapes: quotes, backslashes, control characters; UTF-8 passes through.
  EXPECT_EQ(eval("(json/generate-string \"a\\\"b\\\\c\\nd\\u0001é\")"),
            "\"\\\"a\\\\\\\"b\\\\\\\\c\\\\nd\\\\u0001é\\\"\"");
  // Integer keys are written as strings (no round trip), sets as arrays.
  EXPECT_EQ(eval("(json/generate-string {1 \"a\"})"), "\"{\\\"1\\\":\\\"a\\\"}\"");
  EXPECT_EQ(eval("(json/generate-string #{1})"), "\"[1]\"");
  // Round trip of string-keyed data.
  EXPECT_EQ(eval("(let [v {\"a\" [1 {\"b\" \"c\"}]}] (= v (json/parse-string "
                 "(json/generate-string v))))"),
            "true");
}

TEST(LibJson, GenerateStringRefusesWithNil) {
  // DIV-24: keywords (as values or keys), other key types, special floats and
  // functions have no faithful JSON form.
  EXPECT_EQ(eval("(json/generate-string :fs)"), "nil");
  EXPECT_EQ(eval("(json/generate-string {:server \"fs\"})"), "nil");
  EXPECT_EQ(eval("(json/generate-string {\"server\" :fs})"), "nil");
  EXPECT_EQ(eval("(json/generate-string {\"server\" (name :fs)})"),
            "\"{\\\"server\\\":\\\"fs\\\"}\"");
  EXPECT_EQ(eval("(json/generate-string {1.5 \"a\"})"), "nil");
  EXPECT_EQ(eval("(json/generate-string {[1] \"a\"})"), "nil");
  EXPECT_EQ(eval("(json/generate-string {nil 1})"), "nil");
  EXPECT_EQ(eval("(json/generate-string POSITIVE_INFINITY)"), "nil");
  EXPECT_EQ(eval("(json/generate-string [1 NaN])"), "nil");
  EXPECT_EQ(eval("(json/generate-string inc)"), "nil");
  EXPECT_EQ(eval("(json/generate-string [#\"a\"])"), "nil");
  EXPECT_EQ(eval_error("(json/generate-string)").kind, ErrorKind::ArityError);
}

TEST(LibJson, SharedStructureCannotExpandPastTheHeap) {
  ptc::Error e = eval_error("(json/generate-string (reduce (fn [v _] [v v]) 1 (range 40)))");
  EXPECT_TRUE(e.kind == ErrorKind::MemoryLimit || e.kind == ErrorKind::Timeout) << e.describe();
}

// ---------------------------------------------------------------------------
// Dates and times

TEST(LibDates, LocalDateParseAndPrint) {
  EXPECT_EQ(eval("(LocalDate/parse \"2023-10-27\")"), "\"2023-10-27\"");
  EXPECT_EQ(eval("(java.time.LocalDate/parse \"2023-10-27\")"), "\"2023-10-27\"");
  EXPECT_EQ(eval("(parse \"2023-10-27\")"), "\"2023-10-27\"");
  EXPECT_EQ(eval("(str (LocalDate/parse \"2023-10-27\"))"), "\"2023-10-27\"");
  EXPECT_EQ(eval("(pr-str (LocalDate/parse \"2023-10-27\"))"), "\"\\\"2023-10-27\\\"\"");
  EXPECT_EQ(eval("(string? (LocalDate/parse \"2023-10-27\"))"), "false");
  // With a time component the parse family gives a DateTime (GAP-J06 kept).
  EXPECT_EQ(eval("(LocalDate/parse \"2024-01-02T03:04:05\")"), "\"2024-01-02T03:04:05Z\"");
  EXPECT_EQ(eval("(Instant/parse \"2024-01-02\")"), "\"2024-01-02\"");
}

TEST(LibDates, EpochDaysAndDayArithmetic) {
  EXPECT_EQ(eval("(.toEpochDay (LocalDate/parse \"1970-01-01\"))"), "0");
  EXPECT_EQ(eval("(.toEpochDay (LocalDate/parse \"2024-01-01\"))"), "19723");
  EXPECT_EQ(eval("(.toEpochDay (LocalDate/parse \"1969-12-31\"))"), "-1");
  EXPECT_EQ(eval("(.toEpochDay (LocalDate/parse \"2000-03-01\"))"), "11017");
  EXPECT_EQ(eval("(.plusDays (LocalDate/parse \"2024-02-28\") 1)"), "\"2024-02-29\"");
  EXPECT_EQ(eval("(.plusDays (LocalDate/parse \"2023-02-28\") 1)"), "\"2023-03-01\"");
  EXPECT_EQ(eval("(.plusDays (LocalDate/parse \"2023-12-31\") 367)"), "\"2025-01-01\"");
  EXPECT_EQ(eval("(.minusDays (LocalDate/parse \"2024-03-01\") 1)"), "\"2024-02-29\"");
  EXPECT_EQ(eval("(.minusDays (LocalDate/parse \"1900-03-01\") 1)"), "\"1900-02-28\"");
  EXPECT_EQ(eval("(.plusDays (LocalDate/parse \"2024-01-10\") -10)"), "\"2023-12-31\"");
  // Day counts as Clojure passes them to a Java long (GAP-J12).
  EXPECT_EQ(eval("(.toEpochDay (.plusDays (LocalDate/parse \"2024-01-02\") 1.0))"), "19725");
  EXPECT_EQ(eval("(.toEpochDay (.plusDays (LocalDate/parse \"2024-01-01\") 1.9))"), "19724");
  EXPECT_EQ(eval("(.toEpochDay (.minusDays (LocalDate/parse \"2024-01-01\") 1.9))"), "19722");
  EXPECT_EQ(eval("(.toEpochDay (.plusDays (LocalDate/parse \"2024-01-01\") NaN))"), "19723");
  // Day differences the recommended way.
  EXPECT_EQ(eval("(- (.toEpochDay (LocalDate/parse \"2024-03-01\")) "
                 "(.toEpochDay (LocalDate/parse \"2024-02-01\")))"),
            "29");
  // Years beyond four digits are written with a sign, and read back.
  EXPECT_EQ(eval("(.plusDays (LocalDate/parse \"9999-12-31\") 1)"), "\"+10000-01-01\"");
  EXPECT_EQ(eval("(.minusDays (LocalDate/parse \"0000-01-01\") 1)"), "\"-0001-12-31\"");
  EXPECT_EQ(eval("(.toEpochDay (LocalDate/parse \"+10000-01-01\"))"), "2932897");
}

TEST(LibDates, DateConstructor) {
  // Integers below 10^12 in magnitude are seconds, larger ones milliseconds.
  EXPECT_EQ(eval("(.getTime (java.util.Date. 0))"), "0");
  EXPECT_EQ(eval("(.getTime (java.util.Date. 1000))"), "1000000");
  EXPECT_EQ(eval("(.getTime (java.util.Date. -1))"), "-1000");
  EXPECT_EQ(eval("(.getTime (java.util.Date. 1700000000000))"), "1700000000000");
  EXPECT_EQ(eval("(java.util.Date. 1700000000)"), "\"2023-11-14T22:13:20Z\"");
  // Strings: ISO with and without offset, date only, RFC 2822, Java's own form.
  EXPECT_EQ(eval("(java.util.Date. \"2026-01-08T14:30:00Z\")"), "\"2026-01-08T14:30:00Z\"");
  EXPECT_EQ(eval("(java.util.Date. \"2026-01-08T14:30:00\")"), "\"2026-01-08T14:30:00Z\"");
  EXPECT_EQ(eval("(java.util.Date. \"2026-01-08T16:30:00.250+02:00\")"),
            "\"2026-01-08T14:30:00.250Z\"");
  EXPECT_EQ(eval("(java.util.Date. \"2026-01-08T09:30-0500\")"), "\"2026-01-08T14:30:00Z\"");
  EXPECT_EQ(eval("(.getTime (java.util.Date. \"2024-01-02\"))"), "1704153600000");
  EXPECT_EQ(eval("(java.util.Date. \"Wed, 8 Jan 2026 14:30:00 +0000\")"),
            "\"2026-01-08T14:30:00Z\"");
  EXPECT_EQ(eval("(java.util.Date. \"8 Jan 2026 09:30:00 EST\")"), "\"2026-01-08T14:30:00Z\"");
  EXPECT_EQ(eval("(java.util.Date. \"Wed, 08 Jan 2026 16:30:00 +0200\")"),
            "\"2026-01-08T14:30:00Z\"");
  EXPECT_EQ(eval("(.getTime (java.util.Date. \"Thu Jan 01 00:00:01 UTC 1970\"))"), "1000");
  // Dates pass through (a LocalDate becomes its midnight UTC).
  EXPECT_EQ(eval("(let [d (java.util.Date. 5)] (= d (java.util.Date. d)))"), "true");
  EXPECT_EQ(eval("(java.util.Date. (LocalDate/parse \"2024-05-01\"))"), "\"2024-05-01T00:00:00Z\"");
  // The round trip through str works.
  EXPECT_EQ(eval("(let [d (java.util.Date. \"2026-01-08T14:30:00.5Z\")] "
                 "(= d (java.util.Date. (str d))))"),
            "true");
  // Now is after 2023 and agrees with currentTimeMillis.
  EXPECT_EQ(eval("(> (.getTime (java.util.Date.)) 1700000000000)"), "true");
  EXPECT_EQ(eval("(<= (- (System/currentTimeMillis) (.getTime (java.util.Date.))) 1000)"), "true");
  EXPECT_EQ(eval("(integer? (currentTimeMillis))"), "true");
}

TEST(LibDates, InstantParse) {
  EXPECT_EQ(eval("(.getTime (java.time.Instant/parse \"1970-01-01T00:00:01Z\"))"), "1000");
  EXPECT_EQ(eval("(.getTime (Instant/parse \"1970-01-01T00:00:00.123Z\"))"), "123");
  EXPECT_EQ(eval("(.getTime (Instant/parse \"1970-01-01T01:00:00+01:00\"))"), "0");
  EXPECT_EQ(eval("(.getTime (Instant/parse \"1969-12-31T23:59:59Z\"))"), "-1000");
  EXPECT_EQ(eval("(.getTime (Instant/parse \"1970-01-01T00:00:00.999999999Z\"))"), "999");
  EXPECT_EQ(eval("(.getTime (Instant/parse \"1969-12-31T23:59:59.5Z\"))"), "-500");
  EXPECT_EQ(eval("(Instant/parse \"1969-12-31T23:59:59.5Z\")"), "\"1969-12-31T23:59:59.500Z\"");
  EXPECT_EQ(eval("(parse \"2024-02-29T12:00:00Z\")"), "\"2024-02-29T12:00:00Z\"");
}

TEST(LibDates, DurationBetween) {
  EXPECT_EQ(eval("(Duration/between (Instant/parse \"2024-01-01T00:00:00Z\") "
                 "(Instant/parse \"2024-01-01T00:00:01.5Z\"))"),
            "#duration[1500ms]");
  EXPECT_EQ(eval("(.toMillis (java.time.Duration/between (java.util.Date. 0) "
                 "(Instant/parse \"1970-01-01T00:00:01Z\")))"),
            "1000");
  EXPECT_EQ(eval("(.toDays (Duration/between (Instant/parse \"2024-01-01T00:00:00Z\") "
                 "(Instant/parse \"2024-01-03T23:00:00Z\")))"),
            "2");
  // Partial days truncate toward zero, negative ones too.
  EXPECT_EQ(eval("(.toDays (Duration/between (Instant/parse \"2024-01-03T00:00:00Z\") "
                 "(Instant/parse \"2024-01-01T01:00:00Z\")))"),
            "-1");
  EXPECT_EQ(eval("(.toMillis (Duration/between (java.util.Date. 5) (java.util.Date. 0)))"),
            "-5000");
  EXPECT_EQ(eval("(str (Duration/between (java.util.Date. 0) (java.util.Date. 0)))"),
            "\"#duration[0ms]\"");
}

TEST(LibDates, Comparison) {
  EXPECT_EQ(eval("(.isBefore (LocalDate/parse \"2023-01-01\") (LocalDate/parse \"2023-12-31\"))"),
            "true");
  EXPECT_EQ(eval("(.isAfter (LocalDate/parse \"2023-01-01\") (LocalDate/parse \"2023-12-31\"))"),
            "false");
  EXPECT_EQ(eval("(.isAfter (java.util.Date. \"2024-01-01T00:00:00Z\") "
                 "(java.util.Date. \"2023-01-01T00:00:00Z\"))"),
            "true");
  EXPECT_EQ(eval("(.isBefore (java.util.Date. 0) (java.util.Date. 0))"), "false");
  // Dates are values: equality, hashing, ordering.
  EXPECT_EQ(eval("(= (LocalDate/parse \"2024-05-01\") (LocalDate/parse \"2024-05-01\"))"), "true");
  EXPECT_EQ(eval("(= (LocalDate/parse \"2024-05-01\") \"2024-05-01\")"), "false");
  EXPECT_EQ(eval("(= (LocalDate/parse \"1970-01-01\") (java.util.Date. 0))"), "false");
  EXPECT_EQ(eval("(count #{(LocalDate/parse \"2024-05-01\") (LocalDate/parse \"2024-05-01\")})"),
            "1");
  EXPECT_EQ(eval("(get {(LocalDate/parse \"2024-05-01\") :x} (parse \"2024-05-01\"))"), ":x");
  EXPECT_EQ(eval("(sort [(LocalDate/parse \"2024-05-01\") (LocalDate/parse \"2023-01-01\")])"),
            "[\"2023-01-01\" \"2024-05-01\"]");
  EXPECT_EQ(eval("(compare (java.util.Date. 1) (java.util.Date. 2))"), "-1");
}

TEST(LibDates, JsonWritesDatesAsIsoText) {
  EXPECT_EQ(eval("(json/generate-string [(LocalDate/parse \"2024-01-01\") (java.util.Date. 0)])"),
            "\"[\\\"2024-01-01\\\",\\\"1970-01-01T00:00:00Z\\\"]\"");
  EXPECT_EQ(eval("(json/generate-string (Duration/between (java.util.Date. 0) "
                 "(java.util.Date. 1)))"),
            "nil");
}

TEST(LibDates, Errors) {
  ptc::Error e = eval_error(
      "(.isBefore (LocalDate/parse \"2023-01-01\") (java.util.Date. \"2023-01-01T00:00:00Z\"))");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, "cannot compare LocalDate with DateTime")) << e.message;
  e = eval_error("(.getTime (LocalDate/parse \"2024-05-01\"))");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, ".getTime: expected a DateTime (argument 1), got LocalDate"))
      << e.message;
  EXPECT_TRUE(contains(e.hint, ".toEpochDay")) << e.hint;
  e = eval_error("(.getTime nil)");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, "got nil")) << e.message;
  EXPECT_EQ(eval_error("(java.util.Date. nil)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(java.util.Date. [1])").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(java.util.Date. 1.5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(java.util.Date. (Duration/between (java.util.Date. 0) "
                       "(java.util.Date. 0)))")
                .kind,
            ErrorKind::TypeError);
  e = eval_error("(java.util.Date. \"yesterday\")");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.message, "cannot parse")) << e.message;
  EXPECT_EQ(eval_error("(LocalDate/parse nil)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(LocalDate/parse 20240101)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(LocalDate/parse \"2024-13-01\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(LocalDate/parse \"2023-02-29\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(LocalDate/parse \"2024-1-5\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(Instant/parse \"2024-01-01T25:00:00Z\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(Instant/parse \"2024-01-01T10:00:00Q\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.toEpochDay (java.util.Date. 0))").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.plusDays (java.util.Date. 0) 1)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.plusDays (LocalDate/parse \"2024-01-01\") \"1\")").kind,
            ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.plusDays (LocalDate/parse \"2024-01-01\") 100000000000000)").kind,
            ErrorKind::ArithmeticError);
  e = eval_error(
      "(Duration/between (LocalDate/parse \"2024-01-01\") (LocalDate/parse \"2024-01-02\"))");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_TRUE(contains(e.hint, ".toEpochDay")) << e.hint;
  EXPECT_EQ(eval_error("(.toMillis 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.toDays (java.util.Date. 0))").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.isAfter 1 2)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.isAfter (java.util.Date. 0) 2)").kind, ErrorKind::TypeError);
  // Arity is checked by the registry.
  EXPECT_EQ(eval_error("(java.util.Date. 1 2)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(.plusDays (LocalDate/parse \"2024-01-01\"))").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(System/currentTimeMillis 1)").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(Duration/between (java.util.Date. 0))").kind, ErrorKind::ArityError);
  // Java namespaces hold only the registered members.
  EXPECT_EQ(eval_error("(LocalDate/now)").kind, ErrorKind::UnboundVar);
  EXPECT_EQ(eval_error("(between (java.util.Date. 0) (java.util.Date. 0))").kind,
            ErrorKind::UnboundVar);
}

}  // namespace
