// Numbers, comparison, predicates, output and describe, end to end.
#include <gtest/gtest.h>

#include <string>

#include "support/run_helpers.hpp"

using ptc::testing::eval;
using ptc::testing::eval_error;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// ---------------------------------------------------------------------------
// Arithmetic

TEST(LibNumbers, VariadicArithmetic) {
  EXPECT_EQ(eval("(+)"), "0");
  EXPECT_EQ(eval("(*)"), "1");
  EXPECT_EQ(eval("(+ 1 2 3 4)"), "10");
  EXPECT_EQ(eval("(- 10 3 2)"), "5");
  EXPECT_EQ(eval("(- 5)"), "-5");
  EXPECT_EQ(eval("(* 2 3 4)"), "24");
  EXPECT_EQ(eval("(/ 10 2)"), "5.0");
  EXPECT_EQ(eval("(/ 4)"), "0.25");
  EXPECT_EQ(eval("(/ 100 2 5)"), "10.0");
  EXPECT_EQ(eval("(+ 1 2.5)"), "3.5");
  // The primed aliases and higher-order use go through the builtins.
  EXPECT_EQ(eval("(+' 9223372036854775807 1)"), "9223372036854775808");
  EXPECT_EQ(eval("(*' 2 3)"), "6");
  EXPECT_EQ(eval("(-' 1)"), "-1");
  EXPECT_EQ(eval("(reduce + [1 2 3])"), "6");
  EXPECT_EQ(eval("(apply * [9223372036854775807 2])"), "18446744073709551614");
  EXPECT_EQ(eval("(map inc' [1 2])"), "[2 3]");
  EXPECT_EQ(eval("(map dec [1 2])"), "[0 1]");
}

TEST(LibNumbers, ArithmeticSpecialValues) {
  EXPECT_EQ(eval("(/ 1.0 0.0)"), "##Inf");
  EXPECT_EQ(eval("(/ -1 0.0)"), "##-Inf");
  EXPECT_EQ(eval("(/ 0.0 0.0)"), "##NaN");
  EXPECT_EQ(eval("(+ Double/POSITIVE_INFINITY 1)"), "##Inf");
  EXPECT_EQ(eval("(* Double/NaN 10)"), "##NaN");
  EXPECT_EQ(eval("(- ##Inf ##Inf)"), "##NaN");
}

TEST(LibNumbers, ArithmeticErrors) {
  EXPECT_TRUE(starts_with(eval("(apply + [1 nil])"), "ERROR type_error: +: expected a number"));
  EXPECT_TRUE(starts_with(eval("(apply / [1 0])"), "ERROR arithmetic_error: /: division by zero"));
  EXPECT_TRUE(starts_with(eval("(map inc [\"a\"])"), "ERROR type_error: inc: expected a number"));
  EXPECT_TRUE(starts_with(eval("(map dec [nil])"), "ERROR type_error: dec: expected a number"));
  // Unary forms check their argument too (GAP-S104).
  for (const char* src : {"(+ [1 2])", "(+ :a)", "(* \"a\")", "(/ :a)", "(- \"a\")"})
    EXPECT_EQ(eval_error(src).kind, ptc::ErrorKind::TypeError) << src;
  EXPECT_EQ(eval_error("(-)").kind, ptc::ErrorKind::ArityError);  // GAP-S28
  EXPECT_EQ(eval_error("(apply / [])").kind, ptc::ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(inc 1 2)").kind, ptc::ErrorKind::ArityError);
}

TEST(LibNumbers, QuotRemMod) {
  EXPECT_EQ(eval("(quot 10 3)"), "3");
  EXPECT_EQ(eval("(quot -7 2)"), "-3");
  EXPECT_EQ(eval("(rem -10 3)"), "-1");
  EXPECT_EQ(eval("(rem 10 -3)"), "1");
  EXPECT_EQ(eval("(mod -10 3)"), "2");
  EXPECT_EQ(eval("(mod 10 -3)"), "-2");
  EXPECT_EQ(eval("(mod -1 5)"), "4");
  // Floats give floats, as in Clojure.
  EXPECT_EQ(eval("(quot 7.5 2)"), "3.0");
  EXPECT_EQ(eval("(rem 5.5 2)"), "1.5");
  EXPECT_EQ(eval("(mod -7.5 2)"), "0.5");
  // Bignums.
  EXPECT_EQ(eval("(quot 100000000000000000000 3)"), "33333333333333333333");
  EXPECT_EQ(eval("(mod -100000000000000000000 7)"), "5");
  // An infinite divisor is fine: the quotient truncates to zero (GAP-S138).
  EXPECT_EQ(eval("(quot 2 ##Inf)"), "0.0");
  EXPECT_EQ(eval("(rem 2 ##Inf)"), "##NaN");
  // NaN or an infinite dividend has no integer quotient (GAP-S138).
  for (const char* src :
       {"(quot ##NaN 2)", "(rem ##NaN 2)", "(mod ##NaN 2)", "(quot 2 ##NaN)", "(rem 2 ##NaN)",
        "(mod 2 ##NaN)", "(quot ##Inf 2)", "(rem ##-Inf 2)", "(mod ##Inf 2)"})
    EXPECT_EQ(eval_error(src).kind, ptc::ErrorKind::ArithmeticError) << src;
  EXPECT_EQ(eval_error("(quot 1 0)").kind, ptc::ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(mod 1.0 0.0)").kind, ptc::ErrorKind::ArithmeticError);
  EXPECT_TRUE(starts_with(eval("(rem \"7\" 2)"), "ERROR type_error: rem: expected a number"));
  EXPECT_TRUE(starts_with(eval("(mod 7 nil)"), "ERROR type_error: mod: expected a number"));
  EXPECT_EQ(eval_error("(quot 1)").kind, ptc::ErrorKind::ArityError);
}

TEST(LibNumbers, AbsMaxMin) {
  EXPECT_EQ(eval("(abs -5)"), "5");
  EXPECT_EQ(eval("(abs -2.5)"), "2.5");
  EXPECT_EQ(eval("(abs ##-Inf)"), "##Inf");
  EXPECT_EQ(eval("(abs -9223372036854775808)"), "9223372036854775808");  // DIV-45
  EXPECT_EQ(eval("(Math/abs -100000000000000000000)"), "100000000000000000000");
  EXPECT_TRUE(starts_with(eval("(abs nil)"), "ERROR type_error: abs: expected a number"));
  EXPECT_EQ(eval("(max 1 5 3)"), "5");
  EXPECT_EQ(eval("(min 1 5 3)"), "1");
  EXPECT_EQ(eval("(max 42)"), "42");
  EXPECT_EQ(eval("(Math/min 3 2 1)"), "1");  // DIV-44: variadic
  // DIV-45: mixed numbers by value, anything else by the total order.
  EXPECT_EQ(eval("(Math/max 1 2.0)"), "2.0");
  EXPECT_EQ(eval("(Math/min 1 2.0)"), "1");
  EXPECT_EQ(eval("(Math/min nil 1)"), "1");
  EXPECT_EQ(eval("(Math/max \"a\" 1)"), "\"a\"");
  EXPECT_EQ(eval("(max \"apple\" \"pear\" \"fig\")"), "\"pear\"");
  EXPECT_EQ(eval("(apply max [3 100000000000000000000 2.5])"), "100000000000000000000");
  EXPECT_EQ(eval("(max 1 ##NaN 3)"), "##NaN");
  EXPECT_EQ(eval("(min ##NaN 1)"), "##NaN");
  EXPECT_EQ(eval("(max ##-Inf -5)"), "-5");
  EXPECT_EQ(eval_error("(max)").kind, ptc::ErrorKind::ArityError);
}

// ---------------------------------------------------------------------------
// Rounding, roots, powers, coercions

TEST(LibNumbers, RoundingReturnsIntegers) {
  EXPECT_EQ(eval("(floor 3.7)"), "3");
  EXPECT_EQ(eval("(floor -3.2)"), "-4");
  EXPECT_EQ(eval("(ceil 3.2)"), "4");
  EXPECT_EQ(eval("(ceil -3.7)"), "-3");
  EXPECT_EQ(eval("(round 3.5)"), "4");
  EXPECT_EQ(eval("(round -2.5)"), "-3");  // halves away from zero (DIV-43)
  EXPECT_EQ(eval("(Math/round -1.5)"), "-2");
  EXPECT_EQ(eval("(round 2.4)"), "2");
  EXPECT_EQ(eval("(trunc -3.7)"), "-3");
  EXPECT_EQ(eval("(trunc 3.7)"), "3");
  EXPECT_EQ(eval("(str (Math/ceil 1.2))"), "\"2\"");  // DIV-42
  EXPECT_EQ(eval("(str (Math/floor -1.2))"), "\"-2\"");
  EXPECT_EQ(eval("(floor 7)"), "7");
  EXPECT_EQ(eval("(round 100000000000000000000)"), "100000000000000000000");
  EXPECT_EQ(eval("(floor 1e20)"), "100000000000000000000");
  EXPECT_EQ(eval("(integer? (floor 2.0))"), "true");
  // Special values pass through (DIV-43).
  EXPECT_EQ(eval("(round ##NaN)"), "##NaN");
  EXPECT_EQ(eval("(floor ##Inf)"), "##Inf");
  EXPECT_EQ(eval("(Math/round ##-Inf)"), "##-Inf");
  EXPECT_TRUE(starts_with(eval("(floor \"3.5\")"), "ERROR type_error: floor: expected a number"));
  EXPECT_TRUE(starts_with(eval("(round nil)"), "ERROR type_error: round"));
}

TEST(LibNumbers, SqrtAndPow) {
  EXPECT_EQ(eval("(sqrt 16)"), "4.0");
  EXPECT_EQ(eval("(sqrt 2.25)"), "1.5");
  EXPECT_EQ(eval("(sqrt -1)"), "##NaN");
  EXPECT_EQ(eval("(sqrt ##Inf)"), "##Inf");
  EXPECT_EQ(eval("(pow 2 10)"), "1024.0");
  EXPECT_EQ(eval("(pow 2 -1)"), "0.5");
  EXPECT_EQ(eval("(Math/pow 9 0.5)"), "3.0");
  // java.lang.Math.pow's special cases (GAP-J13).
  EXPECT_EQ(eval("(Math/pow -1 0.5)"), "##NaN");
  EXPECT_EQ(eval("(Math/pow 0 -1)"), "##Inf");
  EXPECT_EQ(eval("(Math/pow 1 ##NaN)"), "##NaN");
  EXPECT_EQ(eval("(Math/pow 1 ##Inf)"), "##NaN");
  EXPECT_EQ(eval("(Math/pow -1 ##-Inf)"), "##NaN");
  EXPECT_EQ(eval("(Math/pow -0.0 -3)"), "##-Inf");
  EXPECT_EQ(eval("(pow ##NaN 0)"), "1.0");
  EXPECT_EQ(eval("(pow 10 400)"), "##Inf");
  EXPECT_TRUE(starts_with(eval("(pow \"2\" 2)"), "ERROR type_error: pow: expected a number"));
  EXPECT_EQ(eval_error("(pow 2)").kind, ptc::ErrorKind::ArityError);
}

TEST(LibNumbers, DoubleFloatInt) {
  EXPECT_EQ(eval("(double 5)"), "5.0");
  EXPECT_EQ(eval("(float 1)"), "1.0");
  EXPECT_EQ(eval("(float? (double 100000000000000000000))"), "true");
  EXPECT_EQ(eval("(float ##Inf)"), "##Inf");  // GAP-S122: kept by design
  EXPECT_TRUE(starts_with(eval("(double \"1\")"), "ERROR type_error: double: expected a number"));
  EXPECT_EQ(eval("(int 3.7)"), "3");
  EXPECT_EQ(eval("(int -3.7)"), "-3");
  EXPECT_EQ(eval("(int 42)"), "42");
  EXPECT_EQ(eval("(int ##NaN)"), "0");  // GAP-S62
  EXPECT_EQ(eval("(int \\A)"), "65");   // GAP-S121
  EXPECT_EQ(eval("(int \\newline)"), "10");
  EXPECT_EQ(eval("(int \"é\")"), "233");
  EXPECT_EQ(eval("(int 2147483647)"), "2147483647");
  EXPECT_EQ(eval("(int -2147483648.5)"), "-2147483648");
  // Infinity and values past 32 bits are arithmetic errors (GAP-S111).
  EXPECT_EQ(eval_error("(int Double/POSITIVE_INFINITY)").kind, ptc::ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(int 2147483648)").kind, ptc::ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(int -2147483649)").kind, ptc::ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(int 1e10)").kind, ptc::ErrorKind::ArithmeticError);
  EXPECT_EQ(eval_error("(int 100000000000000000000)").kind, ptc::ErrorKind::ArithmeticError);
  EXPECT_TRUE(starts_with(eval("(int \"12\")"), "ERROR type_error: int: expected a number"));
  EXPECT_TRUE(starts_with(eval("(int nil)"), "ERROR type_error: int"));
}

TEST(LibNumbers, MathInterop) {
  EXPECT_EQ(eval("(Math/log Math/E)"), "1.0");
  EXPECT_EQ(eval("(Math/log 0)"), "##-Inf");
  EXPECT_EQ(eval("(Math/log -1)"), "##NaN");
  EXPECT_EQ(eval("(Math/log10 1000)"), "3.0");
  EXPECT_EQ(eval("(Math/exp 0)"), "1.0");
  EXPECT_EQ(eval("(Math/sin 0)"), "0.0");
  EXPECT_EQ(eval("(Math/cos 0)"), "1.0");
  EXPECT_EQ(eval("(Math/tan 0)"), "0.0");
  EXPECT_EQ(eval("(Math/asin 1)"), eval("(/ Math/PI 2)"));
  EXPECT_EQ(eval("(Math/acos 1)"), "0.0");
  EXPECT_EQ(eval("(Math/atan 0)"), "0.0");
  EXPECT_EQ(eval("(Math/atan2 1 0)"), eval("(/ Math/PI 2)"));
  EXPECT_EQ(eval("(Math/sinh 0)"), "0.0");
  EXPECT_EQ(eval("(Math/cosh 0)"), "1.0");
  EXPECT_EQ(eval("(Math/tanh 0)"), "0.0");
  EXPECT_EQ(eval("(Math/cbrt 27)"), "3.0");
  EXPECT_EQ(eval("(Math/hypot 3 4)"), "5.0");
  EXPECT_EQ(eval("(Math/signum -3)"), "-1.0");
  EXPECT_EQ(eval("(Math/signum 2.5)"), "1.0");
  EXPECT_EQ(eval("(Math/signum 0)"), "0.0");
  EXPECT_EQ(eval("(Math/signum ##NaN)"), "##NaN");
  EXPECT_EQ(eval("(Math/toDegrees Math/PI)"), "180.0");
  EXPECT_EQ(eval("(Math/toRadians 180)"), eval("Math/PI"));
  // The Math category reaches the bare helpers of the same name.
  EXPECT_EQ(eval("(Math/sqrt 9)"), "3.0");
  EXPECT_EQ(eval("(Math/floor 2.5)"), "2");
  EXPECT_EQ(eval("(map Math/abs [-1 2])"), "[1 2]");
  // The Java methods exist only under Math/, not as bare names, and not random.
  EXPECT_EQ(eval_error("(log 1)").kind, ptc::ErrorKind::UnboundVar);
  EXPECT_EQ(eval_error("(Math/random)").kind, ptc::ErrorKind::UnboundVar);
  EXPECT_EQ(eval_error("(Math/map inc [1])").kind, ptc::ErrorKind::UnboundVar);
  EXPECT_TRUE(
      starts_with(eval("(Math/log \"1\")"), "ERROR type_error: Math/log: expected a number"));
  EXPECT_TRUE(starts_with(eval("(Math/hypot 1 nil)"), "ERROR type_error: Math/hypot"));
  EXPECT_EQ(eval_error("(Math/atan2 1)").kind, ptc::ErrorKind::ArityError);
}

// ---------------------------------------------------------------------------
// Bitwise

TEST(LibNumbers, BitwiseSpecExamples) {
  EXPECT_EQ(eval("(bit-and 12 10)"), "8");
  EXPECT_EQ(eval("(bit-or 12 10)"), "14");
  EXPECT_EQ(eval("(bit-xor 12 10)"), "6");
  EXPECT_EQ(eval("(bit-and-not 15 9)"), "6");
  EXPECT_EQ(eval("(bit-not 0)"), "-1");
  EXPECT_EQ(eval("(bit-shift-left 1 4)"), "16");
  EXPECT_EQ(eval("(bit-shift-right 256 4)"), "16");
  EXPECT_EQ(eval("(bit-set 0 3)"), "8");
  EXPECT_EQ(eval("(bit-clear 15 1)"), "13");
  EXPECT_EQ(eval("(bit-flip 0 2)"), "4");
  EXPECT_EQ(eval("(bit-test 5 0)"), "true");
  EXPECT_EQ(eval("(bit-test 5 1)"), "false");
  EXPECT_EQ(eval("(bit-and 15 7 3)"), "3");
  EXPECT_EQ(eval("(bit-or 1 2 4 8)"), "15");
  EXPECT_EQ(eval("(bit-and-not 15 1 2)"), "12");
  EXPECT_EQ(eval("(bit-and -1 255)"), "255");
}

TEST(LibNumbers, BitwiseArbitraryPrecision) {
  // No 64-bit width: shifts grow and are not taken modulo 64 (spec §8.4a).
  EXPECT_EQ(eval("(bit-shift-left 1 64)"), "18446744073709551616");
  EXPECT_EQ(eval("(bit-shift-left 1 63)"), "9223372036854775808");
  EXPECT_EQ(eval("(bit-shift-left -1 63)"), "-9223372036854775808");
  EXPECT_EQ(eval("(bit-shift-left 3 62)"), "13835058055282163712");
  EXPECT_EQ(eval("(bit-shift-right -2 64)"), "-1");
  EXPECT_EQ(eval("(bit-shift-right 8 100)"), "0");
  EXPECT_EQ(eval("(bit-shift-right -9 1)"), "-5");
  EXPECT_EQ(eval("(bit-set 0 64)"), "18446744073709551616");
  EXPECT_EQ(eval("(bit-flip 0 64)"), "18446744073709551616");
  EXPECT_EQ(eval("(bit-clear -1 64)"), "-18446744073709551617");
  EXPECT_EQ(eval("(bit-clear 1 64)"), "1");
  EXPECT_EQ(eval("(bit-set -1 100)"), "-1");
  EXPECT_EQ(eval("(bit-test 1 64)"), "false");
  EXPECT_EQ(eval("(bit-test -1 1000)"), "true");
  // Bignum operands (GAP-S142 is decided for arbitrary precision).
  EXPECT_EQ(eval("(bit-not 9223372036854775808)"), "-9223372036854775809");
  EXPECT_EQ(eval("(bit-and 9223372036854775808 1)"), "0");
  EXPECT_EQ(eval("(bit-or 9223372036854775808 1)"), "9223372036854775809");
  EXPECT_EQ(eval("(bit-xor 9223372036854775809 1)"), "9223372036854775808");
  EXPECT_EQ(eval("(bit-and-not 18446744073709551615 1)"), "18446744073709551614");
  EXPECT_EQ(eval("(bit-test 9223372036854775808 63)"), "true");
  EXPECT_EQ(eval("(bit-shift-right 18446744073709551616 60)"), "16");
  EXPECT_EQ(eval("(bit-clear 18446744073709551617 64)"), "1");
  EXPECT_EQ(eval("(bit-test 1 9223372036854775808)"), "false");
  EXPECT_EQ(eval("(bit-shift-right 5 9223372036854775808)"), "0");
}

TEST(LibNumbers, BitwiseErrors) {
  // Two or more arguments for the folding helpers (GAP-S108).
  for (const char* src : {"(bit-and 7)", "(bit-or 7)", "(bit-xor 7)", "(bit-and-not 7)"})
    EXPECT_EQ(eval_error(src).kind, ptc::ErrorKind::ArityError) << src;
  EXPECT_EQ(eval_error("(bit-not 1 2)").kind, ptc::ErrorKind::ArityError);
  // Integers only, and bit indexes are non-negative (spec §8.4a; GAP-S52).
  EXPECT_TRUE(starts_with(eval("(bit-and 1.0 2)"),
                          "ERROR type_error: bit-and: expected an integer (argument 1)"));
  EXPECT_TRUE(starts_with(eval("(bit-or 1 nil)"),
                          "ERROR type_error: bit-or: expected an integer (argument 2)"));
  EXPECT_TRUE(starts_with(eval("(bit-not \"1\")"), "ERROR type_error: bit-not"));
  for (const char* src :
       {"(bit-shift-left 1 -1)", "(bit-shift-right 8 -1)", "(bit-test 1 -1)", "(bit-set 1 -1)",
        "(bit-clear 1 -1)", "(bit-flip 1 -1)", "(bit-set 1 2.0)", "(bit-test 1 nil)"})
    EXPECT_EQ(eval_error(src).kind, ptc::ErrorKind::TypeError) << src;
  // A shift that cannot fit the memory cap fails cleanly.
  EXPECT_EQ(eval_error("(bit-shift-left 1 100000000000)").kind, ptc::ErrorKind::MemoryLimit);
  EXPECT_EQ(eval_error("(bit-set 0 9223372036854775808)").kind, ptc::ErrorKind::MemoryLimit);
}

// ---------------------------------------------------------------------------
// Comparison

TEST(LibNumbers, Equality) {
  EXPECT_EQ(eval("(= 1)"), "true");
  EXPECT_EQ(eval("(= 1 1 1)"), "true");
  EXPECT_EQ(eval("(= 1 1.0)"), "true");  // DIV-32
  EXPECT_EQ(eval("(not= 1 1.0)"), "false");
  EXPECT_EQ(eval("(== 1 1.0)"), "true");
  EXPECT_EQ(eval("(== :a :a)"), "true");  // DIV-10: any type
  EXPECT_EQ(eval("(== \"a\" 1)"), "false");
  EXPECT_EQ(eval("(= [1 2] [1 2] [1 2])"), "true");
  EXPECT_EQ(eval("(= nil nil)"), "true");
  EXPECT_EQ(eval("(= 5 nil)"), "false");
  EXPECT_EQ(eval("(= Double/NaN Double/NaN)"), "false");
  EXPECT_EQ(eval("(not= ##NaN ##NaN)"), "true");
  EXPECT_EQ(eval("(not= 1)"), "false");
  EXPECT_EQ(eval("(apply = [2 2 2])"), "true");
  EXPECT_EQ(eval_error("(=)").kind, ptc::ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(not=)").kind, ptc::ErrorKind::ArityError);
}

TEST(LibNumbers, OrderedComparisons) {
  EXPECT_EQ(eval("(< 1 2 3)"), "true");
  EXPECT_EQ(eval("(< 1 3 2)"), "false");
  EXPECT_EQ(eval("(<= 1 1 2)"), "true");
  EXPECT_EQ(eval("(> 3 2 1)"), "true");
  EXPECT_EQ(eval("(>= 3 3 4)"), "false");
  EXPECT_EQ(eval("(< 5)"), "true");
  EXPECT_EQ(eval("(< 1.0 Double/POSITIVE_INFINITY)"), "true");
  EXPECT_EQ(eval("(> -1.0 Double/NEGATIVE_INFINITY)"), "true");
  EXPECT_EQ(eval("(< Double/NaN 0.0)"), "false");
  EXPECT_EQ(eval("(>= Double/NaN 0.0)"), "false");
  EXPECT_EQ(eval("(apply < [1 ##NaN 3])"), "false");
  // Recoverable term order (spec §11.3).
  EXPECT_EQ(eval("(> \"b\" \"a\")"), "true");
  EXPECT_EQ(eval("(< 1 nil)"), "true");
  EXPECT_EQ(eval("(> 5 nil)"), "false");
  EXPECT_EQ(eval("(<= nil nil)"), "true");
  EXPECT_EQ(eval("(apply > [9 100000000000000000000])"), "false");
  EXPECT_EQ(eval_error("(<)").kind, ptc::ErrorKind::ArityError);
}

TEST(LibNumbers, Compare) {
  EXPECT_EQ(eval("(compare 1 2)"), "-1");
  EXPECT_EQ(eval("(compare 2 2.0)"), "0");
  EXPECT_EQ(eval("(compare 3 1)"), "1");
  EXPECT_EQ(eval("(compare \"a\" \"c\")"), "-1");
  EXPECT_EQ(eval("(compare :b :a)"), "1");
  EXPECT_EQ(eval("(compare [1 2] [1 3])"), "-1");
  EXPECT_EQ(eval("(compare nil 1)"), "1");
  // NaN is unordered and compares as 0, as in Clojure (DIV-33 reclassified).
  EXPECT_EQ(eval("(compare ##NaN 1)"), "0");
  EXPECT_EQ(eval("(compare ##NaN ##NaN)"), "0");
  EXPECT_EQ(eval_error("(compare 1)").kind, ptc::ErrorKind::ArityError);
}

// ---------------------------------------------------------------------------
// Predicates

TEST(LibNumbers, ValuePredicates) {
  EXPECT_EQ(eval("[(nil? nil) (nil? false) (some? false) (some? nil)]"), "[true false true false]");
  EXPECT_EQ(eval("[(true? true) (true? 1) (false? false) (false? nil)]"),
            "[true false true false]");
  EXPECT_EQ(eval("[(boolean? false) (boolean? nil) (boolean 0) (boolean nil) (boolean false)]"),
            "[true false true false false]");
  EXPECT_EQ(eval("[(number? 1) (number? 1.5) (number? ##NaN) (number? \"1\")]"),
            "[true true true false]");
  EXPECT_EQ(eval("[(int? 1) (integer? 100000000000000000000) (int? 1.0) (int? \"42\")]"),
            "[true true false false]");
  // NaN and the infinities are floats (GAP-S127).
  EXPECT_EQ(eval("[(float? 1.5) (double? ##NaN) (float? ##Inf) (double? 1) (float? nil)]"),
            "[true true true false false]");
  EXPECT_EQ(eval("[(string? \"\") (string? :a) (keyword? :a) (keyword? \"a\")]"),
            "[true false true false]");
  EXPECT_EQ(eval("[(char? \\a) (char? \"ab\") (char? \"\") (char? 1)]"),
            "[true false false false]");
  // DIV-19, DIV-20, DIV-49: always false.
  EXPECT_EQ(eval("[(symbol? :a) (symbol? 'a) (symbol? nil)]"), "[false false false]");
  EXPECT_EQ(eval("[(decimal? 1.5) (ratio? 1) (ratio? 0.5) (map-entry? [:a 1])]"),
            "[false false false false]");
  EXPECT_EQ(eval("(map-entry? (first (vec {:a 1})))"), "false");
  EXPECT_EQ(
      eval("[(rational? 42) (rational? 100000000000000000000) (rational? 3.14) (rational? nil)]"),
      "[true true false false]");
}

TEST(LibNumbers, CollectionPredicates) {
  EXPECT_EQ(eval("[(vector? []) (vector? {}) (map? {}) (map? []) (set? #{}) (set? [])]"),
            "[true false true false true false]");
  EXPECT_EQ(eval("[(coll? [1]) (coll? {:a 1}) (coll? #{1}) (coll? \"s\") (coll? nil)]"),
            "[true true true false false]");
  EXPECT_EQ(eval("[(sequential? [1]) (sequential? {:a 1}) (sequential? \"s\") (sequential? nil)]"),
            "[true false false false]");
  EXPECT_EQ(eval("[(seq? [1 2 3]) (seq? []) (seq? {:a 1}) (seq? nil)]"),  // spec §8.7 over GAP-S84
            "[true true false false]");
  EXPECT_EQ(eval("[(associative? [1]) (associative? {}) (associative? #{1}) (associative? nil)]"),
            "[true true false false]");
  // PTC assertions: strings are counted, indexed and reversible.
  EXPECT_EQ(eval("[(counted? [1]) (counted? {}) (counted? #{}) (counted? \"\") (counted? nil) "
                 "(counted? 42)]"),
            "[true true true true false false]");
  EXPECT_EQ(
      eval("[(indexed? []) (indexed? \"abc\") (indexed? {:a 1}) (indexed? #{1}) (indexed? nil)]"),
      "[true true false false false]");
  EXPECT_EQ(eval("[(reversible? [1]) (reversible? \"\") (reversible? {:a 1}) (reversible? nil)]"),
            "[true true false false]");
  EXPECT_EQ(eval("[(sorted? [1 2]) (sorted? {:a 1}) (sorted? #{1})]"), "[false false false]");
  EXPECT_EQ(eval("[(seqable? []) (seqable? {}) (seqable? #{}) (seqable? \"\") (seqable? nil) "
                 "(seqable? 42) (seqable? :k)]"),
            "[true true true true true false false]");
}

TEST(LibNumbers, FunctionPredicates) {
  EXPECT_EQ(
      eval("[(fn? inc) (fn? (fn [x] x)) (fn? (partial + 1)) (fn? :a) (fn? {:a 1}) (fn? [1])]"),
      "[true true true false false false]");
  EXPECT_EQ(eval("[(ifn? inc) (ifn? :keyword) (ifn? {:a 1}) (ifn? #{1}) (ifn? [1]) (ifn? \"s\") "
                 "(ifn? nil)]"),
            "[true true true true true false false]");
}

TEST(LibNumbers, NumericPredicates) {
  EXPECT_EQ(eval("[(zero? 0) (zero? 0.0) (zero? -0.0) (zero? 1) (zero? ##NaN)]"),
            "[true true true false false]");
  EXPECT_EQ(eval("[(pos? 1) (pos? ##Inf) (pos? 0) (neg? -1) (neg? ##-Inf) (neg? ##NaN)]"),
            "[true true false true true false]");
  // DIV-31: false, not an error, for anything that is not a number.
  EXPECT_EQ(eval("[(zero? nil) (pos? \"1\") (neg? \"-1\") (even? nil) (odd? \\a) (infinite? nil) "
                 "(NaN? \"x\")]"),
            "[false false false false false false false]");
  // GAP-S08: whole floats count, fractional ones are neither.
  EXPECT_EQ(eval("[(even? 4) (even? 4.0) (even? 4.5) (odd? 3.0) (odd? 4.0) (odd? -3)]"),
            "[true true false true false true]");
  EXPECT_EQ(eval("[(even? 100000000000000000000) (odd? 100000000000000000001) (even? ##Inf)]"),
            "[true true false]");
  EXPECT_EQ(eval("[(nat-int? 0) (nat-int? -1) (nat-int? 3.0) (pos-int? 5) (pos-int? 0) (neg-int? "
                 "-1) (neg-int? -1.5) (pos-int? nil)]"),
            "[true false false true false true false false]");
  EXPECT_EQ(eval("[(pos-int? 100000000000000000000) (neg-int? -100000000000000000000)]"),
            "[true true]");
  EXPECT_EQ(eval("[(infinite? ##Inf) (infinite? ##-Inf) (infinite? ##NaN) (infinite? 42)]"),
            "[true true false false]");
  EXPECT_EQ(eval("[(NaN? ##NaN) (NaN? 0.0) (NaN? ##Inf) (NaN? 1)]"), "[true false false false]");
}

TEST(LibNumbers, LogicAndEmptiness) {
  EXPECT_EQ(eval("[(not nil) (not false) (not 0) (not \"\")]"), "[true true false false]");
  EXPECT_EQ(eval("(identity 42)"), "42");
  EXPECT_EQ(eval("(filter identity [1 nil 2 false])"), "[1 2]");
  EXPECT_EQ(eval("[(empty? []) (empty? nil) (empty? \"\") (empty? {}) (empty? #{}) (empty? [1]) "
                 "(empty? \" \")]"),
            "[true true true true true false false]");
  EXPECT_TRUE(starts_with(eval("(empty? 42)"), "ERROR type_error: empty?"));
  EXPECT_EQ(eval_error("(not)").kind, ptc::ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(nil? 1 2)").kind, ptc::ErrorKind::ArityError);
}

TEST(LibNumbers, DistinctP) {
  EXPECT_EQ(eval("(distinct? 1 2 3)"), "true");
  EXPECT_EQ(eval("(distinct? 1 2 1)"), "false");
  EXPECT_EQ(eval("(distinct? 1)"), "true");
  EXPECT_EQ(eval("(distinct? 1 1.0)"), "false");  // = is numeric type-independent
  EXPECT_EQ(eval("(distinct? [1] [1])"), "false");
  // NaN equals nothing, so repeated NaNs are distinct (GAP-S101).
  EXPECT_EQ(eval("(distinct? ##NaN ##NaN)"), "true");
  EXPECT_EQ(eval("(distinct? ##NaN 1 ##NaN)"), "true");
  // Many arguments go through a set.
  EXPECT_EQ(eval("(apply distinct? (range 100))"), "true");
  EXPECT_EQ(eval("(apply distinct? (conj (vec (range 100)) 50))"), "false");
  EXPECT_EQ(eval_error("(distinct?)").kind, ptc::ErrorKind::ArityError);  // GAP-S64
}

TEST(LibNumbers, Type) {
  EXPECT_EQ(eval("(type nil)"), "nil");
  EXPECT_EQ(eval("[(type true) (type 1) (type 1.5) (type 100000000000000000000) (type ##NaN)]"),
            "[:boolean :number :number :number :number]");
  EXPECT_EQ(eval("[(type \"s\") (type :k) (type [1]) (type {}) (type #{})]"),
            "[:string :keyword :vector :map :set]");
  EXPECT_EQ(eval("[(type inc) (type (fn [x] x)) (type (partial + 1)) (type #\"a+\")]"),
            "[:function :function :function :regex]");
}

// ---------------------------------------------------------------------------
// Output

TEST(LibNumbers, PrintAndPrn) {
  ptc::Step r = ptc::run(R"((print "a" 1 nil ["x"]) (prn "a" 1 nil) (prn) (print) 7)");
  ASSERT_TRUE(r.ok) << r.error.describe();
  EXPECT_EQ(r.printed, "7");
  ASSERT_EQ(r.prints.size(), 4u);
  EXPECT_EQ(r.prints[0], "a 1 nil [x]");  // as Clojure: nested strings unquoted too
  EXPECT_EQ(r.prints[1], "\"a\" 1 nil");
  EXPECT_EQ(r.prints[2], "");
  EXPECT_EQ(r.prints[3], "");
  EXPECT_EQ(eval("(print 1)"), "nil");
  EXPECT_EQ(eval("(prn {:a \"b\"})"), "nil");
  // Each call is one entry, in order, interleaved with println.
  r = ptc::run("(doseq [x [1 2]] (print x)) (println \"done\") (prn 1.5)");
  ASSERT_EQ(r.prints.size(), 4u);
  EXPECT_EQ(r.prints[0], "1");
  EXPECT_EQ(r.prints[1], "2");
  EXPECT_EQ(r.prints[2], "done");
  EXPECT_EQ(r.prints[3], "1.5");
}

// ---------------------------------------------------------------------------
// describe

TEST(LibNumbers, DescribeReferenceExample) {
  const char* src = R"((describe [{"event" "turn"} {"event" "done" "ok" true}]))";
  std::string expected =
      R"({:type "vector" :count 2 :scanned 2 :item_types {"map" 2} :keys {"event" {:present 2 :pct 100.0 :types {"string" 2} :examples ["turn" "done"] :distinct_count 2} "ok" {:present 1 :pct 50.0 :types {"boolean" 1} :examples [true] :distinct_count 1}} :key_types {"string" 3}})";
  EXPECT_EQ(eval(std::string("(= ") + src + " " + expected + ")"), "true");
  EXPECT_EQ(
      eval(src),
      R"({:type "vector" :count 2 :scanned 2 :item_types {"map" 2} :key_types {"string" 3} :keys {"event" {:present 2 :pct 100.0 :types {"string" 2} :examples ["turn" "done"] :distinct_count 2} "ok" {:present 1 :pct 50.0 :types {"boolean" 1} :examples [true] :distinct_count 1}}})");
}

TEST(LibNumbers, DescribeScalarsAndCollections) {
  EXPECT_EQ(
      eval("(describe 42)"),
      R"({:type "integer" :sample 42 :types {"integer" 1} :examples [42] :range {:min 42 :max 42} :distinct_count 1})");
  EXPECT_EQ(eval("(describe nil)"),
            R"({:type "nil" :sample nil :types {"nil" 1} :examples [nil] :distinct_count 1})");
  EXPECT_EQ(eval("(:type (describe ##NaN))"), "\"nan\"");
  EXPECT_EQ(eval("(:type (describe inc))"), "\"function\"");
  EXPECT_EQ(eval("(:non_empty (describe \"\"))"), "0");
  EXPECT_EQ(eval("(describe [])"), R"({:type "vector" :count 0 :scanned 0 :item_types {}})");
  EXPECT_EQ(eval("(describe [1 \"a\" 2])"),
            R"({:type "vector" :count 3 :scanned 3 :item_types {"integer" 2 "string" 1}})");
  EXPECT_EQ(eval("(describe #{1 :a})"),
            R"({:type "set" :count 2 :scanned 2 :item_types {"integer" 1 "keyword" 1}})");
  EXPECT_EQ(
      eval("(describe {:b \"x\" :a 1.5})"),
      R"({:type "map" :count 2 :key_types {"keyword" 2} :keys {":a" {:types {"float" 1} :examples [1.5] :range {:min 1.5 :max 1.5} :distinct_count 1} ":b" {:types {"string" 1} :examples ["x"] :distinct_count 1}}})");
  EXPECT_EQ(eval("(describe {})"), R"({:type "map" :count 0 :key_types {} :keys {}})");
}

TEST(LibNumbers, DescribeFieldSummaries) {
  // Numeric strings count toward the range; empty values show in :non_empty.
  EXPECT_EQ(
      eval(R"((get (:keys (describe [{:p "10"} {:p "2.5"} {:p ""} {:q 1}])) ":p"))"),
      R"({:present 3 :pct 75.0 :types {"string" 3} :examples ["10" "2.5" ""] :non_empty 2 :range {:min 2.5 :max 10.0} :distinct_count 3})");
  // Examples are distinct and limited by :sample (1 to 3); collections are shown as text.
  EXPECT_EQ(eval(R"((get (:keys (describe [{:t [1]} {:t [1]} {:t []}] {:sample 1})) ":t"))"),
            R"({:present 3 :pct 100.0 :types {"vector" 3} :examples ["[1]"] :non_empty 2})");
  EXPECT_EQ(
      eval(
          R"((count (:examples (get (:keys (describe (mapv (fn [i] {:n i}) (range 10)) {"sample" 99})) ":n"))))"),
      "3");
  // Distinct counts stop at 50.
  EXPECT_EQ(
      eval(
          R"((let [n (get (:keys (describe (mapv (fn [i] {:n i}) (range 80)))) ":n")] [(:distinct_count n) (:distinct_capped n) (:range n)]))"),
      R"([50 true {:min 0 :max 79}])");
  // Long strings are cut in examples.
  std::string cut;
  for (int i = 0; i < 60; ++i)
    cut += "ab";
  EXPECT_EQ(eval(R"((first (:examples (describe (apply str (repeat 200 "ab"))))))"),
            "\"" + cut + "...(400 chars)\"");
  // Keys that render alike are told apart by type.
  EXPECT_EQ(eval(R"((sort (keys (:keys (describe {1 :a "1" :b})))))"),
            R"(["integer:1" "string:1"])");
}

TEST(LibNumbers, DescribePaths) {
  EXPECT_EQ(
      eval(R"((:paths (describe [{:a {:b 1}} {:a {:b "2" :c nil}}] {:paths true :depth 2})))"),
      R"({":a" {:present 2 :pct 100.0 :types {"map" 2} :examples ["{:b 1}" "{:b \"2\" :c nil}"]} ":a.:b" {:present 2 :pct 100.0 :types {"integer" 1 "string" 1} :examples [1 "2"] :range {:min 1 :max 2.0} :distinct_count 2} ":a.:c" {:present 1 :pct 50.0 :types {"nil" 1} :examples [nil] :distinct_count 1}})");
  // The default depth is 1; vectors under a path are looked through.
  EXPECT_EQ(eval(R"((keys (:paths (describe {:a {:b 1}} {:paths true}))))"), R"([":a"])");
  EXPECT_EQ(
      eval(
          R"((get (:paths (describe {"orders" [{"id" 1} {"id" 2} {"id" 3}]} {:paths true :depth 2})) "orders.id"))"),
      R"({:present 1 :pct 100.0 :types {"integer" 3} :examples [1 2 3] :range {:min 1 :max 3} :distinct_count 3 :value_count 3})");
  // Dots in keys are escaped in path names.
  EXPECT_EQ(eval(R"((keys (:paths (describe {"a.b" {"c" 1}} {:paths true :depth 2}))))"),
            R"(["a\\.b" "a\\.b.c"])");
  EXPECT_EQ(eval("(:paths (describe [1 2] {:paths true}))"), "{}");
}

TEST(LibNumbers, DescribeCaps) {
  EXPECT_EQ(
      eval(
          R"((let [d (describe (vec (range 1500)))] [(:count d) (:scanned d) (:count_capped d) (:truncated d) (:caps_hit d)]))"),
      R"([1000 1000 true true ["max_items"]])");
  EXPECT_EQ(
      eval(
          R"((let [d (describe (reduce (fn [m i] (assoc m i i)) {} (range 150)))] [(:count d) (count (:keys d)) (:caps_hit d)]))"),
      R"([150 100 ["max_keys"]])");
  EXPECT_EQ(
      eval(
          R"((let [d (describe (mapv (fn [i] {(keyword (str "k" i)) i}) (range 150)))] [(count (:keys d)) (:caps_hit d)]))"),
      R"([100 ["max_keys"]])");
  // 1000 maps of 11 keys are 11000 path values, past the 10000 cap.
  EXPECT_EQ(eval(R"((let [row (fn [i] (reduce (fn [m k] (assoc m k i)) {} (range 11)))
                          d (describe (mapv row (range 1000)) {:paths true})]
                      [(count (:paths d)) (:caps_hit d)]))"),
            R"([11 ["max_path_values"]])");
  EXPECT_EQ(
      eval(
          R"((let [d (describe {:a (vec (range 2000))} {:paths true :depth 2})] [(:present (get (:paths d) ":a")) (:caps_hit d)]))"),
      R"([1 ["max_items"]])");
}

TEST(LibNumbers, DescribeStaysBoundedOnSharedStructure) {
  // 10^9 nested items through sharing: the path walk stops after its visit budget.
  EXPECT_EQ(
      eval(R"((let [v1 (vec (repeat 1000 1)) v2 (vec (repeat 1000 v1)) v3 (vec (repeat 1000 v2))]
                      (:caps_hit (describe {:a v3} {:paths true :depth 2}))))"),
      R"(["max_visits"])");
  // Examples of huge values are cut short.
  EXPECT_EQ(eval(R"((let [v1 (vec (repeat 1000 1)) v2 (vec (repeat 1000 v1))]
                      (count (first (:examples (get (:keys (describe {:a v2})) ":a"))))))"),
            "123");
}

TEST(LibNumbers, DescribeOptionsAndErrors) {
  EXPECT_EQ(eval("(= (describe [1] nil) (describe [1]))"), "true");
  EXPECT_EQ(eval("(= (describe [1] {:depth 99 :sample -4}) (describe [1]))"), "true");
  EXPECT_TRUE(
      starts_with(eval("(describe [1] 5)"), "ERROR type_error: describe: expected an options map"));
  EXPECT_EQ(eval_error("(describe)").kind, ptc::ErrorKind::ArityError);
  EXPECT_EQ(eval_error("(describe 1 {} 2)").kind, ptc::ErrorKind::ArityError);
}

}  // namespace
