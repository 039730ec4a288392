// Arithmetic over the numeric tower: int64 with overflow checks, promoting to
// bignums (never wrapping), and IEEE doubles. Mixed int/float arithmetic gives
// a float. `/` always returns a float (spec §8.4); an integer zero divisor is an
// arithmetic error, a float one follows IEEE 754.
#pragma once

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

}  // namespace ptc
