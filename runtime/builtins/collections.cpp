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

Value hash_map(Ctx& ctx, const Value* a, uint32_t n) {
  if (n % 2)
    throw_error(ErrorKind::ArityError,
                fmt::format("hash-map expects key/value pairs, got {} arguments", n),
                "give an even number of arguments: (hash-map :a 1 :b 2)");
  HashBuilder b(ctx.arena, Type::Map);
  for (uint32_t i = 0; i < n; i += 2)
    b.put(a[i], a[i + 1]);
  return map_v(finish_map(b));
}

Value hash_set(Ctx& ctx, const Value* a, uint32_t n) {
  HashBuilder b(ctx.arena, Type::Set);
  for (uint32_t i = 0; i < n; ++i)
    b.put(a[i]);
  return set_v(finish_set(b));
}

Value set(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is_set()) return a[0];
  HashBuilder b(ctx.arena, Type::Set);
  for (SeqIter it(ctx, a[0], "set", 1); !it.done(); it.next())
    b.put(it.value());
  return set_v(finish_set(b));
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

Value get(Ctx& ctx, const Value* a, uint32_t n) {
  return lookup(ctx, a[0], a[1], n == 3 ? a[2] : Value());
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

Value assoc_one(Ctx& ctx, Value coll, Value k, Value v) {
  switch (coll.type()) {
    case Type::Nil:
      return map_v(map_assoc(ctx.arena, empty_map(), k, v));
    case Type::Map:
      return map_v(map_assoc(ctx.arena, coll.map(), k, v));
    case Type::Vector: {
      const VecObj* vec = coll.vec();
      if (!k.is_int()) type_error("assoc", "an integer index for a vector", k, 2);
      int64_t i = k.as_int();
      if (i == vec->count) return vec_v(vec_conj(ctx.arena, vec, v));
      if (i < 0 || i > vec->count)
        throw_error(
            ErrorKind::RuntimeError,
            fmt::format("assoc: index {} is out of bounds for a vector of {} items", i, vec->count),
            "a vector index must be between 0 and (count v)");
      return vec_v(vec_assoc(ctx.arena, vec, static_cast<uint32_t>(i), v));
    }
    default:
      type_error("assoc", "a map or vector", coll, 1);
  }
}

Value assoc(Ctx& ctx, const Value* a, uint32_t n) {
  if (n % 2 == 0)
    throw_error(ErrorKind::ArityError,
                fmt::format("assoc expects a collection and key/value pairs, got {} arguments", n),
                "usage: (assoc m k v) or (assoc m k1 v1 k2 v2)");
  Value coll = a[0];
  for (uint32_t i = 1; i < n; i += 2)
    coll = assoc_one(ctx, coll, a[i], a[i + 1]);
  return coll;
}

Value dissoc(Ctx& ctx, const Value* a, uint32_t n) {
  if (a[0].is_nil()) return Value();
  if (!a[0].is_map()) type_error("dissoc", "a map", a[0], 1);
  const MapObj* m = a[0].map();
  for (uint32_t i = 1; i < n; ++i)
    m = map_dissoc(ctx.arena, m, a[i]);
  return map_v(m);
}

Value contains(Ctx&, const Value* a, uint32_t) {
  Value c = a[0], k = a[1];
  switch (c.type()) {
    case Type::Nil:
      return Value::boolean(false);
    case Type::Map:
      return Value::boolean(map_find_flex(c.map(), k) != nullptr);
    case Type::Set:
      return Value::boolean(set_contains(c.set(), k));
    case Type::Vector:
      // PTC-Lisp tests membership on vectors (spec §8.1: "works on lists too"),
      // where Clojure would test the index.
      for (VecIter it(c.vec()); !it.done(); it.next())
        if (equals(it.value(), k)) return Value::boolean(true);
      return Value::boolean(false);
    case Type::String:
      return Value::boolean(k.is_int() && k.as_int() >= 0 &&
                            static_cast<size_t>(k.as_int()) < grapheme_count(c.str()));
    default:
      type_error("contains?", "a collection", c, 1);
  }
}

Value keys_or_vals(Ctx& ctx, Value m, bool keys, const char* fname) {
  if (m.is_nil()) return Value();
  if (!m.is_map()) type_error(fname, "a map", m, 1);
  if (m.map()->count == 0) return Value();
  VecBuilder b(ctx.arena);
  for (HashIter it(m.map()); !it.done(); it.next())
    b.push(keys ? it.key() : it.val());
  return vec_v(b.finish());
}
Value keys(Ctx& ctx, const Value* a, uint32_t) {
  return keys_or_vals(ctx, a[0], true, "keys");
}
Value vals(Ctx& ctx, const Value* a, uint32_t) {
  return keys_or_vals(ctx, a[0], false, "vals");
}

const BuiltinDef kDefs[] = {
    PTC_BUILTIN("count", 1, 1, count, "(count coll)"),
    PTC_BUILTIN("vector", 0, kVariadic, vector, "(vector & items)"),
    PTC_BUILTIN("list", 0, kVariadic, vector, "(list & items)"),
    PTC_BUILTIN("vec", 1, 1, vec, "(vec coll)"),
    PTC_BUILTIN("hash-map", 0, kVariadic, hash_map, "(hash-map & kvs)"),
    PTC_BUILTIN("array-map", 0, kVariadic, hash_map, "(array-map & kvs)"),
    PTC_BUILTIN("hash-set", 0, kVariadic, hash_set, "(hash-set & items)"),
    PTC_BUILTIN("set", 1, 1, set, "(set coll)"),
    PTC_BUILTIN("first", 1, 1, first, "(first coll)"),
    PTC_BUILTIN("second", 1, 1, second, "(second coll)"),
    PTC_BUILTIN("last", 1, 1, last, "(last coll)"),
    PTC_BUILTIN("rest", 1, 1, rest, "(rest coll)"),
    PTC_BUILTIN("next", 1, 1, next, "(next coll)"),
    PTC_BUILTIN("nth", 2, 3, nth, "(nth coll index) or (nth coll index not-found)"),
    PTC_BUILTIN("get", 2, 3, get, "(get m key) or (get m key default)"),
    PTC_BUILTIN("conj", 0, kVariadic, conj, "(conj coll x ...)"),
    PTC_BUILTIN("assoc", 3, kVariadic, assoc, "(assoc m key val ...)"),
    PTC_BUILTIN("dissoc", 1, kVariadic, dissoc, "(dissoc m key ...)"),
    PTC_BUILTIN("contains?", 2, 2, contains, "(contains? coll key)"),
    PTC_BUILTIN("keys", 1, 1, keys, "(keys m)"),
    PTC_BUILTIN("vals", 1, 1, vals, "(vals m)"),
};

}  // namespace

std::span<const BuiltinDef> collections() {
  return kDefs;
}

}  // namespace ptc::builtins
