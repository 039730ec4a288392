// Arithmetic builtins (spec §8.4): variadic + - * /, and the unary and binary
// integer helpers. The numeric tower itself is in runtime/numbers.cpp.
#include <fmt/format.h>

#include <cmath>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/numbers.hpp"
#include "runtime/printer.hpp"

namespace ptc::builtins {

namespace {

using NumOp = Value (*)(Arena&, Value, Value);

Value fold(Ctx& ctx, NumOp op, Value acc, const Value* args, uint32_t n) {
  ctx.tick(n);
  for (uint32_t i = 0; i < n; ++i)
    acc = op(ctx.arena, acc, args[i]);
  return acc;
}

Value add(Ctx& ctx, const Value* a, uint32_t n) {
  // (+ x y) on two integers, as (fnil + 0) and (reduce + xs) make it: no fold.
  if (int64_t r; n == 2 && a[0].is_int() && a[1].is_int() &&
                 !__builtin_add_overflow(a[0].as_int(), a[1].as_int(), &r))
    return Value::integer(r);
  if (n == 0) return Value::integer(0);
  if (n == 1) {
    require_number("+", a[0], 1);
    return a[0];
  }
  return fold(ctx, num_add, a[0], a + 1, n - 1);
}

Value mul(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 0) return Value::integer(1);
  if (n == 1) {
    require_number("*", a[0], 1);
    return a[0];
  }
  return fold(ctx, num_mul, a[0], a + 1, n - 1);
}

Value sub(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 1) return num_neg(ctx.arena, a[0]);
  return fold(ctx, num_sub, a[0], a + 1, n - 1);
}

Value div(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 1) return num_div(ctx.arena, Value::integer(1), a[0]);
  return fold(ctx, num_div, a[0], a + 1, n - 1);
}

Value inc(Ctx& ctx, const Value* a, uint32_t) {
  require_number("inc", a[0], 1);
  return num_add(ctx.arena, a[0], Value::integer(1));
}
Value dec(Ctx& ctx, const Value* a, uint32_t) {
  require_number("dec", a[0], 1);
  return num_sub(ctx.arena, a[0], Value::integer(1));
}

// quot, rem and mod are defined only for finite dividends and non-NaN
// divisors, as in Clojure, whose double path fails converting a NaN or
// infinite quotient to an integer (GAP-S138). An infinite divisor with a
// finite dividend is well defined: the quotient truncates to 0.0.
void check_finite_division(const char* fname, Value x, Value y) {
  require_number(fname, x, 1);
  require_number(fname, y, 2);
  bool bad_x = x.is_float() && !std::isfinite(x.as_float());
  bool bad_y = y.is_float() && std::isnan(y.as_float());
  if (!bad_x && !bad_y) return;
  throw_error(ErrorKind::ArithmeticError,
              fmt::format("{}: {} {} has no integer quotient", fname,
                          bad_x ? "dividend" : "divisor", preview(bad_x ? x : y)),
              "check the operands with NaN? or infinite? first");
}

Value quot(Ctx& ctx, const Value* a, uint32_t) {
  check_finite_division("quot", a[0], a[1]);
  return num_quot(ctx.arena, a[0], a[1]);
}
Value rem(Ctx& ctx, const Value* a, uint32_t) {
  check_finite_division("rem", a[0], a[1]);
  return num_rem(ctx.arena, a[0], a[1]);
}
Value mod(Ctx& ctx, const Value* a, uint32_t) {
  check_finite_division("mod", a[0], a[1]);
  return num_mod(ctx.arena, a[0], a[1]);
}

Value abs(Ctx& ctx, const Value* a, uint32_t) {
  require_number("abs", a[0], 1);
  if (a[0].is_float()) return Value::floating(std::fabs(a[0].as_float()));
  if (compare_numbers(a[0], Value::integer(0)) < 0) return num_neg(ctx.arena, a[0]);
  return a[0];
}

bool is_nan(Value v) {
  return v.is_float() && std::isnan(v.as_float());
}

// max and min accept any values and order them with the runtime's total order
// (DIV-45: (max 1 2.0) is 2.0, (min nil 1) is 1), so they work on strings and
// mixed data as the ordered comparisons do. NaN anywhere gives NaN; on ties
// the earlier argument wins.
template <int Sign>
Value extremum(Ctx& ctx, const Value* a, uint32_t n) {
  ctx.tick(n);
  Value best = a[0];
  if (is_nan(best)) return best;
  for (uint32_t i = 1; i < n; ++i) {
    if (is_nan(a[i])) return a[i];
    if (compare(a[i], best) * Sign > 0) best = a[i];
  }
  return best;
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "+", 0, kVariadic, add, "(+ x y ...)", "Sum of the numbers; (+) is 0."),
    PTC_BUILTIN(Core, "+'", 0, kVariadic, add, "(+' x y ...)", "Same as + (integers never overflow)."),
    PTC_BUILTIN(Core, "-", 1, kVariadic, sub, "(- x y ...)", "Subtracts the rest from the first; (- x) negates."),
    PTC_BUILTIN(Core, "-'", 1, kVariadic, sub, "(-' x y ...)", "Same as - (integers never overflow)."),
    PTC_BUILTIN(Core, "*", 0, kVariadic, mul, "(* x y ...)", "Product of the numbers; (*) is 1."),
    PTC_BUILTIN(Core, "*'", 0, kVariadic, mul, "(*' x y ...)", "Same as * (integers never overflow)."),
    PTC_BUILTIN(Core, "/", 1, kVariadic, div, "(/ x y ...)", "Divides the first by the rest; always a float. Integer division by zero is an error."),
    PTC_BUILTIN(Core, "inc", 1, 1, inc, "(inc x)", "x + 1."),
    PTC_BUILTIN(Core, "inc'", 1, 1, inc, "(inc' x)", "Same as inc."),
    PTC_BUILTIN(Core, "dec", 1, 1, dec, "(dec x)", "x - 1."),
    PTC_BUILTIN(Core, "dec'", 1, 1, dec, "(dec' x)", "Same as dec."),
    PTC_BUILTIN(Math, "quot", 2, 2, quot, "(quot x y)", "Quotient truncated toward zero; a float when either operand is one."),
    PTC_BUILTIN(Core, "rem", 2, 2, rem, "(rem x y)", "Remainder of truncated division; takes the sign of x."),
    PTC_BUILTIN(Core, "mod", 2, 2, mod, "(mod x y)", "Remainder of floored division; takes the sign of y."),
    PTC_BUILTIN(Math, "abs", 1, 1, abs, "(abs x)", "Absolute value."),
    PTC_BUILTIN(Math, "max", 1, kVariadic, extremum<1>, "(max x y ...)", "The greatest argument (numbers by value, other values by the total order); NaN if any is NaN."),
    PTC_BUILTIN(Math, "min", 1, kVariadic, extremum<-1>, "(min x y ...)", "The least argument (numbers by value, other values by the total order); NaN if any is NaN."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> arithmetic() {
  return kDefs;
}

}  // namespace ptc::builtins
