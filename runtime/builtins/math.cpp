// Rounding, roots, powers, coercions (spec §8.4) and the pure java.lang.Math
// methods (Math/log, Math/sin, ...). floor, ceil, round and trunc return
// integers (DIV-42) and pass NaN and the infinities through unchanged (DIV-43).
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "runtime/bignum.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/numbers.hpp"
#include "runtime/printer.hpp"
#include "runtime/strings.hpp"

namespace ptc::builtins {

namespace {

// An integral double as an exact integer (a bignum past the int64 range).
Value integer_from_double(Ctx& ctx, double d) {
  if (auto i = double_to_int64(d)) return Value::integer(*i);
  int exp = 0;
  std::frexp(d, &exp);  // |d| < 2^exp, at most 2^1024
  check_integer_bits(ctx.arena, static_cast<uint64_t>(exp), "");
  Mpz z;
  mpz_set_d(z.get(), d);
  return integer_from_mpz(ctx.arena, z.get());
}

template <double (*Round)(double)>
Value rounding(Ctx& ctx, const Value* a, uint32_t, const char* name) {
  Value x = a[0];
  require_number(name, x, 1);
  if (!x.is_float()) return x;
  double d = x.as_float();
  if (!std::isfinite(d)) return x;
  return integer_from_double(ctx, Round(d));
}

double floor_d(double d) {
  return std::floor(d);
}
double ceil_d(double d) {
  return std::ceil(d);
}
double round_d(double d) {
  return std::round(d);  // halves away from zero: (round -2.5) is -3
}
double trunc_d(double d) {
  return std::trunc(d);
}

Value floor_(Ctx& ctx, const Value* a, uint32_t n) {
  return rounding<floor_d>(ctx, a, n, "floor");
}
Value ceil_(Ctx& ctx, const Value* a, uint32_t n) {
  return rounding<ceil_d>(ctx, a, n, "ceil");
}
Value round_(Ctx& ctx, const Value* a, uint32_t n) {
  return rounding<round_d>(ctx, a, n, "round");
}
Value trunc_(Ctx& ctx, const Value* a, uint32_t n) {
  return rounding<trunc_d>(ctx, a, n, "trunc");
}

double number_arg(std::string_view fname, Value v, int pos) {
  require_number(fname, v, pos);
  return to_double(v);
}

Value sqrt_(Ctx&, const Value* a, uint32_t) {
  double d = number_arg("sqrt", a[0], 1);
  if (d < 0) return Value::floating(std::numeric_limits<double>::quiet_NaN());
  return Value::floating(std::sqrt(d));
}

// java.lang.Math.pow (GAP-J13). C's pow agrees with Java except where C
// defines a result for a base of magnitude 1: Java gives NaN for 1^NaN,
// 1^±Inf and (-1)^±Inf, C gives 1.
Value pow_(Ctx&, const Value* a, uint32_t) {
  double x = number_arg("pow", a[0], 1), y = number_arg("pow", a[1], 2);
  if (y == 0) return Value::floating(1.0);
  if (std::isnan(y) || (std::isinf(y) && std::fabs(x) == 1.0))
    return Value::floating(std::numeric_limits<double>::quiet_NaN());
  return Value::floating(std::pow(x, y));
}

// double and float keep infinities and NaN (GAP-S122 is by design: there is
// no single-precision type to overflow).
Value double_(Ctx&, const Value* a, uint32_t) {
  return Value::floating(number_arg("double", a[0], 1));
}
Value float_(Ctx&, const Value* a, uint32_t) {
  return Value::floating(number_arg("float", a[0], 1));
}

[[noreturn]] void int_range_error(Value x) {
  throw_error(ErrorKind::ArithmeticError,
              fmt::format("int: {} is outside the int range [-2147483648, 2147483647]", preview(x)),
              "int is Java int coercion; use trunc or floor for larger numbers");
}

// Java int coercion: truncates toward zero, NaN is 0 (GAP-S62), infinities
// and values outside 32 bits are arithmetic errors (GAP-S111), and a
// character (a one-code-point string) gives its code point (GAP-S121).
Value int_(Ctx&, const Value* a, uint32_t) {
  Value x = a[0];
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (x.is_int()) {
    if (x.as_int() < kMin || x.as_int() > kMax) int_range_error(x);
    return x;
  }
  if (x.is_float()) {
    double d = x.as_float();
    if (std::isnan(d)) return Value::integer(0);
    if (std::isinf(d))
      throw_error(ErrorKind::ArithmeticError,
                  fmt::format("int: cannot convert {} to an integer", preview(x)),
                  "check with infinite? first");
    auto t = double_to_int64(d);
    if (!t || *t < kMin || *t > kMax) int_range_error(x);
    return Value::integer(*t);
  }
  if (x.is(Type::BigInt)) int_range_error(x);
  if (x.is_string()) {
    std::string_view s = x.str()->view();
    int32_t cp = 0;
    size_t len = decode_utf8(s, 0, &cp);
    if (len > 0 && len == s.size()) return Value::integer(cp);
  }
  type_error("int", "a number or a character", x, 1,
             x.is_string() ? "to read a number from text use parse-long or parse-double" : "");
}

// A one-argument java.lang.Math method on doubles; `name` is for type errors.
Value unary_math(const Value* a, const char* name, double (*f)(double)) {
  return Value::floating(f(number_arg(name, a[0], 1)));
}

// clang-format off
Value m_log(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/log", [](double x) { return std::log(x); }); }
Value m_log10(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/log10", [](double x) { return std::log10(x); }); }
Value m_exp(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/exp", [](double x) { return std::exp(x); }); }
Value m_sin(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/sin", [](double x) { return std::sin(x); }); }
Value m_cos(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/cos", [](double x) { return std::cos(x); }); }
Value m_tan(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/tan", [](double x) { return std::tan(x); }); }
Value m_asin(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/asin", [](double x) { return std::asin(x); }); }
Value m_acos(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/acos", [](double x) { return std::acos(x); }); }
Value m_atan(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/atan", [](double x) { return std::atan(x); }); }
Value m_sinh(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/sinh", [](double x) { return std::sinh(x); }); }
Value m_cosh(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/cosh", [](double x) { return std::cosh(x); }); }
Value m_tanh(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/tanh", [](double x) { return std::tanh(x); }); }
Value m_cbrt(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/cbrt", [](double x) { return std::cbrt(x); }); }
// Java's constants, so results match Math.toDegrees/toRadians bit for bit.
Value m_to_degrees(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/toDegrees", [](double x) { return x * 57.29577951308232; }); }
Value m_to_radians(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/toRadians", [](double x) { return x * 0.017453292519943295; }); }
// Math.signum: -1.0 or 1.0, or the argument itself for zeros and NaN.
Value m_signum(Ctx&, const Value* a, uint32_t) { return unary_math(a, "Math/signum", [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); }); }
// clang-format on

Value m_atan2(Ctx&, const Value* a, uint32_t) {
  double y = number_arg("Math/atan2", a[0], 1), x = number_arg("Math/atan2", a[1], 2);
  return Value::floating(std::atan2(y, x));
}
Value m_hypot(Ctx&, const Value* a, uint32_t) {
  double x = number_arg("Math/hypot", a[0], 1), y = number_arg("Math/hypot", a[1], 2);
  return Value::floating(std::hypot(x, y));
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Math, "floor", 1, 1, floor_, "(floor x)", "Largest integer not above x, as an integer; NaN and infinities pass through."),
    PTC_BUILTIN(Math, "ceil", 1, 1, ceil_, "(ceil x)", "Smallest integer not below x, as an integer; NaN and infinities pass through."),
    PTC_BUILTIN(Math, "round", 1, 1, round_, "(round x)", "Nearest integer, halves away from zero; NaN and infinities pass through."),
    PTC_BUILTIN(Math, "trunc", 1, 1, trunc_, "(trunc x)", "x without its fractional part, as an integer; NaN and infinities pass through."),
    PTC_BUILTIN(Math, "sqrt", 1, 1, sqrt_, "(sqrt x)", "Square root as a float; NaN for negative numbers."),
    PTC_BUILTIN(Math, "pow", 2, 2, pow_, "(pow x y)", "x to the power y as a float, with Java's rules for NaN, zero and infinite operands."),
    PTC_BUILTIN(Math, "double", 1, 1, double_, "(double x)", "The number as a float."),
    PTC_BUILTIN(Math, "float", 1, 1, float_, "(float x)", "The number as a float (same as double)."),
    PTC_BUILTIN(Math, "int", 1, 1, int_, "(int x)", "Truncates to a 32-bit integer; NaN is 0, a character gives its code point."),
    PTC_BUILTIN(Interop, "Math/log", 1, 1, m_log, "(Math/log x)", "Natural logarithm."),
    PTC_BUILTIN(Interop, "Math/log10", 1, 1, m_log10, "(Math/log10 x)", "Base-10 logarithm."),
    PTC_BUILTIN(Interop, "Math/exp", 1, 1, m_exp, "(Math/exp x)", "e raised to x."),
    PTC_BUILTIN(Interop, "Math/sin", 1, 1, m_sin, "(Math/sin x)", "Sine of an angle in radians."),
    PTC_BUILTIN(Interop, "Math/cos", 1, 1, m_cos, "(Math/cos x)", "Cosine of an angle in radians."),
    PTC_BUILTIN(Interop, "Math/tan", 1, 1, m_tan, "(Math/tan x)", "Tangent of an angle in radians."),
    PTC_BUILTIN(Interop, "Math/asin", 1, 1, m_asin, "(Math/asin x)", "Arc sine, in radians."),
    PTC_BUILTIN(Interop, "Math/acos", 1, 1, m_acos, "(Math/acos x)", "Arc cosine, in radians."),
    PTC_BUILTIN(Interop, "Math/atan", 1, 1, m_atan, "(Math/atan x)", "Arc tangent, in radians."),
    PTC_BUILTIN(Interop, "Math/atan2", 2, 2, m_atan2, "(Math/atan2 y x)", "Angle in radians of the point (x, y) from the positive x axis."),
    PTC_BUILTIN(Interop, "Math/sinh", 1, 1, m_sinh, "(Math/sinh x)", "Hyperbolic sine."),
    PTC_BUILTIN(Interop, "Math/cosh", 1, 1, m_cosh, "(Math/cosh x)", "Hyperbolic cosine."),
    PTC_BUILTIN(Interop, "Math/tanh", 1, 1, m_tanh, "(Math/tanh x)", "Hyperbolic tangent."),
    PTC_BUILTIN(Interop, "Math/cbrt", 1, 1, m_cbrt, "(Math/cbrt x)", "Cube root."),
    PTC_BUILTIN(Interop, "Math/hypot", 2, 2, m_hypot, "(Math/hypot x y)", "sqrt(x*x + y*y) without intermediate overflow."),
    PTC_BUILTIN(Interop, "Math/signum", 1, 1, m_signum, "(Math/signum x)", "-1.0, 0.0 or 1.0 by the sign of x (NaN stays NaN)."),
    PTC_BUILTIN(Interop, "Math/toDegrees", 1, 1, m_to_degrees, "(Math/toDegrees x)", "Radians to degrees."),
    PTC_BUILTIN(Interop, "Math/toRadians", 1, 1, m_to_radians, "(Math/toRadians x)", "Degrees to radians."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> math() {
  return kDefs;
}

}  // namespace ptc::builtins
