// String builtins end to end: clojure.string helpers, the Java String
// methods, parsing and format.
#include <gtest/gtest.h>

#include "support/run_helpers.hpp"

using ptc::ErrorKind;
using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

// ---------------------------------------------------------------- str & co

TEST(LibStrings, StrPrStrNameKeyword) {
  EXPECT_EQ(eval("(str)"), "\"\"");
  EXPECT_EQ(eval("(str 42 true nil :user \"x\")"), "\"42true:userx\"");
  EXPECT_EQ(eval("(str {:a 1} [\"a\"])"), "\"{:a 1}[\\\"a\\\"]\"");
  EXPECT_EQ(eval("(str 1.0 ##Inf)"), "\"1.0Infinity\"");
  EXPECT_EQ(eval("(str #\"a+\")"), "\"a+\"");  // the pattern source (GAP-S93)
  EXPECT_EQ(eval("(pr-str 1 \"a\" nil)"), "\"1 \\\"a\\\" nil\"");
  EXPECT_EQ(eval("(pr-str)"), "\"\"");
  EXPECT_EQ(eval("(name :foo)"), "\"foo\"");
  EXPECT_EQ(eval("(name \"bar\")"), "\"bar\"");
  EXPECT_EQ(eval_error("(name nil)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(name 42)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval("(keyword \"foo\")"), ":foo");
  EXPECT_EQ(eval("(keyword nil)"), "nil");
  EXPECT_EQ(eval_error("(keyword \"a b\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(name)").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- subs

TEST(LibStrings, Subs) {
  EXPECT_EQ(eval("(subs \"hello\" 1)"), "\"ello\"");
  EXPECT_EQ(eval("(subs \"hello\" 1 4)"), "\"ell\"");
  EXPECT_EQ(eval("(subs \"hello\" 0 0)"), "\"\"");
  EXPECT_EQ(eval("(subs \"\" 0)"), "\"\"");
  // Signal values instead of errors (DIV-22).
  EXPECT_EQ(eval("(subs \"abcdef\" -1)"), "\"\"");
  EXPECT_EQ(eval("(subs \"abc\" 10)"), "\"\"");
  EXPECT_EQ(eval("(subs \"abc\" 1 99)"), "\"bc\"");
  EXPECT_EQ(eval("(subs \"abc\" 2 1)"), "\"\"");
  EXPECT_EQ(eval("(let [s \"abcdef\"] (subs s (.indexOf s \"xyz\")))"), "\"\"");
  // Finite float indexes truncate (GAP-S79); indexes count graphemes (DIV-36).
  EXPECT_EQ(eval("(subs \"abcd\" 1.0 2.0)"), "\"b\"");
  EXPECT_EQ(eval("(subs \"abcd\" 1 3.9)"), "\"bc\"");
  EXPECT_EQ(eval("(subs \"😀a\" 1)"), "\"a\"");
  EXPECT_EQ(eval("(subs \"e\u0301xy\" 1 2)"), "\"x\"");
  EXPECT_EQ(eval_error("(subs nil 1)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(subs \"abc\" \"1\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(subs \"abc\" ##NaN)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(subs \"abc\")").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- split

TEST(LibStrings, SplitOnCharactersAndRegexes) {
  EXPECT_EQ(eval("(split \"a,b,c\" \",\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(split \"a,b\" \\,)"), "[\"a\" \"b\"]");
  EXPECT_EQ(eval("(split \"hello\" \"\")"), "[\"h\" \"e\" \"l\" \"l\" \"o\"]");
  EXPECT_EQ(eval("(split \"a,,b\" \",\")"), "[\"a\" \"\" \"b\"]");
  EXPECT_EQ(eval("(split \"a--b--c\" #\"--\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(clojure.string/split \"a1b22c\" #\"\\d+\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(str/split \"😀a😀\" #\"\")"), "[\"😀\" \"a\" \"😀\"]");
  EXPECT_EQ(eval("(split \"x\" #\",\")"), "[\"x\"]");
}

TEST(LibStrings, SplitFollowsJavaFieldRules) {
  // Trailing empty fields go, leading ones stay; "" is one empty field (GAP-S95, S15).
  EXPECT_EQ(eval("(split \"a,b,\" #\",\")"), "[\"a\" \"b\"]");
  EXPECT_EQ(eval("(split \",a\" #\",\")"), "[\"\" \"a\"]");
  EXPECT_EQ(eval("(split \"\" #\",\")"), "[\"\"]");
  EXPECT_EQ(eval("(split \",,\" #\",\")"), "[]");
  EXPECT_EQ(eval("(split \"abc\" #\"\")"), "[\"a\" \"b\" \"c\"]");
  // The limit arity (GAP-S25).
  EXPECT_EQ(eval("(split \"abc\" #\"\" 2)"), "[\"a\" \"bc\"]");
  EXPECT_EQ(eval("(split \"a,,b\" #\",\" 0)"), "[\"a\" \"\" \"b\"]");
  EXPECT_EQ(eval("(split \"a,,b\" #\",\" 1)"), "[\"a,,b\"]");
  EXPECT_EQ(eval("(split \"a,b,,\" #\",\" -1)"), "[\"a\" \"b\" \"\" \"\"]");
  EXPECT_EQ(eval("(split \"a,b,c\" \",\" 2)"), "[\"a\" \"b,c\"]");
}

TEST(LibStrings, SplitErrors) {
  // A plain string of several characters must be a regex (DIV-50).
  ptc::Error e = eval_error("(split \"a..b\" \"..\")");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_NE(e.hint.find("#\"..\""), std::string::npos) << e.hint;
  EXPECT_EQ(eval_error("(split nil \",\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(split \"a b\" 1)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(split \"a b\")").kind, ErrorKind::ArityError);
}

TEST(LibStrings, SplitLines) {
  EXPECT_EQ(eval("(split-lines \"a\\nb\\r\\nc\")"), "[\"a\" \"b\" \"c\"]");
  EXPECT_EQ(eval("(split-lines \"a\\n\\n\\n\")"), "[\"a\"]");
  EXPECT_EQ(eval("(split-lines \"\\na\")"), "[\"\" \"a\"]");
  EXPECT_EQ(eval("(split-lines \"a\\rb\")"), "[\"a\\rb\"]");
  EXPECT_EQ(eval("(split-lines \"\")"), "[\"\"]");  // GAP-S51
  EXPECT_EQ(eval_error("(split-lines nil)").kind, ErrorKind::TypeError);
}

// ---------------------------------------------------------------- join

TEST(LibStrings, Join) {
  EXPECT_EQ(eval("(join \", \" [\"a\" \"b\" \"c\"])"), "\"a, b, c\"");
  EXPECT_EQ(eval("(join \"-\" [1 2 3])"), "\"1-2-3\"");
  EXPECT_EQ(eval("(join [1 nil :a 2.5])"), "\"1:a2.5\"");
  EXPECT_EQ(eval("(join \",\" #{1})"), "\"1\"");
  EXPECT_EQ(eval("(join \",\" [])"), "\"\"");
  // nil and other seqables (GAP-S26).
  EXPECT_EQ(eval("(join nil)"), "\"\"");
  EXPECT_EQ(eval("(join \",\" nil)"), "\"\"");
  EXPECT_EQ(eval("(join nil [1 2])"), "\"12\"");
  EXPECT_EQ(eval("(join \"ab\")"), "\"ab\"");
  EXPECT_EQ(eval("(join \",\" \"ab\")"), "\"a,b\"");
  EXPECT_EQ(eval("(join \",\" {:a 1})"), "\"[:a 1]\"");
  EXPECT_EQ(eval_error("(join \",\" 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(join)").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- trims

TEST(LibStrings, TrimAndBlank) {
  EXPECT_EQ(eval("(trim \"\\n\\tworld\\r\\n\")"), "\"world\"");
  EXPECT_EQ(eval("(triml \"  hi  \")"), "\"hi  \"");
  EXPECT_EQ(eval("(trimr \"  hi  \")"), "\"  hi\"");
  EXPECT_EQ(eval("(trim \"   \")"), "\"\"");
  EXPECT_EQ(eval("(trim \"\")"), "\"\"");
  EXPECT_EQ(eval("(trim-newline \"hi\\r\\n\\n\")"), "\"hi\"");
  EXPECT_EQ(eval("(trim-newline \"hi  \")"), "\"hi  \"");
  EXPECT_EQ(eval("(trim-newline \\newline)"), "\"\"");
  // Java whitespace: EM SPACE is whitespace, NO-BREAK SPACE is not (GAP-S50).
  EXPECT_EQ(eval("(trim \"\u2003x\u2003\")"), "\"x\"");
  EXPECT_EQ(eval("(trim \"\u00A0x\u00A0\")"), "\"\u00A0x\u00A0\"");
  EXPECT_EQ(eval("(triml \"\u2003x\")"), "\"x\"");
  EXPECT_EQ(eval("(trimr \"x\u00A0\")"), "\"x\u00A0\"");
  EXPECT_EQ(eval("(blank? nil)"), "true");
  EXPECT_EQ(eval("(blank? \"\")"), "true");
  EXPECT_EQ(eval("(blank? \" \\t\\n\")"), "true");
  EXPECT_EQ(eval("(blank? \"\u2003\")"), "true");
  EXPECT_EQ(eval("(blank? \"\u00A0\")"), "false");
  EXPECT_EQ(eval("(blank? \"a\")"), "false");
  EXPECT_EQ(eval_error("(trim nil)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(blank? 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(trim \"a\" \"b\")").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- replace

TEST(LibStrings, ReplaceLiteral) {
  EXPECT_EQ(eval("(replace \"hello\" \"l\" \"L\")"), "\"heLLo\"");
  EXPECT_EQ(eval("(replace \"aaa\" \"a\" \"b\")"), "\"bbb\"");
  EXPECT_EQ(eval("(replace \"aaaa\" \"aa\" \"b\")"), "\"bb\"");
  EXPECT_EQ(eval("(replace \"aba\" \\a \"x\")"), "\"xbx\"");
  EXPECT_EQ(eval("(replace \"a$b\" \"$\" \"$1\")"), "\"a$1b\"");  // literal, no groups
  EXPECT_EQ(eval("(replace \"abc\" \"\" \"-\")"), "\"-a-b-c-\"");
  EXPECT_EQ(eval("(replace \"\" \"a\" \"b\")"), "\"\"");
  EXPECT_EQ(eval("(replace 121 \"1\" \"x\")"), "\"x2x\"");  // GAP-S139
  EXPECT_EQ(eval("(replace-first \"aaa\" \"a\" \"b\")"), "\"baa\"");
  EXPECT_EQ(eval("(replace-first \"abc\" \"x\" \"b\")"), "\"abc\"");
}

TEST(LibStrings, ReplaceRegex) {
  EXPECT_EQ(eval("(replace \"a1b22\" #\"\\d+\" \"#\")"), "\"a#b#\"");
  // $n group references (GAP-S73), escapes, and function replacements (GAP-S27).
  EXPECT_EQ(eval("(replace \"a1\" #\"(\\d)\" \"<$1>\")"), "\"a<1>\"");
  EXPECT_EQ(eval("(replace \"ab\" #\"(a)(b)\" \"$2$1$0\")"), "\"baab\"");
  EXPECT_EQ(eval("(replace \"a1\" #\"\\d\" \"\\\\$\")"), "\"a$\"");
  EXPECT_EQ(eval("(replace \"k=v\" #\"(?P<key>\\w)=(\\w)\" \"${key}:$2\")"), "\"k:v\"");
  EXPECT_EQ(eval("(replace \"ab\" #\"(x)?b\" \"[$1]\")"), "\"a[]\"");
  EXPECT_EQ(eval("(replace \"a1\" #\"\\d\" (fn [m] \"X\"))"), "\"aX\"");
  EXPECT_EQ(eval("(replace \"a1b2\" #\"(\\d)\" (fn [[m g]] (str \"<\" g \">\")))"), "\"a<1>b<2>\"");
  EXPECT_EQ(eval("(replace \"abc\" #\"x*\" \"-\")"), "\"-a-b-c-\"");
  EXPECT_EQ(eval("(replace-first \"a1b2\" #\"\\d\" \"#\")"), "\"a#b2\"");
  EXPECT_EQ(eval("(replace-first \"a1b2\" #\"(\\d)\" (fn [[_ d]] (str d d)))"), "\"a11b2\"");
  EXPECT_EQ(eval("(replace \"xyz\" #\"\\d\" \"$9\")"), "\"xyz\"");  // no match, no check
}

TEST(LibStrings, ReplaceErrors) {
  EXPECT_EQ(eval_error("(replace \"a1\" #\"\\d\" \"$$\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(replace \"a1\" #\"\\d\" \"$1\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(replace \"a1\" #\"\\d\" \"x\\\\\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(replace \"a1\" \"1\" inc)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(replace \"a1\" 1 \"x\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(replace nil \"a\" \"b\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(replace \"a\")").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(replace-first \"a\" \"b\")").kind, ErrorKind::ArityError);
}

TEST(LibStrings, ReplaceItemsWithSmap) {
  // clojure.core/replace (GAP-S16).
  EXPECT_EQ(eval("(replace {:a :x} [:a :b])"), "[:x :b]");
  EXPECT_EQ(eval("(replace [10 20 30] [0 1 2 0 5])"), "[10 20 30 10 5]");
  EXPECT_EQ(eval("(replace {:a nil} [:a])"), "[nil]");
  EXPECT_EQ(eval("(replace {\"a\" 1} \"ab\")"), "[1 \"b\"]");
  EXPECT_EQ(eval("(replace {:a 1} nil)"), "[]");
  EXPECT_EQ(eval("(replace nil [1 2])"), "[1 2]");
  EXPECT_EQ(eval("(clojure.core/replace {1 :one} #{1 2})"), "[:one 2]");
  EXPECT_EQ(eval_error("(replace \"abc\" \"b\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(replace {:a 1} 5)").kind, ErrorKind::TypeError);
}

// ---------------------------------------------------------------- case

TEST(LibStrings, CaseConversion) {
  EXPECT_EQ(eval("(upcase \"hello\")"), "\"HELLO\"");
  EXPECT_EQ(eval("(upper-case \"world\")"), "\"WORLD\"");
  EXPECT_EQ(eval("(downcase \"HELLO\")"), "\"hello\"");
  EXPECT_EQ(eval("(lower-case \"WORLD\")"), "\"world\"");
  EXPECT_EQ(eval("(upper-case \"\")"), "\"\"");
  EXPECT_EQ(eval("(upper-case \"éλя\")"), "\"ÉΛЯ\"");
  EXPECT_EQ(eval("(upper-case \"straße ﬁ\")"), "\"STRASSE FI\"");
  EXPECT_EQ(eval("(lower-case \"ÉΛЯ\")"), "\"éλя\"");
  EXPECT_EQ(eval("(lower-case \"ΟΔΟΣ ΣΑ\")"), "\"οδος σα\"");  // final sigma
  EXPECT_EQ(eval("(lower-case \"İ\")"), "\"i\u0307\"");
  EXPECT_EQ(eval("(lower-case 12)"), "\"12\"");  // GAP-S139
  EXPECT_EQ(eval("(str/upper-case \\a)"), "\"A\"");
  EXPECT_EQ(eval_error("(upper-case nil)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(lower-case :a)").kind, ErrorKind::TypeError);
}

// ---------------------------------------------------------------- search

TEST(LibStrings, PrefixSuffixIncludes) {
  EXPECT_EQ(eval("(starts-with? \"hello\" \"he\")"), "true");
  EXPECT_EQ(eval("(starts-with? \"hello\" \"lo\")"), "false");
  EXPECT_EQ(eval("(starts-with? \"hello\" \"\")"), "true");
  EXPECT_EQ(eval("(ends-with? \"hello\" \"lo\")"), "true");
  EXPECT_EQ(eval("(ends-with? \"hello\" \"he\")"), "false");
  EXPECT_EQ(eval("(ends-with? \"\" \"\")"), "true");
  EXPECT_EQ(eval("(includes? \"hello\" \"ll\")"), "true");
  EXPECT_EQ(eval("(includes? \"hello\" \"x\")"), "false");
  EXPECT_EQ(eval("(includes? \"abc\" \\b)"), "true");
  EXPECT_EQ(eval("(includes? 123 \"2\")"), "true");
  EXPECT_EQ(eval("(starts-with? 123 \"1\")"), "true");
  EXPECT_EQ(eval_error("(includes? nil \"a\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(includes? \"a\" nil)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(starts-with? \"a\")").kind, ErrorKind::ArityError);
}

TEST(LibStrings, IndexOf) {
  EXPECT_EQ(eval("(index-of \"hello\" \"l\")"), "2");
  EXPECT_EQ(eval("(index-of \"hello\" \"x\")"), "nil");
  EXPECT_EQ(eval("(index-of \"hello\" \"l\" 3)"), "3");
  EXPECT_EQ(eval("(index-of \"hello\" \"\")"), "0");
  EXPECT_EQ(eval("(index-of \"hello\" \"h\" -5)"), "0");
  EXPECT_EQ(eval("(index-of \"abc\" \"\" 9)"), "3");
  EXPECT_EQ(eval("(index-of \"abc\" \"c\" 9)"), "nil");
  EXPECT_EQ(eval("(index-of \"abcabc\" \"b\" 1.9)"), "1");  // GAP-S124
  EXPECT_EQ(eval("(index-of \"😀a\" \"a\")"), "1");          // graphemes (DIV-36)
  EXPECT_EQ(eval("(index-of 123 \"2\")"), "1");
  EXPECT_EQ(eval("(last-index-of \"hello\" \"l\")"), "3");
  EXPECT_EQ(eval("(last-index-of \"hello\" \"x\")"), "nil");
  EXPECT_EQ(eval("(last-index-of \"hello\" \"l\" 2)"), "2");
  EXPECT_EQ(eval("(last-index-of \"hello\" \"\")"), "5");
  EXPECT_EQ(eval("(last-index-of \"aaa\" \"aa\")"), "1");
  EXPECT_EQ(eval("(last-index-of \"ababa\" \"a\" 3.0)"), "2");
  EXPECT_EQ(eval("(last-index-of \"abc\" \"a\" -1)"), "nil");  // GAP-S80
  EXPECT_EQ(eval("(last-index-of \"abc\" \"\" -1)"), "nil");
  EXPECT_EQ(eval("(last-index-of \"a😀b😀\" \"😀\")"), "3");
  EXPECT_EQ(eval_error("(index-of \"abc\" 1)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(index-of \"abc\" \"a\" \"1\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(index-of nil \"a\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(last-index-of \"a\")").kind, ErrorKind::ArityError);
}

TEST(LibStrings, CapitalizeIsNotAvailable) {
  // The spec (§9.8) names clojure.string/capitalize as unavailable.
  EXPECT_EQ(eval_error("(clojure.string/capitalize \"ab\")").kind, ErrorKind::UnboundVar);
}

// ---------------------------------------------------------------- Java methods

TEST(LibStringMethods, SpecExamples) {
  EXPECT_EQ(eval("(.indexOf \"hello\" \"ll\")"), "2");
  EXPECT_EQ(eval("(.indexOf \"hello\" \"x\")"), "-1");
  EXPECT_EQ(eval("(.indexOf \"hello\" \"l\" 3)"), "3");
  EXPECT_EQ(eval("(.lastIndexOf \"hello\" \"l\")"), "3");
  EXPECT_EQ(eval("(.lastIndexOf \"hello\" \"z\")"), "-1");
  EXPECT_EQ(eval("(.toLowerCase \"Hello\")"), "\"hello\"");
  EXPECT_EQ(eval("(.toUpperCase \"Hello\")"), "\"HELLO\"");
  EXPECT_EQ(eval("(.startsWith \"hello\" \"he\")"), "true");
  EXPECT_EQ(eval("(.endsWith \"hello\" \"lo\")"), "true");
  EXPECT_EQ(eval("(.contains \"hello\" \"ell\")"), "true");
  EXPECT_EQ(eval("(.length \"hello\")"), "5");
  EXPECT_EQ(eval("(.length \"\")"), "0");
  EXPECT_EQ(eval("(.substring \"hello\" 2)"), "\"llo\"");
  EXPECT_EQ(eval("(.substring \"hello\" 1 3)"), "\"el\"");
  EXPECT_EQ(eval("(.substring \"hello\" 5)"), "\"\"");
}

TEST(LibStringMethods, OverloadsAndCharacters) {
  // GAP-J05 overloads.
  EXPECT_EQ(eval("(.startsWith \"abc\" \"b\" 1)"), "true");
  EXPECT_EQ(eval("(.startsWith \"abc\" \"a\" -1)"), "false");
  EXPECT_EQ(eval("(.startsWith \"abc\" \"\" 4)"), "false");
  EXPECT_EQ(eval("(.startsWith \"abc\" \"\" 3)"), "true");
  EXPECT_EQ(eval("(.lastIndexOf \"ababa\" \"ba\" 2)"), "1");
  EXPECT_EQ(eval("(.lastIndexOf \"abcabc\" \"b\" -1)"), "-1");
  EXPECT_EQ(eval("(.lastIndexOf \"abcabc\" \"b\" 99)"), "4");
  EXPECT_EQ(eval("(.lastIndexOf \"abc\" \"\" 4)"), "3");
  EXPECT_EQ(eval("(.indexOf \"abc\" 98)"), "1");
  EXPECT_EQ(eval("(.indexOf \"abc\" 97 1)"), "-1");
  EXPECT_EQ(eval("(.lastIndexOf \"abca\" 97)"), "3");
  EXPECT_EQ(eval("(.lastIndexOf \"abc\" 97 1)"), "0");
  // Characters are strings (DIV-40, DIV-41); float indexes truncate (GAP-J14).
  EXPECT_EQ(eval("(.startsWith \"abc\" \\a)"), "true");
  EXPECT_EQ(eval("(.length \\a)"), "1");
  EXPECT_EQ(eval("(.toUpperCase \\a)"), "\"A\"");
  EXPECT_EQ(eval("(.substring \\a 0)"), "\"a\"");
  EXPECT_EQ(eval("(.substring \"abcd\" 1.9)"), "\"bcd\"");
  EXPECT_EQ(eval("(.substring \"abcd\" 1.0 3.0)"), "\"bc\"");
  EXPECT_EQ(eval("(.substring \"😀ab\" 1 2)"), "\"a\"");
}

TEST(LibStringMethods, Errors) {
  ptc::Error e = eval_error("(.indexOf 123 \"x\")");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_NE(e.message.find(".indexOf"), std::string::npos) << e.message;
  EXPECT_EQ(eval_error("(.length nil)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.contains \"abc\" 1)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.endsWith \"abc\" nil)").kind, ErrorKind::TypeError);
  // .substring raises where subs returns signal values.
  EXPECT_EQ(eval_error("(.substring \"abc\" -1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(.substring \"abc\" 4)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(.substring \"abc\" 1 4)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(.substring \"abc\" 2 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(.substring \"abc\" ##Inf)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(.length \"a\" \"b\")").kind, ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(.substring \"a\")").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- parsing

TEST(LibParsing, ClojureParsersReturnNilOnFailure) {
  EXPECT_EQ(eval("(parse-long \"42\")"), "42");
  EXPECT_EQ(eval("(parse-long \"-17\")"), "-17");
  EXPECT_EQ(eval("(parse-long \"+5\")"), "5");
  EXPECT_EQ(eval("(parse-int \"7\")"), "7");
  EXPECT_EQ(eval("(parse-long \"-9223372036854775808\")"), "-9223372036854775808");
  EXPECT_EQ(eval("(parse-long \"9223372036854775808\")"), "nil");  // GAP-S85
  EXPECT_EQ(eval("(parse-long \"+9223372036854775808\")"), "nil");
  EXPECT_EQ(eval("(parse-long \"42abc\")"), "nil");
  EXPECT_EQ(eval("(parse-long \" 1\")"), "nil");
  EXPECT_EQ(eval("(parse-long \"\")"), "nil");
  EXPECT_EQ(eval("(parse-long \"-\")"), "nil");
  EXPECT_EQ(eval("(parse-long \"1.0\")"), "nil");
  // Non-strings are nil, not errors (DIV-18).
  EXPECT_EQ(eval("(parse-long 42)"), "nil");
  EXPECT_EQ(eval("(parse-long nil)"), "nil");
  EXPECT_EQ(eval("(->> [\"1\" \"2\" \"x\" \"4\"] (map parse-long) (filter some?) (reduce +))"),
            "7");
}

TEST(LibParsing, ParseDoubleSyntax) {
  EXPECT_EQ(eval("(parse-double \"3.14\")"), "3.14");
  EXPECT_EQ(eval("(parse-double \"-0.5\")"), "-0.5");
  EXPECT_EQ(eval("(= (parse-double \"1.23e-4\") 1.23e-4)"), "true");
  EXPECT_EQ(eval("(parse-double \"42\")"), "42.0");
  // Java decimal spellings (GAP-S61).
  EXPECT_EQ(eval("(parse-double \".5\")"), "0.5");
  EXPECT_EQ(eval("(parse-double \"1.\")"), "1.0");
  EXPECT_EQ(eval("(parse-double \"0x1.8p1\")"), "3.0");
  EXPECT_EQ(eval("(parse-double \"2.5f\")"), "2.5");
  EXPECT_EQ(eval("(parse-double \"NaN\")"), "##NaN");
  EXPECT_EQ(eval("(parse-double \"-Infinity\")"), "##-Inf");
  EXPECT_EQ(eval("(parse-double \"1e400\")"), "##Inf");
  // The spec keeps whitespace out.
  EXPECT_EQ(eval("(parse-double \"3.14 \")"), "nil");
  EXPECT_EQ(eval("(parse-double \"invalid\")"), "nil");
  EXPECT_EQ(eval("(parse-double \".\")"), "nil");
  EXPECT_EQ(eval("(parse-double \"1e\")"), "nil");
  EXPECT_EQ(eval("(parse-double \"inf\")"), "nil");
  EXPECT_EQ(eval("(parse-double \"0x1.0\")"), "nil");
  EXPECT_EQ(eval("(parse-double nil)"), "nil");
  EXPECT_EQ(eval("(parse-double 3.14)"), "nil");
}

TEST(LibParsing, ParseBoolean) {
  EXPECT_EQ(eval("(parse-boolean \"true\")"), "true");
  EXPECT_EQ(eval("(parse-boolean \"false\")"), "false");
  EXPECT_EQ(eval("(parse-boolean \"TRUE\")"), "nil");
  EXPECT_EQ(eval("(parse-boolean \"\")"), "nil");
  EXPECT_EQ(eval("(parse-boolean true)"), "nil");
  EXPECT_EQ(eval("(parse-boolean nil)"), "nil");
  EXPECT_EQ(eval_error("(parse-boolean)").kind, ErrorKind::ArityError);
}

TEST(LibParsing, JavaParsers) {
  EXPECT_EQ(eval("(Integer/parseInt \"42\")"), "42");
  EXPECT_EQ(eval("(Integer/parseInt \"-2147483648\")"), "-2147483648");
  EXPECT_EQ(eval("(Integer/parseInt \"ff\" 16)"), "255");  // GAP-J15
  EXPECT_EQ(eval("(Long/parseLong \"10\" 16)"), "16");
  EXPECT_EQ(eval("(Long/parseLong \"-101\" 2)"), "-5");
  EXPECT_EQ(eval("(Long/parseLong \"9223372036854775807\")"), "9223372036854775807");
  EXPECT_EQ(eval("(Double/parseDouble \"3.14\")"), "3.14");
  EXPECT_EQ(eval("(Double/parseDouble \" 1.5\")"), "1.5");  // Java trims
  EXPECT_EQ(eval("(Double/parseDouble \"0x1.0p0\")"), "1.0");
  EXPECT_EQ(eval("(Float/parseFloat \"1.5 \")"), "1.5");
  EXPECT_EQ(eval("(Boolean/parseBoolean \"true\")"), "true");
  EXPECT_EQ(eval("(Boolean/parseBoolean \"TrUe\")"), "true");
  EXPECT_EQ(eval("(Boolean/parseBoolean \"x\")"), "false");
  EXPECT_EQ(eval("(Boolean/parseBoolean \"\")"), "false");
  EXPECT_EQ(eval("(Boolean/parseBoolean nil)"), "false");
  // Java semantics: bad text raises (GAP-J01), with a hint to the nil-safe parser.
  ptc::Error e = eval_error("(Integer/parseInt \"x\")");
  EXPECT_EQ(e.kind, ErrorKind::RuntimeError);
  EXPECT_NE(e.hint.find("parse-long"), std::string::npos) << e.hint;
  EXPECT_EQ(eval_error("(Integer/parseInt \"\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Integer/parseInt \" 1\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Integer/parseInt \"2147483648\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Integer/parseInt nil)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Long/parseLong \"9223372036854775808\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Long/parseLong \"10\" 99)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Double/parseDouble \"x\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Double/parseDouble nil)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Float/parseFloat \"\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(Long/parseLong 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(Boolean/parseBoolean true)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(Integer/parseInt \"1\" 10 3)").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- format

TEST(LibFormat, SpecExamples) {
  EXPECT_EQ(eval("(format \"%s has %d items\" \"cart\" 3)"), "\"cart has 3 items\"");
  EXPECT_EQ(eval("(format \"%.2f\" 3.14159)"), "\"3.14\"");
  EXPECT_EQ(eval("(format \"%d in hex is %x\" 255 255)"), "\"255 in hex is ff\"");
  EXPECT_EQ(eval("(format \"%e\" 1234.5)"), "\"1.234500e+03\"");
  EXPECT_EQ(eval("(format \"%o\" 8)"), "\"10\"");
  EXPECT_EQ(eval("(format \"100%%\")"), "\"100%\"");
  EXPECT_EQ(eval("(format \"%s\" nil)"), "\"\"");  // DIV-21
  EXPECT_EQ(eval("(format \"%s and %s\" \"a\" \"b\" \"c\")"), "\"a and b\"");
  EXPECT_EQ(eval("(format \"%f\" ##Inf)"), "\"Infinity\"");
  EXPECT_EQ(eval("(format \"%s %s\" ##-Inf ##NaN)"), "\"-Infinity NaN\"");
  EXPECT_EQ(eval("(format \"\")"), "\"\"");
  EXPECT_EQ(eval("(format \"%s\" [1 \"a\"])"), "\"[1 \\\"a\\\"]\"");
  EXPECT_EQ(eval("(format \"%f\" 1)"), "\"1.000000\"");
  EXPECT_EQ(eval("(format \"%d\" 4.0)"), "\"4\"");
}

TEST(LibFormat, WidthFlagsAndPrecision) {
  // GAP-S65.
  EXPECT_EQ(eval("(format \"%02d\" 3)"), "\"03\"");
  EXPECT_EQ(eval("(format \"%-4s!\" \"x\")"), "\"x   !\"");
  EXPECT_EQ(eval("(format \"%5s\" \"x\")"), "\"    x\"");
  EXPECT_EQ(eval("(format \"%05.2f\" 3.1)"), "\"03.10\"");
  EXPECT_EQ(eval("(format \"%+d\" 3)"), "\"+3\"");
  EXPECT_EQ(eval("(format \"% d\" 3)"), "\" 3\"");
  EXPECT_EQ(eval("(format \"%04x\" 15)"), "\"000f\"");
  EXPECT_EQ(eval("(format \"%#x\" 15)"), "\"0xf\"");
  EXPECT_EQ(eval("(format \"%#o\" 8)"), "\"010\"");
  EXPECT_EQ(eval("(format \"%(d\" -3)"), "\"(3)\"");
  EXPECT_EQ(eval("(format \"%08.3f\" -1.5)"), "\"-001.500\"");
  EXPECT_EQ(eval("(format \"%,010d\" 1234)"), "\"000001,234\"");
  EXPECT_EQ(eval("(format \"%.3s\" \"abcdef\")"), "\"abc\"");
  EXPECT_EQ(eval("(format \"%3s|\" \"😀\")"), "\"  😀|\"");
  EXPECT_EQ(eval("(format \"%10.3f|\" -3.14159)"), "\"    -3.142|\"");
  EXPECT_EQ(eval("(format \"%010f\" ##-Inf)"), "\" -Infinity\"");
}

TEST(LibFormat, MoreConversions) {
  // GAP-S89, S96, S117.
  EXPECT_EQ(eval("(format \"%b %B\" nil true)"), "\"false TRUE\"");
  EXPECT_EQ(eval("(format \"%b\" 0)"), "\"true\"");
  EXPECT_EQ(eval("(format \"a%nb\")"), "\"a\\nb\"");
  EXPECT_EQ(eval("(format \"%d %o %x %f\" nil nil nil nil)"), "\"null null null null\"");
  EXPECT_EQ(eval("(format \"%S\" \"ab\")"), "\"AB\"");
  EXPECT_EQ(eval("(format \"%,d\" 1000)"), "\"1,000\"");
  EXPECT_EQ(eval("(format \"%,.2f\" 1234.5)"), "\"1,234.50\"");
  EXPECT_EQ(eval("(format \"%X\" 255)"), "\"FF\"");
  EXPECT_EQ(eval("(format \"%g\" 1.0)"), "\"1.00000\"");
  EXPECT_EQ(eval("(format \"%.2g\" 12.34)"), "\"12\"");
  EXPECT_EQ(eval("(format \"%g\" 123456789.0)"), "\"1.23457e+08\"");
  EXPECT_EQ(eval("(format \"%G\" 1.0)"), "\"1.00000\"");
  EXPECT_EQ(eval("(format \"%E\" 1.0)"), "\"1.000000E+00\"");
  EXPECT_EQ(eval("(format \"%c%c\" \\A 98)"), "\"Ab\"");
  EXPECT_EQ(eval("(format \"%h\" \"abc\")"), "\"17862\"");
  EXPECT_EQ(eval("(format \"%2$s %1$s\" \"a\" \"b\")"), "\"b a\"");
  EXPECT_EQ(eval("(format \"%2$04d %1$s\" \"x\" 3)"), "\"0003 x\"");
  EXPECT_EQ(eval("(format \"%s %<s\" \"a\")"), "\"a a\"");
  EXPECT_EQ(eval("(format \"%x\" -1)"), "\"ffffffffffffffff\"");
  EXPECT_EQ(eval("(format \"%d\" 123456789012345678901234)"), "\"123456789012345678901234\"");
  EXPECT_EQ(eval("(format \"%x\" -123456789012345678901234)"), "\"-1a249b1f10a06c96aff2\"");
}

TEST(LibFormat, JavaRounding) {
  // Half-up on the shortest decimal digits, as java.util.Formatter does.
  EXPECT_EQ(eval("(format \"%.2f\" 0.125)"), "\"0.13\"");
  EXPECT_EQ(eval("(format \"%.1f\" 0.05)"), "\"0.1\"");
  EXPECT_EQ(eval("(format \"%.0f\" 0.5)"), "\"1\"");
  EXPECT_EQ(eval("(format \"%.2f\" 0.005)"), "\"0.01\"");
  EXPECT_EQ(eval("(format \"%.2f\" 9.999)"), "\"10.00\"");
  EXPECT_EQ(eval("(format \"%.3f\" 1e-10)"), "\"0.000\"");
  EXPECT_EQ(eval("(format \"%f\" 1e20)"), "\"100000000000000000000.000000\"");
  EXPECT_EQ(eval("(format \"%.20f\" 0.1)"), "\"0.10000000000000000000\"");
  EXPECT_EQ(eval("(format \"%e\" 9.9999999)"), "\"1.000000e+01\"");
  EXPECT_EQ(eval("(format \"%.3e\" 0.0)"), "\"0.000e+00\"");
  EXPECT_EQ(eval("(format \"%.1e\" 0.00012)"), "\"1.2e-04\"");
  EXPECT_EQ(eval("(format \"%f\" -0.0)"), "\"-0.000000\"");
}

TEST(LibFormat, Errors) {
  EXPECT_EQ(eval_error("(format \"%d\" ##Inf)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(format \"%d\" 3.5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(format \"%d\" \"3\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(format \"%f\" \"x\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(format \"%c\" \"ab\")").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(format \"%s %s\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"%q\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"%tY\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"100%\")").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"%-d\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"%+s\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"%.2d\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"%+ d\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"%<s\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format \"%3$s\" 1)").kind, ErrorKind::RuntimeError);
  EXPECT_EQ(eval_error("(format 5)").kind, ErrorKind::TypeError);
  EXPECT_EQ(eval_error("(format)").kind, ErrorKind::ArityError);
}

// ---------------------------------------------------------------- limits

TEST(LibStrings, HugeResultsEndInMemoryLimit) {
  EXPECT_EQ(eval_error("(let [s (apply str (repeat 3000 \"x\"))] "
                       "(replace s \"\" (apply str (repeat 5000 \"y\"))))")
                .kind,
            ErrorKind::MemoryLimit);
  EXPECT_EQ(eval_error("(format \"%999999999d\" 1)").kind, ErrorKind::MemoryLimit);
  EXPECT_EQ(eval_error("(format \"%.999999999f\" 1.0)").kind, ErrorKind::MemoryLimit);
  EXPECT_EQ(eval_error("(let [s (apply str (repeat 1000 \"ab\"))] "
                       "(reduce (fn [acc _] (str acc acc)) s (range 40)))")
                .kind,
            ErrorKind::MemoryLimit);
}

}  // namespace

// A regex with no special characters splits without the regex engine: the
// pieces are those of an equivalent regex that does go through it.
TEST(LibStrings, SplitOnALiteralRegexMatchesTheRegexEngine) {
  const char* texts[] = {"a, b,, c", ", a, ", "", ", ", "no delimiter", "é, ü,, ", "a, b, c, , , "};
  for (const char* t : texts) {
    for (const char* limit : {"", " 2", " -1"}) {
      std::string text = std::string("\"") + t + "\"";
      std::string literal = "(clojure.string/split " + text + " #\", \"" + limit + ")";
      std::string engine = "(clojure.string/split " + text + " #\"[,][ ]\"" + limit + ")";
      EXPECT_EQ(eval(literal), eval(engine)) << literal;
    }
  }
  EXPECT_EQ(eval("(clojure.string/split \"a b  c\" #\" \")"), "[\"a\" \"b\" \"\" \"c\"]");
  EXPECT_EQ(eval("(clojure.string/split \"a.b\" #\".\")"), "[]");  // . is special
}
