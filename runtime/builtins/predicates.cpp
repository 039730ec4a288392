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

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "nil?", 1, 1, nil_p, "(nil? x)", "True for nil."),
    PTC_BUILTIN(Core, "some?", 1, 1, some_p, "(some? x)", "True for anything but nil."),
    PTC_BUILTIN(Core, "true?", 1, 1, true_p, "(true? x)", "True only for true."),
    PTC_BUILTIN(Core, "false?", 1, 1, false_p, "(false? x)", "True only for false."),
    PTC_BUILTIN(Core, "boolean?", 1, 1, boolean_p, "(boolean? x)", "True for true and false."),
    PTC_BUILTIN(Core, "number?", 1, 1, number_p, "(number? x)", "True for integers and floats."),
    PTC_BUILTIN(Core, "int?", 1, 1, int_p, "(int? x)", "True for integers."),
    PTC_BUILTIN(Core, "integer?", 1, 1, int_p, "(integer? x)", "True for integers."),
    PTC_BUILTIN(Core, "float?", 1, 1, float_p, "(float? x)", "True for floats."),
    PTC_BUILTIN(Core, "double?", 1, 1, float_p, "(double? x)", "True for floats."),
    PTC_BUILTIN(Core, "string?", 1, 1, string_p, "(string? x)", "True for strings."),
    PTC_BUILTIN(Core, "char?", 1, 1, char_p, "(char? x)", "True for a one-character string."),
    PTC_BUILTIN(Core, "keyword?", 1, 1, keyword_p, "(keyword? x)", "True for keywords."),
    PTC_BUILTIN(Core, "vector?", 1, 1, vector_p, "(vector? x)", "True for vectors."),
    PTC_BUILTIN(Core, "map?", 1, 1, map_p, "(map? x)", "True for maps."),
    PTC_BUILTIN(Core, "set?", 1, 1, set_p, "(set? x)", "True for sets."),
    PTC_BUILTIN(Core, "fn?", 1, 1, fn_p, "(fn? x)", "True for functions."),
    PTC_BUILTIN(Core, "coll?", 1, 1, coll_p, "(coll? x)", "True for vectors, maps and sets."),
    PTC_BUILTIN(Core, "zero?", 1, 1, zero_p, "(zero? x)", "True for zero."),
    PTC_BUILTIN(Core, "pos?", 1, 1, pos_p, "(pos? x)", "True for positive numbers."),
    PTC_BUILTIN(Core, "neg?", 1, 1, neg_p, "(neg? x)", "True for negative numbers."),
    PTC_BUILTIN(Core, "even?", 1, 1, even_p, "(even? x)", "True for even whole numbers."),
    PTC_BUILTIN(Core, "odd?", 1, 1, odd_p, "(odd? x)", "True for odd whole numbers."),
    PTC_BUILTIN(Core, "not", 1, 1, not_, "(not x)", "True for nil and false."),
    PTC_BUILTIN(Core, "identity", 1, 1, identity, "(identity x)", "Returns its argument."),
    PTC_BUILTIN(Core, "empty?", 1, 1, empty_p, "(empty? coll)", "True when the collection has no items (or is nil)."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> predicates() {
  return kDefs;
}

}  // namespace ptc::builtins
