// Hash array mapped trie from a 32-bit hash to a slot number. Maps and sets
// keep their entries in an insertion-ordered vector; this index finds an
// entry's slot from its key's hash. Keys are compared by the caller (the index
// only knows hashes), so every slot stored under a hash is a candidate.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ptc {

class Arena;
class Tracer;

// The number of set bits. The baseline x86-64 target has no popcnt
// instruction, and __builtin_popcount there is a call into libgcc (half of
// a large map's assoc time); this is the same count in a dozen inline
// operations.
inline uint32_t bit_count(uint32_t x) {
#if defined(__POPCNT__) || !defined(__x86_64__)
  return static_cast<uint32_t>(__builtin_popcount(x));
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return (x * 0x01010101u) >> 24;
#endif
}

struct HamtEntry {
  uint32_t hash;
  uint32_t slot;
};

struct HamtNode {
  uint32_t datamap = 0;  // positions holding one entry
  uint32_t nodemap = 0;  // positions holding a child node
  uint32_t ncoll = 0;    // > 0: a collision node listing entries with equal hashes
  uint32_t pad = 0;

  const HamtEntry* entries() const { return reinterpret_cast<const HamtEntry*>(this + 1); }
  HamtEntry* entries() { return reinterpret_cast<HamtEntry*>(this + 1); }
  uint32_t nentries() const { return ncoll ? ncoll : bit_count(datamap); }
  const HamtNode* const* children() const {
    return reinterpret_cast<const HamtNode* const*>(entries() + nentries());
  }
  const HamtNode** children() { return reinterpret_cast<const HamtNode**>(entries() + nentries()); }
};

// Calls visit(slot) for every slot stored under `hash`; stops early when visit
// returns true, and then returns true.
template <class Visit>
bool hamt_for_each_candidate(const HamtNode* node, uint32_t hash, Visit&& visit) {
  uint32_t shift = 0;
  while (node) {
    if (node->ncoll) {
      for (uint32_t i = 0; i < node->ncoll; ++i)
        if (node->entries()[i].hash == hash && visit(node->entries()[i].slot)) return true;
      return false;
    }
    uint32_t bit = 1u << ((hash >> shift) & 31);
    if (node->datamap & bit) {
      const HamtEntry& e = node->entries()[bit_count(node->datamap & (bit - 1))];
      return e.hash == hash && visit(e.slot);
    }
    if (!(node->nodemap & bit)) return false;
    node = node->children()[bit_count(node->nodemap & (bit - 1))];
    shift += 5;
  }
  return false;
}

// Persistent updates: the input node is never modified.
const HamtNode* hamt_insert(Arena& arena, const HamtNode* root, uint32_t hash, uint32_t slot);
const HamtNode* hamt_remove(Arena& arena, const HamtNode* root, uint32_t hash, uint32_t slot);
// Builds an index over many entries in one pass, allocating each node once.
const HamtNode* hamt_build(Arena& arena, std::vector<HamtEntry>& entries);
// Marks the nodes of an index that are in the space being collected.
void trace_hamt(Tracer& t, const HamtNode* node);

}  // namespace ptc
