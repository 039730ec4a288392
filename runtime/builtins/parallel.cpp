// pmap and pcalls (spec §8.1 Transforming). Both are a set of independent
// branches whose results come back in order; any branch's error ends the call.
//
// For now the branches run one after another on the calling thread. All work
// is first turned into a list of branches (the arguments of each call) and
// then handed to run_branches, the single place a parallel executor will take
// over: results are written by index, so order never depends on scheduling.
#include <fmt/format.h>

#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

// Runs branches 0..count-1 and returns their results in branch order. `body(i)`
// computes branch i; `on_error(e, i)` may add context to an error raised by
// branch i before it propagates. This loop is what a parallel executor replaces.
template <class Body, class OnError>
Value run_branches(Ctx& ctx, size_t count, Body&& body, OnError&& on_error) {
  ctx.arena.reserve_check(count * sizeof(Value));  // the result vector
  std::vector<Value> results(count);
  for (size_t i = 0; i < count; ++i) {
    ctx.tick();
    try {
      results[i] = body(i);
    } catch (LispError& e) {
      on_error(e, i);
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
  return run_branches(
      ctx, args.size() / arity, [&](size_t i) { return ctx.call(f, &args[i * arity], arity); },
      [](LispError&, size_t) {});
}

// (pcalls f1 f2 ...): each fi is called with no arguments.
Value pcalls(Ctx& ctx, const Value* a, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    expect_callable("pcalls", a[i], static_cast<int>(i) + 1);
  return run_branches(
      ctx, n, [&](size_t i) { return ctx.call(a[i], nullptr, 0); },
      [n](LispError& e, size_t i) {
        switch (e.error().kind) {
          case ErrorKind::Timeout:
          case ErrorKind::MemoryLimit:
          case ErrorKind::Fail:
            return;  // run-level outcomes keep their own message
          default:
            e.error().message =
                fmt::format("pcalls: function {} of {} failed: {}", i + 1, n, e.error().message);
        }
      });
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
