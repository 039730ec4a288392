#include "spec/self_test.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "spec/clojure_data.hpp"
#include "spec/compare.hpp"
#include "spec/expected_list.hpp"
#include "spec/lang_tests.hpp"

namespace spec {

namespace {

using Kind = Datum::Kind;
using H = ptc::HostValue;

struct Checker {
  int checks = 0;
  int failures = 0;

  void check(bool ok, std::string_view what) {
    ++checks;
    if (ok) return;
    ++failures;
    fmt::print("self-test FAILED: {}\n", what);
  }

  Datum read(std::string_view text) {
    std::string err;
    auto d = parse_clojure(text, &err);
    check(d.has_value(), fmt::format("parses: {} ({})", text, err));
    return d ? *d : Datum::make(Kind::Opaque, "<unparsed>");
  }

  static std::string describe(std::optional<Level> l) {
    return l ? std::string(level_name(*l)) : std::string("none");
  }

  // The first level at which `a` and `b` (both Clojure text) match.
  void level(std::string_view a, std::string_view b, std::optional<Level> want,
             bool unordered = false) {
    Datum x = read(a), y = read(b);
    auto got = first_match(x, y, unordered);
    check(got == want, fmt::format("{} vs {}{}: want {}, got {}", a, b,
                                   unordered ? " (unordered)" : "", describe(want), describe(got)));
    auto back = first_match(y, x, unordered);  // the relation is symmetric
    check(back == want, fmt::format("{} vs {} (reversed): want {}, got {}", b, a, describe(want),
                                    describe(back)));
  }

  void host_level(std::string_view expected, const H& actual, std::optional<Level> want) {
    auto got = first_match(read(expected), from_host(actual), false);
    check(got == want, fmt::format("{} vs host value {}: want {}, got {}", expected,
                                   to_string(from_host(actual)), describe(want), describe(got)));
  }

  void rejects(std::string_view text) {
    check(!parse_clojure(text).has_value(), fmt::format("rejects: {}", text));
  }

  void reads_as(std::string_view text, Kind kind, std::string_view content) {
    Datum d = read(text);
    check(d.kind == kind && d.text == content,
          fmt::format("{} reads as kind {} text '{}', got kind {} text '{}'", text,
                      static_cast<int>(kind), content, static_cast<int>(d.kind), d.text));
  }
};

constexpr auto Exact = Level::Exact;
constexpr auto Strict = Level::Strict;
constexpr auto Numeric = Level::Numeric;
constexpr auto Upstream = Level::Upstream;
constexpr std::optional<Level> None = std::nullopt;

void parser_checks(Checker& t) {
  t.reads_as("42", Kind::Int, "42");
  t.reads_as("-007", Kind::Int, "-7");
  t.reads_as("-0", Kind::Int, "0");
  t.reads_as("+5", Kind::Int, "5");
  t.reads_as("12345678901234567890N", Kind::Int, "12345678901234567890");
  t.reads_as("10/3", Kind::Ratio, "10/3");
  t.reads_as("-6/4", Kind::Ratio, "-3/2");
  t.reads_as("4/2", Kind::Int, "2");
  t.reads_as("\"a\\\"b\\n\\u00e9\"", Kind::String, "a\"b\n\xC3\xA9");
  t.reads_as("\\a", Kind::Char, "a");
  t.reads_as("\\newline", Kind::Char, "\n");
  t.reads_as("\\space", Kind::Char, " ");
  t.reads_as("\\tab", Kind::Char, "\t");
  t.reads_as("\\return", Kind::Char, "\r");
  t.reads_as("\\u0041", Kind::Char, "A");
  t.reads_as("\\u", Kind::Char, "u");
  t.reads_as("\\λ", Kind::Char, "λ");
  t.reads_as("\\(", Kind::Char, "(");
  t.reads_as(":a/b", Kind::Keyword, "a/b");
  t.reads_as("foo", Kind::Symbol, "foo");
  t.reads_as("#'user/x", Kind::Var, "x");
  t.reads_as("#'x", Kind::Var, "x");
  t.reads_as("#\"a\\d+\\\"\"", Kind::Regex, "a\\d+\"");
  t.reads_as("#object[clojure.core$inc 0x5e \"clojure.core$inc@5e\"]", Kind::Fn, "");
  t.reads_as("#function[clojure.core/inc]", Kind::Fn, "");
  t.reads_as("#<Fn@1f user/f>", Kind::Fn, "");
  t.reads_as("#fn[x y]", Kind::Fn, "");
  t.reads_as("#<builtin>", Kind::Fn, "");

  Datum nan = t.read("##NaN");
  t.check(nan.kind == Kind::Float && std::isnan(nan.number), "##NaN is a NaN float");
  Datum inf = t.read("##-Inf");
  t.check(inf.kind == Kind::Float && std::isinf(inf.number) && inf.number < 0, "##-Inf");
  Datum e = t.read("1.23E-4");
  t.check(e.kind == Kind::Float && e.number == 1.23e-4, "1.23E-4");
  Datum m = t.read("{:a 1, :b [1 2] :c #{}}");
  t.check(m.kind == Kind::Map && m.entries() == 3, "commas are whitespace in maps");
  Datum l = t.read("(1 (2) [3])");
  t.check(l.kind == Kind::Seq && l.items.size() == 3 && l.items[1].kind == Kind::Seq,
          "nested lists");
  Datum d = t.read("nil");
  t.check(d.kind == Kind::Nil, "nil");
  Datum b = t.read(" false ");
  t.check(b.kind == Kind::Bool && !b.boolean, "false with spaces");

  t.rejects("");
  t.rejects("3.333...");
  t.rejects("1 2");
  t.rejects("[1 2");
  t.rejects("{:a}");
  t.rejects("(1))");
  t.rejects("\"open");
  t.rejects("\\bogus");
  t.rejects("#inst \"2020\"");
  t.rejects("'x");
  t.rejects("12abc");
}

void comparer_checks(Checker& t) {
  // Numbers.
  t.level("1.0E10", "1e10", Exact);
  t.level("1.0E10", "10000000000.0", Exact);
  t.level("5.0", "5", Numeric);
  t.level("[1 2]", "[1.0 2.0]", Numeric);
  t.level("5.5", "5", None);
  t.level("12345678901234567890N", "12345678901234567890", Exact);
  t.level("12345678901234567890", "12345678901234567891", None);
  // 12345678901234567890 is not a double: the nearest is ...7168.
  t.level("12345678901234567890", "1.2345678901234567E19", None);
  t.level("9007199254740992", "9.007199254740992E15", Numeric);
  t.level("10/3", "3.3333333333333335", Numeric);
  t.level("10/3", "3.3333333333", None);  // a display-rounded float is too far
  t.level("1/3", "1/3", Exact);
  t.level("1/2", "1", None);
  t.level("##NaN", "##NaN", Exact);
  t.level("[##NaN]", "(##NaN)", Exact);
  t.level("##Inf", "##Inf", Exact);
  t.level("##Inf", "##-Inf", None);
  t.level("-0.0", "0.0", Exact);
  t.level("1", "\"1\"", None);
  // Characters are strings.
  t.level("\\a", "\"a\"", Strict);
  t.level("(\\a \\b \\c)", "[\"a\" \"b\" \"c\"]", Strict);
  t.level("{\\h 1, \\e 1}", "{\"e\" 1 \"h\" 1}", Strict);
  t.level("\\newline", "\"\\n\"", Strict);
  t.level("\\a", "\"ab\"", None);
  // Sequences, sets, maps.
  t.level("(1 2 3)", "[1 2 3]", Exact);
  t.level("()", "[]", Exact);
  t.level("[1 2 3]", "[3 2 1]", None);
  t.level("#{1 2 3}", "#{3 1 2}", Exact);
  t.level("#{1 2}", "[1 2]", None);
  t.level("#{}", "[]", None);
  t.level("#{[:a 1]}", "#{(:a 1)}", Exact);
  t.level("{:a 1, :b {:c #{1 2}}}", "{:b {:c #{2 1}} :a 1}", Exact);
  t.level("{:a 1}", "{:a 1 :b 2}", None);
  t.level("{:a 1}", "{:a 2}", None);
  t.level("{}", "nil", None);
  t.level("[]", "nil", None);
  t.level("nil", "false", None);
  t.level("[1 [2 3]]", "[1 [2 3 4]]", None);
  // Unordered top-level sequences are multisets.
  t.level("[1 2 3]", "[3 1 2]", Exact, true);
  t.level("[\":a=1\" \":b=2\"]", "[\":b=2\" \":a=1\"]", Exact, true);
  t.level("[1 1 2]", "[1 2 2]", None, true);
  t.level("[1 2]", "[1 2 3]", None, true);
  t.level("[[1 2] [3 4]]", "[[3 4] [2 1]]", None, true);  // only the top level is unordered
  // Upstream leniencies.
  t.level(":a", "\"a\"", Upstream);
  t.level("{:a 1}", "{\"a\" 1}", Upstream);
  t.level("{1 :x}", "{\"1\" :x}", Upstream);
  t.level("[1]", "[\"1\"]", None);  // number == string only as a map key
  t.level(":a", ":b", None);
  // Vars, functions, regexes.
  t.level("#'user/x", "#'x", Exact);
  t.level("#'user/x", "#'y", None);
  t.level("#object[clojure.core$inc 0x5e \"clojure.core$inc@5e\"]", "#fn[x]", Exact);
  t.level("#function[clojure.core/inc]", "#<builtin>", Exact);
  t.level("#object[x]", "nil", None);
  t.level("#\"a+\"", "#\"a+\"", Exact);
  t.level("#\"a+\"", "#\"b\"", None);
}

void host_checks(Checker& t) {
  t.host_level("[1 2.5 \"s\" :k nil true]",
               H::vector({H::integer(1), H::floating(2.5), H::string("s"), H::keyword("k"),
                          H::nil(), H::boolean(true)}),
               Exact);
  t.host_level("12345678901234567890N", H::bigint("12345678901234567890"), Exact);
  t.host_level("(\\a \\b)", H::vector({H::string("a"), H::string("b")}), Strict);
  t.host_level("{:a #{1 2}}", H::map({{H::keyword("a"), H::set({H::integer(2), H::integer(1)})}}),
               Exact);
  t.host_level("#object[f]", H::opaque("#fn[x]"), Exact);
  t.host_level("#object[f]", H::opaque("#<builtin>"), Exact);
  t.host_level("#'user/x", H::opaque("#'x"), Exact);
  t.host_level("#\"\\d+\"", H::opaque("#\"\\d+\""), Exact);
  t.host_level("5", H::floating(5.0), Numeric);
  t.host_level("##NaN", H::floating(std::nan("")), Exact);
  t.host_level("[1 2]", H::set({H::integer(1), H::integer(2)}), None);
  t.host_level("#object[f]", H::opaque("#'x"), None);

  // Context values go the other way.
  H h = to_host(t.read("{\"work-turns\" 10 \"tokens\" {\"cache-read\" 2000} :r 1/2}"));
  t.check(h.kind() == H::Kind::Map && h.get("work-turns") && h.get("work-turns")->as_int() == 10,
          "to_host keeps string keys and integers");
  t.check(h.get("r") && h.get("r")->kind() == H::Kind::Float && h.get("r")->as_float() == 0.5,
          "to_host turns ratios into floats");
  H big = to_host(t.read("99999999999999999999"));
  t.check(big.kind() == H::Kind::BigInt && big.text() == "99999999999999999999",
          "to_host keeps big integers");
}

void expected_list_checks(Checker& t) {
  ExpectedList l = parse_expected_list(
      "# header\n\nspec-1-1  # needs foo (an undefined name)\nclj-2\n  ptc-3 #  spaced  \n"
      "spec-1-1  # again\nbad id here\n");
  t.check(l.entries.size() == 3, "three entries");
  t.check(l.find("spec-1-1") && l.find("spec-1-1")->reason == "needs foo (an undefined name)",
          "reason after #");
  t.check(l.find("clj-2") && l.find("clj-2")->reason.empty(), "reason is optional");
  t.check(l.find("ptc-3") && l.find("ptc-3")->reason == "spaced", "whitespace trimmed");
  t.check(l.problems.size() == 2, "duplicate and malformed lines are problems");
  t.check(!l.find("header"), "comments are not ids");

  ptc::Error undefined;
  undefined.kind = ptc::ErrorKind::UnboundVar;
  undefined.message = "undefined symbol frequencies";
  t.check(missing_name(undefined) == "frequencies", "missing name from undefined symbol");
  t.check(reason_for_error(undefined) == "needs frequencies (an undefined name)", "needs reason");
  ptc::Error unavailable = undefined;
  unavailable.message = "clojure.string/join is not available in PTC-Lisp";
  t.check(missing_name(unavailable) == "clojure.string/join", "missing name, qualified");
  ptc::Error unknown_ns = undefined;
  unknown_ns.message = "unknown namespace json in json/parse-lines";
  t.check(missing_name(unknown_ns) == "json/parse-lines", "missing name, unknown namespace");
  ptc::Error before = undefined;
  before.message = "f is used before it is defined";
  t.check(!missing_name(before), "no missing name for use before definition");
  ptc::Error type;
  type.kind = ptc::ErrorKind::TypeError;
  type.message = std::string(100, 'x');
  t.check(!missing_name(type), "no missing name for a type error");
  t.check(reason_for_error(type) == "type_error: " + std::string(80, 'x') + "...",
          "other errors: reason and 80 characters");
  t.check(
      reason_for_value(std::string(70, 'v')) == "wrong value: got " + std::string(60, 'v') + "...",
      "wrong value truncated to 60");
  t.check(one_line("a\nb", 10) == "a b", "one_line joins lines");
  t.check(one_line("λλλ", 2) == "λλ...", "one_line counts code points");
  t.check(is_generated_reason("needs x (an undefined name)"), "needs is generated");
  t.check(is_generated_reason("type_error: boom"), "reason name prefix is generated");
  t.check(is_generated_reason("wrong value: got 1"), "wrong value is generated");
  t.check(!is_generated_reason("PTC prints floats differently: see issue 7"),
          "prose is hand-written");
}

// One program with its directives, as a tests/lang file holds it: it must
// read cleanly and pass or fail as `passes` says.
void lang_case(Checker& t, std::string_view text, bool passes) {
  std::vector<std::string> problems;
  auto cases = parse_lang_file(text, "self-test.clj", problems);
  t.check(problems.empty() && cases.size() == 1,
          fmt::format("reads as one case: {} ({} cases, {})", text, cases.size(),
                      problems.empty() ? "" : problems[0]));
  if (cases.size() != 1) return;
  bool passed = !check_lang_case(cases[0]).has_value();
  t.check(passed == passes, fmt::format("{} {}", text, passes ? "passes" : "fails"));
}

void lang_rejects(Checker& t, std::string_view text) {
  std::vector<std::string> problems;
  parse_lang_file(text, "self-test.clj", problems);
  t.check(!problems.empty(), fmt::format("rejected: {}", text));
}

void lang_checks(Checker& t) {
  // Every kind of expectation passes when right and fails when wrong.
  lang_case(t, "(+ 1 2) ; expect: 3", true);
  lang_case(t, "(+ 1 2) ; expect: 4", false);
  lang_case(t, "(+ 1 2) ; expect: 3.0", false);
  lang_case(t, "(/ 6 2) ; expect: 3", false);
  lang_case(t, "{:a 1 :b [2]} ; expect: {:b (2) :a 1}", true);
  lang_case(t, "{:a 1 :b 2} ; expect-printed: {:b 2 :a 1}", false);
  lang_case(t, "{:a 1 :b 2} ; expect-printed: {:a 1 :b 2}", true);
  lang_case(t, "(+ 0.1 0.2) ; expect-printed: 0.3", true);
  lang_case(t, "(fn [x] x) ; expect: #fn[x]", true);
  lang_case(t, "(fn [x] x) ; expect: #fn[y]", false);
  lang_case(t, "(def x 1) ; expect: #'x", true);
  lang_case(t, "(inc \"a\") ; expect-error: type_error at 1:1: expected a number", true);
  lang_case(t, "(inc \"a\") ; expect-error: arity_error", false);
  lang_case(t, "(inc \"a\") ; expect-error: type_error at 1:2", false);
  lang_case(t, "(inc \"a\") ; expect-error: type_error: no such words", false);
  lang_case(t, "(inc 1) ; expect-error: type_error", false);
  lang_case(t, "(inc \"a\") ; expect: 2", false);
  lang_case(t, "(fliter odd? [1]) ; expect-error: unbound_var\n; expect-hint: filter", true);
  lang_case(t, "(fliter odd? [1]) ; expect-error: unbound_var\n; expect-hint: remove", false);
  lang_case(t, "(fliter odd? [1]) ; expect-error: unbound_var\n; expect-no-hint: filter", false);
  lang_case(t, "(println \"a\") 1 ; expect: 1\n; expect-output: [\"a\"]", true);
  lang_case(t, "(println \"a\") 1 ; expect: 1\n; expect-output: [\"b\"]", false);
  lang_case(t, "(println \"a\") 1 ; expect: 1\n; expect-output: []", false);
  // Reading: ; in strings and characters, programs over several lines,
  // notes above a program, locations counted from its first line.
  lang_case(t, "(str \";\" \\;) ; expect: \";;\"", true);
  lang_case(t, "(count \"a\n;b\") ; expect: 4", true);
  lang_case(t, ";; a note\n\n(let [x \"a\"]\n  (* 2 x)) ; expect-error: type_error at 2:3", true);
  lang_case(t, ";; the empty program\n; expect: nil", true);
  lang_case(t, "(+ 1 2) ; expect: 3\n; no-gc-stress: why", true);
  std::vector<std::string> problems;
  auto two = parse_lang_file("1 ; expect: 1\n\n;; note\n(+ 1\n 1) ; expect: 2\n", "f", problems);
  t.check(problems.empty() && two.size() == 2 && two[0].line == 1 && two[1].line == 4 &&
              two[1].program == "(+ 1\n 1)",
          "two cases: lines and program text");
  // What must not pass as a comment: a misspelt directive turns no test off.
  lang_rejects(t, "1 ; expect-eror: x");
  lang_rejects(t, "1 ;; expect: 1");
  lang_rejects(t, "1 ;expect: 1");
  lang_rejects(t, "(+ 1 2)");
  lang_rejects(t, "1 ; expect: 1\n; expect: 1");
  lang_rejects(t, "1 ; expect:");
  lang_rejects(t, "1 ; expect-hint: x");
  lang_rejects(t, "1 ; expect-error: no_such_reason");
  lang_rejects(t, "1 ; expect-error: type_error at 1");
  lang_rejects(t, "1 ; expect: 1\n; expect-output: [1]");
  lang_rejects(t, "(str \"a) ; expect: 1");
}

}  // namespace

int run_self_test() {
  Checker t;
  parser_checks(t);
  comparer_checks(t);
  host_checks(t);
  expected_list_checks(t);
  lang_checks(t);
  fmt::print("self-test: {} checks, {} failed\n", t.checks, t.failures);
  return t.failures == 0 ? 0 : 1;
}

}  // namespace spec
