#include "runtime/collector.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "runtime/ctx.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {

std::atomic<bool> g_stress{false};

// The children of an object marked already.
void scan(Tracer& t, const Obj* o) {
  switch (o->type) {
    case Type::Vector:
      trace_vector(t, static_cast<const VecObj*>(o));
      return;
    case Type::Map:
    case Type::Set:
      trace_hash(t, static_cast<const HashObj*>(o));
      return;
    case Type::Closure: {
      const auto* c = static_cast<const ClosureObj*>(o);
      t.values(c->captured(), c->ncaptured);
      return;
    }
    case Type::NativeFn: {
      const auto* n = static_cast<const NativeFnObj*>(o);
      t.values(n->captured(), n->ncaptured);
      return;
    }
    case Type::Regex:
      if (const StrObj* s = static_cast<const RegexObj*>(o)->source) t.object(s);
      return;
    case Type::Var:
      if (const KeywordObj* k = static_cast<const VarObj*>(o)->name) t.object(k);
      return;
    case Type::Opaque: {
      const auto* op = static_cast<const OpaqueObj*>(o);
      if (op->vt->trace) op->vt->trace(op, t);
      return;
    }
    default:  // strings, keywords, symbols, big integers hold no values
      return;
  }
}

// The roots one entry of a root scope stands for.
void trace_entry(Tracer& t, const RootEntry& e) {
  using K = RootEntry::Kind;
  switch (e.kind) {
    case K::Value:
      t.value(*static_cast<const Value*>(e.p));
      return;
    case K::Object:
      if (const Obj* o = *static_cast<const Obj* const*>(e.p)) t.object(o);
      return;
    case K::Values:
      t.values(static_cast<const Value*>(e.p), e.n);
      return;
    case K::ValueVector: {
      const auto& v = *static_cast<const std::vector<Value>*>(e.p);
      t.values(v.data(), v.size());
      return;
    }
    case K::VecBuilder:
      static_cast<const VecBuilder*>(e.p)->trace(t);
      return;
    case K::HashBuilder:
      static_cast<const HashBuilder*>(e.p)->trace(t);
      return;
    case K::SeqIter:
      static_cast<const SeqIter*>(e.p)->trace(t);
      return;
    case K::Source:
      static_cast<RootSource*>(const_cast<void*>(e.p))->trace_roots(t);
      return;
  }
}

// Compiled regexes are cached per run by pattern, weakly: a dead one leaves
// the cache and gives back the memory charged for it.
void drop_dead_regexes(Ctx& ctx, const CollectedSpace& space) {
  for (auto it = ctx.regexes.begin(); it != ctx.regexes.end();) {
    const Obj* o = it->second.obj();
    if (space.contains(o) && !space.is_marked(o)) {
      ctx.arena.uncharge(static_cast<const RegexObj*>(o)->charged);
      it = ctx.regexes.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace

size_t object_bytes(const Obj* o) {
  switch (o->type) {
    case Type::String:
      return sizeof(StrObj) + static_cast<const StrObj*>(o)->len + 1;
    case Type::Keyword:
    case Type::Symbol:
      return sizeof(KeywordObj) + static_cast<const KeywordObj*>(o)->len + 1;
    case Type::BigInt: {
      int32_t n = static_cast<const BigObj*>(o)->size;
      return sizeof(BigObj) + static_cast<size_t>(n < 0 ? -int64_t{n} : n) * sizeof(uint64_t);
    }
    case Type::Vector:
      return sizeof(VecObj);
    case Type::Map:
    case Type::Set:
      return hash_object_bytes(static_cast<const HashObj*>(o));
    case Type::Closure:
      return sizeof(ClosureObj) + static_cast<const ClosureObj*>(o)->ncaptured * sizeof(Value);
    case Type::NativeFn:
      return sizeof(NativeFnObj) + static_cast<const NativeFnObj*>(o)->ncaptured * sizeof(Value);
    case Type::Regex:
      return sizeof(RegexObj);
    case Type::Var:
      return sizeof(VarObj);
    case Type::Opaque:
      return static_cast<const OpaqueObj*>(o)->vt->size;
    default:
      std::abort();  // not a heap object
  }
}

void Tracer::object(const Obj* o) {
  if (!ours(o) || !space_.mark(o, object_bytes(o))) return;
  stack_.push_back(o);
}

void Tracer::drain() {
  while (!stack_.empty()) {
    const Obj* o = stack_.back();
    stack_.pop_back();
    scan(*this, o);
  }
}

void collect_heap(Ctx& ctx, Collection kind) {
  bool scheduled = kind == Collection::Scheduled;
  auto started = std::chrono::steady_clock::now();
  CollectedSpace& space = *ctx.arena.space();
  space.begin_collection();
  Tracer t(space);
  // 1. The context's own values.
  ctx.interner.trace(t);
  t.value(ctx.budget);
  if (ctx.failed_with) t.value(*ctx.failed_with);
  if (!scheduled)  // the cache, and what the run is charged for it, stays as it was
    for (const auto& [pattern, regex] : ctx.regexes)
      t.value(regex);
  // 2. Root sources.
  for (RootSource* source = ctx.root_sources(); source; source = source->next_root_source)
    source->trace_roots(t);
  // 3. Root scopes.
  ctx.roots.for_each([&t](const RootEntry& e) { trace_entry(t, e); });
  t.drain();

  drop_dead_regexes(ctx, space);
  ctx.arena.finalize_dead([&space](void* p) { return !space.is_marked(p); });
  size_t live = space.end_collection();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                 started)
                .count();
  if (!scheduled) {
    ctx.arena.collection_between(live, static_cast<uint64_t>(ns));
    return;
  }
  ctx.arena.collection_done(live, static_cast<uint64_t>(ns));
  size_t held = live + ctx.arena.charged();
  if (held > ctx.arena.cap()) ctx.arena.throw_live_over_cap(held);
}

void set_collect_stress_for_testing(bool on) {
  g_stress.store(on, std::memory_order_relaxed);
}

bool collect_stress_for_testing() {
  return g_stress.load(std::memory_order_relaxed);
}

}  // namespace ptc
