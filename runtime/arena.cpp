#include "runtime/arena.hpp"

#include <mimalloc.h>

#include <fmt/format.h>
#include <cstdlib>

#include "runtime/error.hpp"

namespace ptc {

namespace {
#ifndef PTC_ARENA_USE_MALLOC
constexpr size_t kFirstChunk = 4096;
constexpr size_t kMaxChunk = size_t{1} << 20;
constexpr size_t kHeader = 16;  // Block header, keeps payloads 16-byte aligned
constexpr int kClasses = 9;     // chunk sizes 4 KB .. 1 MB
// Per thread: pool threads are many (up to 64), and what they keep is RSS.
constexpr size_t kPoolBytes = size_t{512} << 10;

int size_class(size_t chunk) {
  int c = 0;
  for (size_t s = kFirstChunk; s < chunk; s <<= 1)
    ++c;
  return c;
}

// Set once this thread's pool is destroyed (a plain flag, so that it can be
// read after thread-locals are gone): an arena that outlives the pool (one in
// static storage, freed at exit) then frees its chunks directly.
thread_local bool t_pool_gone = false;

// Chunks kept for the next run on this thread, by size class.
struct ChunkPool {
  void* free[kClasses][4] = {};
  int count[kClasses] = {};
  size_t bytes = 0;
  ~ChunkPool() {
    t_pool_gone = true;
    for (int c = 0; c < kClasses; ++c)
      for (int i = 0; i < count[c]; ++i)
        mi_free(free[c][i]);
  }
  void* take(size_t chunk) {
    int c = size_class(chunk);
    if (count[c] == 0) return nullptr;
    bytes -= chunk;
    return free[c][--count[c]];
  }
  bool give(void* p, size_t chunk) {
    int c = size_class(chunk);
    if (count[c] == 4 || bytes + chunk > kPoolBytes) return false;
    free[c][count[c]++] = p;
    bytes += chunk;
    return true;
  }
};
thread_local ChunkPool t_pool;
#endif

std::string human_bytes(size_t n) {
  if (n >= (size_t{1} << 20)) return fmt::format("{:.1f} MB", n / 1048576.0);
  if (n >= 1024) return fmt::format("{:.1f} KB", n / 1024.0);
  return fmt::format("{} bytes", n);
}
}  // namespace

Arena::Arena(size_t cap_bytes) : cap_(std::min(cap_bytes, kMaxCap)), left_(cap_), limit_(cap_) {}

Arena::~Arena() {
  for (auto it = finalizers_.rbegin(); it != finalizers_.rend(); ++it)
    it->first(it->second);
#ifdef PTC_ARENA_USE_MALLOC
  for (void* p : blocks_)
    std::free(p);
#else
  for (Block* b = blocks_head_; b;) {
    Block* next = b->next;
    bool chunk = b->size >= kFirstChunk && b->size <= kMaxChunk && (b->size & (b->size - 1)) == 0;
    if (!(chunk && !t_pool_gone && t_pool.give(b, b->size))) mi_free(b);
    b = next;
  }
#endif
}

void Arena::throw_over_cap(size_t bytes) const {
  throw_error(ErrorKind::MemoryLimit,
              fmt::format("memory limit exceeded: the program needs more than {} of heap "
                          "(used {}, asked for {} more)",
                          human_bytes(cap_), human_bytes(used()), human_bytes(bytes)),
              "process data in smaller pieces, or keep fewer intermediate collections alive");
}

void Arena::reserve_check(size_t bytes) const {
  if (bytes > remaining()) throw_over_cap(bytes);
}

void Arena::add_finalizer(void (*fn)(void*), void* p) {
  finalizers_.emplace_back(fn, p);
}

void* Arena::alloc_slow(size_t bytes) {
#ifdef PTC_ARENA_USE_MALLOC
  void* p = std::aligned_alloc(16, bytes);
  if (!p) throw std::bad_alloc();
  blocks_.push_back(p);
  return p;
#else
  // Large objects get their own block; the current chunk keeps serving small ones.
  if (bytes > next_chunk_ / 4) {
    auto* b = static_cast<Block*>(mi_malloc_aligned(bytes + kHeader, 16));
    if (!b) throw std::bad_alloc();
    b->next = blocks_head_;
    b->size = bytes + kHeader + 1;  // never a pooled chunk size
    blocks_head_ = b;
    return reinterpret_cast<char*>(b) + kHeader;
  }
  size_t chunk = next_chunk_;
  if (next_chunk_ < kMaxChunk) next_chunk_ *= 2;
  auto* b = t_pool_gone ? nullptr : static_cast<Block*>(t_pool.take(chunk));
  if (!b) b = static_cast<Block*>(mi_malloc_aligned(chunk, 16));
  if (!b) throw std::bad_alloc();
  b->next = blocks_head_;
  b->size = chunk;
  blocks_head_ = b;
  char* mem = reinterpret_cast<char*>(b) + kHeader;
  cur_ = mem + bytes;
  end_ = reinterpret_cast<char*>(b) + chunk;
  return mem;
#endif
}

}  // namespace ptc
