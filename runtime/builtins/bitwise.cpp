// Bitwise operations on integers (spec §8.4a). Integers are arbitrary
// precision two's complement, so nothing is masked to 64 bits: a shift or bit
// index is any non-negative integer (a negative one is a type error, as the
// spec says, rather than JVM masking, GAP-S52), left shifts grow without
// bound (within the memory cap), and bignum operands are accepted (GAP-S142).
// bit-and, bit-or, bit-xor and bit-and-not need two or more arguments
// (GAP-S108).
#include <algorithm>
#include <limits>

#include "runtime/bignum.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

namespace {

void expect_integer(const char* fname, Value v, int pos) {
  if (!v.is_integer()) type_error(fname, "an integer", v, pos);
}

// A bit index or shift count. A bignum index is far past any representable
// bit, so it is clamped to the largest index.
uint64_t bit_index(const char* fname, Value v, int pos) {
  if (v.is_int() && v.as_int() >= 0) return static_cast<uint64_t>(v.as_int());
  if (v.is(Type::BigInt) && mpz_sgn(MpzView(v).get()) > 0)
    return std::numeric_limits<uint64_t>::max();
  type_error(fname, "a non-negative integer bit index", v, pos);
}

bool is_negative(Value x) {
  return x.is_int() ? x.as_int() < 0 : mpz_sgn(MpzView(x).get()) < 0;
}

bool is_zero(Value x) {
  return x.is_int() && x.as_int() == 0;
}

// a + b without wrapping (a shift count may be near 2^64).
uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

enum class Logic { And, Or, Xor, AndNot };

Value logic(Ctx& ctx, Logic op, const char* fname, const Value* a, uint32_t n) {
  ctx.tick(n);
  for (uint32_t i = 0; i < n; ++i)
    expect_integer(fname, a[i], static_cast<int>(i) + 1);
  Value acc = a[0];
  for (uint32_t i = 1; i < n; ++i) {
    Value y = a[i];
    if (acc.is_int() && y.is_int()) {
      int64_t p = acc.as_int(), q = y.as_int();
      switch (op) {
        case Logic::And:
          acc = Value::integer(p & q);
          break;
        case Logic::Or:
          acc = Value::integer(p | q);
          break;
        case Logic::Xor:
          acc = Value::integer(p ^ q);
          break;
        case Logic::AndNot:
          acc = Value::integer(p & ~q);
          break;
      }
      continue;
    }
    size_t limbs = std::max(bigint_limbs(acc), bigint_limbs(y)) + 1;
    check_integer_bits(ctx.arena, std::max(integer_bits(acc), integer_bits(y)) + 1, fname);
    ctx.tick(static_cast<int64_t>(limbs));
    MpzView p(acc), q(y);
    Mpz r;
    switch (op) {
      case Logic::And:
        mpz_and(r.get(), p.get(), q.get());
        break;
      case Logic::Or:
        mpz_ior(r.get(), p.get(), q.get());
        break;
      case Logic::Xor:
        mpz_xor(r.get(), p.get(), q.get());
        break;
      case Logic::AndNot: {
        Mpz nq;
        mpz_com(nq.get(), q.get());
        mpz_and(r.get(), p.get(), nq.get());
        break;
      }
    }
    acc = integer_from_mpz(ctx.arena, r.get());
  }
  return acc;
}

Value bit_and(Ctx& ctx, const Value* a, uint32_t n) {
  return logic(ctx, Logic::And, "bit-and", a, n);
}
Value bit_or(Ctx& ctx, const Value* a, uint32_t n) {
  return logic(ctx, Logic::Or, "bit-or", a, n);
}
Value bit_xor(Ctx& ctx, const Value* a, uint32_t n) {
  return logic(ctx, Logic::Xor, "bit-xor", a, n);
}
Value bit_and_not(Ctx& ctx, const Value* a, uint32_t n) {
  return logic(ctx, Logic::AndNot, "bit-and-not", a, n);
}

Value bit_not(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  expect_integer("bit-not", x, 1);
  if (x.is_int()) return Value::integer(~x.as_int());
  check_integer_bits(ctx.arena, integer_bits(x) + 1, "bit-not");
  ctx.tick(static_cast<int64_t>(bigint_limbs(x)));
  Mpz r;
  mpz_com(r.get(), MpzView(x).get());
  return integer_from_mpz(ctx.arena, r.get());
}

Value shift_left(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  expect_integer("bit-shift-left", x, 1);
  uint64_t k = bit_index("bit-shift-left", a[1], 2);
  if (is_zero(x)) return x;
  if (x.is_int() && k <= static_cast<uint64_t>(__builtin_clrsbll(x.as_int())))
    return Value::integer(static_cast<int64_t>(static_cast<uint64_t>(x.as_int()) << k));
  check_integer_bits(ctx.arena, saturating_add(integer_bits(x), k), "bit-shift-left");
  ctx.tick(static_cast<int64_t>(bigint_limbs(x) + k / 64));
  Mpz r;
  mpz_mul_2exp(r.get(), MpzView(x).get(), k);
  return integer_from_mpz(ctx.arena, r.get());
}

// Arithmetic (sign-extending) shift: floor division by 2^k.
Value shift_right(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  expect_integer("bit-shift-right", x, 1);
  uint64_t k = bit_index("bit-shift-right", a[1], 2);
  if (x.is_int()) return Value::integer(k >= 63 ? (x.as_int() < 0 ? -1 : 0) : x.as_int() >> k);
  ctx.tick(static_cast<int64_t>(bigint_limbs(x)));
  Mpz r;
  mpz_fdiv_q_2exp(r.get(), MpzView(x).get(), k);
  return integer_from_mpz(ctx.arena, r.get());
}

Value bit_test(Ctx&, const Value* a, uint32_t) {
  Value x = a[0];
  expect_integer("bit-test", x, 1);
  uint64_t k = bit_index("bit-test", a[1], 2);
  if (x.is_int()) return Value::boolean(k >= 63 ? x.as_int() < 0 : ((x.as_int() >> k) & 1) != 0);
  if (k / 64 >= bigint_limbs(x)) return Value::boolean(is_negative(x));
  return Value::boolean(mpz_tstbit(MpzView(x).get(), k) != 0);
}

enum class BitOp { Set, Clear, Flip };

Value single_bit(Ctx& ctx, BitOp op, const char* fname, const Value* a) {
  Value x = a[0];
  expect_integer(fname, x, 1);
  uint64_t k = bit_index(fname, a[1], 2);
  if (x.is_int() && k < 63) {
    int64_t v = x.as_int(), m = int64_t{1} << k;
    return Value::integer(op == BitOp::Set ? (v | m) : op == BitOp::Clear ? (v & ~m) : (v ^ m));
  }
  // Past the highest stored bit every bit equals the sign: setting a bit of a
  // negative number or clearing one of a non-negative number changes nothing.
  bool beyond = k / 64 >= bigint_limbs(x);
  if (beyond && ((op == BitOp::Set && is_negative(x)) || (op == BitOp::Clear && !is_negative(x))))
    return x;
  check_integer_bits(ctx.arena, std::max(integer_bits(x), saturating_add(k, 2)), fname);
  ctx.tick(static_cast<int64_t>(std::max<uint64_t>(bigint_limbs(x), k / 64)));
  Mpz r;
  mpz_set(r.get(), MpzView(x).get());
  switch (op) {
    case BitOp::Set:
      mpz_setbit(r.get(), k);
      break;
    case BitOp::Clear:
      mpz_clrbit(r.get(), k);
      break;
    case BitOp::Flip:
      mpz_combit(r.get(), k);
      break;
  }
  return integer_from_mpz(ctx.arena, r.get());
}

Value bit_set(Ctx& ctx, const Value* a, uint32_t) {
  return single_bit(ctx, BitOp::Set, "bit-set", a);
}
Value bit_clear(Ctx& ctx, const Value* a, uint32_t) {
  return single_bit(ctx, BitOp::Clear, "bit-clear", a);
}
Value bit_flip(Ctx& ctx, const Value* a, uint32_t) {
  return single_bit(ctx, BitOp::Flip, "bit-flip", a);
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Math, "bit-and", 2, kVariadic, bit_and, "(bit-and x y & more)", "Bitwise AND of integers."),
    PTC_BUILTIN(Math, "bit-or", 2, kVariadic, bit_or, "(bit-or x y & more)", "Bitwise OR of integers."),
    PTC_BUILTIN(Math, "bit-xor", 2, kVariadic, bit_xor, "(bit-xor x y & more)", "Bitwise exclusive OR of integers."),
    PTC_BUILTIN(Math, "bit-and-not", 2, kVariadic, bit_and_not, "(bit-and-not x y & more)", "x with every bit set in the later arguments cleared."),
    PTC_BUILTIN(Math, "bit-not", 1, 1, bit_not, "(bit-not x)", "Bitwise complement: -x - 1."),
    PTC_BUILTIN(Math, "bit-shift-left", 2, 2, shift_left, "(bit-shift-left x n)", "x shifted left by n bits; never overflows."),
    PTC_BUILTIN(Math, "bit-shift-right", 2, 2, shift_right, "(bit-shift-right x n)", "x shifted right by n bits, keeping the sign."),
    PTC_BUILTIN(Math, "bit-set", 2, 2, bit_set, "(bit-set x n)", "x with bit n (from 0) set."),
    PTC_BUILTIN(Math, "bit-clear", 2, 2, bit_clear, "(bit-clear x n)", "x with bit n (from 0) cleared."),
    PTC_BUILTIN(Math, "bit-flip", 2, 2, bit_flip, "(bit-flip x n)", "x with bit n (from 0) inverted."),
    PTC_BUILTIN(Math, "bit-test", 2, 2, bit_test, "(bit-test x n)", "True when bit n (from 0) of x is set."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> bitwise() {
  return kDefs;
}

}  // namespace ptc::builtins
