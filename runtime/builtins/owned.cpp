#include "runtime/builtins/owned.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "runtime/access.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hashcoll.hpp"

namespace ptc {

namespace {

// The builtins' own (persistent) implementations, for every case the
// in-place path leaves alone.
struct Plain {
  BuiltinFn assoc, update, dissoc, conj;
};
const Plain& plain() {
  static const Plain p{
      builtin_def(*find_builtin("assoc")).fn, builtin_def(*find_builtin("update")).fn,
      builtin_def(*find_builtin("dissoc")).fn, builtin_def(*find_builtin("conj")).fn};
  return p;
}

// The accumulator as an owned small collection of `type` (nil counts as an
// empty one), or nullptr.
[[gnu::always_inline]] inline HashObj* take(Ctx& ctx, Value acc, Type type, uint32_t owner) {
  if (!owner) return nullptr;
  const HashObj* h;
  if (acc.is_nil() && type == Type::Map)
    h = empty_map();
  else if (acc.type() == type)
    h = acc.as<const HashObj>();
  else
    return nullptr;
  return hash_take_owned(ctx.arena, h, owner);
}

// (fn coll rest...): the arguments an owned collection had no room for.
Value rest_plain(Ctx& ctx, BuiltinFn fn, const HashObj* coll, const Value* rest, uint32_t nrest) {
  builtins::CallArgs args(nrest + 1);
  args[0] = Value::object(coll);
  copy_values(args.data() + 1, rest, nrest);
  return fn(ctx, args.data(), nrest + 1);
}

Value owned_assoc(Ctx& ctx, const Value* a, uint32_t n, uint32_t owner) {
  HashObj* m = n % 2 == 1 ? take(ctx, a[0], Type::Map, owner) : nullptr;
  if (!m) return plain().assoc(ctx, a, n);
  ctx.tick(n / 2);
  for (uint32_t i = 1; i < n; i += 2) {
    // Full: the rest goes the persistent way (the map becomes a large one).
    if (!hash_put_owned(m, a[i], a[i + 1])) return rest_plain(ctx, plain().assoc, m, a + i, n - i);
  }
  return Value::object(m);
}

// update on an owned map m: f's result written in place under the key found.
[[gnu::always_inline]] inline Value update_owned_map(Ctx& ctx, HashObj* m, const Value* a,
                                                     uint32_t n) {
  Value k = a[1], f = a[2];
  // As update does: read flexibly, write back under the key that was found.
  Value stored_key = k;
  const Value* found = map_find_flex_entry(static_cast<const MapObj*>(m), k, &stored_key);
  Value old = found ? *found : Value();
  Value v = builtins::call_updater(ctx, f, old, a + 3, n - 3);
  if (found) {
    // The step function cannot reach m, so f left it as it was.
    *const_cast<Value*>(found) = v;
    m->hash = 0;
    return Value::object(m);
  }
  if (hash_put_owned(m, stored_key, v)) return Value::object(m);
  return Value::object(map_assoc(ctx.arena, static_cast<const MapObj*>(m), stored_key, v));
}

// The first step's fresh copy of the accumulator outlives f's call only
// through this root (any later step's is the argument itself, held by the
// caller); kept out of the hot path, which needs no scope.
[[gnu::noinline]] Value update_fresh_copy(Ctx& ctx, HashObj* m, const Value* a, uint32_t n) {
  RootScope roots(ctx);
  roots.add(m);
  return update_owned_map(ctx, m, a, n);
}

Value owned_update(Ctx& ctx, const Value* a, uint32_t n, uint32_t owner) {
  HashObj* m = take(ctx, a[0], Type::Map, owner);
  if (!m) return plain().update(ctx, a, n);
  builtins::expect_callable("update", a[2], 3);
  if (m != a[0].obj()) [[unlikely]]
    return update_fresh_copy(ctx, m, a, n);
  return update_owned_map(ctx, m, a, n);
}

Value owned_dissoc(Ctx& ctx, const Value* a, uint32_t n, uint32_t owner) {
  HashObj* m = a[0].is_map() ? take(ctx, a[0], Type::Map, owner) : nullptr;
  if (!m) return plain().dissoc(ctx, a, n);
  ctx.tick(n);
  for (uint32_t i = 1; i < n; ++i)
    hash_remove_owned(m, a[i]);
  return Value::object(m);
}

// (conj s x ...) on a set; maps and vectors keep conj's own path (a vector
// already appends in place into its claimable tail).
Value owned_conj(Ctx& ctx, const Value* a, uint32_t n, uint32_t owner) {
  HashObj* s = n >= 2 && a[0].is_set() ? take(ctx, a[0], Type::Set, owner) : nullptr;
  if (!s) return plain().conj(ctx, a, n);
  for (uint32_t i = 1; i < n; ++i) {
    ctx.tick();
    if (!hash_put_owned(s, a[i], Value())) return rest_plain(ctx, plain().conj, s, a + i, n - i);
  }
  return Value::object(s);
}

}  // namespace

std::atomic<const OwnedFn*> detail::owned_by_id{nullptr};

const OwnedFn* detail::build_owned_by_id() {
  static const std::vector<OwnedFn> by_id = [] {
    std::vector<OwnedFn> t(all_builtins().size(), nullptr);
    t[*find_builtin("assoc")] = owned_assoc;
    t[*find_builtin("update")] = owned_update;
    t[*find_builtin("dissoc")] = owned_dissoc;
    t[*find_builtin("conj")] = owned_conj;
    return t;
  }();
  owned_by_id.store(by_id.data(), std::memory_order_release);
  return by_id.data();
}

}  // namespace ptc
