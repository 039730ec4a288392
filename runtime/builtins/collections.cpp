// Core collection builtins (spec §8.1, §8.2): construction, access and
// persistent update of vectors, maps and sets.
#include <fmt/format.h>

#include "runtime/access.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

Value vec_v(const VecObj* v) {
  return Value::object(v);
}
Value map_v(const MapObj* m) {
  return Value::object(m);
}
Value set_v(const SetObj* s) {
  return Value::object(s);
}

Value count(Ctx& ctx, const Value* a, uint32_t) {
  return Value::integer(static_cast<int64_t>(seq_count(ctx, a[0], "count", 1)));
}

Value vector(Ctx& ctx, const Value* a, uint32_t n) {
  return vec_v(vec_from(ctx.arena, a, n));
}

Value vec(Ctx& ctx, const Value* a, uint32_t) {
  return vec_v(seq_to_vector(ctx, a[0], "vec", 1));
}

Value first(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is_vector()) return a[0].vec()->count ? a[0].vec()->nth(0) : Value();
  SeqIter it(ctx, a[0], "first", 1);
  return it.done() ? Value() : it.value();
}

Value second(Ctx& ctx, const Value* a, uint32_t) {
  SeqIter it(ctx, a[0], "second", 1);
  if (it.done()) return Value();
  it.next();
  return it.done() ? Value() : it.value();
}

Value last(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is_vector()) {
    const VecObj* v = a[0].vec();
    return v->count ? v->nth(v->count - 1) : Value();
  }
  Value out;
  for (SeqIter it(ctx, a[0], "last", 1); !it.done(); it.next())
    out = it.value();
  return out;
}

const VecObj* drop_first(Ctx& ctx, Value coll, const char* fname) {
  if (coll.is_vector()) {
    const VecObj* v = coll.vec();
    return v->count ? vec_slice(ctx.arena, v, 1, v->count) : v;
  }
  VecBuilder b(ctx.arena);
  SeqIter it(ctx, coll, fname, 1);
  if (!it.done()) it.next();
  for (; !it.done(); it.next())
    b.push(it.value());
  return b.finish();
}

Value rest(Ctx& ctx, const Value* a, uint32_t) {
  return vec_v(drop_first(ctx, a[0], "rest"));
}

Value next(Ctx& ctx, const Value* a, uint32_t) {
  const VecObj* v = drop_first(ctx, a[0], "next");
  return v->count ? vec_v(v) : Value();
}

Value nth(Ctx& ctx, const Value* a, uint32_t n) {
  int64_t i = expect_int("nth", a[1], 2);
  return nth_or(ctx, a[0], i, n == 3 ? a[2] : Value(), "nth");
}

Value conj_one(Ctx& ctx, Value coll, Value x) {
  switch (coll.type()) {
    case Type::Nil:
      return vec_v(vec_conj(ctx.arena, empty_vector(), x));
    case Type::Vector:
      return vec_v(vec_conj(ctx.arena, coll.vec(), x));
    case Type::Set:
      return set_v(set_conj(ctx.arena, coll.set(), x));
    case Type::Map:
      if (x.is_vector() && x.vec()->count == 2)
        return map_v(map_assoc(ctx.arena, coll.map(), x.vec()->nth(0), x.vec()->nth(1)));
      if (x.is_map()) {
        const MapObj* m = coll.map();
        for (HashIter it(x.map()); !it.done(); it.next())
          m = map_assoc(ctx.arena, m, it.key(), it.val());
        return map_v(m);
      }
      if (x.is_nil()) return coll;
      type_error("conj", "a [key value] vector or a map to add to a map", x, 2);
    default:
      type_error("conj", "a collection", coll, 1);
  }
}

Value conj(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 0) return vec_v(empty_vector());
  Value coll = a[0];
  for (uint32_t i = 1; i < n; ++i)
    coll = conj_one(ctx, coll, a[i]);
  return coll;
}

const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "count", 1, 1, count, "(count coll)",
                "Number of items (characters for strings)."),
    PTC_BUILTIN(Set, "vector", 0, kVariadic, vector, "(vector & items)",
                "A vector of the arguments."),
    PTC_BUILTIN(Core, "list", 0, kVariadic, vector, "(list & items)",
                "A vector of the arguments (PTC-Lisp is vector-first)."),
    PTC_BUILTIN(Set, "vec", 1, 1, vec, "(vec coll)", "The items of a collection as a vector."),
    PTC_BUILTIN(Core, "first", 1, 1, first, "(first coll)", "The first item, or nil."),
    PTC_BUILTIN(Core, "second", 1, 1, second, "(second coll)", "The second item, or nil."),
    PTC_BUILTIN(Core, "last", 1, 1, last, "(last coll)", "The last item, or nil."),
    PTC_BUILTIN(Core, "rest", 1, 1, rest, "(rest coll)", "All items but the first, as a vector."),
    PTC_BUILTIN(Core, "next", 1, 1, next, "(next coll)",
                "All items but the first, or nil when none."),
    PTC_BUILTIN(Core, "nth", 2, 3, nth, "(nth coll index) or (nth coll index not-found)",
                "Item at an index; nil (or not-found) when out of range."),
    PTC_BUILTIN(Core, "conj", 0, kVariadic, conj, "(conj coll x ...)",
                "Adds items: at the end of a vector, into a set or map."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> collections() {
  return kDefs;
}

}  // namespace ptc::builtins
