// Core sequence builtins (spec §8.1): the higher-order functions (map,
// filter, keep, mapcat, reduce, some, every?, ...), tree-seq, and the
// generators range and repeat. All are eager and return vectors; maps are
// read as [key value] entries, strings as their characters, nil as empty.
// Each item processed charges a reduction, so a long pipeline is bounded by
// the run's timeout; generators refuse results that cannot fit the heap
// before building them.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/collector.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

// ---- map and friends --------------------------------------------------------

// Calls f on the items of one collection, or on items of several collections
// in step (stopping at the shortest), handing each result to `emit` (whose
// caller roots what emit fills).
template <class Emit>
void map_each(Ctx& ctx, Value f, const Value* colls, uint32_t ncolls, const char* fname,
              Emit&& emit) {
  RootScope roots(ctx);
  roots.add(f);
  roots.add(colls, ncolls);
  if (ncolls == 1) {
    SeqIter it(ctx, colls[0], fname, 2);
    roots.add(it);
    for (; !it.done(); it.next()) {
      ctx.tick();
      emit(ctx.call(f, it.value()));
    }
    return;
  }
  std::vector<SeqIter> its;
  its.reserve(ncolls);
  for (uint32_t i = 0; i < ncolls; ++i) {
    its.emplace_back(ctx, colls[i], fname, static_cast<int>(i) + 2);
    roots.add(its.back());  // reserved: the iterators stay where they are
  }
  std::vector<Value> args(ncolls);
  for (;;) {
    for (uint32_t i = 0; i < ncolls; ++i) {
      if (its[i].done()) return;
      args[i] = its[i].value();
    }
    ctx.tick();
    emit(ctx.call(f, args.data(), ncolls));
    for (auto& it : its)
      it.next();
  }
}

Value map_impl(Ctx& ctx, const Value* a, uint32_t n, const char* fname) {
  expect_callable(fname, a[0], 1);
  RootScope roots(ctx);
  VecBuilder out(ctx.arena);
  roots.add(out);
  map_each(ctx, a[0], a + 1, n - 1, fname, [&](Value r) { out.push(r); });
  return Value::object(out.finish());
}

Value map(Ctx& ctx, const Value* a, uint32_t n) {
  return map_impl(ctx, a, n, "map");
}
Value mapv(Ctx& ctx, const Value* a, uint32_t n) {
  return map_impl(ctx, a, n, "mapv");
}

// Clojure's mapcat: the results of f, which must be collections (or nil),
// joined into one vector (GAP-S49).
Value mapcat(Ctx& ctx, const Value* a, uint32_t n) {
  expect_callable("mapcat", a[0], 1);
  RootScope roots(ctx);
  VecBuilder out(ctx.arena);
  roots.add(out);
  map_each(ctx, a[0], a + 1, n - 1, "mapcat", [&](Value r) {
    if (r.is_vector()) {
      ctx.tick(static_cast<int64_t>(r.vec()->count / 8));
      out.push_all(r.vec());
      return;
    }
    if (!is_seqable(r))
      type_error("mapcat", "f to return a collection", r, 0,
                 "mapcat joins the collections f returns; use map for single values");
    for (SeqIter it(ctx, r, "mapcat"); !it.done(); it.next()) {
      ctx.tick();
      out.push(it.value());
    }
  });
  return Value::object(out.finish());
}

Value map_indexed_impl(Ctx& ctx, const Value* a, bool keep_nil, const char* fname) {
  expect_callable(fname, a[0], 1);
  RootScope roots(ctx);
  roots.add(a, 2);
  VecBuilder out(ctx.arena);
  roots.add(out);
  int64_t i = 0;
  SeqIter it(ctx, a[1], fname, 2);
  roots.add(it);
  for (; !it.done(); it.next(), ++i) {
    ctx.tick();
    Value r = ctx.call(a[0], Value::integer(i), it.value());
    if (keep_nil || !r.is_nil()) out.push(r);
  }
  return Value::object(out.finish());
}

Value map_indexed(Ctx& ctx, const Value* a, uint32_t) {
  return map_indexed_impl(ctx, a, true, "map-indexed");
}
Value keep_indexed(Ctx& ctx, const Value* a, uint32_t) {
  return map_indexed_impl(ctx, a, false, "keep-indexed");
}

Value keep(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("keep", a[0], 1);
  RootScope roots(ctx);
  VecBuilder out(ctx.arena);
  roots.add(out);
  map_each(ctx, a[0], a + 1, 1, "keep", [&](Value r) {
    if (!r.is_nil()) out.push(r);
  });
  return Value::object(out.finish());
}

Value filter_impl(Ctx& ctx, const Value* a, bool keep, const char* fname) {
  Value pred = a[0];
  expect_callable(fname, pred, 1);
  RootScope roots(ctx);
  roots.add(a, 2);
  VecBuilder out(ctx.arena);
  roots.add(out);
  SeqIter it(ctx, a[1], fname, 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    if (ctx.call(pred, it.value()).truthy() == keep) out.push(it.value());
  }
  return Value::object(out.finish());
}

Value filter(Ctx& ctx, const Value* a, uint32_t) {
  return filter_impl(ctx, a, true, "filter");
}
Value filterv(Ctx& ctx, const Value* a, uint32_t) {
  return filter_impl(ctx, a, true, "filterv");
}
Value remove(Ctx& ctx, const Value* a, uint32_t) {
  return filter_impl(ctx, a, false, "remove");
}

// ---- predicates over items --------------------------------------------------

// The first truthy (pred item), or nil.
Value some(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("some", a[0], 1);
  RootScope roots(ctx);
  roots.add(a, 2);
  SeqIter it(ctx, a[1], "some", 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    Value r = ctx.call(a[0], it.value());
    if (r.truthy()) return r;
  }
  return Value();
}

// Whether (pred item) is truthy for every item; stops at the first miss.
bool all_match(Ctx& ctx, const Value* a, const char* fname) {
  expect_callable(fname, a[0], 1);
  RootScope roots(ctx);
  roots.add(a, 2);
  SeqIter it(ctx, a[1], fname, 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    if (!ctx.call(a[0], it.value()).truthy()) return false;
  }
  return true;
}

bool any_match(Ctx& ctx, const Value* a, const char* fname) {
  expect_callable(fname, a[0], 1);
  RootScope roots(ctx);
  roots.add(a, 2);
  SeqIter it(ctx, a[1], fname, 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    if (ctx.call(a[0], it.value()).truthy()) return true;
  }
  return false;
}

Value every_p(Ctx& ctx, const Value* a, uint32_t) {
  return Value::boolean(all_match(ctx, a, "every?"));
}
Value not_every_p(Ctx& ctx, const Value* a, uint32_t) {
  return Value::boolean(!all_match(ctx, a, "not-every?"));
}
Value not_any_p(Ctx& ctx, const Value* a, uint32_t) {
  return Value::boolean(!any_match(ctx, a, "not-any?"));
}

// ---- reduce -------------------------------------------------------------------

Value reduce(Ctx& ctx, const Value* a, uint32_t n) {
  Value f = a[0];
  expect_callable("reduce", f, 1);
  Value coll = n == 3 ? a[2] : a[1];
  RootScope roots(ctx);
  roots.add(a, n);
  SeqIter it(ctx, coll, "reduce", static_cast<int>(n));
  roots.add(it);
  Value acc;
  roots.add(acc);
  if (n == 3) {
    acc = a[1];
  } else {
    // Clojure: an empty collection gives (f) (GAP-S21), one item gives it as is.
    if (it.done()) {
      Value none;
      return ctx.call(f, &none, 0);
    }
    acc = it.value();
    it.next();
  }
  // A step function compiled to update its accumulator in place gets an
  // owner token; the tag comes off the result before anyone else sees it.
  uint32_t owner = f.is(Type::Closure) ? ctx.new_owner() : 0;
  Value args[2];
  for (; !it.done(); it.next()) {
    ctx.tick();
    args[0] = acc;
    args[1] = it.value();
    acc = ctx.call_owned(f, args, 2, owner);
  }
  hash_disown(acc, owner);
  return acc;
}

// (f acc key value) over a map's entries, or over a vector's index and item
// (GAP-S59); nil gives init.
Value reduce_kv(Ctx& ctx, const Value* a, uint32_t) {
  Value f = a[0];
  expect_callable("reduce-kv", f, 1);
  Value acc = a[1];
  Value args[3];
  RootScope roots(ctx);
  roots.add(a, 3);
  roots.add(acc);
  uint32_t owner = f.is(Type::Closure) ? ctx.new_owner() : 0;  // as in reduce
  auto step = [&] {
    args[0] = acc;
    acc = ctx.call_owned(f, args, 3, owner);
  };
  if (a[2].is_map()) {
    for (HashIter it(a[2].map()); !it.done(); it.next()) {
      ctx.tick();
      args[1] = it.key();
      args[2] = it.val();
      step();
    }
    hash_disown(acc, owner);
    return acc;
  }
  if (a[2].is_vector()) {
    for (VecIter it(a[2].vec()); !it.done(); it.next()) {
      ctx.tick();
      args[1] = Value::integer(it.index());
      args[2] = it.value();
      step();
    }
    hash_disown(acc, owner);
    return acc;
  }
  if (a[2].is_nil()) return acc;
  type_error("reduce-kv", "a map or vector", a[2], 3);
}

// ---- tree-seq -----------------------------------------------------------------

// The nodes of a tree, depth first in pre-order: each node, then (when
// branch? says so) the nodes under each of its children. Iterative, so deep
// trees cannot exhaust the native stack.
//
// Characters are one-character strings here, so (tree-seq string? seq "ab")
// would see "a" as a string with itself as its only child and never stop. In
// Clojure those children are characters, which are never branches: a
// one-character string directly under a string node is therefore a leaf
// (GAP-S77).
Value tree_seq(Ctx& ctx, const Value* a, uint32_t) {
  Value branch = a[0], children = a[1];
  expect_callable("tree-seq", branch, 1);
  expect_callable("tree-seq", children, 2);
  VecBuilder out(ctx.arena);
  struct Level {
    const VecObj* kids;
    uint32_t next;
    bool under_string;
  };
  std::vector<Level> stack;
  Value node = a[2];
  RootScope roots(ctx);
  roots.add(a, 3);
  roots.add(out);
  roots.add(node);
  TracedBy pending([&stack](Tracer& t) {
    for (const Level& level : stack)
      t.object(level.kids);
  });
  roots.add(pending);
  bool leaf_only = false;
  for (;;) {
    ctx.tick();
    out.push(node);
    if (!leaf_only && ctx.call(branch, node).truthy()) {
      Value kids = ctx.call(children, node);
      if (!is_seqable(kids)) type_error("tree-seq", "children to return a collection", kids, 2);
      const VecObj* v = seq_to_vector(ctx, kids, "tree-seq");
      if (v->count) stack.push_back({v, 0, node.is_string()});
    }
    while (!stack.empty() && stack.back().next >= stack.back().kids->count)
      stack.pop_back();
    if (stack.empty()) break;
    Level& top = stack.back();
    node = top.kids->nth(top.next++);
    leaf_only = top.under_string && node.is_string() && grapheme_count(node.str()) == 1;
  }
  return Value::object(out.finish());
}

// ---- generators ---------------------------------------------------------------

[[noreturn]] void endless(const char* fname, const std::string& why, const char* hint) {
  throw_error(ErrorKind::TypeError, fmt::format("{}: {}", fname, why), hint);
}

// Clojure's range over the numeric tower: start, start+step, ... while short
// of end (floats accumulate by repeated addition, as in Clojure). `args` are
// range's own arguments. With no `limit` a zero step or an infinite bound would
// never end, which PTC-Lisp refuses (DIV-02); with a limit (take n (range ...))
// only the first `limit` numbers are made, so those ranges are fine.
Value range_upto(Ctx& ctx, const Value* a, uint32_t n, std::optional<int64_t> limit) {
  if (n == 0 && !limit)
    endless("range", "(range) with no end counts forever",
            "PTC-Lisp has no infinite sequences; give an end, (range n), take a prefix, "
            "(take n (range)), or number items with (map-indexed f xs)");
  Value start = n >= 2 ? a[0] : Value::integer(0);
  Value end = n >= 2 ? a[1] : n == 1 ? a[0] : Value::floating(INFINITY);
  Value step = n == 3 ? a[2] : Value::integer(1);
  require_number("range", start, 1);
  require_number("range", end, n >= 2 ? 2 : 1);
  require_number("range", step, 3);
  if (step.is_float() && std::isnan(step.as_float()))
    type_error("range", "a step that is a number", step, 3);
  if (limit && *limit <= 0) return Value::object(empty_vector());
  bool unordered = false;
  int order = compare_numbers(start, end, &unordered);
  if (is_zero_number(step)) {
    if (order == 0 && !unordered) return Value::object(empty_vector());
    if (!limit)
      endless("range", "a step of 0 would repeat the start forever",
              "PTC-Lisp has no infinite sequences; take a prefix, (take n (range a b 0)), or use "
              "(repeat n x)");
    reserve_values(ctx, static_cast<double>(*limit));
    VecBuilder out(ctx.arena);
    for (int64_t k = 0; k < *limit; ++k) {
      out.push(start);
      if ((k & 7) == 0) ctx.tick();
    }
    return Value::object(out.finish());
  }
  int dir = compare_numbers(step, Value::integer(0));
  if (unordered || (dir > 0 ? order >= 0 : order <= 0)) return Value::object(empty_vector());
  double s = to_double(start), e = to_double(end), st = to_double(step);
  if (!limit && (std::isinf(s) || std::isinf(e)))
    endless("range", fmt::format("a range from {} to {} would never end", s, e),
            "PTC-Lisp has no infinite sequences; give finite bounds or take a prefix");
  // Refuse before building: ranges are eager.
  double span = std::isinf(st) ? 1 : std::ceil((e - s) / st) + 1;
  if (limit) span = std::min(span, static_cast<double>(*limit));
  reserve_values(ctx, span);
  VecBuilder out(ctx.arena);
  Value x = start;
  for (int64_t k = 0; !limit || k < *limit; ++k) {
    int c = compare_numbers(x, end, &unordered);
    if (unordered || (dir > 0 ? c >= 0 : c <= 0)) break;
    out.push(x);
    if ((k & 7) == 0) ctx.tick();
    int64_t next;
    if (x.is_int() && step.is_int() && !__builtin_add_overflow(x.as_int(), step.as_int(), &next)) {
      x = Value::integer(next);
    } else {
      Value y = num_add(ctx.arena, x, step);
      if (y.is_float() && x.is_float() && y.as_float() == x.as_float() && !limit)
        endless("range", fmt::format("a step of {} is too small to move past {}", st, x.as_float()),
                "PTC-Lisp has no infinite sequences; use a larger step");
      x = y;
    }
  }
  return Value::object(out.finish());
}

Value range(Ctx& ctx, const Value* a, uint32_t n) {
  return range_upto(ctx, a, n, std::nullopt);
}

// (take n (range ...)), rewritten by the analyzer: a[0] is take's count, the
// rest are range's arguments.
Value take_range(Ctx& ctx, const Value* a, uint32_t n) {
  return range_upto(ctx, a + 1, n - 1, truncating_int_arg("take", a[0], 1, "a number"));
}

Value repeat(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 1)
    throw_error(ErrorKind::ArityError,
                "repeat: (repeat x) is an infinite sequence, and PTC-Lisp has no infinite "
                "sequences",
                "give a count: (repeat n x)");
  Value count = a[0];
  int64_t times;
  if (count.is_int()) {
    times = count.as_int();
  } else if (count.is_float() && std::isfinite(count.as_float())) {
    times = double_to_int64_clamped(count.as_float());  // (repeat -1e300 x) is []
  } else if (count.is(Type::BigInt)) {
    times = count.big()->size < 0 ? 0 : INT64_MAX;
  } else {
    type_error("repeat", "a count", count, 1);
  }
  if (times <= 0) return Value::object(empty_vector());
  reserve_values(ctx, static_cast<double>(times));
  ctx.tick(times / 8);
  VecBuilder out(ctx.arena);
  for (int64_t i = 0; i < times; ++i)
    out.push(a[1]);
  return Value::object(out.finish());
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "map", 2, kVariadic, map, "(map f coll) or (map f c1 c2 ...)", "Applies f to each item (or to items of several collections in step)."),
    PTC_BUILTIN(Core, "mapv", 2, kVariadic, mapv, "(mapv f coll) or (mapv f c1 c2 ...)", "Same as map."),
    PTC_BUILTIN(Core, "mapcat", 2, kVariadic, mapcat, "(mapcat f coll) or (mapcat f c1 c2 ...)", "Applies f like map and joins the collections it returns."),
    PTC_BUILTIN(Core, "map-indexed", 2, 2, map_indexed, "(map-indexed f coll)", "(f index item) for each item."),
    PTC_BUILTIN(Core, "keep", 2, 2, keep, "(keep f coll)", "The non-nil results of (f item); false is kept."),
    PTC_BUILTIN(Core, "keep-indexed", 2, 2, keep_indexed, "(keep-indexed f coll)", "The non-nil results of (f index item); false is kept."),
    PTC_BUILTIN(Core, "filter", 2, 2, filter, "(filter pred coll)", "The items for which pred is truthy."),
    PTC_BUILTIN(Core, "filterv", 2, 2, filterv, "(filterv pred coll)", "Same as filter."),
    PTC_BUILTIN(Core, "remove", 2, 2, remove, "(remove pred coll)", "The items for which pred is falsy."),
    PTC_BUILTIN(Core, "some", 2, 2, some, "(some pred coll)", "The first truthy (pred item), or nil."),
    PTC_BUILTIN(Core, "every?", 2, 2, every_p, "(every? pred coll)", "True when pred is truthy for every item (and for no items)."),
    PTC_BUILTIN(Core, "not-every?", 2, 2, not_every_p, "(not-every? pred coll)", "True when pred is falsy for some item."),
    PTC_BUILTIN(Core, "not-any?", 2, 2, not_any_p, "(not-any? pred coll)", "True when pred is falsy for every item."),
    PTC_BUILTIN(Core, "reduce", 2, 3, reduce, "(reduce f coll) or (reduce f init coll)", "Folds the items with f, from init or the first item."),
    PTC_BUILTIN(Core, "reduce-kv", 3, 3, reduce_kv, "(reduce-kv f init coll)", "Folds (f acc key value) over a map, or over a vector's indexes and items."),
    PTC_BUILTIN(Core, "tree-seq", 3, 3, tree_seq, "(tree-seq branch? children root)", "The nodes of a tree depth first: each node, then the nodes under its children."),
    PTC_BUILTIN(Internal, "__take_range", 1, 4, take_range, "", ""),
    PTC_BUILTIN(Core, "range", 0, 3, range, "(range end), (range start end) or (range start end step)", "Numbers from start (0) up to end, by step (1)."),
    PTC_BUILTIN(Core, "repeat", 1, 2, repeat, "(repeat n x)", "A vector of n copies of x."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> sequences() {
  return kDefs;
}

}  // namespace ptc::builtins
