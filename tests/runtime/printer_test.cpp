#include "runtime/printer.hpp"

#include <gtest/gtest.h>

#include "support/runtime_fixture.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/objects.hpp"
#include "runtime/vector.hpp"

namespace ptc {
namespace {

using testing::F;
using testing::I;
using testing::kInf;
using testing::kMax;
using testing::kMin;

std::string clj(double d) {
  std::string out;
  format_double(out, d, FloatStyle::Clojure);
  return out;
}
std::string disp(double d) {
  std::string out;
  format_double(out, d, FloatStyle::Display);
  return out;
}

class Printer : public testing::RuntimeFixture {
 protected:
  static std::string pr(Value v) { return print_to_string(v); }
  static std::string raw(Value v) {
    PrintOptions o;
    o.readable = false;
    return print_to_string(v, o);
  }
  static std::string s(Value v) {
    std::string out;
    str_append(out, v);
    return out;
  }
};

TEST(FloatFormat, JavaDoubleToString) {
  EXPECT_EQ(clj(1.0), "1.0");
  EXPECT_EQ(clj(100.0), "100.0");
  EXPECT_EQ(clj(0.5), "0.5");
  EXPECT_EQ(clj(0.001), "0.001");
  EXPECT_EQ(clj(0.00123), "0.00123");
  EXPECT_EQ(clj(1.0e-4), "1.0E-4");
  EXPECT_EQ(clj(1.5e-5), "1.5E-5");
  EXPECT_EQ(clj(-1.25e-7), "-1.25E-7");
  EXPECT_EQ(clj(1.0e7), "1.0E7");
  EXPECT_EQ(clj(9999999.0), "9999999.0");
  EXPECT_EQ(clj(9999999.999999998), "9999999.999999998");
  EXPECT_EQ(clj(12345678.0), "1.2345678E7");
  EXPECT_EQ(clj(12345.0), "12345.0");
  EXPECT_EQ(clj(123456.789), "123456.789");
  EXPECT_EQ(clj(1.1 * 3), "3.3000000000000003");
  EXPECT_EQ(clj(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(clj(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(clj(-2.5), "-2.5");
  EXPECT_EQ(clj(0.0), "0.0");
  EXPECT_EQ(clj(-0.0), "-0.0");
  EXPECT_EQ(clj(1e21), "1.0E21");
  EXPECT_EQ(clj(1e23), "1.0E23");
  EXPECT_EQ(clj(1e100), "1.0E100");
  EXPECT_EQ(clj(-1e100), "-1.0E100");
  EXPECT_EQ(clj(9223372036854775808.0), "9.223372036854776E18");
  EXPECT_EQ(clj(std::numeric_limits<double>::max()), "1.7976931348623157E308");
  EXPECT_EQ(clj(std::numeric_limits<double>::min()), "2.2250738585072014E-308");
  // Subnormals with one significant digit still show two, the second being
  // the correctly rounded one (Java: "at least one digit after the point").
  EXPECT_EQ(clj(std::numeric_limits<double>::denorm_min()), "4.9E-324");
  EXPECT_EQ(clj(-std::numeric_limits<double>::denorm_min()), "-4.9E-324");
  EXPECT_EQ(clj(2 * std::numeric_limits<double>::denorm_min()), "9.9E-324");
  EXPECT_EQ(clj(3 * std::numeric_limits<double>::denorm_min()), "1.5E-323");
  EXPECT_EQ(clj(4 * std::numeric_limits<double>::denorm_min()), "2.0E-323");
}

TEST(FloatFormat, RoundTrips) {
  // Whatever the style picks, the Clojure text reads back as the same double.
  std::vector<double> ds = {0.1,
                            1.0 / 3,
                            2.0 / 3,
                            1e-300,
                            123.456e200,
                            5e-324,
                            1.7976931348623157e308,
                            6.02214076e23,
                            299792458.0,
                            0.000123456789};
  for (double d : ds) {
    std::string t = clj(d);
    std::string java_to_c = t;
    size_t e = java_to_c.find('E');
    if (e != std::string::npos) java_to_c[e] = 'e';
    EXPECT_EQ(std::strtod(java_to_c.c_str(), nullptr), d) << t;
    EXPECT_NE(t.find('.'), std::string::npos) << t;
  }
}

TEST(FloatFormat, Display) {
  EXPECT_EQ(disp(10.0 / 3), "3.3333333333");
  EXPECT_EQ(disp(2.0 / 3), "0.6666666667");
  EXPECT_EQ(disp(0.1 + 0.2), "0.3");
  EXPECT_EQ(disp(1.1 * 3), "3.3");
  EXPECT_EQ(disp(5.0), "5.0");
  EXPECT_EQ(disp(-2.5), "-2.5");
  EXPECT_EQ(disp(0.0), "0.0");
  EXPECT_EQ(disp(123.456), "123.456");
  EXPECT_EQ(disp(0.0001), "0.0001");
  EXPECT_EQ(disp(0.00012345678901), "0.0001234568");
  EXPECT_EQ(disp(1e14), "100000000000000.0");
  EXPECT_EQ(disp(0.99999999999), "1.0");
  // Outside 1e-4 .. 1e15 the Clojure style takes over.
  EXPECT_EQ(disp(1e15), "1.0E15");
  EXPECT_EQ(disp(1e-5), "1.0E-5");
  EXPECT_EQ(disp(-1.5e20), "-1.5E20");
  EXPECT_EQ(disp(std::numeric_limits<double>::denorm_min()), "4.9E-324");
}

TEST_F(Printer, Scalars) {
  EXPECT_EQ(pr(Value::nil()), "nil");
  EXPECT_EQ(pr(Value::boolean(true)), "true");
  EXPECT_EQ(pr(Value::boolean(false)), "false");
  EXPECT_EQ(pr(I(0)), "0");
  EXPECT_EQ(pr(I(-42)), "-42");
  EXPECT_EQ(pr(I(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(pr(integer_from_decimal(ctx.arena, "-123456789012345678901234567890")),
            "-123456789012345678901234567890");
  EXPECT_EQ(pr(F(1.0)), "1.0");
  EXPECT_EQ(pr(F(1e7)), "1.0E7");
  EXPECT_EQ(pr(kw("k")), ":k");
  EXPECT_EQ(pr(kw("a-b?")), ":a-b?");
  EXPECT_EQ(pr(Value::object(ctx.interner.symbol("sym"))), "'sym");
}

TEST_F(Printer, SpecialFloats) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(pr(F(inf)), "##Inf");
  EXPECT_EQ(pr(F(-inf)), "##-Inf");
  EXPECT_EQ(pr(F(NAN)), "##NaN");
  EXPECT_EQ(raw(F(inf)), "Infinity");
  EXPECT_EQ(raw(F(-inf)), "-Infinity");
  EXPECT_EQ(raw(F(NAN)), "NaN");
  EXPECT_EQ(display_value(F(inf)), "##Inf");
  EXPECT_EQ(s(F(-inf)), "-Infinity");
  EXPECT_EQ(s(F(NAN)), "NaN");
  EXPECT_EQ(pr(vec({F(NAN), F(inf)})), "[##NaN ##Inf]");
}

TEST_F(Printer, Strings) {
  EXPECT_EQ(pr(str("abc")), "\"abc\"");
  EXPECT_EQ(pr(str("")), "\"\"");
  EXPECT_EQ(pr(str("a\"b\\c\nd\te\rf\bg\fh")), "\"a\\\"b\\\\c\\nd\\te\\rf\\bg\\fh\"");
  EXPECT_EQ(raw(str("a\"b\nc")), "a\"b\nc");
  EXPECT_EQ(pr(str("h\xC3\xA9llo \xF0\x9F\x98\x80")), "\"h\xC3\xA9llo \xF0\x9F\x98\x80\"");
  EXPECT_EQ(pr(vec({str("a b"), str("\n")})), "[\"a b\" \"\\n\"]");
  EXPECT_EQ(raw(vec({str("a b"), kw("k")})), "[a b :k]");
}

TEST_F(Printer, StringLimit) {
  PrintOptions o;
  o.string_limit = 10;
  std::string out;
  EXPECT_TRUE(print_value(out, str("very long string text"), o));
  EXPECT_EQ(out, "\"very long ...\" (10/21 chars)");
  out.clear();
  EXPECT_FALSE(print_value(out, str("0123456789"), o));
  EXPECT_EQ(out, "\"0123456789\"");
  // Counted in graphemes, never cutting one apart; escapes apply to the kept part.
  o.string_limit = 3;
  out.clear();
  print_value(out,
              str("e\xCC\x81"
                  "e\xCC\x81"
                  "e\xCC\x81"
                  "e\xCC\x81"
                  "e\xCC\x81"),
              o);
  EXPECT_EQ(out,
            "\"e\xCC\x81"
            "e\xCC\x81"
            "e\xCC\x81...\" (3/5 chars)");
  out.clear();
  print_value(out, str("\"\b\f\t\n\r\\xyz"), o);
  EXPECT_EQ(out, "\"\\\"\\b\\f...\" (3/10 chars)");
  out.clear();
  print_value(out, vec({str("abcdef"), str("ab")}), o);
  EXPECT_EQ(out, "[\"abc...\" (3/6 chars) \"ab\"]");
}

TEST_F(Printer, Collections) {
  EXPECT_EQ(pr(vec({})), "[]");
  EXPECT_EQ(pr(vec({I(1), I(2)})), "[1 2]");
  EXPECT_EQ(pr(vec({vec({}), vec({I(1), vec({Value::nil()})})})), "[[] [1 [nil]]]");
  EXPECT_EQ(pr(map({})), "{}");
  EXPECT_EQ(pr(map({{kw("a"), I(1)}, {kw("b"), I(2)}})), "{:a 1 :b 2}");
  EXPECT_EQ(pr(map({{kw("b"), I(1)}, {kw("a"), I(2)}})), "{:b 1 :a 2}");
  EXPECT_EQ(pr(map({{str("k"), vec({F(1.5)})}})), "{\"k\" [1.5]}");
  EXPECT_EQ(pr(set({})), "#{}");
  EXPECT_EQ(pr(set({I(3), I(1), I(2)})), "#{3 1 2}");
  EXPECT_EQ(pr(set({kw("x"), str("y")})), "#{:x \"y\"}");
  // Insertion order survives the large form and re-assoc.
  const MapObj* m = empty_map();
  std::string expect = "{";
  for (int i = 20; i > 0; --i) {
    m = map_assoc(ctx.arena, m, I(i), I(i * i));
    expect += (i == 20 ? "" : " ") + std::to_string(i) + " " + std::to_string(i * i);
  }
  expect += "}";
  EXPECT_EQ(pr(Value::object(m)), expect);
  m = map_assoc(ctx.arena, m, I(20), I(400));
  EXPECT_EQ(pr(Value::object(m)), expect);
}

TEST_F(Printer, DisplayUsesCompactFloats) {
  Value v = vec({F(10.0 / 3), F(0.1 + 0.2), map({{kw("x"), F(5.0)}})});
  EXPECT_EQ(display_value(v), "[3.3333333333 0.3 {:x 5.0}]");
  EXPECT_EQ(pr(v), "[3.3333333333333335 0.30000000000000004 {:x 5.0}]");
}

TEST_F(Printer, Limit) {
  PrintOptions o;
  o.limit = 2;
  std::string out;
  EXPECT_TRUE(print_value(out, vec({I(1), I(2), I(3)}), o));
  EXPECT_EQ(out, "[1 2 ...] (2/3)");
  out.clear();
  EXPECT_FALSE(print_value(out, vec({I(1), I(2)}), o));
  EXPECT_EQ(out, "[1 2]");
  out.clear();
  EXPECT_TRUE(print_value(out, set({I(1), I(2), I(3)}), o));
  EXPECT_EQ(out, "#{1 2 ...} (2/3)");
  o.limit = 1;
  out.clear();
  EXPECT_TRUE(print_value(out, map({{kw("a"), I(1)}, {kw("b"), I(2)}}), o));
  EXPECT_EQ(out, "{:a 1 ...} (1/2)");
  out.clear();
  EXPECT_FALSE(print_value(out, map({{kw("a"), I(1)}}), o));
  EXPECT_EQ(out, "{:a 1}");
  out.clear();
  EXPECT_FALSE(print_value(out, vec({}), o));
  EXPECT_EQ(out, "[]");
  // display_value reports truncation.
  bool truncated = false;
  EXPECT_EQ(display_value(vec({I(1), I(2), I(3)}), 2, &truncated), "[1 2 ...] (2/3)");
  EXPECT_TRUE(truncated);
  EXPECT_EQ(display_value(vec({I(1)}), 2, &truncated), "[1]");
  EXPECT_FALSE(truncated);
  // A large vector: only the first items are printed.
  VecBuilder b(ctx.arena);
  for (int i = 0; i < 100000; ++i)
    b.push(I(i));
  EXPECT_EQ(display_value(vec_value(b.finish()), 3), "[0 1 2 ...] (3/100000)");
}

TEST_F(Printer, StrAppend) {
  EXPECT_EQ(s(Value::nil()), "");
  EXPECT_EQ(s(str("a \"b\"\n")), "a \"b\"\n");
  EXPECT_EQ(s(kw("k")), ":k");
  EXPECT_EQ(s(I(-3)), "-3");
  EXPECT_EQ(s(F(1.5)), "1.5");
  EXPECT_EQ(s(F(1e7)), "1.0E7");
  EXPECT_EQ(s(F(1.1 * 3)), "3.3000000000000003");
  EXPECT_EQ(s(Value::boolean(false)), "false");
  EXPECT_EQ(s(vec({str("a"), Value::nil()})), "[\"a\" nil]");
  EXPECT_EQ(s(map({{str("a"), I(1)}})), "{\"a\" 1}");
  EXPECT_EQ(s(set({str("x")})), "#{\"x\"}");
  std::string out = "pre:";
  str_append(out, I(1));
  str_append(out, Value::nil());
  str_append(out, str("x"));
  EXPECT_EQ(out, "pre:1x");
}

TEST_F(Printer, Functions) {
  static const FnHeader fn{"add", "x y"};
  auto* c = ctx.arena.make<ClosureObj>();
  c->type = Type::Closure;
  c->fn = &fn;
  EXPECT_EQ(pr(Value::object(c)), "#fn[x y]");
  EXPECT_EQ(pr(Value::builtin(7)), "#<builtin>");
  auto* var = ctx.arena.make<VarObj>();
  var->type = Type::Var;
  var->name = ctx.interner.symbol("total");
  EXPECT_EQ(pr(Value::object(var)), "#'total");
}

TEST_F(Printer, Preview) {
  EXPECT_EQ(preview(str("abc")), "\"abc\"");
  std::string longtext(200, 'x');
  std::string p = preview(str(longtext), 20);
  EXPECT_EQ(p, "\"" + std::string(20, 'x') + "...\" (20/200 chars)");
  VecBuilder b(ctx.arena);
  for (int i = 0; i < 50; ++i)
    b.push(I(i));
  EXPECT_EQ(preview(vec_value(b.finish())), "[0 1 2 3 4 ...] (5/50)");
}

}  // namespace
}  // namespace ptc
