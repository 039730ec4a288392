// Map builtins (spec §8.2): construction, keyed access with flexible
// keyword/string matching (§7.5), persistent update, merging.
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

Value get(Ctx& ctx, const Value* a, uint32_t n) {
  return lookup(ctx, a[0], a[1], n == 3 ? a[2] : Value());
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

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "hash-map", 0, kVariadic, hash_map, "(hash-map & kvs)", "A map of alternating keys and values."),
    PTC_BUILTIN(Core, "array-map", 0, kVariadic, hash_map, "(array-map & kvs)", "Same as hash-map."),
    PTC_BUILTIN(Core, "get", 2, 3, get, "(get m key) or (get m key default)", "Value for a key (keyword and string keys match each other), or default."),
    PTC_BUILTIN(Core, "assoc", 3, kVariadic, assoc, "(assoc m key val ...)", "Sets keys of a map, or indexes of a vector."),
    PTC_BUILTIN(Core, "dissoc", 1, kVariadic, dissoc, "(dissoc m key ...)", "Removes keys from a map."),
    PTC_BUILTIN(Core, "keys", 1, 1, keys, "(keys m)", "The keys of a map."),
    PTC_BUILTIN(Core, "vals", 1, 1, vals, "(vals m)", "The values of a map."),
};
// clang-format on

}  // namespace

std::span<const BuiltinDef> maps() {
  return kDefs;
}

}  // namespace ptc::builtins
