// Arithmetic over the numeric tower: int64 with overflow checks, promoting to
// bignums (never wrapping), and IEEE doubles. Mixed int/float arithmetic gives
// a float. `/` always returns a float (spec §8.4); an integer zero divisor is an
// arithmetic error, a float one follows IEEE 754.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/value.hpp"

namespace ptc {

class Arena;

Value num_add(Arena& arena, Value a, Value b);
Value num_sub(Arena& arena, Value a, Value b);
Value num_mul(Arena& arena, Value a, Value b);
Value num_div(Arena& arena, Value a, Value b);
Value num_neg(Arena& arena, Value a);
Value num_quot(Arena& arena, Value a, Value b);  // truncates toward zero
Value num_rem(Arena& arena, Value a, Value b);   // sign of the dividend
Value num_mod(Arena& arena, Value a, Value b);   // sign of the divisor

inline bool is_zero_number(Value v) {
  return (v.is_int() && v.as_int() == 0) || (v.is_float() && v.as_float() == 0.0);
}
double to_double(Value number);

// Throws a type error naming the operation when `v` is not a number.
void require_number(std::string_view op, Value v, int arg_position = 0);

// ---- double -> integer conversions
// Converting a NaN, an infinity or a double outside the target range to an
// integer type is undefined behaviour in C++, and hostile programs pass such
// values wherever a count, index or size is expected. Every double -> integer
// conversion in the engine goes through one of these.

// d truncated toward zero, or nullopt when that is no int64 (NaN, ±Inf,
// |d| >= 2^63).
std::optional<int64_t> double_to_int64(double d);

// d truncated toward zero and clamped to [lo, hi]; ±Inf clamp too, NaN gives
// `if_nan`. For counts and indexes where "far out of range" is all that matters.
int64_t double_to_int64_clamped(double d, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX,
                                int64_t if_nan = 0);

// d truncated toward zero; NaN, an infinity or a value outside the int64 range
// is an arithmetic error naming the function, the argument and what it is for:
// "fname: <what> (argument 2) must be a finite number within the 64-bit
// integer range, got ##Inf".
int64_t double_to_int64_checked(double d, std::string_view fname, int arg_position,
                                std::string_view what);

// A byte or item count computed in doubles (estimates such as items * size),
// as a size_t for a limit check: NaN and anything at or past `cap` give `cap`.
size_t double_to_size_saturated(double d, size_t cap);

// ---- decimal text -> double
// [+-]digits[.digits][(e|E)[+-]digits] and nothing else (no spaces, ".5",
// "1.", NaN or hex): a number as data writes it ("12", "-3.5", "1e3").
// nullopt for other text and for a value too large to be finite.
std::optional<double> parse_decimal_float(std::string_view s);

}  // namespace ptc
