// The roots of a run's collected heap: everything the collector starts from.
// These rules are kept here, and only here; runtime/collector.cpp walks them
// in the same order.
//
// 1. The context's own values (Ctx): the interner's keywords and symbols,
//    the budget map, the value of a (fail v), and the compiled regexes
//    (held weakly: a regex no value refers to is finalized and dropped
//    from the cache).
// 2. Root sources registered with the context (RootSource): every VM of
//    the run, for its registers up to its top frame, its frames' closures,
//    its globals and #'var values, its data/ map and *1..*3; any other
//    layer that keeps values of the run (a pmap call's results, an import's
//    work) registers one for as long as it does.
// 3. Root scopes (RootScope): the values a native frame holds across a
//    call back into the VM (map, filter, sort-by, group-by, ...) or across a
//    wait. A builtin that calls back opens one and adds what it keeps in
//    C++ variables: the collection it walks, the builder it fills, the
//    accumulator it carries. Scopes nest like the frames that open them
//    and close in reverse, exceptions included (RAII), as Lua's C functions
//    keep values on the Lua stack.
//
// A value reachable from a root is live; everything else in the collected
// space may be reused after a collection. Values outside the collected
// space are neither marked nor traced into: frozen shared values (prepared
// contexts, a compiled program's constants and keywords), static objects,
// what the arena took in chunk mode (a program compiled with the run), and
// other runs' heaps (a pmap branch reading its caller's values). None of
// them can point into this space, because values are immutable; the one
// exception is a vector's tail buffer, which conj may append to in place
// (vector.hpp): the tracer therefore reads the values of every tail and
// trie leaf it reaches, whichever heap holds the buffer.
//
// Collections happen only at the VM's safe points (Ctx::safepoint), never
// inside an allocation, and for a suspended execution when it parks.
// Nothing moves, so a native frame's pointers stay valid as long as what
// they point to is reachable from a root.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/value.hpp"

namespace ptc {

class Ctx;
class Tracer;
class VecBuilder;
class HashBuilder;
class SeqIter;

// Anything that keeps a run's values for longer than one native call.
class RootSource {
 public:
  virtual void trace_roots(Tracer& tracer) = 0;
  // The next source registered with the same context (Ctx::add_root_source).
  RootSource* next_root_source = nullptr;

 protected:
  ~RootSource() = default;
};

// One entry of a context's root stack (RootScope::add).
struct RootEntry {
  enum class Kind : uint8_t {
    Value,        // const Value*
    Object,       // const Obj* const*: a pointer variable to an object (or nullptr)
    Values,       // const Value* with a fixed count
    ValueVector,  // const std::vector<Value>*
    VecBuilder,   // const VecBuilder*
    HashBuilder,  // const HashBuilder*
    SeqIter,      // const SeqIter*
    Source,       // RootSource*
  };
  Kind kind;
  const void* p;
  size_t n;
};

// The values native frames hold, as a stack of entries (RootScope). The
// first entries live in the context itself: most runs open a few scopes,
// and a run should not pay an allocation for them.
class RootStack {
 public:
  size_t size() const { return size_; }
  void push(RootEntry e) {
    if (size_ < kInline) [[likely]] {
      inline_[size_++] = e;
      return;
    }
    push_more(e);
  }
  void truncate(size_t n) {
    if (size_ > kInline) [[unlikely]]
      more_.resize(n > kInline ? n - kInline : 0);
    size_ = n;
  }
  template <class F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < size_ && i < kInline; ++i)
      f(inline_[i]);
    for (const RootEntry& e : more_)
      f(e);
  }

 private:
  void push_more(RootEntry e);
  static constexpr size_t kInline = 16;
  size_t size_ = 0;
  RootEntry inline_[kInline];
  std::vector<RootEntry> more_;
};

// Adds roots for as long as it lives. What is added is read when a
// collection happens, so a variable added once may change afterwards:
//
//   RootScope roots(ctx);
//   VecBuilder out(ctx.arena);
//   Value acc = init;
//   roots.add(out);
//   roots.add(acc);
//   for (...) acc = ctx.call(f, acc, x);   // a collection here sees out and acc
class RootScope {
 public:
  explicit RootScope(Ctx& ctx);
  ~RootScope() { stack_.truncate(mark_); }
  RootScope(const RootScope&) = delete;
  RootScope& operator=(const RootScope&) = delete;

  void add(const Value& v) { push(RootEntry::Kind::Value, &v, 0); }
  // A pointer variable to a heap object (const VecObj* v, ...); may be null.
  template <class T>
  void add(T* const& object) {
    static_assert(std::is_base_of_v<Obj, std::remove_cv_t<T>>, "roots point at objects");
    push(RootEntry::Kind::Object, static_cast<const void*>(&object), 0);
  }
  // `n` values at `values`, a fixed array for as long as the scope lives.
  void add(const Value* values, size_t n) { push(RootEntry::Kind::Values, values, n); }
  void add(const std::vector<Value>& values) { push(RootEntry::Kind::ValueVector, &values, 0); }
  void add(const VecBuilder& b) { push(RootEntry::Kind::VecBuilder, &b, 0); }
  void add(const HashBuilder& b) { push(RootEntry::Kind::HashBuilder, &b, 0); }
  void add(const SeqIter& it) { push(RootEntry::Kind::SeqIter, &it, 0); }
  void add(RootSource& source) { push(RootEntry::Kind::Source, &source, 0); }

 private:
  void push(RootEntry::Kind kind, const void* p, size_t n) { stack_.push({kind, p, n}); }
  RootStack& stack_;
  size_t mark_;
};

// A root source made of a function, for a native frame's state that no kind
// of RootScope::add covers (a stack of vectors being walked):
//
//   TracedBy pending([&](Tracer& t) { for (auto& level : stack) t.object(level.kids); });
//   roots.add(pending);
template <class F>
class TracedBy final : public RootSource {
 public:
  explicit TracedBy(F f) : f_(std::move(f)) {}
  void trace_roots(Tracer& tracer) override { f_(tracer); }

 private:
  F f_;
};

}  // namespace ptc
