// Per-run interning of keywords and quoted symbols. Interning makes equal
// keywords share one object, so comparisons are usually a pointer check;
// equality still falls back to the name (values from another run's interner,
// e.g. a parallel worker, compare correctly). The count of distinct names is
// held against max_symbols.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "runtime/objects.hpp"

namespace ptc {

class Arena;
class Tracer;

class Interner {
 public:
  Interner(Arena& arena, uint32_t max_symbols);

  const KeywordObj* keyword(std::string_view name) { return intern(name, Type::Keyword); }
  const KeywordObj* symbol(std::string_view name) { return intern(name, Type::Symbol); }
  // Lookup without creating (nullptr when the keyword was never interned).
  const KeywordObj* find_keyword(std::string_view name) const { return find(name, Type::Keyword); }

  // Names interned by `parent` (a compiled program's, which outlives this
  // interner and no longer changes) resolve to its objects, so that a run's
  // keywords stay identical to the program's constants. The parent's names
  // count against max_symbols.
  void set_parent(const Interner* parent) { parent_ = parent; }
  const Interner* parent() const { return parent_; }

  uint32_t count() const { return count_; }
  // Its keywords and symbols live as long as the run: roots of its heap.
  void trace(Tracer& t) const;

 private:
  const KeywordObj* find(std::string_view name, Type type) const;
  // Lookups hash the name once, for this interner and its parent alike.
  const KeywordObj* find_hashed(std::string_view name, Type type, uint32_t h) const;
  // The slot holding the name, or the empty slot where it would go.
  size_t probe(std::string_view name, Type type, uint32_t h) const;
  const KeywordObj* intern(std::string_view name, Type type);
  void grow();

  Arena& arena_;
  const uint32_t max_;
  uint32_t count_ = 0;
  const Interner* parent_ = nullptr;
  std::vector<const KeywordObj*> slots_;  // open addressing, power-of-two size
};

}  // namespace ptc
