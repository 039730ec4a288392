#include "runtime/vector.hpp"

#include <atomic>
#include <cstring>
#include <vector>

#include "runtime/arena.hpp"
#include "runtime/collector.hpp"

namespace ptc {

namespace {

VecObj make_empty() {
  VecObj v;
  v.type = Type::Vector;
  v.aux = kVecBits;
  return v;
}
const VecObj kEmpty = make_empty();

VecObj* new_vec(Arena& arena, uint32_t count, uint32_t origin, uint32_t shift, const VecNode* root,
                const Value* tail, bool claimable) {
  VecObj* v = arena.make<VecObj>();
  v->type = Type::Vector;
  v->aux = static_cast<uint16_t>(shift);
  v->flags = claimable ? VecObj::kClaimableTail : 0;
  v->count = count;
  v->origin = origin;
  v->root = root;
  v->tail = tail;
  return v;
}

// A claimable tail buffer: a 16-byte header (claimed slots, capacity) before
// the slots. Slots stay 16-byte aligned.
struct TailHeader {
  uint32_t claimed;
  uint32_t cap;
  uint64_t pad;
};
static_assert(sizeof(TailHeader) == 16);

TailHeader* header_of(const Value* slots) {
  return reinterpret_cast<TailHeader*>(const_cast<Value*>(slots)) - 1;
}

Value* alloc_tail(Arena& arena, uint32_t cap, uint32_t claimed) {
  auto* h = static_cast<TailHeader*>(arena.alloc(sizeof(TailHeader) + sizeof(Value) * cap));
  h->claimed = claimed;
  h->cap = cap;
  h->pad = 0;
  return reinterpret_cast<Value*>(h + 1);
}

// Claims slot `index` of a claimable tail for the caller: true when no other
// version has claimed it (the caller's version ends exactly there).
bool claim_slot(const Value* slots, uint32_t index) {
  TailHeader* h = header_of(slots);
  if (index >= h->cap) return false;
  uint32_t expected = index;
  return std::atomic_ref<uint32_t>(h->claimed).compare_exchange_strong(expected, index + 1);
}

uint32_t grown_cap(uint32_t needed) {
  uint32_t cap = 4;
  while (cap < needed)
    cap *= 2;
  return cap < kVecWidth ? cap : kVecWidth;
}

// A new claimable tail holding `n` values of src plus room to grow.
Value* copy_tail(Arena& arena, const Value* src, uint32_t n, uint32_t needed) {
  Value* t = alloc_tail(arena, grown_cap(needed), n);
  if (n) std::memcpy(static_cast<void*>(t), src, sizeof(Value) * n);
  return t;
}

VecNode* new_node(Arena& arena, const VecNode* copy_of) {
  auto* n = static_cast<VecNode*>(arena.alloc(sizeof(VecNode)));
  if (copy_of)
    std::memcpy(n, copy_of, sizeof(VecNode));
  else
    std::memset(n, 0, sizeof(VecNode));
  return n;
}

Value* new_leaf_copy(Arena& arena, const Value* src, uint32_t n, uint32_t capacity) {
  Value* leaf = arena.alloc_array<Value>(capacity);
  if (n) std::memcpy(static_cast<void*>(leaf), src, sizeof(Value) * n);
  return leaf;
}

const VecNode* leaf_as_node(const Value* leaf) {
  return static_cast<const VecNode*>(static_cast<const void*>(leaf));
}

// The leaf (or tail) holding absolute index i.
const Value* leaf_for(const VecObj* v, uint32_t i) {
  if (i >= v->tail_offset()) return v->tail;
  const VecNode* node = v->root;
  for (uint32_t level = v->shift(); level > 0; level -= kVecBits)
    node = static_cast<const VecNode*>(node->slots[(i >> level) & kVecMask]);
  return static_cast<const Value*>(static_cast<const void*>(node));
}

const VecNode* new_path(Arena& arena, uint32_t level, const VecNode* node) {
  if (level == 0) return node;
  VecNode* ret = new_node(arena, nullptr);
  ret->slots[0] = new_path(arena, level - kVecBits, node);
  return ret;
}

const VecNode* push_tail(Arena& arena, uint32_t count, uint32_t level, const VecNode* parent,
                         const VecNode* tail_node) {
  uint32_t sub = ((count - 1) >> level) & kVecMask;
  VecNode* ret = new_node(arena, parent);
  if (level == kVecBits) {
    ret->slots[sub] = tail_node;
  } else {
    auto* child = parent ? static_cast<const VecNode*>(parent->slots[sub]) : nullptr;
    ret->slots[sub] = child ? push_tail(arena, count, level - kVecBits, child, tail_node)
                            : new_path(arena, level - kVecBits, tail_node);
  }
  return ret;
}

const VecNode* assoc_in_tree(Arena& arena, uint32_t level, const VecNode* node, uint32_t i,
                             Value x) {
  if (level == 0) {
    Value* leaf = new_leaf_copy(arena, static_cast<const Value*>(static_cast<const void*>(node)),
                                kVecWidth, kVecWidth);
    leaf[i & kVecMask] = x;
    return leaf_as_node(leaf);
  }
  VecNode* ret = new_node(arena, node);
  uint32_t sub = (i >> level) & kVecMask;
  ret->slots[sub] =
      assoc_in_tree(arena, level - kVecBits, static_cast<const VecNode*>(node->slots[sub]), i, x);
  return ret;
}

// Removes the rightmost leaf; nullptr when the node becomes empty.
const VecNode* pop_tail(Arena& arena, uint32_t count, uint32_t level, const VecNode* node) {
  uint32_t sub = ((count - 2) >> level) & kVecMask;
  if (level > kVecBits) {
    const VecNode* child =
        pop_tail(arena, count, level - kVecBits, static_cast<const VecNode*>(node->slots[sub]));
    if (!child && sub == 0) return nullptr;
    VecNode* ret = new_node(arena, node);
    ret->slots[sub] = child;
    return ret;
  }
  if (sub == 0) return nullptr;
  VecNode* ret = new_node(arena, node);
  ret->slots[sub] = nullptr;
  return ret;
}

}  // namespace

const Value* VecObj::chunk_at(uint32_t i, uint32_t* len) const {
  uint32_t a = origin + i;
  uint32_t off = tail_offset();
  if (a >= off) {
    *len = end() - a;
    return tail + (a - off);
  }
  *len = kVecWidth - (a & kVecMask);
  return leaf_for(this, a) + (a & kVecMask);
}

const VecObj* empty_vector() {
  return &kEmpty;
}

const VecObj* vec_from(Arena& arena, const Value* items, size_t n) {
  if (n == 0) return empty_vector();
  if (n <= kVecWidth) {
    auto count = static_cast<uint32_t>(n);
    Value* tail = alloc_tail(arena, count, count);
    std::memcpy(static_cast<void*>(tail), items, sizeof(Value) * count);
    return new_vec(arena, count, 0, kVecBits, nullptr, tail, true);
  }
  VecBuilder b(arena);
  for (size_t i = 0; i < n; ++i)
    b.push(items[i]);
  return b.finish();
}

const VecObj* vec_conj(Arena& arena, const VecObj* v, Value x) {
  uint32_t tl = v->tail_len();
  if (tl < kVecWidth) {
    if ((v->flags & VecObj::kClaimableTail) && claim_slot(v->tail, tl)) {
      // This version owns the end of its tail buffer: append in place.
      const_cast<Value*>(v->tail)[tl] = x;
      return new_vec(arena, v->count + 1, v->origin, v->shift(), v->root, v->tail, true);
    }
    Value* tail = copy_tail(arena, v->tail, tl, tl + 1);
    tail[tl] = x;
    header_of(tail)->claimed = tl + 1;
    return new_vec(arena, v->count + 1, v->origin, v->shift(), v->root, tail, true);
  }
  // The tail is full (32 values): it becomes a leaf of the trie.
  uint32_t end = v->end();
  const VecNode* tail_node = leaf_as_node(v->tail);
  const VecNode* root;
  uint32_t shift = v->shift();
  if ((end >> kVecBits) > (1u << shift)) {
    VecNode* r = new_node(arena, nullptr);
    r->slots[0] = v->root;
    r->slots[1] = new_path(arena, shift, tail_node);
    root = r;
    shift += kVecBits;
  } else {
    root = push_tail(arena, end, shift, v->root, tail_node);
  }
  // A vector that filled a whole leaf is likely to keep growing: full-size tail.
  Value* tail = alloc_tail(arena, kVecWidth, 1);
  tail[0] = x;
  return new_vec(arena, v->count + 1, v->origin, shift, root, tail, true);
}

const VecObj* vec_assoc(Arena& arena, const VecObj* v, uint32_t i, Value x) {
  uint32_t a = v->origin + i;
  uint32_t off = v->tail_offset();
  if (a >= off) {
    uint32_t tl = v->tail_len();
    Value* tail = copy_tail(arena, v->tail, tl, tl);
    tail[a - off] = x;
    return new_vec(arena, v->count, v->origin, v->shift(), v->root, tail, true);
  }
  return new_vec(arena, v->count, v->origin, v->shift(),
                 assoc_in_tree(arena, v->shift(), v->root, a, x), v->tail,
                 v->flags & VecObj::kClaimableTail);
}

const VecObj* vec_pop(Arena& arena, const VecObj* v) {
  if (v->count == 1) return empty_vector();
  uint32_t tl = v->tail_len();
  bool claimable = v->flags & VecObj::kClaimableTail;
  if (tl > 1)  // share the tail: a later conj on this version sees the slot as claimed and copies
    return new_vec(arena, v->count - 1, v->origin, v->shift(), v->root, v->tail, claimable);
  uint32_t end = v->end();
  const Value* new_tail = leaf_for(v, end - 2);
  if (end - 1 <= kVecWidth)
    return new_vec(arena, v->count - 1, v->origin, kVecBits, nullptr, new_tail, false);
  const VecNode* root = pop_tail(arena, end, v->shift(), v->root);
  uint32_t shift = v->shift();
  if (shift > kVecBits && root && !root->slots[1]) {
    root = static_cast<const VecNode*>(root->slots[0]);
    shift -= kVecBits;
  }
  return new_vec(arena, v->count - 1, v->origin, shift, root, new_tail, false);
}

const VecObj* vec_slice(Arena& arena, const VecObj* v, uint32_t from, uint32_t to) {
  if (to > v->count) to = v->count;  // never read past the end
  if (from >= to) return empty_vector();
  if (from == 0 && to == v->count) return v;
  if (to == v->count)  // a suffix: share everything
    return new_vec(arena, v->count - from, v->origin + from, v->shift(), v->root, v->tail,
                   v->flags & VecObj::kClaimableTail);
  VecBuilder b(arena);
  for (VecIter it(v, from); it.index() < to; it.next())
    b.push(it.value());
  return b.finish();
}

void VecBuilder::new_leaf() {
  if (nfull_ == 0 && leaf_cap_ < kVecWidth) {
    // Still in the first leaf: grow it.
    leaf_ = copy_tail(arena_, leaf_, fill_, fill_ + 1);
    leaf_cap_ = header_of(leaf_)->cap;
    return;
  }
  // The current leaf is full: keep it for the trie and start another.
  if (nfull_ == full_cap_) {
    full_cap_ = full_cap_ ? full_cap_ * 2 : 8;
    Value** grown = arena_.alloc_array<Value*>(full_cap_);
    if (nfull_) std::memcpy(static_cast<void*>(grown), full_, nfull_ * sizeof(Value*));
    full_ = grown;
  }
  full_[nfull_++] = leaf_;
  leaf_ = alloc_tail(arena_, kVecWidth, 0);
  leaf_cap_ = kVecWidth;
  fill_ = 0;
}

void VecBuilder::push_all(const VecObj* v) {
  for (VecIter it(v); !it.done(); it.next())
    push(it.value());
}

const VecObj* VecBuilder::finish() {
  if (count_ == 0) return empty_vector();
  auto count = static_cast<uint32_t>(count_);
  header_of(leaf_)->claimed = fill_;  // the last leaf is the tail; later conj appends in place
  if (nfull_ == 0) return new_vec(arena_, count, 0, kVecBits, nullptr, leaf_, true);
  // Link the full leaves bottom-up; the partial (or last full) leaf is the tail.
  std::vector<const void*> level(full_, full_ + nfull_);
  uint32_t shift = 0;
  while (shift == 0 || level.size() > 1) {
    std::vector<const void*> parents;
    parents.reserve((level.size() + kVecMask) / kVecWidth);
    for (size_t i = 0; i < level.size(); i += kVecWidth) {
      VecNode* n = new_node(arena_, nullptr);
      for (size_t j = 0; j < kVecWidth && i + j < level.size(); ++j)
        n->slots[j] = level[i + j];
      parents.push_back(n);
    }
    level.swap(parents);
    shift += kVecBits;
  }
  return new_vec(arena_, count, 0, shift, static_cast<const VecNode*>(level[0]), leaf_, true);
}

namespace {

// A trie node at `level` (0: a leaf of 32 values). Inner nodes are marked
// once; a node of another heap leads only to what was there when it was
// made, none of it ours. Leaves are read wherever they live: a full tail
// becomes a leaf, and a tail may hold values this run appended in place.
void trace_node(Tracer& t, const VecNode* node, uint32_t level) {
  if (level == 0) {
    const auto* leaf = static_cast<const Value*>(static_cast<const void*>(node));
    if (t.ours(leaf)) t.mark_range(leaf, sizeof(Value) * kVecWidth);
    t.values(leaf, kVecWidth);
    return;
  }
  if (!t.ours(node) || !t.mark(node, sizeof(VecNode))) return;
  for (const void* child : node->slots)
    if (child) trace_node(t, static_cast<const VecNode*>(child), level - kVecBits);
}

}  // namespace

void trace_vector(Tracer& t, const VecObj* v) {
  if (v->tail) {
    uint32_t len = v->tail_len();
    if (t.ours(v->tail)) {
      // A claimable tail's version may append in place: its whole buffer
      // (header, every slot) stays. Other views mark what they show.
      if (v->flags & VecObj::kClaimableTail) {
        const TailHeader* h = header_of(v->tail);
        t.mark_range(h, sizeof(TailHeader) + sizeof(Value) * h->cap);
      } else {
        t.mark_range(v->tail, sizeof(Value) * len);
      }
    }
    t.values(v->tail, len);
  }
  if (v->root) trace_node(t, v->root, v->shift());
}

void VecBuilder::trace(Tracer& t) const {
  if (full_ && t.ours(full_)) t.mark_range(full_, sizeof(Value*) * full_cap_);
  for (uint32_t i = 0; i < nfull_; ++i) {
    if (t.ours(full_[i]))
      t.mark_range(header_of(full_[i]), sizeof(TailHeader) + sizeof(Value) * kVecWidth);
    t.values(full_[i], kVecWidth);
  }
  if (leaf_) {
    if (t.ours(leaf_))
      t.mark_range(header_of(leaf_), sizeof(TailHeader) + sizeof(Value) * leaf_cap_);
    t.values(leaf_, fill_);
  }
}

}  // namespace ptc
