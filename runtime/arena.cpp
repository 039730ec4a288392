#include "runtime/arena.hpp"

#include <mimalloc.h>

#include <fmt/format.h>
#include <cstdlib>

#include "runtime/error.hpp"

namespace ptc {

namespace {
constexpr size_t kMaxChunk = size_t{1} << 20;

std::string human_bytes(size_t n) {
  if (n >= (size_t{1} << 20)) return fmt::format("{:.1f} MB", n / 1048576.0);
  if (n >= 1024) return fmt::format("{:.1f} KB", n / 1024.0);
  return fmt::format("{} bytes", n);
}
}  // namespace

Arena::Arena(size_t cap_bytes) : cap_(cap_bytes) {
#ifndef PTC_ARENA_USE_MALLOC
  heap_ = mi_heap_new();
  if (!heap_) throw std::bad_alloc();
#endif
}

Arena::~Arena() {
  for (auto it = finalizers_.rbegin(); it != finalizers_.rend(); ++it)
    it->first(it->second);
#ifdef PTC_ARENA_USE_MALLOC
  for (void* p : blocks_)
    std::free(p);
#else
  mi_heap_destroy(heap_);
#endif
}

void Arena::throw_over_cap(size_t bytes) const {
  throw_error(ErrorKind::MemoryLimit,
              fmt::format("memory limit exceeded: the program needs more than {} of heap "
                          "(used {}, asked for {} more)",
                          human_bytes(cap_), human_bytes(used_), human_bytes(bytes)),
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
    void* p = mi_heap_malloc_aligned(heap_, bytes, 16);
    if (!p) throw std::bad_alloc();
    return p;
  }
  size_t chunk = next_chunk_;
  if (next_chunk_ < kMaxChunk) next_chunk_ *= 2;
  char* mem = static_cast<char*>(mi_heap_malloc_aligned(heap_, chunk, 16));
  if (!mem) throw std::bad_alloc();
  cur_ = mem + bytes;
  end_ = mem + chunk;
  return mem;
#endif
}

}  // namespace ptc
