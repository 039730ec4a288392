// Type, numeric and logic predicates (spec §8.6–§8.8). Numeric predicates
// return false for non-numbers instead of raising (DIV-31); even?/odd? accept
// whole floats (GAP-S08).
#include <cmath>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"

namespace ptc::builtins {

namespace {

Value b(bool x) {
  return Value::boolean(x);
}

Value nil_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_nil());
}
Value some_p(Ctx&, const Value* a, uint32_t) {
  return b(!a[0].is_nil());
}
Value true_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_bool() && a[0].as_bool());
}
Value false_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_bool() && !a[0].as_bool());
}
Value boolean_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_bool());
}
Value number_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_number());
}
Value int_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_integer());
}
Value float_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_float());
}
Value string_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_string());
}
Value keyword_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_keyword());
}
Value vector_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_vector());
}
Value map_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_map());
}
Value set_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_set());
}
Value fn_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_fn());
}
Value coll_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_vector() || a[0].is_map() || a[0].is_set());
}
Value char_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_string() && a[0].str()->len > 0 && grapheme_count(a[0].str()) == 1);
}

int sign_of(Value v) {
  bool unordered;
  int c = compare_numbers(v, Value::integer(0), &unordered);
  return unordered ? 2 : c;  // 2: NaN, neither sign
}
Value zero_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_number() && sign_of(a[0]) == 0);
}
Value pos_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_number() && sign_of(a[0]) == 1);
}
Value neg_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_number() && sign_of(a[0]) == -1);
}

// 0 even, 1 odd, -1 not a whole number.
int parity(Value v) {
  if (v.is_int()) return static_cast<int>(v.as_int() & 1);
  if (v.is(Type::BigInt)) return static_cast<int>(v.big()->limbs()[0] & 1);
  if (v.is_float()) {
    double d = v.as_float();
    if (!std::isfinite(d) || std::trunc(d) != d) return -1;
    return std::fmod(std::fabs(d), 2.0) == 0 ? 0 : 1;
  }
  return -1;
}
Value even_p(Ctx&, const Value* a, uint32_t) {
  return b(parity(a[0]) == 0);
}
Value odd_p(Ctx&, const Value* a, uint32_t) {
  return b(parity(a[0]) == 1);
}

Value not_(Ctx&, const Value* a, uint32_t) {
  return b(!a[0].truthy());
}
Value identity(Ctx&, const Value* a, uint32_t) {
  return a[0];
}

Value empty_p(Ctx& ctx, const Value* a, uint32_t) {
  return b(seq_count(ctx, a[0], "empty?", 1) == 0);
}

const BuiltinDef kDefs[] = {
    PTC_BUILTIN("nil?", 1, 1, nil_p, "(nil? x)"),
    PTC_BUILTIN("some?", 1, 1, some_p, "(some? x)"),
    PTC_BUILTIN("true?", 1, 1, true_p, "(true? x)"),
    PTC_BUILTIN("false?", 1, 1, false_p, "(false? x)"),
    PTC_BUILTIN("boolean?", 1, 1, boolean_p, "(boolean? x)"),
    PTC_BUILTIN("number?", 1, 1, number_p, "(number? x)"),
    PTC_BUILTIN("int?", 1, 1, int_p, "(int? x)"),
    PTC_BUILTIN("integer?", 1, 1, int_p, "(integer? x)"),
    PTC_BUILTIN("float?", 1, 1, float_p, "(float? x)"),
    PTC_BUILTIN("double?", 1, 1, float_p, "(double? x)"),
    PTC_BUILTIN("string?", 1, 1, string_p, "(string? x)"),
    PTC_BUILTIN("char?", 1, 1, char_p, "(char? x)"),
    PTC_BUILTIN("keyword?", 1, 1, keyword_p, "(keyword? x)"),
    PTC_BUILTIN("vector?", 1, 1, vector_p, "(vector? x)"),
    PTC_BUILTIN("map?", 1, 1, map_p, "(map? x)"),
    PTC_BUILTIN("set?", 1, 1, set_p, "(set? x)"),
    PTC_BUILTIN("fn?", 1, 1, fn_p, "(fn? x)"),
    PTC_BUILTIN("coll?", 1, 1, coll_p, "(coll? x)"),
    PTC_BUILTIN("zero?", 1, 1, zero_p, "(zero? x)"),
    PTC_BUILTIN("pos?", 1, 1, pos_p, "(pos? x)"),
    PTC_BUILTIN("neg?", 1, 1, neg_p, "(neg? x)"),
    PTC_BUILTIN("even?", 1, 1, even_p, "(even? x)"),
    PTC_BUILTIN("odd?", 1, 1, odd_p, "(odd? x)"),
    PTC_BUILTIN("not", 1, 1, not_, "(not x)"),
    PTC_BUILTIN("identity", 1, 1, identity, "(identity x)"),
    PTC_BUILTIN("empty?", 1, 1, empty_p, "(empty? coll)"),
};

}  // namespace

std::span<const BuiltinDef> predicates() {
  return kDefs;
}

}  // namespace ptc::builtins
