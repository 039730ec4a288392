// Set builtins (spec §3.9, clojure.set): construction, membership, and the
// set algebra. The algebra follows clojure.set on sets and nil; membership in
// a non-set argument is tested as contains? does in PTC-Lisp (a vector's
// values, DIV-27), and one-character strings stand for characters.
#include <fmt/format.h>

#include "runtime/access.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

Value hash_set(Ctx& ctx, const Value* a, uint32_t n) {
  ctx.tick(n);
  HashBuilder b(ctx.arena, Type::Set);
  for (uint32_t i = 0; i < n; ++i)
    b.put(a[i]);
  return Value::object(finish_set(b));
}

// (set coll): nil is #{}, a string its characters, a map its entries (GAP-S30).
Value set(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is_set()) return a[0];
  HashBuilder b(ctx.arena, Type::Set);
  for (SeqIter it(ctx, a[0], "set", 1); !it.done(); it.next()) {
    ctx.tick();
    b.put(it.value());
  }
  return Value::object(finish_set(b));
}

bool is_index_of_string(Value k, const StrObj* s) {
  int64_t i;
  if (k.is_int())
    i = k.as_int();
  else if (auto t = k.is_float() ? double_to_int64(k.as_float()) : std::nullopt;
           t && static_cast<double>(*t) == k.as_float())
    i = *t;  // (contains? "abc" 1.0) is true (GAP-S35)
  else
    return false;
  return i >= 0 && static_cast<size_t>(i) < grapheme_count(s);
}

bool contains_impl(Ctx& ctx, Value c, Value k) {
  switch (c.type()) {
    case Type::Nil:
      return false;
    case Type::Map:
      return map_find_flex(c.map(), k) != nullptr;
    case Type::Set:
      return set_contains(c.set(), k);
    case Type::Vector:
      // PTC-Lisp tests membership on vectors (spec §8.1: "works on lists too"),
      // where Clojure would test the index (DIV-27).
      for (VecIter it(c.vec()); !it.done(); it.next()) {
        ctx.tick();
        if (equals(it.value(), k)) return true;
      }
      return false;
    case Type::String:
      return is_index_of_string(k, c.str());
    default:
      type_error("contains?", "a collection", c, 1);
  }
}

Value contains(Ctx& ctx, const Value* a, uint32_t) {
  return Value::boolean(contains_impl(ctx, a[0], a[1]));
}

// (disj set x ...): nil stays nil.
Value disj(Ctx& ctx, const Value* a, uint32_t n) {
  if (a[0].is_nil()) return Value();
  if (!a[0].is_set())
    type_error("disj", "a set", a[0], 1, "use dissoc for maps, remove for vectors");
  const SetObj* s = a[0].set();
  ctx.tick(n);
  for (uint32_t i = 1; i < n; ++i)
    s = set_disj(ctx.arena, s, a[i]);
  return Value::object(s);
}

// ------------------------------------------------------------------ algebra

// A membership test for an argument of the set algebra: sets directly, other
// collections through a temporary set of their items (a map's [k v] entries).
class Members {
 public:
  Members(Ctx& ctx, Value coll, const char* fname, int pos) {
    if (coll.is_set()) {
      set_ = coll.set();
      return;
    }
    HashBuilder b(ctx.arena, Type::Set);
    for (SeqIter it(ctx, coll, fname, pos); !it.done(); it.next()) {
      ctx.tick();
      b.put(it.value());
    }
    set_ = finish_set(b);
  }
  bool has(Value x) const { return set_contains(set_, x); }
  const SetObj* set() const { return set_; }

 private:
  const SetObj* set_ = nullptr;
};

size_t count_of(Ctx& ctx, Value v, const char* fname, int pos) {
  return seq_count(ctx, v, fname, pos);
}

// conj of every item of `from` into `into` (a set, map, vector or nil), as
// Clojure's union does on the larger argument.
Value conj_all(Ctx& ctx, Value into, Value from, const char* fname, int pos) {
  if (into.is_set()) {
    const SetObj* s = into.set();
    size_t n = count_of(ctx, from, fname, pos);
    ctx.tick(static_cast<int64_t>(n));
    if (n <= kSmallMax || n * 8 < s->count) {
      for (SeqIter it(ctx, from, fname, pos); !it.done(); it.next())
        s = set_conj(ctx.arena, s, it.value());
      return Value::object(s);
    }
    HashBuilder b(ctx.arena, Type::Set);
    b.put_all(s);
    for (SeqIter it(ctx, from, fname, pos); !it.done(); it.next())
      b.put(it.value());
    return Value::object(finish_set(b));
  }
  if (into.is_nil() && count_of(ctx, from, fname, pos) == 0) return into;
  if (into.is_vector() || into.is_nil()) {
    const VecObj* v = into.is_nil() ? empty_vector() : into.vec();
    for (SeqIter it(ctx, from, fname, pos); !it.done(); it.next()) {
      ctx.tick();
      v = vec_conj(ctx.arena, v, it.value());
    }
    return Value::object(v);
  }
  if (into.is_map()) {
    const MapObj* m = into.map();
    for (SeqIter it(ctx, from, fname, pos); !it.done(); it.next()) {
      ctx.tick();
      Value e = it.value();
      if (!e.is_vector() || e.vec()->count != 2)
        type_error(fname, "[key value] entries to add to a map", e, pos);
      m = map_assoc(ctx.arena, m, e.vec()->nth(0), e.vec()->nth(1));
    }
    return Value::object(m);
  }
  if (count_of(ctx, from, fname, pos) == 0) return into;
  type_error(fname, "sets", into, 1);
}

// (union & sets): the items of all; the largest argument is grown by the
// others, so a small set joins a large one without copying it.
Value set_union(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 0) return Value::object(empty_set());
  if (n == 1) return a[0];
  // Clojure keeps the first of two equal-sized arguments, the last of three or more.
  uint32_t big = 0;
  size_t big_count = count_of(ctx, a[0], "union", 1);
  for (uint32_t i = 1; i < n; ++i) {
    size_t c = count_of(ctx, a[i], "union", static_cast<int>(i) + 1);
    if (n == 2 ? c > big_count : c >= big_count) {
      big = i;
      big_count = c;
    }
  }
  Value out = a[big];
  for (uint32_t i = 0; i < n; ++i)
    if (i != big) out = conj_all(ctx, out, a[i], "union", static_cast<int>(i) + 1);
  return out;
}

// The items of `s` (a set, map or nil) that are members of `other`.
Value keep_members(Ctx& ctx, Value s, int s_pos, Value other, int other_pos, bool keep_if_member,
                   const char* fname) {
  if (s.is_nil()) return s;
  if (!s.is_set() && !s.is_map()) type_error(fname, "a set", s, s_pos);
  Members m(ctx, other, fname, other_pos);
  const HashObj* h = static_cast<const HashObj*>(s.obj());
  bool is_map = s.is_map();
  HashBuilder b(ctx.arena, s.type());
  bool changed = false;
  ctx.tick(h->count);
  for (HashIter it(h); !it.done(); it.next()) {
    Value item = is_map ? make_entry(ctx, it.key(), it.val()) : it.key();
    if (m.has(item) == keep_if_member)
      b.put(it.key(), it.val());
    else
      changed = true;
  }
  if (!changed) return s;
  return Value::object(b.finish());
}

Value intersect2(Ctx& ctx, Value s1, int p1, Value s2, int p2) {
  // Walk the smaller argument, test membership in the other; the walked one
  // must be a set (or map, or nil) since the result is built from it.
  auto walkable = [](Value v) { return v.is_set() || v.is_map() || v.is_nil(); };
  bool swap = count_of(ctx, s2, "intersection", p2) < count_of(ctx, s1, "intersection", p1);
  if (!walkable(swap ? s2 : s1) && walkable(swap ? s1 : s2)) swap = !swap;
  if (swap) return keep_members(ctx, s2, p2, s1, p1, true, "intersection");
  return keep_members(ctx, s1, p1, s2, p2, true, "intersection");
}

// (intersection s1 & sets): the items in every argument.
Value set_intersection(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 1) return a[0];
  if (n == 2) return intersect2(ctx, a[0], 1, a[1], 2);
  // Start from the smallest argument (the last of equal ones, as Clojure).
  uint32_t small = 0;
  size_t small_count = count_of(ctx, a[0], "intersection", 1);
  for (uint32_t i = 1; i < n; ++i) {
    size_t c = count_of(ctx, a[i], "intersection", static_cast<int>(i) + 1);
    if (c <= small_count) {
      small = i;
      small_count = c;
    }
  }
  Value out = a[small];
  int out_pos = static_cast<int>(small) + 1;
  for (uint32_t i = 0; i < n; ++i) {
    if (i == small) continue;
    out = intersect2(ctx, out, out_pos, a[i], static_cast<int>(i) + 1);
  }
  return out;
}

// (difference s1 & sets): the items of s1 in none of the others.
Value set_difference(Ctx& ctx, const Value* a, uint32_t n) {
  Value out = a[0];
  for (uint32_t i = 1; i < n; ++i) {
    if (out.is_nil()) return out;
    if (!out.is_set()) type_error("difference", "a set", out, 1);
    const SetObj* s = out.set();
    Value other = a[i];
    int pos = static_cast<int>(i) + 1;
    size_t oc = count_of(ctx, other, "difference", pos);
    if (oc * 8 < s->count) {
      // Few removals from a large set: persistent disj shares the rest.
      ctx.tick(static_cast<int64_t>(oc));
      for (SeqIter it(ctx, other, "difference", pos); !it.done(); it.next())
        s = set_disj(ctx.arena, s, it.value());
      out = Value::object(s);
    } else {
      out = keep_members(ctx, out, 1, other, pos, false, "difference");
    }
  }
  return out;
}

Value is_subset(Ctx& ctx, Value sub, int sub_pos, Value super, int super_pos, const char* fname) {
  for (int i = 0; i < 2; ++i) {
    Value v = i == 0 ? sub : super;
    if (!v.is_nil() && !v.is_set())
      type_error(fname, "a set", v, i == 0 ? sub_pos : super_pos, "convert with (set coll)");
  }
  if (sub.is_nil()) return Value::boolean(true);
  const SetObj* s = sub.set();
  const SetObj* t = super.is_nil() ? empty_set() : super.set();
  if (s->count > t->count) return Value::boolean(false);
  ctx.tick(s->count);
  for (HashIter it(s); !it.done(); it.next())
    if (!set_contains(t, it.key())) return Value::boolean(false);
  return Value::boolean(true);
}

Value subset_p(Ctx& ctx, const Value* a, uint32_t) {
  return is_subset(ctx, a[0], 1, a[1], 2, "subset?");
}
Value superset_p(Ctx& ctx, const Value* a, uint32_t) {
  return is_subset(ctx, a[1], 2, a[0], 1, "superset?");
}

// (rename-keys m kmap): each key of kmap present in m (matched flexibly, as
// get does) is replaced by its new name; the other entries stay.
Value rename_keys(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is_nil()) return Value();
  if (!a[0].is_map()) type_error("rename-keys", "a map", a[0], 1);
  if (!a[1].is_map() && !a[1].is_nil())
    type_error("rename-keys", "a map of old key to new key", a[1], 2);
  const MapObj* src = a[0].map();
  const MapObj* kmap = a[1].is_nil() ? empty_map() : a[1].map();
  ctx.tick(kmap->count);
  // Remove every renamed key first, so swaps ({:a :b :b :a}) work.
  const MapObj* out = src;
  for (HashIter it(kmap); !it.done(); it.next())
    if (const Value* stored = map_find_flex_key(src, it.key()))
      out = map_dissoc(ctx.arena, out, *stored);
  for (HashIter it(kmap); !it.done(); it.next())
    if (const Value* v = map_find_flex(src, it.key()))
      out = map_assoc(ctx.arena, out, it.val(), *v);
  return Value::object(out);
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Set, "hash-set", 0, kVariadic, hash_set, "(hash-set & items)", "A set of the arguments."),
    PTC_BUILTIN(Set, "set", 1, 1, set, "(set coll)", "The items of a collection as a set."),
    PTC_BUILTIN(Set, "contains?", 2, 2, contains, "(contains? coll key)", "True when a map has the key, a set the element, or a vector the value."),
    PTC_BUILTIN(Set, "disj", 1, kVariadic, disj, "(disj set x ...)", "The set without the given elements."),
    PTC_BUILTIN(Set, "union", 0, kVariadic, set_union, "(clojure.set/union & sets)", "The elements found in any of the sets."),
    PTC_BUILTIN(Set, "intersection", 1, kVariadic, set_intersection, "(clojure.set/intersection s1 & sets)", "The elements found in every set."),
    PTC_BUILTIN(Set, "difference", 1, kVariadic, set_difference, "(clojure.set/difference s1 & sets)", "The elements of the first set that are in none of the others."),
    PTC_BUILTIN(Set, "subset?", 2, 2, subset_p, "(clojure.set/subset? s1 s2)", "True when every element of s1 is in s2."),
    PTC_BUILTIN(Set, "superset?", 2, 2, superset_p, "(clojure.set/superset? s1 s2)", "True when every element of s2 is in s1."),
    PTC_BUILTIN(Set, "rename-keys", 2, 2, rename_keys, "(clojure.set/rename-keys m kmap)", "The map with keys renamed by kmap (old key to new key)."),
};
// clang-format on

}  // namespace

std::span<const BuiltinDef> sets() {
  return kDefs;
}

}  // namespace ptc::builtins
