// Seeded hashing. The seed is chosen once per process at random so that
// adversarial keys cannot be crafted to collide; iteration order never depends
// on hashes (maps and sets keep insertion order), so output stays deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace ptc {

uint64_t hash_seed();
// Tests may pin the seed to check that nothing observable depends on it.
void set_hash_seed_for_testing(uint64_t seed);

uint32_t hash_bytes(std::string_view bytes);
uint64_t hash_bytes64(std::string_view bytes);
uint32_t hash_u64(uint64_t x);

// The hasher for every std::unordered_map or set whose keys come from outside
// (program names, JSON object keys, memory names): std::hash is unseeded, so
// crafted keys could make such a table quadratic. Transparent, so lookups by
// string_view need no copy.
struct SeededStringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return hash_bytes64(s); }
};
template <class V>
using StringMap = std::unordered_map<std::string_view, V, SeededStringHash, std::equal_to<>>;
using StringSet = std::unordered_set<std::string_view, SeededStringHash, std::equal_to<>>;
// Same, owning its keys.
template <class V>
using OwnedStringMap = std::unordered_map<std::string, V, SeededStringHash, std::equal_to<>>;

// Combine for ordered sequences (vectors) and the order-independent combine
// for maps and sets.
inline uint32_t hash_combine_ordered(uint32_t acc, uint32_t h) {
  return acc * 31u + h;
}
inline uint32_t hash_mix_unordered(uint32_t h) {
  uint64_t x = h * 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>(x ^ (x >> 29));
}

// 0 marks "not computed" in object headers; real hashes avoid it.
inline uint32_t nonzero_hash(uint32_t h) {
  return h ? h : 0x9e3779b9u;
}

}  // namespace ptc
