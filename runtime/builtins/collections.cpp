// Core collection builtins (spec §8.1 Subsetting, Combining, Conversion):
// construction (vector, list, vec, seq, into, zipmap, cons, conj), positional
// access (first, second, last, rest, next, butlast, nth and their
// compositions), and vector stack/slice operations (peek, pop, subvec).
// Positional access refuses maps and sets, which have no positions (DIV-29,
// spec §3.9); strings are read as their characters and nil as empty.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

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

int64_t index_arg(std::string_view fname, Value v, int pos) {
  return truncating_int_arg(fname, v, pos, "an integer index");
}

Value count(Ctx& ctx, const Value* a, uint32_t) {
  return Value::integer(static_cast<int64_t>(seq_count(ctx, a[0], "count", 1)));
}

Value vector(Ctx& ctx, const Value* a, uint32_t n) {
  return Value::object(vec_from(ctx.arena, a, n));
}

Value vec(Ctx& ctx, const Value* a, uint32_t) {
  return Value::object(seq_to_vector(ctx, a[0], "vec", 1));
}

// (seq coll): the items as a vector, or nil when there are none.
Value seq(Ctx& ctx, const Value* a, uint32_t) {
  if (seq_count(ctx, a[0], "seq", 1) == 0) return Value();
  const VecObj* v = seq_to_vector(ctx, a[0], "seq", 1);
  charge_items(ctx, v->count);
  return Value::object(v);
}

// ---- positional access ------------------------------------------------------

// The item at position i (0 = first) of an ordered seqable, or nil.
Value item_at(Ctx& ctx, Value coll, uint32_t i, const char* fname) {
  require_ordered(fname, coll, 1);
  if (coll.is_vector()) return i < coll.vec()->count ? coll.vec()->nth(i) : Value();
  SeqIter it(ctx, coll, fname, 1);
  for (; i > 0 && !it.done(); --i)
    it.next();
  return it.done() ? Value() : it.value();
}

Value first_of(Ctx& ctx, Value coll, const char* fname) {
  return item_at(ctx, coll, 0, fname);
}

Value first(Ctx& ctx, const Value* a, uint32_t) {
  return first_of(ctx, a[0], "first");
}

Value second(Ctx& ctx, const Value* a, uint32_t) {
  return item_at(ctx, a[0], 1, "second");
}

Value last(Ctx& ctx, const Value* a, uint32_t) {
  require_ordered("last", a[0], 1);
  if (a[0].is_vector()) {
    const VecObj* v = a[0].vec();
    return v->count ? v->nth(v->count - 1) : Value();
  }
  if (a[0].is_string()) {
    // Find the start of the last character without building the others.
    std::string_view s = a[0].str()->view();
    size_t start = s.size();
    for (size_t pos = 0; pos < s.size(); pos += grapheme_length(s, pos))
      start = pos;
    ctx.tick(static_cast<int64_t>(s.size() / 64));
    return start < s.size() ? char_string(ctx, s.substr(start)) : Value();
  }
  if (a[0].is_nil()) return Value();
  throw_not_seqable("last", a[0], 1);
}

// All items but the first, as a vector. Vectors are copied (the persistent
// vector has no cheap view of its suffix), so the copy is charged.
const VecObj* drop_first(Ctx& ctx, Value coll, const char* fname) {
  require_ordered(fname, coll, 1);
  if (coll.is_vector()) {
    const VecObj* v = coll.vec();
    if (v->count <= 1) return empty_vector();
    charge_items(ctx, v->count);
    return vec_slice(ctx.arena, v, 1, v->count);
  }
  VecBuilder b(ctx.arena);
  SeqIter it(ctx, coll, fname, 1);
  if (!it.done()) it.next();
  for (; !it.done(); it.next()) {
    ctx.tick();
    b.push(it.value());
  }
  return b.finish();
}

Value next_of(Ctx& ctx, Value coll, const char* fname) {
  const VecObj* v = drop_first(ctx, coll, fname);
  return v->count ? Value::object(v) : Value();
}

Value rest(Ctx& ctx, const Value* a, uint32_t) {
  return Value::object(drop_first(ctx, a[0], "rest"));
}

Value next(Ctx& ctx, const Value* a, uint32_t) {
  return next_of(ctx, a[0], "next");
}

Value ffirst(Ctx& ctx, const Value* a, uint32_t) {
  return first_of(ctx, first_of(ctx, a[0], "ffirst"), "ffirst");
}

Value fnext(Ctx& ctx, const Value* a, uint32_t) {
  return item_at(ctx, a[0], 1, "fnext");
}

Value nfirst(Ctx& ctx, const Value* a, uint32_t) {
  return next_of(ctx, first_of(ctx, a[0], "nfirst"), "nfirst");
}

Value nnext(Ctx& ctx, const Value* a, uint32_t) {
  Value n1 = next_of(ctx, a[0], "nnext");
  return n1.is_nil() ? Value() : next_of(ctx, n1, "nnext");
}

// All items but the last, or nil when that leaves none (as in Clojure).
Value butlast(Ctx& ctx, const Value* a, uint32_t) {
  require_ordered("butlast", a[0], 1);
  const VecObj* v = seq_to_vector(ctx, a[0], "butlast", 1);
  if (v->count <= 1) return Value();
  charge_items(ctx, v->count);
  return Value::object(vec_slice(ctx.arena, v, 0, v->count - 1));
}

Value nth(Ctx& ctx, const Value* a, uint32_t n) {
  int64_t i = index_arg("nth", a[1], 2);
  return nth_or(ctx, a[0], i, n == 3 ? a[2] : Value(), "nth");
}

// ---- vectors as stacks and slices ---------------------------------------------

Value peek(Ctx&, const Value* a, uint32_t) {
  if (a[0].is_nil()) return Value();
  if (!a[0].is_vector()) type_error("peek", "a vector", a[0], 1);
  const VecObj* v = a[0].vec();
  return v->count ? v->nth(v->count - 1) : Value();
}

// Without the last item; nil for an empty vector instead of Clojure's error
// (DIV-26).
Value pop(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is_nil()) return Value();
  if (!a[0].is_vector()) type_error("pop", "a vector", a[0], 1);
  const VecObj* v = a[0].vec();
  return v->count ? Value::object(vec_pop(ctx.arena, v)) : Value();
}

// Indexes are clamped to the vector instead of raising (DIV-26).
Value subvec(Ctx& ctx, const Value* a, uint32_t n) {
  if (!a[0].is_vector()) type_error("subvec", "a vector", a[0], 1);
  const VecObj* v = a[0].vec();
  int64_t count = v->count;
  int64_t from = std::clamp<int64_t>(index_arg("subvec", a[1], 2), 0, count);
  int64_t to = n == 3 ? std::clamp<int64_t>(index_arg("subvec", a[2], 3), 0, count) : count;
  if (from >= to) return Value::object(empty_vector());
  charge_items(ctx, static_cast<size_t>(to - from));
  return Value::object(
      vec_slice(ctx.arena, v, static_cast<uint32_t>(from), static_cast<uint32_t>(to)));
}

// An empty collection of the same kind; nil for anything that is not a
// vector, map or set, strings included (GAP-S56, GAP-S88).
Value empty(Ctx&, const Value* a, uint32_t) {
  switch (a[0].type()) {
    case Type::Vector:
      return Value::object(empty_vector());
    case Type::Map:
      return Value::object(empty_map());
    case Type::Set:
      return Value::object(empty_set());
    default:
      return Value();
  }
}

Value not_empty(Ctx& ctx, const Value* a, uint32_t) {
  return seq_count(ctx, a[0], "not-empty", 1) ? a[0] : Value();
}

// ---- building -----------------------------------------------------------------

Value cons(Ctx& ctx, const Value* a, uint32_t) {
  VecBuilder out(ctx.arena);
  out.push(a[0]);
  if (a[1].is_vector()) {
    charge_items(ctx, a[1].vec()->count);
    out.push_all(a[1].vec());
  } else {
    for (SeqIter it(ctx, a[1], "cons", 2); !it.done(); it.next()) {
      ctx.tick();
      out.push(it.value());
    }
  }
  return Value::object(out.finish());
}

// Adds one item to a map: a [key value] vector, a map (its entries), or nil
// (nothing), as Clojure's conj on maps accepts (GAP-S76).
void put_entry(HashBuilder& b, Value x, const char* fname, int pos) {
  if (x.is_vector() && x.vec()->count == 2) {
    b.put(x.vec()->nth(0), x.vec()->nth(1));
  } else if (x.is_map()) {
    for (HashIter it(x.map()); !it.done(); it.next())
      b.put(it.key(), it.val());
  } else if (!x.is_nil()) {
    type_error(fname, "a [key value] vector or a map to add to a map", x, pos);
  }
}

// put_entry for one persistent map update at a time.
const MapObj* assoc_entry(Ctx& ctx, const MapObj* m, Value x, const char* fname, int pos) {
  if (x.is_vector() && x.vec()->count == 2)
    return map_assoc(ctx.arena, m, x.vec()->nth(0), x.vec()->nth(1));
  if (x.is_map()) {
    for (HashIter it(x.map()); !it.done(); it.next())
      m = map_assoc(ctx.arena, m, it.key(), it.val());
    return m;
  }
  if (!x.is_nil()) type_error(fname, "a [key value] vector or a map to add to a map", x, pos);
  return m;
}

// Whether adding `added` items one at a time (each a small persistent update)
// is cheaper than rebuilding a collection of `size` items in bulk.
bool few_relative_to(size_t added, size_t size) {
  return added * 32 < size;
}

// Pours the items of `from` (any seqable) into the collection `to`: appended
// to a vector (nil acts as an empty vector, DIV-25), added to a set, or put
// into a map as entries.
Value pour(Ctx& ctx, Value to, Value from, const char* fname, int to_pos, int from_pos) {
  size_t added = seq_count(ctx, from, fname, from_pos);
  switch (to.type()) {
    case Type::Nil:
    case Type::Vector: {
      if (to.is_vector() && few_relative_to(added, to.vec()->count)) {
        const VecObj* v = to.vec();
        for (SeqIter it(ctx, from, fname, from_pos); !it.done(); it.next()) {
          ctx.tick();
          v = vec_conj(ctx.arena, v, it.value());
        }
        return Value::object(v);
      }
      VecBuilder out(ctx.arena);
      if (to.is_vector()) {
        charge_items(ctx, to.vec()->count);
        out.push_all(to.vec());
      }
      for (SeqIter it(ctx, from, fname, from_pos); !it.done(); it.next()) {
        ctx.tick();
        out.push(it.value());
      }
      return Value::object(out.finish());
    }
    case Type::Set: {
      if (few_relative_to(added, to.set()->count)) {
        const SetObj* s = to.set();
        for (SeqIter it(ctx, from, fname, from_pos); !it.done(); it.next()) {
          ctx.tick();
          s = set_conj(ctx.arena, s, it.value());
        }
        return Value::object(s);
      }
      HashBuilder b(ctx.arena, Type::Set);
      charge_items(ctx, to.set()->count);
      b.put_all(to.set());
      for (SeqIter it(ctx, from, fname, from_pos); !it.done(); it.next()) {
        ctx.tick();
        b.put(it.value());
      }
      return Value::object(finish_set(b));
    }
    case Type::Map: {
      if (few_relative_to(added, to.map()->count)) {
        const MapObj* m = to.map();
        for (SeqIter it(ctx, from, fname, from_pos); !it.done(); it.next()) {
          ctx.tick();
          m = assoc_entry(ctx, m, it.value(), fname, from_pos);
        }
        return Value::object(m);
      }
      HashBuilder b(ctx.arena, Type::Map);
      charge_items(ctx, to.map()->count);
      b.put_all(to.map());
      if (from.is_map()) {
        for (HashIter it(from.map()); !it.done(); it.next()) {
          ctx.tick();
          b.put(it.key(), it.val());
        }
      } else {
        for (SeqIter it(ctx, from, fname, from_pos); !it.done(); it.next()) {
          ctx.tick();
          put_entry(b, it.value(), fname, from_pos);
        }
      }
      return Value::object(finish_map(b));
    }
    default:
      type_error(fname, "a vector, map, set or nil to add to", to, to_pos);
  }
}

Value conj(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 0) return Value::object(empty_vector());
  Value coll = a[0];
  if (n == 1) return coll;
  if (coll.is_map()) {
    size_t added = 0;
    for (uint32_t i = 1; i < n; ++i)
      added += a[i].is_map() ? a[i].map()->count : 1;
    if (few_relative_to(added, coll.map()->count) || added == 1) {
      const MapObj* m = coll.map();
      for (uint32_t i = 1; i < n; ++i)
        m = assoc_entry(ctx, m, a[i], "conj", static_cast<int>(i) + 1);
      return Value::object(m);
    }
    HashBuilder b(ctx.arena, Type::Map);
    charge_items(ctx, coll.map()->count);
    b.put_all(coll.map());
    for (uint32_t i = 1; i < n; ++i)
      put_entry(b, a[i], "conj", static_cast<int>(i) + 1);
    return Value::object(finish_map(b));
  }
  if (!coll.is_nil() && !coll.is_vector() && !coll.is_set())
    type_error("conj", "a collection", coll, 1);
  if (coll.is_vector() && n <= 9) {  // the common (conj v x): append in place where possible
    const VecObj* v = coll.vec();
    for (uint32_t i = 1; i < n; ++i)
      v = vec_conj(ctx.arena, v, a[i]);
    return Value::object(v);
  }
  if (coll.is_set() && n <= 9) {
    const SetObj* st = coll.set();
    for (uint32_t i = 1; i < n; ++i)
      st = set_conj(ctx.arena, st, a[i]);
    return Value::object(st);
  }
  return pour(ctx, coll, Value::object(vec_from(ctx.arena, a + 1, n - 1)), "conj", 1, 2);
}

Value into(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 0) return Value::object(empty_vector());
  if (n == 1) return a[0];
  return pour(ctx, a[0], a[1], "into", 1, 2);
}

// A map from keys to vals, paired in order up to the shorter one.
Value zipmap(Ctx& ctx, const Value* a, uint32_t) {
  HashBuilder b(ctx.arena, Type::Map);
  SeqIter k(ctx, a[0], "zipmap", 1), v(ctx, a[1], "zipmap", 2);
  for (; !k.done() && !v.done(); k.next(), v.next()) {
    ctx.tick();
    b.put(k.value(), v.value());
  }
  return Value::object(finish_map(b));
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "count", 1, 1, count, "(count coll)", "Number of items (characters for strings)."),
    PTC_BUILTIN(Set, "vector", 0, kVariadic, vector, "(vector & items)", "A vector of the arguments."),
    PTC_BUILTIN(Core, "list", 0, kVariadic, vector, "(list & items)", "A vector of the arguments (PTC-Lisp is vector-first)."),
    PTC_BUILTIN(Set, "vec", 1, 1, vec, "(vec coll)", "The items of a collection as a vector."),
    PTC_BUILTIN(Core, "seq", 1, 1, seq, "(seq coll)", "The items as a vector (map entries, characters), or nil when there are none."),
    PTC_BUILTIN(Core, "first", 1, 1, first, "(first coll)", "The first item, or nil."),
    PTC_BUILTIN(Core, "second", 1, 1, second, "(second coll)", "The second item, or nil."),
    PTC_BUILTIN(Core, "last", 1, 1, last, "(last coll)", "The last item, or nil."),
    PTC_BUILTIN(Core, "rest", 1, 1, rest, "(rest coll)", "All items but the first, as a vector."),
    PTC_BUILTIN(Core, "next", 1, 1, next, "(next coll)", "All items but the first, or nil when none."),
    PTC_BUILTIN(Core, "ffirst", 1, 1, ffirst, "(ffirst coll)", "(first (first coll))."),
    PTC_BUILTIN(Core, "fnext", 1, 1, fnext, "(fnext coll)", "(first (next coll)), the second item."),
    PTC_BUILTIN(Core, "nfirst", 1, 1, nfirst, "(nfirst coll)", "(next (first coll))."),
    PTC_BUILTIN(Core, "nnext", 1, 1, nnext, "(nnext coll)", "(next (next coll)): the items after the second, or nil."),
    PTC_BUILTIN(Core, "butlast", 1, 1, butlast, "(butlast coll)", "All items but the last, or nil when none."),
    PTC_BUILTIN(Core, "nth", 2, 3, nth, "(nth coll index) or (nth coll index not-found)", "Item at an index; nil (or not-found) when out of range."),
    PTC_BUILTIN(Core, "peek", 1, 1, peek, "(peek v)", "The last item of a vector, or nil."),
    PTC_BUILTIN(Core, "pop", 1, 1, pop, "(pop v)", "The vector without its last item; nil when empty."),
    PTC_BUILTIN(Core, "subvec", 2, 3, subvec, "(subvec v start) or (subvec v start end)", "Items start (inclusive) to end (exclusive), indexes clamped to the vector."),
    PTC_BUILTIN(Core, "empty", 1, 1, empty, "(empty coll)", "An empty collection of the same kind, or nil."),
    PTC_BUILTIN(Core, "not-empty", 1, 1, not_empty, "(not-empty coll)", "coll when it has items, else nil."),
    PTC_BUILTIN(Core, "cons", 2, 2, cons, "(cons x coll)", "A vector of x followed by the items of coll."),
    PTC_BUILTIN(Core, "conj", 0, kVariadic, conj, "(conj coll x ...)", "Adds items: at the end of a vector, into a set or map."),
    PTC_BUILTIN(Core, "into", 0, 2, into, "(into to from)", "Adds every item of from to the collection to."),
    PTC_BUILTIN(Core, "zipmap", 2, 2, zipmap, "(zipmap keys vals)", "A map pairing keys with vals, up to the shorter."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> collections() {
  return kDefs;
}

}  // namespace ptc::builtins
