// Type, numeric and logic predicates (spec §8.6–§8.8), boolean and type.
// Numeric predicates return false for non-numbers instead of raising (DIV-31);
// even?/odd? accept whole floats (GAP-S08). PTC-Lisp's one sequential type is
// the vector and its characters are strings, so the collection predicates
// follow spec §8.7 (and the PTC assertions) rather than Clojure's classes:
// (seq? [1]) and (counted? "abc") are true.
#include <cmath>

#include "runtime/bignum.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
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
// Includes NaN and the infinities, which are floats (GAP-S127).
Value float_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_float());
}
Value string_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_string());
}
Value keyword_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_keyword());
}
// No value is a symbol in PTC-Lisp's data model (DIV-19).
Value always_false(Ctx&, const Value*, uint32_t) {
  return b(false);
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
// Anything that can be called: functions, keywords, maps, sets and vectors (GAP-S13).
Value ifn_p(Ctx&, const Value* a, uint32_t) {
  return b(is_callable(a[0]));
}
Value coll_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_vector() || a[0].is_map() || a[0].is_set());
}
Value char_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_string() && a[0].str()->len > 0 && grapheme_count(a[0].str()) == 1);
}
// Vectors are the only sequential values, and so also the only seqs.
Value sequential_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_vector());
}
Value associative_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_vector() || a[0].is_map());
}
Value counted_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_vector() || a[0].is_map() || a[0].is_set() || a[0].is_string());
}
// nth and reverse work on vectors and strings.
Value indexed_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_vector() || a[0].is_string());
}
Value seqable_p(Ctx&, const Value* a, uint32_t) {
  return b(is_seqable(a[0]));
}
Value rational_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_integer());  // no ratios (DIV-20)
}

bool is_nan(Value v) {
  return v.is_float() && std::isnan(v.as_float());
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
Value nat_int_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_integer() && sign_of(a[0]) >= 0);
}
Value pos_int_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_integer() && sign_of(a[0]) == 1);
}
Value neg_int_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_integer() && sign_of(a[0]) == -1);
}
Value infinite_p(Ctx&, const Value* a, uint32_t) {
  return b(a[0].is_float() && std::isinf(a[0].as_float()));
}
Value nan_p(Ctx&, const Value* a, uint32_t) {
  return b(is_nan(a[0]));
}

// 0 even, 1 odd, -1 not a whole number.
int parity(Value v) {
  if (v.is_int()) return static_cast<int>(v.as_int() & 1);
  if (v.is(Type::BigInt)) return mpz_odd_p(MpzView(v).get()) ? 1 : 0;
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
Value boolean_(Ctx&, const Value* a, uint32_t) {
  return b(a[0].truthy());
}
Value identity(Ctx&, const Value* a, uint32_t) {
  return a[0];
}

Value empty_p(Ctx& ctx, const Value* a, uint32_t) {
  return b(seq_count(ctx, a[0], "empty?", 1) == 0);
}

// True when no two arguments are equal. NaN equals nothing, not even another
// NaN, so repeated NaNs are distinct (GAP-S101).
Value distinct_p(Ctx& ctx, const Value* a, uint32_t n) {
  ctx.tick(n);
  if (n <= 16) {
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t j = i + 1; j < n; ++j)
        if (equals(a[i], a[j])) return b(false);
    return b(true);
  }
  const SetObj* seen = empty_set();
  for (uint32_t i = 0; i < n; ++i) {
    if (set_contains(seen, a[i])) return b(false);
    seen = set_conj(ctx.arena, seen, a[i]);
  }
  return b(true);
}

// The type as a keyword (spec §8.7): :number for every number, :function for
// every callable function, nil for nil.
Value type_(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  if (x.is_nil()) return Value();
  if (x.is_number()) return ctx.keyword("number");
  if (x.is(Type::Opaque)) return ctx.keyword(x.as<OpaqueObj>()->vt->type_name);
  return ctx.keyword(type_name(x.type()));
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "nil?", 1, 1, nil_p, "(nil? x)", "True for nil."),
    PTC_BUILTIN(Core, "some?", 1, 1, some_p, "(some? x)", "True for anything but nil."),
    PTC_BUILTIN(Core, "true?", 1, 1, true_p, "(true? x)", "True only for true."),
    PTC_BUILTIN(Core, "false?", 1, 1, false_p, "(false? x)", "True only for false."),
    PTC_BUILTIN(Core, "boolean?", 1, 1, boolean_p, "(boolean? x)", "True for true and false."),
    PTC_BUILTIN(Core, "number?", 1, 1, number_p, "(number? x)", "True for integers and floats, NaN and infinities included."),
    PTC_BUILTIN(Core, "int?", 1, 1, int_p, "(int? x)", "True for integers of any size."),
    PTC_BUILTIN(Core, "integer?", 1, 1, int_p, "(integer? x)", "True for integers of any size."),
    PTC_BUILTIN(Core, "float?", 1, 1, float_p, "(float? x)", "True for floats, NaN and infinities included."),
    PTC_BUILTIN(Core, "double?", 1, 1, float_p, "(double? x)", "True for floats (same as float?)."),
    PTC_BUILTIN(Core, "string?", 1, 1, string_p, "(string? x)", "True for strings."),
    PTC_BUILTIN(Core, "char?", 1, 1, char_p, "(char? x)", "True for a one-character string."),
    PTC_BUILTIN(Core, "keyword?", 1, 1, keyword_p, "(keyword? x)", "True for keywords."),
    PTC_BUILTIN(Core, "symbol?", 1, 1, always_false, "(symbol? x)", "Always false: PTC-Lisp data uses keywords, not symbols."),
    PTC_BUILTIN(Core, "vector?", 1, 1, vector_p, "(vector? x)", "True for vectors."),
    PTC_BUILTIN(Core, "map?", 1, 1, map_p, "(map? x)", "True for maps."),
    PTC_BUILTIN(Set, "set?", 1, 1, set_p, "(set? x)", "True for sets."),
    PTC_BUILTIN(Core, "fn?", 1, 1, fn_p, "(fn? x)", "True for functions."),
    PTC_BUILTIN(Core, "ifn?", 1, 1, ifn_p, "(ifn? x)", "True for anything callable: functions, keywords, maps, sets and vectors."),
    PTC_BUILTIN(Core, "coll?", 1, 1, coll_p, "(coll? x)", "True for vectors, maps and sets."),
    PTC_BUILTIN(Core, "sequential?", 1, 1, sequential_p, "(sequential? x)", "True for vectors."),
    PTC_BUILTIN(Core, "seq?", 1, 1, sequential_p, "(seq? x)", "True for vectors (PTC-Lisp's only sequences)."),
    PTC_BUILTIN(Core, "associative?", 1, 1, associative_p, "(associative? x)", "True for vectors and maps."),
    PTC_BUILTIN(Core, "counted?", 1, 1, counted_p, "(counted? x)", "True for vectors, maps, sets and strings."),
    PTC_BUILTIN(Core, "indexed?", 1, 1, indexed_p, "(indexed? x)", "True for vectors and strings."),
    PTC_BUILTIN(Core, "reversible?", 1, 1, indexed_p, "(reversible? x)", "True for vectors and strings."),
    PTC_BUILTIN(Core, "sorted?", 1, 1, always_false, "(sorted? x)", "Always false: there are no sorted collections."),
    PTC_BUILTIN(Core, "seqable?", 1, 1, seqable_p, "(seqable? x)", "True for collections, strings and nil."),
    PTC_BUILTIN(Core, "map-entry?", 1, 1, always_false, "(map-entry? x)", "Always false: map entries are plain [key value] vectors."),
    PTC_BUILTIN(Core, "decimal?", 1, 1, always_false, "(decimal? x)", "Always false: there are no decimals."),
    PTC_BUILTIN(Core, "ratio?", 1, 1, always_false, "(ratio? x)", "Always false: there are no ratios."),
    PTC_BUILTIN(Core, "rational?", 1, 1, rational_p, "(rational? x)", "True for integers."),
    PTC_BUILTIN(Core, "nat-int?", 1, 1, nat_int_p, "(nat-int? x)", "True for integers >= 0."),
    PTC_BUILTIN(Core, "pos-int?", 1, 1, pos_int_p, "(pos-int? x)", "True for integers > 0."),
    PTC_BUILTIN(Core, "neg-int?", 1, 1, neg_int_p, "(neg-int? x)", "True for integers < 0."),
    PTC_BUILTIN(Core, "zero?", 1, 1, zero_p, "(zero? x)", "True for zero; false for anything not a number."),
    PTC_BUILTIN(Core, "pos?", 1, 1, pos_p, "(pos? x)", "True for positive numbers; false for anything not a number."),
    PTC_BUILTIN(Core, "neg?", 1, 1, neg_p, "(neg? x)", "True for negative numbers; false for anything not a number."),
    PTC_BUILTIN(Core, "even?", 1, 1, even_p, "(even? x)", "True for even whole numbers (4.0 included)."),
    PTC_BUILTIN(Core, "odd?", 1, 1, odd_p, "(odd? x)", "True for odd whole numbers (3.0 included)."),
    PTC_BUILTIN(Core, "infinite?", 1, 1, infinite_p, "(infinite? x)", "True for ##Inf and ##-Inf."),
    PTC_BUILTIN(Core, "NaN?", 1, 1, nan_p, "(NaN? x)", "True for ##NaN."),
    PTC_BUILTIN(Core, "not", 1, 1, not_, "(not x)", "True for nil and false."),
    PTC_BUILTIN(Core, "boolean", 1, 1, boolean_, "(boolean x)", "false for nil and false, true for anything else."),
    PTC_BUILTIN(Core, "identity", 1, 1, identity, "(identity x)", "Returns its argument."),
    PTC_BUILTIN(Core, "empty?", 1, 1, empty_p, "(empty? coll)", "True when the collection has no items (or is nil)."),
    PTC_BUILTIN(Core, "distinct?", 1, kVariadic, distinct_p, "(distinct? x y ...)", "True when no two arguments are equal."),
    PTC_BUILTIN(Core, "type", 1, 1, type_, "(type x)", "The type as a keyword (:number, :string, :vector, :map, ...); nil for nil."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> predicates() {
  return kDefs;
}

}  // namespace ptc::builtins
