// Arithmetic builtins (spec §8.4): variadic + - * /, and the unary and binary
// integer helpers. The numeric tower itself is in runtime/numbers.cpp.
#include <cmath>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/numbers.hpp"

namespace ptc::builtins {

namespace {

using NumOp = Value (*)(Arena&, Value, Value);

Value fold(Ctx& ctx, NumOp op, Value acc, const Value* args, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    acc = op(ctx.arena, acc, args[i]);
  return acc;
}

Value add(Ctx& ctx, const Value* a, uint32_t n) {
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
  return num_add(ctx.arena, a[0], Value::integer(1));
}
Value dec(Ctx& ctx, const Value* a, uint32_t) {
  return num_sub(ctx.arena, a[0], Value::integer(1));
}
Value quot(Ctx& ctx, const Value* a, uint32_t) {
  return num_quot(ctx.arena, a[0], a[1]);
}
Value rem(Ctx& ctx, const Value* a, uint32_t) {
  return num_rem(ctx.arena, a[0], a[1]);
}
Value mod(Ctx& ctx, const Value* a, uint32_t) {
  return num_mod(ctx.arena, a[0], a[1]);
}

Value abs(Ctx& ctx, const Value* a, uint32_t) {
  require_number("abs", a[0], 1);
  if (a[0].is_float()) return Value::floating(std::fabs(a[0].as_float()));
  if (compare_numbers(a[0], Value::integer(0)) < 0) return num_neg(ctx.arena, a[0]);
  return a[0];
}

template <int Sign>
Value extremum(Ctx&, const Value* a, uint32_t n) {
  const char* name = Sign > 0 ? "max" : "min";
  Value best = a[0];
  require_number(name, best, 1);
  for (uint32_t i = 1; i < n; ++i) {
    require_number(name, a[i], static_cast<int>(i) + 1);
    bool unordered;
    int c = compare_numbers(a[i], best, &unordered);
    if (unordered) return Value::floating(NAN);
    if (c * Sign > 0) best = a[i];
  }
  return best;
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "+", 0, kVariadic, add, "(+ x y ...)", "Sum of the numbers; (+) is 0."),
    PTC_BUILTIN(Core, "+'", 0, kVariadic, add, "(+' x y ...)", "Same as +."),
    PTC_BUILTIN(Core, "-", 1, kVariadic, sub, "(- x y ...)", "Subtracts the rest from the first; (- x) negates."),
    PTC_BUILTIN(Core, "-'", 1, kVariadic, sub, "(-' x y ...)", "Same as -."),
    PTC_BUILTIN(Core, "*", 0, kVariadic, mul, "(* x y ...)", "Product of the numbers; (*) is 1."),
    PTC_BUILTIN(Core, "*'", 0, kVariadic, mul, "(*' x y ...)", "Same as *."),
    PTC_BUILTIN(Core, "/", 1, kVariadic, div, "(/ x y ...)", "Divides the first by the rest; always a float. Integer division by zero is an error."),
    PTC_BUILTIN(Core, "inc", 1, 1, inc, "(inc x)", "x + 1."),
    PTC_BUILTIN(Core, "inc'", 1, 1, inc, "(inc' x)", "Same as inc."),
    PTC_BUILTIN(Core, "dec", 1, 1, dec, "(dec x)", "x - 1."),
    PTC_BUILTIN(Core, "dec'", 1, 1, dec, "(dec' x)", "Same as dec."),
    PTC_BUILTIN(Math, "quot", 2, 2, quot, "(quot x y)", "Integer quotient, truncated toward zero."),
    PTC_BUILTIN(Core, "rem", 2, 2, rem, "(rem x y)", "Remainder with the sign of the dividend."),
    PTC_BUILTIN(Core, "mod", 2, 2, mod, "(mod x y)", "Modulus with the sign of the divisor."),
    PTC_BUILTIN(Math, "abs", 1, 1, abs, "(abs x)", "Absolute value."),
    PTC_BUILTIN(Math, "max", 1, kVariadic, extremum<1>, "(max x y ...)", "The largest number."),
    PTC_BUILTIN(Math, "min", 1, kVariadic, extremum<-1>, "(min x y ...)", "The smallest number."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> arithmetic() {
  return kDefs;
}

}  // namespace ptc::builtins
