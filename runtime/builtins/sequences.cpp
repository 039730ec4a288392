// Core sequence builtins (spec §8.1): map, filter, remove, reduce, range.
// All are eager and return vectors. Each element processed charges one
// reduction, so a long pipeline is bounded by the run's timeout.
#include <fmt/format.h>

#include <cmath>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/numbers.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

Value map_impl(Ctx& ctx, const Value* a, uint32_t n, const char* fname) {
  Value f = a[0];
  expect_callable(fname, f, 1);
  VecBuilder out(ctx.arena);
  if (n == 2) {
    for (SeqIter it(ctx, a[1], fname, 2); !it.done(); it.next()) {
      ctx.tick();
      out.push(ctx.call(f, it.value()));
    }
    return Value::object(out.finish());
  }
  // Several collections: zip them, stopping at the shortest.
  std::vector<SeqIter> its;
  its.reserve(n - 1);
  for (uint32_t i = 1; i < n; ++i)
    its.emplace_back(ctx, a[i], fname, static_cast<int>(i) + 1);
  std::vector<Value> args(n - 1);
  for (;;) {
    for (size_t i = 0; i < its.size(); ++i) {
      if (its[i].done()) return Value::object(out.finish());
      args[i] = its[i].value();
    }
    ctx.tick();
    out.push(ctx.call(f, args.data(), static_cast<uint32_t>(args.size())));
    for (auto& it : its)
      it.next();
  }
}

Value map(Ctx& ctx, const Value* a, uint32_t n) {
  return map_impl(ctx, a, n, "map");
}
Value mapv(Ctx& ctx, const Value* a, uint32_t n) {
  return map_impl(ctx, a, n, "mapv");
}

Value filter_impl(Ctx& ctx, const Value* a, bool keep, const char* fname) {
  Value pred = a[0];
  expect_callable(fname, pred, 1);
  VecBuilder out(ctx.arena);
  for (SeqIter it(ctx, a[1], fname, 2); !it.done(); it.next()) {
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

Value reduce(Ctx& ctx, const Value* a, uint32_t n) {
  Value f = a[0];
  expect_callable("reduce", f, 1);
  Value coll = n == 3 ? a[2] : a[1];
  SeqIter it(ctx, coll, "reduce", static_cast<int>(n));
  Value acc;
  if (n == 3) {
    acc = a[1];
  } else {
    if (it.done()) return ctx.call(f, nullptr, 0);
    acc = it.value();
    it.next();
  }
  for (; !it.done(); it.next()) {
    ctx.tick();
    acc = ctx.call(f, acc, it.value());
  }
  return acc;
}

Value range(Ctx& ctx, const Value* a, uint32_t n) {
  Value start = n >= 2 ? a[0] : Value::integer(0);
  Value end = n >= 2 ? a[1] : a[0];
  Value step = n == 3 ? a[2] : Value::integer(1);
  require_number("range", start, 1);
  require_number("range", end, n >= 2 ? 2 : 1);
  require_number("range", step, 3);
  if (is_zero_number(step))
    throw_error(ErrorKind::RuntimeError, "range: a step of 0 would never reach the end",
                "use a non-zero step; PTC-Lisp has no infinite sequences");
  double s = to_double(start), e = to_double(end), st = to_double(step);
  if (std::isnan(s) || std::isnan(e) || std::isnan(st) || std::isinf(s) || std::isinf(e))
    throw_error(ErrorKind::RuntimeError, "range: bounds must be finite numbers");
  double span = (e - s) / st;
  size_t count = span > 0 ? static_cast<size_t>(std::ceil(span)) : 0;
  // Refuse before allocating: ranges are eager.
  ctx.arena.reserve_check(count * sizeof(Value));
  ctx.tick(static_cast<int64_t>(count / 8));
  VecBuilder out(ctx.arena);
  if (start.is_int() && step.is_int() && end.is_number()) {
    int64_t i = start.as_int(), d = step.as_int();
    for (size_t k = 0; k < count; ++k, i += d)
      out.push(Value::integer(i));
  } else {
    Value x = start;
    for (size_t k = 0; k < count; ++k) {
      out.push(x);
      x = num_add(ctx.arena, x, step);
    }
  }
  return Value::object(out.finish());
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "map", 2, kVariadic, map, "(map f coll) or (map f c1 c2 ...)", "Applies f to each item (or to items of several collections in step)."),
    PTC_BUILTIN(Core, "mapv", 2, kVariadic, mapv, "(mapv f coll) or (mapv f c1 c2 ...)", "Same as map."),
    PTC_BUILTIN(Core, "filter", 2, 2, filter, "(filter pred coll)", "The items for which pred is truthy."),
    PTC_BUILTIN(Core, "filterv", 2, 2, filterv, "(filterv pred coll)", "Same as filter."),
    PTC_BUILTIN(Core, "remove", 2, 2, remove, "(remove pred coll)", "The items for which pred is falsy."),
    PTC_BUILTIN(Core, "reduce", 2, 3, reduce, "(reduce f coll) or (reduce f init coll)", "Folds the items with f, from init or the first item."),
    PTC_BUILTIN(Core, "range", 1, 3, range, "(range end), (range start end) or (range start end step)", "Numbers from start (0) up to end, by step (1)."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> sequences() {
  return kDefs;
}

}  // namespace ptc::builtins
