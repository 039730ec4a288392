#include "runtime/hamt.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include "runtime/arena.hpp"
#include "runtime/collector.hpp"

namespace ptc {

namespace {

constexpr uint32_t kMaxShift = 30;  // 7 levels of 5 bits cover the 32-bit hash

HamtNode* alloc_node(Arena& arena, uint32_t nentries, uint32_t nchildren) {
  size_t bytes = sizeof(HamtNode) + nentries * sizeof(HamtEntry) + nchildren * sizeof(void*);
  auto* n = static_cast<HamtNode*>(arena.alloc(bytes));
  new (n) HamtNode();
  return n;
}

uint32_t bit_for(uint32_t hash, uint32_t shift) {
  return 1u << ((hash >> shift) & 31);
}

const HamtNode* collision(Arena& arena, const HamtEntry* entries, uint32_t n) {
  HamtNode* node = alloc_node(arena, n, 0);
  node->ncoll = n;
  std::memcpy(node->entries(), entries, n * sizeof(HamtEntry));
  return node;
}

// A node holding two entries that collided at `shift`.
const HamtNode* merge(Arena& arena, HamtEntry a, HamtEntry b, uint32_t shift) {
  if (shift > kMaxShift) {
    HamtEntry both[2] = {a, b};
    return collision(arena, both, 2);
  }
  uint32_t ba = bit_for(a.hash, shift), bb = bit_for(b.hash, shift);
  if (ba != bb) {
    HamtNode* node = alloc_node(arena, 2, 0);
    node->datamap = ba | bb;
    node->entries()[0] = ba < bb ? a : b;
    node->entries()[1] = ba < bb ? b : a;
    return node;
  }
  HamtNode* node = alloc_node(arena, 0, 1);
  node->nodemap = ba;
  node->children()[0] = merge(arena, a, b, shift + 5);
  return node;
}

// Copy of `node` with its data entry and child arrays edited.
HamtNode* rebuild(Arena& arena, uint32_t datamap, uint32_t nodemap) {
  HamtNode* out = alloc_node(arena, bit_count(datamap), bit_count(nodemap));
  out->datamap = datamap;
  out->nodemap = nodemap;
  return out;
}

const HamtNode* insert(Arena& arena, const HamtNode* node, HamtEntry e, uint32_t shift) {
  if (!node) {
    HamtNode* leaf = alloc_node(arena, 1, 0);
    leaf->datamap = bit_for(e.hash, shift);
    leaf->entries()[0] = e;
    return leaf;
  }
  if (node->ncoll) {
    HamtNode* out = alloc_node(arena, node->ncoll + 1, 0);
    out->ncoll = node->ncoll + 1;
    std::memcpy(out->entries(), node->entries(), node->ncoll * sizeof(HamtEntry));
    out->entries()[node->ncoll] = e;
    return out;
  }
  uint32_t bit = bit_for(e.hash, shift);
  uint32_t nd = bit_count(node->datamap), nc = bit_count(node->nodemap);
  if (node->datamap & bit) {
    // The position holds one entry: push both down into a child node.
    uint32_t di = bit_count(node->datamap & (bit - 1));
    uint32_t ci = bit_count(node->nodemap & (bit - 1));
    HamtNode* out = rebuild(arena, node->datamap & ~bit, node->nodemap | bit);
    std::memcpy(out->entries(), node->entries(), di * sizeof(HamtEntry));
    std::memcpy(out->entries() + di, node->entries() + di + 1, (nd - di - 1) * sizeof(HamtEntry));
    const HamtNode** oc = out->children();
    for (uint32_t i = 0; i < ci; ++i)
      oc[i] = node->children()[i];
    oc[ci] = merge(arena, node->entries()[di], e, shift + 5);
    for (uint32_t i = ci; i < nc; ++i)
      oc[i + 1] = node->children()[i];
    return out;
  }
  if (node->nodemap & bit) {
    uint32_t ci = bit_count(node->nodemap & (bit - 1));
    HamtNode* out = rebuild(arena, node->datamap, node->nodemap);
    std::memcpy(out->entries(), node->entries(), nd * sizeof(HamtEntry));
    for (uint32_t i = 0; i < nc; ++i)
      out->children()[i] = node->children()[i];
    out->children()[ci] = insert(arena, node->children()[ci], e, shift + 5);
    return out;
  }
  uint32_t di = bit_count(node->datamap & (bit - 1));
  HamtNode* out = rebuild(arena, node->datamap | bit, node->nodemap);
  std::memcpy(out->entries(), node->entries(), di * sizeof(HamtEntry));
  out->entries()[di] = e;
  std::memcpy(out->entries() + di + 1, node->entries() + di, (nd - di) * sizeof(HamtEntry));
  for (uint32_t i = 0; i < nc; ++i)
    out->children()[i] = node->children()[i];
  return out;
}

const HamtNode* remove(Arena& arena, const HamtNode* node, HamtEntry e, uint32_t shift) {
  if (!node) return nullptr;
  if (node->ncoll) {
    uint32_t n = node->ncoll;
    for (uint32_t i = 0; i < n; ++i) {
      if (node->entries()[i].hash == e.hash && node->entries()[i].slot == e.slot) {
        if (n == 1) return nullptr;
        HamtNode* out = alloc_node(arena, n - 1, 0);
        out->ncoll = n - 1;
        std::memcpy(out->entries(), node->entries(), i * sizeof(HamtEntry));
        std::memcpy(out->entries() + i, node->entries() + i + 1, (n - i - 1) * sizeof(HamtEntry));
        return out;
      }
    }
    return node;
  }
  uint32_t bit = bit_for(e.hash, shift);
  uint32_t nd = bit_count(node->datamap), nc = bit_count(node->nodemap);
  if (node->datamap & bit) {
    uint32_t di = bit_count(node->datamap & (bit - 1));
    const HamtEntry& have = node->entries()[di];
    if (have.hash != e.hash || have.slot != e.slot) return node;
    if (nd == 1 && nc == 0) return nullptr;
    HamtNode* out = rebuild(arena, node->datamap & ~bit, node->nodemap);
    std::memcpy(out->entries(), node->entries(), di * sizeof(HamtEntry));
    std::memcpy(out->entries() + di, node->entries() + di + 1, (nd - di - 1) * sizeof(HamtEntry));
    for (uint32_t i = 0; i < nc; ++i)
      out->children()[i] = node->children()[i];
    return out;
  }
  if (!(node->nodemap & bit)) return node;
  uint32_t ci = bit_count(node->nodemap & (bit - 1));
  const HamtNode* child = remove(arena, node->children()[ci], e, shift + 5);
  if (child == node->children()[ci]) return node;
  if (!child) {
    if (nd == 0 && nc == 1) return nullptr;
    HamtNode* out = rebuild(arena, node->datamap, node->nodemap & ~bit);
    std::memcpy(out->entries(), node->entries(), nd * sizeof(HamtEntry));
    for (uint32_t i = 0, j = 0; i < nc; ++i)
      if (i != ci) out->children()[j++] = node->children()[i];
    return out;
  }
  HamtNode* out = rebuild(arena, node->datamap, node->nodemap);
  std::memcpy(out->entries(), node->entries(), nd * sizeof(HamtEntry));
  for (uint32_t i = 0; i < nc; ++i)
    out->children()[i] = node->children()[i];
  out->children()[ci] = child;
  return out;
}

const HamtNode* build(Arena& arena, std::span<HamtEntry> es, uint32_t shift) {
  if (shift > kMaxShift) return collision(arena, es.data(), static_cast<uint32_t>(es.size()));
  auto pos = [shift](const HamtEntry& e) { return (e.hash >> shift) & 31; };
  std::stable_sort(es.begin(), es.end(),
                   [&](const HamtEntry& a, const HamtEntry& b) { return pos(a) < pos(b); });
  uint32_t datamap = 0, nodemap = 0;
  for (size_t i = 0; i < es.size();) {
    size_t j = i;
    while (j < es.size() && pos(es[j]) == pos(es[i]))
      ++j;
    (j - i == 1 ? datamap : nodemap) |= 1u << pos(es[i]);
    i = j;
  }
  HamtNode* node = alloc_node(arena, bit_count(datamap), bit_count(nodemap));
  node->datamap = datamap;
  node->nodemap = nodemap;
  uint32_t d = 0, c = 0;
  for (size_t i = 0; i < es.size();) {
    size_t j = i;
    while (j < es.size() && pos(es[j]) == pos(es[i]))
      ++j;
    if (j - i == 1)
      node->entries()[d++] = es[i];
    else
      node->children()[c++] = build(arena, es.subspan(i, j - i), shift + 5);
    i = j;
  }
  return node;
}

}  // namespace

const HamtNode* hamt_insert(Arena& arena, const HamtNode* root, uint32_t hash, uint32_t slot) {
  return insert(arena, root, HamtEntry{hash, slot}, 0);
}

const HamtNode* hamt_remove(Arena& arena, const HamtNode* root, uint32_t hash, uint32_t slot) {
  return remove(arena, root, HamtEntry{hash, slot}, 0);
}

const HamtNode* hamt_build(Arena& arena, std::vector<HamtEntry>& entries) {
  if (entries.empty()) return nullptr;
  return build(arena, std::span<HamtEntry>(entries), 0);
}

void trace_hamt(Tracer& t, const HamtNode* node) {
  if (!node || !t.ours(node)) return;
  uint32_t nchildren = node->ncoll ? 0 : bit_count(node->nodemap);
  size_t bytes =
      sizeof(HamtNode) + node->nentries() * sizeof(HamtEntry) + nchildren * sizeof(void*);
  if (!t.mark(node, bytes)) return;
  for (uint32_t i = 0; i < nchildren; ++i)
    trace_hamt(t, node->children()[i]);
}

}  // namespace ptc
