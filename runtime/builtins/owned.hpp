// In-place updates of an accumulator a reduce owns.
//
// The compiler proves of a step function such as (fn [m o] (update m k f x))
// that it reads its accumulator once, as the collection of the assoc, update,
// dissoc or conj whose result it returns (compiler/owned_accumulator.cpp), and
// compiles that call to CALLO. reduce and reduce-kv give each such step a
// fresh owner token (its frame keeps it); CALLO passes the token here. The
// first update copies the accumulator into a small collection tagged with the
// token (runtime/hashcoll.hpp); every later step finds its tag and writes in
// place, since nothing else can hold it. Everything else (a large map, a
// vector, a missing token) takes the builtin's ordinary persistent path.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/builtins/registry.hpp"
#include "runtime/value.hpp"

namespace ptc {

class Ctx;

// The builtin called with an accumulator its caller owns (`owner`, 0: none).
using OwnedFn = Value (*)(Ctx& ctx, const Value* args, uint32_t nargs, uint32_t owner);

namespace detail {
// By builtin id, built on first use: CALLO asks on every call.
extern std::atomic<const OwnedFn*> owned_by_id;
const OwnedFn* build_owned_by_id();
}  // namespace detail

// The in-place variant of builtin `id` (assoc, update, dissoc, conj), or
// nullptr when it has none. `id` is a builtin's.
inline OwnedFn owned_variant(uint32_t id) {
  const OwnedFn* by_id = detail::owned_by_id.load(std::memory_order_acquire);
  if (!by_id) [[unlikely]]
    by_id = detail::build_owned_by_id();
  return by_id[id];
}

}  // namespace ptc
