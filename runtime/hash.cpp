#include "runtime/hash.hpp"

#include <xxhash.h>

#include <atomic>
#include <random>

namespace ptc {

namespace {
uint64_t initial_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}
std::atomic<uint64_t> g_seed{initial_seed()};
}  // namespace

uint64_t hash_seed() {
  return g_seed.load(std::memory_order_relaxed);
}
void set_hash_seed_for_testing(uint64_t seed) {
  g_seed.store(seed, std::memory_order_relaxed);
}

uint32_t hash_bytes(std::string_view bytes) {
  return nonzero_hash(
      static_cast<uint32_t>(XXH3_64bits_withSeed(bytes.data(), bytes.size(), hash_seed())));
}

uint64_t hash_bytes64(std::string_view bytes) {
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), hash_seed());
}

uint32_t hash_u64(uint64_t x) {
  return nonzero_hash(static_cast<uint32_t>(XXH3_64bits_withSeed(&x, sizeof x, hash_seed())));
}

}  // namespace ptc
