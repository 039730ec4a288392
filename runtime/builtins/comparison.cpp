// Equality and ordering builtins (spec §8.5, §11.3). Ordered comparisons are
// recoverable: they accept any values and use the total order of compare();
// any comparison involving NaN is false. = is numeric type-independent
// (DIV-32) and == is the same function (DIV-10: any types, no error).
#include <cmath>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"

namespace ptc::builtins {

namespace {

bool is_nan(Value v) {
  return v.is_float() && std::isnan(v.as_float());
}

Value eq(Ctx& ctx, const Value* a, uint32_t n) {
  ctx.tick(n);
  for (uint32_t i = 1; i < n; ++i)
    if (!equals(a[0], a[i])) return Value::boolean(false);
  return Value::boolean(true);
}

Value not_eq_(Ctx& ctx, const Value* a, uint32_t n) {
  return Value::boolean(!eq(ctx, a, n).as_bool());
}

// Ordered comparison of adjacent pairs; `ok` decides from compare()'s sign.
template <class Ok>
Value chain(Ctx& ctx, const Value* a, uint32_t n, Ok ok) {
  ctx.tick(n);
  for (uint32_t i = 0; i + 1 < n; ++i) {
    if (is_nan(a[i]) || is_nan(a[i + 1])) return Value::boolean(false);
    if (!ok(compare(a[i], a[i + 1]))) return Value::boolean(false);
  }
  return Value::boolean(true);
}

Value lt(Ctx& ctx, const Value* a, uint32_t n) {
  return chain(ctx, a, n, [](int c) { return c < 0; });
}
Value gt(Ctx& ctx, const Value* a, uint32_t n) {
  return chain(ctx, a, n, [](int c) { return c > 0; });
}
Value le(Ctx& ctx, const Value* a, uint32_t n) {
  return chain(ctx, a, n, [](int c) { return c <= 0; });
}
Value ge(Ctx& ctx, const Value* a, uint32_t n) {
  return chain(ctx, a, n, [](int c) { return c >= 0; });
}

// NaN is neither less nor greater than anything, so it compares as 0, as in
// Clojure (DIV-33 was reclassified as a bug: the old type error is gone).
Value compare_(Ctx&, const Value* a, uint32_t) {
  if (is_nan(a[0]) || is_nan(a[1])) return Value::integer(0);
  return Value::integer(compare(a[0], a[1]));
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "=", 1, kVariadic, eq, "(= x y ...)", "True when all arguments are equal (1 and 1.0 are equal)."),
    PTC_BUILTIN(Core, "==", 1, kVariadic, eq, "(== x y ...)", "Same as =."),
    PTC_BUILTIN(Core, "not=", 1, kVariadic, not_eq_, "(not= x y ...)", "True when not all arguments are equal."),
    PTC_BUILTIN(Core, "<", 1, kVariadic, lt, "(< x y ...)", "True when the arguments increase strictly; never true with NaN."),
    PTC_BUILTIN(Core, ">", 1, kVariadic, gt, "(> x y ...)", "True when the arguments decrease strictly."),
    PTC_BUILTIN(Core, "<=", 1, kVariadic, le, "(<= x y ...)", "True when the arguments never decrease."),
    PTC_BUILTIN(Core, ">=", 1, kVariadic, ge, "(>= x y ...)", "True when the arguments never increase."),
    PTC_BUILTIN(Core, "compare", 2, 2, compare_, "(compare x y)", "-1, 0 or 1 as x sorts before, with or after y (numbers by value, then the total order)."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> comparison() {
  return kDefs;
}

}  // namespace ptc::builtins
