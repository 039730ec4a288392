// A test fixture with a run context and short builders for runtime values.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/vector.hpp"

namespace ptc::testing {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr double kInf = std::numeric_limits<double>::infinity();

inline Value I(int64_t i) {
  return Value::integer(i);
}
inline Value F(double d) {
  return Value::floating(d);
}

class RuntimeFixture : public ::testing::Test {
 protected:
  RuntimeFixture() : ctx(lim) {}

  Value big(const std::string& decimal) { return integer_from_decimal(ctx.arena, decimal); }
  Value vec(std::initializer_list<Value> xs) {
    return vec_value(vec_from(ctx.arena, xs.begin(), xs.size()));
  }
  Value map(std::initializer_list<std::pair<Value, Value>> kvs) {
    const MapObj* m = empty_map();
    for (auto& [k, v] : kvs)
      m = map_assoc(ctx.arena, m, k, v);
    return Value::object(m);
  }
  Value set(std::initializer_list<Value> xs) {
    const SetObj* s = empty_set();
    for (Value x : xs)
      s = set_conj(ctx.arena, s, x);
    return Value::object(s);
  }
  Value kw(std::string_view name) { return ctx.keyword(name); }
  Value str(std::string_view s) { return ctx.string(s); }

  Limits lim;
  Ctx ctx;
};

}  // namespace ptc::testing
