#include "runtime/vector.hpp"

#include <cstring>
#include <vector>

#include "runtime/arena.hpp"

namespace ptc {

namespace {

VecObj make_empty() {
  VecObj v;
  v.type = Type::Vector;
  return v;
}
const VecObj kEmpty = make_empty();

VecObj* new_vec(Arena& arena, uint32_t count, uint32_t shift, const VecNode* root,
                const Value* tail) {
  VecObj* v = arena.make<VecObj>();
  v->type = Type::Vector;
  v->count = count;
  v->shift = shift;
  v->root = root;
  v->tail = tail;
  return v;
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

const Value* leaf_for(const VecObj* v, uint32_t i) {
  if (i >= v->tail_offset()) return v->tail;
  const VecNode* node = v->root;
  for (uint32_t level = v->shift; level > 0; level -= kVecBits)
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
  uint32_t off = tail_offset();
  if (i >= off) {
    *len = count - i;
    return tail + (i - off);
  }
  *len = kVecWidth - (i & kVecMask);
  return leaf_for(this, i) + (i & kVecMask);
}

const VecObj* empty_vector() {
  return &kEmpty;
}

const VecObj* vec_from(Arena& arena, const Value* items, size_t n) {
  if (n == 0) return empty_vector();
  if (n <= kVecWidth) {
    auto count = static_cast<uint32_t>(n);
    return new_vec(arena, count, kVecBits, nullptr, new_leaf_copy(arena, items, count, count));
  }
  VecBuilder b(arena);
  for (size_t i = 0; i < n; ++i)
    b.push(items[i]);
  return b.finish();
}

const VecObj* vec_conj(Arena& arena, const VecObj* v, Value x) {
  uint32_t tl = v->tail_len();
  if (tl < kVecWidth) {
    Value* tail = new_leaf_copy(arena, v->tail, tl, tl + 1);
    tail[tl] = x;
    return new_vec(arena, v->count + 1, v->shift, v->root, tail);
  }
  // The tail is full: it becomes a leaf of the trie.
  const VecNode* tail_node = leaf_as_node(v->tail);
  const VecNode* root;
  uint32_t shift = v->shift;
  if ((v->count >> kVecBits) > (1u << shift)) {
    VecNode* r = new_node(arena, nullptr);
    r->slots[0] = v->root;
    r->slots[1] = new_path(arena, shift, tail_node);
    root = r;
    shift += kVecBits;
  } else {
    root = push_tail(arena, v->count, shift, v->root, tail_node);
  }
  Value* tail = arena.alloc_array<Value>(1);
  tail[0] = x;
  return new_vec(arena, v->count + 1, shift, root, tail);
}

const VecObj* vec_assoc(Arena& arena, const VecObj* v, uint32_t i, Value x) {
  uint32_t off = v->tail_offset();
  if (i >= off) {
    Value* tail = new_leaf_copy(arena, v->tail, v->tail_len(), v->tail_len());
    tail[i - off] = x;
    return new_vec(arena, v->count, v->shift, v->root, tail);
  }
  return new_vec(arena, v->count, v->shift, assoc_in_tree(arena, v->shift, v->root, i, x), v->tail);
}

const VecObj* vec_pop(Arena& arena, const VecObj* v) {
  if (v->count == 1) return empty_vector();
  uint32_t tl = v->tail_len();
  if (tl > 1) {
    Value* tail = new_leaf_copy(arena, v->tail, tl - 1, tl - 1);
    return new_vec(arena, v->count - 1, v->shift, v->root, tail);
  }
  const Value* new_tail = leaf_for(v, v->count - 2);
  uint32_t new_count = v->count - 1;
  if (new_count <= kVecWidth) return new_vec(arena, new_count, kVecBits, nullptr, new_tail);
  const VecNode* root = pop_tail(arena, v->count, v->shift, v->root);
  uint32_t shift = v->shift;
  if (shift > kVecBits && root && !root->slots[1]) {
    root = static_cast<const VecNode*>(root->slots[0]);
    shift -= kVecBits;
  }
  return new_vec(arena, new_count, shift, root, new_tail);
}

const VecObj* vec_slice(Arena& arena, const VecObj* v, uint32_t from, uint32_t to) {
  if (to > v->count) to = v->count;  // never read past the end
  if (from >= to) return empty_vector();
  if (from == 0 && to == v->count) return v;
  VecBuilder b(arena);
  for (VecIter it(v, from); it.index() < to; it.next())
    b.push(it.value());
  return b.finish();
}

void VecBuilder::new_leaf() {
  constexpr uint32_t kFirstLeafCap = 4;
  if (nfull_ == 0 && leaf_cap_ < kVecWidth) {
    // Still in the first leaf: grow it.
    uint32_t cap = leaf_cap_ ? leaf_cap_ * 2 : kFirstLeafCap;
    leaf_ = new_leaf_copy(arena_, leaf_, fill_, cap);
    leaf_cap_ = cap;
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
  leaf_ = arena_.alloc_array<Value>(kVecWidth);
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
  if (nfull_ == 0) return new_vec(arena_, count, kVecBits, nullptr, leaf_);
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
  return new_vec(arena_, count, shift, static_cast<const VecNode*>(level[0]), leaf_);
}

}  // namespace ptc
