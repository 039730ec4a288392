// Map builtins (spec §8.2): construction, keyed access with flexible
// keyword/string matching (§7.5), persistent update, merging.
//
// Key matching rule for string-keyed data (JSON results): functions that READ
// an existing value (get, get-in, find, select-keys, and the read half of
// update/update-in) find it flexibly, and the read-modify-write functions
// (update, update-in, and the intermediate steps of assoc-in) write the new
// value back under the key it was read from, so (update {"a" 1} :a inc) is
// {"a" 2} rather than a map holding both "a" and :a. Functions that only SET
// or REMOVE a key (assoc, the last key of assoc-in, dissoc, merge, merge-with)
// use the key exactly as given, as Clojure does.
#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "runtime/access.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/printer.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

// A value no program can produce: marks "absent" in lookups that must tell a
// missing key from a present nil.
Value absent() {
  return tombstone();
}

// `get` that tells a present nil from a missing key: absent() when missing.
Value fetch(Ctx& ctx, Value coll, Value key) {
  return lookup(ctx, coll, key, absent());
}

const char* const kPathHint = "a path is a vector of keys, e.g. [:user :name]; use get for one key";

void expect_path(const char* fname, Value path) {
  if (!is_seqable(path)) type_error(fname, "a sequence of keys", path, 2, kPathHint);
}

// ---------------------------------------------------------------- construction

Value hash_map(Ctx& ctx, const Value* a, uint32_t n) {
  if (n % 2)
    throw_error(ErrorKind::ArityError,
                fmt::format("hash-map expects key/value pairs, got {} arguments", n),
                "give an even number of arguments: (hash-map :a 1 :b 2)");
  ctx.tick(n / 2);
  HashBuilder b(ctx.arena, Type::Map);
  for (uint32_t i = 0; i < n; i += 2)
    b.put(a[i], a[i + 1]);
  return Value::object(finish_map(b));
}

// ---------------------------------------------------------------- access

Value get(Ctx& ctx, const Value* a, uint32_t n) {
  return lookup(ctx, a[0], a[1], n == 3 ? a[2] : Value());
}

// (get-in m path [default]): nil path = empty path = the root (GAP-S144); the
// default replaces only a missing key, never a present nil (GAP-S22).
Value get_in(Ctx& ctx, const Value* a, uint32_t n) {
  Value not_found = n == 3 ? a[2] : Value();
  expect_path("get-in", a[1]);
  Value cur = a[0];
  for (SeqIter it(ctx, a[1], "get-in", 2); !it.done(); it.next()) {
    ctx.tick();
    Value v = fetch(ctx, cur, it.value());
    if (is_tombstone(v)) return not_found;
    cur = v;
  }
  return cur;
}

// (find coll key): the [key value] entry of a map (the stored key, matched
// flexibly) or [index value] of a vector; nil when absent. Other collections
// are not associative (DIV-48).
Value find(Ctx& ctx, const Value* a, uint32_t) {
  Value coll = a[0], k = a[1];
  switch (coll.type()) {
    case Type::Nil:
      return Value();
    case Type::Map: {
      const Value* stored = map_find_flex_key(coll.map(), k);
      if (!stored) return Value();
      return make_entry(ctx, *stored, *map_find_flex(coll.map(), k));
    }
    case Type::Vector: {
      const VecObj* v = coll.vec();
      if (!k.is_int() || k.as_int() < 0 || k.as_int() >= v->count) return Value();
      return make_entry(ctx, k, v->nth(static_cast<uint32_t>(k.as_int())));
    }
    default:
      type_error("find", "a map or vector", coll, 1,
                 coll.is_set() ? "use (contains? s x) or (s x) for set membership" : "");
  }
}

Value entry_part(Value e, const char* fname, uint32_t i) {
  if (!e.is_vector() || e.vec()->count != 2)
    type_error(fname, "a map entry ([key value])", e, 1,
               "map entries come from iterating a map: (map key m), (find m k), (entries m)");
  return e.vec()->nth(i);
}
Value key(Ctx&, const Value* a, uint32_t) {
  return entry_part(a[0], "key", 0);
}
Value val(Ctx&, const Value* a, uint32_t) {
  return entry_part(a[0], "val", 1);
}

Value select_keys(Ctx& ctx, const Value* a, uint32_t) {
  Value m = a[0];
  if (!m.is_nil() && !m.is_map() && !m.is_vector()) type_error("select-keys", "a map", m, 1);
  if (!is_seqable(a[1]))
    type_error("select-keys", "a sequence of keys", a[1], 2, "e.g. (select-keys m [:a :b])");
  HashBuilder b(ctx.arena, Type::Map);
  for (SeqIter it(ctx, a[1], "select-keys", 2); !it.done(); it.next()) {
    ctx.tick();
    Value v = fetch(ctx, m, it.value());
    // Keyed by the requested key: (select-keys {:a 1} ["a"]) is {"a" 1} (DIV-46).
    if (!is_tombstone(v)) b.put(it.value(), v);
  }
  return Value::object(finish_map(b));
}

const MapObj* expect_map_or_nil(Value m, const char* fname, int pos) {
  if (m.is_nil()) return empty_map();
  if (!m.is_map()) type_error(fname, "a map", m, pos);
  return m.map();
}

Value keys_or_vals(Ctx& ctx, Value m, bool keys, const char* fname) {
  const MapObj* map = expect_map_or_nil(m, fname, 1);
  if (map->count == 0) return Value();
  ctx.tick(map->count);
  VecBuilder b(ctx.arena);
  for (HashIter it(map); !it.done(); it.next())
    b.push(keys ? it.key() : it.val());
  return Value::object(b.finish());
}
Value keys(Ctx& ctx, const Value* a, uint32_t) {
  return keys_or_vals(ctx, a[0], true, "keys");
}
Value vals(Ctx& ctx, const Value* a, uint32_t) {
  return keys_or_vals(ctx, a[0], false, "vals");
}

Value entries(Ctx& ctx, const Value* a, uint32_t) {
  const MapObj* map = expect_map_or_nil(a[0], "entries", 1);
  ctx.tick(map->count);
  VecBuilder b(ctx.arena);
  for (HashIter it(map); !it.done(); it.next())
    b.push(make_entry(ctx, it.key(), it.val()));
  return Value::object(b.finish());
}

// ---------------------------------------------------------------- assoc / update

[[noreturn]] void index_out_of_bounds(const char* fname, Value k, uint32_t count) {
  throw_error(ErrorKind::RuntimeError,
              fmt::format("{}: index {} is out of bounds for a vector of {} items", fname,
                          preview(k), count),
              "a vector index must be between 0 and (count v); (count v) appends");
}

// Throws unless `coll` can take key `k` with assoc: a map, nil, or a vector
// with an integer index from 0 to its count. `pos` > 0 names the argument
// (0: `coll` was reached through a path), `key_pos` the key's argument.
void check_assoc_target(Value coll, Value k, const char* fname, int pos, int key_pos) {
  switch (coll.type()) {
    case Type::Nil:
    case Type::Map:
      return;
    case Type::Vector: {
      if (!k.is_int()) type_error(fname, "an integer index for a vector", k, key_pos);
      int64_t i = k.as_int();
      if (i < 0 || i > coll.vec()->count) index_out_of_bounds(fname, k, coll.vec()->count);
      return;
    }
    default:
      if (pos > 0) type_error(fname, "a map or vector", coll, pos);
      throw_error(ErrorKind::TypeError,
                  fmt::format("{}: path key {} applies to {} {}, which is not a map or vector",
                              fname, preview(k), type_name(coll.type()), preview(coll)),
                  "every key of a path but the last must lead to a map or vector (or a missing "
                  "key)");
  }
}

// assoc of one key, exact for maps; call check_assoc_target first.
Value assoc_one(Ctx& ctx, Value coll, Value k, Value v) {
  if (coll.is_vector()) {
    const VecObj* vec = coll.vec();
    auto i = static_cast<uint32_t>(k.as_int());
    if (i == vec->count) return Value::object(vec_conj(ctx.arena, vec, v));
    return Value::object(vec_assoc(ctx.arena, vec, i, v));
  }
  return Value::object(map_assoc(ctx.arena, coll.is_nil() ? empty_map() : coll.map(), k, v));
}

Value assoc(Ctx& ctx, const Value* a, uint32_t n) {
  if (n % 2 == 0)
    throw_error(ErrorKind::ArityError,
                fmt::format("assoc expects a collection and key/value pairs, got {} arguments", n),
                "usage: (assoc m k v) or (assoc m k1 v1 k2 v2)");
  Value coll = a[0];
  ctx.tick(n / 2);
  for (uint32_t i = 1; i < n; i += 2) {
    check_assoc_target(coll, a[i], "assoc", 1, static_cast<int>(i) + 1);
    coll = assoc_one(ctx, coll, a[i], a[i + 1]);
  }
  return coll;
}

// Where a read-modify-write finds the current value of `k` in `coll`, and the
// key to write the new value back under.
struct Slot {
  Value key;
  Value val;
};
Slot slot_of(Ctx& ctx, Value coll, Value k) {
  if (coll.is_map()) {
    Value stored_key;
    if (const Value* v = map_find_flex_entry(coll.map(), k, &stored_key)) return {stored_key, *v};
    return {k, Value()};
  }
  return {k, lookup(ctx, coll, k)};
}

// The keys of an assoc-in/update-in path; an empty or nil path is the single
// nil key, as in Clojure's recursive definition (GAP-S55, GAP-S68).
std::vector<Value> path_keys(Ctx& ctx, Value path, const char* fname) {
  expect_path(fname, path);
  std::vector<Value> ks;
  for (SeqIter it(ctx, path, fname, 2); !it.done(); it.next())
    ks.push_back(it.value());
  if (ks.empty()) ks.push_back(Value());
  ctx.tick(static_cast<int64_t>(ks.size()));
  return ks;
}

// Shared by assoc-in and update-in: walks the path (iteratively, so a long
// generated path cannot exhaust the stack), computes the new leaf with
// `leaf(old)`, and rebuilds the collections on the way back up.
template <class Leaf>
Value put_in(Ctx& ctx, Value root, const std::vector<Value>& ks, bool exact_last, const char* fname,
             Leaf&& leaf) {
  std::vector<Value> colls, wkeys;
  colls.reserve(ks.size());
  wkeys.reserve(ks.size());
  RootScope roots(ctx);  // update-in's leaf calls back
  roots.add(colls);
  roots.add(wkeys);
  Value cur = root;
  for (size_t i = 0; i < ks.size(); ++i) {
    check_assoc_target(cur, ks[i], fname, i == 0 ? 1 : 0, 2);
    Slot s = exact_last && i + 1 == ks.size() ? Slot{ks[i], Value()} : slot_of(ctx, cur, ks[i]);
    colls.push_back(cur);
    wkeys.push_back(s.key);
    cur = s.val;
  }
  Value v = leaf(cur);
  for (size_t i = ks.size(); i-- > 0;)
    v = assoc_one(ctx, colls[i], wkeys[i], v);
  return v;
}

Value assoc_in(Ctx& ctx, const Value* a, uint32_t) {
  std::vector<Value> ks = path_keys(ctx, a[1], "assoc-in");
  Value v = a[2];
  return put_in(ctx, a[0], ks, true, "assoc-in", [v](Value) { return v; });
}

Value update(Ctx& ctx, const Value* a, uint32_t n) {
  Value coll = a[0], k = a[1], f = a[2];
  check_assoc_target(coll, k, "update", 1, 2);
  expect_callable("update", f, 3);
  Slot s = slot_of(ctx, coll, k);
  RootScope roots(ctx);
  roots.add(a, n);
  roots.add(s.key);
  Value v = call_updater(ctx, f, s.val, a + 3, n - 3);
  return assoc_one(ctx, coll, s.key, v);
}

Value update_in(Ctx& ctx, const Value* a, uint32_t n) {
  std::vector<Value> ks = path_keys(ctx, a[1], "update-in");
  Value f = a[2];
  expect_callable("update-in", f, 3);
  RootScope roots(ctx);
  roots.add(a, n);
  roots.add(ks);
  return put_in(ctx, a[0], ks, false, "update-in",
                [&](Value old) { return call_updater(ctx, f, old, a + 3, n - 3); });
}

Value dissoc(Ctx& ctx, const Value* a, uint32_t n) {
  if (a[0].is_nil()) return Value();
  if (!a[0].is_map()) type_error("dissoc", "a map", a[0], 1);
  const MapObj* m = a[0].map();
  ctx.tick(n);
  for (uint32_t i = 1; i < n; ++i)
    m = map_dissoc(ctx.arena, m, a[i]);
  return Value::object(m);
}

// ---------------------------------------------------------------- merging

// Entries `src` adds to a map, as conj would take them: a map's entries, a
// [key value] vector, nothing for nil (GAP-S100).
template <class Put>
void for_each_source_entry(Value src, const char* fname, int pos, Put&& put) {
  if (src.is_nil()) return;
  if (src.is_map()) {
    for (HashIter it(src.map()); !it.done(); it.next())
      put(it.key(), it.val());
    return;
  }
  if (src.is_vector() && src.vec()->count == 2) {
    put(src.vec()->nth(0), src.vec()->nth(1));
    return;
  }
  type_error(fname, "a map (or a [key value] entry)", src, pos);
}

size_t source_size(Value src) {
  if (src.is_map()) return src.map()->count;
  return src.is_vector() ? 1 : 0;
}

// (merge m1 m2 ...), Clojure's reduce of conj: nil when no argument is
// truthy (GAP-S54); one argument is returned as it is (GAP-S146); a vector
// first argument gets the others conj'ed on (GAP-S90).
Value merge(Ctx& ctx, const Value* a, uint32_t n) {
  uint32_t first = 0;
  while (first < n && !a[first].truthy())
    ++first;
  if (first == n) return Value();
  if (n == 1) return a[0];
  Value target = a[0].truthy() ? a[0] : Value::object(empty_map());
  uint32_t i = 1;
  if (target.is_vector() || target.is_set()) {
    for (; i < n; ++i) {
      ctx.tick();
      target = target.is_vector() ? Value::object(vec_conj(ctx.arena, target.vec(), a[i]))
                                  : Value::object(set_conj(ctx.arena, target.set(), a[i]));
    }
    return target;
  }
  if (!target.is_map()) type_error("merge", "a map", target, 1);
  const MapObj* m = target.map();
  // Merging into an empty map: the first map source is the result so far.
  for (; i < n && m->count == 0 && (a[i].is_map() || a[i].is_nil()); ++i)
    if (a[i].is_map()) m = a[i].map();
  size_t incoming = 0;
  for (uint32_t j = i; j < n; ++j)
    incoming += source_size(a[j]);
  ctx.tick(static_cast<int64_t>(incoming));
  if (incoming <= kSmallMax || incoming * 8 < m->count) {
    // Few entries into a larger map: persistent assoc shares the bulk.
    for (; i < n; ++i)
      for_each_source_entry(a[i], "merge", static_cast<int>(i) + 1,
                            [&](Value k, Value v) { m = map_assoc(ctx.arena, m, k, v); });
    return Value::object(m);
  }
  HashBuilder b(ctx.arena, Type::Map);
  b.put_all(m);
  for (; i < n; ++i)
    for_each_source_entry(a[i], "merge", static_cast<int>(i) + 1,
                          [&](Value k, Value v) { b.put(k, v); });
  return Value::object(finish_map(b));
}

struct ValueHash {
  size_t operator()(const Value& v) const { return hash_value(v); }
};
struct ValueEq {
  bool operator()(const Value& x, const Value& y) const { return equals(x, y); }
};

// An insertion-ordered key/value table with lookup, for building a map whose
// values depend on earlier ones (merge-with); finished through HashBuilder.
class OrderedTable {
 public:
  void put_all(const MapObj* m) {
    for (HashIter it(m); !it.done(); it.next())
      put(it.key(), it.val());
  }
  Value* find(Value k) {
    auto it = index_.find(k);
    return it == index_.end() ? nullptr : &vals_[it->second];
  }
  void put(Value k, Value v) {
    auto [it, inserted] = index_.emplace(k, static_cast<uint32_t>(keys_.size()));
    if (!inserted) {
      vals_[it->second] = v;
      return;
    }
    keys_.push_back(k);
    vals_.push_back(v);
  }
  const MapObj* finish(Arena& arena) const {
    HashBuilder b(arena, Type::Map);
    for (size_t i = 0; i < keys_.size(); ++i)
      b.put(keys_[i], vals_[i]);
    return finish_map(b);
  }
  // Its keys and values stay live while it is filled (merge-with calls back).
  void add_to(RootScope& roots) const {
    roots.add(keys_);
    roots.add(vals_);
  }

 private:
  std::unordered_map<Value, uint32_t, ValueHash, ValueEq> index_;
  std::vector<Value> keys_, vals_;
};

// (merge-with f m1 m2 ...): like merge, combining the values of a key present
// in both with (f old new). Keys match exactly.
Value merge_with(Ctx& ctx, const Value* a, uint32_t n) {
  Value f = a[0];
  expect_callable("merge-with", f, 1);
  RootScope roots(ctx);
  roots.add(a, n);
  const Value* maps = a + 1;
  uint32_t nmaps = n - 1;
  uint32_t first = 0;
  while (first < nmaps && !maps[first].truthy())
    ++first;
  if (first == nmaps) return Value();
  if (nmaps == 1) return maps[0];
  Value target = maps[0].truthy() ? maps[0] : Value::object(empty_map());
  auto source_map = [&](uint32_t i) -> const MapObj* {
    if (maps[i].is_nil()) return empty_map();
    if (!maps[i].is_map()) type_error("merge-with", "a map", maps[i], static_cast<int>(i) + 2);
    return maps[i].map();
  };
  if (target.is_vector()) {
    // Keys of the sources are indexes into the vector (GAP-S90).
    const VecObj* v = target.vec();
    roots.add(v);
    for (uint32_t i = 1; i < nmaps; ++i) {
      for (HashIter it(source_map(i)); !it.done(); it.next()) {
        ctx.tick();
        Value k = it.key();
        if (k.is_int() && k.as_int() >= 0 && k.as_int() < v->count) {
          auto idx = static_cast<uint32_t>(k.as_int());
          v = vec_assoc(ctx.arena, v, idx, ctx.call(f, v->nth(idx), it.val()));
        } else {
          check_assoc_target(Value::object(v), k, "merge-with", 2, static_cast<int>(i) + 2);
          v = vec_conj(ctx.arena, v, it.val());
        }
      }
    }
    return Value::object(v);
  }
  if (!target.is_map()) type_error("merge-with", "a map", target, 2);
  const MapObj* m = target.map();
  roots.add(m);
  size_t incoming = 0;
  for (uint32_t i = 1; i < nmaps; ++i)
    incoming += source_map(i)->count;
  if (incoming <= kSmallMax || incoming * 8 < m->count) {
    for (uint32_t i = 1; i < nmaps; ++i) {
      for (HashIter it(source_map(i)); !it.done(); it.next()) {
        ctx.tick();
        const Value* old = map_find(m, it.key());
        Value nv = old ? ctx.call(f, *old, it.val()) : it.val();
        m = map_assoc(ctx.arena, m, it.key(), nv);
      }
    }
    return Value::object(m);
  }
  // The table is native: a hash node, its bucket and two side-vector slots
  // per key, checked against the heap left before it is built.
  reserve_scratch(ctx, m->count + incoming, 128);
  OrderedTable t;
  t.add_to(roots);
  t.put_all(m);
  ctx.tick(m->count);
  for (uint32_t i = 1; i < nmaps; ++i) {
    for (HashIter it(source_map(i)); !it.done(); it.next()) {
      ctx.tick();
      if (Value* old = t.find(it.key()))
        *old = ctx.call(f, *old, it.val());
      else
        t.put(it.key(), it.val());
    }
  }
  return Value::object(t.finish(ctx.arena));
}

// ---------------------------------------------------------------- transforming

// (update-keys m f): nil is {} (GAP-S24); a vector's indexes are its keys
// (GAP-S75). When f maps two keys to one, the later entry's value wins.
Value update_keys(Ctx& ctx, const Value* a, uint32_t) {
  Value m = a[0], f = a[1];
  expect_callable("update-keys", f, 2);
  RootScope roots(ctx);
  roots.add(a, 2);
  HashBuilder b(ctx.arena, Type::Map);
  roots.add(b);
  if (m.is_vector()) {
    for (VecIter it(m.vec()); !it.done(); it.next()) {
      ctx.tick();
      b.put(ctx.call(f, Value::integer(it.index())), it.value());
    }
    return Value::object(finish_map(b));
  }
  const MapObj* map = expect_map_or_nil(m, "update-keys", 1);
  for (HashIter it(map); !it.done(); it.next()) {
    ctx.tick();
    b.put(ctx.call(f, it.key()), it.val());
  }
  return Value::object(finish_map(b));
}

// (update-vals m f): nil is {} (GAP-S24); a vector stays a vector (GAP-S75).
Value update_vals(Ctx& ctx, const Value* a, uint32_t) {
  Value m = a[0], f = a[1];
  expect_callable("update-vals", f, 2);
  RootScope roots(ctx);
  roots.add(a, 2);
  if (m.is_vector()) {
    VecBuilder b(ctx.arena);
    roots.add(b);
    for (VecIter it(m.vec()); !it.done(); it.next()) {
      ctx.tick();
      b.push(ctx.call(f, it.value()));
    }
    return Value::object(b.finish());
  }
  const MapObj* map = expect_map_or_nil(m, "update-vals", 1);
  HashBuilder b(ctx.arena, Type::Map);
  roots.add(b);
  for (HashIter it(map); !it.done(); it.next()) {
    ctx.tick();
    b.put(it.key(), ctx.call(f, it.val()));
  }
  return Value::object(finish_map(b));
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "hash-map", 0, kVariadic, hash_map, "(hash-map & kvs)", "A map of alternating keys and values."),
    PTC_BUILTIN(Core, "array-map", 0, kVariadic, hash_map, "(array-map & kvs)", "Same as hash-map."),
    PTC_BUILTIN(Core, "get", 2, 3, get, "(get m key) or (get m key default)", "Value for a key (keyword and string keys match each other), or default."),
    PTC_BUILTIN(Core, "get-in", 2, 3, get_in, "(get-in m path) or (get-in m path default)", "Value at a path of keys and indexes; default only when the path is missing."),
    PTC_BUILTIN(Core, "find", 2, 2, find, "(find coll key)", "The [key value] entry of a map, or [index value] of a vector; nil when absent."),
    PTC_BUILTIN(Core, "key", 1, 1, key, "(key entry)", "The key of a [key value] map entry."),
    PTC_BUILTIN(Core, "val", 1, 1, val, "(val entry)", "The value of a [key value] map entry."),
    PTC_BUILTIN(Core, "select-keys", 2, 2, select_keys, "(select-keys m keys)", "A map of just the given keys that are present."),
    PTC_BUILTIN(Core, "keys", 1, 1, keys, "(keys m)", "The keys of a map, in order; nil when empty."),
    PTC_BUILTIN(Core, "vals", 1, 1, vals, "(vals m)", "The values of a map, in order; nil when empty."),
    PTC_BUILTIN(Core, "entries", 1, 1, entries, "(entries m)", "The [key value] pairs of a map as a vector."),
    PTC_BUILTIN(Core, "assoc", 3, kVariadic, assoc, "(assoc m key val ...)", "Sets keys of a map, or indexes of a vector (index = count appends)."),
    PTC_BUILTIN(Core, "assoc-in", 3, 3, assoc_in, "(assoc-in m path val)", "Sets the value at a path, creating maps for missing keys."),
    PTC_BUILTIN(Core, "update", 3, kVariadic, update, "(update m key f & args)", "Replaces the value at a key with (f old args...)."),
    PTC_BUILTIN(Core, "update-in", 3, kVariadic, update_in, "(update-in m path f & args)", "Replaces the value at a path with (f old args...)."),
    PTC_BUILTIN(Core, "dissoc", 1, kVariadic, dissoc, "(dissoc m key ...)", "Removes keys from a map."),
    PTC_BUILTIN(Core, "merge", 0, kVariadic, merge, "(merge m1 m2 ...)", "Combines maps; a later map's value wins for a shared key."),
    PTC_BUILTIN(Core, "merge-with", 1, kVariadic, merge_with, "(merge-with f m1 m2 ...)", "Combines maps, joining the values of a shared key with (f old new)."),
    PTC_BUILTIN(Core, "update-keys", 2, 2, update_keys, "(update-keys m f)", "The map with f applied to every key."),
    PTC_BUILTIN(Core, "update-vals", 2, 2, update_vals, "(update-vals m f)", "The map with f applied to every value."),
};
// clang-format on

}  // namespace

std::span<const BuiltinDef> maps() {
  return kDefs;
}

}  // namespace ptc::builtins
