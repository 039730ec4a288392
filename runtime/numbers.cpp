#include "runtime/numbers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "runtime/arena.hpp"
#include "runtime/bignum.hpp"
#include "runtime/error.hpp"
#include "runtime/printer.hpp"

namespace ptc {

void require_number(std::string_view op, Value v, int arg_position) {
  if (v.is_number()) return;
  std::string where = arg_position > 0 ? fmt::format(" (argument {})", arg_position) : "";
  std::string hint;
  if (v.is_nil())
    hint = "a value is nil: guard missing fields with (or x 0) or filter with some?";
  else if (v.is_string())
    hint = "convert text first with parse-long or parse-double";
  throw_error(ErrorKind::TypeError,
              v.is_nil() ? fmt::format("{}: expected a number{}, got nil", op, where)
                         : fmt::format("{}: expected a number{}, got {} {}", op, where,
                                       type_name(v.type()), preview(v)),
              hint);
}

std::optional<int64_t> double_to_int64(double d) {
  // Both bounds are exact doubles: -2^63 is the least int64, 2^63 the first
  // double past the greatest. NaN fails both comparisons.
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
    return static_cast<int64_t>(std::trunc(d));
  return std::nullopt;
}

int64_t double_to_int64_clamped(double d, int64_t lo, int64_t hi, int64_t if_nan) {
  if (std::isnan(d)) return if_nan;
  if (auto i = double_to_int64(d)) return std::clamp(*i, lo, hi);
  return d > 0 ? hi : lo;
}

int64_t double_to_int64_checked(double d, std::string_view fname, int arg_position,
                                std::string_view what) {
  if (auto i = double_to_int64(d)) return *i;
  std::string shown;
  if (std::isnan(d))
    shown = "##NaN";
  else if (std::isinf(d))
    shown = d > 0 ? "##Inf" : "##-Inf";
  else
    shown = preview(Value::floating(d));
  std::string where = arg_position > 0 ? fmt::format(" (argument {})", arg_position) : "";
  throw_error(
      ErrorKind::ArithmeticError,
      fmt::format("{}: {}{} must be a finite number within the 64-bit integer range, got {}", fname,
                  what, where, shown),
      "check the number first with NaN?, infinite? or a range test");
}

size_t double_to_size_saturated(double d, size_t cap) {
  if (!(d < static_cast<double>(cap))) return cap;  // NaN too
  if (d <= 0) return 0;
  return static_cast<size_t>(d);
}

std::optional<double> parse_decimal_float(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
      ++i;
    return i > start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (!digits()) return std::nullopt;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return std::nullopt;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  // The syntax is checked: strtod (C locale) only converts.
  double d = std::strtod(std::string(s).c_str(), nullptr);
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

double to_double(Value v) {
  if (v.is_int()) return static_cast<double>(v.as_int());
  if (v.is_float()) return v.as_float();
  return bigint_to_double(v.big());
}

namespace {

enum class Op { Add, Sub, Mul };

const char* op_name(Op op) {
  return op == Op::Add ? "+" : op == Op::Sub ? "-" : "*";
}

Value big_op(Arena& arena, Op op, Value a, Value b) {
  uint64_t ba = integer_bits(a), bb = integer_bits(b);
  // A product has bits(a) + bits(b) - 1 bits or one more, a sum or
  // difference at most one more than its larger operand; the exact size is
  // checked again when the result is made.
  check_integer_bits(arena, op == Op::Mul ? (ba && bb ? ba + bb - 1 : 0) : std::max(ba, bb),
                     op_name(op));
  size_t la = bigint_limbs(a), lb = bigint_limbs(b);
  charge_bigint_work(op == Op::Mul ? 2 * (la + lb) : la + lb);
  MpzView x(a), y(b);
  Mpz r;
  switch (op) {
    case Op::Add:
      mpz_add(r.get(), x.get(), y.get());
      break;
    case Op::Sub:
      mpz_sub(r.get(), x.get(), y.get());
      break;
    case Op::Mul:
      mpz_mul(r.get(), x.get(), y.get());
      break;
  }
  return integer_from_mpz(arena, r.get());
}

Value float_op(Op op, double x, double y) {
  switch (op) {
    case Op::Add:
      return Value::floating(x + y);
    case Op::Sub:
      return Value::floating(x - y);
    case Op::Mul:
      return Value::floating(x * y);
  }
  return Value();
}

Value arith(Arena& arena, Op op, Value a, Value b) {
  if (a.is_int() && b.is_int()) {
    int64_t r;
    bool overflow = false;
    switch (op) {
      case Op::Add:
        overflow = __builtin_add_overflow(a.as_int(), b.as_int(), &r);
        break;
      case Op::Sub:
        overflow = __builtin_sub_overflow(a.as_int(), b.as_int(), &r);
        break;
      case Op::Mul:
        overflow = __builtin_mul_overflow(a.as_int(), b.as_int(), &r);
        break;
    }
    if (!overflow) return Value::integer(r);
    return big_op(arena, op, a, b);
  }
  require_number(op_name(op), a, 1);
  require_number(op_name(op), b, 2);
  if (a.is_float() || b.is_float()) return float_op(op, to_double(a), to_double(b));
  return big_op(arena, op, a, b);
}

[[noreturn]] void divide_by_zero(const char* op) {
  throw_error(ErrorKind::ArithmeticError, fmt::format("{}: division by zero", op),
              "check the divisor first, e.g. (if (zero? d) 0 (/ n d)); a float divisor 0.0 "
              "gives ##Inf or ##NaN instead");
}

enum class DivKind { Quot, Rem, Mod };

Value int_division(Arena& arena, DivKind kind, Value a, Value b, const char* op) {
  if (a.is_int() && b.is_int()) {
    int64_t x = a.as_int(), y = b.as_int();
    if (y == 0) divide_by_zero(op);
    if (!(x == INT64_MIN && y == -1)) {
      int64_t q = x / y, r = x % y;
      switch (kind) {
        case DivKind::Quot:
          return Value::integer(q);
        case DivKind::Rem:
          return Value::integer(r);
        case DivKind::Mod:
          return Value::integer((r != 0 && ((r < 0) != (y < 0))) ? r + y : r);
      }
    }
  }
  MpzView x(a), y(b);
  if (mpz_sgn(y.get()) == 0) divide_by_zero(op);
  // The result is no larger than the dividend (or the divisor, for mod).
  charge_bigint_work(2 * (bigint_limbs(a) + bigint_limbs(b)));
  Mpz r;
  switch (kind) {
    case DivKind::Quot:
      mpz_tdiv_q(r.get(), x.get(), y.get());
      break;
    case DivKind::Rem:
      mpz_tdiv_r(r.get(), x.get(), y.get());
      break;
    case DivKind::Mod:
      mpz_fdiv_r(r.get(), x.get(), y.get());  // floored: sign follows the divisor
      break;
  }
  return integer_from_mpz(arena, r.get());
}

Value division(Arena& arena, DivKind kind, Value a, Value b, const char* op) {
  require_number(op, a, 1);
  require_number(op, b, 2);
  if (a.is_integer() && b.is_integer()) return int_division(arena, kind, a, b, op);
  double x = to_double(a), y = to_double(b);
  if (y == 0.0) divide_by_zero(op);
  if (!std::isfinite(x) || std::isnan(y)) return Value::floating(NAN);
  // An infinite divisor: the quotient truncates to zero; rem and mod are
  // x - 0 * Inf, NaN, as in Clojure and the reference implementation.
  if (std::isinf(y)) return Value::floating(kind == DivKind::Quot ? 0.0 : NAN);
  double q = std::trunc(x / y);
  switch (kind) {
    case DivKind::Quot:
      return Value::floating(q);
    case DivKind::Rem:
      return Value::floating(std::fmod(x, y));
    case DivKind::Mod: {
      double m = std::fmod(x, y);
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return Value::floating(m);
    }
  }
  return Value();
}

}  // namespace

Value num_add(Arena& arena, Value a, Value b) {
  return arith(arena, Op::Add, a, b);
}
Value num_sub(Arena& arena, Value a, Value b) {
  return arith(arena, Op::Sub, a, b);
}
Value num_mul(Arena& arena, Value a, Value b) {
  return arith(arena, Op::Mul, a, b);
}

Value num_neg(Arena& arena, Value a) {
  if (a.is_int() && a.as_int() != INT64_MIN) return Value::integer(-a.as_int());
  if (a.is_float()) return Value::floating(-a.as_float());
  require_number("-", a, 1);
  return big_op(arena, Op::Sub, Value::integer(0), a);
}

Value num_div(Arena&, Value a, Value b) {
  require_number("/", a, 1);
  require_number("/", b, 2);
  if (b.is_int() && b.as_int() == 0) divide_by_zero("/");
  return Value::floating(to_double(a) / to_double(b));
}

Value num_quot(Arena& arena, Value a, Value b) {
  return division(arena, DivKind::Quot, a, b, "quot");
}
Value num_rem(Arena& arena, Value a, Value b) {
  return division(arena, DivKind::Rem, a, b, "rem");
}
Value num_mod(Arena& arena, Value a, Value b) {
  return division(arena, DivKind::Mod, a, b, "mod");
}

}  // namespace ptc
