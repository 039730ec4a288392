#include "runtime/numbers.hpp"

#include <gmp.h>
#include <gtest/gtest.h>

#include "support/runtime_fixture.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/equality.hpp"
#include "runtime/error.hpp"
#include "runtime/printer.hpp"

namespace ptc {
namespace {

using testing::F;
using testing::I;
using testing::kInf;
using testing::kMax;
using testing::kMin;

class Numbers : public testing::RuntimeFixture {
 protected:
  // 2^e (+ add), as a bignum or int.
  Value pow2(unsigned e, int64_t add = 0) {
    Mpz z;
    mpz_ui_pow_ui(z.get(), 2, e);
    if (add >= 0)
      mpz_add_ui(z.get(), z.get(), static_cast<unsigned long>(add));
    else
      mpz_sub_ui(z.get(), z.get(), static_cast<unsigned long>(-add));
    return integer_from_mpz(ctx.arena, z.get());
  }
  static std::string s(Value v) { return print_to_string(v); }
  Value add(Value a, Value b) { return num_add(ctx.arena, a, b); }
  Value sub(Value a, Value b) { return num_sub(ctx.arena, a, b); }
  Value mul(Value a, Value b) { return num_mul(ctx.arena, a, b); }
  Value div(Value a, Value b) { return num_div(ctx.arena, a, b); }
  Value quot(Value a, Value b) { return num_quot(ctx.arena, a, b); }
  Value rem(Value a, Value b) { return num_rem(ctx.arena, a, b); }
  Value mod(Value a, Value b) { return num_mod(ctx.arena, a, b); }
  Value neg(Value a) { return num_neg(ctx.arena, a); }

  Error error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const LispError& e) {
      return e.error();
    }
    ADD_FAILURE() << "expected an error";
    return {};
  }
};

TEST_F(Numbers, IntFastPath) {
  EXPECT_EQ(s(add(I(2), I(3))), "5");
  EXPECT_EQ(s(sub(I(2), I(3))), "-1");
  EXPECT_EQ(s(mul(I(-4), I(3))), "-12");
  EXPECT_TRUE(add(I(kMax - 1), I(1)).is_int());
  EXPECT_TRUE(sub(I(kMin + 1), I(1)).is_int());
  EXPECT_EQ(add(I(kMax - 1), I(1)).as_int(), kMax);
  EXPECT_EQ(mul(I(kMin), I(1)).as_int(), kMin);
  EXPECT_EQ(neg(I(5)).as_int(), -5);
  EXPECT_EQ(neg(I(kMax)).as_int(), -kMax);
}

TEST_F(Numbers, OverflowPromotesToBignum) {
  Value v = add(I(kMax), I(1));
  EXPECT_TRUE(v.is(Type::BigInt));
  EXPECT_EQ(s(v), "9223372036854775808");
  v = sub(I(kMin), I(1));
  EXPECT_TRUE(v.is(Type::BigInt));
  EXPECT_EQ(s(v), "-9223372036854775809");
  EXPECT_EQ(s(mul(I(kMin), I(-1))), "9223372036854775808");
  EXPECT_EQ(s(mul(I(-1), I(kMin))), "9223372036854775808");
  EXPECT_EQ(s(neg(I(kMin))), "9223372036854775808");
  EXPECT_EQ(s(sub(I(0), I(kMin))), "9223372036854775808");
  EXPECT_EQ(s(mul(I(kMax), I(kMax))), "85070591730234615847396907784232501249");
  EXPECT_EQ(s(mul(I(kMin), I(kMin))), "85070591730234615865843651857942052864");
  EXPECT_EQ(s(add(I(kMin), I(kMin))), "-18446744073709551616");
  EXPECT_EQ(s(sub(I(kMax), I(kMin))), "18446744073709551615");
  EXPECT_EQ(s(mul(I(4294967296), I(4294967296))), "18446744073709551616");
}

TEST_F(Numbers, ResultsDemoteWhenTheyFit) {
  Value big1 = add(I(kMax), I(1));
  Value back = sub(big1, I(1));
  ASSERT_TRUE(back.is_int());
  EXPECT_EQ(back.as_int(), kMax);
  Value low = sub(I(kMin), I(1));
  EXPECT_TRUE(add(low, I(1)).is_int());
  EXPECT_EQ(add(low, I(1)).as_int(), kMin);
  EXPECT_TRUE(mul(big1, I(0)).is_int());
  EXPECT_EQ(mul(big1, I(0)).as_int(), 0);
  EXPECT_TRUE(sub(big1, big1).is_int());
  EXPECT_TRUE(add(big1, neg(big1)).is_int());
  Value n = neg(neg(I(kMin)));
  ASSERT_TRUE(n.is_int());
  EXPECT_EQ(n.as_int(), kMin);
  EXPECT_TRUE(quot(pow2(64), pow2(32)).is_int());
  EXPECT_EQ(quot(pow2(64), pow2(32)).as_int(), int64_t{1} << 32);
  EXPECT_TRUE(rem(pow2(64, 5), pow2(64)).is_int());
  EXPECT_EQ(rem(pow2(64, 5), pow2(64)).as_int(), 5);
}

TEST_F(Numbers, HugeMultiplications) {
  Value acc = I(1);
  for (int i = 0; i < 1000; ++i)
    acc = mul(acc, I(3));
  Mpz expect;
  mpz_ui_pow_ui(expect.get(), 3, 1000);
  std::string digits(mpz_sizeinbase(expect.get(), 10) + 2, '\0');
  mpz_get_str(digits.data(), 10, expect.get());
  digits.resize(std::strlen(digits.c_str()));
  EXPECT_EQ(s(acc), digits);
  // Squaring up to 2^4096 and back down by division.
  Value p = I(2);
  for (int i = 0; i < 12; ++i)
    p = mul(p, p);
  EXPECT_TRUE(equals(p, pow2(4096)));
  EXPECT_TRUE(equals(mul(neg(p), p), neg(pow2(8192))));
  Value q = p;
  for (int i = 0; i < 4095; ++i)
    q = quot(q, I(2));
  ASSERT_TRUE(q.is_int());
  EXPECT_EQ(q.as_int(), 2);
}

TEST_F(Numbers, MixedIntAndFloatGivesFloat) {
  Value v = add(I(1), F(0.5));
  ASSERT_TRUE(v.is_float());
  EXPECT_EQ(v.as_float(), 1.5);
  v = mul(I(2), F(1.5));
  ASSERT_TRUE(v.is_float());
  EXPECT_EQ(v.as_float(), 3.0);
  v = sub(F(1.0), I(1));
  ASSERT_TRUE(v.is_float());
  EXPECT_EQ(v.as_float(), 0.0);
  v = add(pow2(64), F(0.0));
  ASSERT_TRUE(v.is_float());
  EXPECT_EQ(v.as_float(), 18446744073709551616.0);
  v = mul(pow2(2000), F(1.0));
  EXPECT_TRUE(v.is_float());
  EXPECT_EQ(v.as_float(), kInf);
  EXPECT_EQ(mul(neg(pow2(2000)), F(1.0)).as_float(), -kInf);
  EXPECT_TRUE(std::isnan(sub(F(kInf), F(kInf)).as_float()));
  EXPECT_TRUE(std::isnan(mul(F(kInf), I(0)).as_float()));
  EXPECT_TRUE(std::isnan(add(F(NAN), I(1)).as_float()));
  EXPECT_EQ(add(F(kInf), I(1)).as_float(), kInf);
}

TEST_F(Numbers, BignumToDoubleRoundsToNearest) {
  // The ulp of a double at 2^64 is 2^12: 2^64 + 2^11 + 1 rounds up, 2^64 + 2^11
  // is a tie that goes to the even mantissa, 2^64 + 3 * 2^11 a tie that rounds up.
  EXPECT_EQ(to_double(pow2(64, 2049)), 18446744073709555712.0);
  EXPECT_EQ(to_double(pow2(64, 2048)), 18446744073709551616.0);
  EXPECT_EQ(to_double(pow2(64, 6144)), 18446744073709559808.0);
  EXPECT_EQ(to_double(pow2(64, 4095)), 18446744073709555712.0);
  EXPECT_EQ(to_double(neg(pow2(64, 2049))), -18446744073709555712.0);
  // Sticky bits far below the top limb decide a tie.
  EXPECT_EQ(to_double(pow2(200, 0)), std::ldexp(1.0, 200));
  Value tie_plus = add(pow2(200), add(pow2(200 - 53), I(1)));
  EXPECT_EQ(to_double(tie_plus), std::ldexp(1.0, 200) + std::ldexp(1.0, 200 - 52));
  EXPECT_EQ(to_double(pow2(63)), 9223372036854775808.0);
  EXPECT_EQ(to_double(pow2(1024)), kInf);
  EXPECT_EQ(to_double(pow2(1024, -1)), kInf);  // rounds up past DBL_MAX
  // 2^1024 - 2^970 is the midpoint between DBL_MAX and 2^1024: a tie to even (Inf).
  EXPECT_EQ(to_double(sub(pow2(1024), pow2(970))), kInf);
  EXPECT_EQ(to_double(sub(pow2(1024), pow2(970, 1))), std::numeric_limits<double>::max());
  // An int beyond 2^53 converts the same way (round to nearest).
  EXPECT_EQ(to_double(I(9007199254740995)), 9007199254740996.0);
  EXPECT_EQ(add(pow2(64, 2049), F(0.0)).as_float(), 18446744073709555712.0);
}

TEST_F(Numbers, DivisionAlwaysGivesAFloat) {
  Value v = div(I(10), I(2));
  ASSERT_TRUE(v.is_float());
  EXPECT_EQ(v.as_float(), 5.0);
  EXPECT_EQ(div(I(1), I(3)).as_float(), 1.0 / 3.0);
  EXPECT_EQ(div(I(-7), I(2)).as_float(), -3.5);
  EXPECT_EQ(div(pow2(64), I(4)).as_float(), 4611686018427387904.0);
  EXPECT_EQ(div(F(1.0), F(4.0)).as_float(), 0.25);
  EXPECT_EQ(div(I(kMin), I(-1)).as_float(), 9223372036854775808.0);
}

TEST_F(Numbers, DivisionByZero) {
  for (Value n : {I(1), I(0), I(-1), F(1.5), pow2(70)}) {
    Error e = error_of([&] { div(n, I(0)); });
    EXPECT_EQ(e.kind, ErrorKind::ArithmeticError);
    EXPECT_NE(e.message.find("/"), std::string::npos);
  }
  EXPECT_EQ(div(I(1), F(0.0)).as_float(), kInf);
  EXPECT_EQ(div(F(-2.5), F(0.0)).as_float(), -kInf);
  EXPECT_EQ(div(I(1), F(-0.0)).as_float(), -kInf);
  EXPECT_EQ(div(pow2(80), F(0.0)).as_float(), kInf);
  EXPECT_TRUE(std::isnan(div(I(0), F(0.0)).as_float()));
  EXPECT_TRUE(std::isnan(div(F(NAN), F(1.0)).as_float()));
  for (auto op : {num_quot, num_rem, num_mod}) {
    for (Value d : {I(0), F(0.0), F(-0.0)}) {
      Error e = error_of([&] { op(ctx.arena, I(5), d); });
      EXPECT_EQ(e.kind, ErrorKind::ArithmeticError);
    }
    Error e = error_of([&] { op(ctx.arena, pow2(100), I(0)); });
    EXPECT_EQ(e.kind, ErrorKind::ArithmeticError);
  }
}

TEST_F(Numbers, QuotRemModSigns) {
  struct Case {
    int64_t a, b, q, r, m;
  };
  const Case cases[] = {
      {7, 2, 3, 1, 1},           {-7, 2, -3, -1, 1},
      {7, -2, -3, 1, -1},        {-7, -2, 3, -1, -1},
      {10, 3, 3, 1, 1},          {-10, 3, -3, -1, 2},
      {10, -3, -3, 1, -2},       {-10, -3, 3, -1, -1},
      {-1, 5, 0, -1, 4},         {1, -5, 0, 1, -4},
      {-4, 2, -2, 0, 0},         {0, -3, 0, 0, 0},
      {kMin, 1, kMin, 0, 0},     {kMin, 2, kMin / 2, 0, 0},
      {kMax, -1, -kMax, 0, 0},   {kMin, kMax, -1, -1, kMax - 1},
      {kMax, kMin, 0, kMax, -1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.a) + " " + std::to_string(c.b));
    EXPECT_EQ(quot(I(c.a), I(c.b)).as_int(), c.q);
    EXPECT_EQ(rem(I(c.a), I(c.b)).as_int(), c.r);
    EXPECT_EQ(mod(I(c.a), I(c.b)).as_int(), c.m);
    EXPECT_TRUE(quot(I(c.a), I(c.b)).is_int());
  }
  // INT64_MIN / -1 is the one int64 quotient that overflows.
  Value q = quot(I(kMin), I(-1));
  EXPECT_TRUE(q.is(Type::BigInt));
  EXPECT_EQ(s(q), "9223372036854775808");
  EXPECT_EQ(rem(I(kMin), I(-1)).as_int(), 0);
  EXPECT_EQ(mod(I(kMin), I(-1)).as_int(), 0);
}

TEST_F(Numbers, QuotRemModWithBignumsSatisfyTheIdentities) {
  std::mt19937_64 rng(5);
  std::vector<Value> pool = {I(3),
                             I(-3),
                             I(7),
                             I(-1),
                             I(kMax),
                             I(kMin),
                             pow2(64),
                             neg(pow2(64)),
                             pow2(100, 7),
                             pow2(65, -1),
                             neg(pow2(130, 12345))};
  for (int i = 0; i < 20; ++i) {
    Value r = I(static_cast<int64_t>(rng()));
    pool.push_back(i % 2 ? mul(r, pow2(static_cast<unsigned>(rng() % 150))) : r);
  }
  for (Value a : pool) {
    for (Value b : pool) {
      Value q = quot(a, b), r = rem(a, b), m = mod(a, b);
      SCOPED_TRACE(s(a) + " / " + s(b));
      // a = q*b + r, |r| < |b|, r has the dividend's sign.
      EXPECT_TRUE(equals(add(mul(q, b), r), a));
      EXPECT_LT(compare_numbers(mul(r, r), mul(b, b)), 0);
      if (!is_zero_number(r)) {
        EXPECT_EQ(compare_numbers(r, I(0)) < 0, compare_numbers(a, I(0)) < 0);
      }
      // mod has the divisor's sign and differs from a by a multiple of b.
      if (!is_zero_number(m)) {
        EXPECT_EQ(compare_numbers(m, I(0)) < 0, compare_numbers(b, I(0)) < 0);
      }
      EXPECT_LT(compare_numbers(mul(m, m), mul(b, b)), 0);
      EXPECT_TRUE(is_zero_number(rem(sub(a, m), b)));
      // Results that fit are ints.
      for (Value x : {q, r, m}) {
        bool outside = compare_numbers(x, I(kMax)) > 0 || compare_numbers(x, I(kMin)) < 0;
        EXPECT_EQ(x.is(Type::BigInt), outside);
      }
    }
  }
}

TEST_F(Numbers, QuotRemModWithFloats) {
  EXPECT_EQ(quot(F(7.5), I(2)).as_float(), 3.0);
  EXPECT_TRUE(quot(F(7.5), I(2)).is_float());
  EXPECT_EQ(quot(F(-7.5), F(2.0)).as_float(), -3.0);
  EXPECT_EQ(rem(F(7.5), I(2)).as_float(), 1.5);
  EXPECT_EQ(rem(F(-7.5), I(2)).as_float(), -1.5);
  EXPECT_EQ(rem(F(7.5), I(-2)).as_float(), 1.5);
  EXPECT_EQ(mod(F(-7.5), I(2)).as_float(), 0.5);
  EXPECT_EQ(mod(F(7.5), I(-2)).as_float(), -0.5);
  EXPECT_EQ(mod(F(-7.5), F(-2.0)).as_float(), -1.5);
  EXPECT_EQ(rem(I(7), F(2.5)).as_float(), 2.0);
  EXPECT_EQ(mod(I(-7), F(2.5)).as_float(), 0.5);
  EXPECT_EQ(rem(pow2(64), F(10.0)).as_float(), 6.0);
  EXPECT_EQ(quot(pow2(64), F(2.0)).as_float(), 9223372036854775808.0);
  EXPECT_TRUE(std::isnan(rem(F(NAN), I(2)).as_float()));
  EXPECT_TRUE(std::isnan(mod(I(2), F(NAN)).as_float()));
  EXPECT_TRUE(std::isnan(quot(F(kInf), I(2)).as_float()));
  // An infinite divisor: Clojure and the reference both give NaN for rem and
  // mod (n - 0 * Inf), and quot truncates the zero quotient.
  EXPECT_TRUE(std::isnan(rem(F(5.0), F(kInf)).as_float()));
  EXPECT_TRUE(std::isnan(mod(F(-5.0), F(kInf)).as_float()));
  EXPECT_TRUE(std::isnan(mod(F(5.0), F(-kInf)).as_float()));
  EXPECT_EQ(quot(F(5.0), F(kInf)).as_float(), 0.0);
}

TEST_F(Numbers, TypeErrorsNameTheOpAndPosition) {
  struct Case {
    std::function<Value()> f;
    const char* op;
    const char* pos;
  };
  Value str = ctx.string("a");
  Value kw = ctx.keyword("k");
  const Case cases[] = {
      {[&] { return add(str, I(1)); }, "+", "argument 1"},
      {[&] { return add(I(1), Value::nil()); }, "+", "argument 2"},
      {[&] { return sub(F(1.0), kw); }, "-", "argument 2"},
      {[&] { return mul(Value::boolean(true), I(2)); }, "*", "argument 1"},
      {[&] { return div(I(1), str); }, "/", "argument 2"},
      {[&] { return quot(Value::nil(), I(1)); }, "quot", "argument 1"},
      {[&] { return rem(I(1), kw); }, "rem", "argument 2"},
      {[&] { return mod(str, I(0)); }, "mod", "argument 1"},
      {[&] { return neg(Value::nil()); }, "-", "argument 1"},
      {[&] { return add(pow2(70), str); }, "+", "argument 2"},
  };
  for (const Case& c : cases) {
    Error e = error_of([&] { c.f(); });
    EXPECT_EQ(e.kind, ErrorKind::TypeError);
    EXPECT_EQ(e.message.rfind(std::string(c.op) + ":", 0), 0u) << e.message;
    EXPECT_NE(e.message.find(c.pos), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("expected a number"), std::string::npos) << e.message;
  }
  Error e = error_of([&] { add(Value::nil(), I(1)); });
  EXPECT_NE(e.hint.find("nil"), std::string::npos);
  e = error_of([&] { add(str, I(1)); });
  EXPECT_NE(e.message.find("\"a\""), std::string::npos);
  EXPECT_NE(e.hint.find("parse"), std::string::npos);
  EXPECT_NO_THROW(require_number("x", I(1), 1));
  EXPECT_NO_THROW(require_number("x", pow2(90), 1));
  EXPECT_NO_THROW(require_number("x", F(NAN), 1));
}

// Counts what GMP allocates, to prove a refused multiplication did no work.
size_t g_gmp_max_alloc = 0;
void* (*g_alloc)(size_t);
void* (*g_realloc)(void*, size_t, size_t);
void (*g_free)(void*, size_t);
void* count_alloc(size_t n) {
  g_gmp_max_alloc = std::max(g_gmp_max_alloc, n);
  return g_alloc(n);
}
void* count_realloc(void* p, size_t old, size_t n) {
  g_gmp_max_alloc = std::max(g_gmp_max_alloc, n);
  return g_realloc(p, old, n);
}

TEST(NumbersMemory, BignumMultiplicationRefusedBeforeComputing) {
  Limits lim;
  lim.max_heap_bytes = 1 << 17;
  Ctx ctx(lim);
  Mpz z;
  // About 421,000 bits (6,600 limbs, ~53 KB in the arena): under the integer
  // size cap, but its square (~106 KB) does not fit the 128 KB heap.
  mpz_ui_pow_ui(z.get(), 7, 150000);
  Value x = integer_from_mpz(ctx.arena, z.get());
  ASSERT_TRUE(x.is(Type::BigInt));
  size_t used = ctx.arena.used();
  mp_get_memory_functions(&g_alloc, &g_realloc, &g_free);
  mp_set_memory_functions(count_alloc, count_realloc, g_free);
  g_gmp_max_alloc = 0;
  ErrorKind kind = ErrorKind::Fail;
  try {
    num_mul(ctx.arena, x, x);
  } catch (const LispError& e) {
    kind = e.error().kind;
  }
  size_t peak = g_gmp_max_alloc;
  mp_set_memory_functions(g_alloc, g_realloc, g_free);
  EXPECT_EQ(kind, ErrorKind::MemoryLimit);
  EXPECT_LT(peak, size_t{64} << 10) << "the product was computed before the refusal";
  EXPECT_EQ(ctx.arena.used(), used) << "a refused result must not count";
  // A sum still fits.
  Value sum = num_add(ctx.arena, x, x);
  EXPECT_TRUE(sum.is(Type::BigInt));
  // Repeated squaring ends with MemoryLimit, not a crash or a wrapped value.
  Ctx ctx2(lim);
  Value p = Value::integer(3);
  try {
    for (int i = 0; i < 64; ++i)
      p = num_mul(ctx2.arena, p, p);
    FAIL() << "expected MemoryLimit";
  } catch (const LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::MemoryLimit);
  }
}

// Converting a NaN, an infinity or an out-of-range double to an integer is
// undefined behaviour; the helpers never do it.
TEST(DoubleToInteger, TruncatesWithinTheRange) {
  EXPECT_EQ(double_to_int64(3.9), 3);
  EXPECT_EQ(double_to_int64(-3.9), -3);
  EXPECT_EQ(double_to_int64(-0.0), 0);
  EXPECT_EQ(double_to_int64(-9223372036854775808.0), kMin);
  EXPECT_EQ(double_to_int64(9223372036854774784.0), 9223372036854774784);  // largest below 2^63
  EXPECT_EQ(double_to_int64(9223372036854775808.0), std::nullopt);         // 2^63
  EXPECT_EQ(double_to_int64(-9223372036854777856.0), std::nullopt);        // next below -2^63
  EXPECT_EQ(double_to_int64(1e300), std::nullopt);
  EXPECT_EQ(double_to_int64(-1e300), std::nullopt);
  EXPECT_EQ(double_to_int64(kInf), std::nullopt);
  EXPECT_EQ(double_to_int64(-kInf), std::nullopt);
  EXPECT_EQ(double_to_int64(NAN), std::nullopt);
}

TEST(DoubleToInteger, Clamps) {
  EXPECT_EQ(double_to_int64_clamped(1e300), kMax);
  EXPECT_EQ(double_to_int64_clamped(-1e300), kMin);
  EXPECT_EQ(double_to_int64_clamped(kInf), kMax);
  EXPECT_EQ(double_to_int64_clamped(-kInf), kMin);
  EXPECT_EQ(double_to_int64_clamped(NAN), 0);
  EXPECT_EQ(double_to_int64_clamped(NAN, 0, 10, 7), 7);
  EXPECT_EQ(double_to_int64_clamped(-2.5, 0, 10), 0);
  EXPECT_EQ(double_to_int64_clamped(12.5, 0, 10), 10);
  EXPECT_EQ(double_to_int64_clamped(7.9, 0, 10), 7);
  EXPECT_EQ(double_to_int64_clamped(9223372036854775808.0), kMax);
  EXPECT_EQ(double_to_int64_clamped(-9223372036854775808.0), kMin);
  constexpr int64_t kFar = (int64_t{1} << 62) + 1;  // not an exact double
  EXPECT_EQ(double_to_int64_clamped(1e19, -kFar, kFar), kFar);
  EXPECT_EQ(double_to_int64_clamped(4611686018427387904.0, -kFar, kFar), kFar - 1);
}

TEST(DoubleToInteger, CheckedNamesTheFunctionAndArgument) {
  EXPECT_EQ(double_to_int64_checked(-7.5, "f", 2, "the count"), -7);
  for (double bad : {double{NAN}, kInf, -kInf, 1e19, -1e300}) {
    try {
      double_to_int64_checked(bad, "repeat", 1, "the count");
      ADD_FAILURE() << "expected an error for " << bad;
    } catch (const LispError& e) {
      EXPECT_EQ(e.error().kind, ErrorKind::ArithmeticError);
      EXPECT_EQ(
          e.error().message.rfind("repeat: the count (argument 1) must be a finite number", 0), 0u)
          << e.error().message;
    }
  }
  try {
    double_to_int64_checked(-kInf, "g", 0, "x");
  } catch (const LispError& e) {
    EXPECT_NE(e.error().message.find("got ##-Inf"), std::string::npos) << e.error().message;
    EXPECT_EQ(e.error().message.find("argument"), std::string::npos) << e.error().message;
  }
}

TEST(DoubleToInteger, SizesSaturate) {
  EXPECT_EQ(double_to_size_saturated(NAN, 100), 100u);
  EXPECT_EQ(double_to_size_saturated(kInf, 100), 100u);
  EXPECT_EQ(double_to_size_saturated(1e300, 100), 100u);
  EXPECT_EQ(double_to_size_saturated(-5, 100), 0u);
  EXPECT_EQ(double_to_size_saturated(-kInf, 100), 0u);
  EXPECT_EQ(double_to_size_saturated(42.9, 100), 42u);
  EXPECT_EQ(double_to_size_saturated(1e30, SIZE_MAX), SIZE_MAX);
}

// Every integer stays within kMaxIntegerBits; a larger one is refused with
// memory_limit before the work that would make it.
TEST(IntegerSize, CapHoldsForEveryWayOfMakingAnInteger) {
  Limits lim;
  lim.max_heap_bytes = 64 << 20;
  Ctx ctx(lim);
  auto kind_of = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const LispError& e) {
      return e.error().kind;
    }
    return ErrorKind::Fail;
  };
  // The largest integer: 2^cap - 1, exactly kMaxIntegerDigits decimal digits.
  Mpz z;
  mpz_ui_pow_ui(z.get(), 2, kMaxIntegerBits);
  mpz_sub_ui(z.get(), z.get(), 1);
  Value top = integer_from_mpz(ctx.arena, z.get());
  EXPECT_EQ(integer_bits(top), kMaxIntegerBits);
  EXPECT_EQ(mpz_sizeinbase(z.get(), 10), kMaxIntegerDigits);
  std::string digits = print_to_string(top);
  EXPECT_EQ(digits.size(), kMaxIntegerDigits);
  EXPECT_TRUE(equals(integer_from_decimal(ctx.arena, digits), top));
  EXPECT_EQ(kind_of([&] { integer_from_decimal(ctx.arena, digits + "0"); }),
            ErrorKind::MemoryLimit);
  // Leading zeros do not count; a sign is allowed.
  EXPECT_TRUE(equals(integer_from_decimal(ctx.arena, "-000" + digits), num_neg(ctx.arena, top)));
  // One more is over the cap, however it is made.
  EXPECT_EQ(kind_of([&] { num_add(ctx.arena, top, Value::integer(1)); }), ErrorKind::MemoryLimit);
  EXPECT_EQ(kind_of([&] { num_sub(ctx.arena, num_neg(ctx.arena, top), Value::integer(1)); }),
            ErrorKind::MemoryLimit);
  EXPECT_EQ(kind_of([&] { num_mul(ctx.arena, top, Value::integer(2)); }), ErrorKind::MemoryLimit);
  mpz_ui_pow_ui(z.get(), 2, kMaxIntegerBits / 2);
  Value half = integer_from_mpz(ctx.arena, z.get());  // 2^(cap/2): cap/2 + 1 bits
  EXPECT_EQ(kind_of([&] { num_mul(ctx.arena, half, half); }), ErrorKind::MemoryLimit);
  Value under = num_sub(ctx.arena, half, Value::integer(1));  // cap/2 bits
  EXPECT_EQ(integer_bits(num_mul(ctx.arena, under, under)), kMaxIntegerBits);
  // Division never grows a number.
  EXPECT_TRUE(equals(num_quot(ctx.arena, top, Value::integer(1)), top));
  EXPECT_EQ(num_rem(ctx.arena, top, top).as_int(), 0);
  // The message says what happened and what the cap is.
  try {
    num_mul(ctx.arena, top, top);
  } catch (const LispError& e) {
    EXPECT_NE(e.error().message.find("integer too large: * would give about 2097151 bits"),
              std::string::npos)
        << e.error().message;
    EXPECT_NE(e.error().message.find("limit 1048576 bits"), std::string::npos);
    EXPECT_FALSE(e.error().hint.empty());
  }
}

TEST(NumbersMemory, IntegerFromDecimal) {
  Limits lim;
  Ctx ctx(lim);
  EXPECT_TRUE(integer_from_decimal(ctx.arena, "9223372036854775807").is_int());
  EXPECT_TRUE(integer_from_decimal(ctx.arena, "-9223372036854775808").is_int());
  EXPECT_TRUE(integer_from_decimal(ctx.arena, "9223372036854775808").is(Type::BigInt));
  EXPECT_TRUE(integer_from_decimal(ctx.arena, "-9223372036854775809").is(Type::BigInt));
  EXPECT_EQ(integer_from_decimal(ctx.arena, "+42").as_int(), 42);
  EXPECT_THROW(integer_from_decimal(ctx.arena, "12a"), LispError);
  EXPECT_THROW(integer_from_decimal(ctx.arena, ""), LispError);
  Value b = integer_from_decimal(ctx.arena, "-123456789012345678901234567890");
  EXPECT_EQ(print_to_string(b), "-123456789012345678901234567890");
  EXPECT_EQ(bigint_sign(b.big()), -1);
  EXPECT_EQ(bigint_limbs(b), 2u);
  EXPECT_EQ(bigint_limbs(Value::integer(5)), 1u);
}

}  // namespace
}  // namespace ptc
