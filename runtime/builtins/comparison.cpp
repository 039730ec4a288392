// Equality and ordering builtins (spec §8.5, §11.3). Ordered comparisons are
// recoverable: they accept any values and use the total order of compare();
// any comparison involving NaN is false.
#include <cmath>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"

namespace ptc::builtins {

namespace {

bool is_nan(Value v) {
  return v.is_float() && std::isnan(v.as_float());
}

Value eq(Ctx&, const Value* a, uint32_t n) {
  for (uint32_t i = 1; i < n; ++i)
    if (!equals(a[0], a[i])) return Value::boolean(false);
  return Value::boolean(true);
}

Value not_eq_(Ctx& ctx, const Value* a, uint32_t n) {
  return Value::boolean(!eq(ctx, a, n).as_bool());
}

// Ordered comparison of adjacent pairs; `ok` decides from compare()'s sign.
template <class Ok>
Value chain(const Value* a, uint32_t n, Ok ok) {
  for (uint32_t i = 0; i + 1 < n; ++i) {
    if (is_nan(a[i]) || is_nan(a[i + 1])) return Value::boolean(false);
    if (!ok(compare(a[i], a[i + 1]))) return Value::boolean(false);
  }
  return Value::boolean(true);
}

Value lt(Ctx&, const Value* a, uint32_t n) {
  return chain(a, n, [](int c) { return c < 0; });
}
Value gt(Ctx&, const Value* a, uint32_t n) {
  return chain(a, n, [](int c) { return c > 0; });
}
Value le(Ctx&, const Value* a, uint32_t n) {
  return chain(a, n, [](int c) { return c <= 0; });
}
Value ge(Ctx&, const Value* a, uint32_t n) {
  return chain(a, n, [](int c) { return c >= 0; });
}

Value compare_(Ctx&, const Value* a, uint32_t) {
  if (is_nan(a[0]) || is_nan(a[1]))
    type_error("compare", "comparable values (NaN is unordered)", is_nan(a[0]) ? a[0] : a[1],
               is_nan(a[0]) ? 1 : 2);
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
    PTC_BUILTIN(Core, "compare", 2, 2, compare_, "(compare x y)", "-1, 0 or 1 comparing x with y."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> comparison() {
  return kDefs;
}

}  // namespace ptc::builtins
