// Sequence slicing and reshaping (spec §8.1 Subsetting and Combining): the
// take/drop family, splitting, partitioning, distinct/dedupe, interleave,
// interpose, concat, flatten, reverse, zip and combinations. Everything is
// eager and returns vectors. Strings are read as their characters, maps as
// [key value] entries, nil as an empty collection; operations that expose
// positions (reverse, distinct, interleave, interpose) refuse maps and sets,
// which have no positions (DIV-29, spec §3.9).
#include <fmt/format.h>

#include <optional>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/collector.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

int64_t count_arg(std::string_view fname, Value v, int pos) {
  return truncating_int_arg(fname, v, pos, "a number");
}

const VecObj* items_of(Ctx& ctx, Value coll, std::string_view fname, int pos) {
  const VecObj* v = seq_to_vector(ctx, coll, fname, pos);
  charge_items(ctx, v->count);
  return v;
}

const VecObj* ordered_items(Ctx& ctx, Value coll, std::string_view fname, int pos) {
  require_ordered(fname, coll, pos);
  return items_of(ctx, coll, fname, pos);
}

// [from, to) of v with both ends clamped to [0, count].
const VecObj* slice(Ctx& ctx, const VecObj* v, int64_t from, int64_t to) {
  int64_t n = v->count;
  from = std::clamp<int64_t>(from, 0, n);
  to = std::clamp<int64_t>(to, 0, n);
  if (from >= to) return empty_vector();
  charge_items(ctx, static_cast<size_t>(to - from));
  return vec_slice(ctx.arena, v, static_cast<uint32_t>(from), static_cast<uint32_t>(to));
}

Value nil_if_empty(const VecObj* v) {
  return v->count ? Value::object(v) : Value();
}

// ---- take / drop ------------------------------------------------------------

Value take(Ctx& ctx, const Value* a, uint32_t) {
  int64_t n = count_arg("take", a[0], 1);
  if (a[1].is_vector()) return Value::object(slice(ctx, a[1].vec(), 0, n));
  // Other seqables stop reading after n items.
  VecBuilder out(ctx.arena);
  SeqIter it(ctx, a[1], "take", 2);
  for (int64_t i = 0; i < n && !it.done(); ++i, it.next()) {
    ctx.tick();
    out.push(it.value());
  }
  return Value::object(out.finish());
}

Value drop_impl(Ctx& ctx, Value coll, int64_t n, const char* fname, int pos) {
  const VecObj* v = items_of(ctx, coll, fname, pos);
  return Value::object(n <= 0 ? v : slice(ctx, v, n, v->count));
}

Value drop(Ctx& ctx, const Value* a, uint32_t) {
  return drop_impl(ctx, a[1], count_arg("drop", a[0], 1), "drop", 2);
}

Value nthrest(Ctx& ctx, const Value* a, uint32_t) {
  return drop_impl(ctx, a[0], count_arg("nthrest", a[1], 2), "nthrest", 1);
}

Value nthnext(Ctx& ctx, const Value* a, uint32_t) {
  return nil_if_empty(drop_impl(ctx, a[0], count_arg("nthnext", a[1], 2), "nthnext", 1).vec());
}

// Clojure's take-last is nil whenever nothing is taken (GAP-S32, GAP-S48).
Value take_last(Ctx& ctx, const Value* a, uint32_t) {
  int64_t n = count_arg("take-last", a[0], 1);
  const VecObj* v = items_of(ctx, a[1], "take-last", 2);
  if (n <= 0) return Value();
  int64_t count = v->count;
  return nil_if_empty(slice(ctx, v, count - std::min(n, count), count));
}

Value drop_last(Ctx& ctx, const Value* a, uint32_t nargs) {
  int64_t n = nargs == 2 ? count_arg("drop-last", a[0], 1) : 1;
  Value coll = a[nargs - 1];
  const VecObj* v = items_of(ctx, coll, "drop-last", static_cast<int>(nargs));
  if (n <= 0) return Value::object(v);
  int64_t count = v->count;
  return Value::object(slice(ctx, v, 0, count - std::min(n, count)));
}

// Number of leading items of `v` for which pred is truthy.
uint32_t leading_run(Ctx& ctx, Value pred, const VecObj* v) {
  RootScope roots(ctx);
  roots.add(pred);
  roots.add(v);
  uint32_t i = 0;
  for (VecIter it(v); !it.done(); it.next(), ++i) {
    ctx.tick();
    if (!ctx.call(pred, it.value()).truthy()) break;
  }
  return i;
}

Value take_while(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("take-while", a[0], 1);
  RootScope roots(ctx);
  roots.add(a, 2);
  VecBuilder out(ctx.arena);
  roots.add(out);
  SeqIter it(ctx, a[1], "take-while", 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    if (!ctx.call(a[0], it.value()).truthy()) break;
    out.push(it.value());
  }
  return Value::object(out.finish());
}

Value drop_while(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("drop-while", a[0], 1);
  RootScope roots(ctx);
  const VecObj* v = items_of(ctx, a[1], "drop-while", 2);
  roots.add(v);
  return Value::object(slice(ctx, v, leading_run(ctx, a[0], v), v->count));
}

Value pair(Ctx& ctx, const VecObj* x, const VecObj* y) {
  return make_entry(ctx, Value::object(x), Value::object(y));
}

Value split_at(Ctx& ctx, const Value* a, uint32_t) {
  int64_t n = count_arg("split-at", a[0], 1);
  const VecObj* v = items_of(ctx, a[1], "split-at", 2);
  return pair(ctx, slice(ctx, v, 0, n), n <= 0 ? v : slice(ctx, v, n, v->count));
}

Value split_with(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("split-with", a[0], 1);
  RootScope roots(ctx);
  const VecObj* v = items_of(ctx, a[1], "split-with", 2);
  roots.add(v);
  uint32_t k = leading_run(ctx, a[0], v);
  return pair(ctx, slice(ctx, v, 0, k), slice(ctx, v, k, v->count));
}

// ---- partition ----------------------------------------------------------------

// Clojure's partition and partition-all over a finite collection: windows of
// n items starting every `step` items. partition drops an incomplete last
// window unless `pad` fills it; partition-all keeps it. A step that does not
// advance would repeat a window forever, which PTC-Lisp refuses.
Value partition_impl(Ctx& ctx, const char* fname, int64_t n, int64_t step, const Value* pad,
                     Value coll, int coll_pos, bool keep_partial) {
  const VecObj* v = items_of(ctx, coll, fname, coll_pos);
  const VecObj* pad_items = pad ? items_of(ctx, *pad, fname, coll_pos - 1) : nullptr;
  int64_t count = v->count;
  if (count == 0) return Value::object(empty_vector());
  if (step > 0) {
    double windows = std::ceil(static_cast<double>(count) / static_cast<double>(step));
    double width = static_cast<double>(std::clamp<int64_t>(n, 0, count));
    reserve_values(ctx, windows * (width + 3));
  }
  VecBuilder out(ctx.arena);
  for (int64_t off = 0; off < count;) {
    int64_t width = n <= 0 ? 0 : std::min(n, count - off);
    const VecObj* window = slice(ctx, v, off, off + width);
    if (width == n || keep_partial) {
      out.push(Value::object(window));
    } else {
      if (pad_items) {
        // The incomplete window, filled from pad up to n items.
        VecBuilder filled(ctx.arena);
        filled.push_all(window);
        for (VecIter it(pad_items); !it.done() && static_cast<int64_t>(filled.size()) < n;
             it.next())
          filled.push(it.value());
        out.push(Value::object(filled.finish()));
      }
      break;
    }
    if (step <= 0)
      throw_error(ErrorKind::TypeError,
                  fmt::format("{}: a step of {} never advances, so the same window would repeat "
                              "forever",
                              fname, step),
                  "use a positive size and step; PTC-Lisp has no infinite sequences");
    off = step > count - off ? count : off + step;
  }
  return Value::object(out.finish());
}

Value partition(Ctx& ctx, const Value* a, uint32_t nargs) {
  int64_t n = count_arg("partition", a[0], 1);
  int64_t step = nargs >= 3 ? count_arg("partition", a[1], 2) : n;
  const Value* pad = nargs == 4 ? &a[2] : nullptr;
  return partition_impl(ctx, "partition", n, step, pad, a[nargs - 1], static_cast<int>(nargs),
                        false);
}

Value partition_all(Ctx& ctx, const Value* a, uint32_t nargs) {
  int64_t n = count_arg("partition-all", a[0], 1);
  int64_t step = nargs == 3 ? count_arg("partition-all", a[1], 2) : n;
  return partition_impl(ctx, "partition-all", n, step, nullptr, a[nargs - 1],
                        static_cast<int>(nargs), true);
}

Value partition_by(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("partition-by", a[0], 1);
  RootScope roots(ctx);
  roots.add(a, 2);
  VecBuilder out(ctx.arena);
  roots.add(out);
  std::optional<VecBuilder> run;  // the window being filled
  Value run_key;
  roots.add(run_key);
  TracedBy window([&run](Tracer& t) {
    if (run) run->trace(t);
  });
  roots.add(window);
  SeqIter it(ctx, a[1], "partition-by", 2);
  roots.add(it);
  for (; !it.done(); it.next()) {
    ctx.tick();
    Value key = ctx.call(a[0], it.value());
    if (run && !equals(key, run_key)) {
      out.push(Value::object(run->finish()));
      run.reset();
    }
    if (!run) {
      run.emplace(ctx.arena);
      run_key = key;
    }
    run->push(it.value());
  }
  if (run) out.push(Value::object(run->finish()));
  return Value::object(out.finish());
}

// ---- distinct / dedupe --------------------------------------------------------

// The positions of first occurrences in a vector (equality as in `=`): an
// open-addressing table of item indexes, sized once and living in the arena
// so that its memory counts against the run's heap.
class FirstOccurrences {
 public:
  FirstOccurrences(Arena& arena, const VecObj* items) : items_(items) {
    while (cap_ < 2 * static_cast<size_t>(items->count))
      cap_ *= 2;
    slots_ = arena.alloc_array<uint32_t>(cap_);
    std::fill(slots_, slots_ + cap_, 0u);
  }

  // True when item i equals no item inserted before it (and records it).
  bool insert(uint32_t i) {
    Value x = items_->nth(i);
    for (size_t s = hash_value(x) & (cap_ - 1);; s = (s + 1) & (cap_ - 1)) {
      if (slots_[s] == 0) {
        slots_[s] = i + 1;
        return true;
      }
      if (equals(items_->nth(slots_[s] - 1), x)) return false;
    }
  }

 private:
  const VecObj* items_;
  uint32_t* slots_ = nullptr;  // item index + 1; 0 = empty
  size_t cap_ = 16;
};

Value distinct(Ctx& ctx, const Value* a, uint32_t) {
  const VecObj* v = ordered_items(ctx, a[0], "distinct", 1);
  FirstOccurrences seen(ctx.arena, v);
  VecBuilder out(ctx.arena);
  for (VecIter it(v); !it.done(); it.next()) {
    ctx.tick();
    if (seen.insert(it.index())) out.push(it.value());
  }
  return Value::object(out.finish());
}

Value dedupe(Ctx& ctx, const Value* a, uint32_t) {
  VecBuilder out(ctx.arena);
  Value prev;
  bool first = true;
  for (SeqIter it(ctx, a[0], "dedupe", 1); !it.done(); it.next()) {
    ctx.tick();
    if (first || !equals(prev, it.value())) out.push(it.value());
    prev = it.value();
    first = false;
  }
  return Value::object(out.finish());
}

// ---- combining ----------------------------------------------------------------

Value interleave(Ctx& ctx, const Value* a, uint32_t nargs) {
  std::vector<const VecObj*> colls;
  colls.reserve(nargs);
  uint32_t shortest = UINT32_MAX;
  for (uint32_t i = 0; i < nargs; ++i) {
    colls.push_back(ordered_items(ctx, a[i], "interleave", static_cast<int>(i) + 1));
    shortest = std::min(shortest, colls.back()->count);
  }
  if (nargs == 0) return Value::object(empty_vector());
  if (nargs == 1) return Value::object(colls[0]);
  reserve_values(ctx, static_cast<double>(shortest) * nargs);
  charge_items(ctx, static_cast<size_t>(shortest) * nargs);
  VecBuilder out(ctx.arena);
  for (uint32_t k = 0; k < shortest; ++k)
    for (const VecObj* c : colls)
      out.push(c->nth(k));
  return Value::object(out.finish());
}

Value interpose(Ctx& ctx, const Value* a, uint32_t) {
  const VecObj* v = ordered_items(ctx, a[1], "interpose", 2);
  reserve_values(ctx, 2.0 * v->count);
  charge_items(ctx, 2 * static_cast<size_t>(v->count));
  VecBuilder out(ctx.arena);
  for (VecIter it(v); !it.done(); it.next()) {
    if (it.index() > 0) out.push(a[0]);
    out.push(it.value());
  }
  return Value::object(out.finish());
}

Value concat(Ctx& ctx, const Value* a, uint32_t nargs) {
  if (nargs == 1 && (a[0].is_vector() || a[0].is_nil()))
    return Value::object(items_of(ctx, a[0], "concat", 1));
  VecBuilder out(ctx.arena);
  for (uint32_t i = 0; i < nargs; ++i) {
    if (a[i].is_vector()) {
      charge_items(ctx, a[i].vec()->count);
      out.push_all(a[i].vec());
      continue;
    }
    for (SeqIter it(ctx, a[i], "concat", static_cast<int>(i) + 1); !it.done(); it.next()) {
      ctx.tick();
      out.push(it.value());
    }
  }
  return Value::object(out.finish());
}

// Only vectors are flattened (spec §11.9); a root that is not a vector gives
// [] as in Clojure (GAP-S81). Iterative, so deep nesting cannot exhaust the
// native stack.
Value flatten(Ctx& ctx, const Value* a, uint32_t) {
  if (!a[0].is_vector()) return Value::object(empty_vector());
  VecBuilder out(ctx.arena);
  std::vector<VecIter> stack;
  stack.emplace_back(a[0].vec());
  while (!stack.empty()) {
    VecIter& top = stack.back();
    if (top.done()) {
      stack.pop_back();
      continue;
    }
    Value x = top.value();
    top.next();
    ctx.tick();
    if (x.is_vector())
      stack.emplace_back(x.vec());
    else
      out.push(x);
  }
  return Value::object(out.finish());
}

Value reverse(Ctx& ctx, const Value* a, uint32_t) {
  const VecObj* v = ordered_items(ctx, a[0], "reverse", 1);
  charge_items(ctx, v->count);
  VecBuilder out(ctx.arena);
  for (uint32_t i = v->count; i > 0; --i)
    out.push(v->nth(i - 1));
  return Value::object(out.finish());
}

Value zip(Ctx& ctx, const Value* a, uint32_t) {
  VecBuilder out(ctx.arena);
  SeqIter x(ctx, a[0], "zip", 1), y(ctx, a[1], "zip", 2);
  for (; !x.done() && !y.done(); x.next(), y.next()) {
    ctx.tick();
    out.push(make_entry(ctx, x.value(), y.value()));
  }
  return Value::object(out.finish());
}

// n choose k, saturating at a value far beyond any heap.
double binomial(uint32_t n, uint32_t k) {
  k = std::min(k, n - k);
  double c = 1;
  for (uint32_t i = 1; i <= k && c < 1e18; ++i)
    c = c * (n - k + i) / i;
  return std::round(c);
}

// All k-item selections of coll in index order: (combinations [1 2 3] 2)
// => [[1 2] [1 3] [2 3]]. A negative k gives [].
Value combinations(Ctx& ctx, const Value* a, uint32_t) {
  const VecObj* v = items_of(ctx, a[0], "combinations", 1);
  int64_t k64 = count_arg("combinations", a[1], 2);
  if (k64 < 0 || k64 > v->count) return Value::object(empty_vector());
  auto k = static_cast<uint32_t>(k64);
  // Each combination is k values plus a vector header.
  reserve_values(ctx, binomial(v->count, k) * (k + 4.0));
  std::vector<uint32_t> idx(k);
  for (uint32_t i = 0; i < k; ++i)
    idx[i] = i;
  VecBuilder out(ctx.arena);
  std::vector<Value> combo(k);
  for (;;) {
    charge_items(ctx, k);
    for (uint32_t i = 0; i < k; ++i)
      combo[i] = v->nth(idx[i]);
    out.push(Value::object(vec_from(ctx.arena, combo.data(), k)));
    // Advance the rightmost index that can still move, reset the ones after it.
    uint32_t i = k;
    while (i > 0 && idx[i - 1] == v->count - k + (i - 1))
      --i;
    if (i == 0) break;
    ++idx[i - 1];
    for (uint32_t j = i; j < k; ++j)
      idx[j] = idx[j - 1] + 1;
  }
  return Value::object(out.finish());
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "take", 2, 2, take, "(take n coll)", "The first n items (all of them when fewer)."),
    PTC_BUILTIN(Core, "drop", 2, 2, drop, "(drop n coll)", "The items after the first n."),
    PTC_BUILTIN(Core, "nthrest", 2, 2, nthrest, "(nthrest coll n)", "The items after the first n, like drop with the arguments swapped."),
    PTC_BUILTIN(Core, "nthnext", 2, 2, nthnext, "(nthnext coll n)", "The items after the first n, or nil when none remain."),
    PTC_BUILTIN(Core, "take-last", 2, 2, take_last, "(take-last n coll)", "The last n items, or nil when that is none."),
    PTC_BUILTIN(Core, "drop-last", 1, 2, drop_last, "(drop-last coll) or (drop-last n coll)", "All items but the last n (default 1)."),
    PTC_BUILTIN(Core, "take-while", 2, 2, take_while, "(take-while pred coll)", "The leading items for which pred is truthy."),
    PTC_BUILTIN(Core, "drop-while", 2, 2, drop_while, "(drop-while pred coll)", "The items from the first one for which pred is falsy."),
    PTC_BUILTIN(Core, "split-at", 2, 2, split_at, "(split-at n coll)", "[(take n coll) (drop n coll)]."),
    PTC_BUILTIN(Core, "split-with", 2, 2, split_with, "(split-with pred coll)", "[(take-while pred coll) (drop-while pred coll)]."),
    PTC_BUILTIN(Core, "partition", 2, 4, partition, "(partition n coll), (partition n step coll) or (partition n step pad coll)", "Windows of n items every step items; an incomplete last window is dropped unless pad fills it."),
    PTC_BUILTIN(Core, "partition-all", 2, 3, partition_all, "(partition-all n coll) or (partition-all n step coll)", "Windows of n items every step items, keeping an incomplete last window."),
    PTC_BUILTIN(Core, "partition-by", 2, 2, partition_by, "(partition-by f coll)", "Splits into runs of consecutive items with equal (f item)."),
    PTC_BUILTIN(Core, "distinct", 1, 1, distinct, "(distinct coll)", "The items without repeats, first occurrences kept in order."),
    PTC_BUILTIN(Core, "dedupe", 1, 1, dedupe, "(dedupe coll)", "The items with consecutive repeats collapsed to one."),
    PTC_BUILTIN(Core, "interleave", 0, kVariadic, interleave, "(interleave c1 c2 ...)", "First items of each collection, then second items, ... up to the shortest."),
    PTC_BUILTIN(Core, "interpose", 2, 2, interpose, "(interpose sep coll)", "The items with sep between each two."),
    PTC_BUILTIN(Core, "concat", 0, kVariadic, concat, "(concat coll1 coll2 ...)", "The items of all the collections, in order, as one vector."),
    PTC_BUILTIN(Core, "flatten", 1, 1, flatten, "(flatten coll)", "The non-vector items of nested vectors, depth first."),
    PTC_BUILTIN(Core, "reverse", 1, 1, reverse, "(reverse coll)", "The items in reverse order."),
    PTC_BUILTIN(Core, "zip", 2, 2, zip, "(zip c1 c2)", "Pairs [a b] of items in step, up to the shorter collection."),
    PTC_BUILTIN(Core, "combinations", 2, 2, combinations, "(combinations coll n)", "Every choice of n items, in order of position."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> seq_ops() {
  return kDefs;
}

}  // namespace ptc::builtins
