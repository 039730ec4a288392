// Ordering (spec §8.1 Ordering, §11.3): sort and sort-by.
//
// The default order is the runtime's total term order (`compare`), so mixed
// scalars and nil sort deterministically instead of failing (DIV-30). A
// comparator is :asc, :desc, nil (the default, GAP-S46) or a function of two
// arguments that returns a number (negative / zero / positive, like
// `compare`) or a boolean "a comes before b" answer such as `>` (GAP-S107:
// Clojure's reading of a predicate used as a comparator).
//
// The sort is a bottom-up merge sort: stable, iterative (no recursion however
// large the input), O(n log n) comparisons each charged one reduction, and
// safe with inconsistent user comparators (every index stays in range).
#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

enum class Order { Ascending, Descending, Function };

struct Comparator {
  Order order = Order::Ascending;
  Value fn;
  const char* fname = "";
};

int sign_of_number(Value n) {
  if (n.is_int()) return n.as_int() < 0 ? -1 : (n.as_int() > 0);
  if (n.is_float()) return n.as_float() < 0 ? -1 : (n.as_float() > 0);  // NaN: 0
  return n.big()->size < 0 ? -1 : 1;                                    // never zero
}

Comparator parse_comparator(Value c, const char* fname, int pos) {
  Comparator out;
  out.fname = fname;
  if (c.is_nil()) return out;
  if (c.is_keyword()) {
    std::string_view name = c.kw()->name();
    if (name == "asc") return out;
    if (name == "desc") {
      out.order = Order::Descending;
      return out;
    }
  }
  if (!c.is_fn())
    type_error(fname, "a comparator (:asc, :desc or a function of two arguments)", c, pos,
               c.is_keyword() ? "to order by a field, use (sort-by :field coll) or "
                                "(sort-by :field :desc coll)"
                              : "");
  out.order = Order::Function;
  out.fn = c;
  return out;
}

// Rethrows an error raised by user code inside a sort with what was being done,
// keeping its reason. Limit and control errors pass through untouched.
[[noreturn]] void rethrow_with_context(LispError& e, const std::string& context) {
  switch (e.error().kind) {
    case ErrorKind::TypeError:
    case ErrorKind::ArithmeticError:
    case ErrorKind::ArityError:
    case ErrorKind::NotCallable:
    case ErrorKind::RuntimeError:
      e.error().message = context + ": " + e.error().message;
      break;
    default:
      break;
  }
  throw;
}

// Whether a comes strictly before b under the comparator function. A numeric
// result is read like `compare`; a boolean (or nil) one is the comparator's own
// "a before b" answer, so a predicate needs a single call per question.
bool call_comparator(Ctx& ctx, const Comparator& c, Value a, Value b) {
  Value r;
  try {
    r = ctx.call(c.fn, a, b);
  } catch (LispError& e) {
    rethrow_with_context(e, fmt::format("{}: the comparator failed on {} and {}", c.fname,
                                        preview(a, 40), preview(b, 40)));
  }
  if (r.is_number()) return sign_of_number(r) < 0;
  if (r.is_bool() || r.is_nil()) return r.truthy();
  throw_error(ErrorKind::TypeError,
              fmt::format("{}: the comparator returned {} {} for {} and {}; it must return a "
                          "number (negative, zero or positive) or a boolean",
                          c.fname, type_name(r.type()), preview(r), preview(a, 40), preview(b, 40)),
              "use compare, a predicate such as < or >, or :asc / :desc");
}

bool before(Ctx& ctx, const Comparator& c, Value a, Value b) {
  ctx.tick();
  switch (c.order) {
    case Order::Ascending:
      return compare(a, b) < 0;
    case Order::Descending:
      return compare(b, a) < 0;
    case Order::Function:
      return call_comparator(ctx, c, a, b);
  }
  return false;
}

// Stable bottom-up merge sort of the positions 0..n-1 by keys[position]. An
// item moves ahead of an earlier one only when it comes strictly before it.
std::vector<uint32_t> sorted_positions(Ctx& ctx, const std::vector<Value>& keys,
                                       const Comparator& c) {
  size_t n = keys.size();
  std::vector<uint32_t> cur(n), next(n);
  for (size_t i = 0; i < n; ++i)
    cur[i] = static_cast<uint32_t>(i);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, k = lo;
      // Already in order across the boundary (common for sorted input): copy.
      if (mid == hi || !before(ctx, c, keys[cur[mid]], keys[cur[mid - 1]])) {
        for (; k < hi; ++k)
          next[k] = cur[k];
        continue;
      }
      while (i < mid && j < hi) {
        if (before(ctx, c, keys[cur[j]], keys[cur[i]]))
          next[k++] = cur[j++];
        else
          next[k++] = cur[i++];
      }
      while (i < mid)
        next[k++] = cur[i++];
      while (j < hi)
        next[k++] = cur[j++];
    }
    cur.swap(next);
  }
  return cur;
}

// Bytes per item a sort holds while it works: the items, their keys (sort-by),
// two position arrays, and the sorted vector it builds in the arena.
constexpr size_t kSortBytesPerItem = 3 * sizeof(Value) + 2 * sizeof(uint32_t);

std::vector<Value> collect_items(Ctx& ctx, Value coll, const char* fname, int pos) {
  size_t n = seq_count(ctx, coll, fname, pos);
  reserve_scratch(ctx, n, kSortBytesPerItem);  // refuse huge inputs before copying anything
  std::vector<Value> items;
  items.reserve(n);
  for (SeqIter it(ctx, coll, fname, pos); !it.done(); it.next())
    items.push_back(it.value());
  ctx.tick(static_cast<int64_t>(items.size() / 8));
  return items;
}

Value build_sorted(Ctx& ctx, const std::vector<Value>& items, const std::vector<uint32_t>& order) {
  VecBuilder out(ctx.arena);
  for (uint32_t i : order)
    out.push(items[i]);
  return Value::object(out.finish());
}

Value sort(Ctx& ctx, const Value* a, uint32_t n) {
  Comparator c = n == 2 ? parse_comparator(a[0], "sort", 1) : Comparator{};
  c.fname = "sort";
  std::vector<Value> items = collect_items(ctx, a[n - 1], "sort", static_cast<int>(n));
  RootScope roots(ctx);  // a comparator function calls back
  roots.add(a, n);
  roots.add(items);
  return build_sorted(ctx, items, sorted_positions(ctx, items, c));
}

Value sort_by(Ctx& ctx, const Value* a, uint32_t n) {
  Value keyfn = a[0];
  if (!keyfn.is_keyword() && !keyfn.is_string() && !is_callable(keyfn))
    type_error("sort-by", "a key function or a keyword/string key", keyfn, 1,
               keyfn.is_vector() ? "the key comes first: (sort-by key coll), so thread collections "
                                   "with ->>; a vector is not a key function"
                                 : "");
  Comparator c = n == 3 ? parse_comparator(a[1], "sort-by", 2) : Comparator{};
  c.fname = "sort-by";
  std::vector<Value> items = collect_items(ctx, a[n - 1], "sort-by", static_cast<int>(n));
  // Each key is computed once, not once per comparison.
  std::vector<Value> keys;
  keys.reserve(items.size());
  RootScope roots(ctx);
  roots.add(a, n);
  roots.add(items);
  roots.add(keys);
  for (Value item : items) {
    ctx.tick();
    try {
      keys.push_back(apply_key(ctx, keyfn, item, "sort-by", 1));
    } catch (LispError& e) {
      rethrow_with_context(e, fmt::format("sort-by: the key function failed on {}", preview(item)));
    }
  }
  return build_sorted(ctx, items, sorted_positions(ctx, keys, c));
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "sort", 1, 2, sort, "(sort coll) or (sort comparator coll)", "The items in order: natural order, :asc, :desc, or a comparator function (stable)."),
    PTC_BUILTIN(Core, "sort-by", 2, 3, sort_by, "(sort-by keyfn coll) or (sort-by keyfn comparator coll)", "The items ordered by (keyfn item); keyfn may be a keyword or string field name (stable)."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> sorting() {
  return kDefs;
}

}  // namespace ptc::builtins
