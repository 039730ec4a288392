// Aggregation helpers (spec §8.1 Aggregation, §11.1, §11.4, §11.5): sum, avg,
// sum-by, avg-by, min-by, max-by, distinct-by, min-key, max-key, group-by,
// frequencies.
//
// The numeric aggregators skip nil items and nil/missing fields; any other
// non-number is an arithmetic error. The *-by helpers take a key function, a
// keyword or string field name (read with flexible keys, §7.5), or a vector
// path of keys (read like get-in). Keys are compared with the runtime's total
// term order and grouped with `=` equality (1 and 1.0 are one group).
#include <fmt/format.h>

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/access.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/collector.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/printer.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

struct ValueHash {
  size_t operator()(Value v) const { return hash_value(v); }
};
struct ValueEq {
  bool operator()(Value a, Value b) const { return equals(a, b); }
};
// Native (temporary) indexes from a value to a position, keyed by `=`.
using ValueIndex = std::unordered_map<Value, uint32_t, ValueHash, ValueEq>;
using ValueSet = std::unordered_set<Value, ValueHash, ValueEq>;

// Native bytes one distinct key costs while group-by, frequencies or
// distinct-by work: a hash node with its bucket and allocation overhead, and
// the key's slots in the side vectors (with their growth slack).
constexpr size_t kIndexBytesPerKey = 128;

// Checks the native index against the heap left as it grows (at each power of
// two, so the check costs nothing per item).
void check_index_growth(Ctx& ctx, size_t keys) {
  if ((keys & (keys - 1)) == 0) reserve_scratch(ctx, 2 * keys, kIndexBytesPerKey);
}

// The key of `item`: a vector key is a path of fields (like get-in), anything
// else goes through apply_key (keyword/string field, or a call).
Value key_of(Ctx& ctx, Value key, Value item, const char* fname) {
  if (key.is_vector()) {
    Value cur = item;
    for (VecIter it(key.vec()); !it.done() && !cur.is_nil(); it.next())
      cur = lookup(ctx, cur, it.value());
    return cur;
  }
  return apply_key(ctx, key, item, fname, 1);
}

void check_key(Value key, const char* fname) {
  if (!key.is_keyword() && !key.is_string() && !key.is_vector() && !is_callable(key))
    type_error(fname, "a key function or a keyword/string key", key, 1);
}

[[noreturn]] void not_a_number(const char* fname, Value v, const char* what) {
  throw_error(ErrorKind::ArithmeticError,
              fmt::format("{}: expected numbers, got {} {}{}", fname, type_name(v.type()),
                          preview(v), what),
              "only numbers can be added; nil values and missing fields are skipped");
}

// Sum and count of the non-nil numbers among `values`.
struct Total {
  Value sum = Value::integer(0);
  int64_t count = 0;
};

void add_to(Ctx& ctx, Total& t, Value v, const char* fname, const char* what) {
  if (v.is_nil()) return;
  if (!v.is_number()) not_a_number(fname, v, what);
  t.sum = num_add(ctx.arena, t.sum, v);
  ++t.count;
}

Total total(Ctx& ctx, Value coll, const char* fname) {
  Total t;
  for (SeqIter it(ctx, coll, fname, 1); !it.done(); it.next()) {
    ctx.tick();
    add_to(ctx, t, it.value(), fname, "");
  }
  return t;
}

Total total_by(Ctx& ctx, Value key, Value coll, const char* fname) {
  check_key(key, fname);
  Total t;
  RootScope roots(ctx);  // a key function calls back
  roots.add(key);
  roots.add(t.sum);
  SeqIter it(ctx, coll, fname, 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    add_to(ctx, t, key_of(ctx, key, it.value(), fname), fname, " as a field value");
  }
  return t;
}

Value average(const Total& t) {
  if (t.count == 0) return Value();
  return Value::floating(to_double(t.sum) / static_cast<double>(t.count));
}

Value sum(Ctx& ctx, const Value* a, uint32_t) {
  return total(ctx, a[0], "sum").sum;
}
Value avg(Ctx& ctx, const Value* a, uint32_t) {
  return average(total(ctx, a[0], "avg"));
}
Value sum_by(Ctx& ctx, const Value* a, uint32_t) {
  return total_by(ctx, a[0], a[1], "sum-by").sum;
}
Value avg_by(Ctx& ctx, const Value* a, uint32_t) {
  return average(total_by(ctx, a[0], a[1], "avg-by"));
}

// min-by / max-by: (f coll) or (f x y & more). Items whose key is nil are
// skipped; the first item with the extreme key wins.
Value extreme_by(Ctx& ctx, const Value* a, uint32_t n, const char* fname, int want) {
  Value key = a[0];
  check_key(key, fname);
  Value best, best_key;
  RootScope roots(ctx);
  roots.add(a, n);
  roots.add(best);
  roots.add(best_key);
  bool found = false;
  auto consider = [&](Value item) {
    ctx.tick();
    Value k = key_of(ctx, key, item, fname);
    if (k.is_nil()) return;
    if (!found || compare(k, best_key) == want) {
      best = item;
      best_key = k;
      found = true;
    }
  };
  Value coll = a[1];
  if (n == 2 && (coll.is_nil() || coll.is_vector() || coll.is_map() || coll.is_set())) {
    SeqIter it(ctx, coll, fname, 2);
    roots.add(it);
    for (; !it.done(); it.next())
      consider(it.value());
  } else {
    for (uint32_t i = 1; i < n; ++i)
      consider(a[i]);
  }
  return best;
}

Value min_by(Ctx& ctx, const Value* a, uint32_t n) {
  return extreme_by(ctx, a, n, "min-by", -1);
}
Value max_by(Ctx& ctx, const Value* a, uint32_t n) {
  return extreme_by(ctx, a, n, "max-by", 1);
}

// min-key / max-key: Clojure's, where a tie goes to the later argument (GAP-S47).
Value extreme_key(Ctx& ctx, const Value* a, uint32_t n, const char* fname, int want) {
  Value key = a[0];
  if (!key.is_keyword() && !key.is_string() && !is_callable(key))
    type_error(fname, "a function", key, 1);
  if (n == 2) return a[1];
  RootScope roots(ctx);
  roots.add(a, n);
  Value best = a[1];
  Value best_key = apply_key(ctx, key, best, fname, 1);
  roots.add(best_key);
  for (uint32_t i = 2; i < n; ++i) {
    ctx.tick();
    Value k = apply_key(ctx, key, a[i], fname, 1);
    if (compare(k, best_key) != -want) {
      best = a[i];
      best_key = k;
    }
  }
  return best;
}

Value min_key(Ctx& ctx, const Value* a, uint32_t n) {
  return extreme_key(ctx, a, n, "min-key", -1);
}
Value max_key(Ctx& ctx, const Value* a, uint32_t n) {
  return extreme_key(ctx, a, n, "max-key", 1);
}

Value distinct_by(Ctx& ctx, const Value* a, uint32_t) {
  Value key = a[0];
  check_key(key, "distinct-by");
  ValueSet seen;
  VecBuilder out(ctx.arena);
  RootScope roots(ctx);
  roots.add(a, 2);
  roots.add(out);
  TracedBy seen_keys([&seen](Tracer& t) {
    for (Value k : seen)
      t.value(k);
  });
  roots.add(seen_keys);
  SeqIter it(ctx, a[1], "distinct-by", 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    if (seen.insert(key_of(ctx, key, it.value(), "distinct-by")).second) {
      check_index_growth(ctx, seen.size());
      out.push(it.value());
    }
  }
  return Value::object(out.finish());
}

Value group_by(Ctx& ctx, const Value* a, uint32_t) {
  Value key = a[0];
  if (!key.is_keyword() && !key.is_string() && !is_callable(key))
    type_error("group-by", "a key function or a keyword/string key", key, 1,
               key.is_vector() ? "the key comes first: (group-by key coll), so thread collections "
                                 "with ->>; a vector is not a key function"
                               : "");
  ValueIndex index;
  std::vector<Value> keys;
  std::deque<VecBuilder> groups;
  RootScope roots(ctx);
  roots.add(a, 2);
  roots.add(keys);
  TracedBy filling([&groups](Tracer& t) {
    for (const VecBuilder& g : groups)
      g.trace(t);
  });
  roots.add(filling);
  SeqIter it(ctx, a[1], "group-by", 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    Value k = apply_key(ctx, key, it.value(), "group-by", 1);
    // find first: emplace would allocate a node even for a key already there
    auto pos = index.find(k);
    if (pos == index.end()) {
      check_index_growth(ctx, keys.size() + 1);
      pos = index.emplace(k, static_cast<uint32_t>(keys.size())).first;
      keys.push_back(k);
      groups.emplace_back(ctx.arena);
    }
    groups[pos->second].push(it.value());
  }
  HashBuilder out(ctx.arena, Type::Map);
  for (size_t i = 0; i < keys.size(); ++i)
    out.put(keys[i], Value::object(groups[i].finish()));
  return Value::object(out.finish());
}

Value frequencies(Ctx& ctx, const Value* a, uint32_t) {
  ValueIndex index;
  std::vector<Value> keys;
  std::vector<int64_t> counts;
  for (SeqIter it(ctx, a[0], "frequencies", 1); !it.done(); it.next()) {
    ctx.tick();
    auto pos = index.find(it.value());
    if (pos == index.end()) {
      check_index_growth(ctx, keys.size() + 1);
      pos = index.emplace(it.value(), static_cast<uint32_t>(keys.size())).first;
      keys.push_back(it.value());
      counts.push_back(0);
    }
    ++counts[pos->second];
  }
  HashBuilder out(ctx.arena, Type::Map);
  for (size_t i = 0; i < keys.size(); ++i)
    out.put(keys[i], Value::integer(counts[i]));
  return Value::object(out.finish());
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "sum", 1, 1, sum, "(sum coll)", "Sum of the numbers in coll (nil items skipped); 0 when empty."),
    PTC_BUILTIN(Core, "avg", 1, 1, avg, "(avg coll)", "Mean of the numbers in coll as a float (nil items skipped); nil when empty."),
    PTC_BUILTIN(Core, "sum-by", 2, 2, sum_by, "(sum-by key coll)", "Sum of the key's values over coll, skipping nil or missing ones."),
    PTC_BUILTIN(Core, "avg-by", 2, 2, avg_by, "(avg-by key coll)", "Mean of the key's values over coll as a float, skipping nil or missing ones; nil when none."),
    PTC_BUILTIN(Core, "min-by", 2, kVariadic, min_by, "(min-by key coll) or (min-by key x y & more)", "The item whose key value is least (nil keys skipped); nil when none."),
    PTC_BUILTIN(Core, "max-by", 2, kVariadic, max_by, "(max-by key coll) or (max-by key x y & more)", "The item whose key value is greatest (nil keys skipped); nil when none."),
    PTC_BUILTIN(Core, "distinct-by", 2, 2, distinct_by, "(distinct-by key coll)", "The first item for each distinct key value, in order."),
    PTC_BUILTIN(Core, "min-key", 2, kVariadic, min_key, "(min-key f x & more)", "The argument x for which (f x) is least; the last one on ties."),
    PTC_BUILTIN(Core, "max-key", 2, kVariadic, max_key, "(max-key f x & more)", "The argument x for which (f x) is greatest; the last one on ties."),
    PTC_BUILTIN(Core, "group-by", 2, 2, group_by, "(group-by keyfn coll)", "A map from each key value to the vector of items having it."),
    PTC_BUILTIN(Core, "frequencies", 1, 1, frequencies, "(frequencies coll)", "A map from each distinct item to how many times it occurs."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> aggregates() {
  return kDefs;
}

}  // namespace ptc::builtins
