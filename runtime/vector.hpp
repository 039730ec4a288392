// Persistent vector: a 32-way trie of leaves plus a tail (Clojure's design).
// Updates copy only the path they touch; older versions stay valid. Bulk
// construction goes through VecBuilder, which fills leaves in place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/value.hpp"

namespace ptc {

class Arena;
class Tracer;

constexpr uint32_t kVecBits = 5;
constexpr uint32_t kVecWidth = 1u << kVecBits;
constexpr uint32_t kVecMask = kVecWidth - 1;

struct VecNode {
  const void* slots[kVecWidth];  // inner nodes: VecNode*; level-0 leaves: Value[32]
};

// A vector version. `origin` makes a version a suffix view of a larger trie
// (rest, next, drop share the structure in O(1)); trie and tail indexes are
// absolute, element i is at origin + i. The trie shift lives in Obj::aux.
// When the tail is claimable (flags & kClaimableTail), its buffer records
// how many slots some version has claimed: conj on the version that owns the
// last claimed slot appends in place instead of copying the tail.
struct VecObj : Obj {
  static constexpr uint8_t kClaimableTail = 1;

  uint32_t count = 0;             // elements of this version
  uint32_t origin = 0;            // absolute index of element 0
  const VecNode* root = nullptr;  // nullptr while everything fits in the tail
  const Value* tail = nullptr;    // tail_len() values, absolute indexes from tail_offset()

  uint32_t shift() const { return aux; }
  uint32_t end() const { return origin + count; }  // absolute end
  uint32_t tail_offset() const {
    uint32_t e = end();
    return e <= kVecWidth ? 0 : ((e - 1) >> kVecBits) << kVecBits;
  }
  uint32_t tail_len() const { return end() - tail_offset(); }

  // Unchecked: i < count.
  Value nth(uint32_t i) const {
    uint32_t a = origin + i;
    uint32_t off = tail_offset();
    if (a >= off) return tail[a - off];
    const VecNode* node = root;
    for (uint32_t level = shift(); level > 0; level -= kVecBits)
      node = static_cast<const VecNode*>(node->slots[(a >> level) & kVecMask]);
    return static_cast<const Value*>(static_cast<const void*>(node))[a & kVecMask];
  }
  // Pointer to the contiguous run of values holding element i; *len is set
  // to the number of values from i to the end of that run.
  const Value* chunk_at(uint32_t i, uint32_t* len) const;
};

const VecObj* empty_vector();
const VecObj* vec_from(Arena& arena, const Value* items, size_t n);
const VecObj* vec_conj(Arena& arena, const VecObj* v, Value x);
const VecObj* vec_assoc(Arena& arena, const VecObj* v, uint32_t i, Value x);  // i < count
const VecObj* vec_pop(Arena& arena, const VecObj* v);                         // count > 0
// Items [from, to); `to` is clamped to the count, from >= to gives []. A
// slice to the end is a view sharing v's structure (O(1)); others copy.
const VecObj* vec_slice(Arena& arena, const VecObj* v, uint32_t from, uint32_t to);

// The collector's view of a vector (runtime/collector.hpp): marks its tail
// and trie nodes that are in the space being collected, and reads the values
// of every tail and leaf it reaches (a tail in another heap may have been
// appended to in place by this run).
void trace_vector(Tracer& t, const VecObj* v);

inline Value vec_value(const VecObj* v) {
  return Value::object(v);
}

// Iterates a vector chunk by chunk: `for (VecIter it(v); !it.done(); it.next()) use(it.value());`
class VecIter {
 public:
  explicit VecIter(const VecObj* v, uint32_t start = 0) : v_(v), i_(start) { load(); }
  bool done() const { return i_ >= v_->count; }
  Value value() const { return chunk_[pos_]; }
  uint32_t index() const { return i_; }
  void next() {
    ++i_;
    if (++pos_ >= len_) load();
  }

 private:
  void load() {
    pos_ = 0;
    len_ = 0;
    if (i_ < v_->count) chunk_ = v_->chunk_at(i_, &len_);
  }
  const VecObj* v_;
  uint32_t i_;
  const Value* chunk_ = nullptr;
  uint32_t pos_ = 0, len_ = 0;
};

// Appends values into leaves owned by the builder; finish() links them into a
// trie without copying values again. Everything it allocates is in the arena
// (no destructor needed), so a builder can itself live in the arena.
class VecBuilder {
 public:
  explicit VecBuilder(Arena& arena) : arena_(arena) {}
  void push(Value x) {
    if (fill_ == leaf_cap_) new_leaf();
    leaf_[fill_++] = x;
    ++count_;
  }
  void push_all(const VecObj* v);
  size_t size() const { return count_; }
  // The builder may not be used after finish().
  const VecObj* finish();
  // What it holds so far, for a root scope (roots.hpp).
  void trace(Tracer& t) const;

 private:
  void new_leaf();
  Arena& arena_;
  Value** full_ = nullptr;  // completed leaves
  uint32_t nfull_ = 0, full_cap_ = 0;
  Value* leaf_ = nullptr;
  uint32_t fill_ = 0;
  // The first leaf starts small and doubles up to kVecWidth, so that short
  // vectors do not pay for a whole 32-slot leaf against the memory cap.
  uint32_t leaf_cap_ = 0;
  size_t count_ = 0;
};

}  // namespace ptc
