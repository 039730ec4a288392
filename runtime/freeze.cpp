#include "runtime/freeze.hpp"

#include <vector>

#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {

// Set on vectors, maps, sets and native functions already walked (their
// other flag bits are kClaimableTail on vectors and nothing on the others).
constexpr uint8_t kFrozen = 0x80;

bool first_visit(const Obj* o) {
  auto* m = const_cast<Obj*>(o);
  if (m->flags & kFrozen) return false;
  m->flags = static_cast<uint8_t>((m->flags & ~VecObj::kClaimableTail) | kFrozen);
  return true;
}

}  // namespace

void freeze(Value root) {
  std::vector<Value> todo{root};
  auto push_values = [&todo](const Value* xs, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i)
      if (xs[i].is_vector() || xs[i].is_map() || xs[i].is_set() || xs[i].is(Type::NativeFn))
        todo.push_back(xs[i]);
  };
  auto walk_vector = [&push_values](const VecObj* v) {
    for (uint32_t i = 0; i < v->count;) {
      uint32_t len = 0;
      const Value* run = v->chunk_at(i, &len);
      push_values(run, len);
      i += len;
    }
  };
  while (!todo.empty()) {
    Value v = todo.back();
    todo.pop_back();
    if (v.is(Type::NativeFn)) {
      // A function made from constants when compiling, e.g. (constantly [1 2]).
      const auto* f = v.as<const NativeFnObj>();
      if (first_visit(f)) push_values(f->captured(), f->ncaptured);
    } else if (v.is_vector()) {
      // Empty collections may be the shared static ones: nothing to do there.
      if (v.vec()->count == 0 || !first_visit(v.obj())) continue;
      walk_vector(v.vec());
    } else {
      const auto* h = v.as<const HashObj>();
      if (h->count == 0 || !first_visit(h)) continue;
      if (h->small()) {
        push_values(h->inline_data(), h->count * h->stride());
      } else if (h->entries->count && first_visit(h->entries)) {
        walk_vector(h->entries);
      }
    }
  }
}

}  // namespace ptc
