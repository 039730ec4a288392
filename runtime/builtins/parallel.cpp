// pmap and pcalls (spec §8.1 Transforming). Both are a set of independent
// branches whose results come back in order; any branch's error ends the call.
//
// All work is first turned into a list of branches (the arguments of each
// call) and handed to run_branches: the run's parallel executor spreads them
// over worker threads (vm/parallel.cpp); results are written by index, so
// order never depends on scheduling.
#include <fmt/format.h>

#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

// Runs the branches: on the run's parallel executor when it has one,
// otherwise one after another here. Results are in branch order either way.
Value run_branches(Ctx& ctx, const ParallelBranches& b) {
  ctx.arena.reserve_check(b.count * sizeof(Value));  // the result vector
  // The branches' functions and arguments (a map's entries are made for
  // them) live while any branch runs.
  RootScope roots(ctx);
  roots.add(b.fns, b.one_fn ? 1 : b.count);
  if (b.args) roots.add(b.args, b.count * b.arity);
  if (ctx.parallel && b.count > 0) return ctx.parallel->run_branches(ctx, b);
  std::vector<Value> results(b.count);
  roots.add(results);
  for (size_t i = 0; i < b.count; ++i) {
    ctx.tick();
    try {
      results[i] = ctx.call(b.one_fn ? b.fns[0] : b.fns[i], b.args + i * b.arity, b.arity);
    } catch (LispError& e) {
      if (b.annotate) b.annotate(e, i, b.count);
      throw;
    }
  }
  return Value::object(vec_from(ctx.arena, results.data(), results.size()));
}

// (pmap f coll) or (pmap f c1 c2 ...): map's contract (nil is empty, strings
// are characters, maps are [k v] entries, several collections zip and stop at
// the shortest).
Value pmap(Ctx& ctx, const Value* a, uint32_t n) {
  Value f = a[0];
  expect_callable("pmap", f, 1);
  uint32_t arity = n - 1;
  std::vector<SeqIter> its;
  its.reserve(arity);
  for (uint32_t i = 1; i < n; ++i)
    its.emplace_back(ctx, a[i], "pmap", static_cast<int>(i) + 1);
  // The arguments of every branch, `arity` values per branch.
  std::vector<Value> args;
  for (;;) {
    bool done = false;
    for (auto& it : its)
      done = done || it.done();
    if (done) break;
    ctx.tick();
    for (auto& it : its) {
      args.push_back(it.value());
      it.next();
    }
  }
  return run_branches(ctx, {"pmap", args.size() / arity, &f, true, args.data(), arity, nullptr});
}

void annotate_pcalls(LispError& e, size_t i, size_t n) {
  switch (e.error().kind) {
    case ErrorKind::Timeout:
    case ErrorKind::MemoryLimit:
    case ErrorKind::Fail:
    case ErrorKind::ParallelCapacityExceeded:
      return;  // run-level outcomes keep their own message
    default:
      e.error().message =
          fmt::format("pcalls: function {} of {} failed: {}", i + 1, n, e.error().message);
  }
}

// (pcalls f1 f2 ...): each fi is called with no arguments.
Value pcalls(Ctx& ctx, const Value* a, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    expect_callable("pcalls", a[i], static_cast<int>(i) + 1);
  return run_branches(ctx, {"pcalls", n, a, false, nullptr, 0, annotate_pcalls});
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "pmap", 2, kVariadic, pmap, "(pmap f coll) or (pmap f c1 c2 ...)", "Like map, for independent calls such as tool calls; results keep the input order."),
    PTC_BUILTIN(Core, "pcalls", 0, kVariadic, pcalls, "(pcalls f1 f2 ...)", "Calls each zero-argument function and returns their results in order."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> parallel() {
  return kDefs;
}

}  // namespace ptc::builtins
